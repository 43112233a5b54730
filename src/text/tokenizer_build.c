/* tokenizer_build.c — a vocabulary built from a corpus (see tokenizer.h):
 * its words, most frequent first, or the byte-pair pieces text/bpe.h learns
 * from it; then checked and indexed as any other vocabulary
 * (tokenizer_from_words_in). */
#include "text/tokenizer.h"

#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"
#include "text/bpe.h"
#include "text/string_table.h"

typedef struct {
    const char *word;
    long count;
} WordCount;

/* qsort order of a vocabulary: descending count, then byte-wise ascending. */
static int compare_word_counts(const void *pa, const void *pb)
{
    const WordCount *a = pa, *b = pb;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return strcmp(a->word, b->word);
}

int tokenizer_build_from_text(Tokenizer *tok, const char *text, size_t len, const char *source,
                              int min_count, int max_vocab, int lowercase, SrError *err)
{
    memset(tok, 0, sizeof *tok);
    if (!source) source = "text";
    if (min_count < 1)
        return sr_fail(err, "%s: min_count must be >= 1 (got %d)", source, min_count);
    if (max_vocab != 0 && max_vocab <= TOK_N_SPECIAL)
        return sr_fail(err, "%s: max_vocab must be 0 (no limit) or more than the %d special tokens "
                       "(got %d)", source, TOK_N_SPECIAL, max_vocab);

    StringTable counter = {0}; /* the distinct (folded) tokens with their counts */
    long total;
    if (string_table_add_tokens(&counter, text, len, lowercase, &total)) {
        string_table_free(&counter);
        return sr_fail(err, "%s: out of memory", source);
    }
    if (total == 0) {
        string_table_free(&counter);
        return sr_fail(err, "%s: empty corpus (no tokens)", source);
    }

    WordCount *entries = malloc((size_t)counter.n * sizeof *entries);
    if (!entries) {
        string_table_free(&counter);
        return sr_fail(err, "%s: out of memory", source);
    }
    int n_kept = 0;
    for (int i = 0; i < counter.n; i++)
        if (counter.counts[i] >= min_count)
            entries[n_kept++] =
                (WordCount){.word = counter.strings[i], .count = counter.counts[i]};
    qsort(entries, (size_t)n_kept, sizeof *entries, compare_word_counts);
    if (max_vocab != 0 && n_kept > max_vocab - TOK_N_SPECIAL) n_kept = max_vocab - TOK_N_SPECIAL;
    if (n_kept == 0) {
        free(entries);
        string_table_free(&counter);
        return sr_fail(err, "%s: no token occurs at least min_count=%d times", source, min_count);
    }

    int n_words = TOK_N_SPECIAL + n_kept;
    const char **words = malloc((size_t)n_words * sizeof *words);
    if (!words) {
        free(entries);
        string_table_free(&counter);
        return sr_fail(err, "%s: out of memory", source);
    }
    for (int i = 0; i < TOK_N_SPECIAL; i++) words[i] = tokenizer_special_name(i);
    for (int i = 0; i < n_kept; i++) words[TOK_N_SPECIAL + i] = entries[i].word;
    int rc = tokenizer_from_words_in(tok, words, n_words, lowercase, source, err);
    free(words);
    free(entries);
    string_table_free(&counter);
    return rc;
}

int tokenizer_build_from_file(Tokenizer *tok, const char *path, int min_count, int max_vocab,
                              int lowercase, SrError *err)
{
    memset(tok, 0, sizeof *tok);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = tokenizer_build_from_text(tok, text, len, path, min_count, max_vocab, lowercase, err);
    free(text);
    return rc;
}

int tokenizer_build_bpe_from_text(Tokenizer *tok, const char *text, size_t len, const char *source,
                                  int vocab_size, int lowercase, SrError *err)
{
    memset(tok, 0, sizeof *tok);
    if (!source) source = "text";
    char **pieces;
    int n_pieces;
    if (bpe_learn(text, len, source, vocab_size, lowercase, &pieces, &n_pieces, NULL, err)) return -1;
    int rc = tokenizer_from_words_in(tok, (const char *const *)pieces, n_pieces, lowercase, source, err);
    bpe_tokens_free(pieces, n_pieces);
    if (rc == 0) tok->subword = 1;
    return rc;
}

int tokenizer_build_bpe_from_file(Tokenizer *tok, const char *path, int vocab_size, int lowercase,
                                  SrError *err)
{
    memset(tok, 0, sizeof *tok);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = tokenizer_build_bpe_from_text(tok, text, len, path, vocab_size, lowercase, err);
    free(text);
    return rc;
}
