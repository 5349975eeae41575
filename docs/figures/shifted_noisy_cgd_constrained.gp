# BSA24 Figure 9 (right), extended: epsilon at delta = 1e-5 of NoisyCGD, convex on a set of
# diameter D = 1 (L/b = 0.5, sigma = 3, eta = 0.02, l = 20), against the number of epochs, by
# bound (see make_figures.sh).
set terminal svg size 700,460 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale xy
set xrange [5:1280]
set yrange [0.5:50]
set xlabel "epochs E (NoisyCGD, l = 20, L/b = 0.5, σ = 3, η = 0.02, D = 1)"
set ylabel "ε at δ = 1e-5 (upper bounds)"
set title "Constrained convex NoisyCGD: Thm 4.6 (from E ≥ 100), the derived c = 1 bound, and both at once"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with linespoints lw 2.5 pt 7 ps 0.6 lc rgb "#1b9e77" title "optimisation problem (best of both)", \
     data using 1:3 every ::1 with linespoints lw 1.5 pt 5 ps 0.5 dt 2 lc rgb "#66a61e" title "c = 1 bound without D (derived, not in the paper)", \
     data using 1:4 every ::1 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb "#d95f02" title "Thm 4.6 (stated for E ≥ Db/(ηL) = 100)", \
     data using 1:5 every ::1 with linespoints lw 1.5 pt 11 ps 0.6 lc rgb "#7570b3" title "composition (Thm 4.4)"
