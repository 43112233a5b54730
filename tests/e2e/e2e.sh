#!/bin/sh
# e2e.sh — end-to-end runs of the seqrep command line on small generated data.
# Usage: sh tests/e2e/e2e.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
# OpenMP's threads sleep when they wait: more suites run than there are cores (below)
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY

tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 16 --batch 4 --steps 30 --threads 2 --quiet"

# ---- the command itself ----
expect_status 2 "no command" "$seqrep"
expect_status 0 "--help" "$seqrep" --help
expect_error "unknown command" "unknown command" "$seqrep" frobnicate
for c in train-lm info generate gen-text; do
    expect_status 0 "$c --help" "$seqrep" $c --help
done
# SDL2 is loaded when the explorer's window opens (viz/window), not at every start
if ldd "$seqrep" >ldd.txt 2>&1; then
    grep -q libSDL2 ldd.txt && bad "seqrep starts without SDL2" || ok "seqrep starts without SDL2"
fi

# ---- built-in text, training, info, generation ----
expect_status 0 "gen-text" "$seqrep" gen-text --out corpus.txt --sentences 600 --seed 3
"$seqrep" gen-text --out corpus2.txt --sentences 600 --seed 3 2>/dev/null
if cmp -s corpus.txt corpus2.txt; then ok "gen-text is deterministic"; else bad "gen-text is deterministic"; fi
expect_status 0 "train-lm tiny" "$seqrep" train-lm --corpus corpus.txt --out m.safetensors $tiny --seed 5
[ -s m.safetensors ] && ok "checkpoint written" || bad "checkpoint written"
ls m.safetensors.tmp* >/dev/null 2>&1 && bad "no temporary file left" || ok "no temporary file left"
"$seqrep" train-lm --corpus corpus.txt --out m2.safetensors $tiny --seed 5 2>/dev/null
same_tensors m.safetensors m2.safetensors && ok "same seed and threads: identical weights" || bad "same seed and threads: identical weights"
"$seqrep" train-lm --corpus corpus.txt --out m3.safetensors $tiny --seed 6 2>/dev/null
python3 - m.safetensors m3.safetensors <<'PY' && ok "another seed: other weights" || bad "another seed: other weights"
import sys
sys.exit(0 if open(sys.argv[1], "rb").read()[-4096:] != open(sys.argv[2], "rb").read()[-4096:] else 1)
PY
expect_status 0 "train-lm plain progress lines" "$seqrep" train-lm --corpus corpus.txt --out m4.safetensors \
    --layers 1 --d-model 16 --heads 2 --d-ff 32 --seq-len 8 --batch 2 --steps 20
grep -q "step 20/20 loss" err.txt && grep -q "tok/s" err.txt && grep -q ETA err.txt \
    && ok "progress shows step, loss, tok/s, ETA" || bad "progress shows step, loss, tok/s, ETA"

expect_status 0 "info" "$seqrep" info m.safetensors
grep -q "^parameters" out.txt && grep -q "git_commit" out.txt && grep -q "command" out.txt \
    && ok "info shows parameters and manifest" || bad "info shows parameters and manifest"
"$seqrep" info m.safetensors --json >info.json
python3 -c "import json,sys; d=json.load(open('info.json')); sys.exit(0 if d['config']['n_layers']==2 and d['parameters']>0 and d['manifest']['seed']==5 else 1)" \
    && ok "info --json" || bad "info --json"
expect_status 0 "generate" "$seqrep" generate m.safetensors --prompt "the" --lines 2 --max-tokens 8
[ "$(wc -l <out.txt)" = 2 ] && ok "generate prints the lines asked for" || bad "generate prints the lines asked for"

if /usr/bin/python3 -c "import torch" 2>/dev/null; then
    expect_status 0 "PyTorch reads the checkpoint back" /usr/bin/python3 "$here/reference/read_checkpoint.py" m.safetensors
else
    echo "skip PyTorch reads the checkpoint back (python3-torch not installed; make golden installs it)"
fi

