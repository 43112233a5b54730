#!/bin/sh
# e2e_house_scripts.sh — end-to-end runs of the scripts that turn a sweep CSV
# of examples/house_grid.sh into its tables, on a small generated task and a
# tiny two-layer model: examples/sweep_time.sh (time per configuration, the
# sum of every run), examples/exit_compare.sh (every early exit against full
# depth of the same method) and examples/house_replay.py (the runs whose
# per-run files are gone run again from the CSV's commands, the same F1,
# the record, a changed row caught, bad inputs with exit 2 and one line); and
# examples/house_grid.sh with HOUSE_VARIANT on a tiny fake house cache (a
# tiny house LM and a variant trained here, a generated task standing in for
# NLU++, one built-in task, few seeds): every stage, its files, the saved
# models, the heads summary, variant − base against a small base grid, the
# base grid untouched, resuming, and the refusals (no model, an unfinished
# one, other weights, a bad name); and examples/house_variant_study.sh on the
# same cache (a row per LM as its files say, an untrained variant left out,
# resuming, no house LM); examples/ablation.sh on it (the heads picked on
# dev, a sweep per head taken away, the table, resuming); examples/induction_gap.py
# (the gap per LM, r and slope across them, bad input); examples/house.sh's
# pre-training seed (HOUSE_SEED, NAME-seedS) on a tiny fake corpus;
# examples/snapshot_seeds.py on two of those seeds' snapshots; and the
# lab's number check (examples/lab.py): a quoted number that its committed
# file does not hold, or read from a file that is not committed, fails, and
# so does a decimal number of docs/results.md's prose with no source marker
# or exemption.
# Usage: sh tests/e2e/e2e_house_scripts.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
examples="$here/../examples"

# ---- a small task, a tiny model, a sweep with early exits ----
"$seqrep" gen right-cue --out-dir data/tiny --seed 3 --train 60 --dev 20 --test 30 --corpus 300 2>/dev/null
"$seqrep" train-lm --corpus data/tiny/corpus.txt --out lm.safetensors --layers 2 --d-model 16 \
    --heads 2 --d-ff 32 --seq-len 112 --batch 4 --steps 40 --threads 1 --quiet >/dev/null 2>&1
grid="--data data/tiny --model lm.safetensors --methods causal,sr --r 1,4 --seeds 1,2 --epochs 2 --lr 0.01 --threads 1"
expect_status 0 "sweep at every exit" "$seqrep" sweep $grid --exits 1,2 --out grid/sweep.csv
rows=$(($(wc -l <grid/sweep.csv) - 1))
if [ "$rows" = 12 ]; then ok "setup: 12 runs (causal, sr r = 1, 4; 2 exits; 2 seeds)"; else bad "setup: $rows runs"; fi

