#!/bin/sh
# e2e_blocks.sh — end-to-end runs of `seqrep blocks` (the table, CSV and JSON
# outputs, the closed forms they print, one clear error per bad input) and of
# `seqrep attnflow` on a tiny model trained here.
# Usage: sh tests/e2e/e2e_blocks.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# ---- the readable table ----
expect_ok "blocks --help" "$seqrep" blocks --help
expect_ok "table n=5 r=0..8" "$seqrep" blocks --n 5 --r 0..8
check "table says every figure matches" grep -q "Every counted figure equals its closed form" out.txt
check "table has r=8 at 4/5 = 80%" grep -Eq "^ +8 +9 +45 +36 +9 +36 +0 +4/5 +80.0% +4/5 +80.0%" out.txt
check "table has r=1 at 1/3" grep -Eq "^ +1 +2 +10 +1 +2 +1 +0 +1/3 +33.3%" out.txt

# ---- CSV ----
expect_ok "csv r=0,1,2,4,8" "$seqrep" blocks --n 7 --r 0,1,2,4,8 --format csv
check "csv has a header and 5 rows" test "$(wc -l <out.txt)" = 6
check "csv header starts with n,r,k,T" grep -q "^n,r,k,T,bos,sep," out.txt
check "csv full shares 0, 1/3, 1/2, 2/3, 4/5" test "$(cut -d, -f12 out.txt | tr '\n' ' ')" = \
    "full_share 0 0.333333333 0.5 0.666666667 0.8 "
check "csv every row matches" test "$(grep -c ',true$' out.txt)" = 5

# ---- JSON, for every bos/sep option, parsed by python ----
for bos in none once per-copy; do
    for sep in none token; do
        expect_ok "json bos=$bos sep=$sep" "$seqrep" blocks --n 6 --r 0..16 --bos "$bos" --sep "$sep" --format json
        check "json bos=$bos sep=$sep parses and matches the closed forms" python3 -c '
import json, sys
from fractions import Fraction
rows = json.load(open("out.txt"))
assert len(rows) == 17, len(rows)
for i, o in enumerate(rows):
    n, r, k = o["n"], o["r"], o["k"]
    assert (n, r, k) == (6, i, i + 1)
    for key in ("full_blocks", "causal_blocks", "masked_blocks", "full_share", "full_share_closed_form"):
        assert key in o, key
    assert o["full_blocks"] == o["masked_blocks"] == k * (k - 1) // 2
    assert o["causal_blocks"] == k and o["other_blocks"] == 0
    assert Fraction(o["full_share_fraction"]) == Fraction(k - 1, k + 1)
    assert abs(o["full_share"] - o["full_share_closed_form"]) < 1e-12
    assert o["visible_pairs"] == o["T"] * (o["T"] + 1) // 2
    assert o["word_pairs"] == k * n * (k * n + 1) // 2
    assert o["seen_whole_counts"] == [1] + [n] * (k - 1)
    assert o["matches_closed_form"] is True
'
    done
done
check "json n_special for per-copy bos and sep at r=3" python3 -c '
import json
o = json.load(open("out.txt"))[3]
assert o["n_special"] == 4 + 3 and o["T"] == 4 * 6 + 7, o
'

# ---- --out writes the file and a manifest ----
expect_ok "--out" "$seqrep" blocks --n 4 --r 0..3 --format csv --out curve.csv
check "--out wrote the CSV" test "$(wc -l <curve.csv)" = 5
check "--out wrote the manifest" python3 -c 'import json; m = json.load(open("curve.manifest.json")); assert "blocks" in m["command"]'
check "--out printed nothing on stdout" test ! -s out.txt
check "--out left no temporary file" test -z "$(ls | grep '\.tmp\.')"

# ---- bad input: exit 2, one line on stderr ----
expect_error "n = 0" "--n must be at least 1" "$seqrep" blocks --n 0 --r 1
expect_error "n < 0" "--n must be at least 1" "$seqrep" blocks --n -3 --r 1
expect_error "n not a number" "--n expects an integer" "$seqrep" blocks --n five --r 1
expect_error "r < 0" "r must be >= 0" "$seqrep" blocks --n 5 --r -1
expect_error "backwards range" "backwards range" "$seqrep" blocks --n 5 --r 8..2
expect_error "r not a number" "expected R, A..B" "$seqrep" blocks --n 5 --r many
expect_error "missing --r" "missing required option --r" "$seqrep" blocks --n 5
expect_error "missing --n" "missing required option --n" "$seqrep" blocks --r 1
expect_error "mask too large" "more than the 256 MiB limit" "$seqrep" blocks --n 20000 --r 0
expect_error "range grows too large" "r = 16: a 17000 x 17000 mask" "$seqrep" blocks --n 1000 --r 0..20
expect_error "bad --bos" "--bos must be none, once or per-copy" "$seqrep" blocks --n 5 --r 1 --bos twice
expect_error "bad --sep" "--sep must be none or token" "$seqrep" blocks --n 5 --r 1 --sep comma
expect_error "bad --format" "--format must be table, csv or json" "$seqrep" blocks --n 5 --r 1 --format xml
expect_error "unknown option" "unknown option" "$seqrep" blocks --n 5 --r 1 --colour

