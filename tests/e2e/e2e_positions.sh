#!/bin/sh
# e2e_positions.sh — --copy-positions restart (every copy numbered from 0
# again) and induction (a later copy's piece i where the first copy's piece
# i + 1 is) beside the default run (positions run on across copies): blocks,
# probe, finetune, sweep, attnflow, plot attention and the explorer's
# command line.
# Usage: sh tests/e2e/e2e_positions.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks

tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 8 --steps 30 --threads 2 --quiet"
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"
"$seqrep" gen right-cue --out-dir task --seed 4 --train 60 --dev 20 --test 20 --corpus 300 2>/dev/null
"$seqrep" train-lm --corpus task/corpus.txt --out lm.st $tiny --seed 1 2>/dev/null

# ---- blocks: the mask does not depend on positions ----
expect_ok "blocks --copy-positions restart" "$seqrep" blocks --n 5 --r 0..4 --format csv --copy-positions restart
mv out.txt restart.csv
grep -q "mask is unchanged" err.txt && ok "blocks notes that the mask is unchanged" || bad "blocks notes that the mask is unchanged"
"$seqrep" blocks --n 5 --r 0..4 --format csv >run.csv 2>/dev/null
check "blocks: the same counts with restarted positions" cmp -s run.csv restart.csv
expect_error "blocks: bad --copy-positions" "copy-positions must be run, restart or induction" \
    "$seqrep" blocks --n 5 --r 1 --copy-positions again

# ---- probe: both numberings run; the manifest says which ----
expect_ok "probe --copy-positions restart" "$seqrep" probe --model lm.st $data --r 0,1 --out restart.probe.csv \
    --epochs 2 --copy-positions restart --threads 2
expect_ok "probe (positions run on)" "$seqrep" probe --model lm.st $data --r 0,1 --out run.probe.csv \
    --epochs 2 --threads 2
grep -q '"copy_positions":[[:space:]]*"restart"' restart.probe.manifest.json &&
    grep -q '"copy_positions":[[:space:]]*"run"' run.probe.manifest.json &&
    ok "probe manifests record the numbering" || bad "probe manifests record the numbering"
# r = 0 has one copy, so its rows are the same either way; r = 1 differs
grep '^0,' run.probe.csv >run0.txt
grep '^0,' restart.probe.csv >restart0.txt
check "probe: r = 0 (one copy) is unchanged by restart" cmp -s run0.txt restart0.txt
expect_error "probe: bad --copy-positions" "copy-positions must be run, restart or induction" \
    "$seqrep" probe --model lm.st $data --r 1 --out x.csv --copy-positions sometimes

# ---- finetune ----
expect_ok "finetune sr --copy-positions restart" "$seqrep" finetune --model lm.st $data --method sr --r 1 \
    --epochs 1 --copy-positions restart --out ft_restart.csv --threads 2 --quiet
grep -q '"copy_positions":[[:space:]]*"restart"' ft_restart.manifest.json && ok "finetune manifest records restart" ||
    bad "finetune manifest records restart"
expect_ok "finetune sr --copy-positions induction" "$seqrep" finetune --model lm.st $data --method sr --r 1 \
    --epochs 1 --copy-positions induction --out ft_induction.csv --threads 2 --quiet
grep -q '"copy_positions":[[:space:]]*"induction"' ft_induction.manifest.json && ok "finetune manifest records induction" ||
    bad "finetune manifest records induction"
expect_ok "sweep --plan --copy-positions run,restart,induction" "$seqrep" sweep --data task --model lm.st --methods causal,sr \
    --r 1 --seeds 3 --epochs 1 --copy-positions run,restart,induction --out sw.csv --plan
[ "$(wc -l <out.txt)" = 4 ] && grep -q -- "--copy-positions induction --out sw.runs/task.lm.st.sr.r1.exit2.seed3.induction.csv" out.txt \
    && ok "sweep: an induction run, its own file" || bad "sweep: an induction run, its own file"
expect_error "finetune: bad --copy-positions" "copy-positions must be run, restart or induction" \
    "$seqrep" finetune --model lm.st $data --method sr --r 1 --out x.csv --copy-positions never

# ---- attnflow and plot attention ----
expect_ok "attnflow --copy-positions restart" "$seqrep" attnflow --model lm.st --data task/test.conll --r 1 \
    --copy-positions restart --out flow.csv --threads 2
grep -q '"copy_positions":[[:space:]]*"restart"' flow.manifest.json && ok "attnflow manifest records restart" ||
    bad "attnflow manifest records restart"
expect_ok "plot attention --copy-positions restart" "$seqrep" plot attention --model lm.st --data task/test.conll \
    --r 2 --copy-positions restart --out att_restart.png
expect_ok "plot attention (positions run on)" "$seqrep" plot attention --model lm.st --data task/test.conll \
    --r 2 --out att_run.png
grep -q "positions restarting at 0 in every copy" att_restart.manifest.json &&
    ! grep -q "positions restarting" att_run.manifest.json &&
    ok "the caption says when positions restart" || bad "the caption says when positions restart"
cmp -s att_restart.csv att_run.csv && bad "restarted positions change the attention" ||
    ok "restarted positions change the attention"
expect_ok "plot attention --copy-positions induction" "$seqrep" plot attention --model lm.st --data task/test.conll \
    --r 2 --copy-positions induction --out att_induction.png
grep -q "positions induction-aligned" att_induction.manifest.json && ok "the caption says when positions are induction-aligned" ||
    bad "the caption says when positions are induction-aligned"
cmp -s att_induction.csv att_restart.csv || cmp -s att_induction.csv att_run.csv &&
    bad "induction-aligned positions: other attention" || ok "induction-aligned positions: other attention"
expect_error "plot mask takes no --copy-positions" "copy-positions" \
    "$seqrep" plot mask --n 4 --r 1 --copy-positions restart --out m.png

# ---- the explorer: its c command carries the numbering ----
printf 'the red fox\n' >one.txt
if SDL_VIDEODRIVER=dummy "$seqrep" explore --model lm.st --text "the red fox" --r 2 --copy-positions restart \
    --script "c q" --size 640x480 >explore.txt 2>&1; then
    grep -q -- "--copy-positions restart" explore.txt && ok "explore: c prints --copy-positions restart" ||
        { bad "explore: c prints --copy-positions restart"; cat explore.txt; }
else
    bad "explore --copy-positions restart"; cat explore.txt
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
