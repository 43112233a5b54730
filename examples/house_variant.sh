# house_variant.sh — sourced by examples/house.sh when HOUSE_VARIANT is set:
# the causal house LM of one variant (pre-training on repeated text, issue
# 29), of the same size, data, steps and seed as the house LM (another seed
# with HOUSE_SEED), with
# snapshots for the phase-change study. Uses house.sh's variables (seqrep,
# corpus, out, the sizes, threads).
#
#   HOUSE_VARIANT        repeat25 | repeat50 | random25 | random50 | r50long
#                        (repeat50 over twice the steps, 3,600: the budget the
#                        variant needs to keep the house LM's perplexity) |
#                        plain (the house LM's own settings, HOUSE_REPEAT_*
#                        0 unless given: with seed 1 the house LM itself) |
#                        plain3600 (plain over r50long's
#                        3,600 steps) | any other name of letters, digits, -
#                        and _ with the settings below; NAME-seedS is NAME
#                        pre-trained with seed S
#   HOUSE_SEED           the pre-training seed (default 1, the seed of every
#                        committed LM); another seed S makes the variant
#                        NAME-seedS, in a folder of its own
#   HOUSE_REPEAT_SHARE   train-lm --repeat-share (other names only; default 0)
#   HOUSE_REPEAT_COPIES  train-lm --repeat-copies (other names only; default 2)
#   HOUSE_REPEAT_RANDOM  train-lm --repeat-random (other names only; default 0)
#   HOUSE_SNAPSHOT_EVERY snapshots at step 0 and every this many steps (default 150)
#
# Writes CACHE/house/NAME/{causal.safetensors, causal.state.safetensors,
# snapshots/, causal.perplexity.json, weights.sha256, causal.done} and the
# variant's row of CACHE/house/variants.csv, then CACHE/house/house-variants.md
# (make house-record copies them into results/). A variant with both shares 0
# is the house LM itself: its weights are then compared with
# results/house/weights.sha256 (the committed house LM's), or without it with
# the house LM's in the cache.
variant=$HOUSE_VARIANT
case $variant in
    *[!A-Za-z0-9_-]* | -*) echo "house: HOUSE_VARIANT '$variant' must be letters, digits, - and _" >&2; exit 2 ;;
esac
# NAME-seedS: NAME's settings, seed S (HOUSE_SEED, if given, must agree)
settings=$variant
case $variant in
    *-seed[1-9]*)
        named=${variant##*-seed} settings=${variant%-seed*}
        case $named in *[!0-9]*) settings=$variant named="" ;; esac
        if [ -n "$named" ]; then
            if [ -n "${HOUSE_SEED:-}" ] && [ "$HOUSE_SEED" != "$named" ]; then
                echo "house: HOUSE_VARIANT=$variant names seed $named, HOUSE_SEED is $HOUSE_SEED" >&2
                exit 2
            fi
            seed=$named
        fi ;;
esac
[ "$seed" = 1 ] || variant=$settings-seed$seed
share=0 copies=2 random=0
case $settings in
    plain) ;;
    plain3600) steps=${HOUSE_STEPS:-3600} ;;
    repeat25) share=0.25 ;;
    repeat50) share=0.5 ;;
    random25) random=0.25 ;;
    random50) random=0.5 ;;
    r50long) share=0.5 steps=${HOUSE_STEPS:-3600} ;;
esac
overrides="${HOUSE_REPEAT_SHARE:-}${HOUSE_REPEAT_COPIES:-}${HOUSE_REPEAT_RANDOM:-}"
case $settings in
    repeat25 | repeat50 | random25 | random50 | r50long)
        if [ -n "$overrides" ]; then
            echo "house: HOUSE_VARIANT=$variant has its own settings; give HOUSE_REPEAT_* another name" >&2
            exit 2
        fi ;;
    *)
        # plain and plain3600 repeat nothing unless HOUSE_REPEAT_* says otherwise
        if [ -z "$overrides" ] && [ "$settings" != plain ] && [ "$settings" != plain3600 ]; then
            echo "house: HOUSE_VARIANT=$variant is none of repeat25, repeat50, random25, random50, r50long, plain, plain3600; give its HOUSE_REPEAT_SHARE, HOUSE_REPEAT_COPIES or HOUSE_REPEAT_RANDOM" >&2
            exit 2
        fi
        share=${HOUSE_REPEAT_SHARE:-0} copies=${HOUSE_REPEAT_COPIES:-2} random=${HOUSE_REPEAT_RANDOM:-0} ;;
esac
every=${HOUSE_SNAPSHOT_EVERY:-150}
vdir="$out/$variant"
model="$vdir/causal.safetensors"
state="$vdir/causal.state.safetensors"
mkdir -p "$vdir"

