#!/bin/sh
# house_seeds.sh — seeds of pre-training (issue 41, part 3): the house LM's
# settings (variant plain) and repeat50's, pre-trained with seeds 2 and 3
# beside the committed seed-1 LMs, and what another pre-training seed changes.
#
#   train     make house HOUSE_VARIANT=V HOUSE_SEED=S for V in plain, repeat50
#             and S in SEEDS (default "2 3"): CACHE/house/V-seedS/, with
#             snapshots every 150 steps
#   grid      per LM (repeat50 and every V-seedS), at the paper recipe's
#             learning rate chosen on NLU++ dev for seed 1 of its settings
#             (house_grid.sh STAGES=lr for repeat50), the NLU++ grid under the paper recipe (causal, sr r = 1 with running and
#             restarting positions, unmask-full; seeds 5,29,42,81,123; two
#             jobs of one thread) and the heads on dev (seqrep heads --r 1)
#             into results/house/variants/LM/
#   tables    within each LM, against the house LM (house_grid.sh STAGES=tables:
#             SWEEP.compare-*.csv, SWEEP.gap-vs-base.csv), and the change of
#             sr r = 1 − unmask-full between every two seeds of the same
#             settings (compare --against --gap) into results/house/seeds/gap-A-B.csv,
#             collected in results/house/seeds/gap-changes.csv and
#             results/md/house-seeds-gap.md
#   snapshots the heads of every snapshot (series_heads.sh, NLU++ dev and
#             random sequences), then examples/snapshot_seeds.py: per group of
#             seeds, the seeds' spread at each step against the largest rise
#             between two snapshots, into results/house/seeds/snapshots*.csv
#             and results/md/house-seeds-snapshots.md
#   induction examples/induction_gap.py across the LMs with grids (the house
#             LM, plain3600, r50long, repeat50 and the seeds'): SR − unmask-full
#             against the best induction score, into results/house/seeds/induction-gap.csv
#             and results/md/house-seeds-induction-gap.md
#
# Every step resumes: a trained LM, a chosen rate, a finished run or a measured
# snapshot is kept. Per-run files (*.runs/) stay out of git; in a fresh
# checkout their tables are kept as committed (house_replay.py --missing).
# STAGES (default "train grid tables snapshots induction") picks stages;
# SEEDS_PAPER (default 5,29,42,81,123) the fine-tuning seeds (a grid run
# for fewer seeds is resumed by the whole one).
#
# Usage: sh examples/house_seeds.sh [BUILD_DIR]   (from the repository root;
#        after make house and sh examples/house_grid.sh, whose NLU++ files and
#        grid this compares against; about 20 minutes per LM on two cores)
set -eu
[ -f examples/house_seeds.sh ] || { echo "house_seeds: run me from the repository root" >&2; exit 2; }
build=${1:-build-house}
seqrep="$build/seqrep"
house=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}/house
seeds=${SEEDS:-2 3}
stages=${STAGES:-train grid tables snapshots induction}
finetune_seeds=${SEEDS_PAPER:-5,29,42,81,123}
dev=results/data/nlupp/dev.conll
out=results/house/seeds
[ -x "$seqrep" ] || { echo "house_seeds: $seqrep is not built (make BUILD=$build)" >&2; exit 2; }
[ -s "$dev" ] || { echo "house_seeds: no $dev (sh examples/house_grid.sh makes it)" >&2; exit 2; }
for s in $seeds; do
    case $s in 1 | '' | *[!0-9]* | 0*) echo "house_seeds: SEEDS '$seeds': seeds are whole numbers >= 2 (seed 1 is committed)" >&2; exit 2 ;; esac
done
log() { echo "== $(date -u +%H:%M:%S) $*"; }
has() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
plain_lms="" repeat_lms="repeat50"
for s in $seeds; do plain_lms="$plain_lms plain-seed$s"; repeat_lms="$repeat_lms repeat50-seed$s"; done
mkdir -p "$out"

# rate_of LR.CSV: the learning rate with the best mean dev F1 of an lr stage
rate_of() { awk -F, 'NR > 1 && $4 > best { best = $4; lr = $1 } END { print lr }' "$1"; }
# settings_rate LM: the rate chosen on dev for the same settings' seed 1
# (results/house/lr.csv for plain, results/house/variants/repeat50/lr.csv for
# repeat50, whose lr stage runs here first): every LM of the house so far
# chose 1e-2, 5 to 9 dev points above the next candidate, so the seeds do
# not choose again
settings_rate() {
    case $1 in
        plain-seed*) rates=results/house/lr.csv ;;
        *) rates=results/house/variants/${1%-seed*}/lr.csv
           [ -s "$rates" ] || HOUSE_VARIANT=${1%-seed*} STAGES=lr sh examples/house_grid.sh "$build" >&2 ;;
    esac
    rate_of "$rates"
}
# grid_lm LM: the paper-recipe grid and the heads on dev of one LM at that rate
grid_lm() {
    lm=$1 dir=results/house/variants/$1
    lr=$(settings_rate "$lm")
    log "$lm: nlupp-paper at lr $lr"
    "$seqrep" sweep --data results/data/nlupp --model "$house/$lm/causal.safetensors" \
        --methods causal,sr,unmask-full --r 1 --copy-positions run,restart --exits 0 --recipe paper \
        --seeds "$finetune_seeds" --epochs 10 --jobs 2 --threads 1 --lr "$lr" --out "$dir/nlupp-paper.csv" </dev/null
    if [ ! -s "$dir/heads-dev.csv" ]; then
        log "$lm: heads on dev"
        "$seqrep" heads --model "$house/$lm/causal.safetensors" --data "$dev" --r 1 --threads 2 \
            --out "$dir/heads-dev.csv" </dev/null
    fi
}

