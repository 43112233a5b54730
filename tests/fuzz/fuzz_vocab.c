/* fuzz_vocab.c — tokenizer_load (a vocabulary file, one token per line) on
 * any bytes, then encoding and decoding with it. The input is
 *   FLAGS VOCABULARY [\n\n TEXT]
 * FLAGS is one byte: bit 0 lower-casing, bit 1 subword mode, bit 2 pretty
 * decoding, bit 3 skip specials; the vocabulary ends at the first empty
 * line (a vocabulary has none) and TEXT, encoded with it, follows.
 * Properties: every id is in the vocabulary; every word looks itself up;
 * a saved vocabulary loads back the same. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "text/tokenizer.h"

/* tokenizer_save then tokenizer_load: the same words. */
static void round_trip(const Tokenizer *tok)
{
    char path[600];
    fuzz_path(path, sizeof path, "again.vocab");
    SrError err;
    FUZZ_OK(tokenizer_save(tok, path, &err), err);
    Tokenizer back;
    FUZZ_OK(tokenizer_load(&back, path, tok->lowercase, &err), err);
    FUZZ_CHECK(back.n_words == tok->n_words);
    for (int i = 0; i < tok->n_words; i++) FUZZ_CHECK(strcmp(back.words[i], tok->words[i]) == 0);
    tokenizer_free(&back);
}

/* Encode text every way the tokenizer offers and decode the ids again. */
static void encode(const Tokenizer *tok, const char *text, size_t len, int flags)
{
    long n = tokenizer_encode(tok, text, 1, NULL, 0);
    FUZZ_CHECK(n >= 1);
    int *ids = malloc(sizeof(int) * (size_t)n);
    FUZZ_CHECK(ids != NULL);
    FUZZ_CHECK(tokenizer_encode(tok, text, 1, ids, n) == n);
    for (long i = 0; i < n; i++) FUZZ_CHECK(ids[i] >= 0 && ids[i] < tok->n_words);
    free(tokenizer_decode(tok, ids, n, flags));
    free(ids);

    EncodedText e;
    SrError err;
    if (tokenizer_encode_lines(tok, text, len, "text", TOK_EOS, &e, &err) == 0) {
        FUZZ_CHECK(e.n_lines >= 1 && e.line_start[e.n_lines] == e.n_ids);
        for (long i = 0; i < e.n_ids; i++) FUZZ_CHECK(e.ids[i] >= 0 && e.ids[i] < tok->n_words);
        encoded_text_free(&e);
    }
    int pieces[16];
    FUZZ_CHECK(tokenizer_word_pieces(tok, text, pieces, 16) >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int flags = data[0];
    const uint8_t *vocab = data + 1, *text = NULL;
    size_t vocab_len = size - 1, text_len = 0;
    const uint8_t *blank = NULL;
    for (size_t i = 0; i + 1 < vocab_len && !blank; i++)
        if (vocab[i] == '\n' && vocab[i + 1] == '\n') blank = vocab + i;
    if (blank) {
        text = blank + 2;
        text_len = vocab_len - (size_t)(text - vocab);
        vocab_len = (size_t)(blank - vocab) + 1;
    }
    char path[600];
    fuzz_file(path, sizeof path, "in.vocab", vocab, vocab_len);
    Tokenizer tok;
    SrError err;
    if (tokenizer_load(&tok, path, flags & 1, &err)) return 0;
    tokenizer_set_subword(&tok, flags & 2);
    FUZZ_CHECK(tok.n_words >= TOK_N_SPECIAL);
    if (!tok.lowercase)
        for (int i = 0; i < tok.n_words; i++)
            FUZZ_CHECK(tokenizer_word_id(&tok, tok.words[i]) == i);
    round_trip(&tok);
    char *s = fuzz_string(text ? text : (const uint8_t *)"", text_len);
    encode(&tok, s, text_len, (flags & 4 ? TOKENIZER_DECODE_PRETTY : 0) |
                                  (flags & 8 ? TOKENIZER_DECODE_SKIP_SPECIAL : 0));
    free(s);
    tokenizer_free(&tok);
    return 0;
}
