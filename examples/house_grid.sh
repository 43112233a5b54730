#!/bin/sh
# house_grid.sh — the paper's grid with the house LMs (make reproduce-house,
# also the last part of make reproduce): docs/results.md section 7 ("The house LMs"),
# docs/house-nlupp.md and docs/house-tasks.md.
#
#   1. the learning rate of the paper recipe, chosen on NLU++ dev F1 only
#      (causal and sr r = 1, seed 5; the paper's 2e-4 is one candidate)
#   2. frozen per-layer probes of the house causal LM, r = 0, 1, 2, 4, 8,
#      last and first copy, on NLU++ and the built-in tasks
#   3. NLU++, paper recipe (LoRA) at the chosen rate, seeds 5,29,42,81,123:
#      causal, sr r = 1, 2, 4, 8, unmask-full, unmask-middle, the MLM encoder;
#      sr r = 1, 4 with positions restarting in every copy; early exits at
#      every layer for causal and sr r = 1, 4
#   4. NLU++, full recipe (every weight), seeds 5,29,42,81,123, the same methods
#   5. the built-in tasks, both recipes (full recipe: seeds 5,29,42)
#   replay (not in the default STAGES): a fresh checkout has the sweep CSVs
#      but not the per-run predictions that the tables compare; this stage
#      runs them again from each row's command (examples/house_replay.py)
#      and checks that every replay gives the committed F1 (the comparison
#      goes to results/house/replay-NAME.csv)
#   6. paired bootstrap intervals (seqrep compare), every early exit against
#      full depth (examples/exit_compare.sh), fine-tuning time
#      (examples/sweep_time.sh) and the tables
#
# Threads: stages 1 and 3 run one job at a time on two threads (the committed
# rows were made so); stages 4 and 5 run two jobs of one thread each, which
# trains 1.6 to 2 times as many runs an hour on two cores. The thread count
# is part of each row's command: a run repeats bit for bit only with it
# (docs/performance.md, Reproducibility).
#
# Every sweep resumes and every finished step is kept, so an interrupted run
# continues where it stopped. Per-run files (results/house/*.runs/) stay out
# of git; the sweep CSVs, the compare CSVs and results/md/house-*.md are
# committed. STAGES (default "lr probe nlupp-paper nlupp-full tasks tables")
# picks stages; TASKS (built-in tasks, default "right-cue last-word left-cue"),
# SEEDS_PAPER, SEEDS_FULL, SEEDS_TASKS_FULL, JOBS, LR (skip stage 1) override;
# a sweep run for fewer tasks or seeds is resumed by the whole one. In a
# fresh checkout, STAGES="replay tables" rebuilds every table from the
# committed sweep CSVs.
#
# HOUSE_VARIANT=NAME runs the grid again on the causal LM of a variant
# pre-trained on repeated text (make house HOUSE_VARIANT=NAME) into
# results/house/variants/NAME/ instead: examples/house_grid_variant.sh says
# which stages, methods and files (SEEDS_TASKS sets its tasks' seeds).
#
# Usage: sh examples/house_grid.sh [BUILD_DIR]   (from the repository root)
set -eu
[ -f examples/house_grid.sh ] || { echo "house_grid: run me from the repository root" >&2; exit 2; }
build=${1:-build}
seqrep="$build/seqrep"
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
house="$cache/house"
nlupp=${NLUPP:-../shared/data/nlupp}
data=${HOUSE_DATA:-results/data}
tasks=${TASKS:-right-cue last-word left-cue}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
[ -x "$seqrep" ] || { echo "house_grid: $seqrep is not built (run make)" >&2; exit 2; }
variant=${HOUSE_VARIANT:-}
log() { echo "== $(date -u +%H:%M:%S) ${variant:+[$variant] }$*"; }

# What differs between the house LM's grid and a variant's: where its files
# go (out, md), its LM, its stages, sweeps and seeds, and four functions:
#   grid DATA CSV RECIPE SEEDS JOBS THREADS [sweep options]   the sweeps of a stage
#   compare_sweep NAME     the intervals of one sweep (in the tables stage)
#   tables_more            the tables only this grid has
#   heads_stage            the heads stage (a variant's only)
# HOUSE_VARIANT=NAME: the grid again on a variant's LM instead, into
# results/house/variants/NAME/ (examples/house_grid_variant.sh)
if [ -n "$variant" ]; then
    . examples/house_grid_variant.sh
