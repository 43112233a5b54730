/* checkpoint.c — a Model <-> Hugging Face Llama-named safetensors tensors,
 * plus the config, vocabulary and manifest as JSON metadata strings. */
#include "formats/checkpoint.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/finite.h"
#include "formats/hf/hf_folder_tokenizer.h"
#include "formats/hf/hf_model_folder.h"
#include "formats/safetensors.h"
#include "text/tokenizer.h"

/* One tensor of the file and where it lives in the model's parameter buffer. */
typedef struct {
    char name[96];
    int ndim;
    int64_t shape[2];
    float *data; /* rows of a view of Model.params */
} ParamTensor;

/* The list being filled: at most limit entries are kept. */
typedef struct {
    ParamTensor *t;
    int k, limit;
} ParamList;

/* Append a tensor named from fmt and the layer, of shape (rows, cols) or
 * (rows) when cols is 0, whose floats start offset floats into base (NULL
 * base: a list of names and shapes only, data NULL). */
static void add_param(ParamList *list, const char *fmt, int layer, int64_t rows, int64_t cols,
                      float *base, size_t offset)
{
    if (list->k >= list->limit) return;
    ParamTensor *slot = &list->t[list->k++];
    snprintf(slot->name, sizeof slot->name, fmt, layer);
    slot->ndim = cols > 0 ? 2 : 1;
    slot->shape[0] = rows;
    slot->shape[1] = cols;
    slot->data = base ? base + offset : NULL;
}

/* Append the file tensors of parameter id of layer l (its stack index k:
 * l, or l - repo_from for RePo's) to list, split into the row blocks the
 * table gives; v NULL: names and shapes only. */
static void add_param_parts(ParamList *list, const Dims *d, ParamId id, int l, int k, ParamViews *v)
{
    const ParamSpec *s = param_spec(id);
    size_t rows = dim_value(d, s->rows), cols = dim_value(d, s->cols);
    size_t at = (size_t)k * rows * cols;
    float *base = v ? *param_view(v, id) : NULL;
    for (int i = 0; i < 3 && s->file[i].name; i++) {
        size_t part = dim_value(d, s->file[i].rows);
        add_param(list, s->file[i].name, l, (int64_t)part, s->cols == DIM_ONE ? 0 : (int64_t)cols,
                  base, at);
        at += part * (s->cols == DIM_ONE ? 1 : cols);
    }
}

/* How many tensors the file of a model of config c holds. */
static int64_t param_tensor_count(const ModelConfig *c)
{
    int64_t n = 0;
    for (int id = 0; id < PARAM_COUNT; id++) {
        const ParamSpec *s = param_spec((ParamId)id);
        if (!tensor_present(c, s->has)) continue;
        int64_t parts = 0;
        while (parts < 3 && s->file[parts].name) parts++;
        int64_t stack = s->stack == DIM_L ? c->n_layers
                        : s->stack == DIM_R ? c->n_layers - c->repo_from : 1;
        n += parts * stack;
    }
    return n;
}

/* The first `limit` tensors (all, if fewer) the file holds for config c, in
 * file order (the embedding, layer by layer each tensor of the table that
 * the layer has, the final norm, an untied head), split out of the fused
 * views p; with p NULL only names and shapes (a check before any model
 * exists). Returns the count, or -1 when out of memory; the caller frees
 * *out. */
