/* adapter.c — the head and LoRA adapters as a PEFT-named safetensors file
 * (see adapter.h). */
#include "base/fnv1a.h"
#include "formats/adapter.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/serving/model_stored.h"
#include "formats/finite.h"
#include "formats/safetensors.h"

static const char TARGET_NAMES[LORA_N_TARGETS] = {'q', 'k', 'v', 'o'};

/* One tensor the file holds: its name, shape and where its floats are. */
typedef struct {
    char name[128];
    int ndim;
    int64_t shape[2];
    float *data;
} AdapterTensor;

/* FNV-1a of every parameter as float32 in ParamId order: the same
 * number whether the big matrices are in params or kept as stored. */
static uint64_t weights_fnv1a(const Model *m, uint64_t h)
{
    const StoredMatrices *stored = model_stored_matrices(m);
    if (!stored) return fnv1a(h, m->params, m->n_params * sizeof(float));
    const float *own = m->params; /* the tensors params does hold, in order */
    for (int id = 0; id < PARAM_COUNT; id++) {
        if (param_spec((ParamId)id)->matrix) {
            h = stored_param_fnv1a(stored, (ParamId)id, m->cfg.tied, h);
        } else {
            size_t n = param_floats(&m->cfg, (ParamId)id, 1);
            h = fnv1a(h, own, n * sizeof(float));
            own += n;
        }
    }
    return h;
}

