#!/bin/sh
# series_probe.sh — what each layer holds, at every snapshot of a series
# (issue 30): for each snapshot of SERIES_DIR/series.json (a pre-training's
# checkpoints, train-lm --snapshots, or a fine-tuning's epochs, finetune
# --save-epochs: their adapters on the base model), `seqrep probe` on the
# last copy at R repetitions (default 1) with TRAIN, DEV and TEST, into
#   SERIES_DIR/measures/probe/step-NNNNNN.csv (+ .manifest.json)
# (NNNNNN the step, or the epoch). A step whose CSV and manifest are both
# there is kept (the script resumes); `seqrep plot timeline --series
# SERIES_DIR --what probe [--split dev]` draws the result.
#
# Usage: sh examples/series_probe.sh BUILD_DIR SERIES_DIR TRAIN.conll DEV.conll TEST.conll [R]
# One thread per run (OMP_WAIT_POLICY=passive), one progress line per step.
set -eu
if [ $# -lt 5 ] || [ $# -gt 6 ]; then
    echo "usage: sh examples/series_probe.sh BUILD_DIR SERIES_DIR TRAIN.conll DEV.conll TEST.conll [R]" >&2
    exit 2
fi
seqrep="$1/seqrep"
series=$2
train=$3
dev=$4
test=$5
r=${6:-1}
[ -x "$seqrep" ] || { echo "series_probe: $seqrep not found; run make first" >&2; exit 2; }
for f in "$train" "$dev" "$test"; do [ -f "$f" ] || { echo "series_probe: $f not found" >&2; exit 2; }; done
case $r in '' | *[!0-9]*) echo "series_probe: R must be a whole number >= 0, got '$r'" >&2; exit 2 ;; esac
. "$(dirname "$0")/series_each.sh"
series_each "$seqrep" "$series" probe - probe --train "$train" --dev "$dev" --test "$test" --r "$r" --copies last \
    --threads 1 --quiet
