/* checkpoint.h — saving and loading a Model as a safetensors file.
 *
 * Tensor names follow Hugging Face Llama, so the file opens with ordinary
 * tools; the fused q/k/v and gate/up buffers of the model are split into
 * their separate projections:
 *   model.embed_tokens.weight                      (V, C)
 *   model.layers.{l}.input_layernorm.weight        (C)
 *   model.layers.{l}.self_attn.{q,k,v,o}_proj.weight (C, C)
 *   model.layers.{l}.post_attention_layernorm.weight (C)
 *   model.layers.{l}.mlp.{gate,up}_proj.weight     (F, C)
 *   model.layers.{l}.mlp.down_proj.weight          (C, F)
 *   model.norm.weight                              (C)
 *   lm_head.weight                                 (V, C), only when untied
 * Metadata (all strings): "format" = "pt"; "seqrep.config" = the ModelConfig
 * as a JSON object; "seqrep.vocab" = JSON array of the words in id order;
 * "seqrep.manifest" = a JSON object from the caller (how the model was made).
 * A loader accepts exactly these tensors with exactly these shapes. */
#ifndef SEQREP_CHECKPOINT_H
#define SEQREP_CHECKPOINT_H

#include "base/status.h"
#include "engine/model.h"
#include "text/tokenizer.h"

/* A path that is a directory is read as a Hugging Face model folder
 * (formats/hf/hf_model_folder.h) by checkpoint_read_info, checkpoint_load and
 * checkpoint_tokenizer: its CheckpointInfo has the config, no vocabulary
 * (n_vocab 0) and hf_config_manifest's JSON as the manifest, so every command
 * that takes a checkpoint takes a folder. */

/* What a checkpoint says about itself, without the weights. */
typedef struct {
    ModelConfig cfg;
    char **vocab;        /* (n_vocab) owned words, vocab[id] */
    int n_vocab;         /* == cfg.vocab_size */
    char *manifest_json; /* owned JSON object text ("{}" when the file has none) */
} CheckpointInfo;

/* Save the parameters of m with its vocabulary (n_vocab == vocab_size words)
 * and a manifest (JSON object text, or NULL for "{}"), atomically. */
int checkpoint_save(const char *path, const Model *m, const char *const *vocab, int n_vocab,
                    const char *manifest_json, SrError *err);

/* Read and check the config, vocabulary and manifest of a checkpoint. */
int checkpoint_read_info(const char *path, CheckpointInfo *info, SrError *err);

/* Create m (model_create with max_batch x max_T) from the checkpoint's config
 * and copy its weights in. info (may be NULL) receives the config, vocabulary
 * and manifest. A Hugging Face folder in BF16 or F16 keeps its big matrices
 * as stored, mapped (hf_model_load): the model then reads its weights and
 * trains adapters only. On failure nothing is left allocated. */
int checkpoint_load(const char *path, Model *m, int max_batch, int max_T, CheckpointInfo *info,
                    SrError *err);

/* checkpoint_load with every weight in float32, for a model whose own
 * weights change: full fine-tuning, adapters merged into the weights. */
int checkpoint_load_trainable(const char *path, Model *m, int max_batch, int max_T,
                              CheckpointInfo *info, SrError *err);

/* Release what checkpoint_read_info / checkpoint_load put in info; zero it. */
void checkpoint_info_free(CheckpointInfo *info);

/* Rebuild the tokenizer a checkpoint was trained with: its vocabulary, and
 * from its manifest "lowercase" (true/false) and "tokenizer" ("bpe" = subword
 * mode; "word" or absent = word mode). */
int checkpoint_tokenizer(const CheckpointInfo *info, const char *path, Tokenizer *tok,
                         SrError *err);


#endif
