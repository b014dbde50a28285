#!/bin/sh
# Plot the TLB probe's JSON report: ns per access against pages touched (log x, log y) for the
# 4 KB sweep, its control (the same number of cache lines in 64x fewer pages) and the 2 MB
# sweep, with the detected TLB levels at their reach (solid) and data-cache knees (dotted)
# marked. The title names the CPU, host, threads, the largest region and the date.
#
#   ./build/membench --tlb --format json -o tlb.json
#   bench/plot_tlb.sh tlb.json                 # -> tlb.png
#   bench/plot_tlb.sh tlb.json tlb.svg         # SVG by the output's extension
#
# Needs gnuplot (Debian: apt-get install -y gnuplot-nox; GNUPLOT=path picks one) and python3.
# Bad usage or a file that is not a membench --tlb report: one line on stderr, exit 2; gnuplot
# or python3 missing: exit 3.
set -eu

usage_text="bench/plot_tlb.sh TLB.json [OUT.png|OUT.svg]"
usage() {
    echo "plot_tlb.sh: $1; usage: $usage_text" >&2
    exit "${2:-2}"
}

[ $# -ge 1 ] || usage "give the JSON report of membench --tlb --format json -o FILE.json"
[ $# -le 2 ] || usage "too many arguments (the title now comes from the report)"
report=$1
{ [ -f "$report" ] && [ -r "$report" ]; } || usage "cannot read the report '$report'"
out=${2:-${report%.json}.png}
case $out in
*.png) term="pngcairo size 1100,650 font ',10'" ;;
*.svg) term="svg size 1100,650 dynamic font 'sans,10'" ;;
*) usage "the output must end in .png or .svg, not '$out'" ;;
esac
[ -d "$(dirname -- "$out")" ] || usage "no folder for the output '$out'"
command -v python3 >/dev/null 2>&1 ||
    usage "python3 not found; install it (apt-get install -y python3)" 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# the report first: a bad one is exit 2 whether gnuplot is installed or not
python3 "$(dirname -- "$0")/plot_report.py" plot_tlb.sh "$usage_text" tlb "$report" "$tmp"
gnuplot=${GNUPLOT:-gnuplot}
command -v "$gnuplot" >/dev/null 2>&1 ||
    usage "$gnuplot not found; install it (apt-get install -y gnuplot-nox)" 3
out_gp=$(printf '%s' "$out" | sed "s/'/''/g") # a quote inside a gnuplot string
"$gnuplot" <<GP
set terminal $term
set output '$out_gp'
load '$tmp/plot.gp'
GP
echo "$out"
