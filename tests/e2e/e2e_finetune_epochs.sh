#!/bin/sh
# e2e_finetune_epochs.sh — a fine-tuning watched over its epochs (issue 30):
# `finetune --save-epochs DIR` writes the head and adapters of epoch 0
# (before training) and of every epoch, and DIR/series.json ("unit": "epoch",
# each epoch's loss, dev and test F1 — the same as the run's CSV at its best
# epoch); the run's results and --save file are those of a run without it,
# and the best epoch's file is the --save file; an epoch file is an
# --adapter for `heads`; `plot timeline --what f1` draws the series with its
# numbers beside it (and --what loss, by epoch); examples/series_flow.sh and
# series_heads.sh measure every epoch with its adapters, and
# `plot timeline --what flow` draws the attnflow share per layer by epoch
# (examples/series_probe.sh and --what probe the probe F1 per layer),
# and with attnflow --cues (series_flow.sh CUES) --score cue the names'
# share on their cue word;
# `explore --series` steps through the epochs with [ and ] (a scripted walk
# saves a frame per epoch) and examples/animate.py makes a GIF and an APNG
# of those frames; a full fine-tuning keeps each epoch as a whole checkpoint.
# Bad input (a folder that cannot be made, a file, a foreign series.json,
# series with a snapshot gone or of another model, timeline --what f1 on a
# pre-training series, --score cue without the cue columns, attnflow --cues
# of no task, with --text or of the wrong task): one line, exit 2, no output.
# Usage: sh tests/e2e/e2e_finetune_epochs.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks   # plot timeline draws text

"$seqrep" gen right-cue --out-dir d --seed 3 --train 60 --dev 20 --test 30 --corpus 300 2>/dev/null
"$seqrep" train-lm --corpus d/corpus.txt --out lm.safetensors --layers 2 --d-model 16 --heads 2 --d-ff 32 \
    --seq-len 64 --batch 4 --steps 20 --threads 1 --quiet --snapshots pre --snapshot-steps 0,20 >/dev/null 2>&1
run="--model lm.safetensors --train d/train.conll --dev d/dev.conll --test d/test.conll --method sr --r 1
     --recipe paper --epochs 3 --lr 0.01 --threads 1 --quiet"

expect_ok "finetune --save-epochs" "$seqrep" finetune $run --out a.csv --save best.st --save-epochs ep
check "epoch 0 (before training) and every epoch, series.json" test \
    "$(ls ep | tr '\n' ' ')" = "epoch-0000.safetensors epoch-0001.safetensors epoch-0002.safetensors epoch-0003.safetensors series.json "
python3 - <<'PY' && ok "series.json: unit epoch, 3 epochs, each entry's loss and F1; the best epoch's equal the CSV's" || bad "series.json"
import csv, json, sys
s = json.load(open("ep/series.json"))
e = s["snapshots"]
ok = s["unit"] == "epoch" and s["steps"] == 3 and s["method"] == "sr" and s["r"] == 1
ok = ok and [x["step"] for x in e] == [0, 1, 2, 3] and [x["epoch"] for x in e] == [0, 1, 2, 3]
ok = ok and [x["file"] for x in e] == ["epoch-%04d.safetensors" % i for i in range(4)]
ok = ok and e[0]["train_loss"] is None and all(x["train_loss"] > 0 for x in e[1:])
m = json.load(open("a.manifest.json"))
rows = {r["split"]: r for r in csv.DictReader(open("a.csv"))}
best = e[m["best_epoch"]]
ok = ok and abs(best["dev_f1"] - float(rows["dev"]["f1"])) < 0.01 and abs(best["test_f1"] - float(rows["test"]["f1"])) < 0.01
ok = ok and all(0 <= x["dev_f1"] <= 100 and 0 <= x["test_f1"] <= 100 for x in e)
sys.exit(0 if ok else 1)
PY
expect_ok "the same run without --save-epochs" "$seqrep" finetune $run --out b.csv --save best2.st
cut -d, -f1-12 a.csv >a.f1
cut -d, -f1-12 b.csv >b.f1
check "... the same results and --save file" sh -c 'cmp -s best.st best2.st && cmp -s a.f1 b.f1'
best=$(python3 -c "import json; print('%04d' % json.load(open('a.manifest.json'))['best_epoch'])")
check "the best epoch's file is the --save file" cmp -s best.st "ep/epoch-$best.safetensors"
expect_ok "an epoch's file is an --adapter for heads" "$seqrep" heads --model lm.safetensors \
    --adapter ep/epoch-0002.safetensors --data d/dev.conll --r 1 --out heads.csv
