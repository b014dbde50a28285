#!/bin/bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) and fuzzes every parser for a bounded
# time. Fails when any harness crashes, leaks, hits undefined behaviour, breaks a harness check
# or hangs; the input that did it is saved under BUILD/fuzz-artifacts/<parser>/.
#
#   tests/fuzz/run.sh [-t SECONDS] [-j JOBS] [-B BUILD_DIR] [PARSER...]
#
#   -t SECONDS   fuzzing time per harness (default $FUZZ_SECONDS, else 20)
#   -j JOBS      harnesses fuzzed at once, each on one CPU (default $FUZZ_JOBS, else 1)
#   -B DIR       build directory (default build-fuzz)
#   PARSER       only these harnesses (default all: see FUZZ_HARNESSES in CMakeLists.txt)
#
# New inputs that reach new code accumulate in BUILD/fuzz-corpus/<parser>/ (not committed);
# the committed seeds in tests/fuzz/corpus/<parser>/ and the crash regressions in
# tests/fuzz/regressions/<parser>/ are only read. Keep a crasher as a regression: minimize it
# (BUILD/tests/fuzz/fuzz_<parser> -minimize_crash=1 -runs=10000 CRASH), copy it into
# tests/fuzz/regressions/<parser>/ under a name that says what it was, fix the parser.
# One libFuzzer job per harness (-jobs is not used); -j runs that many harnesses side by side.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-1}
build=build-fuzz
while getopts "t:j:B:h" opt; do
    case $opt in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    B) build=$OPTARG ;;
    *)
        sed -n '2,19p' "$0"
        exit 2
        ;;
    esac
done
shift $((OPTIND - 1))

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMEMBENCH_FUZZ=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzzers >/dev/null

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    for bin in "$build"/tests/fuzz/fuzz_*; do
        name=${bin##*/fuzz_}
        case $name in replay_*) continue ;; esac
        harnesses+=("$name")
    done
fi

# the harnesses' scratch files, removed whatever happens
scratch=$(mktemp -d "${TMPDIR:-/tmp}/membench-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# fuzz NAME: fuzzes one harness; its report goes to $build/fuzz-NAME.report, and the status
# says whether it failed.
fuzz() {
    local name=$1 bin corpus artifacts seeds dict log report
    bin=$build/tests/fuzz/fuzz_$name
    corpus=$build/fuzz-corpus/$name
    artifacts=$build/fuzz-artifacts/$name
    report=$build/fuzz-$name.report
    rm -rf "$artifacts" # only this run's findings
    mkdir -p "$corpus" "$artifacts"
    seeds=(tests/fuzz/corpus/"$name")
    [ -d tests/fuzz/regressions/"$name" ] && seeds+=(tests/fuzz/regressions/"$name")
    dict=()
    case $name in
    cli) dict=(-dict=tests/fuzz/dict/cli.dict) ;;
    reference | cluster) dict=(-dict=tests/fuzz/dict/json.dict) ;;
    esac
    log=$build/fuzz-$name.log
    echo "== fuzz_$name: ${seconds}s" >"$report"
    # -timeout: an input that takes this long is a hang; -rss_limit_mb: one that needs this
    # much memory is a failure too. Leak detection is on (ASan's default).
    if TMPDIR=$scratch OMP_NUM_THREADS=1 "$bin" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" \
        "$corpus" "${seeds[@]}" >"$log" 2>&1; then
        { grep -E '^(stat::number_of_executed_units|stat::new_units_added)|^#[0-9]+.*DONE' \
            "$log" || true; } | tr '\n' ' ' >>"$report"
        echo >>"$report"
        return 0
    fi
    {
        echo "fuzz_$name FAILED; the end of $log:"
        tail -n 60 "$log"
        ls "$artifacts"
    } >>"$report"
    return 1
}

for name in "${harnesses[@]}"; do
    [ -x "$build/tests/fuzz/fuzz_$name" ] || {
        echo "no harness $name ($build/tests/fuzz/fuzz_$name)" >&2
        exit 2
    }
done
failed=()
running=()
# finish_one: waits for the oldest harness still running, prints its report, notes a failure.
finish_one() {
    local name=${running[0]}
    running=("${running[@]:1}")
    wait "${pids[$name]}" || failed+=("$name")
    cat "$build/fuzz-$name.report"
}
declare -A pids
for name in "${harnesses[@]}"; do
    [ ${#running[@]} -lt "$jobs" ] || finish_one
    fuzz "$name" &
    pids[$name]=$!
    running+=("$name")
done
while [ ${#running[@]} -gt 0 ]; do finish_one; done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing failed: ${failed[*]} (inputs in $build/fuzz-artifacts/)"
    exit 1
fi
echo "fuzzing passed: ${harnesses[*]}"
