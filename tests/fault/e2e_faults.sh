#!/bin/sh
# e2e_faults.sh — a full or failing disk under every kind of file seqrep
# writes: checkpoint, training state, adapter, CSV (finetune, probe, sweep),
# markdown summary, manifest, figure (PNG, SVG), CoNLL (gen, import-nlupp,
# finetune --predictions), vocabulary (the word and BPE vocabularies live
# inside the checkpoint) and corpus (gen-text, gen, import-corpus). Each
# file is made once, then made again while the LD_PRELOAD library
# tests/fault/fault_inject.c fails its first write, a middle write, its
# fsync, its close, its rename or the creation of its temporary, with ENOSPC
# or EIO. Every time: exit 2, one stderr line naming the file and the reason,
# the earlier file byte-identical, no temporary (*.tmp*) left. Standard
# output that cannot be written (/dev/full) is an error too.
# Usage: sh tests/fault/e2e_faults.sh path/to/seqrep   (needs BUILD/tests/fault_inject.so
# beside BUILD/seqrep: make BUILD/tests/fault_inject.so; make test-e2e builds it)
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/../e2e/e2e-lib.sh"
e2e_begin "$@"

fault_library
ignore_fontconfig_leaks

# reason ERRNO: the strerror text of the errno names used here
reason() { case $1 in ENOSPC) echo "No space left on device" ;; EIO) echo "Input/output error" ;; esac; }

# leftovers: temporaries anywhere below the work folder
leftovers() { find . -name '*.tmp*' | sort; }

# faulted FILE CALL AT ERRNO CMD...: run CMD with calls of kind CALL on FILE
# failing with ERRNO from the AT-th on; output in out.txt, errors in err.txt
faulted() {
    file=$1; call=$2; at=$3; errno_name=$4; shift 4
    LD_PRELOAD=$preload FAULT_PATH=$file FAULT_CALL=$call FAULT_AT=$at FAULT_ERRNO=$errno_name \
        "$@" >out.txt 2>err.txt
}

# write_count FILE CMD...: how many writes CMD makes to FILE (at least 1)
write_count() {
    file=$1; shift
    rm -f report.txt
    LD_PRELOAD=$preload FAULT_PATH=$file FAULT_REPORT=$PWD/report.txt "$@" >/dev/null 2>&1
    n=$(awk '{ s += $2 } END { print s + 0 }' report.txt 2>/dev/null)
    [ "${n:-0}" -ge 1 ] 2>/dev/null && echo "$n" || echo 1
}

