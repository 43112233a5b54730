/* readout_prefix.h — the features of every r of a list from ONE forward pass
 * of the longest repetition.
 *
 * Under a causal mask (every layer), hidden row t depends only on the tokens
 * 0..t. The input of r = k - 1 (k copies, <bos> and <sep> as the layout says,
 * positions running on or restarting in each copy) is exactly the first
 * tokens of the input of any larger r, so the rows of its last copy in the
 * r_max input hold the same states: one pass of r_max + 1 copies gives every
 * r <= r_max at every layer (r = 0, 1, 2, 4, 8: 9 copies instead of 20 in
 * five passes). RePo positions are computed token by token, so they keep
 * it; with middle or full unmasking later tokens change earlier rows and it
 * does not hold. */
#ifndef SEQREP_READOUT_PREFIX_H
#define SEQREP_READOUT_PREFIX_H

#include "base/status.h"
#include "engine/model.h"
#include "label/readout.h"

/* 1 if every one of the n_layers entries of mask is causal (NULL: all causal). */
int readout_prefix_applies(const MaskKind *mask, int n_layers);

/* Run the model once over pd with lay.r = the largest of r_values[0..n_r)
 * (mask and head plan as readout_collect; the mask must be causal) and store, for each ri,
 * the features of layout lay with r = r_values[ri] in last[ri]
 * ((N + 1) * pd->n_words * C, laid out as readout_collect's), and the
 * first-copy features, the same for every r, in first (may be NULL). The
 * model must be sized for batch_size x the longest input of the largest r. */
int readout_collect_prefixes(Model *m, const PiecedData *pd, ReadoutLayout lay, const int *r_values,
                             int n_r, const MaskKind *mask, const float *head_scale, int batch_size,
                             float *const *last, float *first, SrError *err);

#endif
