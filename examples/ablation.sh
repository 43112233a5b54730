#!/bin/sh
# ablation.sh — the mechanism by intervention (issue 41, part 4): NLU++ under
# the paper recipe (LoRA, each LM's learning rate as its grid chose it on dev
# F1: results/house/lr.csv, results/house/variants/NAME/lr.csv), three
# fine-tuning seeds, on the house LM, r50long and repeat50-seed2, with heads taken away
# (finetune --ablate-heads: the head's output zeroed before o_proj in the
# forward and the backward, so fine-tuning cannot route through it).
#
# For each LM:
#   1. the heads: `seqrep heads` at r = 1 on the NLU++ DEV split (nothing is
#      chosen on test) into OUT/LM.heads-dev.csv; examples/ablation_table.py
#      picks (i) the head with the largest induction score (layers 1 and up),
#      (ii) the largest previous-token score in a layer below it, (iii) every
#      other head of the induction head's layer (the control), (iv) every
#      head of that layer at twice chance or more, together, when there are
#      two or more (one may stand in for another; "L.H+L.H"), and (v) as
#      many other heads of that layer together, its control, into
#      OUT/LM.heads.txt
#   2. the sweeps, each resumable (a finished run is a row of its CSV and is
#      not run again):
#        OUT/LM.none.csv           nothing taken away: causal, unmask-full and
#                                  sr r = 1 with positions running, restarting
#                                  and induction-aligned (--copy-positions)
#        OUT/LM.ablate-L.H.csv     head L.H taken away: causal, sr r = 1,
#                                  unmask-full
#      in the order: for every LM none, induction, previous, together and
#      its control; then every
#      LM's controls
#   3. the intervals (seqrep compare, paired bootstrap over seeds and test
#      sentences): within each sweep every pair (OUT/NAME.compare.csv: sr r=1
#      - causal, unmask-full - sr r=1, ...); each ablated sweep against
#      the one without (OUT/NAME.change.csv: the same configuration, ablated
#      minus not) and the change of SR's gain over causal and of unmask-full's
#      lead over SR (OUT/NAME.gap-sr-causal.csv, OUT/NAME.gap-unmask-sr.csv:
#      compare --gap, the gap with the head taken away minus without); and,
#      once the controls are done, the change of SR's gain with the induction
#      head taken away against each control head taken away
#      (OUT/LM.ablate-I.vs-C.csv: does the induction head matter more than
#      another head of its layer?); then OUT/ablation.csv, every row of them
#      with the LM, the condition and the heads, the same as markdown tables
#      (MD, default results/md/house-ablation.md, for docs/results.md), and
#      OUT/ablation.manifest.json (the LMs' weight hashes, learning rates,
#      heads and their scores, seeds, this script's commands)
#
# r50long (repeat50 over 3,600 steps, examples/house_variant.sh) is
# pre-trained first when CACHE/house/r50long/causal.done is missing, as
# `make house HOUSE_VARIANT=r50long` does (about twice the house LM's time).
# A run takes a minute or two on two threads: 60 runs an LM, 120 in all.
#
# Per-run files (OUT/*.runs/) stay out of git; the CSVs, the heads and the
# manifest are committed. LMS (default "house r50long repeat50-seed2"), SEEDS (default
# 5,29,42), OUT (default results/house/ablation), THREADS (2: each run's
# threads), JOBS (1: runs at a time; JOBS=2 THREADS=1 suits two cores, the
# thread count is in each run's command), NLUPP, LR (one
# rate for every LM instead of each grid's choice) override.
#
# Usage: sh examples/ablation.sh [BUILD_DIR]   (from the repository root;
# BUILD_DIR as make house builds it: build-house)
set -eu
[ -f examples/ablation.sh ] || { echo "ablation: run me from the repository root" >&2; exit 2; }
build=${1:-build-house}
seqrep="$build/seqrep"
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
house="$cache/house"
nlupp=${NLUPP:-../shared/data/nlupp}
data=${HOUSE_DATA:-results/data}/nlupp
out=${OUT:-results/house/ablation}
md=${MD:-results/md/house-ablation.md}
lms=${LMS:-house r50long repeat50-seed2}
seeds=${SEEDS:-5,29,42}
threads=${THREADS:-2}
jobs=${JOBS:-1}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
[ -x "$seqrep" ] || { echo "ablation: $seqrep is not built (make -j2 BUILD=$build OPT=\"-O3 -march=x86-64-v3\" all)" >&2; exit 2; }
log() { echo "== $(date -u +%H:%M:%S) $*"; }
mkdir -p "$out" "$(dirname "$md")"

