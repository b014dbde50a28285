#!/bin/bash
# membench --latency against a plain C pointer chase (bench/reference/chase_ref.c): ROUNDS
# interleaved rounds (membench, reference, TLB probe, membench, ...), both on the same CPU,
# buffer and pages, then the median idle latency of each, the difference, and beside them the
# TLB probe's cost per access at 32768 4 KB pages (`membench --tlb --tlb-pages 32768`).
#
# Usage: bench/latency_ab.sh [ROUNDS]                         default 5
#   MEMBENCH=path CPU=0 PAGES=thp|2m|4k SIZE=BYTES bench/latency_ab.sh 5
#
# SIZE defaults to membench's own buffer (4x the chasing core's LLC, from --dry-run). Both run
# under `taskset -c CPU`: one usable core, so membench measures idle latency only (no loaded
# curve) and the two are timed alike. Needs about 2 x SIZE of free memory, one run at a time.
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
rounds=${1:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || {
    echo "latency_ab.sh: ROUNDS must be a whole number, not '$rounds'" >&2
    exit 2
}
bin=${MEMBENCH:-./build/membench}
cpu=${CPU:-0}
pages=${PAGES:-thp}
ref=build/chase_ref
gcc -O3 -o "$ref" bench/reference/chase_ref.c
json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
size=${SIZE:-$(taskset -c "$cpu" "$bin" --latency --pages "$pages" --dry-run --format json |
    json_field "['latency']['buffer_bytes']")}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(uptime | sed 's/.*load/load/')"
echo "# buffer $size bytes, pages $pages, CPU $cpu, $rounds rounds"
m=() r=() t=()
for ((i = 1; i <= rounds; i++)); do
    m+=("$(taskset -c "$cpu" "$bin" --latency --latency-size "${size}B" --pages "$pages" \
        --format json | json_field "['latency']['idle_ns']")")
    r+=("$(taskset -c "$cpu" "$ref" "$size" "$pages" "$cpu" | sed 's/.*ns=\([0-9.]*\).*/\1/')")
    t+=("$(taskset -c "$cpu" "$bin" --tlb --tlb-pages 32768 --format json |
        json_field "['tlb']['points'][0]['ns_per_access']")")
    echo "round $i: membench ${m[-1]} ns, chase_ref ${r[-1]} ns, tlb 32768 pages ${t[-1]} ns"
done
python3 - "${m[*]}" "${r[*]}" "${t[*]}" <<'PY'
import statistics, sys
m, r, t = ([float(x) for x in a.split()] for a in sys.argv[1:4])
mm, rr, tt = statistics.median(m), statistics.median(r), statistics.median(t)
print("| | median ns | min | max |\n|---|---|---|---|")
for name, v, med in (("membench --latency", m, mm), ("chase_ref", r, rr),
                     ("membench --tlb, 32768 pages", t, tt)):
    print("| %s | %.1f | %.1f | %.1f |" % (name, med, min(v), max(v)))
print("membench vs chase_ref: %+.1f%%" % (100.0 * (mm - rr) / rr))
PY
