#!/bin/sh
# e2e_lora.sh — end-to-end runs of finetune with LoRA adapters and the
# paper's recipe (--recipe paper, --adapter lora, --lora-*, --grad-accum),
# the adapter file of --save / --load, every bad input of these options, and
# a sweep over two recipes; --ablate-heads of finetune, probe and sweep (in
# the manifests and commands, and its bad values). A tiny model on a small
# generated right-cue task.
# Usage: sh tests/e2e/e2e_lora.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 8 --steps 30 --threads 2 --quiet"
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"
ft="finetune --model lm.st $data --method sr --threads 2"

expect_status 0 "gen right-cue" "$seqrep" gen right-cue --out-dir task --seed 4 --train 60 --dev 20 --test 20 --corpus 300
expect_status 0 "train-lm" "$seqrep" train-lm --corpus task/corpus.txt --out lm.st $tiny --seed 1
expect_status 0 "train-lm, another seed" "$seqrep" train-lm --corpus task/corpus.txt --out lm2.st $tiny --seed 2
expect_status 0 "train-lm, 3 layers" "$seqrep" train-lm --corpus task/corpus.txt --out lm3.st --layers 3 --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 8 --steps 5 --threads 2 --quiet --seed 1
cp lm.st lm.before

# manifest_has FILE KEY=VALUE...: the manifest's values (JSON numbers compared
# as floats, rounded to 6 digits)
manifest_has() {
    python3 - "$@" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    got = m.get(k)
    if isinstance(got, (int, float)): ok = abs(got - float(v)) <= 1e-6 * max(1.0, abs(float(v)))
    else: ok = got == v
    if not ok: sys.exit("%s: %s is %r, wanted %r" % (sys.argv[1], k, got, v))
PY
}

# ---- --recipe paper ----
expect_ok "finetune --recipe paper" "$seqrep" $ft --recipe paper --epochs 2 --out paper.csv --save paper.st --predictions paper.pred
grep -q "recipe paper: adapter lora (rank 16, alpha 16, dropout 0.1), lr 0.0002, batch 8 x 4 per update, weight decay 0.05, 2 epochs" err.txt \
    && ok "paper recipe: its settings in the progress line" || bad "paper recipe: its settings in the progress line"
grep -q "^epoch 2/2 .* tok/s" err.txt && ok "paper recipe: progress lines" || bad "paper recipe: progress lines"
[ "$(head -n 1 paper.csv)" = "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,tokens,seconds,flops" ] \
    && [ "$(wc -l <paper.csv)" = 3 ] && ok "paper recipe: the CSV" || bad "paper recipe: the CSV"
manifest_has paper.manifest.json recipe=paper adapter=lora grad_accum=4 lora_targets=q,k,v,o \
    lora_rank=16 lora_alpha=16 lora_dropout=0.1 lr=2e-4 batch=8 weight_decay=0.05 dropout=0.1 epochs=2 \
    && ok "paper recipe: the manifest" || bad "paper recipe: the manifest"
cmp -s lm.st lm.before && ok "the model file is untouched" || bad "the model file is untouched"
ls paper.st.tmp* >/dev/null 2>&1 && bad "no temporary adapter file left" || ok "no temporary adapter file left"

# the adapter file: PEFT names and shapes, the metadata
python3 - paper.st <<'PY' && ok "--save: PEFT names, shapes and metadata" || bad "--save: PEFT names, shapes and metadata"
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
meta = h.pop("__metadata__")
assert meta["seqrep.adapter"] == "lora" and meta["lora_rank"] == "16" and meta["lora_alpha"] == "16"
assert meta["lora_targets"] == "q,k,v,o" and meta["exit_layer"] == "2" and meta["r"] == "1"
assert meta["method"] == "sr" and len(meta["base_model_checksum"]) == 16
labels = json.loads(meta["labels"])
assert labels[0] == "O" and len(labels) == 7, labels
for l in range(2):
    for t in "qkvo":
        p = "base_model.model.model.layers.%d.self_attn.%s_proj." % (l, t)
        assert h[p + "lora_A.weight"]["shape"] == [16, 32]
        assert h[p + "lora_B.weight"]["shape"] == [32, 16]
