#!/bin/bash
# The TLB probe's sizes, RUNS consecutive runs on this machine: each level's size, how it was
# obtained (sharp knee, reuse fit, stride probe ...), the model's reading, the stride probe's
# index, against the documented size (CPUID), then each level's spread around its median.
# Each run is `MEMBENCH --tlb --format json -o DIR/tlb-N.json` (DIR kept: fixtures for
# tests/fixtures/machines). Prints a Markdown table for bench/RESULTS.md.
# Usage: bench/tlb_runs.sh [MEMBENCH=build/membench] [RUNS=5] [DIR=a new temporary folder]
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
mb=$(realpath "${1:-build/membench}")
runs=${2:-5}
dir=${3:-$(mktemp -d)}
mkdir -p "$dir"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(nproc) CPUs;" \
    "$(date -u '+%Y-%m-%d %H:%M UTC'); reports in $dir"
for r in $(seq "$runs"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$mb" --tlb --format json -o "$dir/tlb-$r.json" 2>/dev/null
    echo "run $r done (load average before it: $load)"
done
python3 - "$dir" "$runs" <<'PY'
import json, os, statistics, sys

folder, runs = sys.argv[1], int(sys.argv[2])
docs = [json.load(open(os.path.join(folder, "tlb-%d.json" % r)))["tlb"] for r in range(1, runs + 1)]
doc0 = docs[0]["documented"]
print("\nCPU: %s family %s model %s%s; documented by %s\n" % (
    doc0["vendor"], doc0["family"], doc0["model"],
    " (under a hypervisor)" if doc0["hypervisor"] else "", doc0["source"] or doc0["why_unknown"]))


def sized(level):
    return level["entries"] is not None


def off(value, documented):
    if value is None or not documented:
        return ""
    return " (%+.1f%%)" % (100.0 * (value - documented) / documented)


def model_text(m):
    if not m:
        return "-"
    ways = "" if m["ways"] is None else ", %d-way" % m["ways"]
    told = ", index from the stride probe" if m["index_from_stride_probe"] else ""
    return "%d (%s%s%s, rms %.2f ns)" % (m["entries"], m["index"], ways, told, m["rms_ns"])


names = []
for d in docs:
    for lv in d["levels"]:
        if sized(lv) and lv["name"] not in names:
            names.append(lv["name"])
print("| run | s | level | documented | entries (method) | range | model | stride probe |")
print("|---|---|---|---|---|---|---|---|")
sizes = {n: [] for n in names}
for r, d in enumerate(docs, 1):
    sets = d["sets"]
    for lv in d["levels"]:
        if not sized(lv):
            continue
        sizes[lv["name"]].append(lv["entries"])
        probe = "-"
        if sets["run"] and sets["level"] == lv["name"]:
            probe = "%s, %s" % (sets["index"], sets["entries"] or "no size")
        elif not sets["run"]:
            probe = "not run: %s" % sets["why"]
        print("| %d | %.0f | %s | %s | %d%s (%s) | %d-%d | %s | %s |" % (
            r, d["seconds"], lv["name"], lv["documented_entries"] or "-", lv["entries"],
            off(lv["entries"], lv["documented_entries"]), lv["entries_method"],
            lv["entries_low"], lv["entries_high"], model_text(lv.get("model")), probe))
print()
for name, values in sizes.items():
    med = statistics.median(values)
    spread = max(abs(v - med) / med for v in values) * 100.0
    print("%s: %s; median %g, every run within %.1f%% of it (%d of %d runs sized it)" % (
        name, ", ".join(map(str, values)), med, spread, len(values), runs))
PY