# under_faults LABEL FILE CMD...: FILE exists (CMD made it before); CMD again
# under every fault on FILE leaves it intact and fails in one line naming it
under_faults() {
    label=$1; file=$2; shift 2
    if [ ! -s "$file" ]; then
        bad "$label: $file was not made by the first run"
        return
    fi
    writes=$(write_count "$file" "$@")   # (this run makes the file anew)
    cp "$file" saved.bin
    mid=$(((writes + 1) / 2))
    cases="write:1:ENOSPC fsync:1:EIO close:1:EIO rename:1:EIO open:1:ENOSPC"
    [ "$mid" -gt 1 ] && cases="$cases write:$mid:EIO"
    for c in $cases; do
        call=${c%%:*}; rest=${c#*:}; at=${rest%%:*}; errno_name=${rest#*:}
        faulted "$file" "$call" "$at" "$errno_name" "$@"
        got=$?
        what="$label: $call #$at fails ($errno_name)"
        if [ "$got" = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qF "$file" err.txt &&
           grep -qF "$(reason "$errno_name")" err.txt; then
            ok "$what: exit 2, one line naming $file"
        else
            bad "$what: exit $got, $(wc -l <err.txt) lines (wanted 2 and one line naming $file and '$(reason "$errno_name")')"
            sed 's/^/      /' err.txt | head -5
        fi
        check "$what: $file intact" cmp -s "$file" saved.bin
        left=$(leftovers)
        check "$what: no temporary left${left:+ ($left)}" test -z "$left"
        rm -f $left
    done
}

# ---- data, corpus and a tiny model ----
tiny="--layers 1 --d-model 16 --heads 2 --d-ff 32 --seq-len 48 --batch 4 --steps 12 --threads 1 --quiet"
gen="gen right-cue --out-dir task --seed 3 --train 30 --dev 12 --test 12 --corpus 300"
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"
expect_ok "setup: gen" "$seqrep" $gen
under_faults "gen: CoNLL" task/dev.conll "$seqrep" $gen
under_faults "gen: corpus" task/corpus.txt "$seqrep" $gen
expect_ok "setup: gen-text" "$seqrep" gen-text --out text.txt --sentences 200 --seed 3
under_faults "gen-text: corpus" text.txt "$seqrep" gen-text --out text.txt --sentences 200 --seed 3

# ---- checkpoint, its vocabulary (word and BPE), its training state ----
train="train-lm --corpus task/corpus.txt $tiny"
expect_ok "setup: train-lm" "$seqrep" $train --out lm.safetensors
under_faults "train-lm: checkpoint (word vocabulary)" lm.safetensors "$seqrep" $train --out lm.safetensors
expect_ok "setup: train-lm bpe" "$seqrep" $train --tokenizer bpe --vocab-size 120 --out bpe.safetensors
under_faults "train-lm: checkpoint (BPE vocabulary)" bpe.safetensors "$seqrep" $train --tokenizer bpe --vocab-size 120 --out bpe.safetensors
# (one save, at the last step, so that the file is the earlier run's until it)
expect_ok "setup: train-lm --save-every" "$seqrep" $train --save-every 12 --out saving.safetensors
under_faults "train-lm --save-every: training state" saving.state.safetensors "$seqrep" $train --save-every 12 --out saving.safetensors
cp saving.safetensors saving_ck.bin
faulted saving.state.safetensors write 1 ENOSPC "$seqrep" $train --save-every 12 --out saving.safetensors
check "train-lm: a failed state save leaves the checkpoint intact" cmp -s saving.safetensors saving_ck.bin

# ---- CSV, manifest, predictions (CoNLL), adapter ----
ft="finetune --model lm.safetensors $data --method sr --r 1 --epochs 1 --batch 8 --threads 1 --quiet"
expect_ok "setup: finetune" "$seqrep" $ft --out ft.csv --predictions ft.pred.conll --save ft.adapter.safetensors
for f in ft.csv ft.manifest.json ft.pred.conll ft.adapter.safetensors; do
    under_faults "finetune: $f" $f "$seqrep" $ft --out ft.csv --predictions ft.pred.conll --save ft.adapter.safetensors
done
probe="probe --model lm.safetensors $data --r 0,1 --epochs 1 --threads 1 --quiet"
expect_ok "setup: probe" "$seqrep" $probe --out probe.csv
under_faults "probe: CSV" probe.csv "$seqrep" $probe --out probe.csv
under_faults "probe: manifest" probe.manifest.json "$seqrep" $probe --out probe.csv

# ---- sweep CSV and summary (the save after reading what is done) ----
sweep="sweep --data task --model lm.safetensors --methods causal --r 1 --seeds 1 --epochs 1 --threads 1 --out sw/sweep.csv"
expect_ok "setup: sweep" "$seqrep" $sweep
under_faults "sweep: CSV" sw/sweep.csv "$seqrep" $sweep
under_faults "sweep: summary" sw/sweep.md "$seqrep" $sweep

# ---- figures: PNG (stb) and SVG (cairo's stream), their numbers and manifest ----
expect_ok "setup: plot png" "$seqrep" plot mask --n 4 --r 2 --out fig.png
under_faults "plot: PNG" fig.png "$seqrep" plot mask --n 4 --r 2 --out fig.png
under_faults "plot: numbers CSV" fig.csv "$seqrep" plot mask --n 4 --r 2 --out fig.png
under_faults "plot: manifest" fig.manifest.json "$seqrep" plot mask --n 4 --r 2 --out fig.png
expect_ok "setup: plot svg" "$seqrep" plot mask --n 4 --r 2 --out vec.svg
under_faults "plot: SVG" vec.svg "$seqrep" plot mask --n 4 --r 2 --out vec.svg

# ---- import-nlupp (CoNLL) and import-corpus (corpus, manifest) ----
for d in banking hotels; do
    mkdir -p nlupp/$d
    for f in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do echo '[]' >nlupp/$d/fold$f.json; done
done
echo '[{"text": "two rooms at 5 pm", "slots": {"rooms": {"span": [0, 9]}, "time": {"span": [13, 17]}}}]' >nlupp/hotels/fold0.json
echo '[{"text": "dev example"}]' >nlupp/hotels/fold16.json
echo '[{"text": "test example"}]' >nlupp/banking/fold18.json
expect_ok "setup: import-nlupp" "$seqrep" import-nlupp nlupp --out-dir nl --quiet
under_faults "import-nlupp: CoNLL" nl/train.conll "$seqrep" import-nlupp nlupp --out-dir nl --quiet
printf 'my own sentence one\nmy own sentence two\nand a third one here\nthe fourth of them\n' >mine.txt
expect_ok "setup: import-corpus" "$seqrep" import-corpus mine.txt --out-dir corp --heldout-every 2
for f in corp/train.txt corp/heldout.txt corp/corpus.manifest.json; do
    under_faults "import-corpus: $f" $f "$seqrep" import-corpus mine.txt --out-dir corp --heldout-every 2
done

# ---- standard output that cannot be written ----
if [ -w /dev/full ]; then
    for c in "info lm.safetensors" "generate lm.safetensors --prompt the --lines 2 --max-tokens 4" \
             "blocks --n 4 --r 2" "${sweep%--out*} --out plan/sweep.csv --plan"; do
        "$seqrep" $c >/dev/full 2>err.txt
        got=$?
        # (sweep says what it found on stderr first)
        if [ "$got" = 2 ] && tail -n 1 err.txt | grep -q "cannot write standard output" &&
           [ "$(grep -c "cannot\|fail" err.txt)" = 1 ] && grep -qF "$(reason ENOSPC)" err.txt; then
            ok "${c%% *} >/dev/full: exit 2, one line"
        else
            bad "${c%% *} >/dev/full: exit $got, $(wc -l <err.txt) lines"
            sed 's/^/      /' err.txt | head -5
        fi
    done
else
    echo "skip standard output to /dev/full (no /dev/full)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
