#!/bin/sh
# e2e_house_snapshots.sh — examples/house_snapshots.py on a made-up cache of
# two variants whose snapshot measures are known (issue 29): the rows, the
# step from which a score stays doubled, its correlation with the ICL score,
# a variant without measures left out, the steps read by the seqrep under
# test (--seqrep), and bad input.
#
# Usage: sh tests/e2e/e2e_house_snapshots.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
script="$here/../examples"

mkdir -p repo/results/house repo/results/md cache/house
printf 'variant,steps,heldout_ppl\nv1,20,100\nv2,20,120\nv3,20,130\n' >repo/results/house/variants.csv
# snapshot VARIANT STEP COPY INDUCTION ICL: a 1-layer, 2-head measure of one step
snapshot() {
    d=cache/house/$1/snapshots/measures
    mkdir -p "$d/heads-data" "$d/heads-random"
    step=$(printf 'step-%06d' "$2")
    for m in heads-data heads-random; do
        printf 'layer,head,copy,induction,previous,sink,own_copy\n0,0,%s,%s,0.1,0.1,0.5\n0,1,0.01,0.01,0.2,0.1,0.5\n' \
            "$3" "$4" >"$d/$m/$step.csv"
    done
    printf '{"loss_first_copy": 5.0, "loss_last_copy": %s, "icl_score": %s}\n' \
        "$(awk -v i="$5" 'BEGIN { print 5 - i }')" "$5" >"$d/heads-random/$step.manifest.json"
}
for v in v1 v2; do
    mkdir -p cache/house/$v/snapshots
    printf '{"snapshots": [{"step": 0, "train_loss": null}, {"step": 10, "train_loss": 6.0}, {"step": 20, "train_loss": 5.0}]}\n' \
        >cache/house/$v/snapshots/series.json
done
snapshot v1 0 0.05 0.05 0.0
snapshot v1 10 0.20 0.08 0.5
snapshot v1 20 0.30 0.12 1.0
snapshot v2 0 0.05 0.05 0.0
snapshot v2 10 0.12 0.04 0.2
snapshot v2 20 0.06 0.06 0.1

(cd repo && python3 "$script/house_snapshots.py" --cache ../cache) >out.txt 2>err.txt
check "house_snapshots.py runs" grep -q "wrote results/house/snapshots.csv (6 rows)" out.txt
check "v3 without measures is left out, said" grep -q "v3: no measured snapshots, left out" err.txt
check "rows: the best head's score and name, the ICL losses" python3 - <<'PY'
import csv
rows = list(csv.DictReader(open("repo/results/house/snapshots.csv")))
r = [x for x in rows if x["variant"] == "v1" and x["step"] == "20"][0]
assert (r["data_best_copy"], r["data_copy_head"], r["random_best_induction"]) == ("0.300", "L0H0", "0.120"), r
assert (r["icl_score"], r["loss_last_copy"], r["train_loss"]) == ("1.0000", "4.0000", "5.0000"), r
assert [x["train_loss"] for x in rows if x["variant"] == "v2"] == ["", "6.0000", "5.0000"]
PY
check "summary: doubled from the step it stays doubled, correlation with ICL" python3 - <<'PY'
import csv
rows = {r["variant"]: r for r in csv.DictReader(open("repo/results/house/snapshots-summary.csv"))}
v1, v2 = rows["v1"], rows["v2"]
assert v1["data_best_copy_doubled_at"] == "10" and v1["data_best_induction_doubled_at"] == "20", v1
assert v2["data_best_copy_doubled_at"] == "" and v2["data_best_induction_doubled_at"] == "", v2
assert v1["data_best_copy_corr_icl"] == "0.99" and v1["data_best_induction_corr_icl"] == "1.00", v1
assert v2["data_best_copy_corr_icl"] == "0.92", v2
PY
check "markdown tables" sh -c 'grep -q "^| 20 | 0.120 / 1.00 | 0.060 / 0.10 |$" repo/results/md/house-snapshots.md &&
    grep -q "^| v2 | 20 | 0.10 | 0.060 (never ×2; r = 0.92)" repo/results/md/house-snapshots-summary.md'
cp repo/results/house/snapshots.csv default.csv
(cd repo && python3 "$script/house_snapshots.py" --cache ../cache --seqrep "$seqrep") >out.txt 2>err.txt
check "--seqrep PATH: the same table (each series' steps from seqrep series --steps)" \
    cmp -s default.csv repo/results/house/snapshots.csv
expect_error "--seqrep of no program" "house_snapshots: /nowhere/seqrep: .*give --seqrep PATH" \
    sh -c "cd repo && python3 '$script/house_snapshots.py' --cache ../cache --seqrep /nowhere/seqrep"
expect_error "an option it does not know" "usage: python3 examples/house_snapshots.py \[--cache DIR\] \[--seqrep PATH\]" \
    sh -c "cd repo && python3 '$script/house_snapshots.py' --cache ../cache --seqrep"
rm cache/house/v2/snapshots/measures/heads-random/step-000010.manifest.json
cp repo/results/house/snapshots.csv before.csv
expect_error "a step's measure missing" "step-000010.manifest.json is missing" \
    sh -c "cd repo && python3 '$script/house_snapshots.py' --cache ../cache"
check "nothing written over after the error" cmp -s before.csv repo/results/house/snapshots.csv
printf '{"snapshots": [{"step": 10}, {"step": 0}]}\n' >cache/house/v1/snapshots/series.json
expect_error "a series.json whose steps fall: seqrep's line" \
    "house_snapshots: seqrep series: .*v1/snapshots/series.json: snapshot 1: step 0 after step 10 (steps must rise)" \
    sh -c "cd repo && python3 '$script/house_snapshots.py' --cache ../cache --seqrep '$seqrep'"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
