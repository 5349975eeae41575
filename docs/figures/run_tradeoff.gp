# Tradeoff curves of composed DP-SGD runs (certified lower bound) against the CLT's G(mu)
# (see make_figures.sh; files dir/t_T.csv and dir/c_T.csv for T in 3, 10, 30).
set terminal svg size 620,560 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top right box opaque font ",11"
set size square
set xrange [0:1]; set yrange [0:1]
set xlabel "type I error α"
set ylabel "type II error β"
set title "DP-SGD (q = 0.1, σ = 0.7, Poisson): certified curve vs CLT"
set grid lc rgb "#dddddd"
plot (1-x) notitle lc rgb "#999999" dt 2 lw 1, \
     dir."/t_3.csv"  using 1:2 every ::1 with lines lw 2 lc rgb "#1b9e77" title "T = 3: PLD (certified)", \
     dir."/c_3.csv"  using 1:2 every ::1 with lines lw 1.5 dt 2 lc rgb "#1b9e77" title "T = 3: CLT G(μ) (approximation)", \
     dir."/t_10.csv" using 1:2 every ::1 with lines lw 2 lc rgb "#377eb8" title "T = 10: PLD", \
     dir."/c_10.csv" using 1:2 every ::1 with lines lw 1.5 dt 2 lc rgb "#377eb8" title "T = 10: CLT", \
     dir."/t_30.csv" using 1:2 every ::1 with lines lw 2 lc rgb "#e66101" title "T = 30: PLD", \
     dir."/c_30.csv" using 1:2 every ::1 with lines lw 1.5 dt 2 lc rgb "#e66101" title "T = 30: CLT"
