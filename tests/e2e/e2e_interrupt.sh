#!/bin/sh
# e2e_interrupt.sh — SIGINT, SIGTERM and SIGHUP in the middle of work, at
# random points, with the disk made slow (tests/fault/fault_inject.c,
# FAULT_DELAY_MS) so that signals also land while files are being written:
#   train-lm --save-every: one line saying where it stopped and how to go on;
#     resuming ends with the tensors of an uninterrupted run
#   train-lm (no saves) and finetune: no temporary left; every output is the
#     earlier one or the new one whole, and finetune's outputs (CSV,
#     manifest, predictions) all old or all new
#   sweep: interrupted ten times in a row, then resumed: every run exactly
#     once, with the numbers of an uninterrupted sweep; no temporary left
#   the sweep lock: a second sweep on the same output is refused in one line
#     naming the lock; a lock left by a killed sweep does not block
# Usage: sh tests/e2e/e2e_interrupt.sh path/to/seqrep   (needs BUILD/tests/fault_inject.so)
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

fault_library

# now_ms: wall clock in milliseconds
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# random_below N: a random integer in 0..N-1 (N >= 1)
random_below() { od -An -N4 -tu4 /dev/urandom | awk -v n="$1" '{ print $1 % n }'; }

# sleep_ms MS
sleep_ms() { sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"; }

# signal_of I: INT, TERM or HUP in turn
signal_of() { case $(($1 % 3)) in 0) echo INT ;; 1) echo TERM ;; 2) echo HUP ;; esac; }

# signal_status SIG: the exit status of a process killed by SIG
signal_status() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; HUP) echo 129 ;; esac; }

# signal_after MS SIG: wait MS milliseconds, send SIG to $pid, wait for it;
# its exit status in $got
signal_after() {
    sleep_ms "$1"
    kill -s "$2" $pid 2>/dev/null
    wait $pid 2>/dev/null
    got=$?
}

# leftovers DIR: temporaries below DIR
leftovers() { find "$1" -name '*.tmp*' | sort; }

# in_background CMD...: start CMD with SIGINT at its default action (sh
# starts a background job with SIGINT ignored, and a command keeps what it
# was started ignoring) and the disk slow for files named like $slow; its
# pid in $pid once it runs
in_background() {
    FAULT_PRELOAD=$preload FAULT_PATH=$slow FAULT_DELAY_MS=${delay:-30} python3 -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.environ["LD_PRELOAD"] = os.environ.pop("FAULT_PRELOAD")  # for the command alone
os.execv(sys.argv[1], sys.argv[1:])' "$@" >bg_out.txt 2>bg_err.txt &
    pid=$!
    # signals from here on reach the command, not python starting it
    tries=0
    while [ "$(readlink /proc/$pid/exe 2>/dev/null)" != "$real_seqrep" ] && [ $tries -lt 1000 ]; do
        sleep 0.01
        tries=$((tries + 1))
    done
}
real_seqrep=$(readlink -f "$seqrep")

# ---- data and a tiny model ----
"$seqrep" gen right-cue --out-dir task --seed 3 --train 30 --dev 12 --test 12 --corpus 300 2>/dev/null
small="--corpus task/corpus.txt --layers 1 --d-model 16 --heads 2 --d-ff 32 --seq-len 48 --batch 4 --seed 7 --threads 1 --quiet"
"$seqrep" train-lm $small --steps 20 --out lm.safetensors 2>/dev/null
check "setup: task and model" test -s lm.safetensors

