#!/bin/sh
# series_flow.sh — where the last copy attends, at every snapshot of a
# series (issue 30): for each snapshot of SERIES_DIR/series.json (a
# pre-training's checkpoints, train-lm --snapshots, or a fine-tuning's
# epochs, finetune --save-epochs: their adapters on the base model),
# `seqrep attnflow` on the sentences of DATA.conll repeated R times (default
# 1), with CUES (a task: right-cue, left-cue, last-word) also the attention of
# every ambiguous entity word on its cue word (attnflow --cues), into
#   SERIES_DIR/measures/flow/step-NNNNNN.csv (+ .manifest.json)
# (NNNNNN the step, or the epoch). A step whose CSV and manifest are both
# there is kept (the script resumes); `seqrep plot timeline --series
# SERIES_DIR --what flow --score earlier_right` draws the result (--score
# cue or non_cue after a run with CUES).
#
# Usage: sh examples/series_flow.sh BUILD_DIR SERIES_DIR DATA.conll [R [CUES]]
# One thread per run (OMP_WAIT_POLICY=passive), one progress line per step.
set -eu
if [ $# -lt 3 ] || [ $# -gt 5 ]; then
    echo "usage: sh examples/series_flow.sh BUILD_DIR SERIES_DIR DATA.conll [R [CUES]]" >&2
    exit 2
fi
seqrep="$1/seqrep"
series=$2
data=$3
r=${4:-1}
cues=${5:-}
[ -x "$seqrep" ] || { echo "series_flow: $seqrep not found; run make first" >&2; exit 2; }
[ -f "$data" ] || { echo "series_flow: $data not found" >&2; exit 2; }
case $r in '' | *[!0-9]* | 0) echo "series_flow: R must be a whole number >= 1, got '$r'" >&2; exit 2 ;; esac
. "$(dirname "$0")/series_each.sh"
if [ -n "$cues" ]; then
    series_each "$seqrep" "$series" flow cue attnflow --data "$data" --r "$r" --threads 1 --cues "$cues"
else
    series_each "$seqrep" "$series" flow - attnflow --data "$data" --r "$r" --threads 1
fi
