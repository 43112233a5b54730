#!/bin/sh
# e2e_data.sh — end-to-end runs of the data commands: `seqrep gen` for every
# task, `seqrep import-nlupp` on the real NLU++ data when ../shared/data is
# there (skipped with a line otherwise) and on small hand-made folds, and bad
# inputs (exit 2 with one stderr line naming the problem).
# Usage: sh tests/e2e/e2e_data.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
nlupp="$here/../../shared/data/nlupp"

# sentences FILE: number of sentences of a CoNLL file we wrote (blank lines)
sentences() { grep -c '^$' "$1"; }

# ---- gen ----
expect_status 0 "gen --help" "$seqrep" gen --help
for task in right-cue last-word left-cue; do
    expect_status 0 "gen $task" "$seqrep" gen $task --out-dir "$task" --seed 4 \
        --train 60 --dev 20 --test 30 --corpus 200
    for f in train.conll dev.conll test.conll corpus.txt; do
        [ -s "$task/$f" ] || bad "gen $task wrote $f"
    done
    if [ "$(sentences "$task/train.conll")" = 60 ] && [ "$(sentences "$task/dev.conll")" = 20 ] &&
       [ "$(sentences "$task/test.conll")" = 30 ] && [ "$(wc -l <"$task/corpus.txt")" = 200 ]; then
        ok "gen $task: sizes"
    else
        bad "gen $task: sizes"
    fi
    "$seqrep" gen $task --out-dir again --seed 4 --train 60 --dev 20 --test 30 --corpus 200 2>/dev/null
    same=1
    for f in train.conll dev.conll test.conll corpus.txt; do cmp -s "$task/$f" "again/$f" || same=0; done
    [ $same = 1 ] && ok "gen $task: same seed, same files" || bad "gen $task: same seed, same files"
    "$seqrep" gen $task --out-dir other --seed 5 --train 60 --dev 20 --test 30 --corpus 200 2>/dev/null
    cmp -s "$task/train.conll" other/train.conll && bad "gen $task: another seed differs" ||
        ok "gen $task: another seed differs"
    ls "$task"/*.tmp.* >/dev/null 2>&1 && bad "gen $task: no temporary file left" ||
        ok "gen $task: no temporary file left"
done
# entities of two words (B- then I-) are there, so span F1 means something
awk 'NF == 2 && $2 ~ /^[BI]-/ { print $2 }' right-cue/train.conll | grep -q 'I-' &&
    ok "gen right-cue: multi-word entities" || bad "gen right-cue: multi-word entities"
last=$(awk 'NF == 0 { print prev } { prev = $1 }' last-word/train.conll | sort -u | tr '\n' ' ')
[ "$last" = "biography business geography interview market travel " ] &&
    ok "gen last-word: sentences end with a type word" || bad "gen last-word: sentences end with a type word ($last)"
expect_error "gen: unknown task" "unknown task 'middle-cue'" "$seqrep" gen middle-cue --out-dir x
expect_error "gen: no task" "expects one task name" "$seqrep" gen --out-dir x
expect_error "gen: no --out-dir" "missing required option --out-dir" "$seqrep" gen right-cue
expect_error "gen: zero sentences" "at least 1" "$seqrep" gen right-cue --out-dir x --train 0
: >plain_file
expect_error "gen: out-dir is a file" "plain_file: exists and is not a directory" \
    "$seqrep" gen left-cue --out-dir plain_file

# ---- import-nlupp on hand-made folds ----
make_folds() {  # make_folds DIR TEXT_OF_HOTELS_FOLD10
    for d in banking hotels; do
        mkdir -p "$1/$d"
        for f in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do echo '[]' >"$1/$d/fold$f.json"; done
    done
    echo '[{"text": "at 5ish or only today", "slots": {"time": {"span": [3, 4]}, "date": {"span": [16, 21]}, "date_period": {"span": [11, 21]}}}]' >"$1/banking/fold0.json"
    echo '[{"text": "dev example"}]' >"$1/hotels/fold16.json"
    printf '%s\n' "$2" >"$1/hotels/fold10.json"
}
make_folds fake '[{"text": "two rooms", "slots": {"rooms": {"span": [0, 9]}}}]'
expect_status 0 "import-nlupp: hand-made folds" "$seqrep" import-nlupp fake --out-dir fake_out
grep -q "fold0.json: example 0: slot 'time': span \[3, 4\] '5' ends inside the token '5ish'" err.txt &&
    ok "import-nlupp: misaligned span reported" || bad "import-nlupp: misaligned span reported"
grep -q "slot 'date' overlaps slot 'date_period'" err.txt &&
    ok "import-nlupp: overlapping span reported" || bad "import-nlupp: overlapping span reported"
grep -q "train.conll: 1 examples, 5 tokens, 3 spans; 1 misaligned" err.txt &&
    ok "import-nlupp: summary counts" || bad "import-nlupp: summary counts"
if [ "$(tr '\n' ' ' <fake_out/train.conll)" = "at O 5ish B-time or O only B-date_period today I-date_period  " ]; then
    ok "import-nlupp: tags"
else
    bad "import-nlupp: tags"; cat fake_out/train.conll
fi
expect_status 0 "import-nlupp --quiet" "$seqrep" import-nlupp fake --out-dir fake_out --quiet
[ "$(wc -l <err.txt)" = 3 ] && ok "import-nlupp --quiet: summary only" || bad "import-nlupp --quiet: summary only"

make_folds range '[{"text": "two rooms", "slots": {"rooms": {"span": [4, 12]}}}]'
expect_error "import-nlupp: span out of range" "range/hotels/fold10.json: example 0: slot 'rooms': span \[4, 12\] is out of range" \
    "$seqrep" import-nlupp range --out-dir range_out
[ -e range_out ] && bad "import-nlupp: nothing written on error" || ok "import-nlupp: nothing written on error"
make_folds latin1 "$(printf '[{"text": "two caf\351 rooms"}]')"
expect_error "import-nlupp: text not UTF-8 (found by fuzzing)" 'latin1/hotels/fold10.json: example 0: "text" is not valid UTF-8' \
    "$seqrep" import-nlupp latin1 --out-dir latin1_out
[ -e latin1_out ] && bad "import-nlupp: nothing written for bytes not UTF-8" || ok "import-nlupp: nothing written for bytes not UTF-8"
make_folds broken '[{"text": "two rooms", '
expect_error "import-nlupp: invalid JSON" "broken/hotels/fold10.json:1: invalid JSON" \
    "$seqrep" import-nlupp broken --out-dir broken_out
expect_error "import-nlupp: missing directory" "nowhere/banking/fold0.json: cannot open" \
    "$seqrep" import-nlupp nowhere --out-dir x
expect_error "import-nlupp: no directory given" "expects one NLU++ directory" \
    "$seqrep" import-nlupp --out-dir x

# ---- import-nlupp on the real data ----
if [ -f "$nlupp/banking/fold0.json" ]; then
    expect_status 0 "import-nlupp: NLU++" "$seqrep" import-nlupp "$nlupp" --out-dir nlupp_out
    if [ "$(sentences nlupp_out/train.conll)" = 2152 ] && [ "$(sentences nlupp_out/dev.conll)" = 309 ] &&
       [ "$(sentences nlupp_out/test.conll)" = 619 ]; then
        ok "import-nlupp: NLU++ split sizes 2152/309/619"
    else
        bad "import-nlupp: NLU++ split sizes 2152/309/619"
    fi
    types=$(cat nlupp_out/*.conll | awk 'NF == 2 && $2 != "O" { print substr($2, 3) }' | sort -u | wc -l)
    [ "$types" = 17 ] && ok "import-nlupp: 17 slot types" || bad "import-nlupp: 17 slot types ($types)"
else
    echo "skip import-nlupp on NLU++: $nlupp not found (the data lives outside the repository)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
