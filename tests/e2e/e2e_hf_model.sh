#!/bin/sh
# e2e_hf_model.sh — Hugging Face model folders (tests/golden/hf/): `info` and
# `cost` on each; every command that takes a model on llama_tokenizer (a
# folder with a tokenizer.json): generate (greedy equal to the PyTorch
# continuation in greedy.txt, and sampled), probe (every layer, both copies,
# r = 0,1,2,4,8 in one pass), attnflow, cost, plot attention / --overview /
# flow, explore --script; the BOS a tokenizer puts or not (the Qwen case);
# fine-tuning refused; and bad folders — no config.json, an unknown
# architecture or field value, a shard missing from the index, a tensor of
# the wrong shape or dtype, a missing tensor, no tokenizer.json, an
# unsupported tokenizer.json, a tokenizer with a plain token past the
# embedding (special ones past it load; a prompt, --text or data file spelling
# one out is refused, naming where), a
# sentence longer than the context — each one error line naming the file,
# option or sentence, exit 2.
# Usage: sh tests/e2e/e2e_hf_model.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks

golden="$here/golden/hf"
for case in llama_gqa mistral qwen2_bias qwen3_qknorm llama3_rope gemma_mqa gemma2_window gemma3_local; do
    expect_ok "info $case" "$seqrep" info "$golden/$case"
    grep -q "^  architecture" out.txt && ok "info $case shows the architecture" || bad "info $case shows the architecture"
    expect_ok "cost --model $case" "$seqrep" cost --model "$golden/$case" --n 6 --r 0,1 --threads 2
done
expect_ok "info --model DIR --json" "$seqrep" info --model "$golden/qwen3_qknorm" --json
grep -q '"head_dim":	16' out.txt && grep -q '"n_kv_heads":	2' out.txt && ok "JSON has head_dim and kv heads" || bad "JSON has head_dim and kv heads"
grep -q '"Qwen3ForCausalLM"' out.txt && ok "JSON names the architecture" || bad "JSON names the architecture"

# ---- every command on a folder with a tokenizer ----
tok="$golden/llama_tokenizer"
printf 'the cat sat\n' >text.txt
# a labelled task in words the tiny tokenizer knows (hello / world tagged)
split() {
    awk -v n="$2" -v seed="$3" 'BEGIN { srand(seed); split("the hello cat sat world on a mat", W, " ");
        for (s = 0; s < n; s++) { len = 2 + int(rand() * 3);
            for (i = 0; i < len; i++) { w = W[1 + int(rand() * 8)];
                print w " " ((w == "hello" || w == "world") ? "B-LOC" : "O") }
            print "" } }' >"$1"
}
split train.conll 40 1; split dev.conll 15 2; split test.conll 15 3

expect_ok "info on a folder with a tokenizer" "$seqrep" info "$tok"
check "info shows the tokenizer and its BOS" grep -q "^tokenizer .*278 ids, BOS <|start|>" out.txt
expect_ok "generate --greedy" "$seqrep" generate "$tok" --prompt "hello world" --greedy --max-tokens 8 --lines 1
check "greedy continuation equals PyTorch's (greedy.txt)" cmp -s out.txt "$tok/greedy.txt"
cp out.txt greedy1.txt
expect_ok "generate --greedy again" "$seqrep" generate "$tok" --prompt "hello world" --greedy --max-tokens 8 --lines 1
check "greedy is deterministic" cmp -s out.txt greedy1.txt
expect_ok "generate --greedy on Gemma 3" "$seqrep" generate "$golden/gemma3_tokenizer" --prompt "hello world" \
    --greedy --max-tokens 8 --lines 1
check "Gemma 3's greedy continuation equals PyTorch's (greedy.txt)" cmp -s out.txt "$golden/gemma3_tokenizer/greedy.txt"
expect_ok "probe on Gemma 3 (windowed layers, r = 0, 1)" "$seqrep" probe --model "$golden/gemma3_tokenizer" \
    --train train.conll --dev dev.conll --test test.conll --out gprobe.csv --r 0,1 --epochs 1 --quiet
expect_ok "finetune LoRA on Gemma 3" "$seqrep" finetune --model "$golden/gemma3_tokenizer" --train train.conll \
    --dev dev.conll --test test.conll --method sr --r 1 --recipe paper --epochs 1 --out gf.csv --quiet
expect_ok "generate sampled" "$seqrep" generate "$tok" --prompt "hello" --temperature 0.9 --top-k 0 --lines 3 --max-tokens 6 --seed 5
check "three sampled lines, each after the prompt" sh -c '[ "$(grep -c "^hello" out.txt)" = 3 ]'

