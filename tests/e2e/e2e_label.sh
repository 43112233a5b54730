#!/bin/sh
# e2e_label.sh — end-to-end runs of probe, finetune and cost on a small
# generated task (seqrep gen) with a tiny model pre-trained on its corpus.
# Usage: sh tests/e2e/e2e_label.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# check_csv NAME FILE HEADER ROWS: FILE starts with HEADER and has ROWS data rows
check_csv() {
    name=$1; file=$2; header=$3; rows=$4
    if [ ! -s "$file" ]; then bad "$name: $file missing"; return; fi
    got_header=$(head -n 1 "$file")
    got_rows=$(($(wc -l <"$file") - 1))
    case "$got_header" in
        "$header"*) if [ "$got_rows" = "$rows" ]; then ok "$name"; else bad "$name ($got_rows rows, wanted $rows)"; fi ;;
        *) bad "$name (header '$got_header', wanted it to start with '$header')" ;;
    esac
}

# check_predictions NAME FILE TEST: 3 columns on every non-blank line, words
# and gold tags equal to TEST's, as many sentences
check_predictions() {
    name=$1; file=$2; test=$3
    if [ ! -s "$file" ]; then bad "$name: $file missing"; return; fi
    if awk 'NF != 0 && NF != 3 { bad = 1 } END { exit bad }' "$file" &&
       [ "$(awk 'NF { print $1, $2 }' "$file")" = "$(awk 'NF { print $1, $NF }' "$test")" ] &&
       [ "$(grep -c '^$' "$file")" = "$(grep -c '^$' "$test")" ]; then
        ok "$name"
    else
        bad "$name (not 'word gold predicted' for every test word)"
    fi
}

tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 8 --steps 30 --threads 2 --quiet"
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"

for c in probe finetune cost; do
    expect_status 0 "$c --help" "$seqrep" $c --help
done

# ---- a small task and two tiny models ----
expect_status 0 "gen right-cue" "$seqrep" gen right-cue --out-dir task --seed 4 --train 60 --dev 20 --test 20 --corpus 300
expect_status 0 "train-lm causal" "$seqrep" train-lm --corpus task/corpus.txt --out lm.st $tiny --seed 1
expect_status 0 "train-lm mlm" "$seqrep" train-lm --objective mlm --corpus task/corpus.txt --out mlm.st $tiny --seed 1

# ---- probe ----
# sentences have at most 20 words: r = 2 with a <bos> per copy is 3 * 21 = 63 <= 64
expect_status 0 "probe r=0,1,2" "$seqrep" probe --model lm.st $data --r 0,1,2 --out probe.csv --predictions probe.pred --epochs 3 --threads 2
# (3 r) x (3 layers) x (2 copies) x (dev, test) = 36 rows
check_csv "probe CSV" probe.csv "r,layer,copy,split,precision,recall,f1" 36
check_predictions "probe predictions" probe.pred task/test.conll
[ -s probe.manifest.json ] && grep -q '"best_dev"' probe.manifest.json && grep -q '"model_checksum"' probe.manifest.json \
    && ok "probe manifest" || bad "probe manifest"
grep -q "best dev F1" out.txt && ok "probe prints a table" || bad "probe prints a table"
awk -F, 'NR > 1 && ($7 < 0 || $7 > 100) { bad = 1 } END { exit bad }' probe.csv && ok "probe F1 in 0..100" || bad "probe F1 in 0..100"
expect_status 0 "probe last copy only" "$seqrep" probe --model lm.st $data --r 1 --copies last --out probe1.csv --epochs 1 --threads 2
check_csv "probe last-copy CSV" probe1.csv "r,layer,copy,split" 6
"$seqrep" probe --model lm.st $data --r 1 --copies last --out probe1b.csv --epochs 1 --threads 1 >/dev/null 2>&1
cmp -s probe1.csv probe1b.csv && ok "probe: same result with 1 and 2 threads" || bad "probe: same result with 1 and 2 threads"

sed '0,/ B-PER$/s/ B-PER$/ B-NEWTYPE/' task/dev.conll >newtype.conll
"$seqrep" probe --model lm.st --train task/train.conll --dev newtype.conll --test task/test.conll --r 0 --copies last --epochs 1 --out probe_new.csv --threads 2 >/dev/null 2>err.txt
[ $? = 0 ] && grep -q "newtype.conll: 1 tags not in the training data mapped to O" err.txt \
    && ok "unknown dev tag: mapped to O with a warning" || bad "unknown dev tag: mapped to O with a warning"

