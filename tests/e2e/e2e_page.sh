#!/bin/sh
# e2e_page.sh — `seqrep explore --html`: the explorer as one self-contained
# web page, made from a small model this suite trains, checked in Debian's
# chromium (headless, through its DevTools protocol by python3-selenium and
# chromium-driver: tests/e2e/page_browser.py): keys, hover, pinning, every
# picture checked against `seqrep plot`'s PNG of the command the page shows,
# no console error, no request leaving the page. And the options' errors.
# Usage: sh tests/e2e/e2e_page.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

ignore_fontconfig_leaks

"$seqrep" gen-text --out corpus.txt --sentences 300 --seed 3 2>/dev/null
# the model, and its snapshots at steps 10 and 20 for the page of a series
"$seqrep" train-lm --corpus corpus.txt --out m.safetensors --layers 2 --d-model 32 --heads 2 --d-ff 64 \
    --seq-len 48 --batch 4 --steps 20 --threads 2 --quiet --seed 5 --snapshots series --save-every 10 2>/dev/null
sentence="the wind blew in redhill all day ."

mkdir page && cd page || exit 2
expect_ok "explore --html writes the page" "$seqrep" explore --model ../m.safetensors --text "$sentence" \
    --html page.html --html-r 1,2 --size 480x360
grep -q "^wrote page.html" err.txt && ok "it says what it wrote" || bad "it says what it wrote"
[ "$(ls | sort | tr '\n' ' ')" = "err.txt out.txt page.html " ] && ok "one file, nothing beside it" \
    || bad "one file, nothing beside it: $(ls)"
check "no address outside the page in it" sh -c '! grep -Eq "(src|href)=\"?(https?:)?//" page.html'
echo "page: $(wc -c <page.html) bytes"
cd .. || exit 2
# a pre-training's snapshots: [ and ] in the page
expect_ok "explore --series --html" "$seqrep" explore --series series --text "$sentence" --html series.html \
    --html-views attention --size 480x360

# ---- in the browser ----
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && /usr/bin/python3 -c "import selenium, PIL" 2>/dev/null; then
    if /usr/bin/python3 "$here/e2e/page_browser.py" "$work/page/page.html" "$seqrep" "$work/page" \
        "$work/series.html" >browser.txt 2>&1; then
        ok "the page in chromium"
    else
        bad "the page in chromium"
    fi
    sed 's/^/    /' browser.txt
else
    bad "the page in chromium: install chromium chromium-driver python3-selenium python3-pil (make deps-test)"
fi

# ---- options ----
expect_error "--html-r past what fits" "--html-r 9 does not fit" "$seqrep" explore --model m.safetensors \
    --text "$sentence" --html bad.html --html-r 1,9
expect_error "--html-r without the first r" "--html-r must hold the first r" "$seqrep" explore --model m.safetensors \
    --text "$sentence" --html bad.html --html-r 2
expect_error "--html-r without --html" "--html-r needs --html" "$seqrep" explore --model m.safetensors \
    --text "$sentence" --html-r 1
expect_error "--html-r not a list" "--html-r must be a comma list" "$seqrep" explore --model m.safetensors \
    --text "$sentence" --html bad.html --html-r 1,x
expect_error "--html with --script" "--html writes a page and opens no window" "$seqrep" explore \
    --model m.safetensors --text "$sentence" --html bad.html --script "q"
check "no bad run wrote anything" sh -c '! ls bad.* >/dev/null 2>&1'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
