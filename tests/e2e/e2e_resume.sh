#!/bin/sh
# e2e_resume.sh — train-lm --save-every and --resume: a run killed (SIGKILL)
# or stopped (SIGINT) at a random point after its first save and resumed
# ends with exactly the tensors of an uninterrupted run (causal and mlm, 1
# and 2 threads, the same threads both times); saving changes nothing; the
# checkpoint of a save is usable at once; progress lines note the saves; the
# manifest records the resume; --steps may grow; and a missing, damaged or
# mismatched state, or a failed save, is one clear line with exit 2 that
# leaves the previous checkpoint intact and no temporary behind.
# Usage: sh tests/e2e/e2e_resume.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

"$seqrep" gen-text --out corpus.txt --sentences 600 --seed 3 2>/dev/null
"$seqrep" gen-text --out other.txt --sentences 600 --seed 4 2>/dev/null
small="--corpus corpus.txt --layers 1 --d-model 16 --heads 2 --d-ff 32 --seq-len 16 --batch 4 --seed 7"
long=1500   # steps of the runs that get killed: long enough to be killed mid-run

# manifest FILE KEY: a value of a checkpoint's manifest ("" when absent)
manifest() {
    "$seqrep" info "$1" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['manifest'].get('$2', ''))"
}

# random_pause: sleep 0 to 0.29 s
random_pause() {
    sleep "0.$(awk 'BEGIN { srand(); printf "%02d", int(rand() * 30) }')"
}

