/* attnflow.c — splitting the attention of last-copy tokens by where the keys
 * sit in the repeated sentence (see attnflow.h). */
#include "theory/attnflow.h"

#include <stdlib.h>
#include <string.h>

const char *attnflow_category_name(FlowCategory c)
{
    static const char *const names[FLOW_N_CATEGORIES] = {"own_copy", "earlier_left", "same_word",
                                                         "earlier_right", "sink"};
    return (c >= 0 && c < FLOW_N_CATEGORIES) ? names[c] : "?";
}

FlowCategory attnflow_category(const RepeatLayout *lay, int i, int s)
{
    int copy = lay->copy[s];
    if (copy < 0) return FLOW_SINK;
    if (copy == lay->k - 1) return FLOW_OWN_COPY;
    int j = lay->word[s];
    return j < i ? FLOW_EARLIER_LEFT : j == i ? FLOW_SAME_WORD : FLOW_EARLIER_RIGHT;
}

void attnflow_split_row(const float *row, const RepeatLayout *lay, int i,
                        double share[FLOW_N_CATEGORIES])
{
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) share[c] = 0.0;
    for (int s = 0; s < lay->T; s++) share[attnflow_category(lay, i, s)] += row[s];
}

int attnflow_init(AttnFlow *f, int n_layers, int n_heads, SrError *err)
{
    memset(f, 0, sizeof *f);
    if (n_layers < 1 || n_heads < 1)
        return sr_fail(err, "attnflow: need at least one layer and head (got %d, %d)", n_layers,
                       n_heads);
    f->sum = calloc((size_t)n_layers * n_heads * FLOW_N_CATEGORIES, sizeof(double));
    f->n_queries = calloc((size_t)n_layers, sizeof(int64_t));
    if (!f->sum || !f->n_queries) {
        attnflow_free(f);
        return sr_fail(err, "attnflow: out of memory");
    }
    f->n_layers = n_layers;
    f->n_heads = n_heads;
    return 0;
}

void attnflow_free(AttnFlow *f)
{
    free(f->sum);
    free(f->n_queries);
    memset(f, 0, sizeof *f);
}

void attnflow_add_layer(AttnFlow *f, int layer, const float *att, int stride,
                        const RepeatLayout *lay)
{
    for (int h = 0; h < f->n_heads; h++) {
        double *sum = f->sum + ((size_t)layer * f->n_heads + h) * FLOW_N_CATEGORIES;
        for (int i = 0; i < lay->n; i++) {
            const float *row = att + ((size_t)h * stride + lay->last_rows[i]) * stride;
            double share[FLOW_N_CATEGORIES];
            attnflow_split_row(row, lay, i, share);
            for (int c = 0; c < FLOW_N_CATEGORIES; c++) sum[c] += share[c];
        }
    }
    f->n_queries[layer] += lay->n;
}

double attnflow_mean(const AttnFlow *f, int layer, int head, FlowCategory c)
{
    int64_t n = f->n_queries[layer];
    return n ? f->sum[((size_t)layer * f->n_heads + head) * FLOW_N_CATEGORIES + c] / (double)n : 0.0;
}
