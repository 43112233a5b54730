#!/bin/sh
# series_each.sh — what series_flow.sh and series_probe.sh share (sourced,
# not run): one seqrep command on every snapshot of a series.
#
#   series_each SEQREP SERIES NAME COLUMN COMMAND [OPTIONS...]
# runs `SEQREP COMMAND --model MODEL [--adapter ADAPTER] OPTIONS --out
# SERIES/measures/NAME/step-NNNNNN.csv` for every snapshot of
# SERIES/series.json (`seqrep series --list SERIES`: a fine-tuning's epochs
# are adapters on its base), one progress line each. A step whose CSV and
# manifest are there (and, COLUMN other than -, whose CSV header has that
# column) is kept: the scripts resume.

series_each() {
    each_seqrep=$1 each_series=$2 each_name=$3 each_column=$4 each_command=$5
    shift 5
    each_steps=$("$each_seqrep" series --list "$each_series") || exit 2
    each_total=$(echo "$each_steps" | wc -l)
    mkdir -p "$each_series/measures/$each_name"
    OMP_WAIT_POLICY=passive
    export OMP_WAIT_POLICY
    i=0
    echo "$each_steps" | while read -r step model adapter; do
        i=$((i + 1))
        out="$each_series/measures/$each_name/$(printf 'step-%06d' "$step").csv"
        if [ -s "$out" ] && [ -s "${out%.csv}.manifest.json" ] &&
            { [ "$each_column" = - ] || head -1 "$out" | tr ',' '\n' | grep -qx "$each_column"; }; then
            echo "== $i of $each_total: step $step: kept $out"
            continue
        fi
        start=$(date +%s)
        if [ "$adapter" = - ]; then
            "$each_seqrep" "$each_command" --model "$model" "$@" --out "$out" >/dev/null
        else
            "$each_seqrep" "$each_command" --model "$model" --adapter "$adapter" "$@" --out "$out" >/dev/null
        fi
        echo "== $i of $each_total: step $step: $out in $(( $(date +%s) - start )) s"
    done
    echo "done: $each_total snapshots measured into $each_series/measures/$each_name"
}
