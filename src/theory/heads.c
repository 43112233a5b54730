/* heads.c — the copy, induction, previous-token, sink and own-copy scores of
 * every head on the last copy of a repeated sentence (see heads.h). */
#include "theory/heads.h"

#include <stdlib.h>
#include <string.h>

const char *head_score_name(HeadScore s)
{
    static const char *const names[HEAD_N_SCORES] = {"copy", "induction", "previous", "sink",
                                                     "own_copy"};
    return (s >= 0 && s < HEAD_N_SCORES) ? names[s] : "?";
}

int head_score_key(const RepeatLayout *lay, int i, HeadScore which)
{
    int t = lay->last_rows[i];
    /* the row of piece 0 of the copy before the last, -1 when there is none */
    int before = lay->k >= 2 ? lay->copy_start[lay->k - 2] : -1;
    switch (which) {
    case HEAD_COPY: return before >= 0 ? before + i : -1;
    case HEAD_INDUCTION: return before >= 0 && i + 1 < lay->n ? before + i + 1 : -1;
    case HEAD_PREVIOUS: return t >= 1 ? t - 1 : -1;
    case HEAD_SINK: return 0;
    default: return -1;
    }
}

void head_row_scores(const float *row, const RepeatLayout *lay, int i,
                     double score[HEAD_N_SCORES], int defined[HEAD_N_SCORES])
{
    for (int s = 0; s < HEAD_OWN_COPY; s++) {
        int key = head_score_key(lay, i, (HeadScore)s);
        defined[s] = key >= 0;
        score[s] = key >= 0 ? row[key] : 0.0;
    }
    double own = 0.0;
    int last = lay->copy_start[lay->k - 1];
    for (int j = 0; j < lay->n; j++) own += row[last + j];
    score[HEAD_OWN_COPY] = own;
    defined[HEAD_OWN_COPY] = 1;
}

int head_scores_init(HeadScores *s, int n_layers, int n_heads, SrError *err)
{
    memset(s, 0, sizeof *s);
    if (n_layers < 1 || n_heads < 1)
        return sr_fail(err, "heads: need at least one layer and head (got %d, %d)", n_layers,
                       n_heads);
    size_t cells = (size_t)n_layers * n_heads * HEAD_N_SCORES;
    s->sum = calloc(cells, sizeof(double));
    s->count = calloc(cells, sizeof(int64_t));
    if (!s->sum || !s->count) {
        head_scores_free(s);
        return sr_fail(err, "heads: out of memory");
    }
    s->n_layers = n_layers;
    s->n_heads = n_heads;
    return 0;
}

void head_scores_free(HeadScores *s)
{
    free(s->sum);
    free(s->count);
    memset(s, 0, sizeof *s);
}

void head_scores_add_layer(HeadScores *s, int layer, const float *att, int stride,
                           const RepeatLayout *lay)
{
    for (int h = 0; h < s->n_heads; h++) {
        size_t cell = ((size_t)layer * s->n_heads + h) * HEAD_N_SCORES;
        for (int i = 0; i < lay->n; i++) {
            const float *row = att + ((size_t)h * stride + lay->last_rows[i]) * stride;
            double score[HEAD_N_SCORES];
            int defined[HEAD_N_SCORES];
            head_row_scores(row, lay, i, score, defined);
            for (int c = 0; c < HEAD_N_SCORES; c++) {
                s->sum[cell + c] += score[c];
                s->count[cell + c] += defined[c];
            }
        }
    }
}

double head_scores_mean(const HeadScores *s, int layer, int head, HeadScore which)
{
    size_t cell = ((size_t)layer * s->n_heads + head) * HEAD_N_SCORES + which;
    return s->count[cell] ? s->sum[cell] / (double)s->count[cell] : 0.0;
}

int64_t head_scores_count(const HeadScores *s, int layer, int head, HeadScore which)
{
    return s->count[((size_t)layer * s->n_heads + head) * HEAD_N_SCORES + which];
}

void head_scores_best(const HeadScores *s, HeadScore which, int *layer, int *head)
{
    *layer = 0;
    *head = 0;
    double best = head_scores_mean(s, 0, 0, which);
    for (int l = 0; l < s->n_layers; l++)
        for (int h = 0; h < s->n_heads; h++) {
            double v = head_scores_mean(s, l, h, which);
            if (v > best) {
                best = v;
                *layer = l;
                *head = h;
            }
        }
}
