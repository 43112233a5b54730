#!/bin/sh
# e2e_sweep.sh — end-to-end runs of `seqrep sweep` and `seqrep collect` on a
# small generated task and a tiny language model: a sweep stopped after two
# runs and resumed, a sweep killed with SIGKILL and resumed (no row lost, none
# twice), `--plan` commands run by sh and merged by `collect` into the same
# rows, parallel jobs, conflicting duplicates, --save-models (each run's
# fine-tuned model kept, read by heads --adapter; runs done before without
# one kept or, with --redo-unsaved, run again), and bad inputs (exit 2 with
# one stderr line).
# Usage: sh tests/e2e/e2e_sweep.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# data_rows CSV: rows after the header
data_rows() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }

# keys CSV: "dataset,model,method,r,exit,seed" of every row, sorted
keys() { tail -n +2 "$1" | cut -d, -f1-6 | sort; }

# scores CSV: key and dev/test F1 of every row, sorted
scores() { tail -n +2 "$1" | cut -d, -f1-6,9,12 | sort; }

# ---- a small task and tiny models ----
"$seqrep" gen right-cue --out-dir data/tiny-rc --seed 3 --train 40 --dev 16 --test 16 --corpus 300 2>/dev/null
"$seqrep" train-lm --corpus data/tiny-rc/corpus.txt --out lm.safetensors --layers 2 --d-model 16 \
    --heads 2 --d-ff 32 --seq-len 48 --batch 4 --steps 15 --threads 1 --quiet >/dev/null 2>&1
"$seqrep" train-lm --corpus data/tiny-rc/corpus.txt --out mlm.safetensors --objective mlm --layers 2 \
    --d-model 16 --heads 2 --d-ff 32 --seq-len 48 --batch 4 --steps 15 --threads 1 --quiet >/dev/null 2>&1
if [ -s lm.safetensors ] && [ -s mlm.safetensors ]; then ok "setup: task and tiny models"; else bad "setup"; fi

grid="--data data/tiny-rc --model lm.safetensors --methods causal,sr --r 1 --seeds 1,2 --epochs 1 --threads 1"

# ---- help, plan ----
expect_status 0 "sweep --help" "$seqrep" sweep --help
expect_status 0 "collect --help" "$seqrep" collect --help
"$seqrep" sweep $grid --out plan/sweep.csv --plan >plan.txt 2>plan.err
if [ $? = 0 ] && [ "$(wc -l <plan.txt)" = 4 ] && [ "$(grep -c ' finetune ' plan.txt)" = 4 ] &&
   grep -q "4 to do" plan.err && [ -d plan/sweep.runs ]; then
    ok "sweep --plan prints one command per run (4)"
else
    bad "sweep --plan"; cat plan.txt plan.err
fi

# ---- a sweep stopped after 2 runs (deterministic interruption), then resumed ----
expect_status 0 "sweep --stop-after 2" "$seqrep" sweep $grid --out a/sweep.csv --stop-after 2
if [ "$(data_rows a/sweep.csv)" = 2 ]; then ok "stopped sweep kept its 2 rows"; else bad "stopped sweep rows: $(data_rows a/sweep.csv)"; fi
head -n 3 a/sweep.csv >first.csv
"$seqrep" sweep $grid --out a/sweep.csv --plan >rest.txt 2>/dev/null
if [ "$(wc -l <rest.txt)" = 2 ]; then ok "plan after the stop lists only the 2 missing runs"; else bad "plan after stop: $(wc -l <rest.txt) lines"; fi
expect_status 0 "resumed sweep (--jobs 2)" "$seqrep" sweep $grid --out a/sweep.csv --jobs 2
if [ "$(data_rows a/sweep.csv)" = 4 ] && [ "$(keys a/sweep.csv | uniq | wc -l)" = 4 ] &&
   [ "$(head -n 3 a/sweep.csv)" = "$(cat first.csv)" ]; then
    ok "resumed sweep: 4 distinct rows, the first 2 unchanged"