check "... one row a layer and head" test "$(($(wc -l <heads.csv) - 1))" = 4

expect_ok "plot timeline --what f1" "$seqrep" plot timeline --series ep --what f1 --out f1.png
python3 - <<'PY' && ok "timeline f1: the numbers beside it are series.json's, by epoch" || bad "timeline f1 numbers"
import csv, json, sys
e = json.load(open("ep/series.json"))["snapshots"]
rows = list(csv.DictReader(open("f1.csv")))
want = [(str(x["step"]), s, x[s]) for s in ("dev_f1", "test_f1") for x in e]
ok = [(r["step"], r["series"]) for r in rows] == [(a, b) for a, b, _ in want]
ok = ok and all(abs(float(r["value"]) - v) < 1e-4 for r, (_, _, v) in zip(rows, want))
sys.exit(0 if ok else 1)
PY
check "timeline f1: title and caption" grep -q "Dev and test F1 by fine-tuning epoch" f1.manifest.json
expect_ok "plot timeline --what loss of an epoch series" "$seqrep" plot timeline --series ep --what loss --out loss.svg
check "... by epoch" grep -q "Fine-tuning loss by epoch" loss.manifest.json

# ---- measures of every epoch: attnflow and heads with the epoch's adapters ----
build=$(dirname "$seqrep")
expect_ok "series_flow.sh on the epochs" sh "$here/../examples/series_flow.sh" "$build" ep d/dev.conll 1
check "... one flow CSV per epoch, with its adapter in the manifest" sh -c \
    'test "$(ls ep/measures/flow/*.csv | wc -l)" = 4 && grep -q "epoch-0002.safetensors" ep/measures/flow/step-000002.manifest.json'
expect_ok "plot timeline --what flow" "$seqrep" plot timeline --series ep --what flow --score earlier_right --top 2 \
    --out flow.png
python3 - <<'PY' && ok "timeline flow: per layer and epoch, the mean over heads of the attnflow CSVs" || bad "timeline flow numbers"
import csv, sys
rows = list(csv.DictReader(open("flow.csv")))
ok = len(rows) == 2 * 4 * 2 and all(r["series"] in ("flow/earlier_right", "flow/earlier_right_chance") for r in rows)
for r in rows:
    f = [x for x in csv.DictReader(open("ep/measures/flow/step-%06d.csv" % int(r["step"]))) if x["layer"] == r["layer"]]
    column = r["series"].split("/")[1]
    mean = sum(float(x[column]) for x in f) / len(f)
    ok = ok and abs(mean - float(r["value"])) < 1e-5
sys.exit(0 if ok else 1)
PY
python3 - <<'PY' && ok "timeline flow: the chance level, the same at every epoch (the same sentences and mask)" || bad "timeline flow chance"
import csv, sys
rows = [r for r in csv.DictReader(open("flow.csv")) if r["series"] == "flow/earlier_right_chance"]
values = {r["layer"]: set() for r in rows}
for r in rows:
    values[r["layer"]].add(r["value"])
sys.exit(0 if len(rows) == 4 * 2 and all(len(v) == 1 for v in values.values()) else 1)
PY
check "timeline flow: the caption names the dashed chance lines" grep -q "Dashed, in the layer's colour: its chance level" flow.manifest.json
check "timeline flow: the layers named in the legend's manifest" grep -q '"layer 0"\|"layer 1"' flow.manifest.json

