# seed 002 Figure 1 (right): epsilon at delta = 1e-5 of NoisyGD, strongly convex (c = 0.95,
# L/(n sigma) = 0.1), against the number of steps, by bound (see make_figures.sh).
set terminal svg size 700,460 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale x
set xrange [10:640]
set yrange [0:*]
set xlabel "steps t (NoisyGD, c = 0.95, L/(nσ) = 0.1)"
set ylabel "ε at δ = 1e-5 (upper bounds)"
set title "Last-iterate privacy converges (shifted interpolation) while composition grows"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with linespoints lw 2.5 pt 7 ps 0.6 lc rgb "#1b9e77" title "shifted interpolation, f-DP (Thm 4.2)", \
     data using 1:3 every ::1 with linespoints lw 1.5 pt 5 ps 0.5 dt 2 lc rgb "#1b9e77" title "shifted interpolation, RDP (Thm 4.2 + Lemma A.4)", \
     data using 1:4 every ::1 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb "#d95f02" title "prior RDP bound (YS22 Thm D.6)", \
     data using 1:5 every ::1 with linespoints lw 1.5 pt 11 ps 0.6 lc rgb "#7570b3" title "composition (Thm 4.1)"
