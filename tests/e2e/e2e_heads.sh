#!/bin/sh
# e2e_heads.sh — end-to-end runs of `seqrep heads` on a tiny model trained
# here: --data (CoNLL and --text) and --random runs, the CSV (header, one row
# per layer and head, every value in [0, 1], copy + sink + own_copy <= 1, the
# own_copy and sink columns equal to attnflow's where both measure the same
# thing), the manifest (counts and the ICL numbers), the same seed giving the
# same CSV, and one error line with exit 2 and nothing written for every bad
# input (r < 1, --random or --sequences < 1, a sentence or random length past
# the context, both or neither of --data and --random, options of the other
# mode, missing or unknown options, a tokenizer with only special tokens).
# --ablate-heads of heads, attnflow and plot attention: the head taken away
# after its own attention (its layer's rows as without, the next layer's
# changed), named in the report, manifests and caption; its bad values.
# Usage: sh tests/e2e/e2e_heads.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks   # plot heads draws text

"$seqrep" gen-text --out corpus.txt --sentences 300 --seed 3 2>/dev/null
expect_ok "train a tiny model" "$seqrep" train-lm --corpus corpus.txt --out m.safetensors --layers 2 \
    --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 4 --steps 20 --threads 2 --quiet
{
    printf -- '-DOCSTART- -X- O O\n\n'
    head -12 corpus.txt | awk '{ for (i = 1; i <= NF; i++) print $i "\tO"; print "" }'
} >data.conll
head -6 corpus.txt >data.txt

