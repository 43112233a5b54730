#!/bin/sh
# house.sh — the house language models (make house): a causal LM and a
# masked-LM encoder of the same size and budget, pre-trained on the real
# English of `make corpus` (Brown + nlp-corpus) with a byte-pair vocabulary
# learned on it, then measured on the held-out slice.
#
#   CACHE/house/causal.safetensors, mlm.safetensors     the models
#   CACHE/house/{causal,mlm}.perplexity.json            held-out loss and perplexity
#   CACHE/house/samples.txt                             lines sampled from the causal LM
#   CACHE/house/house.csv, house.md                     their numbers (the table of docs/house.md)
#   CACHE/house/runs.csv, house-runs.md                 a row per run that trained here
#
# CACHE is $SEQREP_CACHE, or ~/.cache/seqrep. Cached and resumable: a model
# already trained is kept; an interrupted one continues from its last save
# (train-lm --save-every / --resume), losing at most one interval.
#
# The size is the one examples/house_sizes.sh chose (docs/house.md): 4 layers,
# width 128, 4 heads, SwiGLU 352, 8,000 byte-pair pieces, 1,800 steps of
# 4 x 512 tokens each, 8 to 17 minutes a model on two cores
# (results/house/runs.csv; make house runs it from a build for x86-64-v3 with
# OpenBLAS's Haswell kernels).
# HOUSE_LAYERS, HOUSE_D_MODEL, HOUSE_HEADS, HOUSE_D_FF, HOUSE_SEQ_LEN,
# HOUSE_BATCH, HOUSE_STEPS, HOUSE_VOCAB, HOUSE_LR, HOUSE_THREADS override it.
# HOUSE_SEED (default 1, the committed models' seed) is the pre-training
# seed: another one trains the causal LM apart, as the variant plain (the
# house LM's settings) or HOUSE_VARIANT's, into CACHE/house/NAME-seedS/ (see
# below); the house LMs of seed 1 stay as they are.
# The numbers stay in the cache: make house changes no file of the checkout.
# make house-record (examples/house_record.sh) copies them into the committed
# results/house/ and results/md/ (docs/house.md).
#
# Variants (issue 29, docs/house.md "Variants and snapshots"): HOUSE_VARIANT=NAME
# (make house HOUSE_VARIANT=NAME) trains only the causal LM of a variant, of
# the same size, data, steps and seed, into CACHE/house/NAME/ (the models
# above stay as they are):
#   repeat25, repeat50   train-lm --repeat-share 0.25, 0.5 (each sentence doubled,
#                        "<bos> s <bos> s")
#   random25, random50   train-lm --repeat-random 0.25, 0.5 (windows of a random
#                        piece sequence and its copies)
#   any other name       with HOUSE_REPEAT_SHARE, HOUSE_REPEAT_RANDOM and
#                        HOUSE_REPEAT_COPIES (default 2) as train-lm takes them
#   CACHE/house/NAME/causal.safetensors        the model (save every 250 steps, resumable)
#   CACHE/house/NAME/snapshots/                step 0 and every HOUSE_SNAPSHOT_EVERY
#                                              (150) steps, series.json
#   CACHE/house/NAME/causal.perplexity.json    held-out loss and perplexity
# and its row of CACHE/house/variants.csv (house-variants.md beside it).
#
# Usage: sh examples/house.sh [BUILD_DIR]
set -eu
build=${1:-build}
seqrep="$build/seqrep"
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
corpus="$cache/english"
out="$cache/house"
layers=${HOUSE_LAYERS:-4}
d_model=${HOUSE_D_MODEL:-128}
heads=${HOUSE_HEADS:-4}
d_ff=${HOUSE_D_FF:-352}
seq_len=${HOUSE_SEQ_LEN:-512}
batch=${HOUSE_BATCH:-4}
steps=${HOUSE_STEPS:-1800}
vocab=${HOUSE_VOCAB:-8000}
lr=${HOUSE_LR:-3e-3}
threads=${HOUSE_THREADS:-0}
seed=${HOUSE_SEED:-1}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

[ -x "$seqrep" ] || { echo "house: $seqrep is not built (run make)" >&2; exit 2; }
if [ ! -s "$corpus/train.txt" ] || [ ! -s "$corpus/heldout.txt" ]; then
    sh "$(dirname "$0")/corpus.sh" "$build"
fi
mkdir -p "$out"

case $seed in
    '' | *[!0-9]* | 0*) echo "house: HOUSE_SEED '$seed' must be a whole number >= 1" >&2; exit 2 ;;
esac
if [ "$seed" != 1 ] && [ -z "${HOUSE_VARIANT:-}" ]; then
    echo "house: HOUSE_SEED=$seed: the causal LM with the house LM's settings, as variant plain"
    HOUSE_VARIANT=plain
fi
if [ -n "${HOUSE_VARIANT:-}" ]; then
    . "$(dirname "$0")/house_variant.sh"
    exit 0
fi

