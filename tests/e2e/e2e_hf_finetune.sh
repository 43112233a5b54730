#!/bin/sh
# e2e_hf_finetune.sh — `finetune` on a Hugging Face model folder: full
# fine-tuning (every weight) of a folder above 50M parameters refused in one
# line naming the folder and pointing to --adapter lora, exit 2; LoRA, and
# full fine-tuning of a small folder, pass that check. (The training itself is
# tested at the library level by tests/unit/model/test_hf_train.c until the folder's
# tokenizer is read; until then these runs stop at the tokenizer.)
# Usage: sh tests/e2e/e2e_hf_finetune.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# a Qwen3-0.6B-shaped folder: the size check reads config.json alone
mkdir -p qwen3
cat >qwen3/config.json <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
 "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16,
 "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
 "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
 "hidden_act": "silu", "tie_word_embeddings": true, "torch_dtype": "bfloat16"}
JSON
expect_status 0 "gen right-cue" "$seqrep" gen right-cue --out-dir task
split="--train task/train.conll --dev task/dev.conll --test task/test.conll --method sr --r 1"

expect_error "full fine-tuning of 596M parameters refused" \
    "qwen3: 596.0M parameters is too large for full fine-tuning here (at most 50M); use --adapter lora" \
    "$seqrep" finetune --model qwen3 $split --out f.csv
expect_error "--recipe full --adapter none refused too" "too large for full fine-tuning" \
    "$seqrep" finetune --model qwen3 $split --out f.csv --recipe full --adapter none
for run in "--adapter lora" "--recipe paper"; do
    "$seqrep" finetune --model qwen3 $split --out f.csv $run >out.txt 2>err.txt
    grep -q "too large" err.txt && bad "$run passes the size check" || ok "$run passes the size check"
done
"$seqrep" finetune --model "$here/golden/hf/llama_gqa" $split --out f.csv >out.txt 2>err.txt
grep -q "too large" err.txt && bad "full fine-tuning of a 78k-parameter folder passes the size check" \
    || ok "full fine-tuning of a 78k-parameter folder passes the size check"
grep -q "fine-tuning a Hugging Face model folder: not yet" err.txt \
    && bad "the old refusal is gone" || ok "the old refusal is gone"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