# ---- train-lm --save-every: stop, say how to go on, resume exactly ----
"$seqrep" train-lm $small --steps 600 --out ref.safetensors 2>/dev/null
for sig in TERM HUP INT; do
    rm -f run.safetensors run.state.safetensors
    slow=run. delay=1 in_background "$seqrep" train-lm $small --steps 600 --save-every 50 --out run.safetensors
    i=0
    while [ ! -f run.state.safetensors ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
    signal_after "$(random_below 300)" $sig
    if [ "$got" = 2 ]; then
        check "train-lm, SIG$sig: one line saying where it stopped and how to go on" sh -c \
            'test "$(wc -l <bg_err.txt)" = 1 && grep -q "stopped at step [0-9]*/600 by SIG'$sig'; saved run.safetensors and run.state.safetensors, continue with --resume" bg_err.txt'
    else
        echo "note: train-lm ended before SIG$sig (exit $got)"
        cat bg_err.txt
    fi
    check "train-lm, SIG$sig: no temporary left" test -z "$(leftovers .)"
    expect_ok "train-lm, SIG$sig: --resume finishes" "$seqrep" train-lm $small --steps 600 --save-every 50 --out run.safetensors --resume
    check "train-lm, SIG$sig: stopped + resumed == uninterrupted" same_tensors run.safetensors ref.safetensors
done

# ---- train-lm without saves: the earlier checkpoint or the new one, whole ----
cp ref.safetensors plain.safetensors
cp plain.safetensors plain_old.bin
start=$(now_ms)
"$seqrep" train-lm $small --steps 60 --out timing.safetensors 2>/dev/null
span=$(($(now_ms) - start + 200))
for i in 1 2 3 4 5 6; do
    sig=$(signal_of $i)
    slow=plain.safetensors in_background "$seqrep" train-lm $small --steps 60 --out plain.safetensors
    signal_after "$(random_below $span)" $sig
    if cmp -s plain.safetensors plain_old.bin; then state=old
    elif "$seqrep" info plain.safetensors >/dev/null 2>&1; then state=new
    else state=damaged; fi
    check "train-lm #$i, SIG$sig (exit $got): the checkpoint is the old or the new one whole ($state)" test "$state" != damaged
    check "train-lm #$i: no temporary left" test -z "$(leftovers .)"
    [ "$state" = new ] && cp plain.safetensors plain_old.bin
done

# ---- finetune: outputs all old or all new, none half-written ----
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"
ft="finetune --model lm.safetensors $data --method sr --r 1 --epochs 2 --batch 8 --threads 1 --quiet"
expect_ok "finetune: the earlier outputs (seed 1)" "$seqrep" $ft --seed 1 --out ft.csv --predictions ft.pred.conll
for f in ft.csv ft.manifest.json ft.pred.conll; do cp $f old.$f; done
start=$(now_ms)
"$seqrep" $ft --seed 2 --out timing.csv >/dev/null 2>&1
span=$(($(now_ms) - start + 300))
# seed_of FILE: the seed a finetune CSV or manifest records
seed_of() {
    case $1 in
        *.csv) python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[0]['seed'] if r else '?')" "$1" 2>/dev/null ;;
        *) python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['seed'])" "$1" 2>/dev/null ;;
    esac
}
lines=$(wc -l <task/test.conll)
for i in 1 2 3 4 5 6 7 8 9 10; do
    sig=$(signal_of $i)
    for f in ft.csv ft.manifest.json ft.pred.conll; do cp old.$f $f; done
    slow=ft. delay=10 in_background "$seqrep" $ft --seed 2 --out ft.csv --predictions ft.pred.conll
    signal_after "$(random_below $span)" $sig
    csv_seed=$(seed_of ft.csv)
    man_seed=$(seed_of ft.manifest.json)
    if [ "$csv_seed" = 1 ] && [ "$man_seed" = 1 ] && cmp -s ft.pred.conll old.ft.pred.conll &&
       cmp -s ft.csv old.ft.csv && cmp -s ft.manifest.json old.ft.manifest.json; then
        state=old
    elif [ "$csv_seed" = 2 ] && [ "$man_seed" = 2 ] && [ "$(wc -l <ft.pred.conll)" = "$lines" ]; then
        state=new
    else
        state="mixed (CSV seed $csv_seed, manifest seed $man_seed)"
    fi
    case $state in old|new) ok "finetune #$i, SIG$sig (exit $got): the outputs are all $state" ;;
                   *) bad "finetune #$i, SIG$sig (exit $got): the outputs are $state" ;; esac
    left=$(leftovers .)
    check "finetune #$i: no temporary left${left:+ ($left)}" test -z "$left"
    rm -f $left
done