# lm_path NAME: the causal LM's file
lm_path() {
    case $1 in
        house) echo "$house/causal.safetensors" ;;
        *) echo "$house/$1/causal.safetensors" ;;
    esac
}
# lm_rate NAME: the paper recipe's rate the LM's grid chose on dev F1 (for
# a pre-training seed NAME-seedS, its settings' seed 1 chose it, as in
# examples/house_seeds.sh)
lm_rate() {
    if [ -n "${LR:-}" ]; then echo "$LR"; return; fi
    case $1 in
        house | plain-seed*) csv=results/house/lr.csv ;;
        *-seed*) csv=results/house/variants/${1%-seed*}/lr.csv ;;
        *) csv=results/house/variants/$1/lr.csv ;;
    esac
    [ -s "$csv" ] || { echo "ablation: no $csv to take $1's learning rate from (give LR=...)" >&2; exit 2; }
    awk -F, 'NR > 1 && ($4 + 0 > best || NR == 2) { best = $4 + 0; rate = $1 } END { print rate }' "$csv"
}
# ensure_lm NAME: the LM trained (a variant pre-trained here when missing)
ensure_lm() {
    model=$(lm_path "$1")
    dir=$(dirname "$model")
    [ -s "$model" ] && [ -s "$dir/causal.done" ] && return 0
    if [ "$1" = house ]; then
        echo "ablation: $model is missing: run make house first" >&2
        exit 2
    fi
    log "$1: pre-training (examples/house.sh with HOUSE_VARIANT=$1)"
    HOUSE_VARIANT=$1 OPENBLAS_CORETYPE=Haswell HOUSE_THREADS=$threads sh examples/house.sh "$build"
}

# the data: NLU++ folds as CoNLL
if [ ! -s "$data/test.conll" ]; then
    [ -d "$nlupp/banking" ] || { echo "ablation: no NLU++ at $nlupp (give NLUPP=/path/to/nlupp)" >&2; exit 2; }
    "$seqrep" import-nlupp "$nlupp" --out-dir "$data" --quiet
fi

# sweep LM CSV ABLATE METHODS POSITIONS: one resumable paper-recipe sweep
sweep() {
    lm=$1 csv=$2 ablate=$3 methods=$4 positions=$5
    set -- --ablate-heads "$ablate"
    [ "$ablate" = none ] && set --
    "$seqrep" sweep --data "$data" --model "$(lm_path "$lm")" --methods "$methods" --r 1 --exits 0 \
        --copy-positions "$positions" --recipe paper --lr "$(lm_rate "$lm")" --seeds "$seeds" \
        --epochs 10 --jobs "$jobs" --threads "$threads" --out "$csv" "$@" </dev/null
}
# compare_sweeps LM NAME: the intervals of OUT/LM.NAME.csv (within) and,
# for an ablated sweep, against OUT/LM.none.csv (change); a comparison that
# cannot be made yet (no seed in common) is said and left for the next time
compare_sweeps() {
    lm=$1 name=$2
    csv="$out/$lm.$name.csv"
    [ -s "$csv" ] && [ "$(wc -l <"$csv")" -gt 1 ] || return 0
    "$seqrep" compare --results "$csv" --out "$out/$lm.$name.compare.csv" </dev/null >/dev/null ||
        log "$lm.$name: no interval yet"
    if [ "$name" != none ] && [ -s "$out/$lm.none.csv" ]; then
        "$seqrep" compare --results "$out/$lm.none.csv" --against "$csv" --names "none,$name" \
            --out "$out/$lm.$name.change.csv" </dev/null >/dev/null || log "$lm.$name: no change interval yet"
    fi
}
# gap_change LM RESULTS AGAINST X Y OUT.csv: the change of the gap X - Y from
# sweep OUT/LM.RESULTS.csv to OUT/LM.AGAINST.csv (compare --gap), paired by
# seed and test sentence; said and left for the next time when it cannot be
# made yet (a configuration or a common seed missing)
gap_change() {
    lm=$1 from=$2 to=$3 x=$4 y=$5 gap_out=$6
    [ -s "$out/$lm.$from.csv" ] && [ -s "$out/$lm.$to.csv" ] || return 0
    "$seqrep" compare --results "$out/$lm.$from.csv" --against "$out/$lm.$to.csv" --names "$from,$to" \
        --gap "$x,$y" --out "$gap_out" </dev/null >/dev/null || log "$lm.$to: no $x - $y change against $from yet"
}
# write_tables: OUT/ablation.csv and MD from the compare CSVs so far, and the
# manifest (the LMs' weight hashes, rates and heads)
write_tables() {
    python3 examples/ablation_table.py summary --out "$out/ablation.csv" --md "$md" $items
    python3 - "$out" <<PY
import json, os, subprocess, sys
out = sys.argv[1]
m = {"command": "sh examples/ablation.sh $build", "seeds": "$seeds", "recipe": "paper", "epochs": 10,
     "data": "$data", "heads": "seqrep heads --r 1 on the dev split (OUT/LM.heads-dev.csv)",
     "lms": {}}
for entry in "$lm_info".split():
    name, model, rate = entry.split("|")
    heads = [line.split() for line in open(os.path.join(out, name + ".heads.txt"))]
    digest = subprocess.run(["python3", "examples/house_hash.py", model], capture_output=True,
                            text=True).stdout.split()
    m["lms"][name] = {"model": model, "weights_sha256": digest[0] if digest else None, "lr": rate,
                      "heads": [{"role": r, "head": h, "score": float(s)} for r, h, s in heads]}
tmp = os.path.join(out, "ablation.manifest.json.tmp")
with open(tmp, "w") as handle:
    json.dump(m, handle, indent=2)
    handle.write("\\n")
os.replace(tmp, os.path.join(out, "ablation.manifest.json"))
PY
}

