#!/bin/bash
# --stores auto against forced normal and forced nt, interleaved auto normal nt auto normal nt
# ... for ROUNDS rounds at each size (smallest first), medians of the best Copy and Triad rates,
# and the median within a round (auto against the better forced kind of the same round: on a
# host whose bandwidth changes from run to run, the fair comparison).
# Prints one CSV row per run on stdout, then (stderr) a markdown table per size:
#   size,round,variant,stores,copy_mbps,triad_mbps,cal_normal_mbps,cal_nt_mbps,copy_stores,
#   triad_stores (the kind each of the two kernels ran with)
# Usage: bench/stores_ab.sh [SIZES=0.25xLLC,0.5xLLC,1xLLC,2xLLC] [ROUNDS=5] [NTIMES=5]
# Sizes of more than 2 GiB of arrays run only when MemAvailable holds them with 2 GiB to spare.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-0.25xLLC,0.5xLLC,1xLLC,2xLLC}
rounds=${2:-5}
ntimes=${3:-5}
membench=${MEMBENCH:-build/membench}
[ -x "$membench" ] || { echo "build membench first (cmake --build build)" >&2; exit 3; }
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
echo "size,round,variant,stores,copy_mbps,triad_mbps,cal_normal_mbps,cal_nt_mbps,copy_stores,\
triad_stores" | tee "$csv"
for size in ${sizes//,/ }; do
    need=$("$membench" --dry-run -s "$size" --format json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["config"]["total_bytes"])')
    avail=$(awk '/MemAvailable/ {printf "%.0f", $2 * 1024}' /proc/meminfo)
    if [ "$need" -gt $((avail - (2 << 30))) ]; then
        echo "skipping $size: $need bytes of arrays, MemAvailable $avail" >&2
        continue
    fi
    echo "# $size: $(uptime)" >&2
    for round in $(seq 1 "$rounds"); do
        for variant in auto normal nt; do
            "$membench" --copy --scale --add --triad -s "$size" -n "$ntimes" --stores "$variant" \
                --format json | python3 -c '
import json, sys
size, rnd, variant = sys.argv[1:4]
r = json.load(sys.stdin)["runs"][0]
rate = {x["kernel"]: x["best_rate_mbps"] for x in r["results"]}
kind = {x["kernel"]: x["stores"] for x in r["results"]}
by = r["config"]["stores_chosen_by"]
cal = (by["normal_mbps"], by["nt_mbps"]) if isinstance(by, dict) else ("", "")
print(",".join(str(v) for v in (size, rnd, variant, r["config"]["stores"], rate["Copy"],
                                rate["Triad"]) + cal + (kind["Copy"], kind["Triad"])))' \
                "$size" "$round" "$variant" | tee -a "$csv"
        done
    done
done
python3 - "$csv" >&2 <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| size | kernel | auto | normal | nt | auto / better | same round | auto chose |")
print("|------|--------|------|--------|----|---------------|------------|------------|")
for size in dict.fromkeys(r["size"] for r in rows):
    for k in ("copy", "triad"):
        med = {v: statistics.median(float(r[k + "_mbps"]) for r in rows
                                    if r["size"] == size and r["variant"] == v)
               for v in ("auto", "normal", "nt")}
        chose = [r[k + "_stores"] for r in rows if r["size"] == size and r["variant"] == "auto"]
        better = max(med["normal"], med["nt"])
        paired = []
        for rnd in dict.fromkeys(r["round"] for r in rows if r["size"] == size):
            run = {r["variant"]: float(r[k + "_mbps"]) for r in rows
                   if r["size"] == size and r["round"] == rnd}
            if len(run) == 3:
                paired.append(run["auto"] / max(run["normal"], run["nt"]))
        print("| %s | %s | %.0f | %.0f | %.0f | %.3f | %.3f | %s |" % (
            size, k.capitalize(), med["auto"], med["normal"], med["nt"], med["auto"] / better,
            statistics.median(paired),
            ", ".join("%s x%d" % (c, chose.count(c)) for c in sorted(set(chose)))))
PY
