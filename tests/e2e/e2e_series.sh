#!/bin/sh
# e2e_series.sh — `seqrep series`: the snapshots of a series folder as the
# scripts read them (--list: what to load for each; --steps: each step's
# numbers), on made-up series (series.json and empty snapshot files: the
# command only looks for them), and bad input: one line naming the file or
# the option, exit 2.
#
# Usage: sh tests/e2e/e2e_series.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# ---- a pre-training's series: checkpoints ----
mkdir pre
printf '{"command": "seqrep train-lm", "steps": 20, "snapshots": [{"step": 0, "file": "step-000000.safetensors", "train_loss": null}, {"step": 10, "file": "step-000010.safetensors", "train_loss": 5.25}, {"step": 20, "file": "step-000020.safetensors", "train_loss": 4.123456789012345}]}\n' >pre/series.json
touch pre/step-000000.safetensors pre/step-000010.safetensors pre/step-000020.safetensors
expect_ok "--list of a pre-training" "$seqrep" series --list pre
check "... a line a snapshot: STEP MODEL -" test "$(cat out.txt)" = "0 pre/step-000000.safetensors -
10 pre/step-000010.safetensors -
20 pre/step-000020.safetensors -"
expect_ok "--steps of a pre-training" "$seqrep" series --steps pre
check "... the CSV: step,train_loss,dev_f1,test_f1, null and none empty, losses as series.json holds them" \
    test "$(cat out.txt)" = "step,train_loss,dev_f1,test_f1
0,,,
10,5.25,,
20,4.123456789012345,,"

# ---- a LoRA fine-tuning's epochs: adapters on the base model ----
mkdir lora
touch base.safetensors lora/epoch-0000.safetensors lora/epoch-0001.safetensors
printf '{"unit": "epoch", "model": "base.safetensors", "steps": 1, "snapshots": [{"step": 0, "file": "epoch-0000.safetensors", "train_loss": null, "epoch": 0, "dev_f1": 10.5, "test_f1": 9}, {"step": 1, "file": "epoch-0001.safetensors", "train_loss": 0.75, "epoch": 1, "dev_f1": 61.25, "test_f1": 58.5}]}\n' >lora/series.json
expect_ok "--list of a LoRA fine-tuning" "$seqrep" series --list lora
check "... STEP BASE ADAPTER" test "$(cat out.txt)" = "0 base.safetensors lora/epoch-0000.safetensors
1 base.safetensors lora/epoch-0001.safetensors"
expect_ok "--steps of a fine-tuning" "$seqrep" series --steps lora
check "... with each epoch's F1" test "$(sed -n 3p out.txt)" = "1,0.75,61.25,58.5"

# ---- a full fine-tuning's epochs: checkpoints ----
mkdir full
touch full/epoch-0000.safetensors
printf '{"unit": "epoch", "epoch_files": "model", "model": "gone.safetensors", "snapshots": [{"step": 0, "file": "epoch-0000.safetensors"}]}\n' >full/series.json
expect_ok "--list of a full fine-tuning" "$seqrep" series --list full
check "... each epoch a model, no adapter" test "$(cat out.txt)" = "0 full/epoch-0000.safetensors -"

# ---- --steps needs no snapshot file ----
mkdir nofiles
printf '{"snapshots": [{"step": 0, "train_loss": null}, {"step": 5, "train_loss": 6}]}\n' >nofiles/series.json
expect_ok "--steps without the snapshot files" "$seqrep" series --steps nofiles
check "... both steps" test "$(tail -n +2 out.txt | cut -d, -f1 | tr '\n' ' ')" = "0 5 "
expect_error "--list without them" "nofiles/series.json: snapshot 0: no step and file" "$seqrep" series --list nofiles

# ---- bad input: one line, exit 2 ----
expect_status 0 "--help" "$seqrep" series --help
check "... names both modes" sh -c 'grep -q -- "--list" out.txt && grep -q -- "--steps" out.txt'
expect_error "no option" "missing --list DIR or --steps DIR" "$seqrep" series
expect_error "both options" "give --list DIR or --steps DIR, not both" "$seqrep" series --list pre --steps pre
expect_error "an unknown option" "unknown option" "$seqrep" series --list pre --all
expect_error "no series.json" "nope/series.json: cannot open" "$seqrep" series --list nope
expect_error "... nor for --steps" "nope/series.json: cannot open" "$seqrep" series --steps nope
mkdir foreign && echo '{"x": 1}' >foreign/series.json
expect_error "not a series" "foreign/series.json: not a snapshot series (no \"snapshots\" list)" \
    "$seqrep" series --list foreign
mkdir garbled && echo '{"snapshots": [' >garbled/series.json
expect_error "not JSON" "garbled/series.json: not a snapshot series (not a JSON object)" "$seqrep" series --steps garbled
mkdir empty && echo '{"steps": 3, "snapshots": []}' >empty/series.json
expect_error "no snapshots (--list)" "empty/series.json: no snapshots" "$seqrep" series --list empty
expect_error "no snapshots (--steps)" "empty/series.json: no snapshots" "$seqrep" series --steps empty
rm pre/step-000010.safetensors
expect_error "a snapshot file gone" "pre/step-000010.safetensors (step 10 of pre/series.json) not found" \
    "$seqrep" series --list pre
check "... nothing on stdout" test ! -s out.txt
rm base.safetensors
expect_error "the base model of a LoRA series gone" \
    "lora/series.json: its base model (\"model\": base.safetensors) is not there" "$seqrep" series --list lora
mkdir falling && printf '{"snapshots": [{"step": 10, "file": "a"}, {"step": 5, "file": "b"}]}\n' >falling/series.json
expect_error "steps that do not rise" "falling/series.json: snapshot 1: step 5 after step 10 (steps must rise)" \
    "$seqrep" series --steps falling
mkdir hours && printf '{"unit": "hour", "snapshots": [{"step": 0}]}\n' >hours/series.json
expect_error "a unit of neither steps nor epochs" "hours/series.json: \"unit\" must be \"step\" or \"epoch\"" \
    "$seqrep" series --steps hours
mkdir badloss && printf '{"snapshots": [{"step": 0, "train_loss": "low"}]}\n' >badloss/series.json
expect_error "a loss that is no number" "badloss/series.json: snapshot 0: train_loss is neither a number nor null" \
    "$seqrep" series --steps badloss

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
