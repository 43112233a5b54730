/* hf_config.h — a Hugging Face model folder's config.json as a ModelConfig.
 *
 * Architectures: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM
 * (biases on q, k, v) and Qwen3ForCausalLM (per-head q_norm / k_norm, an
 * explicit head_dim). Fields read, with Hugging Face's defaults when absent:
 * hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads (= heads), head_dim (= hidden / heads), vocab_size,
 * tie_word_embeddings (false), rope_theta (10000), rope_scaling (null or
 * rope_type/type "llama3"), rms_norm_eps (1e-6), max_position_embeddings,
 * hidden_act ("silu" only), attention_bias and mlp_bias (false only; Qwen2's
 * q/k/v biases are part of the architecture), sliding_window. A sliding
 * window caps max_seq_len at its width, so no sequence that it would cut is
 * accepted. Anything else unsupported is an error naming the field. */
#ifndef SEQREP_HF_CONFIG_H
#define SEQREP_HF_CONFIG_H

#include "base/status.h"
#include "engine/model.h"

typedef struct {
    char architecture[64];  /* architectures[0] */
    ModelConfig cfg;
    int max_position_embeddings;
    int sliding_window;     /* 0 = none (or not in use) */
    char torch_dtype[16];   /* as config.json says ("" when absent) */
} HfConfig;

/* 1 if path is a directory (then it is read as a Hugging Face model folder). */
int hf_is_model_dir(const char *path);

/* Parse dir/config.json into *out; errors name "dir/config.json" and the field. */
int hf_config_read(const char *dir, HfConfig *out, SrError *err);

/* What a folder says of itself, as JSON object text (caller frees): format,
 * architecture, torch_dtype, the key/value heads, head size, biases, norms,
 * RoPE scaling and sliding window; NULL when out of memory. */
char *hf_config_manifest(const HfConfig *hc);

#endif