else
    out=results/house
    md=results/md/house
    what="house LM"
    stages=${STAGES:-lr probe nlupp-paper nlupp-full tasks tables}
    seeds_paper=${SEEDS_PAPER:-5,29,42,81,123}
    seeds_full=${SEEDS_FULL:-5,29,42,81,123}
    seeds_tasks_paper=$seeds_paper
    seeds_tasks_full=${SEEDS_TASKS_FULL:-5,29,42}
    paper_options=""
    sweeps="nlupp-paper nlupp-full tasks-paper tasks-full"   # results/house/NAME.csv
    lm="$house/causal.safetensors"
    mlm="$house/mlm.safetensors"
    for f in causal mlm; do
        [ -s "$house/$f.safetensors" ] && [ -s "$house/$f.done" ] ||
            { echo "house_grid: $house/$f.safetensors is missing: run make house first" >&2; exit 2; }
    done
    [ -d "$nlupp/banking" ] || { echo "house_grid: no NLU++ at $nlupp (give NLUPP=/path/to/nlupp)" >&2; exit 2; }
    # the committed rows belong to the models whose hash results/house/weights.sha256
    # holds (written by house.sh); other models would mix two grids in one file
    if [ -s "$out/weights.sha256" ]; then
        python3 examples/house_hash.py "$lm" "$mlm" >"$out/weights.now" || exit 2
        if ! cmp -s "$out/weights.now" "$out/weights.sha256"; then
            rm -f "$out/weights.now"
            echo "house_grid: the house models in $house are not the ones of $out/weights.sha256 (the committed grid's); train them with make house, or move $out aside to start a new grid" >&2
            exit 2
        fi
        rm -f "$out/weights.now"
    fi

    # every method at full depth, sr r = 1, 4 restarting positions, early
    # exits for causal and sr r = 1, 4; THREADS 0 leaves the thread count to
    # seqrep (two here)
    grid() {
        dirs=$1; csv=$2; recipe=$3; seeds=$4; jobs=$5; threads=$6; shift 6
        [ "$threads" = 0 ] || set -- --threads "$threads" "$@"
        "$seqrep" sweep --data "$dirs" --model "$lm" --encoder-model "$mlm" \
            --methods causal,sr,unmask-full,unmask-middle,encoder --r 1,2,4,8 --exits 0 \
            --recipe "$recipe" --seeds "$seeds" --epochs 10 --jobs "$jobs" --out "$csv" "$@"
        "$seqrep" sweep --data "$dirs" --model "$lm" --methods sr --r 1,4 --exits 0 \
            --copy-positions restart --recipe "$recipe" --seeds "$seeds" --epochs 10 --jobs "$jobs" \
            --out "$csv" "$@"
        "$seqrep" sweep --data "$dirs" --model "$lm" --methods causal,sr --r 1,4 --exits 1,2,3 \
            --recipe "$recipe" --seeds "$seeds" --epochs 10 --jobs "$jobs" --out "$csv" "$@"
    }
    # compare_sweep NAME: every configuration against the others at full
    # depth, and every early exit against full depth (causal, sr r = 1, 4)
    compare_sweep() {
        name=$1
        if python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --exit full --missing >/dev/null; then
            "$seqrep" compare --results "$out/$name.csv" --exit "$layers" --out "$out/$name.compare.csv" \
                --md "$md-$name-compare.md"
        else
            echo "house_grid: $name: per-run files of full depth missing, its compare table kept (STAGES=replay first)" >&2
        fi
        if ! awk -F, -v layers="$layers" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                $col["exit"] < layers { early = 1 } END { exit !early }' "$out/$name.csv"; then
            echo "house_grid: $name: no early exits yet, no exit table" >&2
        elif python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --only method=causal,sr --only r=0,1,4 \
            --only positions=run --missing >/dev/null; then
            sh examples/exit_compare.sh "$seqrep" "$out/$name.csv" "${name#*-}" "$layers" "$out/$name.exits.csv" \
                "$md-$name-exits.md"
        else
            echo "house_grid: $name: per-run files of causal, sr r = 1, 4 missing, its exit table kept (STAGES=replay first)" >&2
        fi
    }
    heads_stage() {
        echo "house_grid: heads is a stage of a variant's grid (HOUSE_VARIANT=NAME), which measures the house LM's heads too" >&2
    }
    # tables_more: the tables into docs/results.md, house-nlupp.md, house-tasks.md
    tables_more() {
        names="house-lr"
        for name in nlupp $tasks; do names="$names house-probe-$name"; done
        for name in $sweeps; do
            [ -s "$out/$name.csv" ] || continue
            names="$names house-$name house-$name-compare house-$name-exits house-$name-time"
        done
        for doc in ${DOC:-docs/results.md docs/house-nlupp.md docs/house-tasks.md}; do
            sh examples/fill_doc.sh "$doc" results/md $names
        done
    }
fi
mkdir -p "$out/lr" "$out/probe" "$out/logs" results/md
layers=$("$seqrep" info "$lm" | awk '$1 == "layers" { print $2 }')
want() { echo " $stages " | grep -q " $1 "; }

# the data: NLU++ folds as CoNLL, the built-in tasks generated (seed 1)
d="$data/nlupp"
if [ ! -s "$d/test.conll" ]; then
    [ -d "$nlupp/banking" ] || { echo "house_grid: no NLU++ at $nlupp (give NLUPP=/path/to/nlupp)" >&2; exit 2; }
    "$seqrep" import-nlupp "$nlupp" --out-dir "$d" --quiet
fi
for task in $tasks; do
    [ -s "$data/$task/test.conll" ] || "$seqrep" gen "$task" --out-dir "$data/$task" --seed 1