# ablate LM ROLE HEAD SCORE: the sweep of one head (or "L.H+L.H", heads
# together) taken away, its intervals
ablate() {
    lm=$1 role=$2 head=$3 score=$4
    log "$lm: $role head $head (score $score) taken away"
    sweep "$lm" "$out/$lm.ablate-$head.csv" "$(echo "$head" | tr + ,)" causal,sr,unmask-full run
    compare_sweeps "$lm" "ablate-$head"
    gap_change "$lm" none "ablate-$head" "sr r=1" causal "$out/$lm.ablate-$head.gap-sr-causal.csv"
    gap_change "$lm" none "ablate-$head" unmask-full "sr r=1" "$out/$lm.ablate-$head.gap-unmask-sr.csv"
    items="$items $lm:$role:$head:$out/$lm.ablate-$head.compare.csv $lm:$role:$head:$out/$lm.ablate-$head.change.csv"
    items="$items $lm:$role:$head:$out/$lm.ablate-$head.gap-sr-causal.csv $lm:$role:$head:$out/$lm.ablate-$head.gap-unmask-sr.csv"
    write_tables
}

# first every LM's runs without ablation and with (i) and (ii), then the controls
items="" lm_info=""
for lm in $lms; do
    ensure_lm "$lm"
    model=$(lm_path "$lm")
    rate=$(lm_rate "$lm")
    heads_csv="$out/$lm.heads-dev.csv"
    if [ ! -s "$heads_csv" ]; then
        log "$lm: heads on the dev split"
        "$seqrep" heads --model "$model" --data "$data/dev.conll" --r 1 --threads "$threads" \
            --out "$heads_csv" </dev/null >"$out/$lm.heads-dev.txt"
    fi
    python3 examples/ablation_table.py pick "$heads_csv" >"$out/$lm.heads.txt"
    lm_info="$lm_info $lm|$model|$rate"
    log "$lm: lr $rate, heads: $(tr '\n' ' ' <"$out/$lm.heads.txt")"
    log "$lm: nothing taken away"
    sweep "$lm" "$out/$lm.none.csv" none causal,sr,unmask-full run,restart,induction
    compare_sweeps "$lm" none
    items="$items $lm:none:none:$out/$lm.none.compare.csv"
    write_tables
    grep -v '^control ' "$out/$lm.heads.txt" >"$out/$lm.heads.main.tmp"
    while read -r role head score; do ablate "$lm" "$role" "$head" "$score"; done <"$out/$lm.heads.main.tmp"
    rm -f "$out/$lm.heads.main.tmp"
done
for lm in $lms; do
    grep '^control ' "$out/$lm.heads.txt" >"$out/$lm.heads.control.tmp" || true
    while read -r role head score; do ablate "$lm" "$role" "$head" "$score"; done <"$out/$lm.heads.control.tmp"
    # the induction head against each control: SR's gain over causal with the
    # induction head taken away minus with the control head taken away
    induction=$(awk '$1 == "induction" { print $2 }' "$out/$lm.heads.txt")
    while read -r role head score; do
        gap_change "$lm" "ablate-$head" "ablate-$induction" "sr r=1" causal "$out/$lm.ablate-$induction.vs-$head.csv"
        items="$items $lm:control:$induction-vs-$head:$out/$lm.ablate-$induction.vs-$head.csv"
    done <"$out/$lm.heads.control.tmp"
    rm -f "$out/$lm.heads.control.tmp"
    # the layer's induction heads together against as many other heads together
    together=$(awk '$1 == "together" { print $2 }' "$out/$lm.heads.txt")
    others=$(awk '$1 == "together-control" { print $2 }' "$out/$lm.heads.txt")
    if [ -n "$together" ] && [ -n "$others" ]; then
        gap_change "$lm" "ablate-$others" "ablate-$together" "sr r=1" causal "$out/$lm.ablate-$together.vs-$others.csv"
        items="$items $lm:together-control:$together-vs-$others:$out/$lm.ablate-$together.vs-$others.csv"
    fi
    write_tables
done
log "done: $out/ablation.csv"
