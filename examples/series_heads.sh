#!/bin/sh
# series_heads.sh — the head roles of every snapshot of a pre-training
# (issue 29): for each snapshot named in SERIES_DIR/series.json (written by
# `train-lm --snapshots DIR --snapshot-steps LIST`, or each epoch of
# `finetune --save-epochs DIR`, its adapters on the base model), `seqrep heads` on random
# sequences (--random 30 --r 1: the induction test, its manifest holds
# loss_first_copy, loss_last_copy and icl_score) into
#   SERIES_DIR/measures/heads-random/step-NNNNNN.csv (+ .manifest.json)
# and, when DATA.conll is given, on its sentences (--r 1) into
#   SERIES_DIR/measures/heads-data/step-NNNNNN.csv (+ .manifest.json).
# A step whose CSV and manifest are both there is kept (the script resumes);
# `seqrep plot timeline --series SERIES_DIR` draws the result.
#
# Usage: sh examples/series_heads.sh BUILD_DIR SERIES_DIR [DATA.conll]
# One thread per run (OMP_WAIT_POLICY=passive), one progress line per step.
# Runtime: a few seconds per snapshot of the house LM (4 layers, d 128).
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: sh examples/series_heads.sh BUILD_DIR SERIES_DIR [DATA.conll]" >&2
    exit 2
fi
build=$1
series=$2
data=${3:-}
seqrep="$build/seqrep"
[ -x "$seqrep" ] || { echo "series_heads: $seqrep not found; run make first" >&2; exit 2; }
[ -f "$series/series.json" ] || { echo "series_heads: $series/series.json not found (train-lm --snapshots)" >&2; exit 2; }
[ -z "$data" ] || [ -f "$data" ] || { echo "series_heads: $data not found" >&2; exit 2; }
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY

# "STEP MODEL ADAPTER" of every snapshot, in the order of the steps
# (`seqrep series --list`: a fine-tuning's epochs are adapters on its base)
steps=$("$seqrep" series --list "$series") || exit 2
total=$(echo "$steps" | wc -l)

# measure NAME STEP MODEL ADAPTER OPTIONS...: seqrep heads into measures/NAME/step-NNNNNN.csv unless done
measure() {
    name=$1; step=$2; model=$3; adapter=$4; shift 4
    out="$series/measures/$name/$(printf 'step-%06d' "$step").csv"
    if [ -s "$out" ] && [ -s "${out%.csv}.manifest.json" ]; then
        echo "  $name step $step: kept $out"
        return 0
    fi
    mkdir -p "$series/measures/$name"
    [ "$adapter" = - ] || set -- --adapter "$adapter" "$@"
    start=$(date +%s)
    "$seqrep" heads --model "$model" "$@" --r 1 --threads 1 --out "$out" >/dev/null
    echo "  $name step $step: $out in $(( $(date +%s) - start )) s"
}

i=0
echo "$steps" | while read -r step model adapter; do
    i=$((i + 1))
    echo "== snapshot $i of $total: step $step ($([ "$adapter" = - ] && echo "$model" || echo "$adapter"))"
    measure heads-random "$step" "$model" "$adapter" --random 30
    [ -z "$data" ] || measure heads-data "$step" "$model" "$adapter" --data "$data"
done
echo "done: $total snapshots measured into $series/measures"
