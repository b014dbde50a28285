#!/bin/bash
# Side by side, same thread count and array size, interleaved A B C D A B C D ... for ROUNDS
# rounds on a shared, noisy machine, medians reported:
#   ref        our plain STREAM reference (bench/reference/stream_ref.c, gcc -O3 -fopenmp)
#   mb-normal  membench, normal stores
#   mb-nt      membench, non-temporal stores ("tuned")
#   mb-nt-avg  the same membench runs rated by their average time instead of the best, which
#              is how likwid-bench rates (total time over all iterations)
#   likwid     likwid-bench copy_mem_<isa> / stream_mem_<isa> (non-temporal), when installed
# Usage: bench/compare.sh [THREADS=2] [MB_PER_ARRAY=320] [ROUNDS=5]   (decimal MB)
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
threads=${1:-2}
mb=${2:-320}
rounds=${3:-5}
membench=${MEMBENCH:-build/membench}
ref=build/stream_ref
[ -x "$membench" ] || { echo "build membench first (cmake --build build)" >&2; exit 3; }
gcc -O3 -fopenmp -o "$ref" bench/reference/stream_ref.c
elements=$((mb * 1000000 / 8))
isa=$("$membench" --dry-run --format json | sed -n 's/.*"isa": "\(.*\)".*/\1/p' | head -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run_ref() {
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores "$ref" "$elements" 10 2>/dev/null
}
# One line per kernel: "<variant> <Kernel>: <best MB/s>" and "<variant>-avg <Kernel>: <avg MB/s>".
run_mb() {
    "$membench" --copy --triad -t "$threads" --bind compact -s "$elements" --stores "$1" \
        --format csv | awk -F, -v v="mb-$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { print v, $col["kernel"] ":", $col["best_rate_mbps"]
          print v "-avg", $col["kernel"] ":", $col["bytes_counted"] / $col["avg_time_s"] / 1e6 }'
}
run_likwid() {
    local kernel=$1 arrays=$2
    { likwid-bench -t "${kernel}_mem_${isa}" -w "S0:$((arrays * mb))MB:$threads" 2>/dev/null ||
        true; } | awk '/^MByte\/s/ {print $2}'
}

for round in $(seq "$rounds"); do
    echo "round $round of $rounds" >&2
    run_ref | awk '/^(Copy|Triad):/ {print "ref", $1, $2}' >>"$out/all"
    run_mb normal | grep -v '^mb-normal-avg' >>"$out/all"
    run_mb nt >>"$out/all"
    if command -v likwid-bench >/dev/null; then
        # a likwid-bench that prints no rate (no permission, no such kernel) leaves no row
        run_likwid copy 2 | sed 's/^/likwid Copy: /' >>"$out/all"
        run_likwid stream 3 | sed 's/^/likwid Triad: /' >>"$out/all"
    fi
done

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "threads=$threads MB/array=$mb rounds=$rounds isa=$isa ($(date -u +%F), $(uname -n))"
med() { awk -v v="$1" -v k="$2:" '$1 == v && $2 == k {print $3}' "$out/all" | median; }
ratio() { [ -n "$2" ] && printf "%.2f" "$(echo "$1 / $2" | bc -l)" || echo "-"; }
has_likwid=$(grep -q '^likwid ' "$out/all" && echo yes || true)
printf "%-10s %11s %11s %9s %9s %12s %12s\n" variant "Copy MB/s" "Triad MB/s" "Copy/ref" \
    "Triad/ref" "Copy/likwid" "Triad/likwid"
for v in ref mb-normal mb-nt mb-nt-avg likwid; do
    grep -q "^$v " "$out/all" || continue
    copy=$(med "$v" Copy) triad=$(med "$v" Triad)
    printf "%-10s %11.1f %11.1f %9s %9s %12s %12s\n" "$v" "$copy" "$triad" \
        "$(ratio "$copy" "$(med ref Copy)")" "$(ratio "$triad" "$(med ref Triad)")" \
        "$(ratio "$copy" "${has_likwid:+$(med likwid Copy)}")" \
        "$(ratio "$triad" "${has_likwid:+$(med likwid Triad)}")"
done
cp "$out/all" "${COMPARE_RAW:-/dev/null}"