static int list_param_tensors(const ModelConfig *c, const ParamViews *p, int64_t limit,
                              ParamTensor **out)
{
    int64_t n = param_tensor_count(c);
    if (n > limit) n = limit;
    if (n > INT_MAX) n = INT_MAX; /* no real model; list_checked then fails */
    ParamList list = {.t = calloc((size_t)(n > 0 ? n : 1), sizeof *list.t), .k = 0, .limit = (int)n};
    if (!list.t) return -1;
    ParamViews v = p ? *p : (ParamViews){0};
    Dims d = tensor_dims(c, 0);
    add_param_parts(&list, &d, PARAM_WTE, 0, 0, p ? &v : NULL);
    for (int l = 0; l < c->n_layers && list.k < list.limit; l++)
        for (int id = 0; id < PARAM_COUNT; id++) {
            const ParamSpec *s = param_spec((ParamId)id);
            int repo = s->stack == DIM_R, from = c->repo ? c->repo_from : c->n_layers;
            if (s->stack == DIM_ONE || !tensor_present(c, s->has) || (repo && l < from)) continue;
            add_param_parts(&list, &d, (ParamId)id, l, repo ? l - from : l, p ? &v : NULL);
        }
    add_param_parts(&list, &d, PARAM_LNFW, 0, 0, p ? &v : NULL);
    if (tensor_present(c, HAS_UNTIED)) add_param_parts(&list, &d, PARAM_WLM, 0, 0, p ? &v : NULL);
    *out = list.t;
    return list.k;
}

/* Floats in one listed tensor. */
static size_t param_count(const ParamTensor *t)
{
    return (size_t)t->shape[0] * (size_t)(t->ndim == 2 ? t->shape[1] : 1);
}

/* The list for m, checked to cover exactly m->n_params floats (it would not
 * if model.h's layout changed under this file). */
static int list_checked(const char *path, const Model *m, ParamTensor **out, SrError *err)
{
    int n = list_param_tensors(&m->cfg, &m->p, INT64_MAX, out);
    if (n < 0) return sr_fail(err, "%s: out of memory", path);
    size_t total = 0;
    for (int i = 0; i < n; i++) total += param_count(&(*out)[i]);
    if (total != m->n_params) {
        free(*out);
        *out = NULL;
        return sr_fail(err, "%s: internal error: checkpoint tensors hold %zu floats, model %zu",
                       path, total, m->n_params);
    }
    return n;
}

/* "[a, b]" or "[a]" for messages. */
static void format_dims(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    if (ndim == 1) snprintf(buf, cap, "[%lld]", (long long)shape[0]);
    else if (ndim == 2) snprintf(buf, cap, "[%lld, %lld]", (long long)shape[0], (long long)shape[1]);
    else snprintf(buf, cap, "(%d dimensions)", ndim);
}

/* ---- config <-> JSON ----------------------------------------------------- */

/* Parse JSON text that must hold one value and nothing after it; NULL if not. */
static cJSON *parse_json(const char *text)
{
    return cJSON_ParseWithOpts(text, NULL, 1);
}

/* The shortest decimal text that reads back (through a double, as cJSON
 * reads numbers) as exactly v; whole numbers without an exponent ("10000"). */
static void format_float(char *buf, size_t cap, float v)
{
    if (fabsf(v) < 1e15f && v == truncf(v)) {
        snprintf(buf, cap, "%.0f", (double)v);
        return;
    }
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, cap, "%.*g", digits, (double)v);
        if ((float)strtod(buf, NULL) == v) return;
    }
}

/* The config as compact JSON text (caller frees), or NULL when out of memory. */
static char *config_to_json(const ModelConfig *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    char theta[32], eps[32];
    format_float(theta, sizeof theta, c->rope_theta);
    format_float(eps, sizeof eps, c->norm_eps);
    cJSON *nope = c->nope_layers ? cJSON_CreateArray() : NULL;
    for (int l = 0; nope && l < c->n_layers && l < 64; l++)
        if (c->nope_layers >> l & 1) cJSON_AddItemToArray(nope, cJSON_CreateNumber(l));
    int ok = cJSON_AddNumberToObject(o, "vocab_size", c->vocab_size) &&
             cJSON_AddNumberToObject(o, "d_model", c->d_model) &&
             cJSON_AddNumberToObject(o, "n_layers", c->n_layers) &&
             cJSON_AddNumberToObject(o, "n_heads", c->n_heads) &&
             cJSON_AddNumberToObject(o, "d_ff", c->d_ff) &&
             cJSON_AddNumberToObject(o, "max_seq_len", c->max_seq_len) &&
             cJSON_AddRawToObject(o, "rope_theta", theta) &&
             cJSON_AddRawToObject(o, "norm_eps", eps) &&
             cJSON_AddBoolToObject(o, "tied", c->tied != 0) &&
             (!c->repo || cJSON_AddNumberToObject(o, "repo_from", c->repo_from)) &&
             (!nope || cJSON_AddItemToObject(o, "nope_layers", nope));
    if (!ok && nope && !cJSON_GetObjectItemCaseSensitive(o, "nope_layers")) cJSON_Delete(nope);
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

/* An integer field of the config object into *v. */
static int config_int(const char *path, const cJSON *o, const char *key, int *v, SrError *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!item) return sr_fail(err, "%s: seqrep.config: missing field '%s'", path, key);
    double d = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!(d >= INT_MIN && d <= INT_MAX) || d != floor(d))
        return sr_fail(err, "%s: seqrep.config: '%s' must be an integer", path, key);
    *v = (int)d;
    return 0;
}

