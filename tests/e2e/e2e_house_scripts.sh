#!/bin/sh
# e2e_house_scripts.sh — end-to-end runs of the scripts that turn a sweep CSV
# of examples/house_grid.sh into its tables, on a small generated task and a
# tiny two-layer model: examples/sweep_time.sh (time per configuration, the
# sum of every run), examples/exit_compare.sh (every early exit against full
# depth of the same method) and examples/house_replay.py (the runs whose
# per-run files are gone run again from the CSV's commands, the same F1,
# the record, a changed row caught, bad inputs with exit 2 and one line).
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

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
