#!/bin/sh
# house_timelines.sh — the phase-change study of issue 29 in one command:
# the head roles of every snapshot of every trained house LM variant
# (examples/series_heads.sh, NLU++ dev sentences and random sequences, r = 1),
# the table results/house/snapshots.csv and results/md/house-snapshots.md
# (examples/house_snapshots.py, the steps of each series from seqrep series
# --steps), and the figures of docs/results.md section 8
# in docs/results/ (seqrep plot timeline; numbers and manifest beside each):
#   house-timeline-random50-copy.png      random50, copy score on random sequences
#   house-timeline-repeat50-induction.png repeat50, induction score on NLU++ dev
#   house-timeline-r50long-induction.png  r50long, induction score on NLU++ dev
# Resumable: a snapshot already measured is kept. A variant not trained here
# is left out (and its figure not drawn).
#
# Usage: sh examples/house_timelines.sh [BUILD_DIR]   (from the repository root;
#        NLU++ dev in results/data/nlupp, made by examples/house_grid.sh)
set -eu
[ -f examples/house_timelines.sh ] || { echo "house_timelines: run me from the repository root" >&2; exit 2; }
build=${1:-build-house}
house=${SEQREP_CACHE:-$HOME/.cache/seqrep}/house
dev=results/data/nlupp/dev.conll
[ -s "$dev" ] || { echo "house_timelines: no $dev (sh examples/house_grid.sh makes it)" >&2; exit 2; }
for v in $(awk -F, 'NR > 1 { print $1 }' results/house/variants.csv); do
    if [ -s "$house/$v/snapshots/series.json" ]; then
        echo "== $v"
        sh examples/series_heads.sh "$build" "$house/$v/snapshots" "$dev"
    else
        echo "house_timelines: variant $v has no snapshots here (make house HOUSE_VARIANT=$v): left out" >&2
    fi
done
python3 examples/house_snapshots.py --seqrep "$build/seqrep"
mkdir -p docs/results
# figure VARIANT MEASURE SCORE: one timeline into docs/results/
figure() {
    [ -s "$house/$1/snapshots/series.json" ] || return 0
    "$build/seqrep" plot timeline --series "$house/$1/snapshots" --measure "$2" --score "$3" \
        --out "docs/results/house-timeline-$1-$3.png"
}
figure random50 heads-random copy
figure repeat50 heads-data induction
figure r50long heads-data induction