/* A real-valued field of the config object into *v. */
static int config_float(const char *path, const cJSON *o, const char *key, float *v,
                        SrError *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!item) return sr_fail(err, "%s: seqrep.config: missing field '%s'", path, key);
    if (!cJSON_IsNumber(item) || !isfinite((float)item->valuedouble))
        return sr_fail(err, "%s: seqrep.config: '%s' must be a finite number", path, key);
    *v = (float)item->valuedouble;
    return 0;
}

/* Parse and check the "seqrep.config" text. */
static int config_from_json(const char *path, const char *text, ModelConfig *c, SrError *err)
{
    if (!text)
        return sr_fail(err, "%s: no seqrep.config metadata (not a seqrep checkpoint?)", path);
    cJSON *o = parse_json(text);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return sr_fail(err, "%s: seqrep.config is not a JSON object", path);
    }
    memset(c, 0, sizeof *c);
    int rc = config_int(path, o, "vocab_size", &c->vocab_size, err);
    if (rc == 0) rc = config_int(path, o, "d_model", &c->d_model, err);
    if (rc == 0) rc = config_int(path, o, "n_layers", &c->n_layers, err);
    if (rc == 0) rc = config_int(path, o, "n_heads", &c->n_heads, err);
    if (rc == 0) rc = config_int(path, o, "d_ff", &c->d_ff, err);
    if (rc == 0) rc = config_int(path, o, "max_seq_len", &c->max_seq_len, err);
    if (rc == 0) rc = config_float(path, o, "rope_theta", &c->rope_theta, err);
    if (rc == 0) rc = config_float(path, o, "norm_eps", &c->norm_eps, err);
    if (rc == 0) {
        const cJSON *tied = cJSON_GetObjectItemCaseSensitive(o, "tied");
        if (cJSON_IsBool(tied)) c->tied = cJSON_IsTrue(tied);
        else if (config_int(path, o, "tied", &c->tied, err)) rc = -1;
    }
    /* RePo layers are optional: a config without "repo_from" has none */
    if (rc == 0 && cJSON_GetObjectItemCaseSensitive(o, "repo_from")) {
        c->repo = 1;
        rc = config_int(path, o, "repo_from", &c->repo_from, err);
    }
    /* layers without rotation are optional too: "nope_layers": [1, 3] */
    const cJSON *nope = rc == 0 ? cJSON_GetObjectItemCaseSensitive(o, "nope_layers") : NULL;
    if (nope && !cJSON_IsArray(nope)) rc = sr_fail(err, "%s: seqrep.config: 'nope_layers' must be a list of layers", path);
    for (const cJSON *item = nope ? nope->child : NULL; item && rc == 0; item = item->next) {
        double v = cJSON_IsNumber(item) ? item->valuedouble : -1;
        if (!(v >= 0 && v < 64) || v != floor(v))
            rc = sr_fail(err, "%s: seqrep.config: 'nope_layers' must hold layer numbers 0..63", path);
        else c->nope_layers |= 1ULL << (int)v;
    }
    cJSON_Delete(o);
    if (rc) return -1;
    SrError why;
    if (model_config_check(c, &why)) return sr_fail(err, "%s: seqrep.config: %s", path, why.msg);
    return 0;
}

