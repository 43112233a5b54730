#!/bin/sh
# reproduce.sh — every number of docs/results.md, from nothing.
#
# For each built-in task (right-cue, last-word, left-cue): generate the data,
# pre-train a causal LM and an MLM encoder of the same size and budget on the
# task's unlabelled corpus, probe the frozen LM layer by layer for
# r = 0, 1, 2, 4, 8, and sweep every fine-tuning method (causal, sr with
# r = 1, 2, 4, 8, full and middle unmasking, encoder) over SEEDS; on
# right-cue also early exits (every layer) for causal and sr r = 1, 4. A
# second causal LM is
# pre-trained on right-cue's corpus with every line repeated 1-3 times, and
# probed the same way, to show what makes frozen features use earlier copies.
# NLU++ (when NLUPP points at its folds) gets the same, pre-trained on the
# words of its training split.
#
# Results go to results/ (CSV, manifests, logs, markdown); the tables of
# docs/results.md between <!-- BEGIN:x --> and <!-- END:x --> are replaced by
# results/md/x.md. Every step is skipped when its output exists and every
# sweep resumes, so an interrupted run continues where it stopped.
#
# Usage: sh examples/reproduce.sh [BUILD_DIR]   (from the repository root, as
#        `make reproduce` does)
# Environment: NLUPP (default ../shared/data/nlupp), RESULTS (results),
#              SEEDS (5,29,42), JOBS (2 runs at a time), TASKS (all three),
#              DOC (docs/results.md), FIGS (docs/results: exit and probe figures)
# Runtime: about two hours on 2 cores (docs/results.md, section 6), of which NLU++
# takes about 50 minutes; results/md/runtime.md has the stage times of a run.
set -eu
[ -f examples/reproduce.sh ] || { echo "reproduce: run me from the repository root" >&2; exit 2; }
build=${1:-build}
seqrep="$build/seqrep"
out=${RESULTS:-results}
nlupp=${NLUPP:-../shared/data/nlupp}
seeds=${SEEDS:-5,29,42}
jobs=${JOBS:-2}
tasks=${TASKS:-right-cue last-word left-cue}
doc=${DOC:-docs/results.md}
epochs=5   # fine-tuning epochs of a built-in task run (3 leave many runs on a plateau; docs/results.md)
nlupp_epochs=15   # NLU++ runs: with 5, most runs still had their best dev F1 in the last epoch
[ -x "$seqrep" ] || { echo "reproduce: $seqrep not found; run make first" >&2; exit 2; }
mkdir -p "$out/data" "$out/models" "$out/probe" "$out/md" "$out/logs"
start=$(date +%s)
: >"$out/md/runtime.tmp"

# stage NAME: note the wall clock of the previous stage and start this one
stage_name=""
stage_start=$start
stage() {
    now=$(date +%s)
    if [ -n "$stage_name" ]; then
        printf '| %s | %d min %02d s |\n' "$stage_name" $(((now - stage_start) / 60)) \
            $(((now - stage_start) % 60)) >>"$out/md/runtime.tmp"
    fi
    stage_name=$1
    stage_start=$now
    echo "== $(date -u +%H:%M:%S) $1"
}

# pretrain CORPUS DIR SEQ_LEN STEPS [train-lm options]: DIR/lm.safetensors
# (causal) and DIR/mlm.safetensors (masked LM), same size and budget, trained
# side by side on one thread each; each is skipped when it exists.
pretrain() {
    corpus=$1; dir=$2; seq_len=$3; steps=$4; shift 4
    mkdir -p "$dir"
    pids=""
    for objective in causal mlm; do
        name=lm
        [ $objective = mlm ] && name=mlm
        [ -s "$dir/$name.safetensors" ] && continue
        "$seqrep" train-lm --corpus "$corpus" --out "$dir/$name.safetensors" --objective $objective \
            --layers 4 --d-model 64 --heads 4 --d-ff 176 --seq-len "$seq_len" --steps "$steps" \
            --seed 1 --threads 1 --quiet "$@" >"$dir/$name.log" 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || { echo "reproduce: pre-training failed, see $dir/*.log" >&2; exit 1; }; done
}

# probe_md CSV NAME TITLE: results/md/NAME.md, the table of examples/probe_table.sh
probe_md() {
    sh examples/probe_table.sh "$1" "$3" >"$out/md/$2.md"
}

