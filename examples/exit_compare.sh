#!/bin/sh
# exit_compare.sh — every early exit against full depth of the same method:
# for each of causal, sr r = 1 and sr r = 4, seqrep compare with that
# method at the last layer as the baseline, keeping the pairs whose other
# side is the same method at an earlier exit (paired bootstrap over test
# sentences and seeds, as in every compare table). Writes the pairs as CSV
# (seqrep compare's columns) with a manifest beside it (the command, the
# sweep's hash) and as a markdown table. Used by
# examples/house_grid.sh (docs/house-nlupp.md, docs/house-tasks.md).
# Only the rows of causal and sr r = 1, 4 with positions running on are
# compared (a copy of the sweep CSV holding just them), so the per-run files
# of the sweep's other methods need not be here.
#
# Usage: sh examples/exit_compare.sh SEQREP SWEEP.csv RECIPE LAYERS OUT.csv OUT.md
set -eu
[ $# -eq 6 ] || { echo "usage: sh examples/exit_compare.sh SEQREP SWEEP.csv RECIPE LAYERS OUT.csv OUT.md" >&2; exit 2; }
seqrep=$1; sweep=$2; recipe=$3; layers=$4; out_csv=$5; out_md=$6
tmp="$out_csv.tmp.$$"
one="$out_csv.one.$$.csv"
rows="$out_csv.rows.$$.csv"
trap 'rm -f "$tmp" "$tmp.head" "$tmp.body" "$one" "${one%.csv}.manifest.json" "$rows" "$out_md.tmp.$$" "${out_csv%.csv}.manifest.json.tmp.$$"' EXIT
[ -r "$sweep" ] || { echo "exit_compare: $sweep: no such file" >&2; exit 2; }
# (and only the datasets that have an early exit: a dataset without any has
# no pair to compare)
awk -F, -v layers="$layers" 'FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; if (NR > 1) print; next }
    NR == FNR { if ($col["exit"] < layers) early[$col["dataset"]] = 1; next }
    ($col["dataset"] in early) &&
    ($col["method"] == "causal" || $col["method"] == "sr" && ($col["r"] == 1 || $col["r"] == 4)) &&
    (!("positions" in col) || $col["positions"] == "run")' "$sweep" "$sweep" >"$rows"
: >"$tmp.body"; : >"$tmp.head"
for base in "causal" "sr r=1" "sr r=4"; do
    "$seqrep" compare --results "$rows" --runs-dir "${sweep%.csv}.runs" --recipe "$recipe" --baseline "$base exit=$layers" \
        --out "$one" >/dev/null
    [ -s "$tmp.head" ] || head -n 1 "$one" >"$tmp.head"
    awk -F, -v base="$base" 'NR > 1 && $3 ~ ("^" base " exit=[0-9]+$")' "$one" >>"$tmp.body"
done
# by dataset, each in the order causal, sr r=1, sr r=4
{ cat "$tmp.head"; sort -s -t, -k1,1 "$tmp.body"; } >"$tmp"
[ "$(wc -l <"$tmp")" -gt 1 ] || { echo "exit_compare: $sweep has no early exits of causal, sr r=1, sr r=4 under recipe $recipe" >&2; exit 2; }
awk -F, -v layers="$layers" -v sweep="$sweep" -v recipe="$recipe" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
              printf "Early exit against full depth (layer %d) of the same method, %s recipe (%s): ", layers, recipe, sweep
              print "paired bootstrap of the difference of mean test F1 over seeds (strict IOB2 span micro-F1, %), 10000 samples over test sentences and seeds; resolved: the interval leaves out 0.\n"
              print "| dataset | method | exit | seeds | F1 at exit | F1 at layer " layers " | exit − full depth | 95% interval | resolved |"
              print "|---|---|---:|---:|---:|---:|---:|---|---|"
              next }
    { label = $col["a"]; exit_at = label; sub(/.* exit=/, "", exit_at); sub(/ exit=[0-9]+$/, "", label)
      printf "| %s | %s | %s | %d | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %s |\n", $col["dataset"], label, exit_at, $col["seeds"],
             $col["f1_a"], $col["f1_b"], $col["diff"], $col["lo"], $col["hi"],
             $col["resolved"] == "a>b" ? "exit above" : ($col["resolved"] == "b>a" ? "exit below" : "noise") }' \
    "$tmp" >"$out_md.tmp.$$"
# the command and the inputs beside the numbers
manifest="${out_csv%.csv}.manifest.json"
printf '{\n\t"command":\t"sh examples/exit_compare.sh %s %s %s %s %s %s",\n\t"created":\t"%s",\n\t"results":\t"%s",\n\t"results_sha256":\t"%s",\n\t"runs_dir":\t"%s",\n\t"pairs":\t%d,\n\t"result":\t"%s"\n}\n' \
    "$seqrep" "$sweep" "$recipe" "$layers" "$out_csv" "$out_md" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$sweep" \
    "$(sha256sum <"$sweep" | cut -d' ' -f1)" "${sweep%.csv}.runs" "$(($(wc -l <"$tmp") - 1))" "$out_csv" >"$manifest.tmp.$$"
mv "$tmp" "$out_csv"
mv "$out_md.tmp.$$" "$out_md"
mv "$manifest.tmp.$$" "$manifest"
