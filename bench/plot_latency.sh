#!/bin/bash
# The loaded-latency curve of a membench --latency JSON report: the chase's latency (ns) against
# the load threads' bandwidth (GB/s), a point per delay step, the idle latency as a line, into
# OUT.png and OUT.svg (gnuplot; Debian: gnuplot-nox).
#   build/membench --latency --format json -o lat.json && bench/plot_latency.sh lat.json OUT
# A report without a measured loaded curve: one line on stderr, exit 2; gnuplot or python3
# missing: exit 3. GNUPLOT=path picks the gnuplot.
set -euo pipefail
usage() {
    echo "plot_latency.sh: $1; usage: bench/plot_latency.sh REPORT.json OUT" >&2
    exit "${2:-2}"
}
[ $# -eq 2 ] || usage "give a membench --latency JSON report and an output name"
report=$1 out=$2
{ [ -f "$report" ] && [ -r "$report" ]; } || usage "cannot read the report '$report'"
command -v python3 >/dev/null 2>&1 || usage "python3 not found; apt-get install -y python3" 3
gnuplot=${GNUPLOT:-gnuplot}
command -v "$gnuplot" >/dev/null 2>&1 ||
    usage "$gnuplot not found; install it (apt-get install -y gnuplot-nox)" 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$report" "$work" <<'PY' || exit 2
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
    lat = doc["latency"]
except (ValueError, KeyError, TypeError):
    sys.stderr.write("plot_latency.sh: '%s' is not a membench --latency JSON report\n"
                     % sys.argv[1])
    sys.exit(2)
if not lat.get("loaded"):
    sys.stderr.write("plot_latency.sh: the report has no loaded curve (%s)\n"
                     % (lat.get("loaded_why") or "not measured"))
    sys.exit(2)
with open(sys.argv[2] + "/curve.dat", "w") as f:
    for s in lat["loaded"]:
        f.write("%.4f %.3f %d\n" % (s["bandwidth_mbps"] / 1000.0, s["ns"], s["delay"]))
page = lat["page_size_bytes"] or 0
page = "%d MiB" % (page >> 20) if page >= 1 << 20 else "%d KiB" % (page >> 10)
title = "%s (%s): loaded latency, %.0f MiB buffer on %s pages, CPU %d, node %d, %d load thread%s, %s" % (
    doc["system"]["cpu_model"].strip(), doc["system"]["hostname"], lat["buffer_bytes"] / 2**20,
    page, lat["cpu"], lat["mem_node"], lat["load_threads"],
    "" if lat["load_threads"] == 1 else "s", doc["provenance"]["start_time"][:10])
with open(sys.argv[2] + "/plot.gp", "w") as f:
    f.write('set title "%s" noenhanced\n' % title.replace('"', "'"))
    f.write('set xlabel "bandwidth of the load threads (GB/s, read + write)"\n')
    f.write('set ylabel "latency of a dependent load (ns)"\nset grid\nset key bottom right\n')
    f.write("set yrange [0:*]\nset xrange [0:*]\n")
    f.write('plot "%s/curve.dat" using 1:2 with linespoints lw 2 pt 7 title "loaded (median of 3)", '
            '"" using 1:2:(sprintf("d=%%d", $3)) with labels offset 0,1 font ",8" notitle, '
            '%.3f with lines dt 2 lc rgb "gray40" title "idle %.1f ns"\n'
            % (sys.argv[2], lat["idle_ns"], lat["idle_ns"]))
PY
out_gp=${out//\'/\'\'}
png="pngcairo size 1000,560 font ',10'"
"$gnuplot" -e "set terminal $png" 2>/dev/null || png="png size 1000,560"
"$gnuplot" -e "set terminal $png; set output '$out_gp.png'; load '$work/plot.gp'"
"$gnuplot" -e "set terminal svg size 1000,560 dynamic font 'sans,10'; set output '$out_gp.svg';
    load '$work/plot.gp'"
echo "wrote $out.png and $out.svg"
