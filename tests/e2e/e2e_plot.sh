#!/bin/sh
# e2e_plot.sh — end-to-end runs of `seqrep plot`: every figure through the
# command line (PNG, SVG, PDF; numbers and manifest beside the figure), from
# the core (mask, proportion), from a tiny model trained here (attention,
# flow via attnflow) and from small result files (layers, exit, heads: TEST
# FIXTURES in the formats of seqrep probe, finetune and heads), plus one
# clear error per bad input (exit 2, one stderr line, nothing written).
# Usage: sh tests/e2e/e2e_plot.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks

# png_is W H FILE: the PNG's header says W x H
png_is() {
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
b = open(path, "rb").read(24)
ok = b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" and struct.unpack(">II", b[16:24]) == (w, h)
sys.exit(0 if ok else 1)
PY
}

# starts_with MAGIC FILE
starts_with() { [ -s "$2" ] && [ "$(head -c ${#1} "$2")" = "$1" ]; }

# outputs_ok STEM: numbers and manifest beside the figure, manifest names command and commit
outputs_ok() {
    [ -s "$1.csv" ] && [ -s "$1.manifest.json" ] &&
        grep -q '"command"' "$1.manifest.json" && grep -q '"git_commit"' "$1.manifest.json" &&
        ! ls "$1".*.tmp.* >/dev/null 2>&1
}

expect_ok "plot --help" "$seqrep" plot --help

# ---- mask and proportion, from the core ------------------------------------
for ext in png svg pdf; do
    expect_ok "mask .$ext" "$seqrep" plot mask --n 4 --r 2 --bos per-copy --out mask.$ext
done
check "mask PNG default size 1500x1150" png_is 1500 1150 mask.png
check "mask SVG is SVG" starts_with "<?xml" mask.svg
check "mask PDF is PDF" starts_with "%PDF-" mask.pdf
check "mask numbers and manifest" outputs_ok mask
check "mask numbers: 9 blocks" [ "$(tail -n +2 mask.csv | wc -l)" = 9 ]
expect_ok "mask small" "$seqrep" plot mask --n 6 --r 1 --sep token --size 640x480 --out small.png
check "mask PNG 640x480" png_is 640 480 small.png
expect_ok "mask dark" "$seqrep" plot mask --n 3 --r 3 --theme dark --out dark.png
expect_ok "mask with a sliding window" "$seqrep" plot mask --n 6 --r 2 --window 5 --out window.png
check "window mask: CSV blocks from the windowed mask" python3 -c '
import csv, json
rows = list(csv.DictReader(open("window.csv")))
kinds = {(r["query_copy"], r["key_copy"]): r["kind"] for r in rows}
assert kinds[("2", "0")] == "masked" and kinds[("2", "1")] == "other", kinds
assert int([r for r in rows if (r["query_copy"], r["key_copy"]) == ("2", "1")][0]["visible"]) == 10
assert json.load(open("window.manifest.json"))["window"] == 5
'
expect_error "window on a figure without masks" "--window does not apply to figure 'layers'" \
    "$seqrep" plot layers --results x.csv --window 4 --out x.png
expect_ok "proportion counted" "$seqrep" plot proportion --n 5 --r 0..8 --out prop.png
check "proportion numbers: 9 rows" [ "$(tail -n +2 prop.csv | wc -l)" = 9 ]
expect_ok "blocks CSV" "$seqrep" blocks --n 5 --r 0..6 --format csv --out blocks.csv
expect_ok "proportion from seqrep blocks" "$seqrep" plot proportion --results blocks.csv --out prop2.svg
check "proportion manifest has the input checksum" grep -q results_checksum prop2.manifest.json

# ---- attention and flow, from a tiny model --------------------------------
tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 48 --batch 4 --steps 20 --threads 2 --quiet"
"$seqrep" gen-text --out corpus.txt --sentences 300 --seed 3 >/dev/null 2>&1
expect_ok "train a tiny model" "$seqrep" train-lm --corpus corpus.txt --out m.safetensors $tiny --seed 5
sentence="the old sailor walked to the harbour ."
for ext in png svg pdf; do
    expect_ok "attention .$ext" "$seqrep" plot attention --model m.safetensors --text "$sentence" --r 1 --out att.$ext
done
check "attention PNG default size" png_is 1500 1300 att.png
check "attention numbers and manifest" outputs_ok att
check "attention manifest has the model checksum" grep -q model_checksum att.manifest.json
expect_ok "attention head, log scale, small" "$seqrep" plot attention --model m.safetensors --text "$sentence" \
    --r 2 --layer 0 --head 1 --scale log --size 800x700 --out att2.png