# ---- sweep: ten interruptions, then resumed: every run once, same numbers ----
grid="--data task --model lm.safetensors --methods causal,sr --r 1 --seeds 1,2,3 --epochs 1 --threads 1"
start=$(now_ms)
expect_ok "sweep: uninterrupted reference" "$seqrep" sweep $grid --out ref/sweep.csv
span=$(($(now_ms) - start))
for i in 1 2 3 4 5 6 7 8 9 10; do
    sig=$(signal_of $i)
    cat int/sweep.csv >before.csv 2>/dev/null || : >before.csv
    slow=int/ in_background "$seqrep" sweep $grid --out int/sweep.csv
    signal_after "$((30 + $(random_below $((span / 3 + 100)))))" $sig
    if [ "$got" = 2 ]; then
        check "sweep #$i, SIG$sig: the last line says how far it got and how to go on" sh -c \
            'tail -n 1 bg_err.txt | grep -q "interrupted by SIG'$sig': [0-9] of 6 runs are in int/sweep.csv; run the same command again to go on" &&
             test "$(grep -c "interrupted\|FAILED" bg_err.txt)" = 1'
    elif [ "$got" = "$(signal_status $sig)" ] && [ ! -s bg_err.txt ]; then
        # the signal came before the sweep set up its handler: it died of it
        # at once, as any program does, before writing anything
        check "sweep #$i, SIG$sig: killed in its start-up, the CSV unchanged" sh -c \
            'cat int/sweep.csv 2>/dev/null | cmp -s - before.csv'
    else
        check "sweep #$i, SIG$sig: exit 2, or 0 when it ended first (exit $got)" test "$got" = 0
        cat bg_err.txt
    fi
    left=$(leftovers int)
    check "sweep #$i: no temporary left${left:+ ($left)}" test -z "$left"
    rm -f $left
    if [ -f int/sweep.csv ]; then
        check "sweep #$i: no run twice in the CSV" test "$(tail -n +2 int/sweep.csv | cut -d, -f1-6 | sort | uniq -d)" = ""
    fi
done
expect_ok "sweep: resumed after ten interruptions" "$seqrep" sweep $grid --out int/sweep.csv
python3 - ref/sweep.csv int/sweep.csv >cmp.txt 2>&1 <<'PY'
import csv, sys
timing = {"seconds", "ms_per_sentence", "command"}
def rows(path):
    out = {}
    for r in csv.DictReader(open(path)):
        key = tuple(r[k] for k in ("dataset", "model", "method", "r", "exit", "seed"))
        if key in out:
            sys.exit("%s: run %s twice" % (path, key))
        out[key] = {k: v for k, v in r.items() if k not in timing}
    return out
ref, got = rows(sys.argv[1]), rows(sys.argv[2])
if len(ref) != 6 or set(ref) != set(got):
    sys.exit("runs differ: %d reference, %d resumed" % (len(ref), len(got)))
for k in ref:
    if ref[k] != got[k]:
        diff = [c for c in ref[k] if ref[k][c] != got[k].get(c)]
        sys.exit("run %s differs in %s" % (k, diff))
PY
check "sweep: every run exactly once, with the numbers of the uninterrupted sweep" test ! -s cmp.txt
[ -s cmp.txt ] && cat cmp.txt

# ---- the sweep lock ----
lgrid="--data task --model lm.safetensors --methods causal,sr --r 1 --seeds 1,2,3,4,5 --epochs 3 --threads 1"
slow=nothing-slow in_background "$seqrep" sweep $lgrid --out lk/sweep.csv
first=$pid
i=0
while [ ! -f lk/sweep.csv ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
expect_error "a second sweep on the same output is refused, naming the lock" \
    "lk/sweep.csv.lock: locked by process $first (another sweep on this output)" \
    "$seqrep" sweep $lgrid --out lk/sweep.csv
expect_error "so is its --plan (it writes the CSV too)" "lk/sweep.csv.lock: locked by process $first" \
    "$seqrep" sweep $lgrid --out lk/sweep.csv --plan
expect_ok "a sweep on another output runs meanwhile" "$seqrep" sweep --data task --model lm.safetensors \
    --methods causal --r 1 --seeds 1 --epochs 1 --threads 1 --out lk2/sweep.csv
kill -s KILL $first 2>/dev/null
wait $first 2>/dev/null
check "the killed sweep's lock file is still there" test -f lk/sweep.csv.lock
expect_ok "but it does not block: the sweep resumes" "$seqrep" sweep $lgrid --out lk/sweep.csv --stop-after 1

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
