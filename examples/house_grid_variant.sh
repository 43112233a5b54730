# house_grid_variant.sh — sourced by examples/house_grid.sh when HOUSE_VARIANT
# is set (make reproduce-house HOUSE_VARIANT=NAME; issue 29, "The grid again,
# per variant"): the paper's grid again on the causal LM of a variant
# pre-trained partly on repeated text (make house HOUSE_VARIANT=NAME,
# examples/house_variant.sh), into results/house/variants/NAME/, with the
# same data, learning-rate candidates, seeds and threads as the house LM's
# grid. Uses house_grid.sh's variables (seqrep, house, nlupp, data, tasks).
#
#   lr           the paper recipe's learning rate, chosen on NLU++ dev F1 only
#                (causal and sr r = 1, seed 5) among the base grid's candidates
#   probe        frozen per-layer probes, r = 0, 1, 2, 4, 8, last and first copy,
#                on NLU++ and the built-in tasks
#   nlupp-paper  NLU++, paper recipe at the chosen rate, SEEDS_PAPER (5 seeds);
#                every run keeps its fine-tuned model (sweep --save-models)
#   nlupp-full   NLU++, full recipe, SEEDS_FULL (5 seeds)
#   tasks        the built-in tasks, paper recipe, SEEDS_TASKS (5,29,42)
#   heads        seqrep heads on the NLU++ test sentences at r = 1: the
#                variant's LM, the house LM (once, into results/house/heads/),
#                --random 50 for both (the ICL score), and every sr run of
#                nlupp-paper with --adapter its saved model
#                (examples/house_heads.py; the full recipe saves a head only)
#   replay       (not in the default STAGES) the runs whose per-run files are
#                missing, again from their commands (examples/house_replay.py)
#   tables       paired bootstrap intervals within the variant (every method
#                against unmask-full and against causal) and against the house
#                LM's grid (the same configuration, variant − base), the tables
#
# Methods: causal, sr r = 1 and 4 with running and restarting positions,
# unmask-full, unmask-middle; full depth only (no early exits), no encoder
# (the MLM encoder is the same for every variant).
#
# Files (results/house/variants/NAME/; the per-run folders *.runs/ stay out
# of git, the rest is committed):
#   weights.sha256             the variant's weights this grid belongs to
#   lr/, lr.csv                the learning-rate sweeps and their dev F1
#   probe/DATASET.csv          the probes
#   nlupp-paper.csv, nlupp-full.csv, tasks-paper.csv (+ .md)   the sweeps
#   SWEEP.compare-unmask-full.{csv,md}, SWEEP.compare-causal.{csv,md}   within the variant
#   SWEEP.vs-base.{csv,md}     variant − base, per configuration
#   heads/, heads-summary.csv  the heads stage (house_heads.py)
#   heads-f1.{csv,md}          head scores against each sr run's F1 (house_heads_f1.py)
#   logs/                      the probes' logs
# and results/md/house-NAME-*.md: -lr, -probe-DATASET, -SWEEP, -SWEEP-time,
# -SWEEP-compare, -vs-base, -heads, -heads-f1.
variant=$HOUSE_VARIANT
case $variant in
    *[!A-Za-z0-9_-]* | -*) echo "house_grid: HOUSE_VARIANT '$variant' must be letters, digits, - and _" >&2; exit 2 ;;
esac
base_out=$out
out="$base_out/variants/$variant"
md="results/md/house-$variant"
lm="$house/$variant/causal.safetensors"
base_lm="$house/causal.safetensors"
stages=${STAGES:-lr probe nlupp-paper nlupp-full tasks heads tables}
seeds_tasks=${SEEDS_TASKS:-5,29,42}
sweeps="nlupp-paper nlupp-full tasks-paper"   # results/house/variants/NAME/SWEEP.csv
if [ ! -s "$lm" ] || [ ! -s "$house/$variant/causal.done" ]; then
    echo "house_grid: variant $variant has no finished model ($lm and causal.done beside it): train it with make house HOUSE_VARIANT=$variant" >&2
    exit 2
fi
# the committed rows belong to the weights of $out/weights.sha256 (written
# by the first grid of this variant); other weights would mix two grids
mkdir -p "$out"
python3 examples/house_hash.py "$lm" >"$out/weights.now" || exit 2
if [ ! -s "$out/weights.sha256" ]; then
    mv "$out/weights.now" "$out/weights.sha256"
elif ! cmp -s "$out/weights.now" "$out/weights.sha256"; then
    rm -f "$out/weights.now"
    echo "house_grid: the model of variant $variant in $house/$variant is not the one of $out/weights.sha256 (the committed grid's); train it with make house HOUSE_VARIANT=$variant, or move $out aside to start a new grid" >&2
    exit 2
