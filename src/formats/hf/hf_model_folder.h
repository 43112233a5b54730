/* hf_model_folder.h — a Hugging Face model folder (config.json plus model.safetensors
 * or model.safetensors.index.json and its shards) loaded into a Model.
 *
 * Tensors (the real Hugging Face names; Q = H*hd, K = KVH*hd):
 *   model.embed_tokens.weight                          (V, C)
 *   model.layers.{l}.input_layernorm.weight            (C)
 *   model.layers.{l}.self_attn.q_proj.weight           (Q, C)   .bias (Q) for Qwen2
 *   model.layers.{l}.self_attn.{k,v}_proj.weight       (K, C)   .bias (K) for Qwen2
 *   model.layers.{l}.self_attn.o_proj.weight           (C, Q)
 *   model.layers.{l}.self_attn.{q,k}_norm.weight       (hd)     Qwen3
 *   model.layers.{l}.post_attention_layernorm.weight   (C)      the MLP's input norm, except:
 *   Gemma 2 and 3: post_attention_layernorm normalises the attention's output,
 *     pre_feedforward_layernorm (C) the MLP's input, post_feedforward_layernorm (C)
 *     its output; Gemma's norm weights w are held as 1 + w (see HfTensorView)
 *   model.layers.{l}.mlp.{gate,up}_proj.weight         (F, C)
 *   model.layers.{l}.mlp.down_proj.weight              (C, F)
 *   model.norm.weight                                  (C)
 *   lm_head.weight                                     (V, C), unless tied (then ignored)
 * stored as F32, BF16 or F16 and converted to float32 one tensor at a time
 * from a read-only memory map of just that tensor, unmapped right after, so
 * the peak memory is the float32 model plus the largest stored tensor; or,
 * for a model that only reads its weights, BF16 and F16 matrices stay in
 * the files, mapped (hf_mapped.h), and take the memory they take on disk.
 * "...rotary_emb.inv_freq" buffers of old exports are skipped; any other
 * tensor, a missing one, a wrong shape or dtype, a dtype that differs from
 * the folder's first tensor's, or a shard the index names but the folder
 * lacks is a one-line error naming the file. */
#ifndef SEQREP_HF_MODEL_FOLDER_H
#define SEQREP_HF_MODEL_FOLDER_H

#include <stdint.h>

#include "base/status.h"
#include "engine/model.h"
#include "formats/hf/hf_config.h"

/* One tensor of a folder: its Hugging Face name and shape, and the float32
 * buffer it maps to inside a ParamViews. */
typedef struct {
    char name[96];
    int ndim;           /* 1 or 2 */
    int64_t shape[2];   /* rows, columns (0 for a vector) */
    float *dest;        /* (shape[0] * shape[1] or shape[0]) floats inside the views */
    float offset;       /* the model holds the file's values plus this: 1 for the
                           norms of a Gemma folder (its RMSNorm scales by 1 + w), else 0 */
} HfTensorView;

/* Most tensors a folder of n_layers layers holds. */
#define HF_MAX_TENSORS(n_layers) (3 + 18 * (n_layers))

/* Fill out (HF_MAX_TENSORS(L) entries) with every tensor m's configuration
 * has, pointing into the views p (m->p for the weights, m->g for their
 * gradients, or any buffer of the parameter layout); returns the count. */
int hf_tensor_views(const Model *m, const ParamViews *p, HfTensorView *out);

/* Read dir's config (into *hc, may be NULL), create m for max_batch x max_T
 * and load the weights: with keep_stored, a folder in BF16 or F16 keeps its
 * big matrices as stored, mapped read-only (model_create_stored; norms and
 * biases converted into params), for a model that only reads them; else
 * every weight is converted to float32. On failure nothing is left
 * allocated. */
int hf_model_load(const char *dir, Model *m, int max_batch, int max_T, HfConfig *hc,
                  int keep_stored, SrError *err);

#endif
