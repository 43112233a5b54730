/* fuzz_hf_config.c — a Hugging Face folder's config.json (hf_config_read,
 * formats/hf/hf_config.h) on any bytes, written into a scratch folder. What it
 * accepts must pass model_config_check, describe itself as a JSON object
 * (hf_config_manifest), and, when the model is small, create a model and
 * fail cleanly on the folder's missing weights (hf_model_load). */
#include <cJSON.h>
#include <stdint.h>
#include <string.h>

#include "formats/hf/hf_model_folder.h"
#include "fuzz_util.h"

/* Floats the parameters of cfg need, counted in double (no wrap-around). */
static double config_floats(const ModelConfig *c)
{
    const ModelFamily *f = &c->family;
    double V = c->vocab_size, C = c->d_model, L = c->n_layers, F = c->d_ff;
    double hd = f->head_dim ? f->head_dim : (double)c->d_model / c->n_heads;
    double Q = c->n_heads * hd, K = (f->n_kv_heads ? f->n_kv_heads : c->n_heads) * hd;
    return V * C * 2 + L * ((Q + 2 * K) * C + C * Q + 3 * F * C + 2 * C + Q + 2 * K + 2 * hd) + C;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[600], path[700];
    fuzz_path(dir, sizeof dir, "hf");
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/config.json", dir);
    fuzz_write(path, data, size);
    HfConfig hc;
    SrError err;
    if (hf_config_read(dir, &hc, &err)) {
        FUZZ_CHECK(err.msg[0] != '\0');
        return 0;
    }
    SrError why;
    FUZZ_OK(model_config_check(&hc.cfg, &why), why);
    FUZZ_CHECK(hc.cfg.max_seq_len > 0 && hc.architecture[0] != '\0');
    char *manifest = hf_config_manifest(&hc);
    FUZZ_CHECK(manifest != NULL);
    cJSON *o = cJSON_Parse(manifest);
    FUZZ_CHECK(cJSON_IsObject(o));
    cJSON_Delete(o);
    free(manifest);

    /* Small enough to allocate: the model is created, the missing weights
     * are a clean error. */
    if (config_floats(&hc.cfg) < 1 << 20 && (double)hc.cfg.n_layers * hc.cfg.d_model < 1 << 16) {
        Model m;
        HfConfig again;
        int rc = hf_model_load(dir, &m, 1, 1, &again, 1, &err);
        FUZZ_CHECK(rc != 0 && strstr(err.msg, "model.safetensors") != NULL);
        FUZZ_CHECK(memcmp(&again.cfg, &hc.cfg, sizeof hc.cfg) == 0);
    }
    return 0;
}