/* ---- info ------------------------------------------------------------------ */

void checkpoint_info_free(CheckpointInfo *info)
{
    if (!info) return;
    for (int i = 0; i < info->n_vocab; i++) free(info->vocab[i]);
    free(info->vocab);
    free(info->manifest_json);
    memset(info, 0, sizeof *info);
}

/* Parse "seqrep.vocab" (a JSON array of vocab_size strings) into info. */
static int vocab_from_json(const char *path, const char *text, CheckpointInfo *info,
                           SrError *err)
{
    if (!text) return sr_fail(err, "%s: no seqrep.vocab metadata", path);
    cJSON *a = parse_json(text);
    if (!cJSON_IsArray(a)) {
        cJSON_Delete(a);
        return sr_fail(err, "%s: seqrep.vocab is not a JSON array", path);
    }
    int n = cJSON_GetArraySize(a);
    int rc = 0;
    if (n != info->cfg.vocab_size)
        rc = sr_fail(err, "%s: seqrep.vocab has %d words but seqrep.config says vocab_size %d",
                     path, n, info->cfg.vocab_size);
    if (rc == 0) {
        info->vocab = calloc((size_t)n, sizeof *info->vocab);
        if (!info->vocab) rc = sr_fail(err, "%s: out of memory", path);
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, a) {
        if (rc) break;
        if (!cJSON_IsString(w)) {
            rc = sr_fail(err, "%s: seqrep.vocab entry %d is not a string", path, info->n_vocab);
            break;
        }
        info->vocab[info->n_vocab] = strdup(w->valuestring);
        if (!info->vocab[info->n_vocab]) rc = sr_fail(err, "%s: out of memory", path);
        else info->n_vocab++;
    }
    cJSON_Delete(a);
    return rc;
}

/* 1 if text is a JSON object. */
static int is_json_object(const char *text)
{
    cJSON *o = parse_json(text);
    int ok = cJSON_IsObject(o);
    cJSON_Delete(o);
    return ok;
}

/* Config, vocabulary and manifest of an already read file. */
static int info_from_file(const char *path, const StFile *f, CheckpointInfo *info, SrError *err)
{
    memset(info, 0, sizeof *info);
    if (config_from_json(path, st_meta(f, "seqrep.config"), &info->cfg, err)) return -1;
    if (vocab_from_json(path, st_meta(f, "seqrep.vocab"), info, err)) {
        checkpoint_info_free(info);
        return -1;
    }
    const char *manifest = st_meta(f, "seqrep.manifest");
    if (manifest && !is_json_object(manifest)) {
        checkpoint_info_free(info);
        return sr_fail(err, "%s: seqrep.manifest is not a JSON object", path);
    }
    info->manifest_json = strdup(manifest ? manifest : "{}");
    if (!info->manifest_json) {
        checkpoint_info_free(info);
        return sr_fail(err, "%s: out of memory", path);
    }
    return 0;
}

/* A Hugging Face folder's description: its config, no vocabulary (that is
 * the tokenizer's), and hf_config_manifest as the manifest. */
static int hf_info(const HfConfig *hc, CheckpointInfo *info, SrError *err)
{
    memset(info, 0, sizeof *info);
    info->cfg = hc->cfg;
    info->manifest_json = hf_config_manifest(hc);
    return info->manifest_json ? 0 : sr_fail(err, "out of memory");
}

int checkpoint_read_info(const char *path, CheckpointInfo *info, SrError *err)
{
    memset(info, 0, sizeof *info);
    if (hf_is_model_dir(path)) { /* a Hugging Face model folder */
        HfConfig hc;
        return hf_config_read(path, &hc, err) ? -1 : hf_info(&hc, info, err);
    }
    StFile f;
    if (st_read(path, &f, err)) return -1;
    int rc = info_from_file(path, &f, info, err);
    st_free(&f);
    return rc;
}

/* ---- save and load ----------------------------------------------------------- */