done

# 1. the paper recipe's learning rate, on NLU++ dev F1 only
if [ -z "${LR:-}" ] && want lr; then
    log "learning rate of the paper recipe (dev F1)"
    for rate in 2e-4 2e-3 1e-2 3e-2; do
        "$seqrep" sweep --data "$d" --model "$lm" --methods causal,sr --r 1 --seeds 5 \
            --recipe paper --epochs 10 --lr "$rate" --jobs "${JOBS:-1}" --out "$out/lr/lr-$rate.csv" \
            --summary "$out/lr/lr-$rate.md"
    done
fi
# lr.csv: mean dev F1 of the two methods at each rate; the best is chosen
if ls "$out"/lr/lr-*.csv >/dev/null 2>&1; then
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; rate = FILENAME
                        sub(/.*lr-/, "", rate); sub(/\.csv$/, "", rate); next }
             { s[rate] += $col["dev_f1"]; n[rate]++; m[rate, $col["method"]] = $col["dev_f1"] }
             END { print "lr,causal_dev_f1,sr1_dev_f1,mean_dev_f1"
                   for (r in s) printf "%s,%.2f,%.2f,%.2f\n", r, m[r, "causal"], m[r, "sr"], s[r] / n[r] }' \
        "$out"/lr/lr-*.csv | sort -t, -k1,1g >"$out/lr.csv"
fi
chosen=${LR:-}
if [ -z "$chosen" ] && [ -s "$out/lr.csv" ]; then
    chosen=$(awk -F, 'NR > 1 && $4 > best { best = $4; lr = $1 } END { print lr }' "$out/lr.csv")
fi
[ -n "$chosen" ] || { echo "house_grid: ${variant:+variant $variant: }no learning rate chosen (run the lr stage)" >&2; exit 2; }
log "paper recipe learning rate: $chosen (chosen on dev)"

# 2. frozen per-layer probes of the causal LM
if want probe; then
    log "probes of the frozen $what"
    for name in nlupp $tasks; do
        [ -s "$out/probe/$name.csv" ] || "$seqrep" probe --model "$lm" --train "$data/$name/train.conll" \
            --dev "$data/$name/dev.conll" --test "$data/$name/test.conll" --r 0,1,2,4,8 \
            --out "$out/probe/$name.csv" >"$out/logs/probe-$name.log" 2>&1
    done
fi

# 3.-5. the sweeps
if want nlupp-paper; then
    log "NLU++, paper recipe, lr $chosen${paper_options:+ (every run's model kept)}"
    grid "$d" "$out/nlupp-paper.csv" paper "$seeds_paper" "${JOBS:-1}" 0 --lr "$chosen" $paper_options
fi
if want nlupp-full; then
    log "NLU++, full recipe"
    grid "$d" "$out/nlupp-full.csv" full "$seeds_full" "${JOBS:-2}" 1
fi
if want tasks; then
    task_dirs=$(for t in $tasks; do printf '%s,' "$data/$t"; done)
    log "built-in tasks, paper recipe"
    grid "${task_dirs%,}" "$out/tasks-paper.csv" paper "$seeds_tasks_paper" "${JOBS:-2}" 1 --lr "$chosen"
    if [ -n "$seeds_tasks_full" ]; then
        log "built-in tasks, full recipe"
        grid "${task_dirs%,}" "$out/tasks-full.csv" full "$seeds_tasks_full" "${JOBS:-2}" 1
    fi
fi

if want replay; then
    for name in $sweeps; do
        [ -s "$out/$name.csv" ] || continue
        log "replaying the runs of $name whose per-run files are missing"
        python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --record "$out/replay-$name.csv"
    done
fi

if want heads; then heads_stage; fi

# 6. intervals and tables (a table whose runs lack their per-run files keeps
# its committed version)
if want tables; then
    log "intervals and tables"
    for name in $sweeps; do
        [ -s "$out/$name.csv" ] || continue
        sh examples/sweep_time.sh "$out/$name.csv" "$layers" >"$md-$name-time.md.tmp"
        mv "$md-$name-time.md.tmp" "$md-$name-time.md"
        cp "$out/$name.md" "$md-$name.md"
        compare_sweep "$name"
    done
    if [ -s "$out/lr.csv" ]; then
        { echo "| learning rate | causal dev F1 | sr r = 1 dev F1 | mean |"
          echo "| ---: | ---: | ---: | ---: |"
          awk -F, -v c="$chosen" 'NR > 1 { printf "| %s%s | %s | %s | %s |\n", $1, $1 == c ? " (chosen)" : "", $2, $3, $4 }' \
              "$out/lr.csv"; } >"$md-lr.md"
    fi
    for name in nlupp $tasks; do
        [ -s "$out/probe/$name.csv" ] || continue
        sh examples/probe_table.sh "$out/probe/$name.csv" "Probe test F1 (%), $what, $name: last copy (first copy)" \
            >"$md-probe-$name.md"
    done
    tables_more
fi
if [ -n "$variant" ]; then log "variant grid: done"; else log "house grid: done"; fi
