#!/bin/sh
# e2e_perplexity.sh — `seqrep perplexity`: the held-out loss of a language
# model, checked against an independent PyTorch computation (when
# /usr/bin/python3 has torch), its JSON and manifest, and bad input.
# Usage: sh tests/e2e/e2e_perplexity.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 16 --batch 4 --steps 40 --threads 2 --quiet"
"$seqrep" gen-text --out corpus.txt --sentences 400 --seed 3 2>/dev/null
"$seqrep" gen-text --out heldout.txt --sentences 60 --seed 4 2>/dev/null
"$seqrep" train-lm --corpus corpus.txt --out m.safetensors $tiny --seed 5 2>/dev/null
"$seqrep" train-lm --corpus corpus.txt --out mlm.safetensors $tiny --seed 5 --objective mlm 2>/dev/null

expect_ok "perplexity of a causal LM" "$seqrep" perplexity m.safetensors --text heldout.txt --out p.json --threads 2
grep -q "next-token loss" out.txt && ok "it says what the loss is" || bad "it says what the loss is"
python3 - p.json <<'PY' && ok "JSON: perplexity = exp(loss), windows of the model's length" || bad "JSON: perplexity = exp(loss)"
import json, math, sys
p = json.load(open(sys.argv[1]))
assert p["objective"] == "causal-lm" and p["window"] == 16 and p["windows"] == (p["tokens"] - 1) // 16
assert abs(p["perplexity"] - math.exp(p["loss"])) < 1e-6 * p["perplexity"]
assert 1.0 < p["perplexity"] < 1000.0
PY
[ -s p.manifest.json ] && grep -q '"text_checksum"' p.manifest.json && ok "manifest with checksums" || bad "manifest with checksums"
expect_ok "perplexity of a masked LM" "$seqrep" perplexity mlm.safetensors --text heldout.txt --threads 2
grep -q "masked-token loss" out.txt && ok "a masked LM is scored on its hidden tokens" || bad "a masked LM is scored on its hidden tokens"
"$seqrep" perplexity m.safetensors --text heldout.txt --threads 1 --out p1.json >/dev/null 2>&1
python3 - p.json p1.json <<'PY' && ok "the same loss with 1 and 2 threads (to 1e-5)" || bad "the same loss with 1 and 2 threads"
import json, sys
a, b = (json.load(open(f))["loss"] for f in sys.argv[1:])
assert abs(a - b) <= 1e-5 * abs(a)
PY

# ---- against PyTorch: the same windows, the same mean loss ----
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
    /usr/bin/python3 - "$here/reference" m.safetensors heldout.txt p.json <<'PY' && ok "the loss equals PyTorch's (model_ref) on the same windows" || bad "the loss equals PyTorch's on the same windows"
import json, math, sys
import torch
sys.path.insert(0, sys.argv[1])
import model_ref
cfg, params, vocab, meta, other = model_ref.load_checkpoint(sys.argv[2])
index = {w: i for i, w in enumerate(vocab)}
stream = []
for line in open(sys.argv[3], encoding="utf-8"):
    words = line.split()  # gen-text writes lower-case words and punctuation apart
    stream += [2] + [index.get(w, 1) for w in words]  # <bos> before every line, <unk> = 1
T, B = cfg["max_seq_len"], 8
rows = [(stream[a:a + T], stream[a + 1:a + T + 1]) for a in range(0, len(stream) - T, T)]
total, batches = 0.0, 0
with torch.no_grad():
    for s in range(0, len(rows), B):
        chunk = rows[s:s + B]
        ids = torch.tensor([c[0] for c in chunk], dtype=torch.int32)
        tgt = torch.tensor([c[1] for c in chunk], dtype=torch.int32)
        n = ids.shape[0]
        lengths = torch.full((n,), T, dtype=torch.int32)
        positions = torch.arange(T, dtype=torch.int32).repeat(n, 1)
        L = cfg["n_layers"]
        logits = model_ref.forward(params, cfg, ids, lengths, positions, ["causal"] * L, ["rope"] * L)
        total += model_ref.lm_loss(logits, tgt).item()
        batches += 1
want = total / batches
got = json.load(open(sys.argv[4]))["loss"]
print("C %.6f, PyTorch %.6f" % (got, want))
sys.exit(0 if abs(got - want) <= 1e-4 * abs(want) else 1)
PY
else
    echo "skip the PyTorch comparison: /usr/bin/python3 has no torch (make golden installs python3-torch)"
fi

# ---- bad input ----
printf 'one two\n' >short.txt
expect_error "text shorter than a window" "fewer than one window" "$seqrep" perplexity m.safetensors --text short.txt
expect_error "missing text" "nothing.txt: cannot open" "$seqrep" perplexity m.safetensors --text nothing.txt
expect_error "missing model" "nothing.safetensors" "$seqrep" perplexity nothing.safetensors --text heldout.txt
expect_error "no model" "expects one checkpoint" "$seqrep" perplexity --text heldout.txt
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
