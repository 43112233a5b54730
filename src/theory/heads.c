/* heads.c — the copy, induction, previous-token, sink and own-copy scores of
 * every head on the last copy of a repeated sentence (see heads.h). */
#include "theory/heads.h"

#include <stddef.h>

/* The scores' names: the columns of the table and of the CSV. */
static const char *const SCORE_NAMES[HEAD_N_SCORES] = {"copy", "induction", "previous", "sink", "own_copy"};
/* ... and of their chance levels (a uniform head's scores). */
static const char *const CHANCE_NAMES[HEAD_N_SCORES] = {"copy_chance", "induction_chance", "previous_chance",
                                                        "sink_chance", "own_copy_chance"};

const char *head_score_name(HeadScore s)
{
    return (s >= 0 && s < HEAD_N_SCORES) ? SCORE_NAMES[s] : "?";
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
    return head_table_init(s, "heads", n_layers, n_heads, HEAD_N_SCORES, SCORE_NAMES, err);
}

int head_scores_chance_init(HeadScores *s, int n_layers, SrError *err)
{
    return head_table_init(s, "heads", n_layers, 1, HEAD_N_SCORES, CHANCE_NAMES, err);
}

void head_scores_free(HeadScores *s)
{
    head_table_free(s);
}

void head_scores_add_layer(HeadScores *s, int layer, const float *att, int stride,
                           const RepeatLayout *lay)
{
    for (int h = 0; h < s->n_heads; h++)
        for (int i = 0; i < lay->n; i++) {
            const float *row = att + ((size_t)h * stride + lay->last_rows[i]) * stride;
            double score[HEAD_N_SCORES];
            int defined[HEAD_N_SCORES];
            head_row_scores(row, lay, i, score, defined);
            head_table_add(s, layer, h, score, defined);
        }
}

double head_scores_mean(const HeadScores *s, int layer, int head, HeadScore which)
{
    return head_table_mean(s, layer, head, which);
}

int64_t head_scores_count(const HeadScores *s, int layer, int head, HeadScore which)
{
    return head_table_count(s, layer, head, which);
}

void head_scores_best(const HeadScores *s, HeadScore which, int *layer, int *head)
{
    head_table_best(s, which, layer, head);
}