expect_ok "probe --r 0,1,2,4,8 on a folder" "$seqrep" probe --model "$tok" --train train.conll --dev dev.conll --test test.conll --out probe.csv --r 0,1,2,4,8 --epochs 2 --quiet
check "probe CSV: 5 r x 2 copies x 3 layers x 2 splits" sh -c '[ "$(tail -n +2 probe.csv | wc -l)" = 60 ]'
check "probe CSV: layers 0..2 of the first and the last copy" sh -c 'for l in 0 1 2; do for c in last first; do grep -q "^8,$l,$c,test," probe.csv || exit 1; done; done'
check "probe used the tokenizer's BOS per copy" grep -q '"bos":	"per-copy"' probe.manifest.json
expect_ok "attnflow on a folder" "$seqrep" attnflow --model "$tok" --data train.conll --r 2 --out flow.csv
check "attnflow: 40 sentences, bos per-copy" grep -q "bos per-copy, sep none, mask causal: 40 sentences" out.txt
expect_ok "attnflow --sep token (the tokenizer's eos)" "$seqrep" attnflow --model "$tok" --data text.txt --text --r 1 --sep token
expect_ok "cost on a folder" "$seqrep" cost --model "$tok" --n 6 --r 0,1,2,4,8 --repeats 0
check "cost: T = k (n + 1) with its BOS" grep -Eq "^ +8 +9 +63 " out.txt
is_png() { head -c 8 "$1" | od -An -c | tr -d ' ' | grep -q '211PNG\\r\\n032\\n'; }
expect_ok "plot attention on a folder" "$seqrep" plot attention --model "$tok" --text "hello world the cat" --r 1 --out att.png
check "plot attention wrote a PNG" is_png att.png
check "axis labels are the decoded pieces" grep -q '"world",0' att.csv
expect_ok "plot attention --overview on a folder" "$seqrep" plot attention --overview --model "$tok" --text "hello world" --r 2 --out over.png
check "the overview is a PNG" is_png over.png
expect_ok "plot flow of the folder's attnflow" "$seqrep" plot flow --results flow.csv --out flow-figure.png
check "plot flow wrote a PNG" is_png flow-figure.png
mkdir shots
if SDL_VIDEODRIVER=dummy "$seqrep" explore --model "$tok" --text "hello world the cat" --size 800x600 --save-dir shots --script "s c q" >cmds.txt 2>err.txt; then
    ok "explore --script on a folder"
    sed "s|^seqrep |\"$seqrep\" |; s|--out shots/view.png|--out replay.png|" cmds.txt >replay.sh
    if sh replay.sh >/dev/null 2>&1 && cmp -s replay.png shots/explore-0001.png; then ok "the explorer's frame equals plot attention's"
    else bad "the explorer's frame equals plot attention's"; fi
else
    bad "explore --script on a folder"; cat err.txt
fi

# a tokenizer that puts no BOS (Qwen): the default bos is none, per-copy refused
cp -r "$tok" qwen
printf '{"add_bos_token": false, "eos_token": "<|end|>"}\n' >qwen/tokenizer_config.json
expect_ok "probe on a tokenizer without BOS" "$seqrep" probe --model qwen --train train.conll --dev dev.conll --test test.conll --out q.csv --r 0,1 --epochs 1 --quiet
check "its default bos is none" grep -q '"bos":	"none"' q.manifest.json
expect_ok "cost on a tokenizer without BOS" "$seqrep" cost --model qwen --n 6 --r 8 --repeats 0
check "cost: T = k n without a BOS" grep -Eq "^ +8 +9 +54 " out.txt
expect_ok "plot attention without BOS" "$seqrep" plot attention --model qwen --text "hello world" --r 1 --out q.png
check "the figure says bos none" grep -q '"bos":	"none"' q.manifest.json
expect_error "--bos per-copy refused without a BOS" "--bos per-copy: the tokenizer has no BOS token" "$seqrep" probe --model qwen --train train.conll --dev dev.conll --test test.conll --out q.csv --bos per-copy
expect_error "generate without BOS needs a prompt" "qwen: the tokenizer puts no BOS token, so --prompt" "$seqrep" generate qwen --greedy
expect_ok "generate without BOS from a prompt" "$seqrep" generate qwen --prompt "the cat" --greedy --max-tokens 4 --lines 1
printf '{"add_bos_token": false}\n' >qwen/tokenizer_config.json
expect_error "--sep token refused without sep or eos" "--sep token: the tokenizer has no separator or end-of-sequence token" "$seqrep" attnflow --model qwen --data text.txt --text --r 1 --sep token

