/* repo_z_attention.h — the data of the z figures (repo-z, repo-repeat)
 * taken straight from a forward pass: the positions z a RePo model computed
 * for a (repeated) sentence, kept beside its attention maps in AttentionData. */
#ifndef SEQREP_VIZ_REPO_Z_ATTENTION_H
#define SEQREP_VIZ_REPO_Z_ATTENTION_H

#include <stddef.h>

#include "attention/attention_data.h"
#include "repeat/repeat.h"
#include "repo/repo_z_data.h"

/* z of layer `layer` and head `head` of the forward behind an attention
 * figure's data (a->repo_z, filled for a RePo model), with its tokens and
 * copies; layer -1 is the last. `source` names the input in the caption.
 * Fails when the model has no RePo weights ("no learned positions: ...")
 * or layer is not a RePo layer ("layer 1 has no learned positions (RePo
 * layers 2..3)"). Free with repo_z_data_free. */
int repo_z_data_from_attention(RepoZData *d, const AttentionData *a, int layer, int head,
                               const char *source, SrError *err);

/* The words a z figure's caption uses for an input run through a model:
 * "MODEL on \"SENTENCE\" (SOURCE), repeated k = r + 1 times, bos B, sep S,
 * mask M" (mask_plan NULL = causal; MODEL followed by attention_adapter_words
 * of adapter_path, NULL = none). `seqrep plot` and the explorer both
 * describe their frames with it, so the two captions agree. */
void repo_z_source(char *out, size_t cap, const char *model_path, const char *adapter_path,
                   const char *text, const char *text_source, int r, RepeatBos bos, RepeatSep sep,
                   const char *mask_plan);

#endif
