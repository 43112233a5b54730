#!/bin/sh
# e2e_hf_model.sh — Hugging Face model folders (tests/golden/hf/): `info` and
# `cost` on each, the commands that need the folder's tokenizer saying it is
# not supported yet, fine-tuning refused, and bad folders — no config.json,
# an unknown architecture or field value, a shard missing from the index, a
# tensor of the wrong shape or dtype, a missing tensor — each one error line
# naming the file, exit 2.
# Usage: sh tests/e2e_hf_model.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

golden="$here/golden/hf"
for case in llama_gqa mistral qwen2_bias qwen3_qknorm llama3_rope; do
    expect_ok "info $case" "$seqrep" info "$golden/$case"
    grep -q "^  architecture" out.txt && ok "info $case shows the architecture" || bad "info $case shows the architecture"
    expect_ok "cost --model $case" "$seqrep" cost --model "$golden/$case" --n 6 --r 0,1 --threads 2
done
expect_ok "info --model DIR --json" "$seqrep" info --model "$golden/qwen3_qknorm" --json
grep -q '"head_dim":	16' out.txt && grep -q '"n_kv_heads":	2' out.txt && ok "JSON has head_dim and kv heads" || bad "JSON has head_dim and kv heads"
grep -q '"Qwen3ForCausalLM"' out.txt && ok "JSON names the architecture" || bad "JSON names the architecture"

# commands that need the tokenizer, until tokenizer.json is read
printf 'the cat sat\n' >text.txt
expect_error "generate: tokenizer not yet" "tokenizer.json support: not yet" "$seqrep" generate "$golden/llama_gqa"
expect_error "attnflow: tokenizer not yet" "tokenizer.json support: not yet" "$seqrep" attnflow --model "$golden/llama_gqa" --data text.txt --text --r 1
expect_error "finetune refuses a folder" "fine-tuning a Hugging Face model folder: not yet" "$seqrep" finetune --model "$golden/llama_gqa" --train x --dev x --test x --method causal --out f.csv

# bad folders, each a copy of a golden one with one thing wrong
mkdir empty
expect_error "no config.json" "empty/config.json" "$seqrep" info empty

cp -r "$golden/llama_gqa" arch
sed 's/LlamaForCausalLM/GPT2LMHeadModel/' "$golden/llama_gqa/config.json" >arch/config.json
expect_error "unknown architecture" "arch/config.json: architecture 'GPT2LMHeadModel' is not supported" "$seqrep" info arch

cp -r "$golden/llama_gqa" act
sed 's/"silu"/"gelu"/' "$golden/llama_gqa/config.json" >act/config.json
expect_error "unsupported hidden_act" "act/config.json: 'hidden_act' gelu is not supported" "$seqrep" info act

cp -r "$golden/llama3_rope" yarn
sed 's/"llama3"/"yarn"/' "$golden/llama3_rope/config.json" >yarn/config.json
expect_error "unsupported rope_scaling" "yarn/config.json: rope_scaling type 'yarn' is not supported" "$seqrep" info yarn

cp -r "$golden/llama_gqa" badjson
printf '{"architectures": [' >badjson/config.json
expect_error "config.json not JSON" "badjson/config.json: not a JSON object" "$seqrep" info badjson

cp -r "$golden/llama3_rope" shard
rm shard/model-00002-of-00002.safetensors
expect_error "shard missing from the index" "shard/model.safetensors.index.json: shard 'model-00002-of-00002.safetensors'" "$seqrep" cost --model shard --n 4 --r 0

cp -r "$golden/llama_gqa" shape
sed 's/"intermediate_size": 96/"intermediate_size": 100/' "$golden/llama_gqa/config.json" >shape/config.json
expect_error "tensor of the wrong shape" "shape/model.safetensors: tensor 'model.layers.0.mlp.gate_proj.weight' has shape \[96, 64\], but config.json needs \[100, 64\]" "$seqrep" cost --model shape --n 4 --r 0

cp -r "$golden/llama_gqa" dtype
python3 - dtype/model.safetensors <<'PY'
import sys
path = sys.argv[1]
raw = bytearray(open(path, "rb").read())
i = raw.index(b'"dtype":"F32"')
raw[i:i + 13] = b'"dtype":"I32"'
open(path, "wb").write(bytes(raw))
PY
expect_error "tensor of the wrong dtype" "dtype/model.safetensors: tensor '.*' has dtype I32" "$seqrep" cost --model dtype --n 4 --r 0

cp -r "$golden/qwen3_qknorm" untied
sed 's/"tie_word_embeddings": true/"tie_word_embeddings": false/' "$golden/qwen3_qknorm/config.json" >untied/config.json
expect_error "missing tensor" "untied/model.safetensors: missing tensor 'lm_head.weight'" "$seqrep" cost --model untied --n 4 --r 0

cp -r "$golden/mistral" window
sed 's/"sliding_window": 4096/"sliding_window": 8/' "$golden/mistral/config.json" >window/config.json
expect_ok "cost with a sliding window of 8" "$seqrep" cost --model window --n 10 --r 0
grep -q "longer than max_seq_len 8" out.txt && ok "a sequence longer than the window is not run" || bad "a sequence longer than the window is not run"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