# the paper's LoRA recipe on the folder, its adapters saved and read back by a view
expect_ok "finetune --recipe paper on a folder" "$seqrep" finetune --model "$tok" --train train.conll --dev dev.conll --test test.conll --method sr --r 1 --recipe paper --epochs 2 --out f.csv --save f.adapter --quiet
check "finetune wrote dev and test rows" test "$(grep -c '^sr,1,' f.csv)" = 2
check "its manifest names the LoRA adapter" grep -q '"adapter":	"lora"' f.manifest.json
expect_ok "plot attention with the folder's adapter" "$seqrep" plot attention --model "$tok" --adapter f.adapter --text "hello world" --r 1 --out fa.png
check "the adapted figure is a PNG" sh -c 'head -c 8 fa.png | od -An -tx1 | grep -q "89 50 4e 47"'
mkdir -p task && cp train.conll dev.conll test.conll task/
expect_ok "sweep over a folder (paper recipe)" "$seqrep" sweep --data task --model "$tok" --methods causal,sr --r 1 --seeds 1 --recipe paper --epochs 1 --out sweep.csv
check "the sweep has both runs" test "$(grep -c ',paper,' sweep.csv)" = 2

# bad tokenizers and sentences
expect_error "a folder without tokenizer.json" "llama_gqa/tokenizer.json: missing" "$seqrep" generate "$golden/llama_gqa"
expect_error "attnflow on a folder without tokenizer.json" "llama_gqa/tokenizer.json: missing" "$seqrep" attnflow --model "$golden/llama_gqa" --data text.txt --text --r 1
cp -r "$golden/llama_gqa" big
cp "$tok/tokenizer.json" "$tok/tokenizer_config.json" big/
expect_error "tokenizer larger than the embedding" "big/tokenizer.json: 278 token ids, but config.json's vocab_size is 128 and id 128 '.*' is not a special token" "$seqrep" generate big
# special tokens past the embedding are allowed (Gemma 3's text models: 262,144
# rows, <image_soft_token> = id 262,144): ids 278..287 fill the gap, 288 is past it
cp -r "$tok" image
python3 - "$tok/tokenizer.json" image/tokenizer.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for i in range(278, 289):
    name = "<image_soft_token>" if i == 288 else "<extra_%d>" % i
    t["added_tokens"].append({"id": i, "content": name, "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": False, "special": True})
json.dump(t, open(sys.argv[2], "w"))
PY
expect_ok "a special token past the embedding" "$seqrep" generate image --prompt "hello world" --greedy --max-tokens 8 --lines 1
check "its greedy continuation is still PyTorch's" cmp -s out.txt "$tok/greedy.txt"
expect_error "a prompt spelling that token" "--prompt: token '<image_soft_token>' (id 288) has no row in the model's embedding (vocab_size 288)" "$seqrep" generate image --prompt "hello <image_soft_token>" --greedy --lines 1
expect_error "plot --text spelling it" "--text: token '<image_soft_token>' (id 288) has no row" "$seqrep" plot attention --model image --text "hello <image_soft_token>" --r 1 --out img.png
printf 'hello O\nworld B-LOC\n\nhello O\n<image_soft_token> B-LOC\n\n' >image.conll
expect_error "a data file spelling it (probe)" "image.conll:4: token '<image_soft_token>' (id 288) has no row" "$seqrep" probe --model image --train image.conll --dev dev.conll --test test.conll --r 1 --out img.csv
expect_error "a data file spelling it (attnflow)" "image.conll:4: token '<image_soft_token>' (id 288) has no row" "$seqrep" attnflow --model image --data image.conll --r 1 --out img-flow.csv
cp -r "$tok" wordpiece
printf '{"model": {"type": "WordPiece", "vocab": {}}}\n' >wordpiece/tokenizer.json
expect_error "an unsupported tokenizer.json" "wordpiece/tokenizer.json: model type 'WordPiece' is not supported" "$seqrep" probe --model wordpiece --train train.conll --dev dev.conll --test test.conll --out w.csv
cp -r "$tok" short
sed 's/"max_position_embeddings": 256/"max_position_embeddings": 16/' "$tok/config.json" >short/config.json
printf 'hello O\nworld B-LOC\nthe O\ncat O\nsat O\n\n' >long.conll
expect_error "a sentence longer than the context after repetition" "long.conll:1: sentence of 5 words (.* tokens) repeated k = 3 times is .* tokens, more than the model's max_seq_len 16" "$seqrep" probe --model short --train long.conll --dev dev.conll --test test.conll --out s.csv --r 2

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
grep -Eq "^ +0 +1 +11 .* [0-9.]+ +[0-9.]+$" out.txt && ok "a sequence longer than the window runs (the window is a mask)" || bad "a sequence longer than the window runs (the window is a mask)"
"$seqrep" info window >out.txt 2>&1
grep -Eq "sliding_layers +\[0,1\]" out.txt && ok "info names the sliding layers" || bad "info names the sliding layers"
sed 's/"sliding_window": 4096/"sliding_window": 0/' "$golden/mistral/config.json" >window/config.json
expect_error "a sliding window of 0" "window/config.json: 'sliding_window' is 0" "$seqrep" info window

