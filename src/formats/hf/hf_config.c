/* hf_config.c — config.json of a Hugging Face folder -> ModelConfig (see
 * hf_config.h for the fields and their defaults). */
#include "formats/hf/hf_config.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/text_file.h"
#include "formats/hf/hf_config_fields.h"
#include "formats/hf/hf_config_gemma.h"

int hf_is_model_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* rope_scaling: null, or {"rope_type" (or "type"): "llama3", factor,
 * low_freq_factor, high_freq_factor, original_max_position_embeddings}. */
static int get_rope_scaling(const char *file, const cJSON *o, ModelConfig *c, SrError *err)
{
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o, "rope_scaling");
    if (!rs || cJSON_IsNull(rs)) return 0;
    if (!cJSON_IsObject(rs)) return sr_fail(err, "%s: 'rope_scaling' must be null or an object", file);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(rs, "rope_type");
    if (!type) type = cJSON_GetObjectItemCaseSensitive(rs, "type");
    if (!cJSON_IsString(type))
        return sr_fail(err, "%s: 'rope_scaling' has no rope_type", file);
    if (strcmp(type->valuestring, "default") == 0) return 0;
    if (strcmp(type->valuestring, "linear") == 0) {
        int rc = hf_get_float(file, rs, "factor", NAN, &c->family.rope_linear_factor, err);
        if (rc == 0 && !(c->family.rope_linear_factor > 0))
            rc = sr_fail(err, "%s: rope_scaling 'factor' must be positive", file);
        return rc;
    }
    if (strcmp(type->valuestring, "llama3") != 0)
        return sr_fail(err, "%s: rope_scaling type '%s' is not supported (llama3, linear)", file,
                       type->valuestring);
    c->family.rope_llama3 = 1;
    int rc = hf_get_float(file, rs, "factor", NAN, &c->family.rope_factor, err);
    if (rc == 0) rc = hf_get_float(file, rs, "low_freq_factor", NAN, &c->family.rope_low_freq_factor, err);
    if (rc == 0) rc = hf_get_float(file, rs, "high_freq_factor", NAN, &c->family.rope_high_freq_factor, err);
    if (rc == 0)
        rc = hf_get_int(file, rs, "original_max_position_embeddings", -1, &c->family.rope_original_max_pos,
                     err);
    if (rc == 0 && !(c->family.rope_factor > 0 && c->family.rope_low_freq_factor > 0 &&
                     c->family.rope_high_freq_factor > c->family.rope_low_freq_factor))
        rc = sr_fail(err, "%s: rope_scaling needs factor > 0 and 0 < low_freq_factor < "
                     "high_freq_factor", file);
    return rc;
}

/* The architecture-specific part: which architectures, their biases, norms
 * and default max_position_embeddings. */
static int get_architecture(const char *file, const cJSON *o, HfConfig *hc, int *default_max_pos,
                            SrError *err)
{
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(o, "architectures");
    const cJSON *first = cJSON_IsArray(arch) ? cJSON_GetArrayItem(arch, 0) : NULL;
    if (!cJSON_IsString(first))
        return sr_fail(err, "%s: 'architectures' must be a list naming the model class", file);
    if (cJSON_GetArraySize(arch) != 1)
        return sr_fail(err, "%s: 'architectures' names %d classes, expected one", file,
                       cJSON_GetArraySize(arch));
    snprintf(hc->architecture, sizeof hc->architecture, "%s", first->valuestring);
    const char *a = first->valuestring;
    if (strcmp(a, "LlamaForCausalLM") == 0) *default_max_pos = 2048;
    else if (strcmp(a, "MistralForCausalLM") == 0) *default_max_pos = 4096 * 32;
    else if (strcmp(a, "Qwen2ForCausalLM") == 0) hc->cfg.family.qkv_bias = 1, *default_max_pos = 32768;
    else if (strcmp(a, "Qwen3ForCausalLM") == 0) hc->cfg.family.qk_norm = 1, *default_max_pos = 32768;
    else if (strcmp(a, "GemmaForCausalLM") == 0) hc->gemma = 1, *default_max_pos = 8192;
    else if (strcmp(a, "Gemma2ForCausalLM") == 0) hc->gemma = 2, *default_max_pos = 8192;
    else if (strcmp(a, "Gemma3ForCausalLM") == 0) hc->gemma = 3, *default_max_pos = 131072;
    else
        return sr_fail(err, "%s: architecture '%s' is not supported (LlamaForCausalLM, "
                       "MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GemmaForCausalLM, "
                       "Gemma2ForCausalLM, Gemma3ForCausalLM are)", file, a);
    return 0;
}