# train OBJECTIVE: pre-train (or resume, or keep) $out/OBJECTIVE.safetensors
trained=""
train() {
    objective=$1
    model="$out/$objective.safetensors"
    state="$out/$objective.state.safetensors"
    if [ -s "$model" ] && [ -s "$out/$objective.done" ]; then
        echo "house: $model is already trained (remove $out/$objective.done to train again)"
        return 0
    fi
    resume=""
    [ -s "$state" ] && resume="--resume" && echo "house: resuming $objective from $state"
    "$seqrep" train-lm --corpus "$corpus/train.txt" --out "$model" --objective "$objective" \
        --tokenizer bpe --vocab-size "$vocab" --layers "$layers" --d-model "$d_model" --heads "$heads" \
        --d-ff "$d_ff" --seq-len "$seq_len" --batch "$batch" --steps "$steps" --lr "$lr" \
        --threads "$threads" --seed "$seed" --save-every 250 $resume
    date -u +%FT%TZ >"$out/$objective.done"
    trained="$trained $objective"
}

start=$(date +%s)
train causal
train mlm
for objective in causal mlm; do
    "$seqrep" perplexity "$out/$objective.safetensors" --text "$corpus/heldout.txt" \
        --out "$out/$objective.perplexity.json" --threads "$threads"
done
"$seqrep" generate "$out/causal.safetensors" --lines 5 --seed 1 >"$out/samples.txt"
sed 's/^/   /' "$out/samples.txt"

# the numbers of docs/house.md, in the cache: house.csv and its table
echo "objective,layers,d_model,heads,d_ff,vocab,steps,tokens_seen,train_seconds,tok_per_s,heldout_tokens,heldout_loss,heldout_ppl" \
    >"$out/house.csv.tmp"
for objective in causal mlm; do
    python3 - "$objective" "$out/$objective.safetensors" "$out/$objective.perplexity.json" \
        >>"$out/house.csv.tmp" <<'PY'
import json, struct, sys
objective, model, ppl = sys.argv[1:]
raw = open(model, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
meta = json.loads(raw[8:8 + n])["__metadata__"]
cfg, manifest = json.loads(meta["seqrep.config"]), json.loads(meta["seqrep.manifest"])
p = json.load(open(ppl))
tokens = manifest["steps"] * manifest["batch"] * manifest["seq_len"]
# a resumed run times only its own steps: tokens/s over those
timed = (manifest["steps"] - manifest.get("resumed_from_step", 0)) * manifest["batch"] * manifest["seq_len"]
print("%s,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%d,%.4f,%.2f" % (objective, cfg["n_layers"], cfg["d_model"],
      cfg["n_heads"], cfg["d_ff"], cfg["vocab_size"], manifest["steps"], tokens, manifest["train_seconds"],
      timed / manifest["train_seconds"], p["tokens"], p["loss"], p["perplexity"]))
PY
done
mv "$out/house.csv.tmp" "$out/house.csv"
# the weights' hash: house_grid.sh adds rows to the committed sweeps only for
# the models of results/house/weights.sha256 (a machine of another CPU trains
# the same ones). Other models are said here, and make house-record keeps the
# committed hash.
python3 "$(dirname "$0")/house_hash.py" "$out/causal.safetensors" "$out/mlm.safetensors" >"$out/weights.sha256"
same=yes
if [ ! -s results/house/weights.sha256 ]; then
    same=new
elif ! cmp -s "$out/weights.sha256" results/house/weights.sha256; then
    same=no
    echo "house: WARNING: these models differ from those of results/house/weights.sha256 (the committed grid's):" >&2
    diff results/house/weights.sha256 "$out/weights.sha256" >&2 || true
fi
# one row of CACHE/house/runs.csv for each run that trained: the machine,
# the training times and the wall clock (make house passes HOUSE_START, the
# time its build began; without it the row counts from this script's start)
if [ -n "$trained" ]; then
    cpu=$(awk -F': ' '$1 ~ /^model name/ { print $2; exit }' /proc/cpuinfo | tr -d ',')
    isa=$(grep -qw avx512f /proc/cpuinfo && echo avx512 || { grep -qw avx2 /proc/cpuinfo && echo avx2 || echo other; })
    [ -s "$out/runs.csv" ] ||
        echo "date,cpu,isa,cores,trained,causal_train_s,mlm_train_s,wall_s,wall_from,same_weights" >"$out/runs.csv"
    from=build; begin=${HOUSE_START:-}
    [ -n "$begin" ] || { from=house.sh; begin=$start; }
    awk -F, -v d="$(date -u +%F)" -v cpu="$cpu" -v isa="$isa" -v cores="$(nproc)" -v t="$(echo $trained | tr ' ' '+')" \
        -v wall="$(($(date +%s) - begin))" -v from="$from" -v same="$same" \
        'NR > 1 { s[$1] = $9 } END { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", d, cpu, isa, cores, t, s["causal"], s["mlm"], wall, from, same }' \
        "$out/house.csv" >>"$out/runs.csv"
fi
sh "$(dirname "$0")/house_tables.sh" "$out" "$out"
cat "$out/house.md"
echo "house: done in $(($(date +%s) - start)) s; models and numbers in $out (make house-record copies the numbers into results/house/)"
