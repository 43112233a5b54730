/* readout.c — pieces, repeated layouts, batches and feature gathering (see readout.h). */
#include "label/readout.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ReadoutLayout readout_layout_paper(int r)
{
    return (ReadoutLayout){.r = r, .bos = REPEAT_BOS_PER_COPY, .sep = REPEAT_SEP_NONE,
                           .copy_positions = REPEAT_POSITIONS_RUN};
}

RepeatIds readout_repeat_ids(const Tokenizer *tok)
{
    TokenizerSpecials specials = tokenizer_specials(tok);
    return (RepeatIds){specials.bos, specials.sep};
}

int readout_choose_bos(const Tokenizer *tok, const char *bos_text, RepeatBos fallback,
                       RepeatSep sep, RepeatBos *bos, SrError *err)
{
    RepeatIds ids = readout_repeat_ids(tok);
    if (!bos_text) *bos = ids.bos >= 0 ? fallback : REPEAT_BOS_NONE;
    else if (repeat_parse_bos(bos_text, bos))
        return sr_fail(err, "--bos must be none, once or per-copy, got '%s'", bos_text);
    return repeat_check_ids(*bos, sep, ids, err);
}

const char *read_copy_name(ReadCopy copy)
{
    return copy == READ_FIRST_COPY ? "first" : "last";
}

int read_copy_parse(const char *text, ReadCopy *out)
{
    if (strcmp(text, "last") == 0) *out = READ_LAST_COPY;
    else if (strcmp(text, "first") == 0) *out = READ_FIRST_COPY;
    else return -1;
    return 0;
}

void pieced_data_free(PiecedData *pd)
{
    for (int s = 0; s < pd->n_sents; s++) {
        free(pd->sents[s].pieces);
        free(pd->sents[s].first_piece);
    }
    free(pd->sents);
    free(pd->word_start);
    free(pd->source);
    memset(pd, 0, sizeof *pd);
}

/* "file:line" prefix of sentence s for messages, into buf. */
static const char *where(const PiecedData *pd, int s, char *buf, size_t n)
{
    const char *src = pd->source ? pd->source : "data";
    if (pd->sents[s].line > 0) snprintf(buf, n, "%s:%d", src, pd->sents[s].line);
    else snprintf(buf, n, "%s: sentence %d", src, s + 1);
    return buf;
}

/* Cut one sentence into pieces: out->pieces and out->first_piece. */
static int cut_sentence(PiecedSentence *out, const Sentence *sent, const Tokenizer *tok)
{
    int cap = 16 + 2 * sent->n_words, n = 0;
    out->pieces = malloc(sizeof(int) * (size_t)cap);
    out->first_piece = malloc(sizeof(int) * (size_t)(sent->n_words > 0 ? sent->n_words : 1));
    if (!out->pieces || !out->first_piece) return -1;
    for (int w = 0; w < sent->n_words; w++) {
        int need = tokenizer_word_pieces_at(tok, sent->words[w], w, out->pieces + n, cap - n);
        if (need > cap - n) {
            int grown_cap = 2 * (n + need);
            int *grown = realloc(out->pieces, sizeof(int) * (size_t)grown_cap);
            if (!grown) return -1;
            out->pieces = grown;
            cap = grown_cap;
            tokenizer_word_pieces_at(tok, sent->words[w], w, out->pieces + n, cap - n);
        }
        out->first_piece[w] = n;
        n += need;
    }
    out->n_words = sent->n_words;
    out->n_pieces = n;
    out->line = sent->line;
    return 0;
}

int readout_prepare(PiecedData *out, const Dataset *d, const Tokenizer *tok, SrError *err)
{
    memset(out, 0, sizeof *out);
    const char *src = d->source ? d->source : "data";
    out->ids = readout_repeat_ids(tok);
    out->pad_id = tokenizer_specials(tok).pad;
    out->source = strdup(src);
    out->sents = calloc((size_t)(d->n_sents > 0 ? d->n_sents : 1), sizeof *out->sents);
    out->word_start = calloc((size_t)(d->n_sents > 0 ? d->n_sents : 1), sizeof(long));
    if (!out->source || !out->sents || !out->word_start) {
        pieced_data_free(out);
        return sr_fail(err, "%s: out of memory", src);
    }
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *sent = &d->sents[s];
        out->n_sents = s + 1;
        if (sent->n_words < 1) {
            int line = sent->line;
            pieced_data_free(out);
            if (line > 0) return sr_fail(err, "%s:%d: empty sentence", src, line);
            return sr_fail(err, "%s: sentence %d is empty", src, s + 1);
        }
        if (cut_sentence(&out->sents[s], sent, tok)) {
            pieced_data_free(out);
            return sr_fail(err, "%s: out of memory", src);
        }
        char at[256];
        if (tokenizer_check_embedded(tok, out->sents[s].pieces, out->sents[s].n_pieces,
                                     where(out, s, at, sizeof at), err)) {
            pieced_data_free(out);
            return -1;
        }
        out->word_start[s] = out->n_words;
        out->n_words += sent->n_words;
        if (out->sents[s].n_pieces > out->max_pieces) out->max_pieces = out->sents[s].n_pieces;
    }
    return 0;
}