# ---- sweep_time.sh ----
expect_status 0 "sweep_time.sh" sh "$examples/sweep_time.sh" grid/sweep.csv 2
python3 - grid/sweep.csv out.txt <<'PY' && ok "time table: 3 configurations at depth 2, the sum of all 12 runs" || { bad "time table"; cat out.txt; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
lines = [l for l in open(sys.argv[2]) if l.startswith("| ") and not l.startswith("| method")]
total = sum(float(r["seconds"]) for r in rows)
full = [l for l in lines if not l.startswith("| all runs")]
ok = (len(full) == 3 and full[0].startswith("| causal | 0 | run | 2 |") and full[1].startswith("| sr | 1 | run | 2 |")
      and full[2].startswith("| sr | 4 | run | 2 |") and lines[-1].startswith("| all runs | | | 12 | | %.0f " % total))
sys.exit(0 if ok else 1)
PY
expect_error "sweep_time.sh: a missing CSV" "no such file" sh "$examples/sweep_time.sh" nothere.csv 2

# ---- exit_compare.sh ----
expect_status 0 "exit_compare.sh" sh "$examples/exit_compare.sh" "$seqrep" grid/sweep.csv full 2 exits.csv exits.md
python3 - exits.csv exits.md <<'PY' && ok "exit pairs: causal, sr r=1, sr r=4 at exit 1 against exit 2" || { bad "exit pairs"; cat exits.csv exits.md; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
pairs = sorted((r["a"], r["b"]) for r in rows)
table = [l for l in open(sys.argv[2]) if l.startswith("| ") and l.count("|") == 10]
ok = (pairs == [("causal exit=1", "causal exit=2"), ("sr r=1 exit=1", "sr r=1 exit=2"), ("sr r=4 exit=1", "sr r=4 exit=2")]
      and all(r["seeds"] == "2" for r in rows) and len(table) == 4)
sys.exit(0 if ok else 1)
PY
expect_error "exit_compare.sh: no early exits under another recipe" "no run of the sweep" \
    sh "$examples/exit_compare.sh" "$seqrep" grid/sweep.csv paper 2 none.csv none.md
if [ ! -e none.csv ] && [ ! -e none.md ] && [ ! -e none.manifest.json ]; then ok "exit_compare.sh: nothing written on error"; else bad "files left on error"; fi
python3 - exits.manifest.json <<'PY' && ok "exit_compare.sh: a manifest with the command and 3 pairs" || { bad "exit manifest"; cat exits.manifest.json; }
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if m["command"].startswith("sh examples/exit_compare.sh ") and m["pairs"] == 3 and len(m["results_sha256"]) == 64 else 1)
PY
# another method's runs in the sweep, their per-run files gone: the exit pairs need only their own
cp -r grid other
"$seqrep" sweep $grid --methods unmask-full --exits 0 --out other/sweep.csv >/dev/null 2>&1
rm -f other/sweep.runs/*unmask-full*
expect_status 0 "exit_compare.sh: another method without its per-run files" \
    sh "$examples/exit_compare.sh" "$seqrep" other/sweep.csv full 2 other-exits.csv other-exits.md
if [ "$(grep -c unmask-full other/sweep.csv)" = 2 ] && cmp -s exits.csv other-exits.csv; then
    ok "exit_compare.sh: the same pairs with the other method's files gone"
else bad "exit pairs changed by another method's rows"; fi
expect_error "exit_compare.sh: a missing sweep CSV" "no such file" \
    sh "$examples/exit_compare.sh" "$seqrep" nothere.csv full 2 none.csv none.md

# ---- house_replay.py ----
cp -r grid kept
rm -r grid/sweep.runs
expect_status 1 "replay --missing: some missing" python3 "$examples/house_replay.py" "$seqrep" grid/sweep.csv --missing
if grep -q "12 runs without their per-run files" out.txt; then ok "replay --missing counts 12"; else bad "missing count"; cat out.txt; fi
expect_status 0 "replay --exit early --only method=sr" \
    python3 "$examples/house_replay.py" "$seqrep" grid/sweep.csv --exit early --only method=sr
if grep -q "^house_replay: 4 runs" out.txt && [ "$(grep -c 'same F1' out.txt)" = 4 ]; then
    ok "replay: the 4 early sr runs, the same F1"
else
    bad "filtered replay"; cat out.txt
fi
expect_status 0 "replay the rest with --record" \
    python3 "$examples/house_replay.py" "$seqrep" grid/sweep.csv --jobs 2 --record replay.csv
python3 - replay.csv <<'PY' && ok "record: 12 rows, every one the same" || { bad "record"; cat replay.csv; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
ok = (len(rows) == 12 and all(r["same"] == "yes" and r["threads"] == "1" for r in rows)
      and all(r["committed_test_f1"] == r["replay_test_f1"] for r in rows))
sys.exit(0 if ok else 1)
PY
if cmp -s grid/sweep.runs/"$(ls kept/sweep.runs | grep predictions | head -n 1)" \
          kept/sweep.runs/"$(ls kept/sweep.runs | grep predictions | head -n 1)"; then
    ok "replayed predictions equal the first run's, byte for byte"
else
    bad "replayed predictions differ"
fi
expect_status 0 "replay --missing: none missing" python3 "$examples/house_replay.py" "$seqrep" grid/sweep.csv --missing

# a committed row that the replay does not give
python3 - grid/sweep.csv changed.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
rows[0]["test_f1"] = "%.4f" % (float(rows[0]["test_f1"]) + 1)
rows[0]["command"] = rows[0]["command"].replace("grid/sweep.runs", "changed.runs")
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerow(rows[0])
PY
expect_status 1 "replay: a changed row fails" python3 "$examples/house_replay.py" "$seqrep" changed.csv
if grep -q "DIFFERENT F1" out.txt && grep -q "1 of 1 replays did not give" err.txt; then
    ok "replay: the changed row is named"
else
    bad "changed row report"; cat out.txt err.txt
fi

expect_error "replay: a folder for SEQREP" "not an executable seqrep" \
    python3 "$examples/house_replay.py" "$(dirname "$seqrep")" grid/sweep.csv
expect_error "replay: no such CSV" "nothere.csv" python3 "$examples/house_replay.py" "$seqrep" nothere.csv
expect_error "replay: --only on an unknown column" "has no column colour" \
    python3 "$examples/house_replay.py" "$seqrep" grid/sweep.csv --only colour=red
printf 'a,b\n1,2\n' >plain.csv
expect_error "replay: a CSV without commands" "line 1: no command column" \
    python3 "$examples/house_replay.py" "$seqrep" plain.csv

# ---- house_grid.sh with HOUSE_VARIANT: a tiny fake house cache ----
# data_rows CSV: rows after the header
data_rows() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }
build=$(dirname "$seqrep")
mkdir -p repo/examples repo/results/house cache/house/v1
for f in house_grid.sh house_grid_variant.sh house_hash.py house_replay.py house_heads.py house_heads_f1.py probe_table.sh sweep_time.sh \
    ablation.sh ablation_table.py; do
    cp "$examples/$f" repo/examples/
done
# a generated task stands in for NLU++ (results/data/nlupp), left-cue for the built-in tasks
"$seqrep" gen right-cue --out-dir repo/results/data/nlupp --seed 5 --train 40 --dev 16 --test 20 --corpus 300 >/dev/null 2>&1
"$seqrep" gen left-cue --out-dir repo/results/data/left-cue --seed 6 --train 40 --dev 16 --test 20 >/dev/null 2>&1
lmopts="--layers 2 --d-model 16 --heads 2 --d-ff 32 --seq-len 256 --batch 4 --steps 40 --threads 1 --quiet"
"$seqrep" train-lm --corpus repo/results/data/nlupp/corpus.txt --out cache/house/causal.safetensors $lmopts >/dev/null 2>&1
"$seqrep" train-lm --corpus repo/results/data/nlupp/corpus.txt --out cache/house/v1/causal.safetensors $lmopts \
    --repeat-share 0.5 >/dev/null 2>&1
date >cache/house/causal.done
python3 "$examples/house_hash.py" cache/house/causal.safetensors >repo/results/house/weights.sha256
# the base grid: NLU++ paper recipe, causal and sr r = 1 (run, restart) at both exits, unmask-full; seeds 1, 2
cd repo
"$seqrep" sweep --data results/data/nlupp --model "$work/cache/house/causal.safetensors" --methods causal,sr,unmask-full \
    --r 1 --copy-positions run,restart --exits 1,0 --recipe paper --seeds 1,2 --epochs 10 --lr 0.01 --threads 1 \
    --out results/house/nlupp-paper.csv >/dev/null 2>&1
sha256sum results/house/nlupp-paper.csv results/house/weights.sha256 >../base.sha256
cd "$work"
if [ "$(data_rows repo/results/house/nlupp-paper.csv)" = 16 ] && [ -s cache/house/v1/causal.safetensors ]; then
    ok "setup: fake house cache (house LM, variant v1), a base grid of 16 runs (2 exits)"
else
    bad "setup of the fake house cache"
fi
# vgrid_run STATUS NAME [VAR=VALUE...]: house_grid.sh in repo/ with the tiny settings
vgrid_run() {
    code=$1; name=$2; shift 2
    (cd repo && env SEQREP_CACHE="$work/cache" TASKS=left-cue SEEDS_PAPER=1,2 SEEDS_FULL=1 SEEDS_TASKS=1 JOBS=2 "$@" \
        sh examples/house_grid.sh "$build") >vgrid.out 2>vgrid.err
    got=$?
    if [ "$got" = "$code" ]; then ok "$name"; else bad "$name (exit $got, wanted $code)"; tail -n 5 vgrid.err; fi
}
vgrid_run 2 "variant grid: refused for an unfinished model" HOUSE_VARIANT=v1
if [ "$(wc -l <vgrid.err)" = 1 ] && grep -q "variant v1 has no finished model .*make house HOUSE_VARIANT=v1" vgrid.err &&
   [ ! -e repo/results/house/variants/v1/weights.sha256 ]; then
    ok "unfinished model: one line naming make house HOUSE_VARIANT=v1, nothing written"
else
    bad "unfinished model refusal"; cat vgrid.err
fi
date >cache/house/v1/causal.done
vgrid_run 2 "variant grid: refused for a variant without a model" HOUSE_VARIANT=v2
grep -q "variant v2 has no finished model" vgrid.err && ok "missing model named" || { bad "missing model message"; cat vgrid.err; }
vgrid_run 2 "variant grid: refused for a bad name" HOUSE_VARIANT="../x"
grep -q "must be letters, digits" vgrid.err && ok "bad name named" || { bad "bad name message"; cat vgrid.err; }

start=$(date +%s)
vgrid_run 0 "variant grid: every stage" HOUSE_VARIANT=v1
echo "     (the variant grid took $(($(date +%s) - start)) s)"
v=repo/results/house/variants/v1
md=repo/results/md/house-v1
python3 - "$v" <<'PY' && ok "lr: 4 candidates, causal and sr r = 1, seed 5, dev F1 only; weights.sha256 of the variant" || { bad "lr stage"; cat "$v/lr.csv"; }
import csv, glob, sys
v = sys.argv[1]
lr = list(csv.DictReader(open(v + "/lr.csv")))
runs = [r for p in glob.glob(v + "/lr/lr-*.csv") for r in csv.DictReader(open(p))]
ok = [r["lr"] for r in lr] == ["2e-4", "2e-3", "1e-2", "3e-2"] and len(runs) == 8
ok = ok and all(r["seed"] == "5" and r["recipe"] == "paper" and r["model"].endswith("/v1/causal.safetensors") for r in runs)
ok = ok and open(v + "/weights.sha256").read().split()[1] == "causal.safetensors"
sys.exit(0 if ok else 1)
PY
python3 - "$v" <<'PY' && ok "sweeps: causal, sr r = 1, 4 (run, restart), unmask-full, unmask-middle at full depth; the seeds asked" || bad "variant sweeps"
import csv, sys
v = sys.argv[1]
want = sorted(["causal 0 run", "sr 1 run", "sr 1 restart", "sr 4 run", "sr 4 restart", "unmask-full 0 run", "unmask-middle 0 run"])
ok = True
for name, seeds, recipe in (("nlupp-paper", {"1", "2"}, "paper"), ("nlupp-full", {"1"}, "full"), ("tasks-paper", {"1"}, "paper")):
    rows = list(csv.DictReader(open(f"{v}/{name}.csv")))
    for seed in seeds:
        got = sorted(f"{r['method']} {r['r']} {r['positions']}" for r in rows if r["seed"] == seed)
        ok = ok and got == want
    ok = ok and {r["seed"] for r in rows} == seeds and {r["exit"] for r in rows} == {"2"}
    ok = ok and {r["recipe"] for r in rows} == {recipe} and all("/v1/causal.safetensors" in r["model"] for r in rows)
    ok = ok and all(("--save " in r["command"]) == (name == "nlupp-paper") for r in rows)
    ok = ok and (name != "tasks-paper" or {r["dataset"] for r in rows} == {"left-cue"})
sys.exit(0 if ok else 1)
PY
n_saved=$(ls $v/nlupp-paper.runs/*.model.safetensors 2>/dev/null | wc -l)
if [ "$n_saved" = 14 ]; then ok "nlupp-paper: 14 saved models beside the runs"; else bad "saved models: $n_saved"; fi
if [ -s $v/probe/nlupp.csv ] && [ -s $v/probe/left-cue.csv ] &&
   [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["r"] }' $v/probe/nlupp.csv | sort -un | tr '\n' ' ')" = "0 1 2 4 8 " ]; then
    ok "probes: NLU++ and the task, r = 0, 1, 2, 4, 8"
else
    bad "probes"
fi
python3 - "$v" <<'PY' && ok "compare within the variant: every method against unmask-full and against causal" || bad "within compare"
import csv, sys
v = sys.argv[1]
ok = True
for b in ("unmask-full", "causal"):
    rows = list(csv.DictReader(open(f"{v}/nlupp-paper.compare-{b}.csv")))
    ok = ok and len(rows) == 6 and {r["b"] for r in rows} == {b} and all(r["seeds"] == "2" for r in rows)
    ok = ok and "sr r=1" in {r["a"] for r in rows} and "sr r=4 restart" in {r["a"] for r in rows}
sys.exit(0 if ok else 1)
PY
python3 - "$v" repo/results/house/nlupp-paper.csv <<'PY' && ok "variant − base: causal, sr r = 1 (run, restart), unmask-full at full depth, 2 seeds, the means of each side" || { bad "vs base"; cat "$v/nlupp-paper.vs-base.csv"; }
import csv, sys
v, base = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{v}/nlupp-paper.vs-base.csv")))
def mean(path, method, r, positions):
    f = [float(x["test_f1"]) for x in csv.DictReader(open(path))
         if x["method"] == method and x["r"] == r and x["positions"] == positions and x["exit"] == "2"]
    return sum(f) / len(f)
want = [("causal", "0", "run"), ("sr", "1", "run"), ("sr", "1", "restart"), ("unmask-full", "0", "run")]
labels = ["causal", "sr r=1", "sr r=1 restart", "unmask-full"]
ok = [(r["a"], r["b"]) for r in rows] == [(l + " [v1]", l + " [base]") for l in labels]
for r, (method, rr, pos) in zip(rows, want):
    a, b = mean(f"{v}/nlupp-paper.csv", method, rr, pos), mean(base, method, rr, pos)
    ok = ok and r["seeds"] == "2" and abs(float(r["f1_a"]) - a) < 1e-3 and abs(float(r["f1_b"]) - b) < 1e-3
sys.exit(0 if ok else 1)
PY
python3 - "$v" "$md" <<'PY' && ok "variant − base: the change of sr r = 1 − unmask-full (compare --gap), its markdown" || { bad "gap vs base"; cat "$v/nlupp-paper.gap-vs-base.csv"; }
import csv, sys
v, md = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{v}/nlupp-paper.gap-vs-base.csv")))
vs = {r["a"]: r for r in csv.DictReader(open(f"{v}/nlupp-paper.vs-base.csv"))}
gap_v1 = float(vs["sr r=1 [v1]"]["f1_a"]) - float(vs["unmask-full [v1]"]["f1_a"])
gap_base = float(vs["sr r=1 [v1]"]["f1_b"]) - float(vs["unmask-full [v1]"]["f1_b"])
change = rows[-1]
ok = len(rows) == 3 and change["a"] == "sr r=1 - unmask-full [v1]" and change["b"] == "sr r=1 - unmask-full [base]"
ok = ok and abs(float(change["diff"]) - (gap_v1 - gap_base)) < 1e-3 and float(change["lo"]) <= float(change["hi"])
ok = ok and "the change of sr r = 1 − unmask-full" in open(md + "-gap-vs-base.md").read()
sys.exit(0 if ok else 1)
PY
python3 - "$v" repo/results/house/heads <<'PY' && ok "heads summary: the house LM and v1 (NLU++ run, restart, random 50 with ICL), 8 fine-tuned sr runs" || { bad "heads summary"; cat "$v/heads-summary.csv"; }
import csv, os, sys
v, base_dir = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{v}/heads-summary.csv")))
lms = [(r["model"], r["data"], r["positions"]) for r in rows if r["run"] == "lm"]
ok = lms == [(m, d, p) for m in ("base", "v1") for d, p in (("nlupp-test", "run"), ("nlupp-test", "restart"), ("random50", "run"))]
ok = ok and all((r["icl_score"] != "") == (r["data"] == "random50") for r in rows)
runs = [r for r in rows if r["run"] != "lm"]
ok = ok and sorted((r["run"], r["seed"]) for r in runs) == sorted(
    (c, s) for c in ("sr r=1", "sr r=1 restart", "sr r=4", "sr r=4 restart") for s in ("1", "2"))
ok = ok and all(r["positions"] == ("restart" if r["run"].endswith("restart") else "run") for r in runs)
for r in rows:
    heads = list(csv.DictReader(open("repo/" + r["heads_csv"] if not os.path.isabs(r["heads_csv"]) else r["heads_csv"])))
    top = max(heads, key=lambda h: float(h["copy"]))
    ok = ok and len(heads) == 4 and abs(float(r["best_copy"]) - float(top["copy"])) < 1e-4
    ok = ok and (r["copy_layer"], r["copy_head"]) == (top["layer"], top["head"]) and r["r"] == "1"
ok = ok and sorted(os.listdir(base_dir)) == sorted(f"lm-{n}.{e}" for n in ("nlupp-run", "nlupp-restart", "random50")
                                                   for e in ("csv", "manifest.json", "log"))
sys.exit(0 if ok else 1)
PY
python3 - "$v" <<'PY' && ok "heads of a run: its saved model as --adapter, its positions, r = 1" || bad "heads manifests"
import glob, json, sys
v = sys.argv[1]
ms = [json.load(open(p)) for p in glob.glob(v + "/heads/runs/*.manifest.json")]
ok = len(ms) == 8 and all(m["adapter"].endswith(".model.safetensors") and m["r"] == 1 for m in ms)
ok = ok and sum(m["copy_positions"] == "restart" for m in ms) == 4
sys.exit(0 if ok else 1)
PY
python3 - "$v" <<'PY' && ok "heads-f1: every sr run's scores beside its F1, correlations per configuration" || bad "heads-f1"
import csv, sys
v = sys.argv[1]
rows = list(csv.DictReader(open(f"{v}/heads-f1.csv")))
summary = {(r["run"], r["seed"]): r for r in csv.DictReader(open(f"{v}/heads-summary.csv")) if r["run"] != "lm"}
sweep = {}
for r in csv.DictReader(open(f"{v}/nlupp-paper.csv")):
    if r["method"] == "sr":
        sweep[("sr r=%s%s" % (r["r"], " restart" if r["positions"] == "restart" else ""), r["seed"])] = r["test_f1"]
ok = len(rows) == 8 and all(r["test_f1"] == sweep[(r["run"], r["seed"])] and
                            r["best_induction"] == summary[(r["run"], r["seed"])]["best_induction"] for r in rows)
md = open(f"{v}/heads-f1.md").read().splitlines()
ok = ok and len(md) == 7 and md[2].startswith("| every sr run | 8 |") and md[3].startswith("| sr r=1 | 2 |")
sys.exit(0 if ok else 1)
PY
missing=""
for t in lr probe-nlupp probe-left-cue nlupp-paper nlupp-paper-time nlupp-paper-compare nlupp-full nlupp-full-compare \
         tasks-paper tasks-paper-compare vs-base heads heads-f1; do
    [ -s "$md-$t.md" ] || missing="$missing $t"
done
if [ -z "$missing" ] && grep -q "a is a configuration of v1, b the same configuration" "$md-vs-base.md" &&
   grep -q "no repo/results/house/nlupp-full.csv\|no results/house/nlupp-full.csv" vgrid.err &&
   grep -q "| v1 | sr r=4 restart | 2 | nlupp-test | restart |" "$md-heads.md"; then
    ok "tables: results/md/house-v1-*.md, variant − base where the base has a grid"
else
    bad "tables (missing:$missing)"; cat vgrid.err
fi
if (cd repo && sha256sum -c --quiet ../base.sha256) && [ ! -e repo/results/md/house-lr.md ] && [ ! -e repo/docs ]; then
    ok "the base grid's CSV, its weights file and tables untouched"
else
    bad "base grid touched"
fi

# resumed: nothing runs again, the heads are kept
touch marker
vgrid_run 0 "variant grid resumed" HOUSE_VARIANT=v1 STAGES="nlupp-paper nlupp-full tasks heads"
if [ "$(grep -c "0 to do" vgrid.err)" = 3 ] && [ -z "$(find $v/heads repo/results/house/heads -name '*.csv' -newer marker)" ] &&
   [ -n "$(find $v/heads-summary.csv -newer marker)" ]; then
    ok "resumed: no run again, no heads measured again"
else
    bad "resume"; grep "to do" vgrid.err; find $v/heads -name '*.csv' -newer $v/weights.sha256
fi
# a fresh checkout: no per-run files; the tables that need them are kept
cp "$md-nlupp-paper-compare.md" kept-compare.md
cp "$md-vs-base.md" kept-vs-base.md
mv $v/nlupp-paper.runs nlupp-paper.runs.aside
vgrid_run 0 "variant grid tables without per-run files" HOUSE_VARIANT=v1 STAGES=tables
if grep -q "v1 nlupp-paper: per-run files missing, its compare tables kept (STAGES=replay first)" vgrid.err &&
   cmp -s kept-compare.md "$md-nlupp-paper-compare.md" && cmp -s kept-vs-base.md "$md-vs-base.md"; then
    ok "fresh checkout: compare and vs-base tables kept, the replay named"
else
    bad "tables without per-run files"; cat vgrid.err
fi
mv nlupp-paper.runs.aside $v/nlupp-paper.runs
# other weights than the committed grid's
cp $v/weights.sha256 weights.kept
sed 's/^./0/' weights.kept >$v/weights.sha256
vgrid_run 2 "variant grid: refused for other weights" HOUSE_VARIANT=v1 STAGES=tables
if [ "$(wc -l <vgrid.err)" = 1 ] && grep -q "not the one of results/house/variants/v1/weights.sha256" vgrid.err; then
    ok "other weights: one line naming weights.sha256"
else
    bad "other weights message"; cat vgrid.err
fi
cp weights.kept $v/weights.sha256

# ---- house_variant_study.sh: the house LM and its variants side by side ----
cp "$examples/house_variant_study.sh" repo/examples/
printf 'variant,repeat_share,repeat_copies,repeat_random,steps,heldout_ppl\nv1,0.5,2,0,40,99.5\nv2,0.25,2,0,40,98.0\n' \
    >repo/results/house/variants.csv
printf 'objective,steps,heldout_ppl\ncausal,40,97.25\n' >repo/results/house/house.csv
study_run() {
    (cd repo && env SEQREP_CACHE="$work/cache" LR=0.01 sh examples/house_variant_study.sh "$build") >study.out 2>study.err
}
study_run && ok "variant study: ran" || { bad "variant study (exit $?)"; tail -n 5 study.err; }
grep -q "variant v2 is not trained here (make house HOUSE_VARIANT=v2): left out" study.err &&
    ok "variant study: an untrained variant named and left out" || { bad "untrained variant message"; cat study.err; }
python3 - repo/results/house/variants/study <<'PY' && ok "variant study: a row per LM, its best heads, ICL, perplexity and dev F1 as the files say" || { bad "study.csv"; cat repo/results/house/variants/study.csv; }
import csv, json, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(out + ".csv")))
ok = [r["variant"] for r in rows] == ["base", "v1"]
ok = ok and [r["heldout_ppl"] for r in rows] == ["97.25", "99.5"]
for r in rows:
    d = f"{out}/{r['variant']}"
    heads = list(csv.DictReader(open(d + "/heads-dev-run.csv")))
    top = max(heads, key=lambda h: float(h["induction"]))
    ok = ok and r["best_induction"] == "%.3f" % float(top["induction"])
    ok = ok and r["induction_head"] == "L%sH%s" % (top["layer"], top["head"])
    icl = json.load(open(d + "/heads-random30.manifest.json"))["icl_score"]
    ok = ok and r["icl_score"] == "%.3f" % icl
    f1 = {x["method"]: float(x["dev_f1"]) for x in csv.DictReader(open(f"{d}/{r['variant']}.csv"))}
    ok = ok and sorted(f1) == ["causal", "sr", "unmask-full"]
    ok = ok and r["sr_minus_unmask_dev"] == "%.2f" % (f1["sr"] - f1["unmask-full"])
    ok = ok and r["sr1_dev_f1"] == "%.2f" % f1["sr"]
md = open("repo/results/md/house-variant-study.md").read().splitlines()
ok = ok and len(md) == 4 and md[2].startswith("| base | 40 | 97.25 |") and md[3].startswith("| v1 | 40 | 99.5 |")
sys.exit(0 if ok else 1)
PY
touch marker
study_run
if [ -z "$(find repo/results/house/variants/study -name 'heads-*.csv' -newer marker)" ] && grep -q "0 to do" study.out study.err; then
    ok "variant study resumed: no heads measured again, no run again"
else
    bad "variant study resume"
fi
(cd repo && env SEQREP_CACHE="$work/nothere" LR=0.01 sh examples/house_variant_study.sh "$build") >study.out 2>study.err
if [ $? = 2 ] && [ "$(wc -l <study.err)" = 1 ] && grep -q "no .*nothere/house/causal.safetensors (make house)" study.err; then
    ok "variant study without a house LM: one line, exit 2"
else
    bad "variant study without a house LM"; cat study.err
fi

# ---- ablation_table.py pick: the heads of a made-up heads CSV ----
printf 'layer,head,induction,previous,induction_chance\n0,0,0.01,0.60,0.05\n0,1,0.02,0.10,0.05\n1,0,0.70,0.05,0.05\n1,1,0.12,0.02,0.05\n1,2,0.09,0.03,0.05\n1,3,0.05,0.01,0.05\n' >picked.csv
python3 "$examples/ablation_table.py" pick picked.csv >picked.txt
if [ "$(tr '\n' ' ' <picked.txt)" = "induction 1.0 0.700000 previous 0.0 0.600000 control 1.1 0.120000 control 1.2 0.090000 control 1.3 0.050000 together 1.0+1.1 0.120000 together-control 1.2+1.3 0.090000 " ]; then
    ok "ablation pick: induction, previous below it, controls, the layer's heads at twice chance together and as many others together"
else
    bad "ablation pick"; cat picked.txt
fi

# ---- examples/ablation.sh on the same cache: heads from dev, a sweep per head taken away, the table ----
ablation_run() {
    (cd repo && env SEQREP_CACHE="$work/cache" LMS=house SEEDS=1 LR=0.01 THREADS=1 sh examples/ablation.sh "$build") \
        >abl.out 2>abl.err
}
abl=repo/results/house/ablation
ablation_run
abl_rc=$?
if [ "$abl_rc" = 0 ] && python3 - "$abl" <<'PY'; then
import csv, json, os, sys
d = sys.argv[1]
heads = [line.split() for line in open(os.path.join(d, "house.heads.txt"))]
roles = [h[0] for h in heads]
assert roles == ["induction", "previous", "control"], heads
ind, prev, ctl = (h[1] for h in heads)
assert ind.startswith("1.") and prev.startswith("0.") and ctl.startswith("1.") and ctl != ind, heads
rows = lambda name: list(csv.DictReader(open(os.path.join(d, name))))
assert len(rows("house.none.csv")) == 5 and {r["positions"] for r in rows("house.none.csv")} == {"run", "restart", "induction"}
for h in (ind, prev, ctl):
    runs = rows("house.ablate-%s.csv" % h)
    assert len(runs) == 3 and all("--ablate-heads %s " % h in r["command"] for r in runs), runs
m = json.load(open(os.path.join(d, "house.heads-dev.manifest.json")))
assert m["data"].endswith("nlupp/dev.conll"), m["data"]
table = rows("ablation.csv")
assert {r["condition"] for r in table} == {"none", "induction", "previous", "control"}
assert any(r["comparison"] == "change" and r["a"] == "sr r=1 [ablate-%s]" % ind for r in table), table
assert any(r["a"] == "sr r=1 induction" and r["b"] == "causal" for r in table)
kinds = {r["comparison"] for r in table}
assert kinds == {"within", "change", "gap", "control"}, kinds
gap = [r for r in table if r["comparison"] == "gap" and r["ablated"] == ind and r["a"].startswith("sr r=1 - causal")]
assert len(gap) == 1 and gap[0]["a"] == "sr r=1 - causal [ablate-%s]" % ind and gap[0]["b"] == "sr r=1 - causal [none]", gap
ctl_rows = [r for r in table if r["comparison"] == "control"]
assert len(ctl_rows) == 1 and ctl_rows[0]["ablated"] == "%s-vs-%s" % (ind, ctl), ctl_rows
for r in gap + ctl_rows:
    assert abs(float(r["diff"]) - (float(r["f1_a"]) - float(r["f1_b"]))) < 1e-3, r
md = open(os.path.join(d, "..", "..", "md", "house-ablation.md")).read()
assert "**The change of a gap" in md and "**The induction head against each control head" in md, md
lm = json.load(open(os.path.join(d, "ablation.manifest.json")))["lms"]["house"]
assert [h["head"] for h in lm["heads"]] == [ind, prev, ctl] and lm["lr"] == "0.01" and len(lm["weights_sha256"]) == 64
PY
    ok "ablation: heads picked on dev, a sweep per head taken away, the gap changes, the table, its markdown and the manifest"
else
    bad "ablation"; tail -5 abl.err abl.out
fi
ablation_run
[ "$(cat abl.out abl.err | grep -c ", 0 to do")" = 4 ] && ok "ablation resumed: no run again" || bad "ablation resumed: no run again"

# ---- examples/induction_gap.py: sr r = 1 - unmask-full per LM against its best induction score ----
"$seqrep" heads --model cache/house/v1/causal.safetensors --data repo/results/data/nlupp/dev.conll --r 1 \
    --threads 1 --out v1-heads.csv >/dev/null 2>&1
expect_status 0 "induction_gap.py: three LMs" python3 "$examples/induction_gap.py" --out ig.csv --md ig.md --samples 200 \
    "house=repo/results/house/nlupp-paper.csv,$abl/house.heads-dev.csv" "v1=$v/nlupp-paper.csv,v1-heads.csv" \
    "house2=repo/results/house/nlupp-paper.csv,v1-heads.csv"
python3 - ig.csv repo/results/house/nlupp-paper.csv <<'PY' && ok "induction_gap.py: each gap the mean of sr r=1 - unmask-full over seeds, r and slope of those rows" || { bad "induction_gap.py"; cat ig.csv; }
import csv, math, sys
rows = {r["lm"]: r for r in csv.DictReader(open(sys.argv[1]))}
grid = list(csv.DictReader(open(sys.argv[2])))
full = max(int(r["exit"]) for r in grid)
f1 = lambda m, rr: {r["seed"]: float(r["test_f1"]) for r in grid if r["method"] == m and r["r"] == rr
                    and r["positions"] == "run" and int(r["exit"]) == full}
sr, un = f1("sr", "1"), f1("unmask-full", "0")
gap = sum(sr[s] - un[s] for s in sr) / len(sr)
assert abs(float(rows["house"]["gap"]) - gap) < 1e-3 and rows["house"]["seeds"] == "2", rows["house"]
assert float(rows["house"]["lo"]) <= gap + 1e-9 <= float(rows["house"]["hi"]) + 2e-9
xs = [float(rows[k]["best_induction"]) for k in ("house", "v1", "house2")]
ys = [float(rows[k]["gap"]) for k in ("house", "v1", "house2")]
mx, my = sum(xs) / 3, sum(ys) / 3
sxx = sum((x - mx) ** 2 for x in xs); syy = sum((y - my) ** 2 for y in ys)
sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
assert abs(float(rows["pearson_r"]["gap"]) - sxy / math.sqrt(sxx * syy)) < 1e-3, rows["pearson_r"]
assert abs(float(rows["slope_per_0.1"]["gap"]) - sxy / sxx / 10) < 1e-3, rows["slope_per_0.1"]
assert float(rows["pearson_r"]["lo"]) <= float(rows["pearson_r"]["hi"])
PY
grep -q "Pearson's r, 3 LMs" ig.md && grep -q "examples/induction_gap.py --out ig.csv" ig.manifest.json && ok "induction_gap.py: the markdown table and the manifest with the command" || { bad "induction_gap.py markdown"; cat ig.md; }
expect_error "induction_gap.py: a grid of another data set" "no NLU++ run under the paper recipe" \
    python3 "$examples/induction_gap.py" --out none.csv "x=grid/sweep.csv,v1-heads.csv"
expect_error "induction_gap.py: a bad argument" "neither an option nor" python3 "$examples/induction_gap.py" --out none.csv house
[ ! -e none.csv ] && ok "induction_gap.py: nothing written on error" || bad "induction_gap.py wrote on error"

# ---- examples/house.sh: the pre-training seed (HOUSE_SEED) on a tiny fake corpus ----
mkdir -p seeds/english
"$seqrep" gen-text --out seeds/english/train.txt --sentences 300 --seed 3 2>/dev/null
"$seqrep" gen-text --out seeds/english/heldout.txt --sentences 40 --seed 4 2>/dev/null
# house_run STATUS NAME [VAR=VALUE...]: house.sh with a tiny size into seeds/
house_run() {
    code=$1; name=$2; shift 2
    (cd "$here/.." && env SEQREP_CACHE="$work/seeds" HOUSE_LAYERS=1 HOUSE_D_MODEL=16 HOUSE_HEADS=2 HOUSE_D_FF=32 \
        HOUSE_SEQ_LEN=96 HOUSE_BATCH=2 HOUSE_STEPS=4 HOUSE_VOCAB=300 HOUSE_THREADS=1 HOUSE_SNAPSHOT_EVERY=2 "$@" \
        sh examples/house.sh "$build") >house.out 2>house.err
    got=$?
    if [ "$got" = "$code" ]; then ok "$name"; else bad "$name (exit $got, wanted $code)"; tail -n 3 house.err; fi
}
# trained_with DIR KEY=VALUE...: the manifest of DIR/causal.safetensors says so
trained_with() {
    python3 - "$@" <<'PY'
import json, struct, sys
raw = open(sys.argv[1] + "/causal.safetensors", "rb").read()
m = json.loads(json.loads(raw[8:8 + struct.unpack("<Q", raw[:8])[0]])["__metadata__"]["seqrep.manifest"])
for kv in sys.argv[2:]:
    k, v = kv.split("=")
    assert str(m.get(k)) == v, (k, m.get(k), v)
PY
}
house_run 0 "house.sh HOUSE_SEED=2 HOUSE_VARIANT=repeat50" HOUSE_SEED=2 HOUSE_VARIANT=repeat50
check "seed 2: repeat50-seed2, its own folder, trained with seed 2" trained_with seeds/house/repeat50-seed2 seed=2 repeat_share=0.5
check "seed 2: no repeat50 of seed 1 touched" test ! -e seeds/house/repeat50
house_run 0 "house.sh HOUSE_VARIANT=repeat50-seed2: the same model" HOUSE_VARIANT=repeat50-seed2
check "repeat50-seed2 is already trained" grep -q "repeat50-seed2/causal.safetensors is already trained" house.out
house_run 0 "house.sh HOUSE_VARIANT=plain: the house LM's settings, seed 1" HOUSE_VARIANT=plain
check "plain: seed 1 (the default), nothing repeated" trained_with seeds/house/plain seed=1 repeat_share=None
house_run 0 "house.sh HOUSE_SEED=3 without a variant" HOUSE_SEED=3
check "seed 3 alone: the variant plain-seed3, no house LM" sh -c 'test -s seeds/house/plain-seed3/causal.safetensors && test ! -e seeds/house/causal.safetensors'
check "plain-seed3 trained with seed 3" trained_with seeds/house/plain-seed3 seed=3
house_run 2 "house.sh HOUSE_SEED=x refused" HOUSE_SEED=x
check "HOUSE_SEED=x: one line" sh -c '[ "$(wc -l <house.err)" = 1 ] && grep -q "HOUSE_SEED .x. must be a whole number" house.err'
house_run 2 "house.sh: a name's seed and HOUSE_SEED disagree" HOUSE_SEED=2 HOUSE_VARIANT=repeat50-seed3
check "disagreeing seeds: one line" sh -c '[ "$(wc -l <house.err)" = 1 ] && grep -q "names seed 3, HOUSE_SEED is 2" house.err'

# ---- examples/snapshot_seeds.py: two seeds of plain (the snapshots of
# house.sh above, steps 0, 2, 4), the seeds' spread and the largest rise ----
# sentences of 10 words or fewer: twice their pieces fit the tiny LMs' 96 positions
awk '/^$/ { if (words <= 10 && kept < 8) { printf "%s\n", sentence; kept++ } sentence = ""; words = 0; next }
     { sentence = sentence $0 "\n"; words++ }' data/tiny/dev.conll >short.conll
for lm in plain plain-seed3; do
    sh "$examples/series_heads.sh" "$build" "seeds/house/$lm/snapshots" short.conll >/dev/null 2>&1 ||
        bad "series_heads.sh on $lm"
done
# the tiny LMs' heads stay near uniform: known scores are written into the
# measured CSVs (the best head of each snapshot), so the spread and the rise
# are known exactly: induction plain 0.05 0.10 0.30, plain-seed3 0.05 0.20
# 0.25 (a rise of 0.20 over a spread of 0.10: a jump); copy plain 0.10 0.10
# 0.10, plain-seed3 0.10 0.40 0.40 (a rise of 0.30 over a spread of 0.30: not)
python3 - seeds/house <<'PY' || bad "snapshot_seeds.py: known scores written"
import csv, os, sys
known = {"plain": {"induction": [0.05, 0.10, 0.30], "copy": [0.10, 0.10, 0.10]},
         "plain-seed3": {"induction": [0.05, 0.20, 0.25], "copy": [0.10, 0.40, 0.40]}}
for lm, scores in known.items():
    for i, step in enumerate((0, 2, 4)):
        path = os.path.join(sys.argv[1], lm, "snapshots", "measures", "heads-data", "step-%06d.csv" % step)
        rows = list(csv.DictReader(open(path)))
        for j, r in enumerate(rows):
            for score, values in scores.items():
                r[score] = "%.6f" % (values[i] if j == 0 else 0.01)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
PY
expect_status 0 "snapshot_seeds.py: two seeds of plain" python3 "$examples/snapshot_seeds.py" --cache seeds \
    --seqrep "$seqrep" --out-dir sd --md sd.md plain=plain,plain-seed3
python3 - sd <<'PY' && ok "snapshot_seeds.py: the seeds' spread and the largest rise of known scores" || { bad "snapshot_seeds.py"; cat sd/snapshots-spread.csv; }
import csv, os, sys
spread = {r["score"]: r for r in csv.DictReader(open(os.path.join(sys.argv[1], "snapshots-spread.csv")))}
assert set(spread) == {"data_best_copy", "data_best_induction", "random_best_copy", "random_best_induction", "icl_score"}
ind, copy = spread["data_best_induction"], spread["data_best_copy"]
want = {"seeds": "2", "steps": "3", "last_step": "4", "final_mean": "0.275", "final_lo": "0.250", "final_hi": "0.300",
        "max_spread": "0.100", "max_spread_step": "2", "jump": "0.200", "jump_seed": "plain", "jump_from": "2",
        "jump_to": "4", "spread_at_jump": "0.100", "jump_exceeds_spread": "yes"}
assert all(ind[k] == v for k, v in want.items()), ind
want = {"max_spread": "0.300", "jump": "0.300", "jump_seed": "plain-seed3", "jump_from": "0", "jump_to": "2",
        "spread_at_jump": "0.300", "jump_exceeds_spread": "no", "final_mean": "0.250"}
assert all(copy[k] == v for k, v in want.items()), copy
assert len(list(csv.DictReader(open(os.path.join(sys.argv[1], "snapshots.csv"))))) == 6
PY
check "snapshot_seeds.py: the markdown table, a row per score" sh -c '[ "$(grep -c "^| plain |" sd.md)" = 5 ]'
expect_error "snapshot_seeds.py: a group of one seed" "a group is NAME=LM,LM" \
    python3 "$examples/snapshot_seeds.py" --cache seeds --seqrep "$seqrep" --out-dir sd --md sd.md plain=plain
expect_error "snapshot_seeds.py: an LM whose snapshots are not measured" "repeat50-seed2: its snapshots are not measured" \
    python3 "$examples/snapshot_seeds.py" --cache seeds --seqrep "$seqrep" --out-dir sd --md sd.md r=plain,repeat50-seed2

# ---- make -n lab prints what it would do and runs nothing (the house script
# too: it used to share a line with $(MAKE), which make runs even under -n) ----
if command -v make >/dev/null 2>&1; then
    (cd "$here/.." && make -n lab BUILD="$work/lab-build" HOUSE_BUILD="$work/lab-house") >make-n.txt 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q "sh examples/house.sh $work/lab-house" make-n.txt && grep -q "examples/lab.py" make-n.txt &&
        [ ! -e "$work/lab-build" ] && [ ! -e "$work/lab-house" ]; then
        ok "make -n lab prints the house script and the lab, runs neither"
    else
        bad "make -n lab prints the house script and the lab, runs neither (exit $rc)"; tail -5 make-n.txt
    fi
fi

# ---- the lab's number check (examples/lab.py --check-only, as make test
# runs it): a number read from a file that is not committed, a prose number
# whose marker gives another value, one that agrees, and the prose of
# docs/results.md: unmarked numbers fail, marked and exempted ones pass ----
mkdir -p results/lab
printf 'r,share\n1,0.333333\n2,0.5\n' >results/lab/x.csv
cat >sheet.md <<'MD'
<!-- lab-step 1 fast -->
```sh
cp results/lab/x.csv lab/x.csv
```
| what | read from | we saw | ± |
| --- | --- | ---: | ---: |
| share, r = 2 | `results/lab/x.csv` share (r=2) | 0.50 | 0 |

One third, 0.333<!-- src: `results/lab/x.csv` share (r=1) -->, in prose.
MD
expect_status 0 "lab check: a table row and a prose number that agree" python3 "$examples/lab.py" --check-only sheet.md
sed 's/0.333</0.334</' sheet.md >wrong.md
expect_status 1 "lab check: a prose number its marker's file does not hold" python3 "$examples/lab.py" --check-only wrong.md
check "... named with its line and file" grep -q "wrong.md:9: prose: 0.334: the sheet says 0.334 ± 0, step 1 gave 0.3333" err.txt
sed 's/`results\/lab\/x.csv` share (r=2)/`lab\/x.csv` share (r=2)/' sheet.md >uncommitted.md
expect_error "lab check: a 'we saw' row read from a file that is not committed" \
    "uncommitted.md:7: 'read from' names lab/x.csv, which is not committed" python3 "$examples/lab.py" --check-only uncommitted.md
# docs/results.md (PROSE_DOCS): every decimal number of its prose is marked
# (an interval right after a marked number is read from lo and hi) or
# exempted (a setting, a cited figure, a head's name); code, tables and
# generated blocks are no prose; an unmarked number fails with file and line
mkdir -p docs
printf 'a,diff,lo,hi\nsr,7.65,2.83,12.39\n' >results/gain.csv
cat >docs/results.md <<'MD'
Dropout 0.1<!-- not a result: setting -->, the paper's 80.28<!-- cited: Kukić et al. 2026 -->,
head 2.3 and controls 2.0 and 2.1. SR gains
+7.65<!-- src: `results/gain.csv` diff (a=sr) -->
[+2.83, +12.39] over causal.

| a table | 0.5 |

```sh
seqrep finetune --lr 0.02
```
<!-- BEGIN:made -->
generated 0.25
<!-- END:made -->
MD
expect_status 0 "lab check: docs/results.md with every prose number marked or exempted" \
    python3 "$examples/lab.py" --check-only sheet.md
check "... its interval read from lo and hi" grep -q "prose: interval hi +12.39" out.txt
printf 'SR r = 4 gains 5.9 more.\n' >>docs/results.md
expect_status 1 "lab check: an unmarked number in the prose of docs/results.md" \
    python3 "$examples/lab.py" --check-only sheet.md
check "... named with its file, line and number" grep -q "^lab: docs/results.md:14: 5.9 quotes no source" err.txt
check "... and only it" test "$(grep -c 'quotes no source' err.txt)" = 1
sed 's/\[+2.83, +12.39\]/[+2.83, +12.40]/; $d' docs/results.md >r.md && mv r.md docs/results.md
expect_status 1 "lab check: an interval its marker's rows do not hold" \
    python3 "$examples/lab.py" --check-only sheet.md
check "... named with its line" grep -q "docs/results.md:4: prose: interval hi +12.40: the sheet says 12.4 ± 0, results/gain.csv gave 12.39" err.txt
rm -r docs results/gain.csv

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
