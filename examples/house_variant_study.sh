#!/bin/sh
# house_variant_study.sh — every house LM and its variants side by side
# (issue 29: do head scores predict the gain of SR?): for the house LM and
# each trained variant of results/house/variants.csv,
#   heads on the NLU++ dev sentences at r = 1 (positions running on and
#     restarting) and on --random 30 (100 sequences, the ICL score);
#   one paper-recipe fine-tuning of causal, sr r = 1 and unmask-full,
#     seed 5, every LM at the house LM's chosen rate (results/house/lr.csv,
#     or LR=...: one rate, so that only the LM differs), 10 epochs, dev F1
#     choosing the epoch as always.
# It chooses nothing: the variant of the grid is chosen from dev numbers
# (docs/results.md section 8), and this table shows how head scores and the
# SR gain go together across the six LMs.
#
# Writes (resumable: a file already there is kept)
#   results/house/variants/study/NAME/heads-dev-run.csv, heads-dev-restart.csv,
#     heads-random30.csv (manifests beside), NAME.csv (the sweep; NAME.runs/
#     per-run files stay out of git)
#   results/house/variants/study.csv: a row per LM: variant, steps, heldout_ppl,
#     best copy and induction (dev, running positions) with their head,
#     best induction with restarting positions, icl_score (random 30),
#     dev and test F1 of causal, sr r = 1 and unmask-full, and
#     sr_minus_unmask_dev, sr_minus_causal_dev
#   results/md/house-variant-study.md: the table of docs/results.md section 8
#
# Usage: sh examples/house_variant_study.sh [BUILD_DIR]   (from the repository root;
#        NLU++ CoNLL in results/data/nlupp, made by examples/house_grid.sh)
set -eu
[ -f examples/house_variant_study.sh ] || { echo "house_variant_study: run me from the repository root" >&2; exit 2; }
build=${1:-build-house}
seqrep="$build/seqrep"
house=${SEQREP_CACHE:-$HOME/.cache/seqrep}/house
data=results/data/nlupp
out=results/house/variants/study
lr=${LR:-$(awk -F, 'NR > 1 && $4 > best { best = $4; lr = $1 } END { print lr }' results/house/lr.csv)}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
[ -x "$seqrep" ] || { echo "house_variant_study: $seqrep is not built (make BUILD=$build all)" >&2; exit 2; }
[ -s "$data/dev.conll" ] || { echo "house_variant_study: no $data/dev.conll (sh examples/house_grid.sh makes it)" >&2; exit 2; }
[ -n "$lr" ] || { echo "house_variant_study: no learning rate in results/house/lr.csv" >&2; exit 2; }
mkdir -p "$out"

# measure NAME MODEL: heads and the three fine-tunings of one LM
measure() {
    name=$1; model=$2; dir="$out/$name"
    mkdir -p "$dir"
    echo "== $(date -u +%H:%M:%S) $name ($model)"
    [ -s "$dir/heads-dev-run.csv" ] || "$seqrep" heads --model "$model" --data "$data/dev.conll" --r 1 \
        --out "$dir/heads-dev-run.csv" >/dev/null
    [ -s "$dir/heads-dev-restart.csv" ] || "$seqrep" heads --model "$model" --data "$data/dev.conll" --r 1 \
        --copy-positions restart --out "$dir/heads-dev-restart.csv" >/dev/null
    [ -s "$dir/heads-random30.csv" ] || "$seqrep" heads --model "$model" --random 30 --r 1 \
        --out "$dir/heads-random30.csv" >/dev/null
    "$seqrep" sweep --data "$data" --model "$model" --methods causal,sr,unmask-full --r 1 --exits 0 \
        --recipe paper --seeds 5 --epochs 10 --lr "$lr" --jobs 1 --out "$dir/$name.csv"
}