int readout_sentence_length(const PiecedData *pd, int s, ReadoutLayout lay)
{
    int64_t T = repeat_length(pd->sents[s].n_pieces, lay.r, lay.bos, lay.sep);
    return T > 0x7fffffff ? 0x7fffffff : (int)T;
}

int readout_max_length(const PiecedData *pd, ReadoutLayout lay)
{
    int longest = 0;
    for (int s = 0; s < pd->n_sents; s++) {
        int T = readout_sentence_length(pd, s, lay);
        if (T > longest) longest = T;
    }
    return longest;
}

/* qsort order of (length << 32 | index) keys. */
static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int readout_sort_by_length(const PiecedData *pd, ReadoutLayout lay, int *idx, int n, SrError *err)
{
    if (n < 2) return 0;
    uint64_t *keys = malloc(sizeof *keys * (size_t)n);
    if (!keys) return sr_fail(err, "out of memory");
    for (int i = 0; i < n; i++)
        keys[i] = (uint64_t)(uint32_t)readout_sentence_length(pd, idx[i], lay) << 32 | (uint32_t)idx[i];
    qsort(keys, (size_t)n, sizeof *keys, compare_keys);
    for (int i = 0; i < n; i++) idx[i] = (int)(keys[i] & 0xffffffffu);
    free(keys);
    return 0;
}

/* The "too long" message for sentence s laid out as lay against a limit. */
static int too_long(const PiecedData *pd, int s, ReadoutLayout lay, int limit, SrError *err)
{
    char at[600];
    const PiecedSentence *ps = &pd->sents[s];
    return sr_fail(err, "%s: sentence of %d words (%d tokens) repeated k = %d times is %d tokens, "
                   "more than the model's max_seq_len %d",
                   where(pd, s, at, sizeof at), ps->n_words, ps->n_pieces, lay.r + 1,
                   readout_sentence_length(pd, s, lay), limit);
}

int readout_check_fits(const PiecedData *pd, ReadoutLayout lay, int max_seq_len, SrError *err)
{
    if (lay.r < 0) return sr_fail(err, "r must be >= 0 (got %d)", lay.r);
    for (int s = 0; s < pd->n_sents; s++)
        if (readout_sentence_length(pd, s, lay) > max_seq_len)
            return too_long(pd, s, lay, max_seq_len, err);
    return 0;
}

void readout_batch_free(ReadoutBatch *b)
{
    free(b->ids);
    free(b->positions);
    free(b->lengths);
    free(b->sent);
    free(b->word_start);
    free(b->last_rows);
    free(b->first_rows);
    memset(b, 0, sizeof *b);
}

/* Make sure b holds rows x T tokens and n_words words; 0 or -1. */
static int batch_reserve(ReadoutBatch *b, int rows, int tokens, int n_words)
{
    if (rows > b->cap_rows) {
        int *l = realloc(b->lengths, sizeof(int) * (size_t)rows);
        if (l) b->lengths = l;
        int *s = realloc(b->sent, sizeof(int) * (size_t)rows);
        if (s) b->sent = s;
        int *w = realloc(b->word_start, sizeof(int) * (size_t)rows);
        if (w) b->word_start = w;
        if (!l || !s || !w) return -1;
        b->cap_rows = rows;
    }
    if (tokens > b->cap_tokens) {
        int *ids = realloc(b->ids, sizeof(int) * (size_t)tokens);
        if (ids) b->ids = ids;
        int *pos = realloc(b->positions, sizeof(int) * (size_t)tokens);
        if (pos) b->positions = pos;
        if (!ids || !pos) return -1;
        b->cap_tokens = tokens;
    }
    if (n_words > b->cap_words) {
        int *last = realloc(b->last_rows, sizeof(int) * (size_t)n_words);
        if (last) b->last_rows = last;
        int *first = realloc(b->first_rows, sizeof(int) * (size_t)n_words);
        if (first) b->first_rows = first;
        if (!last || !first) return -1;
        b->cap_words = n_words;
    }
    return 0;
}

