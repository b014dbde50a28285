#!/bin/bash
# Page backings compared: ROUNDS interleaved rounds (4k thp 2m 4k thp 2m ...) of one membench
# run per backing, then the median best rate per kernel and backing, as a Markdown table.
# Interleaving spreads the noise of a shared machine over all backings alike.
#
# Usage: bench/pages_ab.sh [ROUNDS [SIZE [THREADS]]]     defaults: 5 1GiB 2
#   MEMBENCH=path/to/membench PAGES="4k thp 2m" NTIMES=10 bench/pages_ab.sh
#
# Threads are pinned one per core through OpenMP (OMP_PROC_BIND=close OMP_PLACES=cores unless
# set): unpinned threads that meet on one CPU halve a run's rate and drown the difference.
#
# 2m needs 3 x SIZE of free 2 MB huge pages (1536 + a few for 1GiB); this script checks but
# never reserves them: as root, `echo 1600 > /proc/sys/vm/nr_hugepages`, and 0 afterwards.
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

usage() {
    echo "pages_ab.sh: $1; usage: bench/pages_ab.sh [ROUNDS [SIZE [THREADS]]]" >&2
    exit "${2:-2}"
}
[ $# -le 3 ] || usage "too many arguments"
rounds=${1:-5}
size=${2:-1GiB}
threads=${3:-2}
bin=${MEMBENCH:-./build/membench}
pages=${PAGES:-4k thp 2m}
ntimes=${NTIMES:-10}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || usage "ROUNDS must be a whole number of rounds, not '$rounds'"
[[ $threads =~ ^[1-9][0-9]*$ ]] || usage "THREADS must be a whole number, not '$threads'"
[ -n "$pages" ] || usage "PAGES is empty; give backings such as PAGES=\"4k thp\""
[ -x "$bin" ] || usage "no membench at '$bin'; build it or set MEMBENCH=path/to/membench" 3
command -v python3 >/dev/null 2>&1 || usage "python3 not found; apt-get install -y python3" 3

export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}

out=$(mktemp -d /tmp/pages_ab.XXXXXX)
trap 'rm -rf "$out"' EXIT

# Fail before the first run if a backing cannot be had (membench checks the pool in --dry-run).
# (membench's own one-line error says what is missing; its exit status is this script's)
for p in $pages; do
    "$bin" --dry-run --pages "$p" --size "$size" --threads "$threads" -n "$ntimes" >/dev/null
done

echo "membench $("$bin" --version | cut -d' ' -f2), $(date -u +%Y-%m-%dT%H:%MZ)," \
    "$rounds rounds of: $pages; --size $size --threads $threads -n $ntimes;" \
    "OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES" >&2
for round in $(seq "$rounds"); do
    for p in $pages; do
        "$bin" --pages "$p" --size "$size" --threads "$threads" -n "$ntimes" \
            --format json -o "$out/$p.$round.json"
        echo "round $round: $p done" >&2
    done
done

python3 - "$out" $pages <<'PY'
import glob, json, os, statistics, sys

out, pages = sys.argv[1], sys.argv[2:]
kernels = ["Copy", "Scale", "Add", "Triad"]
rates = {p: {k: [] for k in kernels} for p in pages}
backing = {}
for p in pages:
    for path in sorted(glob.glob(os.path.join(out, p + ".*.json"))):
        run = json.load(open(path))["runs"][0]
        b = run["backing"]
        if not (b["verified"] and run["validation"]["passed"]):
            sys.exit("%s: not verified or not validated: %s" % (path, b))
        backing.setdefault(p, set()).add((b["page_size_bytes"], round(b["thp_fraction"], 3)))
        for r in run["results"]:
            rates[p][r["kernel"]].append(r["best_rate_mbps"])

base = pages[0]
head = ["Kernel"] + ["%s MB/s (min-max)" % p for p in pages] + \
       ["%s vs %s" % (p, base) for p in pages[1:]]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for k in kernels:
    med = {p: statistics.median(rates[p][k]) for p in pages}
    cells = [k] + ["%.0f (%.0f-%.0f)" % (med[p], min(rates[p][k]), max(rates[p][k]))
                   for p in pages]
    cells += ["%+.1f%%" % (100 * (med[p] / med[base] - 1)) for p in pages[1:]]
    print("| " + " | ".join(cells) + " |")
print()
for p in pages:
    desc = ", ".join("%d-byte pages, THP fraction %.3f" % s for s in sorted(backing[p]))
    print("- %s: %d runs, verified: %s" % (p, len(rates[p][kernels[0]]), desc))
PY
