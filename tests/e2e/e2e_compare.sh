#!/bin/sh
# e2e_compare.sh — end-to-end runs of `seqrep sweep --copy-positions` and
# `seqrep compare` on a small generated task and a tiny language model:
# restart runs for sr only (plan, CSV, run files, summary), the test
# predictions every run writes, an old sweep CSV without the positions column
# resumed, and compare's intervals (its F1 equal to the sweep's test_f1 means,
# --baseline, bad inputs with exit 2 and one stderr line); compare --against
# between the sweeps of two LMs (pairs by seed, the sign, the refusals);
# compare --against --gap: a gap's change between them (the three rows, the
# points the sweeps' test_f1 differences, the refusals).
# Usage: sh tests/e2e/e2e_compare.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# data_rows CSV: rows after the header
data_rows() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }

# ---- a small task and a tiny model ----
"$seqrep" gen right-cue --out-dir data/tiny-rc --seed 3 --train 60 --dev 20 --test 30 --corpus 300 2>/dev/null
"$seqrep" train-lm --corpus data/tiny-rc/corpus.txt --out lm.safetensors --layers 2 --d-model 16 \
    --heads 2 --d-ff 32 --seq-len 48 --batch 4 --steps 40 --threads 1 --quiet >/dev/null 2>&1
if [ -s lm.safetensors ]; then ok "setup: task and tiny model"; else bad "setup"; fi

grid="--data data/tiny-rc --model lm.safetensors --methods causal,sr --r 1 --seeds 1,2 --epochs 3 --lr 0.01 --threads 1"

