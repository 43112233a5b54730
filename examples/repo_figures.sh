#!/bin/sh
# repo_figures.sh — regenerate the RePo experiments of docs/repo.md and its
# figures: repo-eval on the kv, needle and table tasks (one tiny model per
# position method, seed 1, one thread), a RePo language model read under
# sequence repetition (repo-positions), and the figures drawn from their CSVs
# into docs/repo/ (or $REPO_FIGURES_DIR), each with its numbers (.csv) and
# manifest (.manifest.json) beside it, a continued pre-training with and
# without RePo layers, and the numbers of docs/repo.md's tables into
# results/repo/ and results/md/repo-*.md (examples/repo_tables.py). Results
# that exist are reused.
#
# Usage: sh examples/repo_figures.sh [BUILD_DIR]        (make repo-figures)
# Intermediate results go to $REPO_WORK (default BUILD_DIR/repo-work).
# Runtime: about 25 minutes of one core (each of the 13 task models ~70 s).
set -eu
build=${1:-build}
seqrep="$build/seqrep"
out=${REPO_FIGURES_DIR:-docs/repo}
work=${REPO_WORK:-$build/repo-work}
[ -x "$seqrep" ] || { echo "repo_figures: $seqrep not found; run make first" >&2; exit 2; }
mkdir -p "$out" "$work/fig" "$work/models"

# plot FIGURE NAME [options]: draw OUT/NAME.png
plot() {
    figure=$1; name=$2; shift 2
    "$seqrep" plot "$figure" "$@" --size 1200x750 --out "$out/$name.png"
}

echo "== 1. the tasks: one model per position method (seqrep repo-eval)"
eval_task() {
    task=$1; shift
    [ -s "$work/$task.csv" ] || "$seqrep" repo-eval --task "$task" "$@" --threads 1 --out "$work/$task.csv" \
        --figures "$work/fig" --save-dir "$work/models"
}
eval_task kv
eval_task needle --methods rope,nope,hybrid,repo
eval_task table --methods rope,nope,hybrid,repo

echo "== 2. the figures of the tasks (seqrep plot repo-*)"
plot repo-needle kv-attention --results "$work/fig/kv-attention.csv"
plot repo-range kv-range --results "$work/fig/kv-range.csv"
plot repo-z kv-z --results "$work/fig/kv-z.csv" --layer 2 --head 0
plot repo-z needle-z --results "$work/fig/needle-z.csv" --layer 3 --head 0
plot repo-needle needle-attention --results "$work/fig/needle-attention.csv"

echo "== 3. a RePo language model under sequence repetition (seqrep repo-positions)"
[ -s "$work/corpus.txt" ] || "$seqrep" gen-text --out "$work/corpus.txt"
[ -s "$work/lm-repo.safetensors" ] || "$seqrep" train-lm --corpus "$work/corpus.txt" \
    --out "$work/lm-repo.safetensors" --positions repo --steps 800 --threads 1 --quiet
"$seqrep" repo-positions --model "$work/lm-repo.safetensors" --text "finn ran to the harbor in the rain ." \
    --r 3 --threads 1 --out "$work/repeat-z.csv" --summary "$work/repeat-summary.csv"
cp "$work/repeat-summary.csv" "$out/repeat-summary.csv"
plot repo-repeat repeat --results "$work/repeat-z.csv" --layer 2 --head 1

echo "== 4. continued pre-training: a RoPE model continued as RoPE and with RePo layers (seqrep train-lm --init)"
# validation loss of a checkpoint's training, from the line train-lm prints
val_loss() { sed -n 's/^validation loss \([0-9.]*\) .*/\1/p' "$1"; }
if [ ! -s "$work/continued.csv" ]; then
    "$seqrep" train-lm --corpus "$work/corpus.txt" --out "$work/lm-rope200.safetensors" --steps 200 \
        --threads 1 2> "$work/rope200.log"
    for positions in rope repo; do
        "$seqrep" train-lm --init "$work/lm-rope200.safetensors" --corpus "$work/corpus.txt" \
            --out "$work/lm-rope200+$positions.safetensors" --positions "$positions" --steps 300 \
            --threads 1 2> "$work/continued-$positions.log"
    done
    {
        echo "label,validation_loss"
        echo "none (the 200-step RoPE start),$(val_loss "$work/rope200.log")"
        echo "rope,$(val_loss "$work/continued-rope.log")"
        echo "\"repo (new RePo weights at Normal(0, 0.02))\",$(val_loss "$work/continued-repo.log")"
    } > "$work/continued.csv.tmp" && mv "$work/continued.csv.tmp" "$work/continued.csv"
fi

echo "== 5. the numbers of the tables into results/repo/, the tables into results/md/"
mkdir -p results/repo
for f in kv needle table continued; do cp "$work/$f.csv" results/repo/; done
for f in kv-attention kv-range needle-attention needle-range table-range; do cp "$work/fig/$f.csv" results/repo/; done
/usr/bin/python3 examples/repo_tables.py results/repo
echo "wrote the figures of docs/repo.md into $out and its tables into results/md/repo-*.md"
