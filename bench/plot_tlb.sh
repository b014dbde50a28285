#!/bin/sh
# Plot the TLB probe's CSV: ns per access against pages touched (log x, log y) for the 4 KB
# sweep, its control (the same number of cache lines in 64x fewer pages) and the 2 MB sweep,
# with the detected TLB levels (solid) and data-cache knees (dotted) marked. Thread 0 only.
#
#   ./build/membench --tlb --format csv -o tlb.csv
#   bench/plot_tlb.sh tlb.csv                 # -> tlb.png
#   bench/plot_tlb.sh tlb.csv tlb.svg "title"  # SVG by the output's extension
#
# Needs gnuplot (Debian: apt-get install -y gnuplot-nox). Exit 2 on bad usage, 3 without
# gnuplot, with one line on stderr.
set -eu

usage() {
    echo "plot_tlb.sh: $1; usage: plot_tlb.sh TLB.csv [OUT.png|OUT.svg] [TITLE]" >&2
    exit 2
}

[ $# -ge 1 ] && [ $# -le 3 ] || usage "give the CSV of membench --tlb --format csv"
csv=$1
[ -r "$csv" ] || usage "cannot read '$csv'"
head -n 1 "$csv" | grep -q '^sweep,thread,pu,page_size_bytes,pages,ns_per_access' ||
    usage "'$csv' is not membench --tlb CSV (its first line is not the TLB header)"
out=${2:-${csv%.csv}.png}
title=${3:-"membench --tlb: $(basename "$csv")"}
case $out in
*.png) term="pngcairo size 1100,650 font ',10'" ;;
*.svg) term="svg size 1100,650 dynamic font 'sans,10'" ;;
*) usage "the output must end in .png or .svg" ;;
esac
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot_tlb.sh: gnuplot not found; apt-get install -y gnuplot-nox" >&2
    exit 3
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# point rows of thread 0: one data file per sweep (4k, control, 2m)
awk -F, -v dir="$tmp" 'NR > 1 && !/^#/ && $2 == 0 { print $5, $6 > (dir "/" $1 ".dat") }' "$csv"
[ -s "$tmp/4k.dat" ] || usage "'$csv' has no 4 KB sweep of thread 0 (single-point run?)"

# levels and cache knees of thread 0 -> gnuplot arrows and labels
awk -F, '
    /^# level,/ && $3 == 0 && $5 != "nan" && $5 != "entries" {
        colour = $2 == "2m" ? "#b03030" : "#202020"
        printf "set arrow from %s, graph 0 to %s, graph 1 nohead lw 1.2 lc rgb \"%s\"\n", $5, $5, colour
        printf "set label \"%s %s: %s\" at %s, graph 0.97 rotate by 90 right offset -0.8,0 tc rgb \"%s\"\n", $2, $4, $5, $5, colour
    }
    /^# cache_knee,/ && $2 == "4k" && $3 == 0 && $4 != "lines_low" {
        printf "set arrow from %s, graph 0 to %s, graph 1 nohead dt 3 lc rgb \"#3060b0\"\n", $4, $4
        label = $7 != "" ? $7 : "data cache"
        printf "set label \"cache: %s\" at %s, graph 0.97 rotate by 90 right offset 1.4,0 tc rgb \"#3060b0\"\n", label, $4
    }' "$csv" >"$tmp/marks.gp"

plot="'$tmp/4k.dat' using 1:2 with linespoints pt 7 ps 0.5 lc rgb '#202020' title '4 KB pages, one access per page'"
[ -s "$tmp/control.dat" ] &&
    plot="$plot, '$tmp/control.dat' using 1:2 with linespoints pt 6 ps 0.5 lc rgb '#3060b0' title 'control: same lines in 64x fewer 4 KB pages'"
[ -s "$tmp/2m.dat" ] &&
    plot="$plot, '$tmp/2m.dat' using 1:2 with linespoints pt 5 ps 0.5 lc rgb '#b03030' title '2 MB pages, one access per page'"

gnuplot <<EOF
set terminal $term
set output '$out'
set title "$title"
set logscale x 2
set logscale y 10
set ytics add (2, 5, 20, 50, 200, 500)
set format x '%.0f'
set xtics 4
set grid xtics ytics mxtics lc rgb '#e0e0e0'
set xlabel 'pages touched (control: cache lines)'
set ylabel 'ns per access (min of the repeats)'
set key bottom right box opaque
load '$tmp/marks.gp'
plot $plot
EOF
echo "$out"
