# house_grid_variant.sh — sourced by examples/house_grid.sh when HOUSE_VARIANT
# is set (make reproduce-house HOUSE_VARIANT=NAME; issue 29, "The grid again,
# per variant"): the paper's grid again on the causal LM of a variant
# pre-trained partly on repeated text (make house HOUSE_VARIANT=NAME,
# examples/house_variant.sh), into results/house/variants/NAME/, with the
# same data, learning-rate candidates, seeds and threads as the house LM's
# grid. Sets what house_grid.sh's stages read (out, md, lm, stages, sweeps,
# seeds) and defines its four functions for a variant (grid, compare_sweep,
# tables_more, heads_stage); uses seqrep, house, data and tasks.
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
#   SWEEP.gap-vs-base.{csv,md} the change of sr r = 1 − unmask-full, variant − base
#   heads/, heads-summary.csv  the heads stage (house_heads.py)
#   heads-f1.{csv,md}          head scores against each sr run's F1 (house_heads_f1.py)
#   logs/                      the probes' logs
# and results/md/house-NAME-*.md: -lr, -probe-DATASET, -SWEEP, -SWEEP-time,
# -SWEEP-compare, -vs-base, -gap-vs-base, -heads, -heads-f1.
case $variant in
    *[!A-Za-z0-9_-]* | -*) echo "house_grid: HOUSE_VARIANT '$variant' must be letters, digits, - and _" >&2; exit 2 ;;
esac
base_out=results/house
out="$base_out/variants/$variant"
md="results/md/house-$variant"
what="variant $variant"
lm="$house/$variant/causal.safetensors"
base_lm="$house/causal.safetensors"
stages=${STAGES:-lr probe nlupp-paper nlupp-full tasks heads tables}
seeds_paper=${SEEDS_PAPER:-5,29,42,81,123}
seeds_full=${SEEDS_FULL:-5,29,42,81,123}
seeds_tasks_paper=${SEEDS_TASKS:-5,29,42}
seeds_tasks_full=""                 # the built-in tasks: paper recipe only
paper_options="--save-models"       # for the heads of every fine-tuned sr run
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

# causal, sr r = 1, 4 (running and restarting positions), unmask-full,
# unmask-middle at full depth; THREADS 0 leaves the thread count to seqrep
grid() {
    dirs=$1; csv=$2; recipe=$3; seeds=$4; jobs=$5; threads=$6; shift 6
    [ "$threads" = 0 ] || set -- --threads "$threads" "$@"
    "$seqrep" sweep --data "$dirs" --model "$lm" --methods causal,sr,unmask-full,unmask-middle \
        --r 1,4 --copy-positions run,restart --exits 0 --recipe "$recipe" --seeds "$seeds" \
        --epochs 10 --jobs "$jobs" --out "$csv" "$@"
}

# heads: the house LM only while it is the committed one (results/house/weights.sha256)
heads_stage() {
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
}

# seeds_of CSV: the seeds of a sweep CSV, comma-separated
seeds_of() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } !s[$col["seed"]]++ { printf "%s%s", n++ ? "," : "", $col["seed"] }' "$1"; }
# compare_sweep NAME: every method against unmask-full and against causal
# within the variant, and variant − base against the house LM's runs of the
# same configurations and seeds
compare_sweep() {
    name=$1
    if python3 examples/house_replay.py "$seqrep" "$out/$name.csv" --missing >/dev/null; then
        for b in unmask-full causal; do
            "$seqrep" compare --results "$out/$name.csv" --baseline "$b" --out "$out/$name.compare-$b.csv" \
                --md "$out/$name.compare-$b.md"
        done
    else
        echo "house_grid: $variant $name: per-run files missing, its compare tables kept (STAGES=replay first)" >&2
    fi
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
    # the change of sr r = 1's gap to unmask-full from the house LM to the
    # variant (compare --gap): needs only those two configurations' files
    gap_runs="--exit full --only method=sr,unmask-full --only r=0,1 --only positions=run"
    if [ -s "$base_csv" ] && python3 examples/house_replay.py "$seqrep" "$out/$name.csv" $gap_runs --missing >/dev/null &&
        python3 examples/house_replay.py "$seqrep" "$base_csv" $gap_runs --only seed="$(seeds_of "$out/$name.csv")" \
            --missing >/dev/null; then
        "$seqrep" compare --results "$base_csv" --against "$out/$name.csv" --names "base,$variant" --exit "$layers" \
            --gap "sr r=1,unmask-full" --out "$out/$name.gap-vs-base.csv" --md "$out/$name.gap-vs-base.md"
    elif [ -s "$base_csv" ]; then
        echo "house_grid: $variant $name: per-run files of sr r = 1 or unmask-full missing, its gap change against the base kept" >&2
    fi
}

# tables_more: the markdown of every comparison made so far (this run's or an
# earlier one's) and whether head scores predict the F1 of the sr runs
tables_more() {
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
    if ls "$out"/*.gap-vs-base.md >/dev/null 2>&1; then
        { for name in $sweeps; do
              [ -s "$out/$name.gap-vs-base.md" ] || continue
              printf '**%s**: the change of sr r = 1 − unmask-full from the house LM to %s (seqrep compare --results %s --against %s --gap "sr r=1,unmask-full")\n\n' \
                  "$name" "$variant" "$base_out/$name.csv" "$out/$name.csv"
              cat "$out/$name.gap-vs-base.md"
              echo
          done; } >"$md-gap-vs-base.md"
    fi
    if [ -s "$out/heads-summary.csv" ] && [ -s "$out/nlupp-paper.csv" ]; then
        python3 examples/house_heads_f1.py "$out/heads-summary.csv" "$out/nlupp-paper.csv" "$out/heads-f1" >/dev/null
        cp "$out/heads-f1.md" "$md-heads-f1.md"
    fi
}
