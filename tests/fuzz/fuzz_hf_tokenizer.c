/* fuzz_hf_tokenizer.c — a Hugging Face tokenizer.json (hf_tokenizer_load,
 * text/hf/tokenizer_json.h) on any bytes, then the encoder and decoder it builds
 * on a few fixed strings, so the BPE, byte-level, Metaspace, byte-fallback
 * and added-token paths run on whatever tables the input holds.
 *
 * Input: tokenizer.json, then optionally a NUL byte and the
 * tokenizer_config.json written beside it. Properties: every id encode
 * yields lies in [0, hf_vocab_size); decoding gives valid UTF-8; the words
 * of a pre-split sentence start at increasing piece indices. */
#include <stdint.h>
#include <string.h>

#include "base/utf8.h"
#include "text/hf/tokenizer_json.h"
#include "fuzz_util.h"

/* The strings each accepted tokenizer encodes and decodes: ASCII, digits,
 * white space runs, CRLF, accents, CJK, an emoji, special-token look-alikes
 * and bytes that are not UTF-8. */
static const char *const TEXTS[] = {
    "Hello world, the cat's mat.",
    "  two  spaces\tand\r\nlines\n\n",
    "1234567 3.14 x2",
    "caf\xc3\xa9 na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
    "<s>hi</s><|endoftext|><unk>",
    "bad \xff\xfe bytes \xc3 end \xed\xa0\x80",
    "",
};
#define N_TEXTS ((int)(sizeof TEXTS / sizeof TEXTS[0]))

static const char *const WORDS[] = {"Alice", "flew", "to", "Paris", "", "caf\xc3\xa9", "1999"};
#define N_WORDS ((int)(sizeof WORDS / sizeof WORDS[0]))

/* Encode text both ways, check the ids, decode them back. */
static void round_trip(const HfTokenizer *t, const char *text)
{
    int n_ids = hf_vocab_size(t);
    for (int specials = 0; specials < 2; specials++) {
        long need = hf_encode(t, text, strlen(text), specials, NULL, 0);
        FUZZ_CHECK(need >= 0);
        int *ids = malloc(sizeof(int) * (size_t)(need + 1));
        FUZZ_CHECK(ids != NULL);
        FUZZ_CHECK(hf_encode(t, text, strlen(text), specials, ids, need) == need);
        for (long i = 0; i < need; i++) FUZZ_CHECK(ids[i] >= 0 && ids[i] < n_ids);
        for (int skip = 0; skip < 2; skip++) {
            char *back = hf_decode(t, ids, need, skip);
            FUZZ_CHECK(back != NULL);
            FUZZ_CHECK(utf8_valid_prefix(back, strlen(back)) == strlen(back));
            free(back);
        }
        free(ids);
    }
}

/* The pieces of a pre-split sentence: one or more per word, in order. */
static void word_pieces(const HfTokenizer *t)
{
    int *pieces = NULL, n_pieces = 0, first[N_WORDS];
    FUZZ_CHECK(hf_encode_words(t, WORDS, N_WORDS, &pieces, &n_pieces, first) == 0);
    for (int w = 0; w < N_WORDS; w++) {
        FUZZ_CHECK(first[w] >= (w ? first[w - 1] + 1 : 0) && first[w] < n_pieces);
        int ids[64];
        int n = hf_word_pieces(t, WORDS[w], w, ids, 64);
        FUZZ_CHECK(n >= 1 && first[w] + n <= n_pieces);
        for (int i = 0; i < n && i < 64; i++) FUZZ_CHECK(ids[i] == pieces[first[w] + i]);
    }
    for (int i = 0; i < n_pieces; i++) FUZZ_CHECK(pieces[i] >= 0 && pieces[i] < hf_vocab_size(t));
    free(pieces);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[600], path[700];
    fuzz_path(dir, sizeof dir, "tok");
    mkdir(dir, 0700);
    const uint8_t *cfg;
    size_t cfg_size;
    size_t json_size = fuzz_split(data, size, 0, &cfg, &cfg_size);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    fuzz_write(path, data, json_size);
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    if (cfg) fuzz_write(path, cfg, cfg_size);
    else remove(path);

    SrError err;
    HfTokenizer *t = hf_tokenizer_load(dir, &err);
    if (!t) {
        FUZZ_CHECK(err.msg[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(hf_vocab_size(t) >= 0);
    if (hf_bos_id(t) >= 0) FUZZ_CHECK(hf_bos_id(t) < hf_vocab_size(t));
    if (hf_eos_id(t) >= 0) FUZZ_CHECK(hf_eos_id(t) < hf_vocab_size(t));
    for (int i = 0; i < N_TEXTS; i++) round_trip(t, TEXTS[i]);
    word_pieces(t);
    hf_free(t);
    return 0;
}
