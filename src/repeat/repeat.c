/* repeat.c — laying out k = r + 1 copies of a sentence (see repeat.h). */
#include "repeat/repeat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/int_list.h"
#include "text/words.h"

int64_t repeat_n_special(int64_t k, RepeatBos bos, RepeatSep sep)
{
    int64_t n_bos = bos == REPEAT_BOS_ONCE ? 1 : bos == REPEAT_BOS_PER_COPY ? k : 0;
    int64_t n_sep = sep == REPEAT_SEP_TOKEN ? k - 1 : 0;
    return n_bos + n_sep;
}

int64_t repeat_length(int64_t n, int64_t r, RepeatBos bos, RepeatSep sep)
{
    if (n < 1 || r < 0) return -1;
    /* Keep the product representable: anything past 2^62 is absurd anyway. */
    if (r >= INT64_MAX / 4 / n) return INT64_MAX / 2;
    int64_t k = r + 1;
    return k * n + repeat_n_special(k, bos, sep);
}

void repeat_free(RepeatLayout *lay)
{
    free(lay->ids);
    free(lay->positions);
    free(lay->kind);
    free(lay->copy);
    free(lay->word);
    free(lay->copy_start);
    free(lay->last_rows);
    free(lay->first_rows);
    memset(lay, 0, sizeof *lay);
}

/* Append one token at row t of lay: its id, kind, copy and word index. */
static void put_token(RepeatLayout *lay, int t, int id, RepeatTokenKind kind, int copy, int word)
{
    lay->ids[t] = id;
    lay->positions[t] = t;
    lay->kind[t] = kind;
    lay->copy[t] = copy;
    lay->word[t] = word;
}

RepeatIds repeat_ids_house(void)
{
    return (RepeatIds){TOK_BOS, TOK_SEP};
}

int repeat_check_ids(RepeatBos bos, RepeatSep sep, RepeatIds ids, SrError *err)
{
    if (bos != REPEAT_BOS_NONE && ids.bos < 0)
        return sr_fail(err, "--bos %s: the tokenizer has no BOS token; use --bos none",
                       repeat_bos_name(bos));
    if (sep == REPEAT_SEP_TOKEN && ids.sep < 0)
        return sr_fail(err, "--sep token: the tokenizer has no separator or end-of-sequence token; "
                       "use --sep none");
    return 0;
}

int repeat_build(const int *words, int n, int r, RepeatBos bos, RepeatSep sep, int max_T,
                 RepeatLayout *out, SrError *err)
{
    return repeat_build_ids(words, n, r, bos, sep, repeat_ids_house(), max_T, out, err);
}

int repeat_build_ids(const int *words, int n, int r, RepeatBos bos, RepeatSep sep, RepeatIds ids,
                     int max_T, RepeatLayout *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    if (repeat_check_ids(bos, sep, ids, err)) return -1;
    if (n < 1) return sr_fail(err, "repeat: the sentence must have at least one token (n = %d)", n);
    if (r < 0) return sr_fail(err, "repeat: the number of repetitions must be >= 0 (r = %d)", r);
    int64_t T64 = repeat_length(n, r, bos, sep);
    int64_t limit = max_T > 0 ? max_T : INT_MAX;
    if (T64 > limit)
        return sr_fail(err, "repeat: n = %d with r = %d gives %lld tokens, more than the limit %lld",
                       n, r, (long long)T64, (long long)limit);
    int T = (int)T64, k = r + 1;
    RepeatLayout lay = {.n = n, .r = r, .k = k, .T = T, .bos = bos, .sep = sep};
    lay.n_bos = (int)repeat_n_special(k, bos, REPEAT_SEP_NONE);
    lay.n_sep = (int)repeat_n_special(k, REPEAT_BOS_NONE, sep);
    lay.ids = malloc(sizeof(int) * (size_t)T);
    lay.positions = malloc(sizeof(int) * (size_t)T);
    lay.kind = malloc(sizeof(int) * (size_t)T);
    lay.copy = malloc(sizeof(int) * (size_t)T);
    lay.word = malloc(sizeof(int) * (size_t)T);
    lay.copy_start = malloc(sizeof(int) * (size_t)k);
    lay.last_rows = malloc(sizeof(int) * (size_t)n);
    lay.first_rows = malloc(sizeof(int) * (size_t)n);
    if (!lay.ids || !lay.positions || !lay.kind || !lay.copy || !lay.word || !lay.copy_start ||
        !lay.last_rows || !lay.first_rows) {
        repeat_free(&lay);
        return sr_fail(err, "repeat: out of memory for %d tokens", T);
    }
    int t = 0;
    for (int c = 0; c < k; c++) {
        if (c > 0 && sep == REPEAT_SEP_TOKEN) put_token(&lay, t++, ids.sep, REPEAT_SEP, -1, -1);
        if (bos == REPEAT_BOS_PER_COPY || (bos == REPEAT_BOS_ONCE && c == 0))
            put_token(&lay, t++, ids.bos, REPEAT_BOS, -1, -1);
        lay.copy_start[c] = t;
        for (int i = 0; i < n; i++) put_token(&lay, t++, words ? words[i] : -1, REPEAT_WORD, c, i);
    }
    for (int i = 0; i < n; i++) {
        lay.first_rows[i] = lay.copy_start[0] + i;
        lay.last_rows[i] = lay.copy_start[k - 1] + i;
    }
    *out = lay;
    return 0;
}

