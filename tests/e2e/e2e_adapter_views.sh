#!/bin/sh
# e2e_adapter_views.sh — the views that look inside a model (plot attention
# and repo-z, attnflow, probe, explore) with --adapter FILE, a file of
# `seqrep finetune --save`: its LoRA adapters change the numbers, an untrained
# adapter (B = 0) changes none, the manifests name the file, and a file of
# another base model, a head-only file or a missing one is one error line
# and exit 2 for every command. A tiny model on a small right-cue task.
# Usage: sh tests/e2e/e2e_adapter_views.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

ignore_fontconfig_leaks
export SDL_VIDEODRIVER=dummy

tiny="--layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 8 --steps 30 --threads 2 --quiet"
data="--train task/train.conll --dev task/dev.conll --test task/test.conll"
ft="finetune $data --method sr --threads 2 --quiet"

expect_status 0 "gen right-cue" "$seqrep" gen right-cue --out-dir task --seed 4 --train 60 --dev 20 --test 20 --corpus 300
expect_status 0 "train-lm" "$seqrep" train-lm --corpus task/corpus.txt --out lm.st $tiny --seed 1
expect_status 0 "train-lm, another seed" "$seqrep" train-lm --corpus task/corpus.txt --out lm2.st $tiny --seed 2
# a LoRA run with a large step, so the adapters move; one on the other base; a head-only run
expect_ok "finetune --recipe paper --save" "$seqrep" $ft --model lm.st --recipe paper --lr 1e-2 --epochs 2 --out paper.csv --save ad.st
expect_ok "finetune on another base --save" "$seqrep" $ft --model lm2.st --recipe paper --epochs 1 --out other.csv --save other.st
expect_ok "finetune --adapter none --save" "$seqrep" $ft --model lm.st --epochs 1 --out head.csv --save head.st

# the same file with every B set to zero: an untrained adapter
python3 - ad.st zero.st <<'PY' && ok "untrained adapter made" || bad "untrained adapter made"
import json, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
zeroed = 0
for k, v in h.items():
    if k.endswith("lora_B.weight"):
        s, e = v["data_offsets"]
        b[8 + n + s:8 + n + e] = bytes(e - s)
        zeroed += 1
assert zeroed == 2 * 4, zeroed
open(sys.argv[2], "wb").write(bytes(b))
PY

# manifest_has FILE KEY=VALUE...: the manifest's string values
manifest_has() {
    python3 - "$@" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    if m.get(k) != v: sys.exit("%s: %s is %r, wanted %r" % (sys.argv[1], k, m.get(k), v))
PY
}

# ---- plot attention: the maps change; an untrained adapter changes nothing ----
att="plot attention --model lm.st --data task/dev.conll --sentence 0 --r 1 --size 640x480"
expect_ok "plot attention, base" "$seqrep" $att --out base.png
expect_ok "plot attention --adapter" "$seqrep" $att --adapter ad.st --out ad.png
expect_ok "plot attention --adapter, untrained" "$seqrep" $att --adapter zero.st --out zero.png
cmp -s base.csv ad.csv && bad "the adapter changes the attention numbers" || ok "the adapter changes the attention numbers"
cmp -s base.png ad.png && bad "the adapter changes the figure" || ok "the adapter changes the figure"
cmp -s base.csv zero.csv && ok "an untrained adapter: the base model's numbers" || bad "an untrained adapter: the base model's numbers"
manifest_has ad.manifest.json adapter=ad.st model=lm.st && ok "plot: the adapter in the manifest" || bad "plot: the adapter in the manifest"
python3 -c "
import json; m = json.load(open('ad.manifest.json'))
assert 'adapter' in m['title'] and 'LoRA adapters of ad.st merged in' in m['caption'], m['title']
assert len(m['adapter_checksum']) == 16" && ok "plot: title and caption name the adapter" || bad "plot: title and caption name the adapter"
# with the same words the untrained adapter's figure is the base figure, pixel for pixel
expect_ok "plot attention, base, fixed words" "$seqrep" $att --title T --caption C --out base2.png
expect_ok "plot attention, untrained, fixed words" "$seqrep" $att --adapter zero.st --title T --caption C --out zero2.png
cmp -s base2.png zero2.png && ok "an untrained adapter: the base model's figure" || bad "an untrained adapter: the base model's figure"
expect_ok "plot attention --overview" "$seqrep" $att --overview --out ov_base.png
expect_ok "plot attention --overview --adapter" "$seqrep" $att --overview --adapter ad.st --out ov.png
cmp -s ov_base.csv ov.csv && bad "overview: other numbers" || ok "overview: other numbers"

# ---- plot repo-z: a RePo model's positions z change with its adapters ----
expect_status 0 "train-lm, RePo" "$seqrep" train-lm --corpus task/corpus.txt --out repo.st --positions repo \
    --layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 8 --steps 10 --threads 2 --quiet --seed 1