assert h["classifier.weight"]["shape"] == [7, 32] and h["classifier.bias"]["shape"] == [7]
assert len(h) == 2 * 4 * 2 + 2, sorted(h)
PY

# --load: the same base model goes on from the file; others are refused
expect_ok "--load into the same base" "$seqrep" $ft --recipe paper --epochs 1 --load paper.st --out load.csv --quiet
manifest_has load.manifest.json load=paper.st && ok "--load in the manifest" || bad "--load in the manifest"
expect_error "--load into another base model" "paper.st: made for another base model" "$seqrep" finetune --model lm2.st $data --method sr --recipe paper --epochs 1 --load paper.st --out x.csv
expect_error "--load into a deeper model" "paper.st: made for a base model of 2 layers" "$seqrep" finetune --model lm3.st $data --method sr --recipe paper --epochs 1 --load paper.st --out x.csv
expect_error "--load with another rank" "paper.st: LoRA rank 16" "$seqrep" $ft --recipe paper --lora-rank 8 --epochs 1 --load paper.st --out x.csv
expect_error "--load into a full run" "paper.st: holds adapters" "$seqrep" $ft --epochs 1 --load paper.st --out x.csv
expect_error "--load a missing file" "nope.st" "$seqrep" $ft --recipe paper --epochs 1 --load nope.st --out x.csv
expect_error "--load a model, not an adapter file" "lm.st: not a seqrep adapter file" "$seqrep" $ft --recipe paper --epochs 1 --load lm.st --out x.csv

# explicit options override the recipe; --adapter lora on the full recipe
expect_ok "paper with overrides" "$seqrep" $ft --recipe paper --epochs 1 --lora-rank 4 --lora-alpha 8 --lora-targets q,v --grad-accum 2 --lr 1e-3 --out over.csv --quiet
manifest_has over.manifest.json lora_rank=4 lora_alpha=8 lora_targets=q,v grad_accum=2 lr=1e-3 epochs=1 weight_decay=0.05 \
    && ok "overrides in the manifest" || bad "overrides in the manifest"
expect_ok "full recipe with --adapter lora" "$seqrep" $ft --adapter lora --epochs 1 --save full_lora.st --out fl.csv --quiet
manifest_has fl.manifest.json recipe=full+lora adapter=lora lora_rank=16 lr=2e-3 && ok "recipe label full+lora" || bad "recipe label full+lora"
expect_ok "--save without adapters" "$seqrep" $ft --epochs 1 --save head.st --out head.csv --quiet
python3 -c "
import json, struct, sys
b = open('head.st', 'rb').read(); h = json.loads(b[8:8 + struct.unpack('<Q', b[:8])[0]])
assert sorted(k for k in h if k != '__metadata__') == ['classifier.bias', 'classifier.weight']
assert h['__metadata__']['seqrep.adapter'] == 'none'" && ok "--save, full: the head only" || bad "--save, full: the head only"

# --recipe full is today's default, output for output
expect_ok "no --recipe" "$seqrep" $ft --epochs 2 --out plain.csv --predictions plain.pred --quiet
expect_ok "--recipe full" "$seqrep" $ft --recipe full --epochs 2 --out full.csv --predictions full.pred --quiet
[ "$(cut -d, -f1-14 plain.csv)" = "$(cut -d, -f1-14 full.csv)" ] && cmp -s plain.pred full.pred \
    && ok "--recipe full changes nothing" || bad "--recipe full changes nothing"
expect_ok "grad-accum 2 x batch 4" "$seqrep" $ft --epochs 1 --batch 4 --grad-accum 2 --out ga.csv --quiet