# check_csv FILE: the header, one row per (layer, head) of the 2 x 2 model,
# every value in [0, 1], and copy + sink + own_copy <= 1 (three disjoint keys
# sets when every copy opens with its <bos>)
check_csv() {
    python3 - "$1" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "layer,head,copy,induction,previous,sink,own_copy," \
    "copy_chance,induction_chance,previous_chance,sink_chance,own_copy_chance", lines[0]
rows = list(csv.DictReader(lines))
assert [(r["layer"], r["head"]) for r in rows] == [("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]
for r in rows:
    v = {k: float(r[k]) for k in ("copy", "induction", "previous", "sink", "own_copy")}
    assert all(0 <= x <= 1 for x in v.values()), v
    assert v["copy"] + v["sink"] + v["own_copy"] <= 1 + 1e-5, v
    assert v["own_copy"] > 0 and v["previous"] > 0, v
    assert all(len(r[k].split(".")[1]) == 6 for k in v), r
PY
}

# ---- --data ----
expect_ok "heads --help" "$seqrep" heads --help
check "--help says induction leaves out the last piece" grep -q "induction leaves out the last piece" out.txt
expect_ok "heads on CoNLL, r = 1" "$seqrep" heads --model m.safetensors --data data.conll --out h.csv --threads 2
check "the report names 12 sentences and bos per-copy" grep -q "r = 1 (k = 2 copies), bos per-copy, sep none, mask causal: 12 sentences" out.txt
check "the report has one line per head" test "$(grep -Ec '^ +[01] +[01] ' out.txt)" = 4
check "the report names the best head of each score" test "$(grep -Ec '^  (copy|induction|previous|sink|own_copy) +layer [01] head [01] ' out.txt)" = 5
check "CSV: header, 4 rows, values in [0, 1], copy + sink + own_copy <= 1" check_csv h.csv
check "manifest: data, r, counts, no ICL" python3 -c '
import json
m = json.load(open("h.manifest.json"))
assert m["data"] == "data.conll" and len(m["data_checksum"]) == 16 and len(m["model_checksum"]) == 16
assert m["r"] == 1 and m["sentences"] == 12 and m["bos"] == "per-copy" and m["mask"] == "causal"
assert m["last_copy_tokens"] - m["induction_tokens"] == 12, m
assert "icl_score" not in m
'
expect_ok "heads --text, r = 2, bos once" "$seqrep" heads --model m.safetensors --data data.txt --text --r 2 --bos once --out h2.csv
check "r = 2: 6 sentences" grep -q "r = 2 (k = 3 copies), bos once, sep none, mask causal: 6 sentences" out.txt
expect_ok "attnflow on the same input" "$seqrep" attnflow --model m.safetensors --data data.txt --text --r 2 --bos once --out f2.csv
check "own_copy and sink equal attnflow's (one <bos>: its sink is row 0)" python3 -c '
import csv
h, f = list(csv.DictReader(open("h2.csv"))), list(csv.DictReader(open("f2.csv")))
assert len(h) == len(f) == 4
for a, b in zip(h, f):
    assert a["own_copy"] == b["own_copy"] and a["sink"] == b["sink"], (a, b)
'
expect_ok "heads --max-sentences 3 --sep token --mask full" "$seqrep" heads --model m.safetensors --data data.conll \
    --max-sentences 3 --sep token --mask full --out h3.csv
check "3 sentences" grep -q "sep token, mask full: 3 sentences" out.txt
check "full mask: the CSV still holds probabilities" python3 -c '
import csv
for r in csv.DictReader(open("h3.csv")):
    assert all(0 <= float(r[k]) <= 1 for k in ("copy", "induction", "previous", "sink", "own_copy"))
'

# ---- chance levels, by hand ----
# sentences of one piece, r = 1, <bos> per copy: the last copy's one query
# (row 3 of B w B w) sees 4 keys, and copy (row 1), previous (row 2), sink
# (row 0) and own copy (row 3) each read one: 1/4; induction has no piece
# after the last: 0 over 0 queries; the report prints the chance line
head -4 corpus.txt | awk '{ print $1 }' >one.txt
expect_ok "heads on one-piece sentences" "$seqrep" heads --model m.safetensors --data one.txt --text --out one.csv
check "the report has a chance line per layer" test "$(grep -Ec '^ +[01] chance +25\.0% +0\.0% +25\.0% +25\.0% +25\.0%$' out.txt)" = 2
check "chance columns: 1/4 for copy, previous, sink, own copy on every row; induction 0" python3 -c '
import csv
rows = list(csv.DictReader(open("one.csv")))
assert len(rows) == 4
for r in rows:
    assert [r[k + "_chance"] for k in ("copy", "induction", "previous", "sink", "own_copy")] == \
        ["0.250000", "0.000000", "0.250000", "0.250000", "0.250000"], r
'
check "chance levels of the 12 sentences: one value per layer, the same on each head, below the own copy of 1" python3 -c '
import csv
rows = list(csv.DictReader(open("h.csv")))
for l in ("0", "1"):
    a, b = [r for r in rows if r["layer"] == l]
    assert all(a[k] == b[k] for k in a if k.endswith("_chance")), (a, b)
    assert 0 < float(a["copy_chance"]) < float(a["own_copy_chance"]) < 1
'

# ---- --random ----
expect_ok "heads --random 6 --sequences 20" "$seqrep" heads --model m.safetensors --random 6 --sequences 20 --seed 4 --out r.csv
check "the report names the random sequences" grep -q "on 20 random sequences of 6 pieces (seed 4)" out.txt
check "the report prints the ICL score" grep -Eq "^  icl score +-?[0-9]+\.[0-9]{4}  \(first - last\)" out.txt
check "random CSV: header, 4 rows, values in [0, 1]" check_csv r.csv
check "manifest: ICL losses, score = first - last, 20 x 5 tokens each" python3 -c '
import json
m = json.load(open("r.manifest.json"))
assert m["random_pieces"] == 6 and m["sequences"] == 20 and m["seed"] == 4 and "data" not in m
assert m["loss_first_copy_tokens"] == 100 and m["loss_last_copy_tokens"] == 100, m
assert m["loss_first_copy"] > 0 and m["loss_last_copy"] > 0
assert abs(m["icl_score"] - (m["loss_first_copy"] - m["loss_last_copy"])) < 1e-9
assert m["last_copy_tokens"] == 120 and m["induction_tokens"] == 100
'
expect_ok "plot heads of the random run" "$seqrep" plot heads --results r.csv --out r_fig.png
check "plot heads: the caption names the random input and its ICL score" \
    grep -q 'input: random sequences of 6 pieces (in-context learning score' r_fig.manifest.json
"$seqrep" heads --model m.safetensors --random 6 --sequences 20 --seed 4 --out r_again.csv >/dev/null 2>&1
check "the same seed gives the same CSV" cmp -s r.csv r_again.csv
"$seqrep" heads --model m.safetensors --random 6 --sequences 20 --seed 5 --out r_other.csv >/dev/null 2>&1
check "another seed gives another CSV" sh -c '! cmp -s r.csv r_other.csv'
expect_ok "heads --random 1: no ICL positions" "$seqrep" heads --model m.safetensors --random 1 --sequences 3 --out r1.csv
check "one piece: the ICL losses are null over 0 tokens" python3 -c '
import json
m = json.load(open("r1.manifest.json"))
assert m["loss_first_copy"] is None and m["icl_score"] is None and m["loss_first_copy_tokens"] == 0
assert m["induction_tokens"] == 0
'

# ---- --ablate-heads: heads, attnflow and plot attention with a head taken away ----
expect_ok "heads --ablate-heads 0.1" "$seqrep" heads --model m.safetensors --data data.conll --ablate-heads 0.1 --out ha.csv
check "the report names the head taken away" grep -q "mask causal, heads taken away 0.1: 12 sentences" out.txt
check "heads: manifest ablate_heads, none without it" python3 -c '
import json
assert json.load(open("ha.manifest.json"))["ablate_heads"] == "0.1"
assert json.load(open("h.manifest.json"))["ablate_heads"] == "none"
'
# a head's output is taken away after its own attention: layer 0's rows stay,
# layer 1 reads another residual stream
check "heads: layer 0 as without, layer 1 changed" python3 -c '
import csv
a, b = list(csv.DictReader(open("ha.csv"))), list(csv.DictReader(open("h.csv")))
assert a[:2] == b[:2] and a[2:] != b[2:], (a, b)
'
expect_ok "attnflow --ablate-heads 1.0,0.0" "$seqrep" attnflow --model m.safetensors --data data.txt --text --r 2 --bos once --ablate-heads 1.0,0.0 --out fa.csv
check "attnflow: manifest, layer 0 as without, layer 1 changed" python3 -c '
import csv, json
assert json.load(open("fa.manifest.json"))["ablate_heads"] == "1.0,0.0"
a, b = list(csv.DictReader(open("fa.csv"))), list(csv.DictReader(open("f2.csv")))
assert a[:2] == b[:2] and a[2:] != b[2:], (a, b)
'
att="plot attention --model m.safetensors --data data.conll --sentence 0 --r 1 --size 640x480"
expect_ok "plot attention, layer 1" "$seqrep" $att --layer 1 --out p1.png
expect_ok "plot attention --ablate-heads 0.1, layer 1" "$seqrep" $att --layer 1 --ablate-heads 0.1 --out pa1.png
expect_ok "plot attention, layer 0" "$seqrep" $att --layer 0 --out p0.png
expect_ok "plot attention --ablate-heads 0.1, layer 0" "$seqrep" $att --layer 0 --ablate-heads 0.1 --out pa0.png
check "plot attention: layer 0 as without, layer 1 changed" sh -c 'cmp -s p0.csv pa0.csv && ! cmp -s p1.csv pa1.csv'
check "plot attention: the manifest and caption name the head" python3 -c '
import json
m = json.load(open("pa1.manifest.json"))
assert m["ablate_heads"] == "0.1" and "Heads taken away (output zeroed before o_proj): 0.1." in m["caption"]
assert json.load(open("p1.manifest.json"))["ablate_heads"] == "none"
'

# ---- bad input: one line, exit 2, nothing written ----
head -3 corpus.txt | tr '\n' ' ' >long.txt; head -3 corpus.txt | tr '\n' ' ' >>long.txt; echo >>long.txt
expect_error "r = 0" "--r must be at least 1 (the scores look back" "$seqrep" heads --model m.safetensors --data data.conll --r 0 --out bad.csv
expect_error "--random 0" "--random must be at least 1" "$seqrep" heads --model m.safetensors --random 0 --out bad.csv
expect_error "--random negative" "--random must be at least 1" "$seqrep" heads --model m.safetensors --random -4 --out bad.csv
expect_error "--sequences 0" "--sequences must be at least 1" "$seqrep" heads --model m.safetensors --random 3 --sequences 0 --out bad.csv
expect_error "a sentence past the context names file and line" "long.txt:1: the sentence's" "$seqrep" heads --model m.safetensors --data long.txt --text --out bad.csv
{ head -1 corpus.txt; echo; cat long.txt; cat long.txt; } >later.txt
expect_error "a later sentence past the context: its line, and how many more" "later.txt:3: .* more than the model's 64 positions (heads skips no sentence; 1 more do not fit)" "$seqrep" heads --model m.safetensors --data later.txt --text --out bad.csv
expect_error "random pieces past the context" "--random 40: 40 pieces repeated k = 2 times make 82 tokens" "$seqrep" heads --model m.safetensors --random 40 --out bad.csv
expect_error "both --data and --random" "not both" "$seqrep" heads --model m.safetensors --data data.conll --random 3 --out bad.csv
expect_error "neither --data nor --random" "missing --data FILE or --random N" "$seqrep" heads --model m.safetensors --out bad.csv
expect_error "--text with --random" "--text goes with --data" "$seqrep" heads --model m.safetensors --random 3 --text --out bad.csv
expect_error "--seed with --data" "--seed goes with --random" "$seqrep" heads --model m.safetensors --data data.conll --seed 2 --out bad.csv
expect_error "missing --out" "missing required option --out" "$seqrep" heads --model m.safetensors --data data.conll
expect_error "missing --model" "missing required option --model" "$seqrep" heads --data data.conll --out bad.csv
expect_error "unknown option" "unknown option '--colour'" "$seqrep" heads --model m.safetensors --data data.conll --out bad.csv --colour
expect_error "missing data file" "nope.conll: cannot open" "$seqrep" heads --model m.safetensors --data nope.conll --out bad.csv
expect_error "bad --bos" "--bos must be" "$seqrep" heads --model m.safetensors --data data.conll --bos twice --out bad.csv
# a Hugging Face folder whose tokenizer holds two ids, both special
cp -r "$here/golden/hf/llama_tokenizer" nospecial
python3 - <<'PY'
import json
p = "nospecial/tokenizer.json"
d = json.load(open(p))
d["model"]["vocab"] = {"<|start|>": 0, "<|end|>": 1}
d["model"]["merges"] = []
d["added_tokens"] = [dict(d["added_tokens"][0], id=0), dict(d["added_tokens"][1], id=1)]
d["post_processor"]["special_tokens"]["<|start|>"]["ids"] = [0]
json.dump(d, open(p, "w"))
PY
expect_error "a tokenizer with only special ids" "nospecial: the tokenizer has no ids that are not special tokens" "$seqrep" heads --model nospecial --random 3 --out bad.csv
expect_error "heads --ablate-heads: layer out of range" "seqrep heads: --ablate-heads: '2.0': layer 2 is out of range 0..1" "$seqrep" heads --model m.safetensors --data data.conll --ablate-heads 2.0 --out bad.csv
expect_error "heads --ablate-heads: head out of range" "seqrep heads: --ablate-heads: '1.2': head 2 is out of range 0..1" "$seqrep" heads --model m.safetensors --data data.conll --ablate-heads 1.2 --out bad.csv
expect_error "attnflow --ablate-heads: not L.H" "seqrep attnflow: --ablate-heads: 'x' is not LAYER.HEAD" "$seqrep" attnflow --model m.safetensors --data data.conll --r 1 --ablate-heads 0.1,x --out bad.csv
expect_error "attnflow --ablate-heads: a head twice" "seqrep attnflow: --ablate-heads: '0.1' is named twice" "$seqrep" attnflow --model m.safetensors --data data.conll --r 1 --ablate-heads 0.1,1.0,0.1 --out bad.csv
expect_error "plot attention --ablate-heads: head out of range" "seqrep plot: --ablate-heads: '0.5': head 5 is out of range 0..1" "$seqrep" $att --ablate-heads 0.5 --out bad.png
check "no bad run wrote anything" sh -c '! ls bad.* >/dev/null 2>&1'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
