#!/bin/sh
# How often the Slurm health check drains a healthy node: N rounds of
# contrib/slurm/membench-healthcheck on this node against three references, interleaved in
# each round so that all see the same load: saved from one run (1), from K runs back to back
# (K), and from K runs INTERVAL seconds apart (K/INTERVALs). Rounds are SPACING seconds apart
# (a health-check interval is an hour; back-to-back rounds sample one drift phase many times).
# scontrol is a stand-in that keeps the node's state in a file (nothing of a real Slurm is
# touched); a drain is counted and the node resumed before the next check. Each reference has
# its own count of rate FAILs in a row (MEMBENCH_HEALTHCHECK_CONFIRM, default 2; CONFIRM=1 in
# the environment drains on the first).
# Usage: bench/healthcheck_drains.sh [BUILD_DIR [N [K [INTERVAL [SPACING]]]]]
#   (defaults: build 20 5 10 10)
# Prints one line per check and a summary per reference: PASS / drained / INCONCLUSIVE /
# unconfirmed (a rate FAIL the next check has to confirm).
set -eu
case ${1:-} in -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
build=${1:-build}
n=${2:-20}
k=${3:-5}
interval=${4:-10}
spacing=${5:-10}
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

refs="1 $k $k/${interval}s"
# A reference's name in $refs -> its files: the reference, and its count of FAILs in a row.
ref_file() { printf '%s/ref-%s.json' "$work" "$(echo "$1" | tr / -)"; }
count_dir() { printf '%s/count-%s' "$work" "$(echo "$1" | tr / -)"; }
echo "saving the references: $refs" >&2
"$membench" --acceptance --save-reference "$(ref_file 1)" -q >/dev/null
"$membench" --acceptance --save-reference "$(ref_file "$k")" --reference-runs "$k" -q >/dev/null
"$membench" --acceptance --save-reference "$(ref_file "$k/${interval}s")" --reference-runs "$k" \
    --reference-interval "$interval" -q >/dev/null
for ref in $refs; do
    file=$(ref_file "$ref")
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("reference %s: %s; run-to-run spread %s" % (sys.argv[2], ", ".join(
    "%s %.0f" % kv for kv in d["rates_mbps"].items()), ", ".join(
    "%s %.0f%%" % kv for kv in d.get("run_spread_pct", {}).items()) or "none"))' "$file" "$ref"
done

for i in $(seq 1 "$n"); do
    [ "$i" -gt 1 ] && sleep "$spacing"
    for ref in $refs; do
        file=$(ref_file "$ref")
        state=$work/state
        : >"$state"
        set +e
        PATH=$work/bin:$PATH MEMBENCH_BENCH_STATE=$state MEMBENCH_HEALTHCHECK_CONFIG=/dev/null \
            MEMBENCH_HEALTHCHECK_STATE=$(count_dir "$ref") \
            "$check" --membench "$membench" --reference "$file" --node bench \
            2>"$work/err"
        rc=$?
        set -e
        case $rc in
            0) outcome=PASS ;;
            1 | 3) outcome=drained ;;
            5) outcome=INCONCLUSIVE
               grep -q "in a row" "$work/err" && outcome=unconfirmed ;;
            *) outcome="other($rc)" ;;
        esac
        printf '%s ref=%s %s %s\n' "$i" "$ref" "$outcome" "$(cat "$state")"
        echo "$ref $outcome" >>"$work/outcomes"
    done
done
for ref in $refs; do
    printf 'reference %s: ' "$ref"
    awk -v r="$ref" '$1 == r { c[$2]++; t++ } END {
        printf "%d checks: PASS %d, drained %d, INCONCLUSIVE %d, unconfirmed FAIL %d\n", t,
            c["PASS"], c["drained"], c["INCONCLUSIVE"], c["unconfirmed"] }' "$work/outcomes"
done
