/* hf_config.h — a Hugging Face model folder's config.json as a ModelConfig.
 *
 * Architectures: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM
 * (biases on q, k, v), Qwen3ForCausalLM (per-head q_norm / k_norm, an
 * explicit head_dim), and GemmaForCausalLM, Gemma2ForCausalLM,
 * Gemma3ForCausalLM (text), whose own fields hf_config_gemma.h reads. Fields
 * read, with Hugging Face's defaults when absent: hidden_size,
 * intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads (= heads), head_dim (= hidden / heads; Gemma 256),
 * vocab_size, tie_word_embeddings (false; Gemma true), rope_theta (10000;
 * Gemma 3 1e6), rope_scaling (null, or rope_type/type "llama3" or "linear"),
 * rms_norm_eps (1e-6), max_position_embeddings, hidden_act ("silu" only,
 * Gemma's see there), attention_bias and mlp_bias (false only; Qwen2's q/k/v
 * biases are part of the architecture), and the sliding window: Mistral's
 * sliding_window on every layer, Qwen's with use_sliding_window on the layers
 * from max_window_layers (28) on, or the layers "layer_types" names. A window
 * is a mask (mask.h): longer sequences run, each layer seeing its window.
 * Anything else unsupported is an error naming the field. */
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
    int gemma;              /* 1, 2 or 3: a Gemma, Gemma 2 or Gemma 3 folder; 0 otherwise */
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