check "attention PNG 800x700" png_is 800 700 att2.png
expect_ok "attention overview, per-head" "$seqrep" plot attention --model m.safetensors --text "$sentence" \
    --overview --scale per-head --out overview.pdf
# a byte-pair model: the sentence is split into the pieces it was trained on
expect_ok "train a tiny byte-pair model" "$seqrep" train-lm --corpus corpus.txt --out bpe.safetensors \
    --tokenizer bpe --vocab-size 120 $tiny --steps 3
"$seqrep" plot attention --model m.safetensors --text "zorp quib flarn the" --out unk.png >out.txt 2>err.txt
if grep -q "seqrep plot: warning: 3 of the 4 tokens of the sentence are unknown to m.safetensors" err.txt &&
   grep -q "given with --text; 3 of its 4 tokens unknown to the model, drawn as <unk>" unk.manifest.json &&
   ! grep -q "unknown to" att.manifest.json; then
    ok "attention of unknown words: a warning and the caption say so (not for known words)"
else
    bad "attention of unknown words"; cat err.txt
fi
expect_ok "attention of a byte-pair model" "$seqrep" plot attention --model bpe.safetensors --text "the millers" \
    --r 0 --out bpe.png
check "its tokens are pieces, not unknown words" sh -c 'grep -q "\"##" bpe.csv && ! grep -q "<unk>" bpe.csv'
head -n 20 corpus.txt >sentences.txt
expect_ok "attnflow CSV" "$seqrep" attnflow --model m.safetensors --data sentences.txt --text --r 1 \
    --bos per-copy --threads 2 --out attnflow.csv
expect_ok "flow" "$seqrep" plot flow --results attnflow.csv --out flow.png
expect_ok "flow one head" "$seqrep" plot flow --results attnflow.csv --head 1 --out flow1.svg
check "flow: the figure's numbers carry the chance levels of attnflow's CSV, and its caption names them" python3 -c '
import csv, json
a = list(csv.DictReader(open("attnflow.csv")))
f = {r["layer"]: r for r in csv.DictReader(open("flow.csv"))}
cats = ("own_copy", "earlier_left", "same_word", "earlier_right", "sink")
for r in a:
    for c in cats:
        assert abs(float(r[c + "_chance"]) - float(f[r["layer"]][c + "_chance"])) < 1e-6, (r, c)
    assert abs(sum(float(r[c + "_chance"]) for c in cats) - 1) < 1e-5, r
assert "Thin outlined bar: the shares of a uniform head" in json.load(open("flow.manifest.json"))["caption"]
'
check "flow numbers: one row per layer" [ "$(tail -n +2 flow1.csv | wc -l)" = 2 ]

# ---- layers and exit, from result files (TEST FIXTURES) --------------------
cat >probe.csv <<'CSV'
r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold
0,0,last,test,40,40,40,1,1,1
0,1,last,test,52,52,52,1,1,1
0,2,last,test,55,55,55,1,1,1
1,0,last,test,44,44,44,1,1,1
1,1,last,test,58,58,58,1,1,1
1,2,last,test,63,63,63,1,1,1
1,0,first,test,40,40,40,1,1,1
1,1,first,test,50,50,50,1,1,1
1,2,first,test,54,54,54,1,1,1
CSV
sed 's/,test,\([0-9]*\),/,test,\1,/' probe.csv | awk -F, 'NR == 1 { print; next } { $7 = $7 + 2; print }' OFS=, >probe2.csv
cat >finetune.csv <<'CSV'
method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,tokens,seconds,flops
causal,0,1,1,test,40,40,40,1,1,1,5,5,100,1.0,1000
causal,0,2,1,test,50,50,50,1,1,1,5,5,100,2.0,2000
sr,1,1,1,test,45,45,45,1,1,1,5,5,200,2.1,2100
sr,1,2,1,test,61,61,61,1,1,1,5,5,200,4.2,4200
CSV
expect_ok "layers" "$seqrep" plot layers --results probe.csv,probe2.csv --baselines finetune.csv --out layers.png
check "layers numbers" grep -q "^probe,r = 1 last copy,1,last,2,64," layers.csv
expect_ok "exit flops" "$seqrep" plot exit --results finetune.csv --out exit.svg
check "exit numbers mark the Pareto front" grep -q "^sr,1,2,4200,2.1,61,0,1,1$" exit.csv
expect_ok "exit seconds" "$seqrep" plot exit --results finetune.csv --cost seconds --out exit_s.png
# a sweep CSV (one row per run, dev_f1 and test_f1) holding two datasets
printf 'dataset,method,r,exit,seed,dev_f1,test_f1,flops\na,causal,0,2,1,40,41,100\na,causal,0,2,2,42,43,100\na,sr,1,1,1,70,71,100\nb,causal,0,2,1,10,11,100\n' >sweep.csv
expect_error "exit of a sweep CSV with two datasets" "rows of datasets 'a' and 'b': choose one with --dataset" \
    "$seqrep" plot exit --results sweep.csv --out x.png