# ---- what each layer holds, by epoch: a probe of every epoch's model ----
expect_ok "series_probe.sh on the epochs" sh "$here/../examples/series_probe.sh" "$build" ep d/train.conll \
    d/dev.conll d/test.conll 1
check "... one probe CSV per epoch, with its adapter in the manifest" sh -c \
    'test "$(ls ep/measures/probe/*.csv | wc -l)" = 4 && grep -q "epoch-0003.safetensors" ep/measures/probe/step-000003.manifest.json'
expect_ok "plot timeline --what probe --split dev" "$seqrep" plot timeline --series ep --what probe --split dev \
    --out probe.png
python3 - <<'PY' && ok "timeline probe: per layer and epoch, the dev F1 of the last copy at r = 1 in the probe CSVs" || bad "timeline probe numbers"
import csv, sys
rows = list(csv.DictReader(open("probe.csv")))
ok = len(rows) > 0 and all(r["series"] == "probe/dev/r1" for r in rows) and {r["step"] for r in rows} == {"0", "1", "2", "3"}
for r in rows:
    f = [x for x in csv.DictReader(open("ep/measures/probe/step-%06d.csv" % int(r["step"])))
         if x["layer"] == r["layer"] and x["split"] == "dev" and x["copy"] == "last" and x["r"] == "1"]
    ok = ok and len(f) == 1 and abs(float(f[0]["f1"]) - float(r["value"])) < 1e-3
sys.exit(0 if ok else 1)
PY
check "... its caption says what is drawn" grep -q "linear probe on each layer's last-copy features at r = 1" \
    probe.manifest.json
expect_error "timeline --split with --what flow" "--split applies to --what probe only" \
    "$seqrep" plot timeline --series ep --what flow --split dev --out x.png
cp -r ep noprobe
rm noprobe/measures/probe/step-000002.csv
expect_error "timeline --what probe with a step not measured" "noprobe/measures/probe/step-000002.csv: missing" \
    "$seqrep" plot timeline --series noprobe --what probe --out x.png
check "... nothing written" test ! -e x.png

# ---- the attention of the names on their cue, by epoch (attnflow --cues) ----
cp -r ep nocue
expect_ok "series_flow.sh with CUES right-cue" sh "$here/../examples/series_flow.sh" "$build" ep d/dev.conll 1 right-cue
check "... every epoch measured again, now with the columns cue and non_cue" sh -c \
    'for f in ep/measures/flow/step-*.csv; do head -1 "$f" | grep -q ",sink_chance,cue,non_cue,cue_chance,non_cue_chance$" || exit 1; done'
python3 - <<'PY' && ok "attnflow --cues: cue_queries = the ambiguous entity words of the dev sentences" || bad "cue_queries"
import json, sys
names = {"jordan", "austin", "chelsea", "florence", "georgia", "lincoln", "madison", "phoenix", "sydney",
         "victoria", "aurora", "dakota"}
n = 0
for line in open("d/dev.conll"):
    cols = line.split()
    n += len(cols) >= 2 and cols[0] in names and cols[-1] != "O"
m = json.load(open("ep/measures/flow/step-000002.manifest.json"))
sys.exit(0 if n > 0 and m["cues"] == "right-cue" and m["cue_queries"] == n else 1)
PY
expect_ok "plot timeline --what flow --score cue" "$seqrep" plot timeline --series ep --what flow --score cue \
    --out cue.png
python3 - <<'PY' && ok "timeline cue: per layer and epoch, the mean over heads of the cue column" || bad "timeline cue numbers"
import csv, sys
rows = list(csv.DictReader(open("cue.csv")))
ok = len(rows) == 2 * 4 * 2 and all(r["series"] in ("flow/cue", "flow/cue_chance") for r in rows)
for r in rows:
    f = [x for x in csv.DictReader(open("ep/measures/flow/step-%06d.csv" % int(r["step"]))) if x["layer"] == r["layer"]]
    column = r["series"].split("/")[1]
    ok = ok and abs(sum(float(x[column]) for x in f) / len(f) - float(r["value"])) < 1e-5
    ok = ok and all(0 <= float(x["cue"]) <= 1 and 0 <= float(x["non_cue"]) <= 1 for x in f)
