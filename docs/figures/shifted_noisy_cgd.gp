# seed 002 Figure 8 (right) setting: epsilon at delta = 1e-5 of NoisyCGD, strongly convex
# (c = 0.99, l = 20, L/(b sigma) = 0.2), against epochs, by bound, with Thm C.17's lower bound
# (see make_figures.sh).
set terminal svg size 700,460 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale xy
set xrange [5:320]
set xlabel "epochs E (NoisyCGD, c = 0.99, l = 20, L/(bσ) = 0.2)"
set ylabel "ε at δ = 1e-5"
set title "NoisyCGD, strongly convex: Thm 4.5 converges, between C.17's lower bound and RDP"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with linespoints lw 2.5 pt 7 ps 0.6 lc rgb "#1b9e77" title "shifted interpolation (Thm 4.5, upper bound)", \
     data using 1:3 every ::1 with linespoints lw 1.5 pt 5 ps 0.5 dt 2 lc rgb "#1b9e77" title "lower bound (Thm C.17): no valid ε lies below it", \
     data using 1:4 every ::1 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb "#d95f02" title "prior RDP bound (YS22 Thm 3.3)", \
     data using 1:5 every ::1 with linespoints lw 1.5 pt 11 ps 0.6 lc rgb "#7570b3" title "composition (Thm 4.4)"
