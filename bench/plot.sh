#!/bin/bash
# Plots a membench JSON report with gnuplot (Debian: gnuplot-nox) into OUT.png and OUT.svg.
# Usage: bench/plot.sh size|threads|pages REPORT.json OUT
#   size     bandwidth vs array size (log x), a line per kernel; the LLC and 4xLLC marked
#   threads  bandwidth vs threads, a line per binding and kernel
#   pages    bandwidth per kernel, a bar per page backing
# The title names the CPU, host, threads, array size and date, and the LLC size comes from the
# report (config.llc_bytes_used, else system.llc_bytes_total). Make the report with e.g.:
#   build/membench --size 0.25xLLC,0.5xLLC,1xLLC,2xLLC,4xLLC,8xLLC -t 1 --format json -o s.json
#   build/membench --triad -t 1,2,4,8,16 --bind compact,scatter --format json -o t.json
#   build/membench --pages 4k,thp,2m --format json -o p.json
# Bad usage or a file that is not a membench report: one line on stderr, exit 2; gnuplot or
# python3 missing: exit 3. GNUPLOT=path picks the gnuplot.
set -euo pipefail
usage_text="bench/plot.sh size|threads|pages REPORT.json OUT (writes OUT.png and OUT.svg)"
usage() {
    echo "plot.sh: $1; usage: $usage_text" >&2
    exit "${2:-2}"
}
[ $# -ge 1 ] || usage "give a mode, a membench JSON report and an output name"
case $1 in
size | threads | pages) ;;
*) usage "the mode must be size, threads or pages, not '$1'" ;;
esac
[ $# -ge 3 ] || usage "give a membench JSON report and an output name after the mode"
[ $# -eq 3 ] || usage "too many arguments (the LLC size now comes from the report)"
mode=$1 report=$2 out=$3
{ [ -f "$report" ] && [ -r "$report" ]; } || usage "cannot read the report '$report'"
{ [ -n "$out" ] && [ -d "$(dirname -- "$out")" ]; } || usage "no folder for the output '$out'"
command -v python3 >/dev/null 2>&1 ||
    usage "python3 not found; install it (apt-get install -y python3)" 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the report first: a bad one is exit 2 whether gnuplot is installed or not
python3 "$(dirname -- "$0")/plot_report.py" plot.sh "$usage_text" "$mode" "$report" "$work"
gnuplot=${GNUPLOT:-gnuplot}
command -v "$gnuplot" >/dev/null 2>&1 ||
    usage "$gnuplot not found; install it (apt-get install -y gnuplot-nox)" 3
out_gp=${out//\'/\'\'} # a quote inside a gnuplot string
# pngcairo where gnuplot has it, else the plain png terminal
png="pngcairo size 1000,560 font ',10'"
"$gnuplot" -e "set terminal $png" 2>/dev/null || png="png size 1000,560"
"$gnuplot" -e "set terminal $png; set output '$out_gp.png'; load '$work/plot.gp'"
"$gnuplot" -e "set terminal svg size 1000,560 dynamic font 'sans,10'; set output '$out_gp.svg';
    load '$work/plot.gp'"
echo "wrote $out.png and $out.svg"
