# epsilon(delta = 1e-5) of DP-SGD (q = 0.01, sigma = 1, Poisson) against steps, by accountant
# (see make_figures.sh).
set terminal svg size 700,460 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale xy
set xrange [10:100000]
set xlabel "steps T (DP-SGD, sampling rate q = 0.01, noise multiplier σ = 1, Poisson)"
set ylabel "ε at δ = 1e-5"
set title "Accountants on the same run: certified PLD bracket, RDP bound, CLT approximation"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with lines lw 2.5 lc rgb "#1b9e77" title "PLD upper bound (certified)", \
     data using 1:3 every ::1 with lines lw 1.5 dt 2 lc rgb "#1b9e77" title "PLD lower bound (certified)", \
     data using 1:4 every ::1 with linespoints lw 1.5 pt 5 ps 0.5 lc rgb "#d95f02" title "RDP (upper bound, best of 4 conversions)", \
     data using 1:5 every ::1 with linespoints lw 1.5 pt 7 ps 0.5 lc rgb "#7570b3" title "CLT (approximation, not a bound)"