# ---- --ablate-heads: finetune (LoRA and full), probe and sweep with a head taken away ----
expect_ok "finetune --recipe paper --ablate-heads 1.0" "$seqrep" $ft --recipe paper --epochs 1 --ablate-heads 1.0 --out abl.csv --predictions abl.pred --quiet
expect_ok "the same without --ablate-heads" "$seqrep" $ft --recipe paper --epochs 1 --out nabl.csv --predictions nabl.pred --quiet
manifest_has abl.manifest.json ablate_heads=1.0 && manifest_has nabl.manifest.json ablate_heads=none \
    && ok "finetune: ablate_heads in the manifest" || bad "finetune: ablate_heads in the manifest"
[ "$(cut -d, -f1-13 abl.csv)" != "$(cut -d, -f1-13 nabl.csv)" ] || ! cmp -s abl.pred nabl.pred \
    && ok "finetune: a head taken away changes the run" || bad "finetune: a head taken away changes the run"
expect_ok "finetune, full recipe, two heads taken away" "$seqrep" $ft --epochs 1 --ablate-heads 0.1,1.1 --out ablf.csv --quiet
manifest_has ablf.manifest.json ablate_heads=0.1,1.1 && ok "full recipe: ablate_heads in the manifest" || bad "full recipe: ablate_heads in the manifest"
expect_ok "probe --ablate-heads 0.0" "$seqrep" probe --model lm.st $data --r 1 --epochs 2 --ablate-heads 0.0 --out pa.csv --quiet
expect_ok "probe without" "$seqrep" probe --model lm.st $data --r 1 --epochs 2 --out pn.csv --quiet
manifest_has pa.manifest.json ablate_heads=0.0 && ok "probe: ablate_heads in the manifest" || bad "probe: ablate_heads in the manifest"
# layer 0 (the embeddings) is read before any head; layers 1 and 2 after
[ "$(grep '^1,0,' pa.csv)" = "$(grep '^1,0,' pn.csv)" ] && ok "probe: layer 0 as without" || bad "probe: layer 0 as without"
expect_ok "sweep --plan --ablate-heads" "$seqrep" sweep --data task --model lm.st --methods causal,sr --r 1 --seeds 3 --epochs 1 --threads 2 --recipe paper --ablate-heads 1.1 --out swa.csv --plan
[ "$(grep -c -- '--ablate-heads 1.1 --out' out.txt)" = 2 ] && ok "sweep: every run's command takes the head away" || bad "sweep: every run's command takes the head away"
expect_ok "sweep --ablate-heads, one run" "$seqrep" sweep --data task --model lm.st --methods sr --r 1 --seeds 3 --epochs 1 --threads 2 --ablate-heads 1.1 --out swa.csv
expect_error "sweep: its CSV resumed without --ablate-heads" "swa.csv holds a run with --ablate-heads 1.1 (.*), this sweep asks for none" "$seqrep" sweep --data task --model lm.st --methods sr --r 1 --seeds 3 --epochs 1 --threads 2 --out swa.csv
expect_error "sweep: its CSV resumed with other heads" "this sweep asks for 0.1" "$seqrep" sweep --data task --model lm.st --methods sr --r 1 --seeds 3 --epochs 1 --threads 2 --ablate-heads 0.1 --out swa.csv
expect_error "finetune --ablate-heads: layer out of range" "seqrep finetune: --ablate-heads: '2.0': layer 2 is out of range 0..1" "$seqrep" $ft --ablate-heads 2.0 --out x.csv
expect_error "finetune --ablate-heads: head out of range" "seqrep finetune: --ablate-heads: '0.2': head 2 is out of range 0..1" "$seqrep" $ft --recipe paper --ablate-heads 0.2 --out x.csv
expect_error "finetune --ablate-heads: not L.H" "seqrep finetune: --ablate-heads: '1' is not LAYER.HEAD" "$seqrep" $ft --ablate-heads 1 --out x.csv
expect_error "finetune --ablate-heads: a head twice" "seqrep finetune: --ablate-heads: '1.1' is named twice" "$seqrep" $ft --ablate-heads 1.1,1.1 --out x.csv
expect_error "probe --ablate-heads: head out of range" "seqrep probe: --ablate-heads: '1.7': head 7 is out of range 0..1" "$seqrep" probe --model lm.st $data --ablate-heads 1.7 --out x.csv

