/* repo_z_attention.c — the data of the z figures (repo-z, repo-repeat) taken
 * straight from a forward pass: the positions z a RePo model computed for a
 * (repeated) sentence, kept beside its attention maps in AttentionData. */
#include "repo/repo_z_attention.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int repo_z_data_from_attention(RepoZData *d, const AttentionData *a, int layer, int head,
                               const char *source, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    if (!a->repo_z)
        return sr_fail(err, "no learned positions: the model has no RePo weights (train-lm --positions repo)");
    int first = -1;
    for (int l = 0; l < a->n_layers && first < 0; l++)
        if (!isnan(a->repo_z[(size_t)l * a->T * a->n_heads])) first = l;
    if (layer < 0) layer = a->n_layers - 1;
    if (first < 0 || layer < first || layer >= a->n_layers)
        return sr_fail(err, "layer %d has no learned positions (RePo layers %d..%d)", layer, first,
                       a->n_layers - 1);
    if (head < 0 || head >= a->n_heads)
        return sr_fail(err, "head %d out of range 0..%d (z is one position per head)", head, a->n_heads - 1);
    int n = a->T;
    if (repo_z_data_alloc(d, n, layer, head)) {
        repo_z_data_free(d);
        return sr_fail(err, "out of memory");
    }
    int word_in_copy = 0, last_copy = -1;
    for (int t = 0; t < n; t++) {
        int c = a->copy[t];
        if (c != last_copy && c >= 0) word_in_copy = 0;
        if (c >= 0) last_copy = c;
        d->index[t] = t;
        d->copy[t] = c;
        d->word[t] = c >= 0 ? word_in_copy++ : -1;
        d->z[t] = a->repo_z[((size_t)layer * n + t) * a->n_heads + head];
        d->token[t] = strdup(a->tokens[t]);
        if (!d->token[t]) {
            repo_z_data_free(d);
            return sr_fail(err, "out of memory");
        }
    }
    d->n_copies = a->k;
    repo_z_data_finish(d, source);
    return 0;
}

void repo_z_source(char *out, size_t cap, const char *model_path, const char *adapter_path,
                   const char *text, const char *text_source, int r, RepeatBos bos, RepeatSep sep,
                   const char *mask_plan)
{
    char adapters[480];
    attention_adapter_words(adapters, sizeof adapters, adapter_path);
    snprintf(out, cap, "model %s%s on \"%.100s%s\" (%s), repeated k = r + 1 = %d times (r = %d), bos %s, "
             "sep %s, mask %s", model_path, adapters, text, strlen(text) > 100 ? "..." : "", text_source, r + 1, r,
             repeat_bos_name(bos), repeat_sep_name(sep), mask_plan ? mask_plan : "causal");
}