expect_ok "exit of one dataset of a sweep CSV" "$seqrep" plot exit --results sweep.csv --dataset a --out exit_sweep.png
check "sweep exit numbers: seeds averaged, causal the reference" \
    test "$(tail -n +2 exit_sweep.csv | cut -d, -f1-3,5,6,8 | tr '\n' ' ')" = "causal,0,2,1,42,2 sr,1,1,1,71,1 "
expect_error "unknown dataset" "no rows of dataset 'c'" "$seqrep" plot exit --results sweep.csv --dataset c --out x.png

# ---- heads, from a heads CSV (a TEST FIXTURE in the format of seqrep heads) --
# 3 layers x 4 heads; copy is 1 at layer 2, head 1 and 0 at layer 0, head 0
awk 'BEGIN {
    print "layer,head,copy,induction,previous,sink,own_copy"
    for (l = 0; l < 3; l++) for (h = 0; h < 4; h++) {
        copy = (l == 2 && h == 1) ? 1 : (l * 4 + h) / 20
        printf "%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f\n", l, h, copy, (12 - l * 4 - h) / 13, 0.05 * h, 0.9 - 0.2 * l, 0.5
    } }' >heads.csv
printf '{"command": "seqrep heads --model m.safetensors --random 24 --r 1 --out heads.csv", "model": "m.safetensors", "r": 1, "random_pieces": 24, "loss_first_copy": 5.5, "loss_last_copy": 2.25, "icl_score": 3.25}\n' \
    >heads.manifest.json
for ext in png svg pdf; do
    expect_ok "heads .$ext" "$seqrep" plot heads --results heads.csv --out heads_fig.$ext
done
check "heads PNG default size 2400x1000" png_is 2400 1000 heads_fig.png
check "heads SVG is SVG" starts_with "<?xml" heads_fig.svg
check "heads PDF is PDF" starts_with "%PDF-" heads_fig.pdf
check "heads numbers and manifest" outputs_ok heads_fig
check "heads numbers: one row per score, layer and head" [ "$(tail -n +2 heads_fig.csv | wc -l)" = 60 ]
check "heads numbers: the header" [ "$(head -n 1 heads_fig.csv)" = "score,layer,head,value,best" ]
check "heads numbers: copy's best head is layer 2, head 1" grep -qx "copy,2,1,1.000000,1" heads_fig.csv
check "heads numbers: one best head per score" [ "$(grep -c ',1$' heads_fig.csv)" = 5 ]
check "heads manifest holds the input's manifest" grep -q '"results_manifest"' heads_fig.manifest.json
check "heads caption names model, r and input" \
    grep -q 'Model m.safetensors, r = 1, input: random sequences of 24 pieces (in-context learning score 3.250' \
    heads_fig.manifest.json
expect_ok "heads --scores copy,induction, dark, 1280x720" "$seqrep" plot heads --results heads.csv \
    --scores copy,induction --theme dark --size 1280x720 --out heads_two.png
check "heads --scores: PNG 1280x720" png_is 1280 720 heads_two.png
check "heads --scores: two panels of numbers, copy first" \
    sh -c '[ "$(tail -n +2 heads_two.csv | wc -l)" = 24 ] && sed -n 2p heads_two.csv | grep -q "^copy,0,0," &&
           [ "$(cut -d, -f1 heads_two.csv | sort -u | tr "\n" " ")" = "copy induction score " ]'
check "heads --scores in the manifest" grep -q '"induction"' heads_two.manifest.json
rm heads.manifest.json
expect_ok "heads without a manifest beside the CSV" "$seqrep" plot heads --results heads.csv --scores sink --out heads_sink.png
check "its caption says so" grep -q "No manifest beside the file" heads_sink.manifest.json

# ---- bad input: one clear line, exit 2, nothing written --------------------
expect_error "unknown figure" "unknown figure 'pie'" "$seqrep" plot pie --out x.png
expect_error "no figure" "which figure" "$seqrep" plot --out x.png
expect_error "missing --out" "missing required option --out" "$seqrep" plot mask --n 3 --r 1
cut -d, -f1-15 finetune.csv >noflops.csv
expect_error "CSV missing a column" "noflops.csv: missing column 'flops'" \
    "$seqrep" plot exit --results noflops.csv --out x.png
