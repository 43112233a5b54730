#!/bin/sh
# run.sh — runs the libFuzzer harnesses that `make fuzz-build` built.
#
#   sh tests/fuzz/run.sh replay BUILD NAME...
#       each harness once over every file of its committed corpus
#       (tests/fuzz/corpus/NAME/): libFuzzer runs each input once and stops
#       at the first crash, leak or sanitizer report. `make test-fuzz`.
#   sh tests/fuzz/run.sh replay-main BUILD NAME...
#       the same with BUILD/fuzz_NAME linked with replay/replay_main.c instead of
#       libFuzzer (make test-fuzz: the ASan build), each harness's inputs in
#       one run of at most 120 s; a sanitizer report or a leak fails it.
#   sh tests/fuzz/run.sh fuzz BUILD SECONDS NAME...
#       fuzz each harness SECONDS over a copy of its corpus in
#       BUILD/corpus/NAME (new inputs go there, never into tests/), with
#       tests/fuzz/NAME.dict when there is one (and the libFuzzer flags
#       in tests/fuzz/NAME.options); crashes are written to
#       BUILD/artifacts/. Prints libFuzzer's last status line per harness.
#       FUZZ_RUNS=N (environment) also stops each harness after N inputs.
#
# The harnesses' scratch files go to one folder in /dev/shm (or /tmp),
# removed at the end.
# Ends with "N passed, N failed"; exits 1 when anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:?usage: run.sh replay|replay-main|fuzz BUILD ...}
build=${2:?usage: run.sh replay|replay-main|fuzz BUILD ...}
shift 2
seconds=0
if [ "$mode" = fuzz ]; then
    seconds=${1:?usage: run.sh fuzz BUILD SECONDS NAME...}
    shift
fi
passed=0
failed=0
mkdir -p "$build/artifacts" "$build/logs"
# 10 s per input at most (a hang is a finding), 2 GiB of memory
limits="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048"
runs=""
[ -n "${FUZZ_RUNS:-}" ] && runs="-runs=$FUZZ_RUNS"
# one input at a time: OpenMP and OpenBLAS threads would only spin (twice
# the inputs per second of hf_index with one thread)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
tmp_base=/tmp
[ -d /dev/shm ] && tmp_base=/dev/shm
SEQREP_FUZZ_TMP=$(mktemp -d "$tmp_base/seqrep-fuzz-run.XXXXXX") || exit 1
export SEQREP_FUZZ_TMP
trap 'rm -rf "$SEQREP_FUZZ_TMP"' EXIT
trap 'exit 1' INT TERM
start=$(date +%s)
for name in "$@"; do
    bin="$build/fuzz_$name"
    corpus="$here/corpus/$name"
    log="$build/logs/$name.$mode.log"
    if [ ! -x "$bin" ] || [ ! -d "$corpus" ]; then
        echo "FAIL $name: no $bin or no $corpus"
        failed=$((failed + 1))
        continue
    fi
    if [ "$mode" = replay-main ] || [ "$mode" = replay ]; then
        if [ "$mode" = replay-main ]; then
            timeout 120 "$bin" "$corpus"/* >"$log" 2>&1
        else
            # shellcheck disable=SC2086
            "$bin" $limits -artifact_prefix="$build/artifacts/$name-" "$corpus"/* >"$log" 2>&1
        fi
        if [ $? = 0 ]; then
            echo "ok   $name: $(ls "$corpus" | wc -l) inputs"
            passed=$((passed + 1))
        else
            echo "FAIL $name (log: $log)"
            tail -n 30 "$log"
            failed=$((failed + 1))
        fi
    else
        work="$build/corpus/$name"
        mkdir -p "$work"
        cp "$corpus"/* "$work"/
        dict=""
        [ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
        [ -f "$here/$name.options" ] && dict="$dict $(cat "$here/$name.options")"
        # shellcheck disable=SC2086
        if "$bin" $limits $dict $runs -max_total_time="$seconds" -print_final_stats=1 \
            -artifact_prefix="$build/artifacts/$name-" "$work" >"$log" 2>&1; then
            echo "ok   $name: $(grep -E '^#[0-9]+' "$log" | tail -n 1)"
            grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$log" | tr '\n' ' '
            echo
            passed=$((passed + 1))
        else
            echo "FAIL $name (log: $log; the input is in $build/artifacts/)"
            grep -E 'ERROR|SUMMARY|fuzz property|runtime error' "$log" | head -n 5
            failed=$((failed + 1))
        fi
    fi
done
echo "fuzz $mode: $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