else
    rm -f "$out/weights.now"
fi
mkdir -p "$out/lr" "$out/probe" "$out/logs" results/md
layers=$("$seqrep" info "$lm" | awk '$1 == "layers" { print $2 }')
want() { echo " $stages " | grep -q " $1 "; }
log() { echo "== $(date -u +%H:%M:%S) [$variant] $*"; }

# the data, as the base grid has it
d="$data/nlupp"
if [ ! -s "$d/test.conll" ]; then
    [ -d "$nlupp/banking" ] || { echo "house_grid: no NLU++ at $nlupp (give NLUPP=/path/to/nlupp)" >&2; exit 2; }
    "$seqrep" import-nlupp "$nlupp" --out-dir "$d" --quiet
fi
for task in $tasks; do
    [ -s "$data/$task/test.conll" ] || "$seqrep" gen "$task" --out-dir "$data/$task" --seed 1
done

# lr: the paper recipe's learning rate, on NLU++ dev F1 only
if [ -z "${LR:-}" ] && want lr; then
    log "learning rate of the paper recipe (dev F1)"
    for rate in 2e-4 2e-3 1e-2 3e-2; do
        "$seqrep" sweep --data "$d" --model "$lm" --methods causal,sr --r 1 --seeds 5 \
            --recipe paper --epochs 10 --lr "$rate" --jobs "${JOBS:-1}" --out "$out/lr/lr-$rate.csv" \
            --summary "$out/lr/lr-$rate.md"
    done
fi
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
[ -n "$chosen" ] || { echo "house_grid: variant $variant: no learning rate chosen (run the lr stage)" >&2; exit 2; }
log "paper recipe learning rate: $chosen (chosen on dev)"

# probe: the frozen variant LM
if want probe; then
    log "probes of the frozen LM"
    for name in nlupp $tasks; do
        [ -s "$out/probe/$name.csv" ] || "$seqrep" probe --model "$lm" --train "$data/$name/train.conll" \
            --dev "$data/$name/dev.conll" --test "$data/$name/test.conll" --r 0,1,2,4,8 \
            --out "$out/probe/$name.csv" >"$out/logs/probe-$name.log" 2>&1
    done
fi

# vgrid DATA CSV RECIPE SEEDS JOBS THREADS [sweep options]: causal, sr r = 1, 4
# (running and restarting positions), unmask-full, unmask-middle at full
# depth; THREADS 0 leaves the thread count to seqrep (two here)
vgrid() {
    dirs=$1; csv=$2; recipe=$3; seeds=$4; jobs=$5; threads=$6; shift 6
    [ "$threads" = 0 ] || set -- --threads "$threads" "$@"
    "$seqrep" sweep --data "$dirs" --model "$lm" --methods causal,sr,unmask-full,unmask-middle \
        --r 1,4 --copy-positions run,restart --exits 0 --recipe "$recipe" --seeds "$seeds" \
        --epochs 10 --jobs "$jobs" --out "$csv" "$@"
}
if want nlupp-paper; then
    log "NLU++, paper recipe, lr $chosen (every run's model kept)"
    vgrid "$d" "$out/nlupp-paper.csv" paper "${SEEDS_PAPER:-5,29,42,81,123}" "${JOBS:-1}" 0 --lr "$chosen" \
        --save-models
fi
if want nlupp-full; then
    log "NLU++, full recipe"
    vgrid "$d" "$out/nlupp-full.csv" full "${SEEDS_FULL:-5,29,42,81,123}" "${JOBS:-2}" 1
fi
if want tasks; then
    task_dirs=$(for t in $tasks; do printf '%s,' "$data/$t"; done)
    log "built-in tasks, paper recipe"
    vgrid "${task_dirs%,}" "$out/tasks-paper.csv" paper "$seeds_tasks" "${JOBS:-2}" 1 --lr "$chosen"
fi

if want replay; then
    for name in $sweeps; do
        [ -s "$out/$name.csv" ] || continue
        log "replaying the runs of $name whose per-run files are missing"
        python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --record "$out/replay-$name.csv"
    done
fi

# heads: the house LM only while it is the committed one (results/house/weights.sha256)
if want heads; then
    log "head roles (seqrep heads)"
    base_arg=""
    if [ -s "$base_lm" ] && [ -s "$base_out/weights.sha256" ] &&
        [ "$(python3 examples/house_hash.py "$base_lm" | cut -d' ' -f1)" = \
          "$(awk '$2 == "causal.safetensors" { print $1 }' "$base_out/weights.sha256")" ]; then
        base_arg="--base-lm $base_lm"
    else
        echo "house_grid: the house LM at $base_lm is missing or not the one of $base_out/weights.sha256: its heads are not measured" >&2
    fi
    sweep_arg=""
    [ -s "$out/nlupp-paper.csv" ] && sweep_arg="--sweep $out/nlupp-paper.csv"
    python3 examples/house_heads.py "$seqrep" --name "$variant" --lm "$lm" --data "$d/test.conll" \
        --out-dir "$out/heads" --base-dir "$base_out/heads" --summary "$out/heads-summary.csv" \
        --md "$md-heads.md" $base_arg $sweep_arg
