#!/bin/sh
# How often the Slurm health check drains a healthy node: N runs of
# contrib/slurm/membench-healthcheck on this node against a reference saved from one run (A)
# and against one saved from K runs (B), interleaved A, B, A, B, ... so that both see the same
# load. scontrol is a stand-in that keeps the node's state in a file (nothing of a real Slurm
# is touched); a drain is counted and the node resumed by hand before the next run.
#   bench/healthcheck_drains.sh [BUILD_DIR [N [K]]]    (defaults: build 20 5)
# Prints one line per run and a summary: PASS / drained / INCONCLUSIVE / other, per reference.
set -eu
build=${1:-build}
n=${2:-20}
k=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
membench=$(cd "$build" && pwd)/membench
check=$here/contrib/slurm/membench-healthcheck
work=$(mktemp -d "${TMPDIR:-/tmp}/membench-drains.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir "$work/bin"
cat >"$work/bin/scontrol" <<'EOF'
#!/bin/sh
# scontrol show node NAME | scontrol update nodename=NAME state=S [reason=R]
state=$MEMBENCH_BENCH_STATE
case $1 in
    show) printf 'NodeName=%s State=IDLE\n   Reason=%s\n' "$3" "$(cat "$state" 2>/dev/null)" ;;
    update)
        for word in "$@"; do
            case $word in
                state=drain) drain=1 ;;
                state=resume) : >"$state" ;;
                reason=*) reason=${word#reason=} ;;
            esac
        done
        [ -n "${drain-}" ] && printf '%s\n' "$reason" >"$state"
        [ -n "${drain-}" ] && printf '%s\n' "$reason" >>"$state.log" ;;
esac
exit 0
EOF
chmod +x "$work/bin/scontrol"

echo "saving reference A (1 run) and B ($k runs)" >&2
"$membench" --acceptance --save-reference "$work/ref-1.json" -q >/dev/null
"$membench" --acceptance --save-reference "$work/ref-$k.json" --reference-runs "$k" -q >/dev/null

for i in $(seq 1 "$n"); do
    for ref in 1 "$k"; do
        state=$work/state-$ref
        : >"$state"
        set +e
        PATH=$work/bin:$PATH MEMBENCH_BENCH_STATE=$state MEMBENCH_HEALTHCHECK_CONFIG=/dev/null \
            "$check" --membench "$membench" --reference "$work/ref-$ref.json" --node bench \
            2>"$work/err"
        rc=$?
        set -e
        case $rc in
            0) outcome=PASS ;;
            1 | 3) outcome=drained ;;
            5) outcome=INCONCLUSIVE ;;
            *) outcome="other($rc)" ;;
        esac
        printf '%s ref=%s-run %s %s\n' "$i" "$ref" "$outcome" "$(cat "$state")"
        echo "$ref $outcome" >>"$work/outcomes"
    done
done
for ref in 1 "$k"; do
    printf 'reference from %s run(s): ' "$ref"
    awk -v r="$ref" '$1 == r { c[$2]++; t++ } END {
        printf "%d checks: PASS %d, drained %d, INCONCLUSIVE %d\n", t, c["PASS"], c["drained"],
            c["INCONCLUSIVE"] }' "$work/outcomes"
done
