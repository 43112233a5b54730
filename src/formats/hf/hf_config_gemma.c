/* hf_config_gemma.c — a Gemma family config.json's own fields (see
 * hf_config_gemma.h). */
#include "formats/hf/hf_config_gemma.h"

#include <math.h>
#include <string.h>

#include "formats/hf/hf_config_fields.h"

/* Fields of every Gemma config that seqrep reads (hf_config.c or here) or
 * that do not change what the model computes. */
static const char *const KNOWN_ALL[] = {
    "architectures", "model_type", "hidden_size", "intermediate_size", "num_hidden_layers",
    "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size",
    "tie_word_embeddings", "rope_theta", "rope_scaling", "rms_norm_eps",
    "max_position_embeddings", "attention_bias", "attention_dropout", "hidden_act",
    "hidden_activation", "torch_dtype", "dtype", "transformers_version", "_name_or_path",
    "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range", "use_cache", NULL};
/* Gemma 2 and 3 only. */
static const char *const KNOWN_2[] = {
    "query_pre_attn_scalar", "attn_logit_softcapping", "final_logit_softcapping",
    "sliding_window", "layer_types", "cache_implementation", NULL};
/* Gemma 3 only. */
static const char *const KNOWN_3[] = {
    "rope_local_base_freq", "sliding_window_pattern", "_sliding_window_pattern",
    "use_bidirectional_attention", NULL};

/* 1 if name is in the NULL-ended list. */
static int listed(const char *const *list, const char *name)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0) return 1;
    return 0;
}

int hf_config_gemma_fields_known(const char *file, const cJSON *o, int generation, SrError *err)
{
    for (const cJSON *f = o->child; f; f = f->next) {
        int known = listed(KNOWN_ALL, f->string) ||
                    (generation >= 2 && listed(KNOWN_2, f->string)) ||
                    (generation == 3 && listed(KNOWN_3, f->string));
        if (!known)
            return sr_fail(err, "%s: field '%s' is not supported for Gemma%s", file, f->string,
                           generation == 1 ? "" : generation == 2 ? " 2" : " 3");
    }
    return 0;
}

/* A soft cap field into *v: def when absent, 0 (off) when null, else a
 * positive number. */
static int get_cap(const char *file, const cJSON *o, const char *key, double def, float *v,
                   SrError *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it) return *v = (float)def, 0;
    if (cJSON_IsNull(it)) return *v = 0.0f, 0;
    if (hf_get_float(file, o, key, def, v, err)) return -1;
    if (!(*v > 0.0f)) return sr_fail(err, "%s: '%s' must be positive or null", file, key);
    return 0;
}

/* 1 if string field key of o is absent or one of the names a and b. */
static int string_is(const cJSON *o, const char *key, const char *a, const char *b)
{
    const cJSON *it = hf_field(o, key);
    return !it || (cJSON_IsString(it) && (strcmp(it->valuestring, a) == 0 ||
                                          (b && strcmp(it->valuestring, b) == 0)));
}

/* The MLP's activation (the tanh GELU, whatever name a Gemma config gives
 * it), no attention dropout and no bidirectional attention. */
static int get_activation(const char *file, const cJSON *o, SrError *err)
{
    const char *tanh_gelu = "gelu_pytorch_tanh";
    if (!string_is(o, "hidden_activation", tanh_gelu, NULL))
        return sr_fail(err, "%s: 'hidden_activation' is not supported (only \"%s\")", file,
                       tanh_gelu);
    /* Gemma 1 configs name the tanh GELU "gelu" in hidden_act */
    if (!string_is(o, "hidden_act", tanh_gelu, "gelu"))
        return sr_fail(err, "%s: 'hidden_act' is not supported for Gemma (only \"%s\" or "
                       "\"gelu\", both the tanh GELU)", file, tanh_gelu);
    float dropout = 0.0f;
    if (hf_get_float(file, o, "attention_dropout", 0.0, &dropout, err)) return -1;
    if (dropout != 0.0f) return sr_fail(err, "%s: 'attention_dropout' must be 0", file);
    int bidirectional = 0;
    if (hf_get_bool(file, o, "use_bidirectional_attention", 0, &bidirectional, err)) return -1;
    if (bidirectional)
        return sr_fail(err, "%s: 'use_bidirectional_attention' true is not supported (give a mask "
                       "plan instead)", file);
    return 0;
}

