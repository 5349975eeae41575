# seed 002 Figure 6 (right) setting: epsilon of NoisyGD, strongly convex (c = 0.99,
# L/(n sigma) = 0.1), against steps, at delta = 1e-3 and 1e-5 (see make_figures.sh).
set terminal svg size 700,460 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale x
set xrange [10:640]
set yrange [0:*]
set xlabel "steps t (NoisyGD, c = 0.99, L/(nσ) = 0.1)"
set ylabel "ε (upper bounds)"
set title "NoisyGD, c = 0.99: Thm 4.2 against composition at two δ"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with linespoints lw 2.5 pt 7 ps 0.6 lc rgb "#1b9e77" title "Thm 4.2, δ = 1e-3", \
     data using 1:3 every ::1 with linespoints lw 2.5 pt 5 ps 0.6 lc rgb "#66a61e" title "Thm 4.2, δ = 1e-5", \
     data using 1:4 every ::1 with linespoints lw 1.5 pt 9 ps 0.6 dt 2 lc rgb "#7570b3" title "composition, δ = 1e-3", \
     data using 1:5 every ::1 with linespoints lw 1.5 pt 11 ps 0.6 lc rgb "#7570b3" title "composition, δ = 1e-5"
