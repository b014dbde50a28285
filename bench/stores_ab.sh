#!/bin/bash
# --stores auto against forced normal and forced nt (and, with MEMBENCH_OLD=BINARY, another
# build's auto, e.g. an older rule), all four STREAM kernels, interleaved auto normal nt [old]
# auto normal nt [old] ... for ROUNDS rounds at each size (smallest first). Each round runs
# under `flock -x /tmp/membench-bench.lock` (one hold per round) with the load noted.
# Prints one CSV row per run on stdout, then (stderr) a markdown table per size and kernel:
# medians of each variant's best rate, auto / the better forced median, the median within a
# round (auto against the better forced kind of the same round: on a host whose bandwidth
# changes from run to run, the fair comparison), and the kinds each auto run chose.
# CSV: size,round,variant,load,stores,assignment,<kernel>_mbps x4,<kernel>_stores x4,
#      cand_normal_mbps,cand_nt_mbps,cand_mixed_mbps (auto's whole-repetition candidates),
#      warm_up_s (the untimed first repetition's passes, JSON warm_up; empty from older builds)
# With STORES_AB_JSON=DIR each auto run's JSON report is kept as DIR/<size>-<round>.json.
# STORES_AB_KERNELS="copy triad" runs only those kernels (default all four). With
# STORES_AB_OLD_KINDS=1 the other build runs forced normal and nt too (variants old-normal,
# old-nt; a second table for that build: a before/after of all three). STORES_AB_ABBA=1
# reverses the order of the variants in every other round (auto normal nt, nt normal auto).
# With STORES_AB_ROUND_MAJOR=1 a round runs every size (one lock hold per round for them all:
# fewer waits for the lock on a shared machine; keep a round under ~10 minutes).
# Usage: bench/stores_ab.sh [SIZES=0.25xLLC,1xLLC,4xLLC,8xLLC] [ROUNDS=5] [NTIMES=5] [THREADS=2]
#        bench/stores_ab.sh --table CSV   (the tables again, from the rows of earlier runs)
# A size runs only when MemAvailable holds its arrays with 2 GiB to spare.
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
table() {
    python3 - "$1" "Copy Scale Add Triad" >&2 <<'PY'
import csv, statistics, sys
both = list(csv.DictReader(open(sys.argv[1])))
kernels = [k for k in sys.argv[2].split() if any(r[k.lower() + "_mbps"] for r in both)]
olds = {"old": "auto", "old-normal": "normal", "old-nt": "nt"}


def render(rows):
    old = any(r["variant"] == "old" for r in rows)
    print("| size | kernel | auto | normal | nt | auto / better | same round | auto / its kind "
          "| auto chose |" + (" old auto | old / better | old chose |" if old else ""))
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if old else ""))
    for size in dict.fromkeys(r["size"] for r in rows):
        here = [r for r in rows if r["size"] == size]
        for k in kernels:
            col = k.lower() + "_mbps"
            med = {v: statistics.median(float(r[col]) for r in here if r["variant"] == v)
                   for v in ("auto", "normal", "nt") + (("old",) if old else ())}
            better = max(med["normal"], med["nt"])
            paired = []
            for rnd in dict.fromkeys(r["round"] for r in here):
                run = {r["variant"]: float(r[col]) for r in here if r["round"] == rnd}
                if {"auto", "normal", "nt"} <= run.keys():
                    paired.append(run["auto"] / max(run["normal"], run["nt"]))
            def chose(v):
                c = [r[k.lower() + "_stores"] for r in here if r["variant"] == v]
                return ", ".join("%s x%d" % (x, c.count(x)) for x in sorted(set(c)))
            kinds = [r[k.lower() + "_stores"] for r in here if r["variant"] == "auto"]
            kind = max(set(kinds), key=kinds.count)  # the kind auto ran most often
            line = "| %s | %s | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f | %s |" % (
                size, k, med["auto"], med["normal"], med["nt"], med["auto"] / better,
                statistics.median(paired), med["auto"] / med[kind], chose("auto"))
            if old:
                line += " %.0f | %.3f | %s |" % (med["old"], med["old"] / better, chose("old"))
            print(line)
        loads = [float(r["load"]) for r in here]
        picks = [r["assignment"] for r in here if r["variant"] == "auto"]
        print("| %s | (load %.2f-%.2f; auto's assignment: %s) |" % (
            size, min(loads), max(loads),
            ", ".join("%s x%d" % (x, picks.count(x)) for x in sorted(set(picks)))))

if any(r["variant"] == "old-nt" for r in both):
    print("this build:")
    render([r for r in both if r["variant"] not in olds])
    print("\nthe other build (MEMBENCH_OLD):")
    render([dict(r, variant=olds[r["variant"]]) for r in both if r["variant"] in olds])
else:
    render(both)
PY
}
if [ "${1:-}" = --table ]; then
    table "$2"
    exit 0