/* Gemma 2 and 3's sliding layers into cfg.sliding_layers and the window's width. */
static int get_gemma_window(const char *file, const cJSON *o, int generation, ModelConfig *c,
                            int *sliding_window, SrError *err)
{
    int pattern = 6;
    if (hf_get_int(file, o, "sliding_window", 4096, sliding_window, err)) return -1;
    if (*sliding_window == 0) return sr_fail(err, "%s: 'sliding_window' is 0", file);
    if (generation == 3 && hf_get_int(file, o, "sliding_window_pattern", 6, &pattern, err)) return -1;
    if (pattern == 0) return sr_fail(err, "%s: 'sliding_window_pattern' is 0", file);
    if (c->n_layers > 64)
        return sr_fail(err, "%s: a sliding window on a model of %d layers (at most 64 supported)",
                       file, c->n_layers);
    int listed = hf_get_layer_types(file, o, c->n_layers, &c->family.sliding_layers, err);
    if (listed < 0) return -1;
    for (int l = 0; !listed && l < c->n_layers; l++) {
        int sliding = generation == 2 ? l % 2 == 0 : (l + 1) % pattern != 0;
        if (sliding) c->family.sliding_layers |= 1ull << l;
    }
    c->family.sliding_window = c->family.sliding_layers ? *sliding_window : 0;
    return 0;
}

int hf_config_gemma(const char *file, const cJSON *o, int generation, ModelConfig *c,
                    int *sliding_window, SrError *err)
{
    int g = generation;
    if (get_activation(file, o, err)) return -1;
    c->family.gelu_mlp = 1;
    c->family.norm_plus_one = 1;
    c->family.embed_scale = (float)sqrt((double)c->d_model);
    if (g == 1) return 0;
    c->family.post_norms = 1;
    float scalar;
    if (hf_get_float(file, o, "query_pre_attn_scalar", 256.0, &scalar, err)) return -1;
    if (!(scalar > 0.0f)) return sr_fail(err, "%s: 'query_pre_attn_scalar' must be positive", file);
    c->family.attn_scale = (float)(1.0 / sqrt((double)scalar));
    if (get_cap(file, o, "attn_logit_softcapping", g == 2 ? 50.0 : 0.0, &c->family.attn_softcap, err) ||
        get_cap(file, o, "final_logit_softcapping", g == 2 ? 30.0 : 0.0, &c->family.logit_softcap, err))
        return -1;
    if (g == 3) {
        c->family.qk_norm = 1;
        if (hf_get_float(file, o, "rope_local_base_freq", 10000.0, &c->family.rope_local_theta, err))
            return -1;
        if (!(c->family.rope_local_theta > 0.0f))
            return sr_fail(err, "%s: 'rope_local_base_freq' must be positive", file);
    }
    return get_gemma_window(file, o, g, c, sliding_window, err);
}

void hf_config_gemma_manifest(const ModelConfig *c, int generation, cJSON *o)
{
    cJSON_AddNumberToObject(o, "gemma", generation);
    cJSON_AddNumberToObject(o, "embed_scale", c->family.embed_scale);
    if (c->family.attn_scale > 0.0f) cJSON_AddNumberToObject(o, "attn_scale", c->family.attn_scale);
    if (c->family.attn_softcap > 0.0f) cJSON_AddNumberToObject(o, "attn_logit_softcapping", c->family.attn_softcap);
    if (c->family.logit_softcap > 0.0f)
        cJSON_AddNumberToObject(o, "final_logit_softcapping", c->family.logit_softcap);
    if (c->family.rope_local_theta > 0.0f)
        cJSON_AddNumberToObject(o, "rope_local_base_freq", c->family.rope_local_theta);
    if (c->family.rope_linear_factor > 0.0f)
        cJSON_AddNumberToObject(o, "rope_linear_factor", c->family.rope_linear_factor);
}