/* Fields every architecture shares, into hc->cfg. */
static int get_fields(const char *file, const cJSON *o, HfConfig *hc, int default_max_pos,
                      SrError *err)
{
    ModelConfig *c = &hc->cfg;
    int rc = hf_get_int(file, o, "hidden_size", -1, &c->d_model, err);
    if (rc == 0) rc = hf_get_int(file, o, "intermediate_size", -1, &c->d_ff, err);
    if (rc == 0) rc = hf_get_int(file, o, "num_hidden_layers", -1, &c->n_layers, err);
    if (rc == 0) rc = hf_get_int(file, o, "num_attention_heads", -1, &c->n_heads, err);
    if (rc == 0) rc = hf_get_int(file, o, "vocab_size", -1, &c->vocab_size, err);
    if (rc == 0 && c->n_heads == 0) rc = sr_fail(err, "%s: 'num_attention_heads' is 0", file);
    if (rc) return rc;
    int kv, hd, bias = 0, mlp_bias = 0;
    rc = hf_get_int(file, o, "num_key_value_heads", c->n_heads, &kv, err);
    if (rc == 0)
        rc = hf_get_int(file, o, "head_dim", hc->gemma ? 256 : c->d_model / c->n_heads, &hd, err);
    if (rc == 0) rc = hf_get_bool(file, o, "tie_word_embeddings", hc->gemma != 0, &c->tied, err);
    if (rc == 0)
        rc = hf_get_float(file, o, "rope_theta", hc->gemma == 3 ? 1000000.0 : 10000.0, &c->rope_theta,
                       err);
    if (rc == 0) rc = hf_get_float(file, o, "rms_norm_eps", 1e-6, &c->norm_eps, err);
    if (rc == 0)
        rc = hf_get_int(file, o, "max_position_embeddings", default_max_pos,
                     &hc->max_position_embeddings, err);
    if (rc == 0) rc = hf_get_bool(file, o, "attention_bias", 0, &bias, err);
    if (rc == 0) rc = hf_get_bool(file, o, "mlp_bias", 0, &mlp_bias, err);
    if (rc == 0) rc = get_rope_scaling(file, o, c, err);
    if (rc) return rc;
    if (bias) return sr_fail(err, "%s: 'attention_bias' true (a bias on o_proj) is not supported", file);
    if (mlp_bias) return sr_fail(err, "%s: 'mlp_bias' true is not supported", file);
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(o, "hidden_act");
    if (!hc->gemma && act && !(cJSON_IsString(act) && strcmp(act->valuestring, "silu") == 0))
        return sr_fail(err, "%s: 'hidden_act' %s is not supported (only \"silu\")", file,
                       cJSON_IsString(act) ? act->valuestring : "(not a string)");
    c->family.n_kv_heads = kv == c->n_heads ? 0 : kv;
    c->family.head_dim = (long long)hd * c->n_heads == c->d_model ? 0 : hd;
    if (kv == 0) return sr_fail(err, "%s: 'num_key_value_heads' is 0", file);
    return 0;
}

/* The sliding window in use and its layers: Mistral's on every layer; Qwen's
 * only with use_sliding_window true, on the layers from max_window_layers on;
 * Gemma's from hf_config_gemma. No window: 0. Layers past 64 cannot slide. */