# nonzero X: whether the number X is not 0
nonzero() { awk -v x="$1" 'BEGIN { exit !(x + 0 != 0) }'; }
# the settings of the variant (train-lm refuses --repeat-copies without a share)
repeat="--repeat-share $share --repeat-random $random"
if nonzero "$share"; then repeat="$repeat --repeat-copies $copies"; fi
# step 0, every $every steps, and the last
snapshot_steps=$(awk -v e="$every" -v s="$steps" 'BEGIN { for (k = 0; k <= s; k += e) printf "%s%d", (k ? "," : ""), k; if (s % e) printf ",%d", s }')

start=$(date +%s)
if [ -s "$model" ] && [ -s "$vdir/causal.done" ]; then
    echo "house: $model is already trained (remove $vdir/causal.done to train again)"
else
    resume=""
    [ -s "$state" ] && resume="--resume" && echo "house: resuming $variant from $state"
    echo "house: variant $variant ($repeat) into $vdir"
    "$seqrep" train-lm --corpus "$corpus/train.txt" --out "$model" --objective causal \
        --tokenizer bpe --vocab-size "$vocab" --layers "$layers" --d-model "$d_model" --heads "$heads" \
        --d-ff "$d_ff" --seq-len "$seq_len" --batch "$batch" --steps "$steps" --lr "$lr" \
        --threads "$threads" --seed "$seed" --save-every 250 $repeat \
        --snapshots "$vdir/snapshots" --snapshot-steps "$snapshot_steps" $resume
    date -u +%FT%TZ >"$vdir/causal.done"
fi
"$seqrep" perplexity "$model" --text "$corpus/heldout.txt" --out "$vdir/causal.perplexity.json" \
    --threads "$threads"
python3 "$(dirname "$0")/house_hash.py" "$model" >"$vdir/weights.sha256"
if ! nonzero "$share" && ! nonzero "$random"; then
    same=no ref=results/house/weights.sha256
    [ -s "$ref" ] || ref="$out/weights.sha256"
    if [ -s "$ref" ] &&
        [ "$(cut -d' ' -f1 "$vdir/weights.sha256")" = "$(awk '$2 == "causal.safetensors" { print $1 }' "$ref")" ]; then
        same=yes
    fi
    echo "house: variant $variant repeats nothing; the weights of $ref: $same"
fi

# its row of CACHE/house/variants.csv (a row per variant, the last run's),
# and the table house-variants.md beside it
header="variant,repeat_share,repeat_copies,repeat_random,steps,tokens_seen,timed_from_step,train_seconds,tok_per_s,heldout_tokens,heldout_loss,heldout_ppl,snapshots,weights_sha256"
[ -s "$out/variants.csv" ] || echo "$header" >"$out/variants.csv"
# the snapshots of its series (seqrep series --steps: a header, then a line a snapshot)
series_steps=$("$seqrep" series --steps "$vdir/snapshots")
snapshots=$(($(echo "$series_steps" | wc -l) - 1))
row=$(python3 - "$variant" "$model" "$vdir/causal.perplexity.json" "$snapshots" "$vdir/weights.sha256" <<'PY'
import json, struct, sys
variant, model, ppl, snapshots, sha = sys.argv[1:]
raw = open(model, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
manifest = json.loads(json.loads(raw[8:8 + n])["__metadata__"]["seqrep.manifest"])
p = json.load(open(ppl))
tokens = manifest["steps"] * manifest["batch"] * manifest["seq_len"]
# a resumed run times only its own steps: tokens/s over those
timed_from = manifest.get("resumed_from_step", 0)
timed = (manifest["steps"] - timed_from) * manifest["batch"] * manifest["seq_len"]
snapshots = int(snapshots)
print("%s,%g,%d,%g,%d,%d,%d,%.0f,%.0f,%d,%.4f,%.2f,%d,%s" % (variant, manifest.get("repeat_share", 0),
      manifest.get("repeat_copies", 0), manifest.get("repeat_random", 0), manifest["steps"], tokens,
      timed_from, manifest["train_seconds"], timed / manifest["train_seconds"], p["tokens"], p["loss"],
      p["perplexity"], snapshots, open(sha).read().split()[0][:16]))
PY
)
awk -F, -v v="$variant" 'NR == 1 || $1 != v' "$out/variants.csv" >"$out/variants.csv.tmp"
echo "$row" >>"$out/variants.csv.tmp"
mv "$out/variants.csv.tmp" "$out/variants.csv"
sh "$(dirname "$0")/house_tables.sh" "$out" "$out"
cat "$out/house-variants.md"
echo "house: variant $variant done in $(($(date +%s) - start)) s; model in $vdir, numbers in $out/variants.csv (make house-record copies them into results/house/)"