void adapter_base_checksum(const Model *m, char hex[17])
{
    uint64_t h = weights_fnv1a(m, FNV1A_START_SHORT);
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

size_t adapter_lora_floats(const LoraConfig *cfg, int n_layers, int d_model)
{
    return adapter_lora_floats_dims(cfg, n_layers, d_model, d_model, d_model);
}

/* Input and output width of target t's projection (lora_in_dim, lora_out_dim). */
static void target_dims(int t, int d_model, int q_dim, int kv_dim, int *in, int *out)
{
    Lora shape = {.d_model = d_model, .q_dim = q_dim, .kv_dim = kv_dim};
    *in = lora_in_dim(&shape, (LoraTarget)t);
    *out = lora_out_dim(&shape, (LoraTarget)t);
}

size_t adapter_lora_floats_dims(const LoraConfig *cfg, int n_layers, int d_model, int q_dim,
                                int kv_dim)
{
    size_t n = 0;
    for (int t = 0; t < LORA_N_TARGETS; t++) {
        int in, out;
        target_dims(t, d_model, q_dim, kv_dim, &in, &out);
        if (cfg->targets & (1u << t)) n += (size_t)cfg->rank * ((size_t)in + (size_t)out);
    }
    return n * (size_t)n_layers;
}

/* a's query and key/value widths (d_model where a leaves them 0). */
static void file_dims(const AdapterFile *a, int *q_dim, int *kv_dim)
{
    *q_dim = a->q_dim ? a->q_dim : a->d_model;
    *kv_dim = a->kv_dim ? a->kv_dim : a->d_model;
}

/* The tensors of a, in file order (adapters by layer, then q, k, v, o, A
 * then B; then the head), pointing into a's buffers. A new array of *n
 * (caller frees), or NULL when out of memory. */
static AdapterTensor *list_tensors(const AdapterFile *a, int *n)
{
    int per_layer = 0;
    for (int t = 0; t < LORA_N_TARGETS; t++)
        per_layer += a->has_lora && (a->lora.targets & (1u << t));
    int count = 2 * per_layer * a->n_layers + 2;
    AdapterTensor *ts = calloc((size_t)count, sizeof *ts);
    if (!ts) return NULL;
    int k = 0, R = a->lora.rank, C = a->d_model, Q, KV;
    file_dims(a, &Q, &KV);
    float *w = a->lora_w;
    for (int l = 0; l < a->n_layers && per_layer; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++) {
            if (!(a->lora.targets & (1u << t))) continue;
            int in, out;
            target_dims(t, C, Q, KV, &in, &out);
            for (int ab = 0; ab < 2; ab++, k++) {
                snprintf(ts[k].name, sizeof ts[k].name,
                         "base_model.model.model.layers.%d.self_attn.%c_proj.lora_%c.weight", l,
                         TARGET_NAMES[t], ab ? 'B' : 'A');
                ts[k].ndim = 2;
                ts[k].shape[0] = ab ? out : R;
                ts[k].shape[1] = ab ? R : in;
                ts[k].data = w;
                w += (size_t)R * (ab ? out : in);
            }
        }
    ts[k] = (AdapterTensor){.name = "classifier.weight", .ndim = 2, .shape = {a->n_labels, C},
                            .data = a->head_W};
    k++;
    ts[k] = (AdapterTensor){.name = "classifier.bias", .ndim = 1, .shape = {a->n_labels, 0},
                            .data = a->head_b};
    *n = k + 1;
    return ts;
}

/* The labels as a JSON array string (caller frees), or NULL. */
static char *labels_json(const AdapterFile *a)
{
    cJSON *arr = cJSON_CreateStringArray((const char *const *)a->labels, a->n_labels);
    char *text = arr ? cJSON_PrintUnformatted(arr) : NULL;
    cJSON_Delete(arr);
    return text;
}

int adapter_write(const char *path, const AdapterFile *a, SrError *err)
{
    int q_dim, kv_dim, n = 0;
    file_dims(a, &q_dim, &kv_dim);
    if (a->has_lora &&
        a->n_lora != adapter_lora_floats_dims(&a->lora, a->n_layers, a->d_model, q_dim, kv_dim))
        return sr_fail(err, "%s: %zu adapter floats do not fit %d layers of width %d with q "
                            "width %d and k/v width %d", path, a->n_lora, a->n_layers, a->d_model,
                       q_dim, kv_dim);
    AdapterTensor *list = list_tensors(a, &n);
    StTensor *ts = calloc((size_t)(n > 0 ? n : 1), sizeof *ts);
    char *labels = labels_json(a);
    if (!list || !ts || !labels) {
        free(list), free(ts), free(labels);
        return sr_fail(err, "%s: out of memory", path);
    }
    for (int i = 0; i < n; i++) {
        ts[i] = (StTensor){.name = list[i].name, .dtype = ST_F32, .ndim = list[i].ndim,
                           .data = list[i].data};
        ts[i].shape[0] = list[i].shape[0];
        ts[i].shape[1] = list[i].shape[1];
        ts[i].nbytes = sizeof(float) * (size_t)list[i].shape[0] *
                       (size_t)(list[i].ndim == 2 ? list[i].shape[1] : 1);
    }
    char num[8][32], targets[16] = "";
    for (int t = 0, j = 0; t < LORA_N_TARGETS; t++)
        if (a->lora.targets & (1u << t)) {
            if (j) targets[j++] = ',';
            targets[j++] = TARGET_NAMES[t];
            targets[j] = 0;
        }
    /* %.9g reads back as the same float; %g (six digits) wrote a dropout of
     * 0.9999999 as "1", which reading then refused (a fuzz_adapter input), and
     * an alpha of 1/3 as a slightly other scale */
    snprintf(num[0], 32, "%d", a->lora.rank);
    snprintf(num[1], 32, "%.9g", (double)a->lora.alpha);
    snprintf(num[2], 32, "%.9g", (double)a->lora.dropout);
    snprintf(num[3], 32, "%d", a->n_layers);
    snprintf(num[4], 32, "%d", a->d_model);
    snprintf(num[5], 32, "%d", a->exit_layer);
    snprintf(num[6], 32, "%d", a->r);
    StMeta meta[] = {
        {"format", "pt"},           {"seqrep.adapter", a->has_lora ? "lora" : "none"},
        {"base_n_layers", num[3]},  {"base_d_model", num[4]},
        {"base_model_checksum", (char *)a->base_checksum},
        {"labels", labels},         {"exit_layer", num[5]},
        {"r", num[6]},              {"method", (char *)a->method},
        {"lora_rank", num[0]},      {"lora_alpha", num[1]},
        {"lora_dropout", num[2]},   {"lora_targets", targets},
    };
    int n_meta = a->has_lora ? 13 : 9;
    int rc = st_write(path, ts, n, meta, n_meta, err);
    free(list), free(ts), free(labels);
    return rc;
}

void adapter_free(AdapterFile *a)
{
    for (int i = 0; i < a->n_labels && a->labels; i++) free(a->labels[i]);
    free(a->labels), free(a->lora_w), free(a->head_W), free(a->head_b);
    memset(a, 0, sizeof *a);
}

/* The integer metadata value for key into *v; -1 (err names path) when it is
 * missing or not an integer. */
static int meta_int(const StFile *f, const char *path, const char *key, int *v, SrError *err)
{
    const char *s = st_meta(f, key);
    char *end = NULL;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end)
        return sr_fail(err, "%s: metadata '%s' is missing or not a number", path, key);
    *v = (int)x;
    return 0;
}

/* The float metadata value for key into *v (as meta_int); it must be a
 * finite float ("1e39" would be an infinite LoRA scale). */
static int meta_float(const StFile *f, const char *path, const char *key, float *v, SrError *err)
{
    const char *s = st_meta(f, key);
    char *end = NULL;
    double x = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || *end || !isfinite((float)x))
        return sr_fail(err, "%s: metadata '%s' is missing or not a finite number", path, key);
    *v = (float)x;
    return 0;
}

