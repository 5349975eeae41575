# DP-SGD on Fashion-MNIST (examples/fashion_mnist_dpsgd.py, the default run): test accuracy and
# the certified epsilon bracket after every epoch (docs/python-example.md). Regenerate with
#   PYTHONPATH=build/<dir>/python /usr/bin/python3 examples/fashion_mnist_dpsgd.py \
#       --csv docs/figures/python_fashion_mnist.csv
#   gnuplot -e "data='docs/figures/python_fashion_mnist.csv'; out='docs/figures/python_fashion_mnist.svg'" \
#       docs/figures/python_fashion_mnist.gp
set terminal svg size 680,440 dynamic font "Helvetica,13"
set output out
set datafile separator ","
set key bottom right box opaque
set xlabel "epoch"
set ylabel "test accuracy (%)"
set y2label "certified ε at δ = 1e-5"
set xrange [0.5:10.5]
set xtics 1
set yrange [75:87]
set y2range [0:3.3]
set y2tics 0,0.5,3
set ytics nomirror
set title "DP-SGD on Fashion-MNIST, target (ε, δ) = (3, 1e-5), Poisson sampling"
set grid lc rgb "#dddddd"
plot data using 1:(100*$3) every ::1 with linespoints lw 2 pt 7 ps 0.7 lc rgb "#377eb8" title "test accuracy (left)", \
     data using 1:5 every ::1 axes x1y2 with linespoints lw 2 pt 5 ps 0.6 lc rgb "#e66101" title "certified ε, upper bound (right)", \
     3 axes x1y2 with lines lw 1 dt 3 lc rgb "#555555" title "target ε = 3"