names="base"
[ -s "$house/causal.safetensors" ] || { echo "house_variant_study: no $house/causal.safetensors (make house)" >&2; exit 2; }
measure base "$house/causal.safetensors"
for v in $(awk -F, 'NR > 1 { print $1 }' results/house/variants.csv); do
    if [ -s "$house/$v/causal.safetensors" ] && [ -s "$house/$v/causal.done" ]; then
        measure "$v" "$house/$v/causal.safetensors"
        names="$names $v"
    else
        echo "house_variant_study: variant $v is not trained here (make house HOUSE_VARIANT=$v): left out" >&2
    fi
done

python3 - "$out" $names <<'PY'
import csv, json, os, sys
out, names = sys.argv[1], sys.argv[2:]
variants = {r["variant"]: r for r in csv.DictReader(open("results/house/variants.csv"))}
house = {r["objective"]: r for r in csv.DictReader(open("results/house/house.csv"))}

def best(path, score):
    rows = list(csv.DictReader(open(path)))
    top = max(rows, key=lambda r: float(r[score]))
    return float(top[score]), "L%sH%s" % (top["layer"], top["head"])

cols = ["variant", "steps", "heldout_ppl", "best_copy", "copy_head", "best_induction", "induction_head",
        "best_induction_restart", "icl_score"]
methods = [("causal", "causal"), ("sr", "sr1"), ("unmask-full", "unmask")]
for _, short in methods:
    cols += [short + "_dev_f1", short + "_test_f1"]
cols += ["sr_minus_unmask_dev", "sr_minus_causal_dev"]
rows = []
for name in names:
    d = os.path.join(out, name)
    info = house["causal"] if name == "base" else variants[name]
    copy, copy_head = best(os.path.join(d, "heads-dev-run.csv"), "copy")
    ind, ind_head = best(os.path.join(d, "heads-dev-run.csv"), "induction")
    ind_restart, _ = best(os.path.join(d, "heads-dev-restart.csv"), "induction")
    icl = json.load(open(os.path.join(d, "heads-random30.manifest.json")))["icl_score"]
    f1 = {}
    for r in csv.DictReader(open(os.path.join(d, name + ".csv"))):
        f1[r["method"]] = (float(r["dev_f1"]), float(r["test_f1"]))
    row = {"variant": name, "steps": info["steps"], "heldout_ppl": info["heldout_ppl"],
           "best_copy": "%.3f" % copy, "copy_head": copy_head, "best_induction": "%.3f" % ind,
           "induction_head": ind_head, "best_induction_restart": "%.3f" % ind_restart, "icl_score": "%.3f" % icl}
    for method, short in methods:
        row[short + "_dev_f1"], row[short + "_test_f1"] = ("%.2f" % f1[method][0], "%.2f" % f1[method][1])
    row["sr_minus_unmask_dev"] = "%.2f" % (f1["sr"][0] - f1["unmask-full"][0])
    row["sr_minus_causal_dev"] = "%.2f" % (f1["sr"][0] - f1["causal"][0])
    rows.append(row)
tmp = out + ".csv.tmp"
with open(tmp, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
os.replace(tmp, out + ".csv")
md = ["| LM | steps | perplexity | copy (dev) | induction (dev) | induction, restart | ICL (random) | "
      "causal dev | sr r = 1 dev | unmask-full dev | sr − unmask (dev) | sr − causal (dev) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for r in rows:
    md.append("| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
        r["variant"], r["steps"], r["heldout_ppl"], r["best_copy"], r["copy_head"], r["best_induction"],
        r["induction_head"], r["best_induction_restart"], r["icl_score"], r["causal_dev_f1"], r["sr1_dev_f1"],
        r["unmask_dev_f1"], r["sr_minus_unmask_dev"], r["sr_minus_causal_dev"]))
os.makedirs("results/md", exist_ok=True)
with open("results/md/house-variant-study.md.tmp", "w") as f:
    f.write("\n".join(md) + "\n")
os.replace("results/md/house-variant-study.md.tmp", "results/md/house-variant-study.md")
print("\n".join(md))
PY
