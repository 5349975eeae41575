# LKSP25 Figure 2(b) setting: Renyi DP (alpha = 2) of the last iterate of noisy HSGD against
# the SGD iteration k = t d (d = 1000, n = 1500, gamma = 50, ridge 0.1, the 900 extreme-label
# pairs), sigma = 1, 1.25, 1.5; true Sigma (solid) and the code's I/(12d) (dashed).
# Data: dpkit hsgd privacy (see make_figures.sh).
set terminal svg size 720,480 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key bottom left box opaque
set logscale xy
set xrange [1:1500]
set format y "10^{%L}"
set xlabel "SGD iteration k = t d (d = 1000, n = 1500)"
set ylabel "eps_2(t), last iterate"
set title "Renyi DP of noisy HSGD (LKSP25 Thm 4.3): rise, peak, decay, plateau"
set grid lc rgb "#dddddd"
plot data using ($1*1000):2 every ::1 with lines lw 2.5 lc rgb "#1b9e77" title "sigma = 1, true Sigma", \
     data using ($1*1000):3 every ::1 with lines lw 2.5 lc rgb "#d95f02" title "sigma = 1.25, true Sigma", \
     data using ($1*1000):4 every ::1 with lines lw 2.5 lc rgb "#7570b3" title "sigma = 1.5, true Sigma", \
     data using ($1*1000):5 every ::1 with lines lw 2 dt 2 lc rgb "#1b9e77" title "sigma = 1, code's I/(12d)", \
     data using ($1*1000):6 every ::1 with lines lw 2 dt 2 lc rgb "#d95f02" title "sigma = 1.25, code's I/(12d)", \
     data using ($1*1000):7 every ::1 with lines lw 2 dt 2 lc rgb "#7570b3" title "sigma = 1.5, code's I/(12d)"
