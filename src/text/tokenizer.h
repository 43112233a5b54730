/* tokenizer.h — a word-level tokenizer (optionally cutting words into subword
 * pieces): text <-> token ids.
 *
 * Splitting. Text is cut at white space (and at ASCII control bytes, which
 * are treated like white space). Every ASCII punctuation character (the C
 * locale's ispunct: !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) is a token of its own,
 * and every other run of bytes is a word: letters, digits and all bytes
 * >= 0x80, so a UTF-8 character is never cut in half.
 *     "Don't stop."  ->  "Don" "'" "t" "stop" "."
 * With lower-casing on, ASCII letters A-Z are folded to a-z (other bytes,
 * including UTF-8 letters, are left alone).
 *
 * Vocabulary. Ids 0..5 are the special tokens below; words follow from id 6.
 * A vocabulary built from a corpus orders words by descending count, ties by
 * byte-wise comparison, so it is the same on every machine. On disk it is a
 * plain text file, one token per line in id order, specials first.
 *
 * Subword mode. A tokenizer learned with tokenizer_build_bpe_from_file (see
 * bpe.h) has subword = 1: its vocabulary holds whole-word pieces ("low") and
 * continuation pieces ("##er"). Text is split into tokens exactly as above,
 * and then each token is cut into pieces by greedy longest match: the longest
 * vocabulary entry that is a prefix of the token, then the longest "##" entry
 * that is a prefix of the rest, and so on ("lowest" -> "low" "##est"). A
 * character for which no piece exists becomes one <unk> and matching goes on
 * after it, so every word gets pieces. Decoding glues "##" pieces to the piece
 * before them. Only the vocabulary list is needed to rebuild such a
 * tokenizer (tokenizer_from_words, then tokenizer_set_subword), so a
 * checkpoint stores the list as usual and its manifest must record
 * "tokenizer": "bpe" for loaders to set the flag ("word" or absent = word
 * mode).
 *
 * Hugging Face. A Tokenizer made by tokenizer_from_hf (text/tokenizer_from_hf.h)
 * holds an HfTokenizer (text/hf/tokenizer_json.h): n_words is its number of ids,
 * words[id] its stored spellings ("" for ids without one), and lookup,
 * encode (add_bos = the special tokens its post-processor adds, maybe none),
 * word pieces (in context, see tokenizer_word_pieces_at) and decode (PLAIN
 * and PRETTY alike: the tokenizer's own decoder) go through it. The fixed
 * ids TOK_BOS etc. of words.h do not apply to it: tokenizer_specials gives
 * its own; corpus encoding (tokenizer_encode_lines) fails with a message.
 *
 * Ownership. A Tokenizer owns copies of all its words; tokenizer_free
 * releases them. Functions returning memory (decode,
 * EncodedText) hand it to the caller, who frees it with free() or
 * encoded_text_free(). */
#ifndef SEQREP_TOKENIZER_H
#define SEQREP_TOKENIZER_H

#include <stddef.h>

#include "base/status.h"
#include "text/words.h"

typedef struct {
    int n_words;   /* V, the vocabulary size, specials included */
    char **words;  /* (V) owned NUL-terminated strings: words[id] */
    int lowercase; /* 1: fold ASCII A-Z to a-z in text before lookup */
    int *slots;    /* (n_slots) hash table of ids, -1 = empty; internal */
    int n_slots;   /* power of two, at least 2 V; internal */
    int subword;   /* 1: cut tokens into vocabulary pieces (see "Subword mode") */
    int max_len;   /* length in bytes of the longest word; internal */
    struct HfTokenizer *hf; /* non-NULL: a Hugging Face tokenizer does the work
                               (see "Hugging Face" below) */
    int embedded;  /* ids below it have a row in the model's embedding; 0 = all
                      (set by a model folder whose special tokens reach past it) */
} Tokenizer;

/* ---- making a tokenizer (each fills *tok; on failure *tok is empty) -------- */

/* Build a vocabulary from text[0..len) (tokenizer_build.c): count the tokens (after lower-casing
 * if asked), keep those seen at least min_count (>= 1) times, at most
 * max_vocab ids in total including the specials (0 = no limit, otherwise
 * > TOK_N_SPECIAL), ordered by descending count then byte-wise. `source`
 * names the text in messages (a file name). Fails on a text without tokens
 * ("source: empty corpus (no tokens)") or when no word is frequent enough. */
int tokenizer_build_from_text(Tokenizer *tok, const char *text, size_t len, const char *source,
                              int min_count, int max_vocab, int lowercase, SrError *err);