# ---- bad input: exit 2, one line, nothing written ----
expect_error "--lora-rank 0" "lora-rank must be at least 1" "$seqrep" $ft --adapter lora --lora-rank 0 --out x.csv --save x.st
expect_error "--lora-rank > width" "lora-rank 64 is larger than the model's width 32" "$seqrep" $ft --adapter lora --lora-rank 64 --out x.csv --save x.st
expect_error "--grad-accum 0" "grad-accum must be at least 1" "$seqrep" $ft --grad-accum 0 --out x.csv
expect_error "--lora-targets gate" "lora-targets: .*got 'q,gate'" "$seqrep" $ft --adapter lora --lora-targets q,gate --out x.csv
expect_error "--lora-targets twice" "lora-targets: .*twice" "$seqrep" $ft --adapter lora --lora-targets q,q --out x.csv
expect_error "--adapter prefix" "adapter must be none or lora; got 'prefix'" "$seqrep" $ft --adapter prefix --out x.csv
expect_error "--lora-rank without --adapter lora" "lora-rank needs --adapter lora" "$seqrep" $ft --lora-rank 8 --out x.csv
expect_error "--lora-dropout with --adapter none" "lora-dropout needs --adapter lora" "$seqrep" $ft --recipe paper --adapter none --lora-dropout 0.2 --out x.csv
expect_error "--lora-dropout 1" "lora-dropout must be in" "$seqrep" $ft --adapter lora --lora-dropout 1 --out x.csv
expect_error "--recipe unknown" "recipe must be full or paper; got 'fast'" "$seqrep" $ft --recipe fast --out x.csv
[ -e x.csv ] || [ -e x.st ] && bad "no output after bad input" || ok "no output after bad input"

# ---- sweep over two recipes ----
sweep="sweep --data task --model lm.st --methods sr --r 1 --seeds 3 --epochs 1 --threads 2"
expect_ok "sweep --plan, two recipes" "$seqrep" $sweep --recipe full,paper --lora-rank 8 --out sw.csv --plan
[ "$(wc -l <out.txt)" = 2 ] && grep -q "seed3.predictions.conll --quiet$" out.txt && grep -q -- "--recipe paper --lora-rank 8 --out sw.runs/task.lm.st.sr.r1.exit2.seed3.paper.csv" out.txt \
    && ! grep "seed3.csv" out.txt | grep -q -- "--lora-rank" \
    && ok "sweep plan: recipe options only where they belong" || bad "sweep plan: recipe options only where they belong"
expect_ok "sweep, two recipes" "$seqrep" $sweep --recipe full,paper --out sw.csv
[ "$(head -n 1 sw.csv | cut -d, -f21-23)" = "recipe,positions,command" ] && [ "$(tail -n +2 sw.csv | cut -d, -f21 | sort | tr '\n' ' ')" = "full paper " ] \
    && ok "sweep CSV: one row per recipe" || bad "sweep CSV: one row per recipe"
grep -q "sr \[paper\]" sw.md && ok "sweep summary: the paper rows apart" || bad "sweep summary: the paper rows apart"
expect_ok "sweep again" "$seqrep" $sweep --recipe full,paper --out sw.csv
grep -q "2 done before" err.txt && ok "sweep resumes by recipe" || bad "sweep resumes by recipe"
# a sweep CSV from before recipes (no recipe column) is read as recipe full
cut -d, -f1-20,23- sw.csv | head -n 2 >old.csv
grep -q ",full," old.csv && bad "old CSV made" || ok "old CSV made"
expect_ok "old sweep CSV read" "$seqrep" $sweep --out old.csv --runs-dir sw.runs
grep -q "1 done before" err.txt && [ "$(head -n 1 old.csv | cut -d, -f21)" = "recipe" ] \
    && ok "old sweep CSV: its rows are recipe full" || bad "old sweep CSV: its rows are recipe full"
