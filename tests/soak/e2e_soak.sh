#!/bin/sh
# e2e_soak.sh — a long scripted session of the explorer on a 200-token
# sentence: r changes, layer and head sweeps, view toggles, PNG saves,
# resizes and hovers (tests/soak/explore_keys.py), replayed with
# --script-file under SDL_VIDEODRIVER=dummy, with --frame-times recording
# each frame's draw time and the resident memory after it.
#
# In `make test` it runs SOAK_KEYS=200 keys (seconds); under the ASan build
# (make test-asan) LeakSanitizer fails the run on any leak. `make soak` runs
# SOAK_KEYS=2000 on build-asan/seqrep (ASan's quarantine at 16 MB, so it
# fills within the first minute) and on build/seqrep, and checks, only
# there, that the resident memory after the first minute does not grow by
# more than SOAK_RSS_GROWTH_KB and that no frame took longer than
# SOAK_MAX_FRAME_MS (docs/reliability.md has the measured numbers).
# Usage: sh tests/soak/e2e_soak.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/../e2e/e2e-lib.sh"
e2e_begin "$@"
ignore_fontconfig_leaks
keys=${SOAK_KEYS:-200}
export SDL_VIDEODRIVER=dummy

"$seqrep" gen-text --out corpus.txt --sentences 600 --seed 3 2>/dev/null
expect_status 0 "train-lm: a model with room for 2 x 200 tokens" "$seqrep" train-lm --corpus corpus.txt \
    --out m.safetensors --layers 2 --d-model 32 --heads 2 --d-ff 64 --seq-len 512 --batch 2 --steps 3 \
    --threads 1 --quiet
python3 -c "import sys; w = open('corpus.txt').read().split(); sys.stdout.write(' '.join(w[:200]))" >text.txt
python3 "$here/soak/explore_keys.py" "$keys" >keys.txt
mkdir shots
expect_ok "explore: $keys scripted keys (--script-file)" "$seqrep" explore --model m.safetensors \
    --text "$(cat text.txt)" --size 900x640 --save-dir shots --script-file keys.txt --frame-times frames.csv
grep '^frames' err.txt
[ "$(ls shots | wc -l)" -ge 1 ] && [ "$(grep -c '^wrote shots/' err.txt)" = "$(ls shots | wc -l)" ] &&
    ok "explore: the saves of the session written" || bad "explore: the saves of the session written"
# every frame has a time and a resident size; the sentence really is 200 tokens
python3 - frames.csv "$keys" <<'PY' && ok "explore: frames.csv, one row per drawn frame" || bad "explore: frames.csv, one row per drawn frame"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if len(rows) >= int(sys.argv[2]) // 2 and all(float(r["ms"]) >= 0 and int(r["rss_kb"]) > 0 for r in rows) else 1)
PY
# the first 200 keys from CRLF-only and LF-only copies of the file: the same saves
head -n 19 keys.txt | tr -d '\r' >keys_lf.txt
echo q >>keys_lf.txt
sed 's/$/\r/' keys_lf.txt >keys_crlf.txt
mkdir shots_lf shots_crlf
"$seqrep" explore --model m.safetensors --text "$(cat text.txt)" --size 900x640 --save-dir shots_lf \
    --script-file keys_lf.txt >/dev/null 2>&1
"$seqrep" explore --model m.safetensors --text "$(cat text.txt)" --size 900x640 --save-dir shots_crlf \
    --script-file keys_crlf.txt >/dev/null 2>&1
if [ "$(ls shots_lf | wc -l)" -ge 1 ] && diff -r shots_lf shots_crlf >/dev/null; then
    ok "explore: LF and CRLF script files save the same frames"
else
    bad "explore: LF and CRLF script files save the same frames"
fi

# make soak: the generous bounds, checked only here (never in make test).
# Memory growth: the largest VmRSS of the last minute against the largest
# of the second minute (60..120 s; the first minute fills caches and, under
# ASan, the allocator's quarantine).
if [ -n "${SOAK_MAX_FRAME_MS:-}" ]; then
    python3 - frames.csv "$SOAK_MAX_FRAME_MS" "${SOAK_RSS_GROWTH_KB:-8192}" <<'PY' && ok "soak: bounds held" || bad "soak: bounds held"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ms = sorted(float(r["ms"]) for r in rows)
end = float(rows[-1]["t_s"])
second = [int(r["rss_kb"]) for r in rows if 60.0 <= float(r["t_s"]) < 120.0]
last = [int(r["rss_kb"]) for r in rows if float(r["t_s"]) >= end - 60.0]
growth = max(last) - max(second) if second else None
print("soak: %d frames over %.0f s, draw time median %.2f ms, 99th percentile %.2f ms, max %.2f ms (bound %s);"
      " VmRSS %s kB at the first frame, max %s kB in 60..120 s, max %s kB in the last minute, %s kB at the end"
      " (growth %s kB, bound %s)" % (len(rows), end, ms[len(ms) // 2], ms[int(len(ms) * 0.99)], ms[-1], sys.argv[2],
      rows[0]["rss_kb"], max(second) if second else "-", max(last), rows[-1]["rss_kb"], growth, sys.argv[3]))
sys.exit(0 if ms[-1] <= float(sys.argv[2]) and growth is not None and growth <= int(sys.argv[3]) else 1)
PY
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