int readout_batch_build(ReadoutBatch *b, const PiecedData *pd, const int *sent, int n,
                        ReadoutLayout lay, int max_T, SrError *err)
{
    const char *src = pd->source ? pd->source : "data";
    if (n < 1) return sr_fail(err, "%s: empty batch", src);
    int T = 0, n_words = 0;
    for (int i = 0; i < n; i++) {
        int len = readout_sentence_length(pd, sent[i], lay);
        if (max_T > 0 && len > max_T) return too_long(pd, sent[i], lay, max_T, err);
        if (len > T) T = len;
        n_words += pd->sents[sent[i]].n_words;
    }
    if (batch_reserve(b, n, n * T, n_words)) return sr_fail(err, "%s: out of memory", src);
    b->B = n;
    b->T = T;
    b->n_words = n_words;
    b->tokens = 0;
    int word = 0;
    for (int i = 0; i < n; i++) {
        const PiecedSentence *ps = &pd->sents[sent[i]];
        RepeatLayout rl;
        if (repeat_build_ids(ps->pieces, ps->n_pieces, lay.r, lay.bos, lay.sep, pd->ids, 0, &rl, err))
            return -1;
        repeat_apply_positions(&rl, lay.copy_positions);
        int *row_ids = b->ids + (size_t)i * T, *row_pos = b->positions + (size_t)i * T;
        memcpy(row_ids, rl.ids, sizeof(int) * (size_t)rl.T);
        memcpy(row_pos, rl.positions, sizeof(int) * (size_t)rl.T);
        for (int t = rl.T; t < T; t++) {
            row_ids[t] = pd->pad_id;
            row_pos[t] = 0;
        }
        b->lengths[i] = rl.T;
        b->sent[i] = sent[i];
        b->word_start[i] = word;
        for (int w = 0; w < ps->n_words; w++, word++) {
            b->last_rows[word] = i * T + rl.last_rows[ps->first_piece[w]];
            b->first_rows[word] = i * T + rl.first_rows[ps->first_piece[w]];
        }
        b->tokens += rl.T;
        repeat_free(&rl);
    }
    return 0;
}

ModelInput readout_model_input(const ReadoutBatch *b, const MaskKind *mask, const float *head_scale,
                               int n_run)
{
    ModelInput in = {0};
    in.B = b->B;
    in.T = b->T;
    in.ids = b->ids;
    in.lengths = b->lengths;
    in.positions = b->positions;
    in.mask = mask;
    in.head_scale = head_scale;
    in.n_run = n_run;
    return in;
}

void readout_gather(const ReadoutBatch *b, const float *hidden, int C, ReadCopy copy, float *out)
{
    const int *rows = copy == READ_FIRST_COPY ? b->first_rows : b->last_rows;
    for (int w = 0; w < b->n_words; w++)
        memcpy(out + (size_t)w * C, hidden + (size_t)rows[w] * C, sizeof(float) * (size_t)C);
}

/* Copy the hidden rows (B, T, C) of the batch's words, rows[w] for batch
 * word w, to their places in a whole-data-set array out (pd->n_words, C). */
static void scatter_words(const ReadoutBatch *b, const PiecedData *pd, const float *hidden, int C,
                          const int *rows, float *out)
{
    for (int i = 0; i < b->B; i++) {
        int s = b->sent[i];
        for (int k = 0; k < pd->sents[s].n_words; k++)
            memcpy(out + (size_t)(pd->word_start[s] + k) * C,
                   hidden + (size_t)rows[b->word_start[i] + k] * C, sizeof(float) * (size_t)C);
    }
}

int readout_collect(Model *m, const PiecedData *pd, ReadoutLayout lay, const MaskKind *mask,
                    const float *head_scale, int batch_size, float *last, float *first, SrError *err)
{
    const int C = m->cfg.d_model, L = m->cfg.n_layers;
    ReadoutBatch b = {0};
    int *order = malloc(sizeof(int) * (size_t)(pd->n_sents > 0 ? pd->n_sents : 1));
    if (!order) return sr_fail(err, "out of memory");
    for (int s = 0; s < pd->n_sents; s++) order[s] = s;
    int rc = readout_sort_by_length(pd, lay, order, pd->n_sents, err);
    for (int s0 = 0; s0 < pd->n_sents && rc == 0; s0 += batch_size) {
        int n = pd->n_sents - s0 < batch_size ? pd->n_sents - s0 : batch_size;
        if (readout_batch_build(&b, pd, order + s0, n, lay, m->max_T, err)) {
            rc = -1;
            break;
        }
        ModelInput in = readout_model_input(&b, mask, head_scale, 0);
        if (model_forward(m, &in, err)) {
            rc = -1;
            break;
        }
        for (int l = 0; l <= L; l++) {
            const float *hidden = model_hidden(m, l);
            scatter_words(&b, pd, hidden, C, b.last_rows, last + (size_t)l * pd->n_words * C);
            if (first) scatter_words(&b, pd, hidden, C, b.first_rows, first + (size_t)l * pd->n_words * C);
        }
    }
    readout_batch_free(&b);
    free(order);
    return rc;
}