else
    bad "resumed sweep"; cat a/sweep.csv
fi
if grep -q "4 of 4 runs" out.txt; then ok "resume reports 4 of 4 runs"; else bad "resume report"; cat out.txt; fi
expect_status 0 "sweep again: nothing to do" "$seqrep" sweep $grid --out a/sweep.csv
if grep -q "0 to do" err.txt && [ "$(data_rows a/sweep.csv)" = 4 ]; then ok "finished sweep runs nothing"; else bad "finished sweep"; cat err.txt; fi
if [ -s a/sweep.md ] && grep -q "### tiny-rc" a/sweep.md && grep -q "| lm | sr | 1 | 2 | 2 |" a/sweep.md; then
    ok "summary: table per dataset, 2 seeds per method"
else
    bad "summary"; cat a/sweep.md
fi
if [ "$(ls a/sweep.runs/*.csv | wc -l)" = 4 ] && [ "$(ls a/sweep.runs/*.manifest.json | wc -l)" = 4 ] &&
   [ "$(ls a/sweep.runs/*.log | wc -l)" = 4 ]; then
    ok "runs dir: csv, manifest and log per run"
else
    bad "runs dir"; ls a/sweep.runs
fi
if [ "$(tail -n +2 a/sweep.csv | grep -c ',seqrep finetune --model lm.safetensors --train data/tiny-rc/train.conll ')" = 4 ]; then ok "command column"; else bad "command column"; fi