expect_error "sweep: --lora-rank without LoRA" "lora-rank needs --adapter lora" "$seqrep" $sweep --lora-rank 8 --out sw3.csv
expect_error "sweep: unknown recipe" "'fast' is not a recipe" "$seqrep" $sweep --recipe full,fast --out sw3.csv
expect_error "sweep: --adapter prefix" "adapter must be none or lora" "$seqrep" $sweep --adapter prefix --out sw3.csv
[ -e sw3.csv ] && bad "sweep: no output after bad input" || ok "sweep: no output after bad input"

# ---- --recompute: the same bits, recorded; what it cannot serve; the memory check ----
expect_ok "finetune --recompute" "$seqrep" $ft --recipe paper --epochs 2 --out rc.csv --save rc.st --recompute
cmp -s rc.st paper.st && ok "--recompute: the adapters and head bit for bit" || bad "--recompute: the adapters and head bit for bit"
grep -q "floor .* recomputed): " err.txt && ok "--recompute: the floor line says so" || bad "--recompute: the floor line says so"
python3 -c "import json,sys; m=json.load(open('rc.manifest.json')); sys.exit(m.get('recompute') is not True)" \
    && python3 -c "import json,sys; m=json.load(open('paper.manifest.json')); sys.exit(m.get('recompute') is not False)" \
    && ok "--recompute: in the manifest" || bad "--recompute: in the manifest"
expect_ok "train-lm --recompute" "$seqrep" train-lm --corpus task/corpus.txt --out lmr.st $tiny --seed 1 --recompute
same_tensors lm.before lmr.st && ok "train-lm --recompute: the weights bit for bit" || bad "train-lm --recompute: the weights bit for bit"
expect_ok "sweep --recompute --plan" "$seqrep" $sweep --recipe paper --out swr.csv --recompute --plan
grep -q -- "--threads 2 --recompute " out.txt && ok "sweep: --recompute passed to its runs" || bad "sweep: --recompute passed to its runs"
expect_error "--recompute at --exit 1" "recompute: only one layer runs (--exit 1)" "$seqrep" $ft --exit 1 --recompute --out x.csv
expect_error "train-lm --recompute, one layer" "recompute: the model has one layer" "$seqrep" train-lm --corpus task/corpus.txt --out x.st --layers 1 --d-model 32 --heads 2 --d-ff 64 --steps 2 --recompute
expect_error "train-lm: floor over the machine's memory" "needs at least .* GiB, more than the machine's memory allows .*; try --recompute or --batch below 4096" \
    "$seqrep" train-lm --corpus task/corpus.txt --out x.st --layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 2048 --batch 4096 --steps 2
expect_status 0 "train-lm, long positions, 8 heads" "$seqrep" train-lm --corpus task/corpus.txt --out long.st --layers 2 --d-model 64 --heads 8 --d-ff 64 --seq-len 1024 --batch 1 --steps 2 --threads 2 --quiet --seed 1
# ulimit -v: not under AddressSanitizer, whose shadow memory is far larger
if grep -qa __asan_init "$seqrep"; then  # the ASan runtime (linked statically)
    ok "finetune: floor over ulimit -v (skipped: AddressSanitizer build)"
    ok "finetune --recompute: floor still over (skipped: AddressSanitizer build)"
else
expect_error "finetune: floor over ulimit -v" "60 sequences x 861 tokens needs at least .* GiB, more than ulimit -v allows .*; try --recompute or --batch below 60" \
    sh -c 'ulimit -v 2000000 && exec "$@"' _ "$seqrep" finetune --model long.st $data --method sr --r 40 --batch 60 --epochs 1 --out x.csv
expect_error "finetune --recompute: floor still over" "needs at least .* GiB, more than ulimit -v allows .*; try --batch below 60" \
    sh -c 'ulimit -v 2000000 && exec "$@"' _ "$seqrep" finetune --model long.st $data --method sr --r 40 --batch 60 --epochs 1 --out x.csv --recompute
fi
[ -e x.csv ] || [ -e x.st ] && bad "no output after --recompute's bad input" || ok "no output after --recompute's bad input"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
