/* explorer_frame.c — what a frame of the explorer shows besides the painter's
 * own drawing: the attention figure's title and caption (the same words as
 * `seqrep plot attention`). No SDL. */
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