# gap A B: the change of sr r = 1 − unmask-full from LM A's grid to LM B's
gap() {
    a=$1 b=$2
    csv_of() { if [ "$1" = house ]; then echo results/house/nlupp-paper.csv; else echo "results/house/variants/$1/nlupp-paper.csv"; fi; }
    runs="--exit full --only method=sr,unmask-full --only r=0,1 --only positions=run"
    if python3 examples/house_replay.py "$seqrep" "$(csv_of "$a")" $runs --only seed=5,29,42,81,123 --missing >/dev/null &&
        python3 examples/house_replay.py "$seqrep" "$(csv_of "$b")" $runs --missing >/dev/null; then
        "$seqrep" compare --results "$(csv_of "$a")" --against "$(csv_of "$b")" --names "$a,$b" --exit 4 \
            --gap "sr r=1,unmask-full" --out "$out/gap-$a-$b.csv" --md "$out/gap-$a-$b.md"
    else
        echo "house_seeds: per-run files of $a or $b missing: $out/gap-$a-$b.csv kept as it is" >&2
    fi
}

if has train; then
    for s in $seeds; do
        for v in plain repeat50; do
            log "pre-training $v, seed $s"
            HOUSE_VARIANT=$v HOUSE_SEED=$s sh examples/house.sh "$build"
        done
    done
fi
if has grid; then
    for lm in $repeat_lms $plain_lms; do grid_lm "$lm"; done
fi
if has tables; then
    for lm in $repeat_lms $plain_lms; do
        LR=$(settings_rate "$lm") HOUSE_VARIANT=$lm STAGES=tables sh examples/house_grid.sh "$build"
    done
    # every two seeds of the same settings (the house LM is the plain settings' seed 1)
    pairs=""
    for set in "house $plain_lms" "$repeat_lms"; do
        set -- $set
        while [ $# -gt 1 ]; do
            a=$1; shift
            for b in "$@"; do pairs="$pairs $a:$b"; done
        done
    done
    for p in $pairs; do gap "${p%%:*}" "${p#*:}"; done
    { echo "a,b,seeds,gap_a,gap_b,change,lo,hi,resolved"
      for p in $pairs; do
          f="$out/gap-${p%%:*}-${p#*:}.csv"
          [ -s "$f" ] && awk -F, -v a="${p%%:*}" -v b="${p#*:}" 'NR == 4 { print a "," b "," $5 "," $7 "," $6 "," $8 "," $9 "," $10 "," $11 }' "$f"
      done; } >"$out/gap-changes.csv.tmp"
    mv "$out/gap-changes.csv.tmp" "$out/gap-changes.csv"
    { echo "| from LM a | to LM b | seeds | gap in a | gap in b | change (b − a) | 95% interval | resolved |"
      echo "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |"
      awk -F, 'NR > 1 { printf "| %s | %s | %d | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' \
          "$out/gap-changes.csv"; } >results/md/house-seeds-gap.md
    log "gap changes between seeds: $out/gap-changes.csv"
fi
if has snapshots; then
    groups=""
    # plain's seed 1 is the house LM, trained without snapshots: it joins
    # its group only as variant plain (make house HOUSE_VARIANT=plain)
    for set in "plain plain $plain_lms" "repeat50 $repeat_lms"; do
        set -- $set
        name=$1; shift
        have=""
        for lm in "$@"; do
            if [ -s "$house/$lm/snapshots/series.json" ]; then
                log "snapshots of $lm"
                sh examples/series_heads.sh "$build" "$house/$lm/snapshots" "$dev"
                have="$have${have:+,}$lm"
            fi
        done
        case $have in *,*) groups="$groups $name=$have" ;; *) echo "house_seeds: $name: fewer than two seeds with snapshots, left out" >&2 ;; esac
    done
    [ -z "$groups" ] || python3 examples/snapshot_seeds.py --seqrep "$seqrep" --cache "${house%/house}" \
        --out-dir "$out" --md results/md/house-seeds-snapshots.md $groups
fi
if has induction; then
    set -- house=results/house/nlupp-paper.csv,results/house/ablation/house.heads-dev.csv \
        plain3600=results/house/variants/plain3600/nlupp-paper.csv,results/house/variants/plain3600/heads-dev.csv \
        r50long=results/house/variants/r50long/nlupp-paper.csv,results/house/ablation/r50long.heads-dev.csv
    for lm in $repeat_lms $plain_lms; do
        set -- "$@" "$lm=results/house/variants/$lm/nlupp-paper.csv,results/house/variants/$lm/heads-dev.csv"
    done
    python3 examples/induction_gap.py --out "$out/induction-gap.csv" --md results/md/house-seeds-induction-gap.md "$@"
fi
log "house_seeds: done"
