#!/bin/sh
# e2e_timeline.sh — the head roles of a pre-training's snapshots (issue 29):
# a tiny LM trained here with train-lm --snapshots, examples/series_heads.sh
# on its series (seqrep heads --random and --data on every snapshot, the
# files, resuming keeps what was measured), `seqrep plot timeline` (--what
# heads with its ICL panel, heads-data, --what loss) in PNG and SVG, the
# numbers beside the figure equal to the per-step heads CSVs, their
# manifests and series.json, the coloured heads those with the largest last
# value, a non-blank PNG of the expected size, and bad input (an empty
# series, a missing step, a measure CSV from a model of another shape, bad
# options): one line, exit 2, nothing written.
# Usage: sh tests/e2e/e2e_timeline.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks   # plot timeline draws text
build=$(dirname "$seqrep")
series_heads="$here/../examples/series_heads.sh"

"$seqrep" gen-text --out corpus.txt --sentences 300 --seed 3 2>/dev/null
{
    printf -- '-DOCSTART- -X- O O\n\n'
    head -8 corpus.txt | awk '{ for (i = 1; i <= NF; i++) print $i "\tO"; print "" }'
} >data.conll
tiny="--corpus corpus.txt --d-model 32 --heads 2 --d-ff 64 --seq-len 64 --batch 4 --steps 30 --threads 1 --quiet"
expect_ok "train a tiny LM with snapshots" "$seqrep" train-lm $tiny --layers 2 --out lm.safetensors \
    --snapshots snaps --snapshot-steps 0,10,20,30