/* The same, reading the corpus from a file (see text_read_file). */
int tokenizer_build_from_file(Tokenizer *tok, const char *path, int min_count, int max_vocab,
                              int lowercase, SrError *err);

/* Make a tokenizer from words[0..n) in id order (e.g. a list stored in a
 * checkpoint). The list must start with the six specials and contain no
 * duplicates, no empty words and no word with white space or control bytes;
 * errors name the entry: "vocabulary entry 7: duplicate token 'the'". */
int tokenizer_from_words(Tokenizer *tok, const char *const *words, int n, int lowercase,
                         SrError *err);

/* The same, with errors prefixed by `source` (e.g. the checkpoint's path):
 * "model.st: vocabulary entry 7: duplicate token 'the'". */
int tokenizer_from_words_in(Tokenizer *tok, const char *const *words, int n, int lowercase,
                            const char *source, SrError *err);

/* Learn a subword vocabulary of at most vocab_size tokens from the corpus
 * text[0..len) by byte-pair merges (bpe.h) and make a subword tokenizer of
 * it (subword = 1). `source` names the text in messages. */
int tokenizer_build_bpe_from_text(Tokenizer *tok, const char *text, size_t len, const char *source,
                                  int vocab_size, int lowercase, SrError *err);

/* The same, reading the corpus from a file (see text_read_file). */
int tokenizer_build_bpe_from_file(Tokenizer *tok, const char *path, int vocab_size, int lowercase,
                                  SrError *err);

/* Switch subword mode on (1) or off (0) for a tokenizer made from a list,
 * e.g. one whose checkpoint manifest says "tokenizer": "bpe". */
void tokenizer_set_subword(Tokenizer *tok, int subword);

/* Load a vocabulary file (one token per line, id order). The first six lines
 * must be the specials; no duplicates, empty lines or lines with white space.
 * CRLF line ends and a leading UTF-8 BOM are accepted. Errors name the file
 * and line: "vocab.txt:7: duplicate token 'the' (first on line 3)". The file
 * does not record lower-casing; the caller passes it. */
int tokenizer_load(Tokenizer *tok, const char *path, int lowercase, SrError *err);

/* Write the vocabulary, one token per line in id order, atomically (to
 * "path.tmp.<pid>", fsync, rename). */
int tokenizer_save(const Tokenizer *tok, const char *path, SrError *err);

/* Release the words and the table; *tok becomes empty (safe to call twice). */
void tokenizer_free(Tokenizer *tok);

/* ---- lookup --------------------------------------------------------------- */

/* Id of the word word[0..n) (lower-cased first if tok->lowercase), or -1 if
 * it is not in the vocabulary. Expected O(1): a hash table. */
int tokenizer_lookup(const Tokenizer *tok, const char *word, size_t n);

/* Id of the NUL-terminated word, or TOK_UNK if it is not in the vocabulary. */
int tokenizer_word_id(const Tokenizer *tok, const char *word);

/* The token with this id, or NULL if id is outside 0..V-1. */
const char *tokenizer_word(const Tokenizer *tok, int id);

/* 1 if label is the spelling of an unknown token: "<unk>" (house
 * vocabularies, SentencePiece) or "[UNK]" (WordPiece); 0 otherwise. */
int tokenizer_is_unknown_label(const char *label);

/* ---- special tokens ---------------------------------------------------------- */

/* The ids of a tokenizer's own special tokens, as sequence repetition,
 * batching and generation need them; -1 = the tokenizer has none. */
typedef struct {
    int bos; /* what encode puts first (house: TOK_BOS; Hugging Face: its
                post-processor's / tokenizer_config's first special, -1 for
                Qwen, which adds none) */
    int eos; /* end of text: TOK_EOS; tokenizer_config's eos_token, else the
                last special encode adds, else -1 */
    int sep; /* between copies: TOK_SEP; sep_token, else the eos above, else -1 */
    int pad; /* filler after a row (always >= 0, below n_words): TOK_PAD;
                pad_token, else the eos, else 0 */
} TokenizerSpecials;

/* The special ids of tok (see TokenizerSpecials). */
TokenizerSpecials tokenizer_specials(const Tokenizer *tok);

/* 1 if id is an added token a Hugging Face tokenizer marks special
 * (tokenizer.json's added_tokens); 0 for other ids and house tokenizers. */
int tokenizer_is_special(const Tokenizer *tok, int id);

