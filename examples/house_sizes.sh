#!/bin/sh
# house_sizes.sh — how the size of the house LM was chosen: each candidate
# (layers, width, heads, SwiGLU width) is pre-trained on the real English of
# `make corpus` for about the same wall clock (3 minutes on 2 cores here:
# the steps below were set from each size's measured tokens/s), then its
# held-out perplexity is measured with `seqrep perplexity`. The size with the
# lowest perplexity at equal time is the one examples/house.sh trains for
# the full budget.
#
# Writes results/house/sizes.csv (one row per candidate) and
# results/md/house-sizes.md (the table of docs/house.md). Cached: a
# candidate whose model and perplexity exist in WORK is not trained again.
#
# Usage: sh examples/house_sizes.sh [BUILD_DIR [WORK]]   (WORK default build/house-sizes)
set -eu
build=${1:-build}
work=${2:-$build/house-sizes}
seqrep="$build/seqrep"
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
corpus="$cache/english"
[ -s "$corpus/train.txt" ] || sh "$(dirname "$0")/corpus.sh" "$build"
mkdir -p "$work" results/house results/md
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

# name layers d_model heads d_ff steps (about 3 minutes each at batch 32 x 64)
CANDIDATES="A 4 128 4 352 570
B 6 128 4 352 440
C 4 192 6 512 290"

csv=results/house/sizes.csv
echo "config,layers,d_model,heads,d_ff,steps,train_seconds,tok_per_s,heldout_loss,heldout_ppl" >"$csv.tmp"
echo "$CANDIDATES" | while read -r name layers d_model heads d_ff steps; do
    model="$work/proxy_$name.safetensors"
    ppl="$work/proxy_$name.ppl.json"
    [ -s "$model" ] || "$seqrep" train-lm --corpus "$corpus/train.txt" --out "$model" --tokenizer bpe \
        --vocab-size 8000 --layers "$layers" --d-model "$d_model" --heads "$heads" --d-ff "$d_ff" \
        --seq-len 64 --batch 32 --steps "$steps" --threads 2 --seed 1 --quiet
    [ -s "$ppl" ] || "$seqrep" perplexity "$model" --text "$corpus/heldout.txt" --out "$ppl" --threads 2 >/dev/null
    python3 - "$name" "$layers" "$d_model" "$heads" "$d_ff" "$steps" "$model" "$ppl" >>"$csv.tmp" <<'PY'
import json, struct, sys
name, layers, d_model, heads, d_ff, steps, model, ppl = sys.argv[1:]
raw = open(model, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
manifest = json.loads(json.loads(raw[8:8 + n])["__metadata__"]["seqrep.manifest"])
p = json.load(open(ppl))
seconds = manifest["train_seconds"]
print("%s,%s,%s,%s,%s,%s,%.1f,%.0f,%.4f,%.2f" % (name, layers, d_model, heads, d_ff, steps, seconds,
      int(steps) * 32 * 64 / seconds, p["loss"], p["perplexity"]))
PY
done
mv "$csv.tmp" "$csv"
awk -F, 'NR == 1 { print "| size | layers | width | heads | d_ff | steps | train s | tokens/s | held-out loss | perplexity |";
                   print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"; next }
         { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' \
    "$csv" >results/md/house-sizes.md
cat results/md/house-sizes.md
