#!/bin/sh
# sweep_time.sh — how long the fine-tuning of a sweep took, from its CSV:
# per configuration at full depth, the mean wall clock of a run (train s)
# and its training tokens per second (tokens of all epochs / train s); the
# last line sums the train s of every run in the file, early exits included.
# Markdown to stdout. Used by examples/house_grid.sh (docs/house-nlupp.md,
# docs/house-tasks.md).
#
# Usage: sh examples/sweep_time.sh SWEEP.csv LAYERS
set -eu
[ $# -eq 2 ] || { echo "usage: sh examples/sweep_time.sh SWEEP.csv LAYERS" >&2; exit 2; }
[ -s "$1" ] || { echo "sweep_time: $1: no such file or empty" >&2; exit 2; }
awk -F, -v layers="$2" -v sweep="$1" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
              split("model method r exit positions tokens seconds", need, " ")
              for (i in need) if (!(need[i] in col)) { print "sweep_time: " sweep ": no column " need[i] > "/dev/stderr"; bad = 1; exit 2 }
              next }
    { total += $col["seconds"]; runs++ }
    $col["exit"] == layers {
        key = $col["model"] SUBSEP $col["method"] SUBSEP $col["r"] SUBSEP $col["positions"]
        if (!(key in n)) { order[++k] = key; name[key] = $col["method"]; r[key] = $col["r"]; pos[key] = $col["positions"] }
        n[key]++; secs[key] += $col["seconds"]; toks[key] += $col["tokens"] }
    END {
        if (bad) exit 2
        minutes = int(total / 60 + 0.5)
        printf "Fine-tuning time, %s: per configuration at full depth (layer %d), the mean wall clock of a run (train s) and its training tokens (every epoch) per second; the last line is the sum over every run of the file, early exits included.\n\n", sweep, layers
        print "| method | r | positions | runs | tokens per run | train s | tokens/s |"
        print "|---|---:|---|---:|---:|---:|---:|"
        for (i = 1; i <= k; i++) { key = order[i]
            printf "| %s | %d | %s | %d | %d | %.1f | %.0f |\n", name[key], r[key], pos[key], n[key],
                   toks[key] / n[key], secs[key] / n[key], toks[key] / secs[key] }
        printf "| all runs | | | %d | | %.0f (%d h %02d min) | |\n", runs, total, int(minutes / 60), minutes % 60 }
' "$1"
