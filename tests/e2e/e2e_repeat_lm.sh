#!/bin/sh
# e2e_repeat_lm.sh — pre-training on repeated text and snapshots (issue 29):
# train-lm --repeat-share/--repeat-copies and --repeat-random at 0 give the
# tensors, settings and manifest keys of a run without them; on, they change
# the weights, reproducibly, and show in the manifest (info); a run with
# them killed after a save and resumed ends with the tensors of an
# uninterrupted one; --resume with one of them changed, added or left out is
# refused; every bad value is one line with exit 2; --snapshots writes the
# checkpoints of --snapshot-steps (or of the --save-every steps) and
# series.json, and a resumed run adds the missing ones to those it finds;
# examples/house.sh HOUSE_VARIANT=NAME (tiny sizes) trains the variant's
# causal LM alone into its own folder, with its snapshots and numbers, all in
# the cache; examples/house_record.sh records those numbers into a checkout.
# Usage: sh tests/e2e/e2e_repeat_lm.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

"$seqrep" gen-text --out corpus.txt --sentences 600 --seed 3 2>/dev/null
small="--corpus corpus.txt --layers 1 --d-model 16 --heads 2 --d-ff 32 --seq-len 32 --batch 4 --seed 7 --threads 1"

# manifest FILE KEY: a value of a checkpoint's manifest ("" when absent)
manifest() {
    "$seqrep" info "$1" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['manifest'].get('$2', ''))"
}

# manifest_keys FILE: the keys of a checkpoint's manifest but the time and command
manifest_keys() {
    "$seqrep" info "$1" --json | python3 -c "import json,sys; print(' '.join(k for k in json.load(sys.stdin)['manifest'] if k not in ('created', 'command', 'train_seconds')))"
}

# ---- at 0, the run without the options ----
expect_ok "a plain run" "$seqrep" train-lm $small --steps 30 --out plain.st --save-every 10 --quiet
expect_ok "--repeat-share 0 --repeat-random 0" "$seqrep" train-lm $small --steps 30 --out zero.st \
    --save-every 10 --repeat-share 0 --repeat-random 0 --quiet
check "at 0: the same tensors" same_tensors zero.st plain.st
check "at 0: the same training state" same_tensors zero.state.safetensors plain.state.safetensors
check "at 0: the same saved settings" test "$(meta zero.state.safetensors seqrep.settings)" = "$(meta plain.state.safetensors seqrep.settings)"
check "at 0: the same manifest keys" test "$(manifest_keys zero.st)" = "$(manifest_keys plain.st)"
"$seqrep" train-lm $small --steps 30 --out plain.st 2>plain_err.txt
"$seqrep" train-lm $small --steps 30 --out zero.st --repeat-share 0 2>zero_err.txt
# progress: the lines without speed, time, memory and the file's name
progress() {
    sed -e 's/ [0-9]* tok\/s.*//' -e 's/ in [0-9:]* (.*//' -e '/RSS/d' -e '/^saved /d' "$1"
}
check "at 0: the same progress lines" test "$(progress plain_err.txt)" = "$(progress zero_err.txt)"

# ---- on: other weights, the same on a second run, in the manifest ----
expect_ok "--repeat-share 0.25" "$seqrep" train-lm $small --steps 30 --out share.st --repeat-share 0.25
check "the repeated sentences are reported" grep -q "^repeated text: 142 of 567 training sentences written 2 times" err.txt
"$seqrep" train-lm $small --steps 30 --out share2.st --repeat-share 0.25 --quiet
if same_tensors share.st plain.st; then bad "--repeat-share: other weights than the plain run"; else ok "--repeat-share: other weights than the plain run"; fi
check "--repeat-share: the same weights on a second run" same_tensors share.st share2.st
check "manifest: repeat_share 0.25" test "$(manifest share.st repeat_share)" = 0.25
check "manifest: repeat_copies 2" test "$(manifest share.st repeat_copies)" = 2
check "manifest: 142 repeated sentences" test "$(manifest share.st repeated_sentences)" = 142
# 3 copies of 99% of the sentences need 42 tokens (the longest of them has 14)
expect_ok "--repeat-copies 3" "$seqrep" train-lm $small --seq-len 48 --steps 30 --out three.st --repeat-share 0.5 --repeat-copies 3 --quiet
check "manifest: repeat_copies 3" test "$(manifest three.st repeat_copies)" = 3
expect_ok "--repeat-random 0.5" "$seqrep" train-lm $small --steps 30 --out random.st --repeat-random 0.5
check "the random windows are reported" grep -q "^random windows: a share 0.5 of the windows repeats a random sequence of 8..32 pieces" err.txt
"$seqrep" train-lm $small --steps 30 --out random2.st --repeat-random 0.5 --quiet
check "--repeat-random: the same weights on a second run" same_tensors random.st random2.st
expect_ok "info shows the settings" "$seqrep" info random.st
check "info: repeat_random 0.5" grep -q "repeat_random *0.5" out.txt
"$seqrep" info three.st >info3.txt
check "info: repeat_share 0.5 and repeat_copies 3" sh -c 'grep -q "repeat_share *0.5" info3.txt && grep -q "repeat_copies *3" info3.txt'

