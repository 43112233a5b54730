/* adapter_apply.h — a base model with the LoRA adapters of a fine-tuning run
 * (the file `seqrep finetune --save` wrote, formats/adapter.h) applied, for
 * the commands that look inside a model: probe, attnflow, plot and explore
 * (their --adapter FILE); a forward-only model on such weights.
 *
 * The adapters are merged into the loaded copy of the base weights
 * (engine/lora_merge.h): every adapted projection computes
 * W x + (alpha / rank) B A x, as the fine-tuned model did at inference
 * (no dropout), up to float rounding. The file's head is not used. */
#ifndef SEQREP_ADAPTER_APPLY_H
#define SEQREP_ADAPTER_APPLY_H

#include "base/status.h"
#include "engine/lora.h"
#include "engine/model.h"

/* Read path against m, the base model it was trained on (adapter_read: depth,
 * width, checksum, tensor names and shapes), and merge its adapters into m's
 * weights. *applied (may be NULL) receives their rank, alpha and targets.
 * A file of another base model, or one without adapters (finetune --adapter
 * none: a head only), is an error line naming path; m is then unchanged. */
int adapter_apply(const char *path, Model *m, LoraConfig *applied, SrError *err);

/* checkpoint_load of model_path (max_batch x max_T), then, when adapter_path
 * is not NULL, adapter_apply of it; an error about the adapter file reads
 * "--adapter PATH: ...". On failure nothing is left allocated. */
int adapter_load_model(const char *model_path, const char *adapter_path, Model *m, int max_batch,
                       int max_T, SrError *err);

/* For commands that only read a forward (probe, generate, plot): the weights
 * loaded as adapter_load_model does, sized for one token, into *weights and
 * a forward-only model on them (model_create_inference: every layer's
 * residual stream, one layer's working buffers) for max_batch x max_T into
 * *m. Free m before weights. On failure nothing is left allocated. */
int adapter_load_inference(const char *model_path, const char *adapter_path, Model *weights,
                           Model *m, int max_batch, int max_T, SrError *err);

#endif
