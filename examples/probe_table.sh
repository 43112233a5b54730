#!/bin/sh
# probe_table.sh — the markdown table of a probe CSV (seqrep probe --out):
# test F1 per layer (rows) and r (columns), the last copy, and the first copy
# in brackets. Used by examples/reproduce.sh and examples/house_grid.sh.
#
# Usage: sh examples/probe_table.sh PROBE.csv TITLE >TABLE.md
set -eu
[ $# -eq 2 ] || { echo "usage: sh examples/probe_table.sh PROBE.csv TITLE" >&2; exit 2; }
[ -s "$1" ] || { echo "probe_table: $1: no such file" >&2; exit 2; }
awk -F, -v title="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["split"] != "test" { next }
    {
        r = $col["r"]; l = $col["layer"]; f = $col["f1"]
        if (!(r in seen_r)) { seen_r[r] = 1; rs[nr++] = r }
        if (l + 0 > maxl) maxl = l + 0
        if ($col["copy"] == "last") last[r, l] = f; else first[r, l] = f
    }
    END {
        printf "%s\n\n| layer |", title
        for (i = 0; i < nr; i++) printf " r = %s |", rs[i]
        printf "\n|---:|"
        for (i = 0; i < nr; i++) printf "---:|"
        printf "\n"
        for (l = 0; l <= maxl; l++) {
            printf "| %d |", l
            for (i = 0; i < nr; i++) {
                r = rs[i]
                if (r + 0 == 0 || !((r, l) in first)) printf " %.1f |", last[r, l]
                else printf " %.1f (%.1f) |", last[r, l], first[r, l]
            }
            printf "\n"
        }
        printf "\n"
    }' "$1"