# ---- killed after a save and resumed == uninterrupted, with both options ----
both="$small --steps 1500 --repeat-share 0.25 --repeat-copies 2 --repeat-random 0.25"
"$seqrep" train-lm $both --out ref.st --quiet --snapshots refsnaps --snapshot-steps 0,100,700..701,1500
"$seqrep" train-lm $both --out run.st --save-every 100 --quiet --snapshots snaps --snapshot-steps 0,100,700..701,1500 2>kill_err.txt &
pid=$!
i=0
while [ ! -f run.state.safetensors ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
sleep "0.$(awk 'BEGIN { srand(); printf "%02d", int(rand() * 30) }')"
kill -s KILL $pid 2>/dev/null
wait $pid 2>/dev/null
at=$(meta run.state.safetensors seqrep.step)
expect_ok "resume from step $at" "$seqrep" train-lm $both --out run.st --save-every 100 --resume --quiet \
    --snapshots snaps --snapshot-steps 0,100,700..701,1500
check "killed at step $at + resumed == uninterrupted" same_tensors run.st ref.st
for step in 000000 000100 000700 000701 001500; do
    check "snapshot $step: the uninterrupted run's" same_tensors snaps/step-$step.safetensors refsnaps/step-$step.safetensors
done
check "series.json after the resume lists the five snapshots" python3 -c "
import json, sys
s = json.load(open('snaps/series.json'))
sys.exit([e['step'] for e in s['snapshots']] != [0, 100, 700, 701, 1500] or ('--resume' in s['command']) != ($at < 1500))"
check "series.json: the losses of the uninterrupted run" python3 -c "
import json, sys
a, b = json.load(open('snaps/series.json')), json.load(open('refsnaps/series.json'))
sys.exit([e['train_loss'] for e in a['snapshots']] != [e['train_loss'] for e in b['snapshots']])"

# ---- --resume with a changed option is refused ----
wide="$small --seq-len 48"
"$seqrep" train-lm $wide --steps 20 --out saved.st --save-every 10 --repeat-share 0.25 --repeat-random 0.25 --quiet
for change in "--repeat-share 0.5:--repeat-share is 0.5 here but 0.25" \
              "--repeat-share 0.25 --repeat-copies 3 --repeat-random 0.25:--repeat-copies is 3 here but 2" \
              "--repeat-share 0.25 --repeat-random 0.5:--repeat-random is 0.5 here but 0.25" \
              "--repeat-random 0.25:--repeat-share is not given here but 0.25" \
              "--repeat-share 0.25:--repeat-random is not given here but 0.25"; do
    option=${change%%:*}
    expect_error "resume with $option" "${change#*:} in the saved run" \
        "$seqrep" train-lm $wide --steps 30 --out saved.st --resume $option
done
"$seqrep" train-lm $wide --steps 20 --out plainsaved.st --save-every 10 --quiet
expect_error "resume a plain run with --repeat-random" "--repeat-random is 0.25 here but not recorded in the saved run" \
    "$seqrep" train-lm $wide --steps 30 --out plainsaved.st --resume --repeat-random 0.25
expect_ok "resume with the same options" "$seqrep" train-lm $wide --steps 30 --out saved.st --resume \
    --repeat-share 0.25 --repeat-random 0.25 --quiet

# ---- bad input: one line, exit 2, nothing written ----
for value in 1 -0.1 1.5; do
    expect_error "--repeat-share $value" "--repeat-share must be in \[0, 1)" \
        "$seqrep" train-lm $small --out bad.st --repeat-share $value
    expect_error "--repeat-random $value" "--repeat-random must be in \[0, 1)" \
        "$seqrep" train-lm $small --out bad.st --repeat-random $value
done
expect_error "--repeat-copies 1" "--repeat-copies must be at least 2" \
    "$seqrep" train-lm $small --out bad.st --repeat-share 0.5 --repeat-copies 1
expect_error "--repeat-copies without --repeat-share" "--repeat-copies needs --repeat-share above 0" \
    "$seqrep" train-lm $small --out bad.st --repeat-copies 3
expect_error "--repeat-copies too many for the window" \
    "--repeat-copies 3: 99% of the training sentences of corpus.txt fit in --seq-len 32 only 2 times (the longest of them has 14 tokens" \
    "$seqrep" train-lm $small --out bad.st --repeat-share 0.5 --repeat-copies 3
expect_error "--repeat-random with mlm" "--repeat-random needs --objective causal" \
    "$seqrep" train-lm $small --out bad.st --repeat-random 0.5 --objective mlm
expect_error "--repeat-random with a short window" "--repeat-random needs --seq-len 17 or more" \
    "$seqrep" train-lm $small --out bad.st --repeat-random 0.5 --seq-len 16
expect_error "--snapshot-steps without --snapshots" "--snapshot-steps needs --snapshots DIR" \
    "$seqrep" train-lm $small --out bad.st --snapshot-steps 0,10
expect_error "--snapshots without steps" "--snapshots needs --snapshot-steps or --save-every" \
    "$seqrep" train-lm $small --out bad.st --snapshots badsnaps
expect_error "--snapshot-steps beyond --steps" "--snapshot-steps: step is too large in '31' (the run has 30 steps)" \
    "$seqrep" train-lm $small --steps 30 --out bad.st --snapshots badsnaps --snapshot-steps 0,31
expect_error "--snapshot-steps twice the same" "--snapshot-steps: 5 appears twice" \
    "$seqrep" train-lm $small --steps 30 --out bad.st --snapshots badsnaps --snapshot-steps 5,5
expect_error "--snapshot-steps not a list" "--snapshot-steps: expected STEP" \
    "$seqrep" train-lm $small --steps 30 --out bad.st --snapshots badsnaps --snapshot-steps 'ten'
: >afile
expect_error "--snapshots on a file" "--snapshots afile: not a folder" \
    "$seqrep" train-lm $small --steps 30 --out bad.st --snapshots afile --snapshot-steps 0 --quiet
mkdir damaged && echo '{"other": 1}' >damaged/series.json
expect_error "--snapshots with a series.json that is not one" "damaged/series.json: not a snapshot series" \
    "$seqrep" train-lm $small --steps 30 --out bad.st --snapshots damaged --snapshot-steps 0 --quiet
check "bad input: no checkpoint, no snapshot folder, series.json as it was" \
    sh -c 'test ! -e bad.st && test ! -e badsnaps && test "$(ls damaged)" = series.json && grep -q other damaged/series.json'

# ---- snapshots: the files, series.json, defaults ----
expect_ok "--snapshots with --snapshot-steps" "$seqrep" train-lm $small --steps 40 --out snap.st \
    --snapshots list --snapshot-steps 40,0,10..12
check "snapshots: the files of the steps" test "$(ls list | tr '\n' ' ')" = \
    "series.json step-000000.safetensors step-000010.safetensors step-000011.safetensors step-000012.safetensors step-000040.safetensors "
check "snapshots: the last is the final checkpoint" same_tensors list/step-000040.safetensors snap.st
check "series.json: steps, files, losses (null at 0), command, total" python3 -c "
import json, sys
s = json.load(open('list/series.json'))
e = s['snapshots']
ok = [x['step'] for x in e] == [0, 10, 11, 12, 40] and e[1]['file'] == 'step-000010.safetensors'
ok = ok and e[0]['train_loss'] is None and all(0 < x['train_loss'] < 10 for x in e[1:])
ok = ok and '--snapshot-steps 40,0,10..12' in s['command'] and s['steps'] == 40 and s['seed'] == 7
sys.exit(not ok)"
check "a snapshot's manifest names its step" test "$(manifest list/step-000011.safetensors snapshot_step)" = 11
check "a snapshot's manifest: saved at that step" test "$(manifest list/step-000011.safetensors saved_at_step)" = 11
"$seqrep" train-lm $small --steps 20 --out other.st --snapshots list20 --snapshot-steps 0 --quiet
check "step 0 is the initial weights (the same for another --steps)" same_tensors list20/step-000000.safetensors list/step-000000.safetensors
expect_ok "--snapshots with --save-every" "$seqrep" train-lm $small --steps 40 --out every.st --save-every 15 --snapshots every --quiet
check "by default the --save-every steps and the last" test "$(ls every | tr '\n' ' ')" = \
    "series.json step-000015.safetensors step-000030.safetensors step-000040.safetensors "
expect_ok "a resumed run at the end keeps the series" "$seqrep" train-lm $small --steps 40 --out every.st --resume --snapshots every
check "a resumed run notes no snapshot it is past when all are there" sh -c '! grep -q "note: snapshot" err.txt'
rm every/step-000015.safetensors
expect_ok "resumed with a snapshot missing" "$seqrep" train-lm $small --steps 40 --out every.st --resume --snapshots every
check "the missing one is noted" grep -q "note: snapshot step 15 is not in every, and a run resumed at step 40 cannot make it" err.txt

# ---- examples/house.sh HOUSE_VARIANT=NAME, tiny sizes on a small corpus ----
mkdir -p cache/english
"$seqrep" gen-text --out cache/english/train.txt --sentences 3000 --seed 3 2>/dev/null
"$seqrep" gen-text --out cache/english/heldout.txt --sentences 200 --seed 4 2>/dev/null
# house [VAR=VALUE...]: examples/house.sh at tiny sizes on that corpus, with the settings given
house() {
    env SEQREP_CACHE="$PWD/cache" HOUSE_LAYERS=1 HOUSE_D_MODEL=16 HOUSE_HEADS=2 HOUSE_D_FF=32 \
        HOUSE_SEQ_LEN=64 HOUSE_BATCH=4 HOUSE_STEPS=40 HOUSE_VOCAB=300 HOUSE_THREADS=1 \
        HOUSE_SNAPSHOT_EVERY=15 HOUSE_VARIANT= HOUSE_REPEAT_SHARE= HOUSE_REPEAT_COPIES= \
        HOUSE_REPEAT_RANDOM= "$@" sh "$here/../examples/house.sh" "$(dirname "$seqrep")"
}
expect_ok "house.sh: the house LMs" house
expect_ok "house.sh: HOUSE_VARIANT=repeat25" house HOUSE_VARIANT=repeat25
check "house.sh: only the variant's causal LM, in its folder" test "$(ls cache/house/repeat25 | tr '\n' ' ')" = \
    "causal.done causal.perplexity.json causal.perplexity.manifest.json causal.safetensors causal.state.safetensors snapshots weights.sha256 "
check "house.sh: the variant repeats a quarter of the sentences" test "$(manifest cache/house/repeat25/causal.safetensors repeat_share)" = 0.25
check "house.sh: snapshots at 0, every 15 steps and the last" test "$(ls cache/house/repeat25/snapshots | tr '\n' ' ')" = \
    "series.json step-000000.safetensors step-000015.safetensors step-000030.safetensors step-000040.safetensors "
check "house.sh: the variant's row, in the cache" grep -q "^repeat25,0.25,2,0,40,10240,.*,4,[0-9a-f]*$" cache/house/variants.csv
check "house.sh: the house LMs' numbers as they were" sh -c 'test "$(grep -c . cache/house/house.csv)" = 3 && ! grep -q repeat cache/house/house.csv'
check "house.sh: its tables beside them" test -s cache/house/house.md -a -s cache/house/house-runs.md -a -s cache/house/house-variants.md
expect_ok "house.sh: a variant repeating nothing" house HOUSE_VARIANT=plain HOUSE_REPEAT_SHARE=0
check "house.sh: ... has the house LM's weights" grep -q "the weights of .*cache/house/weights.sha256: yes" out.txt
expect_ok "house.sh: HOUSE_VARIANT=random25" house HOUSE_VARIANT=random25
expect_ok "house.sh: HOUSE_VARIANT=random25 again keeps its model" house HOUSE_VARIANT=random25
check "house.sh: ... said so" grep -q "random25/causal.safetensors is already trained" out.txt
check "house.sh: one row a variant" test "$(cut -d, -f1 cache/house/variants.csv | tr '\n' ' ')" = "variant repeat25 plain random25 "
check "house.sh: nothing written outside the cache" test ! -e results
expect_status 2 "house.sh: an unknown variant without settings" house HOUSE_VARIANT=other
expect_status 2 "house.sh: a named variant with other settings" house HOUSE_VARIANT=repeat25 HOUSE_REPEAT_SHARE=0.3
expect_status 2 "house.sh: a variant name that is no folder name" house HOUSE_VARIANT=../up HOUSE_REPEAT_SHARE=0.3

# ---- examples/house_record.sh (make house-record): the cache's numbers into a checkout ----
mkdir -p repo/examples repo/docs repo/results/house
for f in house_record.sh house_tables.sh fill_doc.sh; do cp "$here/../examples/$f" repo/examples/; done
# a checkout that has recorded variant random25 (another row) and old2 before, and one run of another machine
printf 'variant,repeat_share\nold2,0.1\nrandom25,9\n' >repo/results/house/variants.csv
printf 'date,cpu,isa,cores,trained,causal_train_s,mlm_train_s,wall_s,wall_from,same_weights\n2026-01-01,Other,avx2,2,causal+mlm,1,2,3,build,yes\n' \
    >repo/results/house/runs.csv
printf '# House\n<!-- BEGIN:house -->\nold\n<!-- END:house -->\ntext\n<!-- BEGIN:house-variants -->\n<!-- END:house-variants -->\n' \
    >repo/docs/house.md
record() { (cd repo && env SEQREP_CACHE="$work/cache" sh examples/house_record.sh) >out.txt 2>err.txt; }
record && ok "house_record: ran" || { bad "house_record"; cat err.txt; }
check "house_record: the house LMs' numbers and samples, the hash (none was there)" sh -c \
    'cmp -s cache/house/house.csv repo/results/house/house.csv && cmp -s cache/house/samples.txt repo/results/house/samples.txt &&
     cmp -s cache/house/weights.sha256 repo/results/house/weights.sha256'
check "house_record: variants kept in place, this cache's replacing theirs, new ones after" test \
    "$(cut -d, -f1,2 repo/results/house/variants.csv | tr '\n' ' ')" = "variant,repeat_share old2,0.1 random25,0 repeat25,0.25 plain,0 "
check "house_record: the other machine's run kept, this one's appended" test \
    "$(cut -d, -f2 repo/results/house/runs.csv | tr '\n' ' ')" = "cpu Other $(sed -n 2p cache/house/runs.csv | cut -d, -f2) "
check "house_record: the tables and docs/house.md" sh -c \
    'cmp -s cache/house/house.md repo/results/md/house.md && grep -q "^| causal | 1 | 16 |" repo/docs/house.md &&
     grep -q "^| repeat25 | 0.25 |" repo/docs/house.md && ! grep -q "^old$" repo/docs/house.md'
check "house_record: says what it changed" grep -q "recorded .*results/house/variants.csv.*docs/house.md" out.txt
record
check "house_record again: nothing new" grep -q "nothing new to record" out.txt
check "house_record again: no run twice" test "$(grep -c . repo/results/house/runs.csv)" = 3
sed 's/^./0/' repo/results/house/weights.sha256 >w.tmp && mv w.tmp repo/results/house/weights.sha256
cp repo/results/house/house.csv house.kept
record
check "house_record: other house LMs than the committed ones are not recorded, said in one line" sh -c \
    'cmp -s house.kept repo/results/house/house.csv && test "$(wc -l <err.txt)" = 1 && grep -q "not those of results/house/weights.sha256" err.txt'
expect_status 2 "house_record: an empty cache" env SEQREP_CACHE="$work/nothere" sh -c 'cd repo && sh examples/house_record.sh'
check "house_record: ... said in one line" sh -c 'test "$(wc -l <err.txt)" = 1 && grep -q "has no numbers to record" err.txt'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
