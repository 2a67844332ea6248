# Plot of bitplane-tune's sweep: gnuplot -e "csv='tune.csv'; png='tune.png'" cuda/tune/plot_tune.gp
# One panel per family (dot kernels, scans, transfer pipeline): time (ms, log scale) against the
# swept parameter, one line per data size (and per kernel or batch size).
if (!exists("csv")) csv = 'tune.csv'
if (!exists("png")) png = 'tune.png'
set terminal pngcairo size 1500,500 font ",10"
set output png
set datafile separator ","
set multiplot layout 1,3 title "bitplane-tune: time against launch parameters per size (10-bit values)"
set logscale y
set key outside bottom center horizontal font ",7"
set ylabel "ms"
sizes = "65536 1048576 16777216 67108864"
set title "dot (device-resident): CTAs per SM"
set xlabel "CTAs per multiprocessor"
plot for [s in sizes] for [k in "mma popcount"] csv using ($1 == s+0 && strstrt(strcol(3), k) == 1 ? $4 : 1/0):($5*1e3) \
     with linespoints title sprintf("2^{%d} %s", int(log(s+0)/log(2)+0.5), k)
set title "scan (find\\_range): CTAs per SM"
set logscale x 2
plot for [s in sizes] csv using ($1 == s+0 && strcol(2) eq "scan" ? $4 : 1/0):($5*1e3) with linespoints \
     title sprintf("2^{%d}", int(log(s+0)/log(2)+0.5))
unset logscale x
set title "transfer pipeline (pinned): streams"
set xlabel "streams"
plot for [s in "1048576 16777216 67108864"] for [m in "1 4 16"] csv using \
     ($1 == s+0 && strcol(3) eq sprintf("streams batch %s MiB", m) ? $4 : 1/0):($5*1e3) smooth unique with linespoints \
     title sprintf("2^{%d}, %s MiB", int(log(s+0)/log(2)+0.5), m)
unset multiplot