void repeat_restart_positions(RepeatLayout *lay)
{
    for (int c = 0; c < lay->k; c++) {
        /* copy c's tokens: its <sep> and <bos> (if any) just before its words */
        int start = lay->copy_start[c];
        if (lay->bos == REPEAT_BOS_PER_COPY || (lay->bos == REPEAT_BOS_ONCE && c == 0)) start--;
        if (c > 0 && lay->sep == REPEAT_SEP_TOKEN) start--;
        int end = c + 1 < lay->k ? lay->copy_start[c + 1] : lay->T;
        if (c + 1 < lay->k) {
            if (lay->bos == REPEAT_BOS_PER_COPY) end--;
            if (lay->sep == REPEAT_SEP_TOKEN) end--;
        }
        for (int t = start; t < end; t++) lay->positions[t] = t - start;
    }
}

void repeat_induction_positions(RepeatLayout *lay)
{
    const int first_piece0 = lay->copy_start[0]; /* running positions: row = position */
    for (int c = 1; c < lay->k; c++) {
        /* piece i at first_piece0 + i + 1; the copy's <bos> and <sep> just before piece 0 */
        int start = lay->copy_start[c], t0 = start;
        if (lay->bos == REPEAT_BOS_PER_COPY) t0--;
        if (lay->sep == REPEAT_SEP_TOKEN) t0--;
        for (int t = t0; t < start + lay->n; t++) lay->positions[t] = first_piece0 + 1 + (t - start);
    }
}

void repeat_apply_positions(RepeatLayout *lay, RepeatPositions plan)
{
    if (plan == REPEAT_POSITIONS_RESTART) repeat_restart_positions(lay);
    else if (plan == REPEAT_POSITIONS_INDUCTION) repeat_induction_positions(lay);
}

int repeat_max_n(int max_seq_len, int r, RepeatBos bos, RepeatSep sep)
{
    if (r < 0 || max_seq_len < 1) return 0;
    int64_t k = (int64_t)r + 1;
    int64_t room = (int64_t)max_seq_len - repeat_n_special(k, bos, sep);
    return room < k ? 0 : (int)(room / k);
}

int repeat_parse_r_list(const char *text, int **values, int *n_values, SrError *err)
{
    const IntListRules rules = {.word = "r", .min_value = 0, .max_value = INT_MAX - 1,
                                .allow_ranges = 1, .max_values = REPEAT_MAX_R_VALUES};
    return int_list_parse(text, &rules, values, n_values, NULL, err);
}

int repeat_parse_bos(const char *text, RepeatBos *out)
{
    if (strcmp(text, "none") == 0) *out = REPEAT_BOS_NONE;
    else if (strcmp(text, "once") == 0) *out = REPEAT_BOS_ONCE;
    else if (strcmp(text, "per-copy") == 0) *out = REPEAT_BOS_PER_COPY;
    else return -1;
    return 0;
}

int repeat_parse_sep(const char *text, RepeatSep *out)
{
    if (strcmp(text, "none") == 0) *out = REPEAT_SEP_NONE;
    else if (strcmp(text, "token") == 0) *out = REPEAT_SEP_TOKEN;
    else return -1;
    return 0;
}

const char *repeat_bos_name(RepeatBos bos)
{
    return bos == REPEAT_BOS_ONCE ? "once" : bos == REPEAT_BOS_PER_COPY ? "per-copy" : "none";
}

const char *repeat_sep_name(RepeatSep sep)
{
    return sep == REPEAT_SEP_TOKEN ? "token" : "none";
}

int repeat_parse_positions(const char *text, RepeatPositions *out)
{
    if (strcmp(text, "run") == 0) *out = REPEAT_POSITIONS_RUN;
    else if (strcmp(text, "restart") == 0) *out = REPEAT_POSITIONS_RESTART;
    else if (strcmp(text, "induction") == 0) *out = REPEAT_POSITIONS_INDUCTION;
    else return -1;
    return 0;
}

const char *repeat_positions_name(RepeatPositions positions)
{
    if (positions == REPEAT_POSITIONS_INDUCTION) return "induction";
    return positions == REPEAT_POSITIONS_RESTART ? "restart" : "run";
}
