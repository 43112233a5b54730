#!/bin/sh
# house_tables.sh — the tables of docs/house.md from the house LMs' numbers:
#   CSV_DIR/house.csv     -> MD_DIR/house.md           (the two models)
#   CSV_DIR/runs.csv      -> MD_DIR/house-runs.md      (a row per run of make house)
#   CSV_DIR/variants.csv  -> MD_DIR/house-variants.md  (a row per variant)
# each only when its CSV is there, written to a temporary file and renamed.
# examples/house.sh writes them beside its numbers in the cache;
# examples/house_record.sh (make house-record) into results/md/.
#
# Usage: sh examples/house_tables.sh CSV_DIR MD_DIR
set -eu
[ $# = 2 ] || { echo "usage: sh examples/house_tables.sh CSV_DIR MD_DIR" >&2; exit 2; }
csv=$1 md=$2
mkdir -p "$md"
# table CSV MD HEADER ALIGN: a markdown table of every row of CSV under HEADER
table() {
    [ -s "$1" ] || return 0
    awk -F, -v header="$3" -v align="$4" \
        'NR == 1 { print header; print align; next }
         { line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }' "$1" >"$2.tmp"
    mv "$2.tmp" "$2"
}
table "$csv/house.csv" "$md/house.md" \
    "| model | layers | width | heads | d_ff | vocabulary | steps | tokens seen | train s | tokens/s | held-out tokens | held-out loss | perplexity |" \
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
table "$csv/runs.csv" "$md/house-runs.md" \
    "| date | CPU | widest vectors | cores | trained | causal train s | MLM train s | wall clock s | counted from | same weights |" \
    "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- | --- |"
table "$csv/variants.csv" "$md/house-variants.md" \
    "| variant | repeat share | copies | random share | steps | tokens seen | timed from step | train s | tokens/s | held-out tokens | held-out loss | perplexity | snapshots | weights (sha256) |" \
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
