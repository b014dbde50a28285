#!/bin/bash
# The end-of-pass remedy A/B: static per-thread ranges (MEMBENCH_A) against dynamic sharing
# within a NUMA node (MEMBENCH_B), both with non-temporal stores, and likwid-bench's
# copy_mem/stream_mem (non-temporal, rated on total time) when installed; interleaved A B likwid
# for ROUNDS rounds, medians of the best Copy and Triad rates and of the finish spreads.
# Usage: MEMBENCH_A=old/membench MEMBENCH_B=build/membench bench/share_ab.sh THREADS MB ROUNDS
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
threads=${1:-2}
mb=${2:-320}
rounds=${3:-5}
a=${MEMBENCH_A:?the static build}
b=${MEMBENCH_B:-build/membench}
elements=$((mb * 1000000 / 8))
isa=$("$b" --dry-run --format json | sed -n 's/.*"isa": "\(.*\)".*/\1/p' | head -1)
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
mb_run() { # variant binary
    "$2" --copy --triad -t "$threads" --bind compact -s "$elements" --stores nt -n 10 \
        --format json | python3 -c '
import json, sys
for x in json.load(sys.stdin)["runs"][0]["results"]:
    print(sys.argv[1], x["kernel"], x["best_rate_mbps"], x.get("finish_spread_s", ""))' "$1"
}
likwid() { # kernel arrays label
    likwid-bench -t "${1}_mem_${isa}" -w "S0:$(($2 * mb))MB:$threads" 2>/dev/null |
        awk -v k="$3" '/^MByte\/s/ {print "likwid", k, $2, ""}'
}
for round in $(seq "$rounds"); do
    mb_run static "$a" >>"$raw"
    mb_run shared "$b" >>"$raw"
    if command -v likwid-bench >/dev/null; then
        likwid copy 2 Copy >>"$raw"
        likwid stream 3 Triad >>"$raw"
    fi
done
echo "threads=$threads MB/array=$mb rounds=$rounds isa=$isa load: $(uptime)"
python3 - "$raw" <<'PY'
import statistics, sys
rows = [l.split() + [""] for l in open(sys.argv[1])]
def med(v, k, col):
    xs = [float(r[col]) for r in rows if r[0] == v and r[1] == k and r[col]]
    return statistics.median(xs) if xs else None
print("| variant | Copy MB/s | Triad MB/s | Copy/likwid | Triad/likwid | Copy spread ms | Triad spread ms |")
print("|---|---|---|---|---|---|---|")
for v in ("static", "shared", "likwid"):
    c, t = med(v, "Copy", 2), med(v, "Triad", 2)
    lc, lt = med("likwid", "Copy", 2), med("likwid", "Triad", 2)
    sc, st = med(v, "Copy", 3), med(v, "Triad", 3)
    f = lambda x, d="%.0f": d % x if x is not None else "-"
    print("| %s | %s | %s | %s | %s | %s | %s |" % (v, f(c), f(t),
          f(c / lc if lc and c else None, "%.3f"), f(t / lt if lt and t else None, "%.3f"),
          f(sc * 1e3 if sc is not None else None, "%.3f"), f(st * 1e3 if st is not None else None, "%.3f")))
PY