# checks_md CSV: the acceptance checks on the built-in tasks, from the sweep
# CSV: mean test F1 over seeds of sr (r >= 1) minus causal, both at full depth
# (exit 4) with the causal LM.
checks_md() {
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["exit"] != 4 || $col["model"] !~ /\/lm\.safetensors$/ { next }
        $col["method"] != "causal" && $col["method"] != "sr" { next }
        { k = $col["dataset"] SUBSEP $col["r"]; s[k] += $col["test_f1"]; n[k]++; ds[$col["dataset"]] = 1 }
        END {
            print "| task | r | seeds | test F1 (mean) | − causal (r = 0) | required | met |"
            print "|---|---:|---:|---:|---:|---|---|"
            split("right-cue last-word left-cue", order, " ")
            for (t = 1; t <= 3; t++) {
                d = order[t]
                if (!(d in ds) || !((d SUBSEP 0) in n)) continue
                base = s[d, 0] / n[d, 0]
                printf "| %s | 0 | %d | %.2f | | | |\n", d, n[d, 0], base
                split("1 2 4 8", rr, " ")
                for (i = 1; i <= 4; i++) {
                    r = rr[i]
                    if (!((d SUBSEP r) in n)) continue
                    m = s[d, r] / n[d, r]; delta = m - base
                    if (d == "left-cue") { need = "within ±2"; met = (delta <= 2 && delta >= -2) ? "yes" : "**no**" }
                    else { need = "≥ +20"; met = delta >= 20 ? "yes" : "**no**" }
                    printf "| %s | %d | %d | %.2f | %+.2f | %s | %s |\n", d, r, n[d, r], m, delta, need, met
                }
            }
        }' "$1" >"$out/md/checks.md"
}

# ---- built-in tasks ---------------------------------------------------------
task_dirs=""
for task in $tasks; do
    stage "$task: data and pre-training"
    [ -s "$out/data/$task/test.conll" ] || "$seqrep" gen "$task" --out-dir "$out/data/$task" --seed 1
    # 192 tokens hold 9 copies of the longest sentence (20 words + <bos>)
    pretrain "$out/data/$task/corpus.txt" "$out/models/$task" 192 600
    task_dirs="$task_dirs,$out/data/$task"