int checkpoint_save(const char *path, const Model *m, const char *const *vocab, int n_vocab,
                    const char *manifest_json, SrError *err)
{
    const ModelConfig *c = &m->cfg;
    SrError why;
    if (model_config_check(c, &why)) return sr_fail(err, "%s: bad model config: %s", path, why.msg);
    if (model_hf_features(c))
        return sr_fail(err, "%s: saving a Hugging Face architecture as a seqrep checkpoint is not "
                       "supported", path);
    if (!isfinite(c->rope_theta) || !isfinite(c->norm_eps))
        return sr_fail(err, "%s: bad model config: rope_theta and norm_eps must be finite", path);
    if (n_vocab != c->vocab_size)
        return sr_fail(err, "%s: %d vocabulary words for a model with vocab_size %d", path,
                       n_vocab, c->vocab_size);
    for (int i = 0; i < n_vocab; i++)
        if (!vocab[i]) return sr_fail(err, "%s: vocabulary word %d is missing", path, i);
    if (!manifest_json) manifest_json = "{}";
    if (!is_json_object(manifest_json))
        return sr_fail(err, "%s: the manifest is not a JSON object", path);

    ParamTensor *params = NULL;
    int n = list_checked(path, m, &params, err);
    if (n < 0) return -1;
    StTensor *tensors = calloc((size_t)n, sizeof *tensors);
    char *config = config_to_json(c);
    cJSON *words = cJSON_CreateStringArray(vocab, n_vocab);
    char *vocab_json = words ? cJSON_PrintUnformatted(words) : NULL;
    cJSON_Delete(words);

    int rc;
    if (!tensors || !config || !vocab_json) {
        rc = sr_fail(err, "%s: out of memory", path);
    } else {
        for (int i = 0; i < n; i++) {
            StTensor *t = &tensors[i];
            t->name = params[i].name;
            t->dtype = ST_F32;
            t->ndim = params[i].ndim;
            t->shape[0] = params[i].shape[0];
            t->shape[1] = params[i].shape[1];
            t->data = params[i].data;
            t->nbytes = param_count(&params[i]) * sizeof(float);
        }
        StMeta meta[4] = {
            {"format", "pt"},
            {"seqrep.config", config},
            {"seqrep.vocab", vocab_json},
            {"seqrep.manifest", (char *)manifest_json},
        };
        rc = st_write(path, tensors, n, meta, 4, err);
    }
    free(vocab_json);
    free(config);
    free(tensors);
    free(params);
    return rc;
}

/* Check that the file holds exactly the tensors config c lists, with the
 * listed shapes, before a model is made: a small file whose config claims a
 * huge model must not allocate it first (a fuzz_checkpoint input: n_layers
 * 10^9 asked for terabytes). When the config lists more tensors than the
 * file has, one is missing among the first n_tensors + 1 listed, so only
 * those are listed (and none is reported unexpected). */
static int check_tensors(const char *path, const StFile *f, const ModelConfig *c, SrError *err)
{
    int all = param_tensor_count(c) <= f->n_tensors;
    ParamTensor *params = NULL;
    int n = list_param_tensors(c, NULL, (int64_t)f->n_tensors + 1, &params);
    if (n < 0) return sr_fail(err, "%s: out of memory", path);
    int rc = 0;
    for (int i = 0; i < f->n_tensors && rc == 0 && all; i++) {
        const char *name = f->tensors[i].name;
        int known = 0;
        for (int j = 0; j < n && !known; j++) known = strcmp(params[j].name, name) == 0;
        if (!known)
            rc = sr_fail(err, "%s: unexpected tensor '%s'%s", path, name,
                         c->tied && strcmp(name, "lm_head.weight") == 0
                             ? " (seqrep.config says the LM head is tied to the embedding)"
                             : "");
    }
    for (int j = 0; j < n && rc == 0; j++) {
        const ParamTensor *want = &params[j];
        const StTensor *t = st_find(f, want->name);
        if (!t) {
            rc = sr_fail(err, "%s: missing tensor '%s'", path, want->name);
            break;
        }
        if (t->dtype != ST_F32) {
            rc = sr_fail(err, "%s: tensor '%s' is I32, expected F32", path, want->name);
            break;
        }
        int same = t->ndim == want->ndim;
        for (int d = 0; same && d < t->ndim; d++) same = t->shape[d] == want->shape[d];
        if (!same) {
            char got[64], expected[64];
            format_dims(got, sizeof got, t->ndim, t->shape);
            format_dims(expected, sizeof expected, want->ndim, want->shape);
            rc = sr_fail(err, "%s: tensor '%s' has shape %s, but seqrep.config needs %s", path,
                         want->name, got, expected);
            break;
        }
    }
    free(params);
    return rc;
}

