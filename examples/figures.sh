#!/bin/sh
# figures.sh — regenerate every figure of docs/gallery.md from result files
# that seqrep itself produces here: blocks counts, a small language model
# trained on a generated labelling task, its attention, attnflow, probes,
# fine-tuning runs and head roles. Each figure is written as PNG with its
# numbers (.csv) and manifest (.manifest.json) beside it in docs/figures/ (or
# $FIGURES_DIR).
# A figure whose producing command is not available is skipped with a message.
#
# Usage: sh examples/figures.sh [BUILD_DIR]        (make figures)
# Intermediate results go to $FIGURES_WORK (default BUILD_DIR/figures-work).
set -eu
build=${1:-build}
seqrep="$build/seqrep"
out=${FIGURES_DIR:-docs/figures}
work=${FIGURES_WORK:-$build/figures-work}
threads=${FIGURES_THREADS:-2}
size=${FIGURES_SIZE:-1200x750}
mkdir -p "$out" "$work"

# has COMMAND: 0 if this seqrep has the command
has() { "$seqrep" "$1" --help >/dev/null 2>&1; }
# plot FIGURE NAME [options]: draw docs/figures/NAME.png
plot() {
    figure=$1; name=$2; shift 2
    "$seqrep" plot "$figure" "$@" --out "$out/$name.png"
}

echo "== 1. the mask and the share of full blocks (seqrep blocks)"
plot mask mask --n 5 --r 2 --bos per-copy --size 1200x920
"$seqrep" blocks --n 5 --r 0..8 --format csv --out "$work/blocks.csv"
plot proportion proportion --results "$work/blocks.csv" --size "$size"
# the same mask under a sliding window shorter than a copy (docs/theory.md, section 8)
plot mask mask-window --n 6 --r 2 --window 5 --size 1200x920

echo "== 2. a labelling task and a small language model (seqrep gen, train-lm)"
data="$work/task"
if [ ! -s "$data/train.conll" ]; then
    "$seqrep" gen right-cue --out-dir "$data" --seed 1 --train 400 --dev 150 --test 150 --corpus 6000
fi
model="$work/lm.safetensors"
if [ ! -s "$model" ]; then
    "$seqrep" train-lm --corpus "$data/corpus.txt" --out "$model" --layers 4 --d-model 64 --heads 4 \
        --d-ff 128 --seq-len 64 --batch 16 --steps 400 --threads "$threads" --seed 1 --quiet
fi

echo "== 3. attention of one test sentence (seqrep plot attention)"
plot attention attention --model "$model" --data "$data/test.conll" --sentence 0 --r 1 --size 1200x1040
plot attention attention_overview --model "$model" --data "$data/test.conll" --sentence 0 --r 1 \
    --overview --size 1200x960
plot attention attention_log --model "$model" --data "$data/test.conll" --sentence 0 --r 2 \
    --layer 1 --head 0 --scale log --size 1200x1040

echo "== 4. where last-copy attention goes (seqrep attnflow)"
"$seqrep" attnflow --model "$model" --data "$data/test.conll" --r 1 --bos per-copy \
    --threads "$threads" --out "$work/attnflow.csv" >/dev/null
plot flow flow --results "$work/attnflow.csv" --size "$size"

echo "== 5. probes layer by layer (seqrep probe)"
if has probe; then
    for seed in 1 2; do
        [ -s "$work/probe_$seed.csv" ] ||
            "$seqrep" probe --model "$model" --train "$data/train.conll" --dev "$data/dev.conll" \
                --test "$data/test.conll" --r 0,1,2 --seed "$seed" --threads "$threads" \
                --out "$work/probe_$seed.csv" >/dev/null
    done
    layers_results="$work/probe_1.csv,$work/probe_2.csv"
else
    echo "   skipped: this seqrep has no 'probe' command"
    layers_results=""
fi

echo "== 6. fine-tuning with early exit (seqrep finetune)"
if has finetune; then
    runs=""
    for spec in causal:0 sr:1 sr:2; do
        method=${spec%:*}; r=${spec#*:}
        for exit_layer in 1 2 3 4; do
            csv="$work/finetune_${method}_r${r}_exit${exit_layer}.csv"
            [ -s "$csv" ] ||
                "$seqrep" finetune --model "$model" --train "$data/train.conll" --dev "$data/dev.conll" \
                    --test "$data/test.conll" --method "$method" --r "$r" --exit "$exit_layer" --epochs 3 \
                    --threads "$threads" --quiet --out "$csv" >/dev/null 2>&1
            runs="$runs${runs:+,}$csv"
        done
    done
    plot exit exit --results "$runs" --size "$size"
    baselines="$work/finetune_causal_r0_exit4.csv,$work/finetune_sr_r1_exit4.csv"
else
    echo "   skipped: this seqrep has no 'finetune' command"
    baselines=""
fi
if [ -n "$layers_results" ]; then
    if [ -n "$baselines" ]; then
        plot layers layers --results "$layers_results" --baselines "$baselines" --size "$size"
    else
        plot layers layers --results "$layers_results" --size "$size"
    fi
fi
echo "== 7. head roles (seqrep heads)"
if has heads; then
    "$seqrep" heads --model "$model" --data "$data/test.conll" --r 1 --out "$work/heads.csv" >/dev/null
    plot heads heads --results "$work/heads.csv"
else
    echo "   skipped: this seqrep has no 'heads' command"
fi
echo "== 8. what SR fine-tuning teaches: the names' attention on their cue, by epoch (attnflow --cues)"
# the lab's step 11 sizes (docs/lab/README.md): 1,000 training sentences and
# a 200-step LM on the task's own text, where SR learns right-cue
if has finetune; then
    cue="$work/cue"
    [ -s "$cue/train.conll" ] ||
        "$seqrep" gen right-cue --out-dir "$cue" --seed 1 --train 1000 --dev 300 --test 300 --corpus 5000
    [ -s "$cue/lm.safetensors" ] ||
        "$seqrep" train-lm --corpus "$cue/corpus.txt" --out "$cue/lm.safetensors" --seq-len 112 --steps 200 \
            --seed 1 --threads "$threads" --quiet
    for spec in causal:0 sr:1; do
        method=${spec%:*}; r=${spec#*:}
        epochs="$cue/epochs_${method}_r$r"
        [ -s "$epochs/series.json" ] ||
            "$seqrep" finetune --model "$cue/lm.safetensors" --train "$cue/train.conll" --dev "$cue/dev.conll" \
                --test "$cue/test.conll" --method "$method" --r "$r" --threads "$threads" --quiet \
                --out "$cue/epochs_${method}_r$r.csv" --save-epochs "$epochs" >/dev/null 2>&1
        sh "$(dirname "$0")/series_flow.sh" "$build" "$epochs" "$cue/dev.conll" 1 right-cue >/dev/null
        plot timeline "cue_$method" --series "$epochs" --what flow --score cue --size "$size"
        plot timeline "cue_${method}_f1" --series "$epochs" --what f1 --size "$size"
    done
    python3 "$(dirname "$0")/cue_table.py" "$out" --out "${FIGURES_TABLES:-results/md}/gallery-cue.md"
else
    echo "   skipped: this seqrep has no 'finetune' command"
fi
echo "figures written to $out"