# ---- a sweep killed with SIGKILL mid-way, then resumed ----
"$seqrep" sweep $grid --out b/sweep.csv >/dev/null 2>&1 &
pid=$!
i=0
while [ "$(data_rows b/sweep.csv)" -lt 1 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
got=$(data_rows b/sweep.csv)
echo "     (killed with $got of 4 rows written)"
"$seqrep" sweep $grid --out b/sweep.csv >/dev/null 2>err.txt
if [ $? = 0 ] && [ "$(data_rows b/sweep.csv)" = 4 ] && [ "$(keys b/sweep.csv | uniq | wc -l)" = 4 ]; then
    ok "killed sweep resumed: 4 distinct rows, none lost"
else
    bad "killed sweep resumed"; cat err.txt b/sweep.csv
fi
if [ "$(scores b/sweep.csv)" = "$(scores a/sweep.csv)" ]; then ok "killed+resumed sweep = stopped+resumed sweep"; else bad "same scores"; fi

# ---- result files found in the runs dir are taken without running again ----
rm -f a/sweep.csv a/sweep.md
"$seqrep" sweep $grid --out a/sweep.csv >/dev/null 2>err.txt
if grep -q "4 of them found in a/sweep.runs" err.txt && [ "$(data_rows a/sweep.csv)" = 4 ]; then
    ok "lost sweep CSV rebuilt from the runs dir without running"
else
    bad "rebuild from runs dir"; cat err.txt
fi

# ---- --plan commands run by sh, merged by collect ----
sh plan.txt >/dev/null 2>sh.err
if [ $? = 0 ] && [ "$(ls plan/sweep.runs/*.csv | wc -l)" = 4 ]; then ok "plan commands run by sh"; else bad "plan by sh"; cat sh.err; fi
expect_status 0 "collect a runs directory" "$seqrep" collect plan/sweep.runs --out plan/collected.csv --summary plan/collected.md
if [ "$(data_rows plan/collected.csv)" = 4 ] && [ "$(scores plan/collected.csv)" = "$(scores a/sweep.csv)" ]; then
    ok "collect: the same 4 rows as the sweep"
else
    bad "collect rows"; cat plan/collected.csv a/sweep.csv
fi
if [ "$(keys plan/collected.csv)" = "$(keys a/sweep.csv)" ] && grep -q "± " plan/collected.md; then ok "collect summary"; else bad "collect summary"; fi
expect_status 0 "collect sweep CSVs and run files together" \
    "$seqrep" collect a/sweep.csv b/sweep.csv plan/sweep.runs/*.csv --out merged.csv
if [ "$(data_rows merged.csv)" = 4 ] && grep -q "8 duplicates" out.txt; then ok "collect drops duplicates"; else bad "collect duplicates"; cat out.txt; fi
# the plan's runs are now done: the sweep over the plan's CSV finds them
"$seqrep" sweep $grid --out plan/sweep.csv --plan >again.txt 2>/dev/null
if [ ! -s again.txt ]; then ok "plan after the plan ran: nothing left"; else bad "plan after run"; cat again.txt; fi

# ---- conflicting duplicates ----
one=$(ls plan/sweep.runs/*.csv | head -n 1)
mkdir -p conflict
cp "$one" conflict/run.csv
cp "${one%.csv}.manifest.json" conflict/run.manifest.json
awk -F, 'BEGIN{OFS=","} NR>1 && $5=="test" {$8 = ($8 > 50 ? $8 - 10 : $8 + 10)} {print}' "$one" >conflict/run.csv
expect_error "collect: conflicting duplicate names both files" "conflict/run.csv" \
    "$seqrep" collect plan/sweep.runs conflict --out bad.csv
if grep -q "$(basename "$one")" err.txt; then ok "conflict names the other file"; else bad "conflict message"; cat err.txt; fi
# a manifest whose sentence count is no whole number (a fuzz_sweep input)
mkdir -p huge
cp "$one" huge/run.csv
sed 's/"train_sentences":[[:space:]]*[0-9]*/"train_sentences": 1e300/' "${one%.csv}.manifest.json" >huge/run.manifest.json
expect_error "collect: train_sentences 1e300" "huge/run.manifest.json: needs model, train, command, train_sentences" \
    "$seqrep" collect huge --out bad.csv

# ---- --save-models: each run keeps its fine-tuned model ----
cp -r a s
"$seqrep" sweep $grid --out s/sweep.csv --save-models --plan >splan.txt 2>splan.err
if [ ! -s splan.txt ] && grep -q "4 runs done before have no saved model: kept" splan.err; then
    ok "--save-models on a sweep done without: the 4 runs kept, counted"
else
    bad "--save-models kept"; cat splan.txt splan.err
fi
"$seqrep" sweep $grid --out s/sweep.csv --save-models --redo-unsaved --plan >splan.txt 2>splan.err
if [ "$(wc -l <splan.txt)" = 4 ] &&
   [ "$(grep -c -- '--save s/sweep.runs/tiny-rc\.lm\.[a-z]*\.r[01]\.exit2\.seed[12]\.model\.safetensors --quiet$' splan.txt)" = 4 ]; then
    ok "--redo-unsaved --plan: the 4 runs again, each with --save beside its files"
else
    bad "--redo-unsaved plan"; cat splan.txt splan.err
fi
expect_status 0 "--save-models --redo-unsaved" "$seqrep" sweep $grid --out s/sweep.csv --save-models --redo-unsaved
if [ "$(ls s/sweep.runs/*.model.safetensors | wc -l)" = 4 ] && [ "$(scores s/sweep.csv)" = "$(scores a/sweep.csv)" ] &&
   [ "$(tail -n +2 s/sweep.csv | grep -c -- '--save s/sweep.runs/')" = 4 ]; then
    ok "redone runs: 4 saved models, the same scores, --save in each command"
else
    bad "redone runs"; ls s/sweep.runs; cat s/sweep.csv
fi
expect_status 0 "--redo-unsaved with every model saved" "$seqrep" sweep $grid --out s/sweep.csv --save-models --redo-unsaved
if grep -q "0 to do" err.txt && ! grep -q "no saved model" err.txt; then ok "nothing redone once saved"; else bad "redo once saved"; cat err.txt; fi
expect_status 0 "--save-models, paper recipe (LoRA)" "$seqrep" sweep $grid --recipe paper --out p/sweep.csv --save-models
saved=$(ls p/sweep.runs/*.sr.r1.*.model.safetensors | head -n 1)
expect_status 0 "heads --adapter reads a LoRA run's saved model" "$seqrep" heads --model lm.safetensors \
    --adapter "$saved" --data data/tiny-rc/test.conll --r 1 --threads 1 --out heads-lora.csv
"$seqrep" heads --model lm.safetensors --data data/tiny-rc/test.conll --r 1 --threads 1 --out heads-lm.csv >/dev/null 2>&1
if [ "$(wc -l <heads-lora.csv)" = 5 ] && ! cmp -s heads-lora.csv heads-lm.csv; then
    ok "heads with the adapters: 4 heads, other scores than the base model's"
else
    bad "heads with adapters"; cat heads-lora.csv heads-lm.csv
fi
expect_error "heads --adapter: a full-recipe save holds a head only" "adapters" "$seqrep" heads \
    --model lm.safetensors --adapter "$(ls s/sweep.runs/*.model.safetensors | head -n 1)" \
    --data data/tiny-rc/test.conll --out x.csv
expect_error "sweep: --redo-unsaved alone" "--redo-unsaved needs --save-models" \
    "$seqrep" sweep $grid --out s/sweep.csv --redo-unsaved

# ---- encoder and early exits ----
expect_status 0 "sweep with encoder and exits 1,0" "$seqrep" sweep --data data/tiny-rc --model lm.safetensors \
    --encoder-model mlm.safetensors --methods causal,encoder --exits 1,0 --seeds 7 --epochs 1 --threads 1 --out c/sweep.csv
if [ "$(data_rows c/sweep.csv)" = 4 ] && grep -q "^tiny-rc,mlm.safetensors,encoder,0,1,7," c/sweep.csv &&
   grep -q "^tiny-rc,lm.safetensors,causal,0,2,7," c/sweep.csv; then
    ok "encoder model and exit 0 resolved to the depth"
else
    bad "encoder/exits"; cat c/sweep.csv
fi

# ---- bad inputs ----
expect_error "sweep: missing --data" "missing required option --data" "$seqrep" sweep --model lm.safetensors --out x.csv
expect_error "sweep: unknown method" "unknown method 'nope'" "$seqrep" sweep $grid --methods causal,nope --out x.csv
expect_error "sweep: r = 0" "r >= 1" "$seqrep" sweep $grid --r 0,1 --out x.csv
expect_error "sweep: encoder without its model" "encoder model" "$seqrep" sweep $grid --methods encoder --out x.csv
expect_error "sweep: missing model" "nope.safetensors" "$seqrep" sweep --data data/tiny-rc --model nope.safetensors --out x.csv
expect_error "sweep: exit deeper than the model" "outside 1..2" "$seqrep" sweep $grid --exits 3 --out x.csv
expect_error "sweep: data dir without splits" "missing/train.conll" "$seqrep" sweep --data missing --model lm.safetensors --out x.csv
expect_error "sweep: sentence too long for r" "max_seq_len" "$seqrep" sweep $grid --r 8 --out x.csv
expect_error "sweep: other epochs than the CSV" "1 epochs" "$seqrep" sweep $grid --epochs 2 --out a/sweep.csv
expect_error "sweep: duplicate seed" "twice" "$seqrep" sweep $grid --seeds 1,1 --out x.csv
printf 'dataset,model\nx,y\n' >broken.csv
expect_error "sweep: broken CSV to resume" "missing column" "$seqrep" sweep $grid --out broken.csv
expect_error "collect: no inputs" "expects" "$seqrep" collect --out x.csv
expect_error "collect: missing file" "nothing.csv" "$seqrep" collect nothing.csv --out x.csv
expect_error "collect: not a result file" "neither" "$seqrep" collect data/tiny-rc/corpus.txt --out x.csv
if [ ! -e x.csv ]; then ok "no output after bad input"; else bad "x.csv written after bad input"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
