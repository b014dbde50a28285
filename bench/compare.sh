#!/bin/bash
# Side by side, same thread count and array size, interleaved A B C D A B C D ... for ROUNDS
# rounds on a shared, noisy machine, medians reported:
#   ref        our plain STREAM reference (bench/reference/stream_ref.c, gcc -O3 -fopenmp)
#   mb-normal  membench, normal stores
#   mb-nt      membench, non-temporal stores ("tuned")
#   likwid     likwid-bench copy_mem_<isa> / stream_mem_<isa> (non-temporal), when installed
# Usage: bench/compare.sh [THREADS=2] [MB_PER_ARRAY=320] [ROUNDS=5]   (decimal MB)
set -euo pipefail
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
run_mb() {
    "$membench" --copy --triad -t "$threads" --bind compact -s "$elements" --stores "$1" -q |
        sed 's/ MB\/s.*//; s/Triad: /\nTriad: /'
}
run_likwid() {
    local kernel=$1 arrays=$2
    likwid-bench -t "${kernel}_mem_${isa}" -w "S0:$((arrays * mb))MB:$threads" 2>/dev/null |
        awk '/^MByte\/s/ {print $2}'
}

for round in $(seq "$rounds"); do
    echo "round $round of $rounds" >&2
    run_ref | awk '/^(Copy|Triad):/ {print "ref", $1, $2}' >>"$out/all"
    run_mb normal | awk '/(Copy|Triad):/ {print "mb-normal", $1, $2}' >>"$out/all"
    run_mb nt | awk '/(Copy|Triad):/ {print "mb-nt", $1, $2}' >>"$out/all"
    if command -v likwid-bench >/dev/null; then
        echo "likwid Copy: $(run_likwid copy 2)" >>"$out/all"
        echo "likwid Triad: $(run_likwid stream 3)" >>"$out/all"
    fi
done

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "threads=$threads MB/array=$mb rounds=$rounds isa=$isa ($(date -u +%F), $(uname -n))"
printf "%-10s %12s %12s %10s %10s\n" variant "Copy MB/s" "Triad MB/s" "Copy/ref" "Triad/ref"
ref_copy=$(awk '$1=="ref" && $2=="Copy:" {print $3}' "$out/all" | median)
ref_triad=$(awk '$1=="ref" && $2=="Triad:" {print $3}' "$out/all" | median)
for v in ref mb-normal mb-nt likwid; do
    grep -q "^$v " "$out/all" || continue
    copy=$(awk -v v=$v '$1==v && $2=="Copy:" {print $3}' "$out/all" | median)
    triad=$(awk -v v=$v '$1==v && $2=="Triad:" {print $3}' "$out/all" | median)
    printf "%-10s %12.1f %12.1f %10.2f %10.2f\n" "$v" "$copy" "$triad" \
        "$(echo "$copy / $ref_copy" | bc -l)" "$(echo "$triad / $ref_triad" | bc -l)"
done