fi
sizes=${1:-0.25xLLC,1xLLC,4xLLC,8xLLC}
rounds=${2:-5}
ntimes=${3:-5}
threads=${4:-2}
membench=${MEMBENCH:-build/membench}
old=${MEMBENCH_OLD:-}
lock=/tmp/membench-bench.lock
[ -x "$membench" ] || { echo "build membench first (cmake --build build)" >&2; exit 3; }
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
[ -n "${STORES_AB_JSON:-}" ] && mkdir -p "$STORES_AB_JSON"
echo "size,round,variant,load,stores,assignment,copy_mbps,scale_mbps,add_mbps,triad_mbps,\
copy_stores,scale_stores,add_stores,triad_stores,cand_normal_mbps,cand_nt_mbps,\
cand_mixed_mbps,warm_up_s" | tee "$csv"

# One run: its CSV row (and its JSON kept, for auto).
one_run() {
    local size=$1 round=$2 variant=$3 bin=$membench stores=$3 json k flags=()
    case $variant in old) bin=$old stores=auto ;; old-*) bin=$old stores=${variant#old-} ;; esac
    for k in $kernels; do flags+=("--$k"); done
    json=$("$bin" "${flags[@]}" -s "$size" -n "$ntimes" -t "$threads" \
        --stores "$stores" --format json)
    if [ "$variant" = auto ] && [ -n "${STORES_AB_JSON:-}" ]; then
        printf '%s\n' "$json" >"$STORES_AB_JSON/$size-$round.json"
    fi
    printf '%s\n' "$json" | python3 -c '
import json, sys
size, rnd, variant, load = sys.argv[1:5]
r = json.load(sys.stdin)["runs"][0]
names = ("Copy", "Scale", "Add", "Triad")
rate = {x["kernel"]: x["best_rate_mbps"] for x in r["results"]}
kind = {x["kernel"]: x["stores"] for x in r["results"]}
rate, kind = ({k: d.get(k, "") for k in names} for d in (rate, kind))
by = r["config"]["stores_chosen_by"]
cand = {}
if isinstance(by, dict):
    for c in by.get("candidates", []):
        cand[c["assignment"]] = c["total_mbps"]
    if not cand:  # an older build: its per-kernel calibration totals
        cand = {"normal": by.get("normal_mbps"), "nt": by.get("nt_mbps")}
row = [size, rnd, variant, load, r["config"]["stores"],
       by.get("assignment", "") if isinstance(by, dict) else ""]
row += [rate[k] for k in names] + [kind[k] for k in names]
row += ["" if cand.get(a) is None else cand[a] for a in ("normal", "nt", "mixed")]
row += [r.get("warm_up", {}).get("seconds", "")]
print(",".join(str(v) for v in row))' "$size" "$round" "$variant" "$(cut -d' ' -f1 /proc/loadavg)"
}

variants="auto normal nt"
[ -n "$old" ] && variants="$variants old"
[ -n "$old" ] && [ -n "${STORES_AB_OLD_KINDS:-}" ] && variants="$variants old-normal old-nt"
kernels=${STORES_AB_KERNELS:-copy scale add triad}
# the variants of a round: reversed in every other one with STORES_AB_ABBA
order() {
    if [ -n "${STORES_AB_ABBA:-}" ] && [ $(($1 % 2)) -eq 0 ]; then
        echo "$variants" | tr ' ' '\n' | tac | tr '\n' ' '
    else
        echo "$variants"
    fi
}
export -f one_run
export membench old ntimes threads kernels
fits() {
    local need avail
    need=$("$membench" --dry-run -s "$1" --format json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["config"]["total_bytes"])')
    avail=$(awk '/MemAvailable/ {printf "%.0f", $2 * 1024}' /proc/meminfo)
    if [ "$need" -gt $((avail - (2 << 30))) ]; then
        echo "skipping $1: $need bytes of arrays, MemAvailable $avail" >&2
        return 1
    fi
}
run_sizes=""
for size in ${sizes//,/ }; do
    fits "$size" && run_sizes="$run_sizes $size"
done
if [ -n "${STORES_AB_ROUND_MAJOR:-}" ]; then
    for round in $(seq 1 "$rounds"); do
        echo "# round $round of$run_sizes: $(date -u +%H:%M:%S) $(uptime)" >&2
        # shellcheck disable=SC2016
        flock -x "$lock" bash -c 'r=$0; for s in $1; do for v in '"$(order "$round")"'; do
            one_run "$s" "$r" "$v"; done; done' "$round" "$run_sizes" | tee -a "$csv"
    done
else
    for size in $run_sizes; do
        for round in $(seq 1 "$rounds"); do
            echo "# $size round $round: $(date -u +%H:%M:%S) $(uptime)" >&2
            # shellcheck disable=SC2016
            flock -x "$lock" bash -c 'for v in '"$(order "$round")"'; do
                one_run "$0" "$1" "$v"; done' \
                "$size" "$round" | tee -a "$csv"
        done
    done
fi
table "$csv" >&2
