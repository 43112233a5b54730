#!/bin/sh
# e2e_numbers.sh — numbers that go wrong:
#   a learning rate that diverges (train-lm causal and mlm, finetune full and
#     LoRA): the run stops at the step it happens with one line naming the
#     step and the quantity (loss, gradient norm, weight), exit 2; the last
#     save of --save-every is kept whole, an earlier --out is untouched
#   a checkpoint (or adapter) with a NaN or an infinity in a tensor: probe,
#     finetune, generate, attnflow, perplexity and train-lm --init refuse it
#     in one line naming the file and the tensor
# Usage: sh tests/e2e/e2e_numbers.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# poison IN OUT TENSOR INDEX VALUE: a copy of the safetensors file IN with
# element INDEX of TENSOR (F32) set to VALUE (nan, inf, -inf); TENSOR "first"
# is the first tensor of the file
poison() {
    python3 - "$@" <<'PY'
import json, struct, sys
src, dst, name, index, value = sys.argv[1:]
b = bytearray(open(src, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
header = json.loads(b[8:8 + n])
header.pop("__metadata__", None)
if name == "first":
    name = min(header, key=lambda k: header[k]["data_offsets"][0])
t = header[name]
assert t["dtype"] == "F32"
at = 8 + n + t["data_offsets"][0] + 4 * int(index)
assert at + 4 <= 8 + n + t["data_offsets"][1]
b[at:at + 4] = struct.pack("<f", float(value))
open(dst, "wb").write(bytes(b))
print(name)
PY
}

# ---- data and a model ----
"$seqrep" gen right-cue --out-dir task --seed 3 --train 30 --dev 12 --test 12 --corpus 300 2>/dev/null
small="--corpus task/corpus.txt --layers 1 --d-model 16 --heads 2 --d-ff 32 --seq-len 48 --batch 4 --seed 7 --threads 1 --quiet"
expect_ok "setup: a model" "$seqrep" train-lm $small --steps 20 --out lm.safetensors
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"

# ---- a diverging learning rate ----
for objective in causal mlm; do
    rm -f div.safetensors div.state.safetensors
    "$seqrep" train-lm $small --objective $objective --steps 100 --lr 1e4 --save-every 2 --out div.safetensors >out.txt 2>err.txt
    got=$?
    at=$(sed -n 's/.*step \([0-9]*\)\/100: .*/\1/p' err.txt)
    last=$(( ${at:-1} - 1 - (${at:-1} - 1) % 2 ))
    check "train-lm $objective --lr 1e4: exit 2, one line naming the step and the quantity" sh -c \
        'test '"$got"' = 2 && test "$(wc -l <err.txt)" = 1 &&
         grep -q "step [0-9]*/100: the \(loss\|gradient norm\) is \(nan\|inf\|-inf\)\|step [0-9]*/100: weight [0-9]* of [0-9]* became" err.txt &&
         grep -q "training diverged at learning rate .* (try a lower --lr)" err.txt'
    [ "$got" = 2 ] || cat err.txt
    if [ "$last" -gt 0 ]; then
        check "train-lm $objective: the message names the last save (step $last)" \
            grep -q "the last save, step $last, is in div.safetensors and div.state.safetensors" err.txt
        check "train-lm $objective: the state is that of step $last" test "$(meta div.state.safetensors seqrep.step)" = "$last"
        expect_ok "train-lm $objective: the checkpoint of the last save is whole and usable" \
            "$seqrep" generate div.safetensors --prompt the --lines 1 --max-tokens 4
        check "train-lm $objective: it is that of step $last" sh -c \
            '"$0" info div.safetensors --json | python3 -c "import json,sys; sys.exit(0 if json.load(sys.stdin)[\"manifest\"][\"saved_at_step\"] == $1 else 1)"' \
            "$seqrep" "$last"
    else
        check "train-lm $objective: the message says nothing was saved" grep -q "nothing was saved" err.txt
    fi
    check "train-lm $objective: no temporary left" test -z "$(find . -name '*.tmp*')"
done
cp lm.safetensors keep.safetensors
expect_error "train-lm --lr 1e4 over an earlier --out" "training diverged.*nothing was saved (keep.safetensors is as it was)" \
    "$seqrep" train-lm $small --steps 100 --lr 1e4 --out keep.safetensors
check "the earlier --out is untouched" cmp -s keep.safetensors lm.safetensors
expect_ok "setup: finetune outputs" "$seqrep" finetune --model lm.safetensors $data --method sr --r 1 --epochs 1 --quiet --out ft.csv
cp ft.csv ft_old.csv
for adapter in none lora; do
    expect_error "finetune --adapter $adapter --lr 1e30: stops naming the update" \
        "update [0-9]*: the \(training loss\|gradient norm\) is \(nan\|inf\|-inf\); training diverged" \
        "$seqrep" finetune --model lm.safetensors $data --method sr --r 1 --epochs 2 --quiet --lr 1e30 --adapter $adapter --out ft.csv
    check "finetune --adapter $adapter: the earlier CSV is untouched" cmp -s ft.csv ft_old.csv
done

# ---- non-finite weights in a file ----
emb=model.embed_tokens.weight
poison lm.safetensors nan.safetensors $emb 37 nan >/dev/null
poison lm.safetensors inf.safetensors model.layers.0.mlp.down_proj.weight 3 -inf >/dev/null
want="nan.safetensors: tensor '$emb' holds a non-finite value (nan at element 37 of"
expect_error "probe refuses a NaN in the embedding" "$want" \
    "$seqrep" probe --model nan.safetensors $data --r 0 --epochs 1 --quiet --out p.csv
expect_error "finetune refuses it" "$want" \
    "$seqrep" finetune --model nan.safetensors $data --method sr --r 1 --epochs 1 --quiet --out f.csv
expect_error "generate refuses it" "$want" "$seqrep" generate nan.safetensors --prompt the --lines 1
expect_error "attnflow refuses it" "$want" "$seqrep" attnflow --model nan.safetensors --data task/test.conll --r 1 --out a.csv
expect_error "perplexity refuses it" "$want" "$seqrep" perplexity nan.safetensors --text task/corpus.txt
expect_error "train-lm --init refuses it" "$want" "$seqrep" train-lm --corpus task/corpus.txt --seq-len 48 --batch 4 --steps 5 --quiet --init nan.safetensors --out x.safetensors
expect_error "an infinity in a layer is named too" \
    "inf.safetensors: tensor 'model.layers.0.mlp.down_proj.weight' holds a non-finite value (-inf at element 3 of" \
    "$seqrep" generate inf.safetensors --prompt the --lines 1
check "nothing was written" test ! -e p.csv -a ! -e f.csv -a ! -e a.csv -a ! -e x.safetensors
expect_ok "setup: an adapter" "$seqrep" finetune --model lm.safetensors $data --method sr --r 1 --epochs 1 --quiet \
    --out ad.csv --save ad.safetensors
name=$(poison ad.safetensors nanad.safetensors first 0 nan)
expect_error "finetune --load refuses an adapter with a NaN" "nanad.safetensors: tensor '$name' holds a non-finite value (nan at element 0 of" \
    "$seqrep" finetune --model lm.safetensors $data --method sr --r 1 --epochs 1 --quiet --load nanad.safetensors --out ad2.csv

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
