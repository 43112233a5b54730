/* attnflow.c — splitting the attention of last-copy tokens by where the keys
 * sit in the repeated sentence (see attnflow.h). */
#include "theory/attnflow.h"

#include <stddef.h>

/* The categories' names: the columns of the table and of the CSV. */
static const char *const CATEGORY_NAMES[FLOW_N_CATEGORIES] = {"own_copy", "earlier_left", "same_word",
                                                              "earlier_right", "sink"};
/* ... and of their chance levels (a uniform head's shares). */
static const char *const CHANCE_NAMES[FLOW_N_CATEGORIES] = {
    "own_copy_chance", "earlier_left_chance", "same_word_chance", "earlier_right_chance", "sink_chance"};

const char *attnflow_category_name(FlowCategory c)
{
    return (c >= 0 && c < FLOW_N_CATEGORIES) ? CATEGORY_NAMES[c] : "?";
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
    return head_table_init(f, "attnflow", n_layers, n_heads, FLOW_N_CATEGORIES, CATEGORY_NAMES, err);
}

int attnflow_chance_init(AttnFlow *f, int n_layers, SrError *err)
{
    return head_table_init(f, "attnflow", n_layers, 1, FLOW_N_CATEGORIES, CHANCE_NAMES, err);
}

void attnflow_free(AttnFlow *f)
{
    head_table_free(f);
}

void attnflow_add_layer(AttnFlow *f, int layer, const float *att, int stride,
                        const RepeatLayout *lay)
{
    for (int h = 0; h < f->n_heads; h++)
        for (int i = 0; i < lay->n; i++) {
            const float *row = att + ((size_t)h * stride + lay->last_rows[i]) * stride;
            double share[FLOW_N_CATEGORIES];
            attnflow_split_row(row, lay, i, share);
            head_table_add(f, layer, h, share, NULL);
        }
}

double attnflow_mean(const AttnFlow *f, int layer, int head, FlowCategory c)
{
    return head_table_mean(f, layer, head, c);
}

int64_t attnflow_queries(const AttnFlow *f, int layer)
{
    return head_table_count(f, layer, 0, FLOW_OWN_COPY);
}