/* The metadata of f into a, checked against base (everything but tensors). */
static int read_meta(const char *path, const StFile *f, const Model *base, AdapterFile *a,
                     SrError *err)
{
    const char *kind = st_meta(f, "seqrep.adapter");
    if (!kind || (strcmp(kind, "lora") != 0 && strcmp(kind, "none") != 0))
        return sr_fail(err, "%s: not a seqrep adapter file (no metadata 'seqrep.adapter')", path);
    a->has_lora = strcmp(kind, "lora") == 0;
    if (meta_int(f, path, "base_n_layers", &a->n_layers, err) ||
        meta_int(f, path, "base_d_model", &a->d_model, err) ||
        meta_int(f, path, "exit_layer", &a->exit_layer, err) || meta_int(f, path, "r", &a->r, err))
        return -1;
    if (a->n_layers != base->cfg.n_layers || a->d_model != base->cfg.d_model)
        return sr_fail(err, "%s: made for a base model of %d layers of width %d, this one has "
                            "%d of %d",
                       path, a->n_layers, a->d_model, base->cfg.n_layers, base->cfg.d_model);
    const char *sum = st_meta(f, "base_model_checksum"), *method = st_meta(f, "method");
    char have[17];
    adapter_base_checksum(base, have);
    if (!sum || strcmp(sum, have) != 0)
        return sr_fail(err, "%s: made for another base model (checksum %s, this one's is %s)", path,
                       sum ? sum : "missing", have);
    snprintf(a->base_checksum, sizeof a->base_checksum, "%s", have);
    snprintf(a->method, sizeof a->method, "%s", method ? method : "");
    if (a->has_lora) {
        const char *targets = st_meta(f, "lora_targets");
        SrError e;
        if (meta_int(f, path, "lora_rank", &a->lora.rank, err) ||
            meta_float(f, path, "lora_alpha", &a->lora.alpha, err) ||
            meta_float(f, path, "lora_dropout", &a->lora.dropout, err))
            return -1;
        if (!targets || lora_parse_targets(targets, &a->lora.targets, &e) ||
            lora_config_check(&a->lora, a->d_model, &e))
            return sr_fail(err, "%s: bad LoRA metadata (%s)", path,
                           targets ? e.msg : "no lora_targets");
        a->q_dim = model_q_dim(&base->cfg);
        a->kv_dim = model_kv_dim(&base->cfg);
        a->n_lora = adapter_lora_floats_dims(&a->lora, a->n_layers, a->d_model, a->q_dim, a->kv_dim);
    }
    cJSON *labels = cJSON_Parse(st_meta(f, "labels") ? st_meta(f, "labels") : "");
    int n = cJSON_IsArray(labels) ? cJSON_GetArraySize(labels) : 0;
    a->labels = calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
    for (int i = 0; i < n && a->labels; i++) {
        const cJSON *it = cJSON_GetArrayItem(labels, i);
        a->labels[i] = cJSON_IsString(it) ? strdup(it->valuestring) : NULL;
        if (!a->labels[i]) n = -1;
        else a->n_labels = i + 1;
    }
    cJSON_Delete(labels);
    if (n < 1 || !a->labels)
        return sr_fail(err, "%s: metadata 'labels' is not a JSON array of tag names", path);
    return 0;
}

/* Check that f holds exactly the tensors of list[0..n), with their shapes,
 * and copy them into the buffers list points at. */
static int copy_tensors(const char *path, const StFile *f, const AdapterTensor *list, int n,
                        SrError *err)
{
    for (int i = 0; i < f->n_tensors; i++) {
        int known = 0;
        for (int j = 0; j < n && !known; j++) known = strcmp(list[j].name, f->tensors[i].name) == 0;
        if (!known) return sr_fail(err, "%s: unexpected tensor '%s'", path, f->tensors[i].name);
    }
    for (int j = 0; j < n; j++) {
        const StTensor *t = st_find(f, list[j].name);
        if (!t) return sr_fail(err, "%s: missing tensor '%s'", path, list[j].name);
        int same = t->dtype == ST_F32 && t->ndim == list[j].ndim &&
                   t->shape[0] == list[j].shape[0] &&
                   (t->ndim == 1 || t->shape[1] == list[j].shape[1]);
        if (!same && list[j].ndim == 1)
            return sr_fail(err, "%s: tensor '%s' is not F32 of shape (%lld)", path, list[j].name,
                           (long long)list[j].shape[0]);
        if (!same)
            return sr_fail(err, "%s: tensor '%s' is not F32 of shape (%lld, %lld)", path,
                           list[j].name, (long long)list[j].shape[0], (long long)list[j].shape[1]);
        memcpy(list[j].data, t->data, t->nbytes);
        if (finite_check_tensor(list[j].data, t->nbytes / sizeof(float), path, list[j].name, err))
            return -1;
    }
    return 0;
}

int adapter_read(const char *path, const Model *base, AdapterFile *a, SrError *err)
{
    memset(a, 0, sizeof *a);
    StFile f = {0};
    if (st_read(path, &f, err)) return -1;
    int rc = read_meta(path, &f, base, a, err);
    if (rc == 0) {
        size_t C = (size_t)a->d_model, K = (size_t)a->n_labels;
        a->head_W = malloc(sizeof(float) * K * C);
        a->head_b = malloc(sizeof(float) * K);
        a->lora_w = a->n_lora ? malloc(sizeof(float) * a->n_lora) : NULL;
        if (!a->head_W || !a->head_b || (a->n_lora && !a->lora_w))
            rc = sr_fail(err, "%s: out of memory", path);
    }
    int n = 0;
    AdapterTensor *list = rc == 0 ? list_tensors(a, &n) : NULL;
    if (rc == 0 && !list) rc = sr_fail(err, "%s: out of memory", path);
    if (rc == 0) rc = copy_tensors(path, &f, list, n, err);
    free(list);
    st_free(&f);
    if (rc) adapter_free(a);
    return rc;
}
