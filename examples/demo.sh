#!/bin/sh
# demo.sh — the main job on built-in data, end to end in a few minutes:
#   1. generate the right-cue task (an entity's type is decided by a cue word
#      1-6 words to its RIGHT, which a causal decoder cannot see),
#   2. pre-train a tiny causal LM on its unlabelled corpus (progress shown),
#      sample a few lines from it, and pre-train an encoder (masked-LM) alike,
#   3. probe the frozen LM at every layer for r = 0, 1, 2, 4,
#   4. fine-tune once with each method of the paper and print the table.
# Outputs go to demo/ (or $DEMO_DIR). Usage: sh examples/demo.sh [BUILD_DIR]
set -eu
build=${1:-build}
seqrep="$build/seqrep"
out=${DEMO_DIR:-demo}
mkdir -p "$out"
data="$out/right-cue"
# on a shared machine, idle OpenMP threads should sleep rather than spin
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
start=$(date +%s)

echo "== 1. the right-cue task: $data/{train,dev,test}.conll and corpus.txt"
"$seqrep" gen right-cue --out-dir "$data" --seed 1 --train 1000 --dev 300 --test 300 --corpus 5000
head -n 12 "$data/train.conll" | sed 's/^/   /'

echo "== 2. pre-train a tiny causal LM (4 layers, d_model 64) on the task's text"
"$seqrep" train-lm --corpus "$data/corpus.txt" --out "$out/lm.safetensors" --seq-len 112 --steps 200 --seed 1
"$seqrep" info "$out/lm.safetensors" | head -n 8
echo "   samples:"
"$seqrep" generate "$out/lm.safetensors" --lines 3 --seed 1 | sed 's/^/   /'
echo "   and an encoder of the same size, pre-trained with masked-LM (no attention mask):"
"$seqrep" train-lm --corpus "$data/corpus.txt" --out "$out/mlm.safetensors" --objective mlm \
    --seq-len 112 --steps 200 --seed 1 --quiet

echo "== 3. probes on the frozen LM: span F1 of the last copy, per layer and r"
"$seqrep" probe --model "$out/lm.safetensors" --train "$data/train.conll" --dev "$data/dev.conll" \
    --test "$data/test.conll" --r 0,1,2,4 --copies last --out "$out/probe.csv"

echo "== 4. fine-tuning, one run per method (test F1 at the best dev epoch)"
run() { # method, model, extra options...
    method=$1; model=$2; shift 2
    "$seqrep" finetune --model "$model" --train "$data/train.conll" --dev "$data/dev.conll" \
        --test "$data/test.conll" --method "$method" --quiet --out "$out/finetune-$method.csv" "$@" \
        >/dev/null
}
for m in causal sr unmask-full unmask-middle; do
    run "$m" "$out/lm.safetensors"
done
run encoder "$out/mlm.safetensors"
echo "   method          r   test F1"
for f in "$out"/finetune-*.csv; do
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
             $col["split"] == "test" { printf "   %-14s %2s   %6.2f\n", $col["method"], $col["r"], $col["f1"] }' "$f"
done
echo "demo finished in $(( $(date +%s) - start )) s; everything is in $out/"