# ---- an old sweep: positions run only, its CSV without the positions column ----
expect_status 0 "sweep without --copy-positions" "$seqrep" sweep $grid --out old/sweep.csv
python3 - old/sweep.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
i = rows[0].index("positions")
with open(sys.argv[1], "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows([r[:i] + r[i + 1:] for r in rows])
PY
if ! head -n 1 old/sweep.csv | grep -q positions && [ "$(data_rows old/sweep.csv)" = 4 ]; then
    ok "old sweep CSV: 4 rows, no positions column"
else
    bad "old sweep CSV"; cat old/sweep.csv
fi
tail -n +2 old/sweep.csv | cut -d, -f1-12 | sort >old-scores.txt

# ---- --plan with restart runs: sr only ----
"$seqrep" sweep $grid --copy-positions run,restart --out old/sweep.csv --plan >plan.txt 2>plan.err
if [ $? = 0 ] && [ "$(wc -l <plan.txt)" = 2 ] && [ "$(grep -c -- '--method sr .*--copy-positions restart' plan.txt)" = 2 ] &&
   grep -q "4 done before" plan.err && grep -q "2 to do" plan.err; then
    ok "plan on the old CSV: only the 2 sr restart runs left"
else
    bad "plan with restart"; cat plan.txt plan.err
fi
if grep -q '\.restart\.csv --predictions [^ ]*\.restart\.predictions\.conll' plan.txt; then
    ok "restart runs: .restart run files, predictions beside them"
else
    bad "restart run files"; cat plan.txt
fi

# ---- the old CSV resumed with restart runs ----
expect_status 0 "old CSV resumed with --copy-positions run,restart" \
    "$seqrep" sweep $grid --copy-positions run,restart --out old/sweep.csv
python3 - old/sweep.csv <<'PY' && ok "resumed CSV: positions column, 2 restart rows, sr only" || bad "resumed CSV positions"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
restart = [r for r in rows if r["positions"] == "restart"]
ok = (len(rows) == 6 and len(restart) == 2 and all(r["method"] == "sr" for r in restart)
      and all(r["positions"] in ("run", "restart") for r in rows)
      and all(("--copy-positions restart" in r["command"]) == (r["positions"] == "restart") for r in rows))
sys.exit(0 if ok else 1)
PY
if [ "$(grep ',run,' old/sweep.csv | cut -d, -f1-12 | sort)" = "$(cat old-scores.txt)" ]; then
    ok "the old rows are kept as positions run, scores unchanged"
else
    bad "old rows kept"; cat old/sweep.csv
fi
if grep -q "| lm | sr restart | 1 | 2 | 2 |" old/sweep.md && grep -q "| lm | sr | 1 | 2 | 2 |" old/sweep.md; then
    ok "summary: sr and sr restart rows"
else
    bad "summary restart rows"; cat old/sweep.md
fi
n_csv=$(ls old/sweep.runs/*.csv | wc -l)
n_pred=0
for f in old/sweep.runs/*.csv; do [ -s "${f%.csv}.predictions.conll" ] && n_pred=$((n_pred + 1)); done
if [ "$n_csv" = 6 ] && [ "$n_pred" = 6 ] && [ "$(ls old/sweep.runs/*.restart.csv | wc -l)" = 2 ]; then
    ok "runs dir: 6 run files (2 .restart), predictions beside each"
else
    bad "runs dir: $n_csv runs, $n_pred predictions"; ls old/sweep.runs
fi

# ---- old run files (manifests without copy_positions) are taken as positions run ----
mkdir -p lost
cp old/sweep.runs/*.csv old/sweep.runs/*.json old/sweep.runs/*.conll lost/
python3 - lost <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*.manifest.json"):
    m = json.load(open(p))
    if m.get("copy_positions") == "run":
        del m["copy_positions"]
        json.dump(m, open(p, "w"))
PY
"$seqrep" sweep $grid --copy-positions run,restart --out lost.csv --runs-dir lost >/dev/null 2>err.txt
if grep -q "6 of them found in lost" err.txt && [ "$(data_rows lost.csv)" = 6 ]; then
    ok "runs dir with old manifests: all 6 runs found, none run again"
else
    bad "old manifests"; cat err.txt
fi

# ---- compare ----
expect_status 0 "compare --help" "$seqrep" compare --help
expect_ok "compare all pairs" "$seqrep" compare --results old/sweep.csv --samples 500 --seed 3 \
    --out cmp.csv --md cmp.md
if [ "$(head -n 1 cmp.csv)" = "dataset,recipe,a,b,seeds,f1_a,f1_b,diff,lo,hi,resolved" ] &&
   [ "$(data_rows cmp.csv)" = 3 ] && [ -s cmp.manifest.json ] && grep -q "### tiny-rc (recipe full)" cmp.md; then
    ok "compare: header, 3 pairs, manifest, markdown"
else
    bad "compare output"; cat cmp.csv cmp.md
fi
python3 - old/sweep.csv cmp.csv <<'PY' && ok "compare: f1_a and f1_b are the sweep's test_f1 means" || bad "compare F1 = sweep means"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
def label(r):
    s = r["method"] + (" r=" + r["r"] if r["method"] == "sr" else "")
    return s + (" restart" if r["positions"] == "restart" else "")
means = {}
for r in rows:
    means.setdefault(label(r), []).append(float(r["test_f1"]))
pairs = list(csv.DictReader(open(sys.argv[2], newline="")))
ok = len(pairs) == 3
for p in pairs:
    fa, fb = float(p["f1_a"]), float(p["f1_b"])
    ma = sum(means[p["a"]]) / len(means[p["a"]])
    mb = sum(means[p["b"]]) / len(means[p["b"]])
    lo, d, hi = float(p["lo"]), float(p["diff"]), float(p["hi"])
    want = "a>b" if lo > 0 else "b>a" if hi < 0 else "noise"
    ok = ok and abs(fa - ma) < 1e-3 and abs(fb - mb) < 1e-3 and abs(d - (fa - fb)) < 2e-4
    ok = ok and lo <= d + 1e-9 and d <= hi + 1e-9 and p["resolved"] == want and p["seeds"] == "2"
sys.exit(0 if ok else 1)
PY
"$seqrep" compare --results old/sweep.csv --samples 500 --seed 3 --out cmp2.csv >/dev/null 2>&1
if cmp -s cmp.csv cmp2.csv; then ok "compare is deterministic with a seed"; else bad "compare deterministic"; fi
expect_ok "compare --baseline causal" "$seqrep" compare --results old/sweep.csv --samples 200 \
    --baseline causal --out base.csv
if [ "$(data_rows base.csv)" = 2 ] && [ "$(tail -n +2 base.csv | cut -d, -f4 | sort -u)" = causal ]; then
    ok "--baseline causal: 2 pairs, b = causal"
else
    bad "--baseline"; cat base.csv
fi
expect_ok "compare with --runs-dir and --exit" "$seqrep" compare --results lost.csv --runs-dir lost \
    --exit 2 --samples 200 --out lost-cmp.csv
if [ "$(data_rows lost-cmp.csv)" = 3 ]; then ok "compare --runs-dir"; else bad "compare --runs-dir"; cat lost-cmp.csv; fi

# ---- compare --against: the same configurations of another LM's sweep ----
mkdir -p v
"$seqrep" train-lm --corpus data/tiny-rc/corpus.txt --out v/lm.safetensors --layers 2 --d-model 16 \
    --heads 2 --d-ff 32 --seq-len 48 --batch 4 --steps 40 --threads 1 --seed 9 --quiet >/dev/null 2>&1
vgrid="--data data/tiny-rc --model v/lm.safetensors --methods causal,sr,unmask-full --r 1 --seeds 2,3 --epochs 3 --lr 0.01 --threads 1"
expect_status 0 "a variant's sweep (seeds 2, 3; unmask-full too)" "$seqrep" sweep $vgrid --out v/sweep.csv
expect_ok "compare --against" "$seqrep" compare --results old/sweep.csv --against v/sweep.csv \
    --names base,v --samples 500 --out against.csv --md against.md
python3 - old/sweep.csv v/sweep.csv against.csv <<'PY' && ok "--against: causal and sr r=1 on seed 2, v - base, within the interval" || { bad "--against rows"; cat against.csv; }
import csv, sys
def f1(path, method, positions, seed):
    return [float(r["test_f1"]) for r in csv.DictReader(open(path, newline=""))
            if r["method"] == method and r["positions"] == positions and r["seed"] == seed][0]
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
ok = [(r["a"], r["b"]) for r in rows] == [("causal [v]", "causal [base]"), ("sr r=1 [v]", "sr r=1 [base]")]
for r, method in zip(rows, ["causal", "sr"]):
    a, b = f1(sys.argv[2], method, "run", "2"), f1(sys.argv[1], method, "run", "2")
    d, lo, hi = float(r["diff"]), float(r["lo"]), float(r["hi"])
    ok = ok and r["seeds"] == "1" and abs(float(r["f1_a"]) - a) < 1e-3 and abs(float(r["f1_b"]) - b) < 1e-3
    ok = ok and abs(d - (a - b)) < 2e-3 and lo <= d + 1e-9 <= hi + 2e-9 and lo < hi
sys.exit(0 if ok else 1)
PY
if grep -q "2 configurations left out" err.txt && grep -q "a is a configuration of v, b the same configuration" against.md &&
   python3 -c 'import json,sys; m=json.load(open("against.manifest.json")); sys.exit(0 if m["against_name"] == "v" and m["results_name"] == "base" and len(m["against_checksum"]) == 16 else 1)'; then
    ok "--against: 2 configurations of one sweep only (sr restart, unmask-full), the names in the markdown and the manifest"
else
    bad "--against report"; cat err.txt against.md against.manifest.json
fi
expect_ok "compare --against the other way round" "$seqrep" compare --results v/sweep.csv --against old/sweep.csv \
    --names v,base --samples 500 --out reverse.csv
python3 - against.csv reverse.csv <<'PY' && ok "--against: the sign turns with the sides" || { bad "--against sign"; cat reverse.csv; }
import csv, sys
a, b = (list(csv.DictReader(open(p, newline=""))) for p in sys.argv[1:])
ok = len(a) == len(b) == 2 and all(abs(float(x["diff"]) + float(y["diff"])) < 1e-9 and
                                   abs(float(x["lo"]) + float(y["hi"])) < 1e-3 for x, y in zip(a, b))
sys.exit(0 if ok else 1)
PY
"$seqrep" sweep --data data/tiny-rc --model v/lm.safetensors --methods causal --seeds 9 --epochs 3 --lr 0.01 \
    --threads 1 --out v9/sweep.csv >/dev/null 2>&1
expect_error "--against: nothing pairs" "nothing to compare" \
    "$seqrep" compare --results old/sweep.csv --against v9/sweep.csv --out x.csv
"$seqrep" gen right-cue --out-dir other/tiny-rc --seed 4 --train 60 --dev 20 --test 30 --corpus 300 2>/dev/null
"$seqrep" sweep --data other/tiny-rc --model v/lm.safetensors --methods causal --seeds 2 --epochs 3 --lr 0.01 \
    --threads 1 --out vo/sweep.csv >/dev/null 2>&1
expect_error "--against: another test set" "the two sweeps do not share their test sentences" \
    "$seqrep" compare --results old/sweep.csv --against vo/sweep.csv --out x.csv
expect_error "--against with --baseline" "--baseline compares within one sweep" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --baseline causal --out x.csv
expect_error "--names without --against" "--names needs --against" \
    "$seqrep" compare --results old/sweep.csv --names a,b --out x.csv
expect_error "--names of one name" "--names must be two names" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --names base --out x.csv
expect_error "--against: no runs dir" "give --against-runs-dir" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --against-runs-dir nowhere --out x.csv

# ---- compare --against --gap: the change of the gap sr r=1 - causal (seed 2 is the four's) ----
expect_ok "compare --against --gap" "$seqrep" compare --results old/sweep.csv --against v/sweep.csv \
    --gap "sr r=1,causal" --names base,v --samples 300 --out gap.csv --md gap.md
python3 - old/sweep.csv v/sweep.csv gap.csv <<'PY' && ok "--gap: gap in base, gap in v, their change; points the test_f1 differences, inside their intervals" || { bad "--gap rows"; cat gap.csv; }
import csv, sys
def f1(path, method):
    return [float(r["test_f1"]) for r in csv.DictReader(open(path, newline=""))
            if r["method"] == method and r["positions"] == "run" and r["seed"] == "2"][0]
gap_base = f1(sys.argv[1], "sr") - f1(sys.argv[1], "causal")
gap_v = f1(sys.argv[2], "sr") - f1(sys.argv[2], "causal")
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
ok = [(r["a"], r["b"]) for r in rows] == [("sr r=1 [base]", "causal [base]"), ("sr r=1 [v]", "causal [v]"),
                                          ("sr r=1 - causal [v]", "sr r=1 - causal [base]")]
for r, want in zip(rows, [gap_base, gap_v, gap_v - gap_base]):
    d, lo, hi = float(r["diff"]), float(r["lo"]), float(r["hi"])
    ok = ok and r["seeds"] == "1" and abs(d - want) < 2e-3 and lo <= d + 1e-9 <= hi + 2e-9
ok = ok and abs(float(rows[2]["f1_a"]) - gap_v) < 2e-3 and abs(float(rows[2]["f1_b"]) - gap_base) < 2e-3
sys.exit(0 if ok else 1)
PY
if grep -q "of the gap sr r=1 − causal in each of two sweeps" gap.md &&
   python3 -c 'import json,sys; m=json.load(open("gap.manifest.json")); sys.exit(0 if m["gap"] == "sr r=1 - causal" and "change" in m["gap_interval"] else 1)'; then
    ok "--gap: the markdown and the manifest say the gap"
else
    bad "--gap report"; cat gap.md gap.manifest.json
fi
expect_error "--gap without --against" "--gap needs --against" \
    "$seqrep" compare --results old/sweep.csv --gap "sr r=1,causal" --out x.csv
expect_error "--gap of one label" "--gap must be two configuration labels" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --gap causal --out x.csv
expect_error "--gap with --baseline" "give it without --baseline" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --gap "sr r=1,causal" --baseline causal --out x.csv
expect_error "--gap: a label in neither sweep" "'sr r=9': no configuration of that label in the --results sweep old/sweep.csv" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --gap "sr r=9,causal" --out x.csv
expect_error "--gap: a label the --against sweep lacks" "'sr r=1 restart': no configuration of that label in the --against sweep v/sweep.csv" \
    "$seqrep" compare --results old/sweep.csv --against v/sweep.csv --gap "sr r=1 restart,causal" --out x.csv

# ---- bad inputs ----
expect_error "compare: missing --results" "missing required option --results" "$seqrep" compare --out x.csv
expect_error "compare: missing sweep CSV" "nope.csv" "$seqrep" compare --results nope.csv --runs-dir lost --out x.csv
expect_error "compare: no runs dir" "no such runs directory" "$seqrep" compare --results lost.csv --out x.csv
expect_error "compare: unknown baseline" "--baseline 'encoder'" \
    "$seqrep" compare --results old/sweep.csv --baseline encoder --out x.csv
expect_error "compare: no run of the dataset" "no run" \
    "$seqrep" compare --results old/sweep.csv --dataset other --out x.csv
expect_error "compare: zero samples" "samples" "$seqrep" compare --results old/sweep.csv --samples 0 --out x.csv
rm lost/*seed2.restart.predictions.conll
expect_error "compare: missing predictions" "seed2.restart.predictions.conll" \
    "$seqrep" compare --results lost.csv --runs-dir lost --out x.csv
expect_error "sweep: unknown copy positions" "unknown copy position 'again'" \
    "$seqrep" sweep $grid --copy-positions run,again --out x.csv
expect_error "sweep: copy positions twice" "twice" "$seqrep" sweep $grid --copy-positions run,run --out x.csv
if [ ! -e x.csv ]; then ok "no output after bad input"; else bad "x.csv written after bad input"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