/* Copy the tensors of f (checked by check_tensors) into m's parameters;
 * fail, naming the tensor, on a weight that is not finite. */
static int copy_weights(const char *path, const StFile *f, Model *m, SrError *err)
{
    ParamTensor *params = NULL;
    int n = list_checked(path, m, &params, err);
    if (n < 0) return -1;
    int rc = 0;
    for (int j = 0; j < n && rc == 0; j++) {
        const StTensor *t = st_find(f, params[j].name);
        memcpy(params[j].data, t->data, t->nbytes);
        rc = finite_check_tensor(params[j].data, param_count(&params[j]), path, params[j].name, err);
    }
    free(params);
    return rc;
}

/* checkpoint_load and checkpoint_load_trainable: a Hugging Face folder's
 * BF16 / F16 matrices kept as stored when keep_stored. */
static int load(const char *path, Model *m, int max_batch, int max_T, CheckpointInfo *info,
                int keep_stored, SrError *err)
{
    memset(m, 0, sizeof *m);
    CheckpointInfo local;
    CheckpointInfo *ci = info ? info : &local;
    memset(ci, 0, sizeof *ci);
    if (hf_is_model_dir(path)) { /* a Hugging Face model folder */
        HfConfig hc;
        if (hf_model_load(path, m, max_batch, max_T, &hc, keep_stored, err)) return -1;
        if (info && hf_info(&hc, info, err)) {
            model_free(m);
            return -1;
        }
        return 0;
    }

    StFile f;
    if (st_read(path, &f, err)) return -1;
    int rc = info_from_file(path, &f, ci, err);
    if (rc == 0) rc = check_tensors(path, &f, &ci->cfg, err);
    if (rc == 0) {
        SrError why;
        if (model_create(m, &ci->cfg, max_batch, max_T, &why))
            rc = sr_fail(err, "%s: %s", path, why.msg);
        else rc = copy_weights(path, &f, m, err);
        if (rc) model_free(m);
    }
    st_free(&f);
    if (rc || !info) checkpoint_info_free(ci);
    return rc;
}

int checkpoint_load(const char *path, Model *m, int max_batch, int max_T, CheckpointInfo *info,
                    SrError *err)
{
    return load(path, m, max_batch, max_T, info, 1, err);
}

int checkpoint_load_trainable(const char *path, Model *m, int max_batch, int max_T,
                              CheckpointInfo *info, SrError *err)
{
    return load(path, m, max_batch, max_T, info, 0, err);
}

int checkpoint_tokenizer(const CheckpointInfo *info, const char *path, Tokenizer *tok,
                         SrError *err)
{
    if (hf_is_model_dir(path)) return hf_load_tokenizer(path, info->cfg.vocab_size, tok, err);
    cJSON *manifest = cJSON_Parse(info->manifest_json ? info->manifest_json : "{}");
    int lowercase = cJSON_IsTrue(cJSON_GetObjectItem(manifest, "lowercase"));
    const cJSON *kind = cJSON_GetObjectItem(manifest, "tokenizer");
    int subword = cJSON_IsString(kind) && strcmp(kind->valuestring, "bpe") == 0;
    cJSON_Delete(manifest);
    if (tokenizer_from_words_in(tok, (const char *const *)info->vocab, info->n_vocab, lowercase,
                                path, err))
        return -1;
    tokenizer_set_subword(tok, subword);
    return 0;
}
