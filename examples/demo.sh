#!/bin/sh
# demo.sh — the main job on built-in data: write the built-in English corpus,
# train a tiny language model on it (with progress), sample a few lines from
# it and show what the checkpoint holds. Outputs go to demo/ (or $DEMO_DIR).
# Usage: sh examples/demo.sh [BUILD_DIR]
set -eu
build=${1:-build}
seqrep="$build/seqrep"
out=${DEMO_DIR:-demo}
mkdir -p "$out"

echo "== 1. built-in text: $out/corpus.txt"
"$seqrep" gen-text --out "$out/corpus.txt" --sentences 20000 --seed 1
head -n 3 "$out/corpus.txt" | sed 's/^/   /'

echo "== 2. train a tiny causal language model: $out/lm.safetensors"
"$seqrep" train-lm --corpus "$out/corpus.txt" --out "$out/lm.safetensors" --seed 1

echo "== 3. what the checkpoint holds"
"$seqrep" info "$out/lm.safetensors"

echo "== 4. samples"
"$seqrep" generate "$out/lm.safetensors" --lines 3 --seed 1 | sed 's/^/   /'
"$seqrep" generate "$out/lm.safetensors" --prompt "the old sailor" --lines 3 --seed 2 | sed 's/^/   /'
echo "demo finished: checkpoint in $out/lm.safetensors"
