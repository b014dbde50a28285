#!/bin/bash
# Plots a membench CSV with gnuplot (Debian: gnuplot-nox) into OUT.png and OUT.svg.
# Usage: bench/plot.sh size|threads|pages RESULTS.csv OUT [LLC_BYTES]
#   size     bandwidth vs array size (log x), a line per kernel; 1x and 4x LLC_BYTES marked
#   threads  bandwidth vs threads, a line per binding and kernel
#   pages    bandwidth per kernel, a bar per page backing
# Make the CSV with e.g.:
#   build/membench --size 0.25xLLC,0.5xLLC,1xLLC,2xLLC,4xLLC,8xLLC -t 1 --format csv -o s.csv
#   build/membench --triad -t 1,2,4,8,16 --bind compact,scatter --format csv -o t.csv
#   build/membench --pages 4k,thp,2m --format csv -o p.csv
set -euo pipefail
mode=$1 csv=$2 out=$3 llc=${4:-0}
command -v gnuplot >/dev/null || { echo "install gnuplot (apt-get install -y gnuplot-nox)" >&2; exit 3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CSV columns used: 2 threads, 3 bind, 4 pages, 9 array_bytes, 12 kernel, 13 best_rate_mbps
series() { # series NAME AWK_CONDITION X_COLUMN_EXPR -> file with "x rate"
    awk -F, -v OFS=' ' "NR > 1 && $2 {print $3, \$13}" "$csv" >"$work/$1"
}
plots=""
case "$mode" in
size)
    setup="set logscale x 2; set xlabel 'array size (MiB)';"
    for k in $(awk -F, 'NR > 1 && !seen[$12]++ {print $12}' "$csv"); do
        series "$k" "\$12 == \"$k\"" '$9 / 1048576'
        plots+="'$work/$k' using 1:2 with linespoints title '$k',"
    done
    if [ "$llc" != 0 ]; then
        for m in 1 4; do
            x=$(awk -v l="$llc" -v m="$m" 'BEGIN {print m * l / 1048576}')
            setup+=" set arrow from $x, graph 0 to $x, graph 1 nohead dt 2;"
            setup+=" set label '${m}xLLC' at $x, graph 0.95 offset 0.5,0;"
        done
    fi
    ;;
threads)
    setup="set xlabel 'threads'; set xtics 1;"
    for b in $(awk -F, 'NR > 1 && !seen[$3]++ {print $3}' "$csv"); do
        for k in $(awk -F, 'NR > 1 && !seen[$12]++ {print $12}' "$csv"); do
            series "$k-$b" "\$3 == \"$b\" && \$12 == \"$k\"" '$2'
            plots+="'$work/$k-$b' using 1:2 with linespoints title '$k $b',"
        done
    done
    ;;
pages)
    setup="set style data histograms; set style fill solid 0.6; set xlabel 'kernel';"
    for p in $(awk -F, 'NR > 1 && !seen[$4]++ {print $4}' "$csv"); do
        awk -F, -v p="$p" 'NR > 1 && $4 == p {print $12, $13}' "$csv" >"$work/$p"
        plots+="'$work/$p' using 2:xtic(1) title '$p',"
    done
    ;;
*) echo "mode must be size, threads or pages" >&2; exit 2 ;;
esac
common="set key outside right; set grid; set yrange [0:*]; set ylabel 'MB/s (best)'; $setup plot ${plots%,}"
gnuplot -e "set terminal pngcairo size 900,500; set output '$out.png'; $common" 2>/dev/null ||
    gnuplot -e "set terminal png size 900,500; set output '$out.png'; $common"
gnuplot -e "set terminal svg size 900,500; set output '$out.svg'; $common"
echo "wrote $out.png and $out.svg"