static int get_window(const char *file, const cJSON *o, HfConfig *hc, SrError *err)
{
    ModelConfig *c = &hc->cfg;
    int use = 1, from = 0, qwen = strncmp(hc->architecture, "Qwen", 4) == 0;
    if (!qwen && strcmp(hc->architecture, "MistralForCausalLM") != 0) return 0; /* Llama has none */
    if (qwen && hf_get_bool(file, o, "use_sliding_window", 0, &use, err)) return -1;
    if (qwen && hf_get_int(file, o, "max_window_layers", 28, &from, err)) return -1;
    if (!use || !hf_field(o, "sliding_window")) return 0;
    if (hf_get_int(file, o, "sliding_window", 0, &hc->sliding_window, err)) return -1;
    if (hc->sliding_window == 0) return sr_fail(err, "%s: 'sliding_window' is 0", file);
    int listed = hf_get_layer_types(file, o, c->n_layers, &c->family.sliding_layers, err);
    if (listed < 0) return -1;
    if (c->n_layers > 64 && (listed ? c->family.sliding_layers != 0 : from < c->n_layers))
        return sr_fail(err, "%s: a sliding window on a model of %d layers (at most 64 supported)",
                       file, c->n_layers);
    for (int l = from; !listed && l < c->n_layers; l++) c->family.sliding_layers |= 1ull << l;
    c->family.sliding_window = c->family.sliding_layers ? hc->sliding_window : 0;
    return 0;
}

int hf_config_read(const char *dir, HfConfig *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    char file[4096];
    snprintf(file, sizeof file, "%s/config.json", dir);
    char *text = NULL;
    size_t len;
    if (text_read_file(file, &text, &len, err)) {
        SrError why = *err;
        return sr_fail(err, "%s: not a Hugging Face model folder (%s)", dir, why.msg);
    }
    cJSON *o = cJSON_ParseWithOpts(text, NULL, 1);
    free(text);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return sr_fail(err, "%s: not a JSON object", file);
    }
    int default_max_pos = 0;
    int rc = get_architecture(file, o, out, &default_max_pos, err);
    if (rc == 0 && out->gemma) rc = hf_config_gemma_fields_known(file, o, out->gemma, err);
    if (rc == 0) rc = get_fields(file, o, out, default_max_pos, err);
    if (rc == 0 && out->gemma)
        rc = hf_config_gemma(file, o, out->gemma, &out->cfg, &out->sliding_window, err);
    else if (rc == 0) rc = get_window(file, o, out, err);
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(o, "torch_dtype");
    if (cJSON_IsString(dtype))
        snprintf(out->torch_dtype, sizeof out->torch_dtype, "%s", dtype->valuestring);
    cJSON_Delete(o);
    if (rc) return -1;
    ModelConfig *c = &out->cfg;
    c->max_seq_len = out->max_position_embeddings;
    SrError why;
    if (model_config_check(c, &why)) return sr_fail(err, "%s: %s", file, why.msg);
    return 0;
}

char *hf_config_manifest(const HfConfig *hc)
{
    const ModelConfig *c = &hc->cfg;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "format", "huggingface");
    cJSON_AddStringToObject(o, "architecture", hc->architecture);
    if (hc->torch_dtype[0]) cJSON_AddStringToObject(o, "torch_dtype", hc->torch_dtype);
    cJSON_AddNumberToObject(o, "kv_heads", model_kv_heads(c));
    cJSON_AddNumberToObject(o, "head_dim", model_head_dim(c));
    cJSON_AddBoolToObject(o, "qkv_bias", c->family.qkv_bias);
    cJSON_AddBoolToObject(o, "qk_norm", c->family.qk_norm);
    cJSON_AddNumberToObject(o, "max_position_embeddings", hc->max_position_embeddings);
    if (hc->sliding_window) cJSON_AddNumberToObject(o, "sliding_window", hc->sliding_window);
    if (c->family.sliding_layers) {
        cJSON *layers = cJSON_AddArrayToObject(o, "sliding_layers");
        for (int l = 0; l < c->n_layers; l++)
            if (model_layer_slides(c, l)) cJSON_AddItemToArray(layers, cJSON_CreateNumber(l));
    }
    if (hc->gemma) hf_config_gemma_manifest(c, hc->gemma, o);
    if (c->family.rope_llama3) {
        cJSON *rs = cJSON_AddObjectToObject(o, "rope_scaling");
        cJSON_AddStringToObject(rs, "rope_type", "llama3");
        cJSON_AddNumberToObject(rs, "factor", c->family.rope_factor);
        cJSON_AddNumberToObject(rs, "low_freq_factor", c->family.rope_low_freq_factor);
        cJSON_AddNumberToObject(rs, "high_freq_factor", c->family.rope_high_freq_factor);
        cJSON_AddNumberToObject(rs, "original_max_position_embeddings", c->family.rope_original_max_pos);
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}
