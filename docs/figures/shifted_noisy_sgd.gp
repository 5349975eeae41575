# BSA24 Figure 10 setting (one panel): epsilon at delta = 1e-5 of NoisySGD, convex on a set of
# diameter D = 1 (b/n = 0.01, L/b = 0.5, sigma = 3), against the number of steps: Thm 4.10 and
# Thm 4.8 certified by PLD, and the paper's CLT approximation (see make_figures.sh).
set terminal svg size 700,460 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale x
set xrange [1000:80000]
set yrange [0:*]
set xlabel "steps t (NoisySGD, b/n = 0.01, L/b = 0.5, σ = 3, D = 1)"
set ylabel "ε at δ = 1e-5"
set title "NoisySGD: shifted interpolation (Thm 4.10) stops growing; composition (Thm 4.8) does not"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with linespoints lw 2.5 pt 7 ps 0.6 lc rgb "#1b9e77" title "Thm 4.10, η = 0.2 (PLD, certified)", \
     data using 1:3 every ::1 with linespoints lw 2 pt 5 ps 0.5 lc rgb "#66a61e" title "Thm 4.10, η = 0.05 (PLD, certified)", \
     data using 1:4 every ::1 with points pt 6 ps 1.2 lc rgb "#e7298a" title "Thm 4.10, η = 0.2, CLT (approximation)", \
     data using 1:5 every ::1 with linespoints lw 1.5 pt 11 ps 0.6 lc rgb "#7570b3" title "composition, Thm 4.8 (PLD, certified)"
