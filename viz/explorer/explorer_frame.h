/* explorer_frame.h — what a frame of the explorer shows besides the
 * painter's drawing: the attention figure's words and the hover texts
 * (explorer_frame.c). No SDL. */
#ifndef SEQREP_VIZ_EXPLORER_FRAME_H
#define SEQREP_VIZ_EXPLORER_FRAME_H

#include <stddef.h>

#include "attention/attention_data.h"
#include "explorer/explorer_input.h"
#include "repeat/repeat.h"
#include "repo/repo_z_data.h"

/* Set d's title and caption exactly as `seqrep plot attention` does for the
 * same options: the model path and adapter file (NULL = none) as given, the
 * sentence text and its source, r, bos, sep, mask plan (NULL = causal) and
 * d's layer, head and scale. */
void explorer_describe_attention(AttentionData *d, int overview, const char *model_path,
                                 const char *adapter_path, const ExplorerInput *in, int sentence, int r, RepeatBos bos,
                                 RepeatSep sep, const char *mask_plan);

#endif