expect_error "probe CSV missing a column" "blocks.csv: missing column 'layer'" \
    "$seqrep" plot layers --results blocks.csv --out x.png
expect_error "layer out of range" "layer 9 out of range 0..1" \
    "$seqrep" plot attention --model m.safetensors --text "$sentence" --layer 9 --out x.png
expect_error "head out of range" "head 7 out of range 0..1" \
    "$seqrep" plot attention --model m.safetensors --text "$sentence" --head 7 --out x.png
expect_error "flow head out of range" "head 5 out of range 0..1" \
    "$seqrep" plot flow --results attnflow.csv --head 5 --out x.png
expect_error "numbers would overwrite an input" "would overwrite the input attnflow.csv" \
    "$seqrep" plot flow --results attnflow.csv --out attnflow.png
check "the input is untouched" grep -q "^layer,head,own_copy" attnflow.csv
expect_error "unwritable output path" "no-such-dir/x.png: cannot write" \
    "$seqrep" plot mask --n 3 --r 1 --out no-such-dir/x.png
expect_error "unknown format" "unknown figure format '.gif'" "$seqrep" plot mask --n 3 --r 1 --out x.gif
expect_error "missing font" "font 'No Such Font Seqrep' is not installed" \
    "$seqrep" plot mask --n 3 --r 1 --font "No Such Font Seqrep" --out x.png
expect_error "option of another figure" "--model does not apply to figure 'mask'" \
    "$seqrep" plot mask --n 3 --r 1 --model m.safetensors --out x.png
expect_error "missing results file" "nothing.csv: cannot open" "$seqrep" plot flow --results nothing.csv --out x.png
expect_error "mask too large" "too many to draw" "$seqrep" plot mask --n 200 --r 5 --out x.png
expect_error "bad size" "--size must be" "$seqrep" plot mask --n 3 --r 1 --size big --out x.png
expect_error "heads without --results" "heads needs --results FILE" "$seqrep" plot heads --out x.png
expect_error "heads, unknown score" "--scores: unknown score 'bogus' (scores: copy, induction, previous, sink, own_copy)" \
    "$seqrep" plot heads --results heads.csv --scores copy,bogus --out x.png
expect_error "heads, a score twice" "--scores: 'sink' given twice" \
    "$seqrep" plot heads --results heads.csv --scores sink,copy,sink --out x.png
expect_error "--scores of another figure" "--scores does not apply to figure 'flow'" \
    "$seqrep" plot flow --results attnflow.csv --scores copy --out x.png
expect_error "heads numbers would overwrite the input" "would overwrite the input heads.csv" \
    "$seqrep" plot heads --results heads.csv --out heads.svg
check "... and wrote nothing" [ ! -e heads.svg ] && [ ! -e heads.manifest.json ] && head -n 1 heads.csv | grep -q "^layer,head,copy"
cut -d, -f1-6 heads.csv >heads_nocol.csv
expect_error "heads CSV missing a column" "heads_nocol.csv: missing column 'own_copy'" \
    "$seqrep" plot heads --results heads_nocol.csv --out x.png
expect_ok "... which --scores need not read" "$seqrep" plot heads --results heads_nocol.csv --scores previous,copy \
    --out heads_nocol_fig.png
sed '3s/^0,1,[^,]*,/0,1,zero,/' heads.csv >heads_word.csv
expect_error "heads CSV, not a number" "heads_word.csv:3: column 'copy': 'zero' is not a number" \
    "$seqrep" plot heads --results heads_word.csv --out x.png
sed '4s/,0.500000$/,1.200000/' heads.csv >heads_big.csv
expect_error "heads CSV, a value above 1" "heads_big.csv:4: column 'own_copy': 1.2 is outside 0..1" \
    "$seqrep" plot heads --results heads_big.csv --out x.png
{ cat heads.csv; sed -n 5p heads.csv; } >heads_twice.csv
expect_error "heads CSV, a head twice" "heads_twice.csv:14: layer 0, head 3 appears twice (first on line 5)" \
    "$seqrep" plot heads --results heads_twice.csv --out x.png
sed 7d heads.csv >heads_gap.csv
expect_error "heads CSV, a head missing" "heads_gap.csv: layer 1, head 1 is missing (3 layers x 4 heads in the file)" \
    "$seqrep" plot heads --results heads_gap.csv --out x.png
: >heads_empty.csv
expect_error "heads CSV, empty" "heads_empty.csv: empty file" "$seqrep" plot heads --results heads_empty.csv --out x.png
check "failures wrote nothing" [ ! -e x.png ] && [ ! -e x.csv ] && [ ! -e x.manifest.json ]
check "no temporary files left" [ -z "$(ls | grep '\.tmp\.')" ]

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
