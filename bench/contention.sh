#!/bin/bash
# What membench's report names when other work shares its CPUs: ROUNDS rounds, each a quiet run
# on every allowed CPU, a one-thread run on CPU 0 beside a busy loop on CPU 0, and the quiet
# run's command beside `stress-ng --cpu N` (skipped without stress-ng). Each report is written
# with -o and read afterwards (an interpreter started beside a run is other work too).
# Prints per run: the run's CPUs, steal / others / wait shares (run_conditions) and the causes
# named (diagnosis[]).
# Usage: bench/contention.sh [MEMBENCH=build/membench] [ROUNDS=3]
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
mb=${1:-build/membench}
rounds=${2:-3}
args=(-s 64MB -n 30 --stores normal --format json)
tmp=$(mktemp -d)
hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null; rm -rf "$tmp"' EXIT
show() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
c = d["run_conditions"]
shares = " / ".join("-" if c[k] is None else "%.3f" % c[k]
                    for k in ("steal_share", "others_share", "wait_share"))
named = "; ".join(x["summary"] for x in d["diagnosis"]) or "nothing"
print("%-10s cpus %-8s steal/others/wait %s  named: %s"
      % (sys.argv[1], ",".join(map(str, c["cpus"])), shares, named))
PY
}
for r in $(seq "$rounds"); do
    echo "round $r (load average $(cut -d' ' -f1 /proc/loadavg))"
    "$mb" "${args[@]}" -o "$tmp/quiet.json" 2>/dev/null
    show quiet "$tmp/quiet.json"
    taskset -c 0 sh -c 'while :; do :; done' &
    hog=$!
    taskset -c 0 "$mb" "${args[@]}" --threads 1 --bind 0 -o "$tmp/loop.json" 2>/dev/null
    kill "$hog"; wait "$hog" 2>/dev/null || true; hog=
    show busy-loop "$tmp/loop.json"
    if command -v stress-ng >/dev/null; then
        stress-ng --cpu "$(nproc)" --timeout 120s --quiet &
        hog=$!
        sleep 1
        "$mb" "${args[@]}" -o "$tmp/stress.json" 2>/dev/null
        kill "$hog"; wait "$hog" 2>/dev/null || true; hog=
        show stress-ng "$tmp/stress.json"
    fi
done