# ---- finetune, every method ----
header="method,r,exit,seed,split,precision,recall,f1"
for spec in causal:lm.st sr:lm.st unmask-full:lm.st unmask-middle:lm.st encoder:mlm.st; do
    method=${spec%%:*}; model=${spec#*:}
    expect_status 0 "finetune $method" "$seqrep" finetune --model "$model" $data --method "$method" --epochs 2 --batch 8 --out "ft_$method.csv" --predictions "ft_$method.pred" --threads 2 --quiet
    check_csv "finetune $method CSV" "ft_$method.csv" "$header" 2
    check_predictions "finetune $method predictions" "ft_$method.pred" task/test.conll
    [ -s "ft_$method.manifest.json" ] && ok "finetune $method manifest" || bad "finetune $method manifest"
done
grep -q "^sr,1,2,1,test," ft_sr.csv && ok "sr defaults to r = 1, exit = N" || bad "sr defaults to r = 1, exit = N"
expect_status 0 "finetune sr r=2 exit 1" "$seqrep" finetune --model lm.st $data --method sr --r 2 --exit 1 --epochs 1 --out ft_exit.csv --threads 2 --quiet
grep -q "^sr,2,1,1,dev," ft_exit.csv && ok "exit and r in the CSV" || bad "exit and r in the CSV"
"$seqrep" finetune --model lm.st $data --method encoder --epochs 1 --out ft_warn.csv --threads 2 --quiet >/dev/null 2>err.txt
grep -q "warning: method encoder" err.txt && ok "encoder on a causal model warns" || bad "encoder on a causal model warns"

# ---- cost ----
expect_status 0 "cost" "$seqrep" cost --model lm.st --n 10 --r 0,1,2 --exit 1 --repeats 2 --threads 1
grep -q "speed-up" out.txt && [ "$(grep -c '^ *[0-9]' out.txt)" -ge 3 ] && ok "cost table" || bad "cost table"

# ---- bad input: exit 2, one line ----
sed '0,/ O$/s/ O$/ X-FOO/' task/train.conll >badtag.conll
expect_error "probe: tag outside the scheme" "badtag.conll:" "$seqrep" probe --model lm.st --train badtag.conll --dev task/dev.conll --test task/test.conll --out x.csv
expect_error "finetune: tag outside the scheme" "badtag.conll:" "$seqrep" finetune --model lm.st --train badtag.conll --dev task/dev.conll --test task/test.conll --method causal --out x.csv
expect_error "probe: r < 0" "r must be >= 0" "$seqrep" probe --model lm.st $data --r 0,-1 --out x.csv
expect_error "finetune: r < 0" "at least 0" "$seqrep" finetune --model lm.st $data --method sr --r -1 --out x.csv
expect_error "finetune: sr with r = 0" "r >= 1" "$seqrep" finetune --model lm.st $data --method sr --r 0 --out x.csv
expect_error "finetune: causal with r = 2" "use --method sr" "$seqrep" finetune --model lm.st $data --method causal --r 2 --out x.csv
expect_error "finetune: --exit > N" "exit 3 is outside 1..2" "$seqrep" finetune --model lm.st $data --method causal --exit 3 --out x.csv
expect_error "finetune: unknown method" "method must be" "$seqrep" finetune --model lm.st $data --method bert --out x.csv
expect_error "probe: too long after repetition" "conll:[0-9]*: sentence of .* more than the model's max_seq_len 64" "$seqrep" probe --model lm.st $data --r 0,4 --out x.csv
expect_error "finetune: too long after repetition" "max_seq_len 64" "$seqrep" finetune --model lm.st $data --method sr --r 3 --out x.csv
expect_error "probe: missing model" "nope.st" "$seqrep" probe --model nope.st $data --out x.csv
expect_error "probe: missing data" "nope.conll" "$seqrep" probe --model lm.st --train nope.conll --dev task/dev.conll --test task/test.conll --out x.csv
expect_error "finetune: missing data" "nope.conll" "$seqrep" finetune --model lm.st --train task/train.conll --dev nope.conll --test task/test.conll --method causal --out x.csv
expect_error "probe: bad --copies" "copies" "$seqrep" probe --model lm.st $data --copies middle --out x.csv
expect_error "cost: --exit > N" "outside 1..2" "$seqrep" cost --model lm.st --exit 5
[ -e x.csv ] && bad "no CSV after a failure" || ok "no CSV after a failure"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
