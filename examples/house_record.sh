#!/bin/sh
# house_record.sh — make house-record: the numbers of the house LMs and their
# variants trained here (CACHE/house/, where make house writes them) into the
# committed files. make house changes no file of the checkout; this is the
# one command that records its numbers:
#   results/house/house.csv, samples.txt   this cache's, when its house LMs are
#                                          the committed ones (weights.sha256)
#   results/house/weights.sha256           written only when there is none
#   results/house/runs.csv                 this cache's rows not there yet, appended
#   results/house/variants.csv             a row per variant; this cache's rows
#                                          replace those of the same name
#   results/md/house.md, house-runs.md, house-variants.md   their tables again,
#                                          and the same tables in docs/house.md
# Each file is written to a temporary file and renamed, and named on stdout
# when it changed.
#
# Usage: sh examples/house_record.sh   (from the repository root)
set -eu
[ -f examples/house_record.sh ] || { echo "house_record: run me from the repository root" >&2; exit 2; }
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
out="$cache/house"
res=results/house
[ -s "$out/house.csv" ] || [ -s "$out/variants.csv" ] ||
    { echo "house_record: $out has no numbers to record (house.csv, variants.csv): run make house first" >&2; exit 2; }
mkdir -p "$res" results/md
changed=""
# put TMP FILE: TMP replaces FILE; FILE is named when it changed
put() {
    if [ -f "$2" ] && cmp -s "$1" "$2"; then rm -f "$1"; return 0; fi
    mv "$1" "$2"
    changed="$changed $2"
}

if [ -s "$out/house.csv" ]; then
    if [ ! -s "$res/weights.sha256" ]; then
        cp "$out/weights.sha256" "$res/weights.sha256.tmp"
        put "$res/weights.sha256.tmp" "$res/weights.sha256"
    fi
    if cmp -s "$out/weights.sha256" "$res/weights.sha256"; then
        cp "$out/house.csv" "$res/house.csv.tmp"
        put "$res/house.csv.tmp" "$res/house.csv"
        cp "$out/samples.txt" "$res/samples.txt.tmp"
        put "$res/samples.txt.tmp" "$res/samples.txt"
    else
        echo "house_record: the house LMs in $out are not those of $res/weights.sha256 (the committed grid's): their house.csv and samples.txt are not recorded" >&2
    fi
fi
if [ -s "$out/runs.csv" ]; then
    if [ -s "$res/runs.csv" ]; then
        { cat "$res/runs.csv"; awk 'NR == FNR { seen[$0] = 1; next } FNR > 1 && !seen[$0]' "$res/runs.csv" "$out/runs.csv"; } \
            >"$res/runs.csv.tmp"
    else
        cp "$out/runs.csv" "$res/runs.csv.tmp"
    fi
    put "$res/runs.csv.tmp" "$res/runs.csv"
fi
if [ -s "$out/variants.csv" ]; then
    if [ -s "$res/variants.csv" ]; then
        # a recorded variant keeps its place; new ones follow in the cache's order
        awk -F, 'NR == FNR { if (FNR > 1) { mine[$1] = $0; order[++n] = $1 } next }
                 { if (FNR > 1 && ($1 in mine)) { print mine[$1]; done[$1] = 1 } else print }
                 END { for (i = 1; i <= n; i++) if (!done[order[i]]) print mine[order[i]] }' \
            "$out/variants.csv" "$res/variants.csv" >"$res/variants.csv.tmp"
    else
        cp "$out/variants.csv" "$res/variants.csv.tmp"
    fi
    put "$res/variants.csv.tmp" "$res/variants.csv"
fi
# the tables again (house_tables.sh renames each into place)
before=$(cat results/md/house.md results/md/house-runs.md results/md/house-variants.md 2>/dev/null | cksum)
sh examples/house_tables.sh "$res" results/md
[ "$(cat results/md/house.md results/md/house-runs.md results/md/house-variants.md 2>/dev/null | cksum)" = "$before" ] ||
    changed="$changed results/md/house*.md"
# and into docs/house.md
if [ -f docs/house.md ]; then
    before=$(cksum <docs/house.md)
    sh examples/fill_doc.sh docs/house.md results/md house house-runs house-variants
    [ "$(cksum <docs/house.md)" = "$before" ] || changed="$changed docs/house.md"
fi
if [ -n "$changed" ]; then
    echo "house_record: recorded$changed"
else
    echo "house_record: nothing new to record"
fi
