/* explorer_frame.c — what a frame of the explorer shows besides the painter's
 * own drawing: the attention figure's title and caption (the same words as
 * `seqrep plot attention`), the `b` filter and the hover text. No SDL. */
#include "explorer/explorer_frame.h"

#include <stdio.h>
#include <string.h>

void explorer_describe_attention(AttentionData *d, int overview, const char *model_path,
                                 const char *adapter_path, const ExplorerInput *in, int sentence, int r,
                                 RepeatBos bos, RepeatSep sep, const char *mask_plan)
{
    attention_data_describe(d, overview, model_path, adapter_path, in->checksum, in->seed, in->texts[sentence],
                            in->sources[sentence], r, bos, sep, mask_plan);
}

/* "'word' (copy c)" or "'<bos>' (no copy)" for position t, copies counted from 1. */
static void describe_token(const AttentionData *d, int t, char *out, size_t cap)
{
    if (d->copy[t] >= 0) snprintf(out, cap, "%d '%.40s' (copy %d)", t, d->tokens[t], d->copy[t] + 1);
    else snprintf(out, cap, "%d '%.40s' (no copy)", t, d->tokens[t]);
}

void explorer_attention_tooltip(const AttentionData *d, int layer, int head, int query, int key,
                                char *out, size_t cap)
{
    char q[80], k[80];
    describe_token(d, query, q, sizeof q);
    describe_token(d, key, k, sizeof k);
    if (attention_filtered(d, layer, query, key))
        snprintf(out, cap, "query %s\nkey %s\nhidden by the b filter", q, k);
    else if (!attention_visible(d, layer, query, key))
        snprintf(out, cap, "query %s\nkey %s\nmasked", q, k);
    else
        snprintf(out, cap, "query %s\nkey %s\np = %.4f", q, k, attention_value(d, layer, head, query, key));
}

void explorer_z_tooltip(const RepoZData *d, int i, char *out, size_t cap)
{
    if (i < 0 || i >= d->n) {
        if (cap) out[0] = 0;
        return;
    }
    char where[48];
    if (d->copy[i] >= 0) snprintf(where, sizeof where, "copy %d, word %d", d->copy[i] + 1, d->word[i]);
    else snprintf(where, sizeof where, "no copy");
    int len = snprintf(out, cap, "token %d '%.30s' (%s)\nz = %.4g", d->index[i], d->token[i], where, d->z[i]);
    if (d->shown[i] != d->z[i] && len >= 0 && (size_t)len < cap)
        snprintf(out + len, cap - (size_t)len, " (drawn at the fence %.4g)", d->shown[i]);
}