# ---- bad arguments: one clear line, exit 2 ----
expect_error "d_model not divisible by heads" "divisible" "$seqrep" train-lm --corpus corpus.txt --out x.st --d-model 30 --heads 4
expect_error "zero layers" "at least 1" "$seqrep" train-lm --corpus corpus.txt --out x.st --layers 0
expect_error "negative size" "at least 1" "$seqrep" train-lm --corpus corpus.txt --out x.st --d-ff -5
expect_error "not a number" "integer" "$seqrep" train-lm --corpus corpus.txt --out x.st --steps ten
expect_error "unknown option" "unknown option" "$seqrep" train-lm --corpus corpus.txt --out x.st --colour
expect_error "missing --out" "missing required option --out" "$seqrep" train-lm --corpus corpus.txt
expect_error "missing corpus file" "nope.txt" "$seqrep" train-lm --corpus nope.txt --out x.st
: >empty.txt
expect_error "empty corpus" "empty" "$seqrep" train-lm --corpus empty.txt --out x.st
echo "just a few words" >short.txt
expect_error "corpus too short" "too few" "$seqrep" train-lm --corpus short.txt --out x.st $tiny
expect_error "unwritable output" "x.st" "$seqrep" train-lm --corpus corpus.txt --out no/such/dir/x.st $tiny
cp m.safetensors keep.st
"$seqrep" train-lm --corpus empty.txt --out keep.st 2>/dev/null
cmp -s m.safetensors keep.st && ok "failed run leaves an existing output intact" || bad "failed run leaves an existing output intact"
expect_error "info on a missing file" "missing.st" "$seqrep" info missing.st
head -c 100 m.safetensors >trunc.st
expect_error "info on a truncated checkpoint" "trunc.st" "$seqrep" info trunc.st
expect_error "generate on a text file" "corpus.txt" "$seqrep" generate corpus.txt
expect_error "generate without a model" "checkpoint" "$seqrep" generate
# a config claiming 10^9 layers over the tensors of two: refused before the
# model is allocated (a fuzz_checkpoint input)
python3 - m.safetensors huge.st <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
c = json.loads(h["__metadata__"]["seqrep.config"])
c["n_layers"] = 1000000000
h["__metadata__"]["seqrep.config"] = json.dumps(c)
t = json.dumps(h).encode()
open(sys.argv[2], "wb").write(struct.pack("<Q", len(t)) + t + b[8 + n:])
PY
expect_error "generate: config claiming a huge model" "huge.st: missing tensor 'model.layers.2.input_layernorm.weight'" \
    "$seqrep" generate huge.st --prompt the

# ---- docs/cli.md is the commands' own --help: it must be current ----
(cd "$here/.." && sh examples/cli_reference.sh "$(dirname "$seqrep")" "$work/cli.md") >/dev/null 2>&1
if cmp -s cli.md "$here/../docs/cli.md"; then
    ok "docs/cli.md matches every command's --help"
else
    bad "docs/cli.md is out of date: run sh examples/cli_reference.sh"
fi

# ---- further end-to-end suites, one per feature (those of e2e/, and the
# fault and soak suites of their own folders): E2E_JOBS at a time (default
# twice the cores: a suite waits on its scripts and child processes part of
# the time; each suite works in its own temporary folder), then reported in
# the order of their names with the seconds each took. With more suites than
# cores, OpenMP's threads sleep when they wait instead of spinning
# (OMP_WAIT_POLICY=passive, as examples/demo.sh): the whole of e2e.sh took
# 79-91 s so on two cores, against 108-124 s with three suites and spinning ----
# E2E_SKIP names suites left out (make test-asan leaves out those that test
# the scripts around the command: the command paths they run are run by other
# suites); each is reported as a skip. The slowest suites start first (the
# list below, from make test's own timings), so that none runs alone at the end.
slowest_first="e2e_house_scripts.sh e2e_faults.sh e2e_resume.sh e2e_interrupt.sh e2e_repeat_lm.sh e2e_explore.sh"
for suite in "$here"/e2e/e2e_*.sh "$here"/fault/e2e_*.sh "$here"/soak/e2e_*.sh; do
    [ -f "$suite" ] && printf '%s\t%s\n' "$(basename "$suite")" "$suite"
done | LC_ALL=C sort >suites.txt
: >start.txt
for name in $slowest_first; do grep "^$name	" suites.txt >>start.txt; done
grep -v -F -f start.txt suites.txt >>start.txt
for name in ${E2E_SKIP:-}; do
    grep -q "^$name	" suites.txt || { bad "E2E_SKIP names $name, which is no suite"; continue; }
    grep -v "^$name	" start.txt >start.tmp; mv start.tmp start.txt
    echo "skip $name (E2E_SKIP)"
done
mkdir -p suites
cut -f2 start.txt | xargs -P "${E2E_JOBS:-$(($(nproc) * 2))}" -I{} sh -c '
    name=$(basename "$1"); start=$(date +%s)
    if sh "$1" "$2" >"suites/$name.txt" 2>&1 </dev/null; then echo 0; else echo 1; fi >"suites/$name.rc"
    echo $(($(date +%s) - start)) >"suites/$name.secs"' _ {} "$seqrep"
while IFS="$(printf '\t')" read -r name suite; do
    grep -q "^$name	" start.txt || continue
    secs=$(cat "suites/$name.secs" 2>/dev/null || echo "?")
    if [ "$(cat "suites/$name.rc" 2>/dev/null)" = 0 ]; then ok "$name ($secs s)"; else bad "$name ($secs s)"; fi
    sed 's/^/    /' "suites/$name.txt"
done <suites.txt
printf 'the slowest suites (s):'
for f in suites/*.secs; do printf '%s %s\n' "$(cat "$f")" "$(basename "$f" .secs)"; done | sort -rn | head -n 8 |
    while read -r secs name; do printf ' %s %s' "$name" "$secs"; done
echo

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