# ---- attnflow on a tiny trained model ----
"$seqrep" gen-text --out corpus.txt --sentences 300 --seed 3 2>/dev/null
expect_ok "train a tiny model" "$seqrep" train-lm --corpus corpus.txt --out m.safetensors --layers 2 \
    --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 4 --steps 20 --threads 2 --quiet
{
    printf -- '-DOCSTART- -X- O O\n\n'
    head -12 corpus.txt | awk '{ for (i = 1; i <= NF; i++) print $i "\tO"; print "" }'
} >data.conll
head -6 corpus.txt >data.txt
expect_ok "attnflow --help" "$seqrep" attnflow --help
expect_ok "attnflow conll r=2" "$seqrep" attnflow --model m.safetensors --data data.conll --r 2 --bos none --out flow.csv
check "attnflow table names 12 sentences" grep -q "12 sentences" out.txt
check "attnflow table has one line per head" test "$(grep -Ec '^ +[01] +[01] ' out.txt)" = 4
check "attnflow CSV: header, one line per (layer, head), shares sum to 1, no sinks without specials" python3 -c '
import csv
rows = list(csv.DictReader(open("flow.csv")))
cats = ["own_copy", "earlier_left", "same_word", "earlier_right", "sink"]
assert list(rows[0].keys()) == ["layer", "head"] + cats + [c + "_chance" for c in cats]
assert [(r["layer"], r["head"]) for r in rows] == [("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]
for r in rows:
    shares = [float(r[k]) for k in ("own_copy", "earlier_left", "same_word", "earlier_right", "sink")]
    assert abs(sum(shares) - 1) < 1e-5, shares
    assert float(r["sink"]) == 0 and float(r["earlier_right"]) > 0
'
check "attnflow table: a chance line per layer" test "$(grep -Ec '^ +[01] chance ' out.txt)" = 2
# chance levels by hand: sentences of one piece each, r = 2, no <bos>: the
# last copy's one query sees 3 keys (its own piece and the same piece twice
# before): own copy 1/3, same word 2/3, under the causal and the full mask;
# with a <bos> per copy and r = 1 it sees B w B w: sink 2/4, same 1/4, own 1/4
head -4 corpus.txt | awk '{ print $1 }' >one.txt
for case in "causal none 2 0.333333 0.000000 0.666667 0.000000 0.000000" \
            "full none 2 0.333333 0.000000 0.666667 0.000000 0.000000" \
            "causal per-copy 1 0.250000 0.000000 0.250000 0.000000 0.500000"; do
    set -- $case
    expect_ok "attnflow on one-piece sentences, mask $1, bos $2, r = $3" "$seqrep" attnflow --model m.safetensors \
        --data one.txt --text --r "$3" --bos "$2" --mask "$1" --out one.csv
    check "... chance levels $4 $5 $6 $7 $8 on every row (one query of one piece each)" python3 - "$@" <<'PY'
import csv, json, sys
want = sys.argv[4:9]
m = json.load(open("one.manifest.json"))
assert m["last_copy_tokens"] == m["sentences"] == 4, m
for r in csv.DictReader(open("one.csv")):
    got = [r[c + "_chance"] for c in ("own_copy", "earlier_left", "same_word", "earlier_right", "sink")]
    assert got == want, (got, want)
PY
done
check "attnflow manifest" python3 -c '
import json
m = json.load(open("flow.manifest.json"))
assert m["r"] == 2 and m["sentences"] == 12 and len(m["model_checksum"]) == 16
'
expect_ok "attnflow --text, per-copy bos, sep" "$seqrep" attnflow --model m.safetensors --data data.txt --text \
    --r 1 --bos per-copy --sep token --out flow2.csv
check "attnflow with specials has sink attention" python3 -c '
import csv
rows = list(csv.DictReader(open("flow2.csv")))
assert len(rows) == 4 and all(float(r["sink"]) > 0 for r in rows)
'
expect_error "attnflow r < 0" "--r must be at least 0" "$seqrep" attnflow --model m.safetensors --data data.txt --r -1
expect_error "attnflow missing data" "nope.conll: cannot open" "$seqrep" attnflow --model m.safetensors --data nope.conll --r 1
expect_error "attnflow missing model" "nope.safetensors" "$seqrep" attnflow --model nope.safetensors --data data.txt --r 1
expect_error "attnflow bad --bos" "--bos must be" "$seqrep" attnflow --model m.safetensors --data data.txt --r 1 --bos twice
expect_error "attnflow bad --mask" "--mask must be" "$seqrep" attnflow --model m.safetensors --data data.txt --r 1 --mask 9
expect_error "attnflow r too large for the model" "no sentence fits" "$seqrep" attnflow --model m.safetensors --data data.txt --text --r 40 --bos none

# ---- a sliding window (Mistral, Gemma 2 and 3): what it leaves of the last copy's right context ----
expect_ok "window 5 shorter than a copy" "$seqrep" blocks --n 6 --r 1..3 --window 5
check "window: the closed forms of the tables are not claimed" grep -q "hold without a window" out.txt
check "window 5 of n 6: 10 of 15 pairs, by count and closed form" grep -Eq "^ +2 +10 +10 +66.7%$" out.txt
check "window: the counted right context equals its closed form" grep -q "Every counted figure equals its closed form" out.txt
expect_ok "window of a whole copy and a sep" "$seqrep" blocks --n 6 --r 1 --sep token --window 7 --format csv
check "window 7 with a <sep>: all 15 pairs" python3 -c '
import csv
r = list(csv.DictReader(open("out.txt")))[0]
assert (r["window"], r["last_right_seen"], r["last_right_seen_closed_form"], r["matches_closed_form"]) == ("7", "15", "15", "true"), r
'
expect_ok "no window: the whole right context" "$seqrep" blocks --n 6 --r 1 --format json
check "json: last_right_seen 15 without a window" python3 -c '
import json
r = json.load(open("out.txt"))[0]
assert r["window"] == 0 and r["last_right_seen"] == 15 == r["last_right_seen_closed_form"], r
'
expect_error "window of 0" "--window must be at least 1" "$seqrep" blocks --n 6 --r 1 --window 0

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