sys.exit(0 if ok else 1)
PY
check "... its caption says what the share is" grep -q "their cue word in the earlier copies" cue.manifest.json
expect_error "timeline --score cue of flow CSVs without the cue columns" \
    "nocue/measures/flow/step-000000.csv: no columns cue and non_cue" \
    "$seqrep" plot timeline --series nocue --what flow --score cue --out x.png
expect_error "attnflow --cues of no task" "--cues: unknown task 'speed'" \
    "$seqrep" attnflow --model lm.safetensors --data d/dev.conll --r 1 --cues speed
expect_error "attnflow --cues with --text" "--cues needs a CoNLL --data" \
    "$seqrep" attnflow --model lm.safetensors --data d/corpus.txt --text --r 1 --cues right-cue
expect_error "attnflow --cues left-cue on right-cue data" "d/dev.conll:[0-9]*: ambiguous entity '[a-z]*' (word [0-9]*) has no left-cue cue word" \
    "$seqrep" attnflow --model lm.safetensors --data d/dev.conll --r 1 --cues left-cue --out bad.csv
check "... nothing written" test ! -e bad.csv
expect_ok "series_heads.sh on the epochs" sh "$here/../examples/series_heads.sh" "$build" ep
check "... heads of every epoch, with its adapter" sh -c \
    'test "$(ls ep/measures/heads-random/*.csv | wc -l)" = 4 && grep -q "epoch-0003.safetensors" ep/measures/heads-random/step-000003.manifest.json'

# ---- the explorer over the series, and an animation of its frames ----
export SDL_VIDEODRIVER=dummy
mkdir -p frames
expect_ok "explore --series: a scripted walk saving a frame per epoch" "$seqrep" explore --series ep \
    --data d/dev.conll --save-dir frames --script "<home>[[[s]s]s]sq"
check "... four frames" test "$(ls frames/*.png | wc -l)" = 4
expect_ok "explore --series: ] past the last epoch is a message, not a change" "$seqrep" explore --series ep \
    --data d/dev.conll --save-dir frames --script "]sq"
check "... the last epoch stays: the same frame as the walk's last" cmp -s frames/explore-0004.png frames/explore-0005.png
python3 - <<'PY' && ok "the walk saved different frames for epochs 0 and 3 (their titles name the epoch)" || bad "frames of the walk"
import sys
a, b = open("frames/explore-0001.png", "rb").read(), open("frames/explore-0004.png", "rb").read()
sys.exit(0 if a != b and len(a) > 1000 else 1)
PY
if /usr/bin/python3 -c "import PIL" 2>/dev/null; then
    expect_ok "animate.py: the frames into a GIF" /usr/bin/python3 "$here/../examples/animate.py" walk.gif \
        frames/explore-0001.png frames/explore-0002.png frames/explore-0003.png frames/explore-0004.png
    expect_ok "animate.py: ... and an APNG" /usr/bin/python3 "$here/../examples/animate.py" walk.png \
        frames/explore-0001.png frames/explore-0002.png frames/explore-0003.png frames/explore-0004.png --delay 400
    /usr/bin/python3 - <<'PY' && ok "the GIF and the APNG have 4 frames, looping, the window's size" || bad "animations"
import sys
from PIL import Image
g, p = Image.open("walk.gif"), Image.open("walk.png")
ok = g.n_frames == 4 and p.n_frames == 4 and g.size == p.size == Image.open("frames/explore-0001.png").size
ok = ok and g.info.get("loop") == 0 and p.info.get("duration") == 400
sys.exit(0 if ok else 1)
PY
    expect_error "animate.py: a frame that is not there" "nope.png: cannot read it" \
        /usr/bin/python3 "$here/../examples/animate.py" x.gif frames/explore-0001.png nope.png
    check "... nothing written" test ! -e x.gif
else
    echo "skip animate.py (python3-pil is not installed; make deps-test installs it)"
