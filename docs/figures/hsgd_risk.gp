# LKSP25 Figure 2(a) setting: the expected population risk P_t of noisy HSGD (one-pass noisy SGD
# on ridge least squares, d = 1000, gamma = eta d = 50, ridge 0.1) against the SGD iteration
# k = t d, for sigma = 1, 1.25, 1.5, with the design's true Sigma = I/(12d) + 11'/(4d) (solid)
# and the released code's I/(12d) (dashed). Data: dpkit hsgd risk (see make_figures.sh).
set terminal svg size 720,480 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key bottom left box opaque
set logscale x
set xrange [1:1500]
set xlabel "SGD iteration k = t d (d = 1000, eta = 0.05)"
set ylabel "P_t = E population risk"
set title "Noisy HSGD risk (LKSP25 eqs. (6)-(7)): the true Sigma doubles the plateau"
set grid lc rgb "#dddddd"
plot data using ($1*1000):2 every ::1 with lines lw 2.5 lc rgb "#1b9e77" title "sigma = 1, true Sigma", \
     data using ($1*1000):3 every ::1 with lines lw 2.5 lc rgb "#d95f02" title "sigma = 1.25, true Sigma", \
     data using ($1*1000):4 every ::1 with lines lw 2.5 lc rgb "#7570b3" title "sigma = 1.5, true Sigma", \
     data using ($1*1000):5 every ::1 with lines lw 2 dt 2 lc rgb "#1b9e77" title "sigma = 1, code's I/(12d)", \
     data using ($1*1000):6 every ::1 with lines lw 2 dt 2 lc rgb "#d95f02" title "sigma = 1.25, code's I/(12d)", \
     data using ($1*1000):7 every ::1 with lines lw 2 dt 2 lc rgb "#7570b3" title "sigma = 1.5, code's I/(12d)"