# interrupt SIGNAL LABEL OPTIONS...: start train-lm --out run.st --save-every 100
# in the background, wait for its first save, send SIGNAL at a random point,
# then resume it; the result is run.st, the exit status of the killed run is
# in $killed, the step it was saved at in $at.
interrupt() {
    sig=$1; label=$2; shift 2
    rm -f run.st run.state.safetensors run.st.tmp.* run.state.safetensors.tmp.*
    "$seqrep" train-lm "$@" --out run.st --save-every 100 --quiet 2>kill_err.txt &
    pid=$!
    i=0
    while [ ! -f run.state.safetensors ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
    random_pause
    kill -s "$sig" $pid 2>/dev/null
    wait $pid 2>/dev/null
    killed=$?
    at=$(meta run.state.safetensors seqrep.step)
    check "$label: the checkpoint of a save is usable at once" sh -c '"$0" info run.st >/dev/null' "$seqrep"
    expect_ok "$label: resume from step $at (the killed run exited $killed)" "$seqrep" train-lm "$@" --out run.st --resume --quiet
}

for objective in causal mlm; do
    for threads in 1 2; do
        opts="$small --objective $objective --threads $threads --steps $long"
        "$seqrep" train-lm $opts --out ref.st --quiet 2>/dev/null
        interrupt KILL "$objective, $threads threads, kill -9" $opts
        [ "$killed" = 0 ] && echo "note: the run ended before the kill; the resume continued a finished run"
        check "$objective, $threads threads, kill -9: killed + resumed == uninterrupted" same_tensors run.st ref.st
        check "$objective, $threads threads: the manifest says resumed from step $at" test "$(manifest run.st resumed_from_step)" = "$at"
    done
done

# SIGINT: the run saves at the step it finished and stops with one line
opts="$small --objective causal --threads 2 --steps $long"
"$seqrep" train-lm $opts --out ref.st --quiet 2>/dev/null
interrupt INT "causal, 2 threads, kill -INT" $opts
if [ "$killed" = 2 ]; then
    check "kill -INT: one line saying where it stopped" sh -c 'test "$(wc -l <kill_err.txt)" = 1 && grep -q "stopped at step .*continue with --resume" kill_err.txt'
else
    echo "note: the run ended before SIGINT (exit $killed)"
fi
check "kill -INT: stopped + resumed == uninterrupted" same_tensors run.st ref.st
check "kill -INT: no temporary left" test -z "$(ls run.st.tmp.* run.state.safetensors.tmp.* 2>/dev/null)"
opts="$small --objective mlm --threads 1 --steps $long"
"$seqrep" train-lm $opts --out ref.st --quiet 2>/dev/null
interrupt INT "mlm, 1 thread, kill -INT" $opts
check "mlm, kill -INT: stopped + resumed == uninterrupted" same_tensors run.st ref.st

# ---- saving changes nothing; progress notes the saves; --steps may grow ----
expect_ok "a plain run" "$seqrep" train-lm $small --steps 40 --threads 2 --out plain.st --quiet
expect_ok "a saving run" "$seqrep" train-lm $small --steps 40 --threads 2 --out saved.st --save-every 10
check "saving changes no weight" same_tensors plain.st saved.st
check "progress notes every save" test "$(grep -c '^saved at step [0-9]*/40$' err.txt)" = 4
check "progress says where it saves" grep -q "^saving every 10 steps: saved.st and saved.state.safetensors$" err.txt
check "the state is at the last step" test "$(meta saved.state.safetensors seqrep.step)" = 40
check "no temporary left" test -z "$(ls saved.*tmp* 2>/dev/null)"
check "the final manifest has no resume" test "$(manifest saved.st resumed_from_step)" = ""
expect_ok "resume a finished run with --steps 60" "$seqrep" train-lm $small --steps 60 --threads 2 --out saved.st --resume
check "resuming says from where" grep -q "^resuming saved.state.safetensors at step 40/60$" err.txt
check "trained 20 steps more" grep -q "^step 60/60 " err.txt
check "the manifest: 60 steps, resumed from 40" test "$(manifest saved.st steps) $(manifest saved.st resumed_from_step)" = "60 40"
check "the state is at step 60" test "$(meta saved.state.safetensors seqrep.step)" = 60

# ---- errors: one line, exit 2 ----
cp saved.st keep.st
cp saved.state.safetensors keep.state.safetensors
expect_error "resume with no state" "no training state plain.state.safetensors" "$seqrep" train-lm $small --steps 40 --out plain.st --resume
for change in "--seed 8:--seed" "--batch 8:--batch" "--objective mlm:--objective" "--layers 2:--layers" \
              "--seq-len 12:--seq-len" "--positions nope:--positions" "--lr 1e-3:--lr" "--d-model 32:--d-model"; do
    option=${change%%:*}
    expect_error "resume with $option" "${change#*:} .* in the saved run" "$seqrep" train-lm $small --steps 60 --threads 2 --out saved.st --resume $option
done
expect_error "resume on another corpus" "--corpus is checksum" "$seqrep" train-lm $small --steps 60 --threads 2 --out saved.st --resume --corpus other.txt
expect_error "resume with fewer steps" "steps 50 is below the 60 steps" "$seqrep" train-lm $small --steps 50 --threads 2 --out saved.st --resume
python3 - saved.state.safetensors <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-7] ^= 0x20
open(sys.argv[1], "wb").write(bytes(b))
PY
expect_error "resume from a damaged state" "saved.state.safetensors: damaged training state" "$seqrep" train-lm $small --steps 60 --threads 2 --out saved.st --resume
head -c 300 keep.state.safetensors >saved.state.safetensors
expect_error "resume from a truncated state" "saved.state.safetensors" "$seqrep" train-lm $small --steps 60 --threads 2 --out saved.st --resume
cp saved.st not.state.safetensors
expect_error "resume from a checkpoint that is no state" "not a seqrep training state" "$seqrep" train-lm $small --steps 60 --out not.st --resume
check "failed resumes leave the checkpoint intact" cmp -s saved.st keep.st
# a save that fails (the state's name is taken by a folder): one line, the
# previous checkpoint intact, no temporary left
cp keep.st fail.st
mkdir fail.state.safetensors
expect_error "a failed save stops the run" "fail.state.safetensors.*write failed" "$seqrep" train-lm $small --steps 40 --out fail.st --save-every 10 --quiet
check "after a failed save the previous checkpoint is intact" cmp -s fail.st keep.st
check "after a failed save no temporary is left" test -z "$(ls fail.*tmp* 2>/dev/null)"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
