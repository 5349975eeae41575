# epsilon(delta = 1e-5) of full-batch noisy GD against steps (see make_figures.sh).
set terminal svg size 680,440 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key top left box opaque
set logscale x
set logscale y
set xrange [1:20000]
set xlabel "full-batch steps T (noise multiplier σ = 30)"
set ylabel "ε at δ = 1e-5"
set y2label "RDP overhead over exact ε (%)"
set y2range [0:15]
set y2tics 0,5,15
set ytics nomirror
set title "Exact ε (√T/σ-GDP) vs the best Rényi-DP conversion"
set grid lc rgb "#dddddd"
plot data using 1:2 every ::1 with linespoints lw 2 pt 7 ps 0.6 title "exact (gdp: tight upper bound)", \
     data using 1:3 every ::1 with linespoints lw 2 pt 5 ps 0.6 title "RDP: best of BS16/Mir17/BBG20/ALC21", \
     data using 1:(100*($3/$2-1)) every ::1 axes x1y2 with lines lw 1.5 dt 2 lc rgb "#555555" title "RDP overhead (%, right axis)"
