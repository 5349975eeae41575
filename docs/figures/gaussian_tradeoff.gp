# Tradeoff curves G(mu) from `dpkit tradeoff --format csv` (see make_figures.sh).
set terminal svg size 560,520 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top right box opaque
set size square
set xrange [0:1]; set yrange [0:1]
set xlabel "type I error α"
set ylabel "type II error β"
set title "Gaussian tradeoff curves G(μ)(α) = Φ(Φ⁻¹(1−α) − μ)"
set grid lc rgb "#dddddd"
plot (1-x) title "Id = G(0)" lc rgb "#999999" dt 2 lw 1.5, \
     dir."/g_0.5.csv" using 1:2 every ::1 with lines lw 2 lc rgb "#1b9e77" title "μ = 0.5", \
     dir."/g_1.csv"   using 1:2 every ::1 with lines lw 2 lc rgb "#377eb8" title "μ = 1", \
     dir."/g_2.csv"   using 1:2 every ::1 with lines lw 2 lc rgb "#e66101" title "μ = 2", \
     dir."/g_3.csv"   using 1:2 every ::1 with lines lw 2 lc rgb "#7b3294" title "μ = 3"