# ---- a sliding window is a mask the views show: the last copy loses the earlier one ----
cp -r "$golden/llama_tokenizer" slide
sed 's/"LlamaForCausalLM"/"MistralForCausalLM"/; s/"model_type": "llama"/"model_type": "mistral", "sliding_window": 3/' \
    "$golden/llama_tokenizer/config.json" >slide/config.json
expect_ok "plot attention on a model with a window of 3" "$seqrep" plot attention --model slide \
    --text "hello world again now" --r 1 --out slide.png
check "every query sees at most the 3 keys of its window; the caption says so" python3 -c '
import csv, json
rows = list(csv.DictReader(open("slide.csv")))
keys = [k for k in rows[0] if k.startswith("k")]
assert rows and all(sum(r[k] != "" for k in keys) <= 3 for r in rows)
assert max(sum(r[k] != "" for k in keys) for r in rows) == 3
assert "a sliding window of 3 keys on layers 0, 1" in json.load(open("slide.manifest.json"))["caption"]
'

# ---- bad Gemma configs and bad shards: one line naming the file and the field ----
mkdir -p gemma
cat >gemma/config.json <<'JSON'
{"architectures": ["Gemma2ForCausalLM"], "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
 "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "vocab_size": 20, "sliding_window": 4,
 "query_pre_attn_scalar": 8, "max_position_embeddings": 32, "use_qk_norm_everywhere": true}
JSON
expect_error "a Gemma config with an unsupported field" \
    "gemma/config.json: field 'use_qk_norm_everywhere' is not supported for Gemma 2" "$seqrep" info gemma
sed -i 's/, "use_qk_norm_everywhere": true//; s/"sliding_window": 4/"sliding_window": 0/' gemma/config.json
expect_error "a Gemma sliding window of 0" "gemma/config.json: 'sliding_window' is 0" "$seqrep" info gemma
sed -i 's/"sliding_window": 0/"sliding_window": 4, "hidden_activation": "relu"/' gemma/config.json
expect_error "a Gemma activation other than the tanh GELU" "gemma/config.json: 'hidden_activation' is not supported" \
    "$seqrep" info gemma
sed -i 's/, "hidden_activation": "relu"//' gemma/config.json
expect_ok "the same Gemma 2 config without them" "$seqrep" info gemma
grep -q "sliding_layers *\[0\]" out.txt && ok "Gemma 2 slides on its even layers" || bad "Gemma 2 slides on its even layers"

cp -r "$golden/llama3_rope" truncated
python3 - truncated/model-00002-of-00002.safetensors <<'PY'
import os, sys
path = sys.argv[1]
os.truncate(path, os.path.getsize(path) - 1000)
PY
expect_error "a BF16 shard truncated mid-tensor" \
    "truncated/model-00002-of-00002.safetensors: truncated: tensor '.*' ends at byte" "$seqrep" cost --model truncated --n 4 --r 0
cp -r "$golden/llama3_rope" mixed
python3 - mixed/model-00002-of-00002.safetensors <<'PY'
import sys
path = sys.argv[1]
raw = bytearray(open(path, "rb").read())
n = raw.count(b'"dtype":"BF16"')
assert n > 0
raw = raw.replace(b'"dtype":"BF16"', b'"dtype":"F16" ')  # same length, same bytes per element
open(path, "wb").write(bytes(raw))
PY
expect_error "a folder whose dtype differs between shards" \
    "mixed/model-00002-of-00002.safetensors: tensor '.*' has dtype F16, but the folder's other tensors have BF16" \
    "$seqrep" cost --model mixed --n 4 --r 0

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