fi

# tables: a table whose runs lack their per-run files keeps its committed version
# seeds_of CSV: the seeds of a sweep CSV, comma-separated
seeds_of() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } !s[$col["seed"]]++ { printf "%s%s", n++ ? "," : "", $col["seed"] }' "$1"; }
if want tables; then
    log "intervals and tables"
    for name in $sweeps; do
        [ -s "$out/$name.csv" ] || continue
        sh examples/sweep_time.sh "$out/$name.csv" "$layers" >"$md-$name-time.md.tmp"
        mv "$md-$name-time.md.tmp" "$md-$name-time.md"
        cp "$out/$name.md" "$md-$name.md"
        if python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --missing >/dev/null; then
            for b in unmask-full causal; do
                "$seqrep" compare --results "$out/$name.csv" --baseline "$b" --out "$out/$name.compare-$b.csv" \
                    --md "$out/$name.compare-$b.md"
            done
        else
            echo "house_grid: $variant $name: per-run files missing, its compare tables kept (STAGES=replay first)" >&2
        fi
        # variant − base: the base grid's runs of the same configurations and seeds
        base_csv="$base_out/$name.csv"
        if [ ! -s "$base_csv" ]; then
            echo "house_grid: no $base_csv: $name is not compared with the house LM's grid" >&2
        elif python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --missing >/dev/null &&
            python3 examples/house_replay.py "$seqrep" "$base_csv" --exit full \
                --only method=causal,sr,unmask-full,unmask-middle --only r=0,1,4 \
                --only seed="$(seeds_of "$out/$name.csv")" --missing >/dev/null; then
            "$seqrep" compare --results "$base_csv" --against "$out/$name.csv" --names "base,$variant" \
                --exit "$layers" --out "$out/$name.vs-base.csv" --md "$out/$name.vs-base.md"
        else
            echo "house_grid: $variant $name: per-run files of the variant's or the house LM's grid missing, its table against the base kept (STAGES=replay first; for the base grid STAGES=replay sh examples/house_grid.sh)" >&2
        fi
    done
    # the markdown of every comparison made so far (this run's or an earlier one's)
    for name in $sweeps; do
        [ -s "$out/$name.compare-unmask-full.md" ] && [ -s "$out/$name.compare-causal.md" ] || continue
        { printf '**Against unmask-full** (seqrep compare --baseline unmask-full)\n\n'
          cat "$out/$name.compare-unmask-full.md"
          printf '\n**Against causal** (seqrep compare --baseline causal)\n\n'
          cat "$out/$name.compare-causal.md"; } >"$md-$name-compare.md"
    done
    if ls "$out"/*.vs-base.md >/dev/null 2>&1; then
        { for name in $sweeps; do
              [ -s "$out/$name.vs-base.md" ] || continue
              printf '**%s**: %s − the house LM (seqrep compare --results %s --against %s)\n\n' "$name" \
                  "$variant" "$base_out/$name.csv" "$out/$name.csv"
              cat "$out/$name.vs-base.md"
              echo
          done; } >"$md-vs-base.md"
    fi
    # do head scores predict the F1 of the fine-tuned sr runs? (examples/house_heads_f1.py)
    if [ -s "$out/heads-summary.csv" ] && [ -s "$out/nlupp-paper.csv" ]; then
        python3 examples/house_heads_f1.py "$out/heads-summary.csv" "$out/nlupp-paper.csv" "$out/heads-f1" >/dev/null
        cp "$out/heads-f1.md" "$md-heads-f1.md"
    fi
    if [ -s "$out/lr.csv" ]; then
        { echo "| learning rate | causal dev F1 | sr r = 1 dev F1 | mean |"
          echo "| ---: | ---: | ---: | ---: |"
          awk -F, -v c="$chosen" 'NR > 1 { printf "| %s%s | %s | %s | %s |\n", $1, $1 == c ? " (chosen)" : "", $2, $3, $4 }' \
              "$out/lr.csv"; } >"$md-lr.md"
    fi
    for name in nlupp $tasks; do
        [ -s "$out/probe/$name.csv" ] || continue
        sh examples/probe_table.sh "$out/probe/$name.csv" "Probe test F1 (%), variant $variant, $name: last copy (first copy)" \
            >"$md-probe-$name.md"
    done
fi
log "variant grid: done"