done
task_dirs=${task_dirs#,}

stage "built-in tasks: probes"
pids=""
for task in $tasks; do
    d="$out/data/$task"
    if [ ! -s "$out/probe/$task.csv" ]; then
        "$seqrep" probe --model "$out/models/$task/lm.safetensors" --train "$d/train.conll" \
            --dev "$d/dev.conll" --test "$d/test.conll" --r 0,1,2,4,8 --threads 1 \
            --out "$out/probe/$task.csv" >"$out/logs/probe-$task.log" 2>&1 &
        pids="$pids $!"
    fi
done
for p in $pids; do wait "$p" || { echo "reproduce: a probe failed, see $out/logs/probe-*.log" >&2; exit 1; }; done

stage "built-in tasks: sweep of all methods at full depth"
sweep="$out/tasks-sweep.csv"
"$seqrep" sweep --data "$task_dirs" --model "$out/models/{data}/lm.safetensors" \
    --encoder-model "$out/models/{data}/mlm.safetensors" \
    --methods causal,sr,unmask-full,unmask-middle,encoder --r 1,2,4,8 --exits 0 \
    --seeds "$seeds" --epochs $epochs --jobs "$jobs" --out "$sweep" --summary "$out/md/tasks.md"

stage "right-cue: early exits"
if echo " $tasks " | grep -q " right-cue "; then
    "$seqrep" sweep --data "$out/data/right-cue" --model "$out/models/{data}/lm.safetensors" \
        --methods causal,sr --r 1,4 --exits 1,2,3 \
        --seeds "$seeds" --epochs $epochs --jobs "$jobs" --out "$sweep" --summary "$out/md/tasks.md"
fi

stage "right-cue: pre-training on repeated lines, probes"
if echo " $tasks " | grep -q " right-cue "; then
    rep="$out/data/right-cue-repeated"
    mkdir -p "$rep"
    # every line 1, 2 or 3 times in a row: the stream then holds "<bos> s <bos> s", the SR layout
    [ -s "$rep/corpus.txt" ] || awk 'BEGIN { srand(1) } { k = 1 + int(3 * rand()); for (i = 0; i < k; i++) print }' \
        "$out/data/right-cue/corpus.txt" >"$rep/corpus.txt"
    if [ ! -s "$out/models/right-cue-repeated/lm.safetensors" ]; then
        mkdir -p "$out/models/right-cue-repeated"
        "$seqrep" train-lm --corpus "$rep/corpus.txt" --out "$out/models/right-cue-repeated/lm.safetensors" \
            --layers 4 --d-model 64 --heads 4 --d-ff 176 --seq-len 192 --steps 600 --seed 1 --quiet \
            >"$out/models/right-cue-repeated/lm.log" 2>&1
    fi
    d="$out/data/right-cue"
    [ -s "$out/probe/right-cue-repeated.csv" ] || "$seqrep" probe \
        --model "$out/models/right-cue-repeated/lm.safetensors" --train "$d/train.conll" \
        --dev "$d/dev.conll" --test "$d/test.conll" --r 0,1,2,4,8 \
        --out "$out/probe/right-cue-repeated.csv" >"$out/logs/probe-right-cue-repeated.log" 2>&1
fi

stage "cost of one sentence"
if [ -s "$out/models/right-cue/lm.safetensors" ]; then
    for L in 4 2; do
        "$seqrep" cost --model "$out/models/right-cue/lm.safetensors" --n 14 --r 0,1,2,4,8 --exit $L \
            --repeats 20 --threads 1
    done >"$out/cost.txt"
fi

# ---- NLU++ ------------------------------------------------------------------
if [ -d "$nlupp/banking" ] && [ -d "$nlupp/hotels" ]; then
    stage "NLU++: import and pre-training"
    d="$out/data/nlupp"
    [ -s "$d/test.conll" ] || "$seqrep" import-nlupp "$nlupp" --out-dir "$d" --quiet
    # the words of the training split, one sentence a line
    [ -s "$d/corpus.txt" ] || awk 'NF == 0 { if (line != "") print line; line = ""; next }
        { line = line == "" ? $1 : line " " $1 } END { if (line != "") print line }' \
        "$d/train.conll" >"$d/corpus.txt"
    # 384 tokens hold 9 copies of the longest training sentence (39 words + <bos>)
    pretrain "$d/corpus.txt" "$out/models/nlupp" 384 600 --lowercase

    stage "NLU++: probe"
    [ -s "$out/probe/nlupp.csv" ] || "$seqrep" probe --model "$out/models/nlupp/lm.safetensors" \
        --train "$d/train.conll" --dev "$d/dev.conll" --test "$d/test.conll" --r 0,1,2,4,8 \
        --out "$out/probe/nlupp.csv" >"$out/logs/probe-nlupp.log" 2>&1

    stage "NLU++: sweep of all methods at full depth"
    "$seqrep" sweep --data "$d" --model "$out/models/nlupp/lm.safetensors" \
        --encoder-model "$out/models/nlupp/mlm.safetensors" \
        --methods causal,sr,unmask-full,unmask-middle,encoder --r 1,2,4,8 --exits 0 \
        --seeds "$seeds" --epochs $nlupp_epochs --jobs "$jobs" --out "$out/nlupp-sweep.csv" --summary "$out/md/nlupp.md"

    stage "NLU++: early exits"
    "$seqrep" sweep --data "$d" --model "$out/models/nlupp/lm.safetensors" \
        --methods causal,sr --r 4 --exits 2,3 \
        --seeds "$seeds" --epochs $nlupp_epochs --jobs "$jobs" --out "$out/nlupp-sweep.csv" --summary "$out/md/nlupp.md"
else
    echo "reproduce: no NLU++ at $nlupp (give NLUPP=/path/to/nlupp); skipped" >&2
fi

# ---- figures and docs/results.md ---------------------------------------------
stage "figures"
figs=${FIGS:-docs/results}
mkdir -p "$figs"
if [ -s "$sweep" ] && echo " $tasks " | grep -q " right-cue "; then
    "$seqrep" plot exit --results "$sweep" --dataset right-cue --size 1200x750 --out "$figs/exit-right-cue.png"
fi
[ -s "$out/nlupp-sweep.csv" ] &&
    "$seqrep" plot exit --results "$out/nlupp-sweep.csv" --size 1200x750 --out "$figs/exit-nlupp.png"
for name in $tasks right-cue-repeated nlupp; do
    [ -s "$out/probe/$name.csv" ] &&
        "$seqrep" plot layers --results "$out/probe/$name.csv" --size 1200x750 --out "$figs/probe-$name.png"
done

stage "tables"
checks_md "$sweep"
for name in $tasks right-cue-repeated nlupp; do
    if [ -s "$out/probe/$name.csv" ]; then
        probe_md "$out/probe/$name.csv" "probe-$name" "Probe test F1 (%), $name: last copy (first copy)"
    fi
done
if [ -s "$out/cost.txt" ]; then
    { echo '```'; cat "$out/cost.txt"; echo '```'; } >"$out/md/cost.md"
fi
stage ""
end=$(date +%s)
{
    echo "| stage | wall clock |"
    echo "|---|---:|"
    cat "$out/md/runtime.tmp"
    printf '| **all** | **%d min %02d s** |\n' $(((end - start) / 60)) $(((end - start) % 60))
    echo
    echo "Machine: $(nproc) cores, $(uname -m); $(date -u +%Y-%m-%d); seeds $seeds; $jobs runs at a time."
} >"$out/md/runtime.md"
rm -f "$out/md/runtime.tmp"
sh examples/fill_doc.sh "$doc" "$out/md" checks tasks nlupp cost runtime probe-right-cue probe-last-word \
    probe-left-cue probe-right-cue-repeated probe-nlupp
echo "reproduce: done in $(((end - start) / 60)) min; results in $out/, tables in $doc"