fi
cp -r pre mixed
"$seqrep" train-lm --corpus d/corpus.txt --out mixed/step-000020.safetensors --layers 1 --d-model 16 --heads 2 \
    --d-ff 32 --seq-len 64 --batch 4 --steps 2 --threads 1 --quiet >/dev/null 2>&1
expect_error "explore --series with a snapshot of another model" \
    "mixed/step-000020.safetensors: 1 layers, 2 heads, width 16, vocabulary .*, but mixed/step-000000.safetensors has 2" \
    "$seqrep" explore --series mixed --data d/dev.conll --script q
mkdir -p empty && echo '{"steps": 3, "snapshots": []}' >empty/series.json
expect_error "explore --series on an empty series" "empty/series.json: no snapshots" \
    "$seqrep" explore --series empty --data d/dev.conll --script q
rm mixed/step-000020.safetensors
expect_error "explore --series with a snapshot file gone" "mixed/step-000020.safetensors (step 20 of mixed/series.json) not found" \
    "$seqrep" explore --series mixed --data d/dev.conll --script q
expect_error "explore with both --model and --series" "give either --model FILE or --series DIR" \
    "$seqrep" explore --model lm.safetensors --series ep --data d/dev.conll --script q

# ---- bad input ----
expect_ok "--save-epochs of a full fine-tuning" "$seqrep" finetune $run --recipe full --epochs 2 --out full.csv \
    --save-epochs full
python3 - <<'PY' && ok "... a checkpoint per epoch, epoch_files model" || bad "full fine-tuning's series"
import json, sys
s = json.load(open("full/series.json"))
ok = s["unit"] == "epoch" and s["epoch_files"] == "model" and [e["step"] for e in s["snapshots"]] == [0, 1, 2]
sys.exit(0 if ok else 1)
PY
check "... series --list: each epoch a model, no adapter" test \
    "$("$seqrep" series --list full | awk '{ print $1, $3 }' | tr '\n' ' ')" = "0 - 1 - 2 - "
expect_ok "... an epoch is a checkpoint for info" "$seqrep" info full/epoch-0002.safetensors
check "... its weights are not the base's (trained)" sh -c '! cmp -s full/epoch-0000.safetensors full/epoch-0002.safetensors'
expect_error "--save-epochs where no folder can be made" "--save-epochs /proc/seqrep-epochs: cannot create the folder" \
    "$seqrep" finetune $run --out c.csv --save-epochs /proc/seqrep-epochs
touch afile
expect_error "--save-epochs on a file" "--save-epochs afile: not a folder" "$seqrep" finetune $run --out c.csv --save-epochs afile
mkdir -p foreign && echo '{"x": 1}' >foreign/series.json
expect_error "--save-epochs into a folder whose series.json is not a series" "foreign/series.json: not a snapshot series" \
    "$seqrep" finetune $run --out c.csv --save-epochs foreign
check "... no run output, nothing in the folders" sh -c '! ls c.* >/dev/null 2>&1 && test "$(ls foreign)" = series.json'
expect_error "timeline --what f1 of a pre-training series" "pre/series.json: no dev_f1" \
    "$seqrep" plot timeline --series pre --what f1 --out x.png
check "... nothing written" test ! -e x.png
rm ep/measures/flow/step-000001.csv
expect_error "timeline --what flow with an epoch not measured" "ep/measures/flow/step-000001.csv: missing (no flow measure of step 1" \
    "$seqrep" plot timeline --series ep --what flow --out x.png
expect_error "timeline --what flow --score of no share" "unknown share 'copy'" \
    "$seqrep" plot timeline --series ep --what flow --score copy --out x.png
mv ep/epoch-0002.safetensors moved.st
expect_status 2 "series_flow.sh with an epoch file gone" sh "$here/../examples/series_flow.sh" "$build" ep d/dev.conll
check "... named in one line" sh -c 'test "$(wc -l <err.txt)" = 1 && grep -q "epoch-0002.safetensors (step 2 of ep/series.json) not found" err.txt'
expect_error "timeline --what of another name" "--what must be heads, loss, f1, flow or probe" \
    "$seqrep" plot timeline --series ep --what speed --out x.png

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
