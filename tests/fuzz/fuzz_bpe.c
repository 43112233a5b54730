/* fuzz_bpe.c — vocabularies learned from a corpus of any bytes: byte-pair
 * pieces (tokenizer_build_bpe_from_text, i.e. bpe_learn) and counted words
 * (tokenizer_build_from_text). The input is SIZE TEXT: SIZE is one byte,
 * the vocabulary size is 6 + 2 * (SIZE % 64) (the word vocabulary keeps at
 * most that many ids too, 0 = no limit; lower-casing when SIZE & 64). At
 * most 132 pieces and 512 bytes (bpe.options) keep an input well under a
 * millisecond of the sanitizers' time: every merge scans the pair table.
 * Properties: the learned list makes a valid tokenizer; the corpus encodes
 * into ids of the vocabulary; and, as bpe.h promises, a corpus of valid
 * UTF-8 cut by its own learned pieces needs no <unk>. */
#include <stdint.h>
#include <string.h>

#include "base/utf8.h"
#include "fuzz_util.h"
#include "text/bpe.h"
#include "text/tokenizer.h"

/* Encode text with tok line by line; returns the number of <unk>s. */
static long encode_all(const Tokenizer *tok, const char *text, size_t len)
{
    EncodedText e;
    SrError err;
    FUZZ_OK(tokenizer_encode_lines(tok, text, len, "corpus", TOK_BOS, &e, &err), err);
    for (long i = 0; i < e.n_ids; i++) FUZZ_CHECK(e.ids[i] >= 0 && e.ids[i] < tok->n_words);
    char *back = tokenizer_decode(tok, e.ids, e.n_ids, TOKENIZER_DECODE_SKIP_SPECIAL);
    FUZZ_CHECK(back != NULL);
    free(back);
    long unk = e.n_unk;
    encoded_text_free(&e);
    return unk;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int vocab_size = 6 + 2 * (data[0] % 64), lowercase = (data[0] & 64) != 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    Tokenizer tok;
    SrError err;
    if (tokenizer_build_bpe_from_text(&tok, text, len, "corpus", vocab_size, lowercase, &err) == 0) {
        FUZZ_CHECK(tok.subword == 1 && tok.n_words <= vocab_size);
        long unk = encode_all(&tok, text, len);
        FUZZ_CHECK(unk == 0 || utf8_valid_prefix(text, len) < len);
        tokenizer_free(&tok);
    }
    int no_limit = data[0] % 64 == 0;
    if (tokenizer_build_from_text(&tok, text, len, "corpus", 1, no_limit ? 0 : vocab_size,
                                  lowercase, &err) == 0) {
        FUZZ_CHECK(tok.subword == 0 && tok.n_words > TOK_N_SPECIAL);
        long unk = encode_all(&tok, text, len);
        FUZZ_CHECK(!no_limit || unk == 0);
        tokenizer_free(&tok);
    }
    return 0;
}