# png_is W H FILE: a PNG of that size that is not blank (many pixels off the
# corner's colour, at least 8 colours)
png_is() {
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
b = open(path, "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR", "not a PNG"
width, height, depth, ctype = struct.unpack(">IIBB", b[16:26])
assert (width, height) == (w, h), (width, height)
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp, pos, idat = (3 if ctype == 2 else 4), 8, b""
while pos < len(b):
    n, kind = struct.unpack(">I4s", b[pos:pos + 8])
    if kind == b"IDAT":
        idat += b[pos + 8:pos + 8 + n]
    pos += 12 + n
raw, stride, prev, pixels = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        c = prev[x - bpp] if x >= bpp else 0
        p = a + prev[x] - c
        pred = [0, a, prev[x], (a + prev[x]) // 2,
                a if abs(p - a) <= abs(p - prev[x]) and abs(p - a) <= abs(p - c) else (prev[x] if abs(p - prev[x]) <= abs(p - c) else c)][f]
        line[x] = (line[x] + pred) & 255
    pixels += [bytes(line[i:i + 3]) for i in range(0, stride, bpp * 4)]
    prev = line
off = sum(1 for p in pixels if p != pixels[0])
assert off > len(pixels) / 70 and len(set(pixels)) >= 8, (off, len(pixels), len(set(pixels)))
PY
}
starts_with() { [ -s "$2" ] && [ "$(head -c ${#1} "$2")" = "$1" ]; }

# ---- examples/series_heads.sh ----
expect_ok "series_heads.sh on the series, with data" sh "$series_heads" "$build" snaps data.conll
check "a progress line per snapshot" test "$(grep -c '^== snapshot [1-4] of 4: step' out.txt)" = 4
check "heads-random and heads-data: a CSV and a manifest per step" test \
    "$(ls snaps/measures/heads-random snaps/measures/heads-data | grep -c '^step-0000[0-3]0\.\(csv\|manifest\.json\)$')" = 16
check "heads-random manifests: --random 30, r 1, the ICL numbers" python3 -c "
import json
for s in (0, 10, 20, 30):
    m = json.load(open('snaps/measures/heads-random/step-%06d.manifest.json' % s))
    assert m['random_pieces'] == 30 and m['r'] == 1 and m['model'] == 'snaps/step-%06d.safetensors' % s, m
    assert abs(m['icl_score'] - (m['loss_first_copy'] - m['loss_last_copy'])) < 1e-9, m
    assert '--threads 1' in m['command']
"
check "heads-data manifests: the data, r 1" grep -q '"data":.*"data.conll"' snaps/measures/heads-data/step-000020.manifest.json
cksum snaps/measures/*/* >before.txt
expect_ok "series_heads.sh again" sh "$series_heads" "$build" snaps data.conll
check "again: every step kept, nothing measured anew" sh -c \
    'test "$(grep -c ": kept " out.txt)" = 8 && cksum snaps/measures/*/* | cmp -s - before.txt'
rm snaps/measures/heads-random/step-000010.csv
expect_ok "series_heads.sh after a step was lost" sh "$series_heads" "$build" snaps
check "... measures that step alone" sh -c 'test "$(grep -c ": kept " out.txt)" = 3 && test -s snaps/measures/heads-random/step-000010.csv'
expect_status 2 "series_heads.sh without series.json" sh "$series_heads" "$build" corpus.txt
expect_status 2 "series_heads.sh with a missing data file" sh "$series_heads" "$build" snaps absent.conll

# ---- plot timeline ----
expect_ok "timeline --what heads, PNG" "$seqrep" plot timeline --series snaps --out heads.png
check "PNG 1600x1100, not blank" png_is 1600 1100 heads.png
expect_ok "timeline --what heads, SVG" "$seqrep" plot timeline --series snaps --score copy --top 2 --out copy.svg
check "SVG is SVG" starts_with "<?xml" copy.svg
expect_ok "timeline --measure heads-data --score previous, 1280x720" "$seqrep" plot timeline --series snaps \
    --measure heads-data --score previous --size 1280x720 --out data.png
check "heads-data PNG 1280x720, not blank" png_is 1280 720 data.png
expect_ok "timeline --what loss, PNG and SVG" sh -c "'$seqrep' plot timeline --series snaps --what loss --out loss.png &&
    '$seqrep' plot timeline --series snaps --what loss --theme dark --out loss.svg"
check "loss PNG 1600x1100, not blank" png_is 1600 1100 loss.png

# numbers MEASURE SCORE STEM: the figure's CSV holds every head's score of
# every step's CSV, the ICL score of every manifest, and the manifest names
# as coloured the heads with the largest last score
numbers() {
    python3 - "$1" "$2" "$3" <<'PY'
import csv, json, sys
measure, score, stem = sys.argv[1:]
steps = [e["step"] for e in json.load(open("snaps/series.json"))["snapshots"]]
assert steps == [0, 10, 20, 30], steps
rows = list(csv.DictReader(open(stem + ".csv")))
got = {(int(r["step"]), r["series"], r["layer"], r["head"]): r["value"] for r in rows}
want, last = {}, {}
for s in steps:
    for r in csv.DictReader(open("snaps/measures/%s/step-%06d.csv" % (measure, s))):
        want[(s, measure + "/" + score, r["layer"], r["head"])] = r[score]
        if s == steps[-1]:
            last[(int(r["layer"]), int(r["head"]))] = float(r[score])
    m = json.load(open("snaps/measures/heads-random/step-%06d.manifest.json" % s))
    want[(s, "icl_score", "", "")] = "%.6f" % m["icl_score"]
assert got == want, (sorted(set(got.items()) ^ set(want.items())))[:6]
assert len(rows) == 4 * 2 * 2 + 4, len(rows)
man = json.load(open(stem + ".manifest.json"))
top = sorted(last, key=lambda k: (-last[k], k))[:len(man["top"])]
assert man["top"] == ["L%dH%d" % k for k in top], (man["top"], top)
assert man["what"] == "heads" and man["measure"] == measure and man["score"] == score and man["icl"] is True
assert [e["step"] for e in man["steps"]] == steps and "timeline" in man["command"]
assert man["numbers"] == stem + ".csv"
PY
}
check "heads: the numbers are those of the step CSVs and manifests" numbers heads-random induction heads
check "copy --top 2: two coloured heads" python3 -c "
import json, sys
sys.exit(len(json.load(open('copy.manifest.json'))['top']) != 2)"
check "copy --top 2: the numbers of the step CSVs" numbers heads-random copy copy
check "heads-data: the numbers of its step CSVs" numbers heads-data previous data
check "loss: train_loss of series.json, the losses of the manifests" python3 -c "
import csv, json
s = json.load(open('snaps/series.json'))['snapshots']
want = [(e['step'], 'train_loss', '%.6f' % e['train_loss']) for e in s if e['train_loss'] is not None]
for key in ('loss_first_copy', 'loss_last_copy'):
    for e in s:
        m = json.load(open('snaps/measures/heads-random/step-%06d.manifest.json' % e['step']))
        want.append((e['step'], key, '%.6f' % m[key]))
got = [(int(r['step']), r['series'], r['value']) for r in csv.DictReader(open('loss.csv'))]
assert got == want and len(want) == 3 + 4 + 4, (got, want)
"

# ---- the explorer's timeline view (T) of its --series ----
export SDL_VIDEODRIVER=dummy
mkdir ex
expect_ok "explore --series: the timeline view, saved and its command printed" sh -c \
    "'$seqrep' explore --series snaps --data data.conll --size 800x600 --save-dir ex --script 'T s c q' >ex/cmds.txt"
check "... the command is the timeline of the series" grep -q "^seqrep plot timeline --series snaps --size 800x600 " ex/cmds.txt
line=$(cat ex/cmds.txt)
expect_ok "... the printed command runs" sh -c "'$seqrep' ${line#seqrep }"
check "... the frame is the printed command's figure" cmp -s ex/explore-0001.png ex/view.png

# ---- bad input: one line, exit 2, nothing written ----
# nothing STEM: no figure, numbers or manifest of that name
nothing() { ! ls "$1".* >/dev/null 2>&1; }
mkdir empty && printf '{"steps": 30, "snapshots": []}\n' >empty/series.json
expect_error "an empty series" "empty/series.json: no snapshots" \
    "$seqrep" plot timeline --series empty --out bad1.png
check "... wrote nothing" nothing bad1
expect_error "no series.json" "corpus/series.json: cannot open" "$seqrep" plot timeline --series corpus --out bad2.png
check "... wrote nothing" nothing bad2
cp -r snaps gap && rm gap/measures/heads-random/step-000020.csv
expect_error "a step's measure missing" \
    "gap/measures/heads-random/step-000020.csv: missing (no heads-random measure of step 20 of gap/series.json)" \
    "$seqrep" plot timeline --series gap --out bad3.svg
check "... wrote nothing" nothing bad3
expect_ok "explore --series on it still opens: its timeline view is off, saying why" \
    "$seqrep" explore --series gap --data data.conll --size 640x480 --script "T q"
cp -r snaps gap2 && rm gap2/measures/heads-random/step-000030.manifest.json
expect_error "a step's ICL manifest missing (loss)" "gap2/measures/heads-random/step-000030.manifest.json: missing" \
    "$seqrep" plot timeline --series gap2 --what loss --out bad4.png
check "... wrote nothing" nothing bad4
"$seqrep" train-lm $tiny --layers 3 --out other.safetensors
cp -r snaps shape
"$seqrep" heads --model other.safetensors --random 30 --r 1 --threads 1 \
    --out shape/measures/heads-random/step-000020.csv >/dev/null 2>&1
expect_error "a measure CSV of a model of another shape" \
    "shape/measures/heads-random/step-000020.csv: 3 layers x 2 heads, but step-000000.csv has 2 x 2 (another model?)" \
    "$seqrep" plot timeline --series shape --out bad5.png
check "... wrote nothing" nothing bad5
expect_error "no --series" "timeline needs --series DIR" "$seqrep" plot timeline --out bad6.png
expect_error "--what bogus" "--what must be heads, loss, f1, flow or probe, got 'bogus'" \
    "$seqrep" plot timeline --series snaps --what bogus --out bad6.png
expect_error "--score bogus" "--score: unknown score 'bogus'" \
    "$seqrep" plot timeline --series snaps --score bogus --out bad6.png
expect_error "--top 7" "--top must be 1..6" "$seqrep" plot timeline --series snaps --top 7 --out bad6.png
expect_error "--top with --what loss" "apply to --what heads and flow only" \
    "$seqrep" plot timeline --series snaps --what loss --top 2 --out bad6.png
expect_error "--series on another figure" "--series does not apply to figure 'heads'" \
    "$seqrep" plot heads --series snaps --out bad6.png
check "... wrote nothing" nothing bad6

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