expect_ok "finetune the RePo model --save" "$seqrep" $ft --model repo.st --recipe paper --lr 1e-2 --epochs 1 --out repo_ft.csv --save repo_ad.st
z="plot repo-z --model repo.st --data task/dev.conll --r 1"
expect_ok "plot repo-z, base" "$seqrep" $z --out z_base.png
expect_ok "plot repo-z --adapter" "$seqrep" $z --adapter repo_ad.st --out z_ad.png
cmp -s z_base.csv z_ad.csv && bad "repo-z: other positions" || ok "repo-z: other positions"
manifest_has z_ad.manifest.json adapter=repo_ad.st && ok "repo-z: the adapter in the manifest" || bad "repo-z: the adapter in the manifest"
expect_error "plot repo-z --results with --adapter" "not both" "$seqrep" plot repo-z --results z_base.csv --adapter repo_ad.st --out x.png
expect_error "plot flow --adapter" "adapter does not apply to figure 'flow'" "$seqrep" plot flow --results x.csv --adapter ad.st --out f.png

# ---- attnflow ----
expect_ok "attnflow, base" "$seqrep" attnflow --model lm.st --data task/dev.conll --r 1 --out flow_base.csv --threads 2
expect_ok "attnflow --adapter" "$seqrep" attnflow --model lm.st --adapter ad.st --data task/dev.conll --r 1 --out flow_ad.csv --threads 2
grep -q "lm.st with the adapters of ad.st on" out.txt && ok "attnflow: the report names the adapter" || bad "attnflow: the report names the adapter"
cmp -s flow_base.csv flow_ad.csv && bad "attnflow: other shares" || ok "attnflow: other shares"
manifest_has flow_ad.manifest.json adapter=ad.st && ok "attnflow: the adapter in the manifest" || bad "attnflow: the adapter in the manifest"
expect_ok "attnflow --adapter, untrained" "$seqrep" attnflow --model lm.st --adapter zero.st --data task/dev.conll --r 1 --out flow_zero.csv --threads 2
cmp -s flow_base.csv flow_zero.csv && ok "attnflow: an untrained adapter, the base shares" || bad "attnflow: an untrained adapter, the base shares"

# ---- probe ----
probe="probe --model lm.st $data --r 0,1 --epochs 2 --threads 2"
expect_ok "probe, base" "$seqrep" $probe --out probe_base.csv
expect_ok "probe --adapter" "$seqrep" $probe --adapter ad.st --out probe_ad.csv
cmp -s probe_base.csv probe_ad.csv && bad "probe: other scores" || ok "probe: other scores"
manifest_has probe_ad.manifest.json adapter=ad.st && ok "probe: the adapter in the manifest" || bad "probe: the adapter in the manifest"
expect_ok "probe --adapter, untrained" "$seqrep" $probe --adapter zero.st --out probe_zero.csv
cmp -s probe_base.csv probe_zero.csv && ok "probe: an untrained adapter, the base scores" || bad "probe: an untrained adapter, the base scores"

# ---- explore: a frame headless, the printed command replays it ----
mkdir e eb
explore="explore --model lm.st --data task/dev.conll --size 640x480"
expect_ok "explore --adapter --script" "$seqrep" $explore --adapter ad.st --save-dir e --script "s c q"
mv out.txt e/cmds.txt
[ -s e/explore-0001.png ] && ok "explore: a frame saved" || bad "explore: a frame saved: $(ls e)"
grep -q -- "--model lm.st --adapter ad.st " e/cmds.txt && ok "explore: the command carries --adapter" \
    || bad "explore: the command carries --adapter: $(cat e/cmds.txt)"
line=$(cat e/cmds.txt)
if eval "\"\$seqrep\" ${line#seqrep }" >/dev/null 2>err.txt && cmp -s e/explore-0001.png e/view.png; then
    ok "explore: the frame is the printed plot command's figure"
else
    bad "explore: the frame is the printed plot command's figure: $(cat err.txt)"
fi
expect_ok "explore, base" "$seqrep" $explore --save-dir eb --script "s q"
cmp -s e/explore-0001.png eb/explore-0001.png && bad "explore: the adapter changes the frame" || ok "explore: the adapter changes the frame"

# ---- bad adapter files: one line naming the file, exit 2, for every command ----
for f in other head nope; do
    case $f in
        other) why="--adapter other.st: made for another base model" ;;
        head) why="--adapter head.st: has no adapters; nothing to apply" ;;
        nope) why="--adapter nope.st" ;;
    esac
    expect_error "plot attention, $f.st" "$why" "$seqrep" $att --adapter $f.st --out x.png
    # (head.st is of lm.st, so for the RePo model it is another base's: checked with the others)
    [ $f = head ] || expect_error "plot repo-z, $f.st" "$why" "$seqrep" $z --adapter $f.st --out x.png
    expect_error "attnflow, $f.st" "$why" "$seqrep" attnflow --model lm.st --adapter $f.st --data task/dev.conll --r 1 --out x.csv
    expect_error "probe, $f.st" "$why" "$seqrep" $probe --adapter $f.st --out x.csv
    expect_error "explore, $f.st" "$why" "$seqrep" $explore --adapter $f.st --script q
done
[ -e x.png ] || [ -e x.csv ] && bad "no output after a bad adapter" || ok "no output after a bad adapter"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
