#!/bin/sh
# e2e_explore.sh — the interactive explorer end to end, without a screen:
# `seqrep explore` runs under SDL_VIDEODRIVER=dummy (and under Xvfb when
# xvfb-run is installed) with scripted keys; every frame it saves must equal,
# pixel for pixel, the PNG that `seqrep plot` makes from the command the
# explorer printed for that frame with `c`. The head roles of the overview
# (R): their frame differs, and the scores saved beside it are those of
# `seqrep heads` on the same sentence and r.
# Usage: sh tests/e2e/e2e_explore.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

ignore_fontconfig_leaks

# same_png NAME A B: both PNGs decode to the same size and the same pixels
cat >png_equal.py <<'PY'
import struct, sys, zlib

def pixels(path):
    """Width, height and the unfiltered scanlines of a PNG (8-bit RGB/RGBA)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + ": not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {2: 3, 6: 4}[colour]
            assert depth == 8
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * channels
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return w, h, channels, bytes(out)

def size(path):
    """Width and height from the IHDR chunk."""
    return struct.unpack(">II", open(path, "rb").read(24)[16:24])

if len(sys.argv) > 3 and size(sys.argv[1]) != tuple(int(v) for v in sys.argv[3].split("x")):
    sys.exit("size %dx%d, wanted %s" % (size(sys.argv[1]) + (sys.argv[3],)))
if open(sys.argv[1], "rb").read() == open(sys.argv[2], "rb").read():
    sys.exit(0)  # the same bytes: the same pixels (decoding is only needed to tell how they differ)
a, b = pixels(sys.argv[1]), pixels(sys.argv[2])
if a[:3] != b[:3]:
    sys.exit("size differs: %dx%d/%d against %dx%d/%d" % (a[:3] + b[:3]))
if a[3] != b[3]:
    n = sum(1 for x, y in zip(a[3], b[3]) if x != y)
    sys.exit("%d of %d bytes differ" % (n, len(a[3])))
PY
same_png() {
    if python3 png_equal.py "$2" "$3" ${4:-} 2>diff.txt; then ok "$1"; else bad "$1 ($(cat diff.txt))"; fi
}

# replay NAME DIR: run every command the explorer printed (DIR/cmds.txt) and
# compare its PNG with the explorer's frame of the same number in DIR
replay() {
    name=$1; dir=$2; i=0
    while IFS= read -r line; do
        i=$((i + 1))
        case "$line" in
            "seqrep plot "*) ;;
            *) bad "$name: command $i is not a seqrep plot line: $line"; continue ;;
        esac
        frame=$(ls "$dir" | grep -E '^explore-[0-9]{4}\.png$' | sed -n "${i}p")
        rm -f "$dir/view.png"
        if ! eval "\"\$seqrep\" ${line#seqrep }" >/dev/null 2>plot_err.txt; then
            bad "$name: frame $i: the printed command fails: $(cat plot_err.txt)"
            continue
        fi
        same_png "$name: frame $i ($frame) equals seqrep plot of: ${line#seqrep plot }" "$dir/$frame" "$dir/view.png"
    done <"$dir/cmds.txt"
    [ "$i" -gt 0 ] || bad "$name: no command printed"
}

# ---- a tiny model ----
"$seqrep" gen-text --out corpus.txt --sentences 600 --seed 3 2>/dev/null
if "$seqrep" train-lm --corpus corpus.txt --out m.safetensors --layers 2 --d-model 32 --heads 2 --d-ff 64 \
    --seq-len 64 --batch 4 --steps 30 --threads 2 --quiet 2>err.txt; then
    ok "train a tiny model"
else
    bad "train a tiny model"; cat err.txt
fi
printf 'the O\nmiller B-PER\nhurries O\n. O\n\nwhere O\nare O\nthe O\nblack O\nbaskets O\n? O\n\n' >d.conll

export SDL_VIDEODRIVER=dummy
sentence="the miller hurries to the mill ."

# ---- help and bad input ----
"$seqrep" explore --help >out.txt 2>&1 && grep -q -- "--script" out.txt && ok "explore --help" || bad "explore --help"
"$seqrep" --help | grep -q "explore" && ok "explore is listed" || bad "explore is listed"
expect_error "no --model" "--model" "$seqrep" explore --text "the"
expect_error "no data" "either --data" "$seqrep" explore --model m.safetensors
expect_error "both --data and --text" "either --data" "$seqrep" explore --model m.safetensors --text a --data d.conll
expect_error "bad --size" "--size" "$seqrep" explore --model m.safetensors --text the --size 10x
expect_error "bad --theme" "--theme" "$seqrep" explore --model m.safetensors --text the --theme pink
expect_error "bad --view" "--view" "$seqrep" explore --model m.safetensors --text the --view pie
expect_error "missing --save-dir" "not a directory" "$seqrep" explore --model m.safetensors --text the --save-dir nowhere
expect_error "bad script key" "unknown key name '<fly>'" "$seqrep" explore --model m.safetensors --text the --script "a<fly>"
expect_error "script number too large (found by fuzzing)" "unknown key name '<hover 1 4294967297>'" \
    "$seqrep" explore --model m.safetensors --text the --script "<hover 1 4294967297>q"
expect_error "missing model" "nope.safetensors" "$seqrep" explore --model nope.safetensors --text the --script q
# words the model does not know: said on the terminal (naming models that know them) and in the caption
"$seqrep" explore --model m.safetensors --text "zorp quib flarn the" --script q >out.txt 2>err.txt
if [ $? = 0 ] && [ "$(grep -c . err.txt)" = 1 ] &&
   grep -q "seqrep explore: warning: 3 of the 4 tokens of the sentence are unknown to m.safetensors .*house LM.*Hugging Face" err.txt; then
    ok "unknown words: one warning naming the model and ones that know English"
else
    bad "unknown words warning"; cat err.txt
fi
"$seqrep" explore --model m.safetensors --text "$sentence" --script q >out.txt 2>err.txt
grep -q "unknown to" err.txt && bad "known words: no warning" || ok "known words: no warning"
expect_error "r too large" "does not fit" "$seqrep" explore --model m.safetensors --text "$sentence" --r 40 --script q
expect_error "layer out of range" "--layer 5" "$seqrep" explore --model m.safetensors --text the --layer 5 --script q
expect_error "sentence out of range" "--sentence 9" "$seqrep" explore --model m.safetensors --data d.conll --sentence 9 --script q
expect_error "layers view without results" "--layers" "$seqrep" explore --model m.safetensors --text the --view layers --script q

# ---- frames equal seqrep plot ----
# attention (mean, then head 0 of layer 0 in log scale and dark), the mask
# view at r = 3, the overview, and a smaller window after a resize
mkdir a
script="s c 2<left><down>lt s c m3 s c o s c <resize 700x500> m s c q"
if "$seqrep" explore --model m.safetensors --text "$sentence" --size 900x640 --save-dir a \
    --script "$script" >a/cmds.txt 2>err.txt; then
    ok "scripted run (dummy video driver)"
else
    bad "scripted run (dummy video driver)"; cat err.txt
fi
[ "$(ls a | grep -c -E '^explore-[0-9]{4}\.png$')" = 5 ] && ok "five frames saved" || bad "five frames saved: $(ls a)"
[ "$(wc -l <a/cmds.txt)" = 5 ] && ok "five commands printed" || bad "five commands printed"
grep -q -- "--size 700x500" a/cmds.txt && ok "the command follows the resized window" || bad "the command follows the resized window"
replay "text" a
same_png "the frame after the resize is 700x500" a/explore-0005.png a/explore-0005.png 700x500

# head roles (R) on the overview at r = 2: the frame differs from the one
# without roles, R again gives that one back to the byte, and the saved
# scores are the numbers `seqrep heads` writes for the same sentence and r;
# at r = 0 no scores are saved
mkdir roles
if "$seqrep" explore --model m.safetensors --text "$sentence" --size 900x640 --save-dir roles \
    --script "2o s R s v R s R0 s q" >/dev/null 2>err.txt; then
    ok "scripted run with head roles"
else
    bad "scripted run with head roles"; cat err.txt
fi
[ "$(ls roles | tr '\n' ' ')" = "explore-0001.png explore-0002.png explore-0002.roles.csv explore-0002.roles.manifest.json explore-0003.roles.csv explore-0003.roles.manifest.json explore-0003.svg explore-0004.png explore-0005.png " ] \
    && ok "roles: a CSV and manifest beside the frames with roles, none at r = 0" || bad "roles: files saved: $(ls roles)"
cmp -s roles/explore-0001.png roles/explore-0002.png && bad "roles: the frame with roles differs" || ok "roles: the frame with roles differs"
cmp -s roles/explore-0001.png roles/explore-0004.png && ok "roles: R again gives the frame without roles back" \
    || bad "roles: R again gives the frame without roles back"
cmp -s roles/explore-0002.roles.csv roles/explore-0003.roles.csv && ok "roles: s and v save the same scores" \
    || bad "roles: s and v save the same scores"
echo "$sentence" >one.txt
expect_ok "heads on the explorer's sentence, r = 2" "$seqrep" heads --model m.safetensors --data one.txt --text --r 2 --out roles-heads.csv
check "roles: the saved scores are those of seqrep heads" python3 -c '
import csv, json
h = list(csv.DictReader(open("roles-heads.csv")))
e = list(csv.DictReader(open("roles/explore-0002.roles.csv")))
assert [(r["layer"], r["head"]) for r in e] == [(r["layer"], r["head"]) for r in h] and len(e) == 4, e
names = ("copy", "induction", "previous", "sink", "own_copy")
for a, b in zip(h, e):
    for k in names:
        assert abs(float(a[k]) - float(b[k])) <= 1e-6, (k, a, b)
    top = max(names[:4], key=lambda k: float(b[k]))
    assert b["role"] == (top if float(b[top]) >= 0.2 else "none"), b
m = json.load(open("roles/explore-0002.roles.manifest.json"))
assert m["r"] == 2 and m["text"] == "the miller hurries to the mill ." and m["bos"] == "per-copy", m
assert m["frame"] == "roles/explore-0002.png" and m["result"] == "roles/explore-0002.roles.csv", m
assert m["model"] == "m.safetensors" and len(m["model_checksum"]) == 16 and m["role_threshold"] == 0.2, m
'
check "roles: the chance levels saved are those of seqrep heads, and the closed form of a uniform causal head" python3 -c '
import csv, json
h = list(csv.DictReader(open("roles-heads.csv")))
e = list(csv.DictReader(open("roles/explore-0002.roles.csv")))
names = ("copy", "induction", "previous", "sink", "own_copy")
for a, b in zip(h, e):
    for k in names:
        assert abs(float(a[k + "_chance"]) - float(b[k + "_chance"])) <= 1e-6, (k, a, b)
# n pieces, r = 2, <bos> per copy: query i of the last copy is row 2(n + 1) + 1 + i and sees one more key
n = json.load(open("roles-heads.manifest.json"))["last_copy_tokens"]
keys = [2 * (n + 1) + 2 + i for i in range(n)]
sink = sum(1 / t for t in keys) / n
own = sum((i + 1) / t for i, t in enumerate(keys)) / n
for b in e:
    assert abs(float(b["sink_chance"]) - sink) < 1e-6 and abs(float(b["own_copy_chance"]) - own) < 1e-6, (b, sink, own)
'

# the `b` filter (only last copy -> earlier copies) at r = 2 replays too
mkdir lc
if "$seqrep" explore --model m.safetensors --text "$sentence" --size 800x600 --save-dir lc \
    --script "2b s c q" >lc/cmds.txt 2>err.txt; then
    ok "scripted run with the b filter"
else
    bad "scripted run with the b filter"; cat err.txt
fi
grep -q -- "--last-copy-only" lc/cmds.txt && ok "the command carries --last-copy-only" || bad "the command carries --last-copy-only"
replay "b filter" lc

# a CoNLL file: the second sentence (PgDn), r = 2, head 1
mkdir b
if "$seqrep" explore --model m.safetensors --data d.conll --size 800x600 --save-dir b \
    --script "<pgdn>2<down><down> s c v q" >b/cmds.txt 2>err.txt; then
    ok "scripted run on a CoNLL file"
else
    bad "scripted run on a CoNLL file"; cat err.txt
fi
grep -q -- "--data d.conll --sentence 1 --r 2 .* --head 1 " b/cmds.txt && ok "command names sentence, r, head" \
    || bad "command names sentence, r, head: $(cat b/cmds.txt)"
replay "conll" b
# the SVG is the same drawing: equal up to cairo's running surface number
line=$(cat b/cmds.txt)
eval "\"\$seqrep\" ${line#seqrep } " >/dev/null 2>&1
eval "\"\$seqrep\" $(echo "${line#seqrep }" | sed 's|b/view.png|b/view.svg|')" >/dev/null 2>&1
if [ -s b/explore-0002.svg ] && sed 's/surface[0-9]*/surface/g' b/explore-0002.svg >s1.txt &&
    sed 's/surface[0-9]*/surface/g' b/view.svg >s2.txt && cmp -s s1.txt s2.txt; then
    ok "v saves the same SVG as seqrep plot"
else
    bad "v saves the same SVG as seqrep plot"
fi

# saves never overwrite: a second run into the same directory goes on numbering
sum_before=$(cksum <b/explore-0001.png)
"$seqrep" explore --model m.safetensors --data d.conll --size 800x600 --save-dir b --script "t s v q" 2>/dev/null
if [ -s b/explore-0003.png ] && [ -s b/explore-0004.svg ] && [ "$(cksum <b/explore-0001.png)" = "$sum_before" ]; then
    ok "saves never overwrite earlier ones"
else
    bad "saves never overwrite earlier ones: $(ls b)"
fi

# the result plots of other commands: probe F1 per layer (p), exit (e), flow (f, head 0)
printf 'r,layer,copy,split,f1\n0,0,last,test,50\n0,1,last,test,60\n1,0,last,test,55\n1,1,last,test,70\n1,0,first,test,40\n1,1,first,test,45\n' >probe.csv
printf 'method,r,exit,split,f1,flops\ncausal,0,1,test,60,100\ncausal,0,2,test,65,200\nsr,1,1,test,70,200\nsr,1,2,test,75,400\n' >sweep.csv
"$seqrep" attnflow --model m.safetensors --data d.conll --r 2 --out flow.csv >/dev/null 2>&1
mkdir r
if "$seqrep" explore --model m.safetensors --text "the mill" --layers probe.csv --exit sweep.csv --flow flow.csv \
    --size 800x600 --save-dir r --script "p s c e s c f <down> s c q" >r/cmds.txt 2>err.txt; then
    ok "scripted run over result files"
else
    bad "scripted run over result files"; cat err.txt
fi
replay "results" r

# the views the table of figures added: the share of full blocks of the
# sentence on screen (B) and the head roles of a seqrep heads CSV (H)
"$seqrep" heads --model m.safetensors --data d.conll --r 1 --out heads.csv >/dev/null 2>&1
mkdir t
if "$seqrep" explore --model m.safetensors --text "the mill" --heads heads.csv --size 800x600 --save-dir t \
    --script "B s c H s c q" >t/cmds.txt 2>err.txt; then
    ok "scripted run over the views of the table (B, H)"
else
    bad "scripted run over the views of the table (B, H)"; cat err.txt
fi
grep -q -- "^seqrep plot proportion --n 2 --r 1\.\.8 " t/cmds.txt && grep -q -- "^seqrep plot heads --results heads.csv " t/cmds.txt \
    && ok "the commands name the views' figures" || bad "the commands name the views' figures: $(cat t/cmds.txt)"
replay "table views" t
expect_error "heads view without its CSV" "--view heads needs --heads FILE" \
    "$seqrep" explore --model m.safetensors --text the --view heads --script q

# a RePo model: z per token (z), another head, z per copy (z again), and the
# RePo result plots (g, n) from repo-eval-shaped CSVs
if "$seqrep" train-lm --corpus corpus.txt --out repo.safetensors --positions repo --layers 2 --d-model 32 \
    --heads 2 --d-ff 64 --seq-len 64 --batch 4 --steps 10 --threads 2 --quiet 2>err.txt; then
    ok "train a tiny RePo model"
else
    bad "train a tiny RePo model"; cat err.txt
fi
printf 'task,method,layer,length,z_range_mean,z_range_max,index_range\nkv,repo,1,16,2,3,15\nkv,repo,1,32,2.5,4,31\n' >range.csv
printf 'task,method,layer,length,needle_mass,needle_max,near_mass\n' >bad-needle.csv
printf 'task,method,layer,length,needle_mass,near_mass,needle_tokens,near_tokens\nneedle,rope,0,32,0.2,0.1,2,4\nneedle,rope,1,32,0.3,0.1,2,4\nneedle,repo,0,32,0.25,0.05,2,4\nneedle,repo,1,32,0.5,0.02,2,4\n' >needle.csv
mkdir z
if "$seqrep" explore --model repo.safetensors --data d.conll --sentence 1 --repo-range range.csv --repo-needle needle.csv \
    --size 800x600 --save-dir z --script "z s c <down> s c 2z s c g s c n s c q" >z/cmds.txt 2>err.txt; then
    ok "scripted run over a RePo model"
else
    bad "scripted run over a RePo model"; cat err.txt
fi
grep -q -- "^seqrep plot repo-repeat .* --sentence 1 --r 2 .* --layer 1 --head 1 " z/cmds.txt && ok "the z command names sentence, r, layer, head" \
    || bad "the z command names sentence, r, layer, head: $(cat z/cmds.txt)"
replay "repo" z
expect_error "z view of a RoPE model" "no RePo weights" "$seqrep" explore --model m.safetensors --text the --view repo-z --script q
expect_error "repo-repeat view at r = 0" "needs --r 1" "$seqrep" explore --model repo.safetensors --text the --view repo-repeat --r 0 --script q
expect_error "bad needle CSV" "bad-needle.csv" "$seqrep" explore --model repo.safetensors --text the --repo-needle bad-needle.csv --script q

# the window as seen: overlays (hover tooltip, key help) on top of the frame
mkdir c
"$seqrep" explore --model m.safetensors --text "$sentence" --size 800x600 --save-dir c \
    --script "s <hover 400 380><shot> ?<shot> q" >/dev/null 2>err.txt
if [ -s c/explore-0002-window.png ] && [ -s c/explore-0003-window.png ] &&
    ! cmp -s c/explore-0001.png c/explore-0002-window.png &&
    ! cmp -s c/explore-0002-window.png c/explore-0003-window.png; then
    ok "<shot> saves the window with its overlays"
else
    bad "<shot> saves the window with its overlays: $(ls c) $(cat err.txt)"
fi

# ---- a real X server ----
if command -v xvfb-run >/dev/null 2>&1; then
    mkdir x
    # (the X11 video driver's libraries keep allocations to exit: no leak check there;
    # the runs above check the explorer's own memory)
    if env -u SDL_VIDEODRIVER ASAN_OPTIONS=detect_leaks=0 xvfb-run -a "$seqrep" explore --model m.safetensors --text "$sentence" \
        --size 820x620 --save-dir x --script "<right><left>a s c q" >x/cmds.txt 2>err.txt; then
        ok "scripted run under Xvfb"
        replay "xvfb" x
    else
        bad "scripted run under Xvfb"; cat err.txt
    fi
else
    echo "skip Xvfb run: xvfb-run is not installed (Debian package xvfb)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
