/* hf_config_gemma.h — the fields of a Gemma, Gemma 2 or Gemma 3 (text)
 * config.json beyond those every architecture shares (hf_config.h).
 *
 * What the model gets (model.h, ModelConfig): embeddings times sqrt(hidden);
 * RMSNorm by (1 + w) (norm_plus_one: the loader stores 1 + w); GeGLU with the
 * tanh GELU (hidden_activation "gelu_pytorch_tanh"; a Gemma 1 config without
 * it uses the tanh GELU for hidden_act "gelu" too, as Hugging Face does);
 * attention_dropout 0 only. Gemma 2 and 3 add the norms after attention and
 * after the MLP, scores scaled by query_pre_attn_scalar^-1/2 (default 256)
 * and a sliding window (sliding_window, default 4096; 0 is an error) on the
 * layers "layer_types" names, else on Gemma 2's even layers and on Gemma 3's
 * layers l with (l + 1) % sliding_window_pattern != 0 (default 6). Gemma 2
 * caps scores and logits (attn_logit_softcapping 50, final_logit_softcapping
 * 30 when absent; null turns a cap off). Gemma 3 adds q/k norms and rotates
 * its sliding layers by rope_local_base_freq (10000) without rope_scaling.
 * Every other field is an error naming it, unless it is one that does not
 * change the computation (ids of special tokens, torch_dtype, versions). */
#ifndef SEQREP_HF_CONFIG_GEMMA_H
#define SEQREP_HF_CONFIG_GEMMA_H

#include <cJSON.h>

#include "base/status.h"
#include "engine/model.h"

/* 0 when every field of the Gemma (generation 1, 2 or 3) config o is one
 * seqrep reads or one that leaves the computation as it is; else an error
 * naming file and the first other field. */
int hf_config_gemma_fields_known(const char *file, const cJSON *o, int generation, SrError *err);

/* The own fields of a Gemma config o of the given generation into c (after
 * the fields every architecture shares), the window's width (0 for none)
 * into *sliding_window. */
int hf_config_gemma(const char *file, const cJSON *o, int generation, ModelConfig *c,
                    int *sliding_window, SrError *err);

/* Gemma's settings of c added to a folder's manifest object o (hf_config_manifest). */
void hf_config_gemma_manifest(const ModelConfig *c, int generation, cJSON *o);

#endif