/* Check that every id of ids[0..n) has a row in the model's embedding
 * (tok->embedded): 0, or -1 with "WHERE: token 'X' (id N) has no row in the
 * model's embedding (vocab_size V)" (Gemma 3's <image_soft_token> spelled
 * out in a text for a text-only model). */
int tokenizer_check_embedded(const Tokenizer *tok, const int *ids, long n, const char *where,
                             SrError *err);

/* ---- encoding ------------------------------------------------------------- */

/* Encode a NUL-terminated text into ids[0..max_ids): <bos> first if add_bos,
 * then one id per token (per piece in subword mode), TOK_UNK for unknown
 * words (unknown characters in subword mode). Returns the number of ids
 * the whole text needs; only the first max_ids are written (ids may be NULL
 * when max_ids is 0), so a caller can ask for the size first. */
long tokenizer_encode(const Tokenizer *tok, const char *text, int add_bos, int *ids,
                      long max_ids);

/* A corpus encoded as one stream of ids for language-model training. */
typedef struct {
    int *ids;         /* (n_ids) every line's tokens with its separator */
    long n_ids;
    long *line_start; /* (n_lines + 1) line i is ids[line_start[i] .. line_start[i+1]) */
    long n_lines;     /* lines with at least one token; blank lines are skipped */
    long n_unk;       /* words (subword mode: characters) that became TOK_UNK */
} EncodedText;

/* Encode text[0..len) line by line ('\n' ends a line; a '\r' before it is
 * white space) into one stream. separator TOK_BOS puts <bos> before every
 * line; TOK_EOS or TOK_SEP goes after every line. `source` names the text in
 * messages. Fails on a text without tokens or another separator. */
int tokenizer_encode_lines(const Tokenizer *tok, const char *text, size_t len, const char *source,
                           int separator, EncodedText *out, SrError *err);

/* The same for a corpus file (missing file and empty corpus are errors). */
int tokenizer_encode_file(const Tokenizer *tok, const char *path, int separator,
                          EncodedText *out, SrError *err);

/* Release an EncodedText (safe on a zeroed or already freed one). */
void encoded_text_free(EncodedText *e);

/* ---- decoding ------------------------------------------------------------- */

/* Flags of tokenizer_decode, combined with |. */
enum {
    TOKENIZER_DECODE_PLAIN = 0,        /* tokens joined by single spaces */
    TOKENIZER_DECODE_PRETTY = 1,       /* no space before . , ! ? ; : ) ] } % and
                                          after ( [ { $; ' and - join both sides */
    TOKENIZER_DECODE_SKIP_SPECIAL = 2  /* also drop <bos> <eos> <sep> <mask> (<unk> stays) */
};

/* ---- one word of a labelled sentence --------------------------------------- */

/* The pieces of one word of a labelled sentence (a CoNLL token, which may
 * itself contain punctuation, e.g. "U.S."): the word is split like running
 * text, and with a subword vocabulary every resulting token is further cut
 * into pieces. Writes at most max_ids ids and returns the number the word
 * needs (>= 1; a word that yields no token at all becomes one <unk>). The
 * first piece is the one that carries the word's label. */
int tokenizer_word_pieces(const Tokenizer *tok, const char *word, int *ids, int max_ids);

/* The same for word `index` (0 = first) of its sentence. Word tokenizers cut
 * every word alike; a Hugging Face one encodes the word in context
 * (hf_word_pieces: " " + word for index > 0 with byte-level BPE). */
int tokenizer_word_pieces_at(const Tokenizer *tok, const char *word, int index, int *ids,
                             int max_ids);

/* Decode ids[0..n) into a new NUL-terminated string (caller frees; NULL only
 * when out of memory). <pad> is always skipped; ids outside the vocabulary
 * are written as "<unk>". In subword mode a "##" piece is joined to the one
 * before it without its "##". */
char *tokenizer_decode(const Tokenizer *tok, const int *ids, long n, int flags);

/* A readable label of token id for a figure's axis or a table, written
 * into buf (cap bytes, cut at a UTF-8 boundary): the word for the house
 * tokenizers; for a Hugging Face one the id decoded by the tokenizer's
 * decoder ("Ġworld" -> "world", "<0x41>" -> "A"), white space at either end
 * dropped, and the stored spelling when that leaves nothing (a piece of
 * spaces, or a byte that is only part of a character); "?" for an id
 * outside the vocabulary. Returns buf. */
const char *tokenizer_piece_label(const Tokenizer *tok, int id, char *buf, size_t cap);

#endif
