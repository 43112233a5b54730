/* hf_model_folder.c — Hugging Face safetensors weights -> the Model's float32
 * parameters, tensor by tensor through short-lived memory maps (see
 * hf_model_folder.h). */
#include "formats/hf/hf_model_folder.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text_file.h"
#include "engine/serving/model_stored.h"
#include "formats/hf/hf_mapped.h"

/* Elements of a tensor mapped and converted at a time (16 Mi: 32 MiB of
 * BF16, 64 MiB of F32). */
enum { MAP_WINDOW_ELEMENTS = 16 * 1024 * 1024 };

/* One tensor the folder must hold, where it goes, and whether it was read;
 * a tensor kept as stored (view.dest NULL) records where its bytes are: file
 * index `file` of the folder's list, at byte `at`. */
typedef struct {
    HfTensorView view;
    int found;
    int file;
    size_t at;
} Want;

/* Append a tensor view (name from fmt and layer; cols 0 = a vector). */
static void want(HfTensorView *w, int *n, const char *fmt, int layer, int64_t rows, int64_t cols,
                 float *dest)
{
    HfTensorView *e = &w[(*n)++];
    snprintf(e->name, sizeof e->name, fmt, layer);
    e->ndim = cols ? 2 : 1;
    e->shape[0] = rows;
    e->shape[1] = cols;
    e->dest = dest;
    e->offset = 0.0f;
}

/* Append a norm's weight view: held as 1 + w when the configuration says so. */
static void want_norm(const ModelConfig *c, HfTensorView *w, int *n, const char *fmt, int layer,
                      int64_t size, float *dest)
{
    want(w, n, fmt, layer, size, 0, dest);
    w[*n - 1].offset = c->family.norm_plus_one ? 1.0f : 0.0f;
}

/* Every tensor of m's configuration, in file order, pointing into p (see
 * hf_model_folder.h); returns the count. */
/* base + offset floats, or NULL for a view the model keeps out of params
 * (StoredMatrices). */
static float *at_offset(float *base, int64_t offset)
{
    return base ? base + offset : NULL;
}

int hf_tensor_views(const Model *m, const ParamViews *p, HfTensorView *w)
{
    const ModelConfig *c = &m->cfg;
    const int64_t V = c->vocab_size, C = c->d_model, F = c->d_ff, hd = model_head_dim(c);
    const int64_t Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    const int L = c->n_layers;
    int count = 0, *n = &count;
    want(w, n, "model.embed_tokens.weight", 0, V, C, p->wte);
    for (int l = 0; l < L; l++) {
        float *qkv = at_offset(p->wqkv, l * W * C), *gu = at_offset(p->wgu, l * 2 * F * C);
        want_norm(c, w, n, "model.layers.%d.input_layernorm.weight", l, C, p->ln1w + l * C);
        want(w, n, "model.layers.%d.self_attn.q_proj.weight", l, Q, C, qkv);
        want(w, n, "model.layers.%d.self_attn.k_proj.weight", l, K, C, at_offset(qkv, Q * C));
        want(w, n, "model.layers.%d.self_attn.v_proj.weight", l, K, C, at_offset(qkv, (Q + K) * C));
        if (c->family.qkv_bias) {
            float *b = p->family.bqkv + (size_t)(l * W);
            want(w, n, "model.layers.%d.self_attn.q_proj.bias", l, Q, 0, b);
            want(w, n, "model.layers.%d.self_attn.k_proj.bias", l, K, 0, b + Q);
            want(w, n, "model.layers.%d.self_attn.v_proj.bias", l, K, 0, b + Q + K);
        }
        if (c->family.qk_norm) {
            want_norm(c, w, n, "model.layers.%d.self_attn.q_norm.weight", l, hd, p->family.qnw + l * hd);
            want_norm(c, w, n, "model.layers.%d.self_attn.k_norm.weight", l, hd, p->family.knw + l * hd);
        }
        want(w, n, "model.layers.%d.self_attn.o_proj.weight", l, C, Q, at_offset(p->wo, l * C * Q));
        if (c->family.post_norms) {
            want_norm(c, w, n, "model.layers.%d.post_attention_layernorm.weight", l, C,
                      p->family.panw + l * C);
            want_norm(c, w, n, "model.layers.%d.pre_feedforward_layernorm.weight", l, C,
                      p->ln2w + l * C);
            want_norm(c, w, n, "model.layers.%d.post_feedforward_layernorm.weight", l, C,
                      p->family.pfnw + l * C);
        } else {
            want_norm(c, w, n, "model.layers.%d.post_attention_layernorm.weight", l, C,
                      p->ln2w + l * C);
        }
        want(w, n, "model.layers.%d.mlp.gate_proj.weight", l, F, C, gu);
        want(w, n, "model.layers.%d.mlp.up_proj.weight", l, F, C, at_offset(gu, F * C));
        want(w, n, "model.layers.%d.mlp.down_proj.weight", l, C, F, at_offset(p->wdown, l * C * F));
    }
    want_norm(c, w, n, "model.norm.weight", 0, C, p->lnfw);
    if (!c->tied) want(w, n, "lm_head.weight", 0, V, C, p->wlm);
    return count;
}

/* Every tensor m needs, in Hugging Face names, pointing into m->p (caller
 * frees); count in *n. */
static Want *wanted_tensors(Model *m, int *n)
{
    HfTensorView *views = calloc((size_t)HF_MAX_TENSORS(m->cfg.n_layers), sizeof *views);
    Want *w = calloc((size_t)HF_MAX_TENSORS(m->cfg.n_layers), sizeof *w);
    if (!views || !w) {
        free(views), free(w);
        return NULL;
    }
    *n = hf_tensor_views(m, &m->p, views);
    for (int i = 0; i < *n; i++) w[i].view = views[i];
    free(views);
    return w;
}

/* ---- element conversion ------------------------------------------------------ */

/* dest (n) = the n stored elements at src of the given dtype (4 = F32, 2 =
 * BF16, 1 = F16), plus offset (HfTensorView.offset). */
static void convert(float *dest, const unsigned char *src, size_t n, int dtype, float offset)
{
    if (dtype == 4) {
        memcpy(dest, src, n * sizeof(float));
    } else {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            dest[i] = dtype == 2 ? stored_bf16_to_f32(h) : stored_f16_to_f32(h);
        }
    }
    if (offset != 0.0f)
        for (size_t i = 0; i < n; i++) dest[i] += offset;
}

/* ---- one safetensors file ---------------------------------------------------- */

/* The header JSON of the open file fd (size bytes) at path; *data_start is
 * where the tensor bytes begin. NULL after the error. */
static cJSON *read_header(int fd, const char *path, off_t size, off_t *data_start, SrError *err)
{
    unsigned char len8[8];
    if (size < 8 || pread(fd, len8, 8, 0) != 8)
        return sr_fail(err, "%s: truncated (no header length)", path), NULL;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | len8[i];
    if (n > (uint64_t)size - 8 || n > 100000000)
        return sr_fail(err, "%s: header length %llu past the end of the file", path,
                       (unsigned long long)n), NULL;
    char *text = malloc(n + 1);
    if (!text) return sr_fail(err, "%s: out of memory", path), NULL;
    if (pread(fd, text, n, 8) != (ssize_t)n) {
        free(text);
        return sr_fail(err, "%s: read error", path), NULL;
    }
    text[n] = 0;
    cJSON *h = cJSON_ParseWithOpts(text, NULL, 0);
    free(text);
    if (!cJSON_IsObject(h)) {
        cJSON_Delete(h);
        return sr_fail(err, "%s: the header is not a JSON object", path), NULL;
    }
    *data_start = (off_t)(8 + n);
    return h;
}

/* Bytes per element of a dtype name we convert (4 F32, 2 BF16, 1 = F16 marker), 0 if none. */
static int dtype_code(const char *name)
{
    if (strcmp(name, "F32") == 0) return 4;
    if (strcmp(name, "BF16") == 0) return 2;
    if (strcmp(name, "F16") == 0) return 1;
    return 0;
}

/* "[a, b]" or "[a]" for messages. */
static void dims_text(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    if (ndim == 1) snprintf(buf, cap, "[%lld]", (long long)shape[0]);
    else if (ndim == 2) snprintf(buf, cap, "[%lld, %lld]", (long long)shape[0], (long long)shape[1]);
    else snprintf(buf, cap, "(%d dimensions)", ndim);
}

/* Check one header entry against what is wanted and convert its bytes from a
 * map of just its range. */
static int load_tensor(int fd, const char *path, off_t size, off_t data_start, const cJSON *t,
                       Want *w, int *folder_dtype, SrError *err)
{
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
    if (!cJSON_IsString(dt) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs) ||
        cJSON_GetArraySize(offs) != 2)
        return sr_fail(err, "%s: tensor '%s' has a malformed header entry", path, t->string);
    int code = dtype_code(dt->valuestring);
    if (!code)
        return sr_fail(err, "%s: tensor '%s' has dtype %s (F32, BF16 or F16 expected)", path,
                       t->string, dt->valuestring);
    if (*folder_dtype && code != *folder_dtype)
        return sr_fail(err, "%s: tensor '%s' has dtype %s, but the folder's other tensors have %s",
                       path, t->string, dt->valuestring,
                       *folder_dtype == 4 ? "F32" : *folder_dtype == 2 ? "BF16" : "F16");
    *folder_dtype = code;
    int ndim = cJSON_GetArraySize(shape);
    int64_t dims[2] = {0, 0};
    int same = ndim == w->view.ndim;
    for (int d = 0; d < ndim && d < 2; d++) dims[d] = (int64_t)cJSON_GetArrayItem(shape, d)->valuedouble;
    for (int d = 0; same && d < ndim; d++) same = dims[d] == w->view.shape[d];
    if (!same) {
        char got[64], need[64];
        dims_text(got, sizeof got, ndim, dims);
        dims_text(need, sizeof need, w->view.ndim, w->view.shape);
        return sr_fail(err, "%s: tensor '%s' has shape %s, but config.json needs %s", path,
                       t->string, got, need);
    }
    size_t count = (size_t)w->view.shape[0] * (size_t)(w->view.ndim == 2 ? w->view.shape[1] : 1);
    size_t elem = code == 4 ? 4 : 2;
    double begin = cJSON_GetArrayItem(offs, 0)->valuedouble, end = cJSON_GetArrayItem(offs, 1)->valuedouble;
    if (!(begin >= 0 && end - begin == (double)(count * elem)))
        return sr_fail(err, "%s: tensor '%s' has data_offsets that do not fit its shape", path,
                       t->string);
    if (data_start + end > (double)size)
        return sr_fail(err, "%s: truncated: tensor '%s' ends at byte %.0f, the file has %lld",
                       path, t->string, (double)data_start + end, (long long)size);
    off_t at = data_start + (off_t)begin;
    w->at = (size_t)at;
    w->found = 1;
    if (!w->view.dest) return 0; /* kept as stored: hf_mapped points at it */
    /* map and convert the tensor a window at a time, so that no more than
     * one window of the file is resident beside the float32 weights */
    long page = sysconf(_SC_PAGESIZE);
    size_t done = 0;
    do {
        size_t n = count - done < MAP_WINDOW_ELEMENTS ? count - done : MAP_WINDOW_ELEMENTS;
        off_t from = at + (off_t)(done * elem);
        off_t map_at = from - from % page;
        size_t map_len = (size_t)(from - map_at) + n * elem;
        void *map = mmap(NULL, map_len ? map_len : 1, PROT_READ, MAP_PRIVATE, fd, map_at);
        if (map == MAP_FAILED)
            return sr_fail(err, "%s: cannot map tensor '%s' (%s)", path, t->string, strerror(errno));
        convert(w->view.dest + done, (const unsigned char *)map + (from - map_at), n, code,
                w->view.offset);
        munmap(map, map_len ? map_len : 1);
        done += n;
    } while (done < count);
    w->found = 1;
    return 0;
}

/* The wanted entry called name, or NULL. */
static Want *find_want(Want *w, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(w[i].view.name, name) == 0) return &w[i];
    return NULL;
}

/* 1 if name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
    size_t a = strlen(name), b = strlen(suffix);
    return a >= b && strcmp(name + a - b, suffix) == 0;
}

/* Load every tensor of one safetensors file (index `file` of the folder's
 * list) into the wanted slots. */
static int load_file(const char *path, int file, Want *w, int n, int tied, int *folder_dtype,
                     SrError *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return sr_fail(err, "%s: cannot open (%s)", path, strerror(errno));
    struct stat st;
    off_t data_start = 0;
    cJSON *h = fstat(fd, &st) == 0 ? read_header(fd, path, st.st_size, &data_start, err)
                                   : (sr_fail(err, "%s: cannot stat", path), NULL);
    int rc = h ? 0 : -1;
    for (const cJSON *t = h ? h->child : NULL; t && rc == 0; t = t->next) {
        if (strcmp(t->string, "__metadata__") == 0 || ends_with(t->string, "rotary_emb.inv_freq"))
            continue;
        if (tied && strcmp(t->string, "lm_head.weight") == 0) continue; /* the embedding serves */
        Want *slot = find_want(w, n, t->string);
        if (!slot) rc = sr_fail(err, "%s: unexpected tensor '%s' for this config.json", path, t->string);
        else if (slot->found) rc = sr_fail(err, "%s: tensor '%s' appears twice", path, t->string);
        else slot->file = file,
             rc = load_tensor(fd, path, st.st_size, data_start, t, slot, folder_dtype, err);
    }
    cJSON_Delete(h);
    close(fd);
    return rc;
}

/* ---- the folder ------------------------------------------------------------ */

/* The shard files the index names (*files, n_files; caller frees each and
 * the array). The weight_map must name a string file for every tensor. */
static int read_index(const char *dir, const char *index, char ***files, int *n_files,
                      SrError *err)
{
    char *text = NULL;
    size_t len;
    *files = NULL;
    *n_files = 0;
    if (text_read_file(index, &text, &len, err)) return -1;
    cJSON *o = cJSON_ParseWithOpts(text, NULL, 1);
    free(text);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(o, "weight_map");
    if (!cJSON_IsObject(map)) {
        cJSON_Delete(o);
        return sr_fail(err, "%s: no 'weight_map' object", index);
    }
    int count = cJSON_GetArraySize(map), rc = 0;
    char **out = calloc((size_t)count + 1, sizeof *out);
    for (const cJSON *e = map->child; e && rc == 0 && out; e = e->next) {
        if (!cJSON_IsString(e) || strchr(e->valuestring, '/')) {
            rc = sr_fail(err, "%s: weight_map entry '%s' must name a file of the folder", index, e->string);
            break;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->valuestring);
        int seen = 0;
        for (int i = 0; i < *n_files && !seen; i++) seen = strcmp(out[i], path) == 0;
        if (seen) continue;
        if (access(path, R_OK) != 0)
            rc = sr_fail(err, "%s: shard '%s' (holding '%s') is missing", index, e->valuestring, e->string);
        else if (!(out[(*n_files)++] = strdup(path)))
            rc = sr_fail(err, "%s: out of memory", index);
    }
    if (!out) rc = sr_fail(err, "%s: out of memory", index);
    cJSON_Delete(o);
    *files = out;
    return rc;
}

/* Free a list of n paths. */
static void free_paths(char **files, int n)
{
    for (int i = 0; i < n; i++) free(files[i]);
    free(files);
}

/* A folder's safetensors files: model.safetensors, or the shards its index
 * names; listed_in is the file a missing tensor is reported against. */
typedef struct {
    char **files;
    int n_files;
    char listed_in[4096];
} FolderFiles;

/* Find dir's files into *ff (free with free_paths(ff->files, ff->n_files)). */
static int folder_files(const char *dir, FolderFiles *ff, SrError *err)
{
    char single[4096], index[4096];
    snprintf(single, sizeof single, "%s/model.safetensors", dir);
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    memset(ff, 0, sizeof *ff);
    snprintf(ff->listed_in, sizeof ff->listed_in, "%s", single);
    if (access(index, F_OK) == 0) {
        snprintf(ff->listed_in, sizeof ff->listed_in, "%s", index);
        return read_index(dir, index, &ff->files, &ff->n_files, err);
    }
    if (access(single, F_OK) != 0)
        return sr_fail(err, "%s: no model.safetensors or model.safetensors.index.json", dir);
    ff->files = calloc(1, sizeof *ff->files);
    if (!ff->files || !(ff->files[0] = strdup(single))) return sr_fail(err, "%s: out of memory", dir);
    ff->n_files = 1;
    return 0;
}

/* The type the folder's first file stores its first tensor in: BF16 or
 * F16 (the big matrices can stay as stored), else F32 (also when the file
 * cannot be read: loading it reports why). */
static StoredType folder_type(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return STORED_F32;
    struct stat st;
    off_t data_start;
    SrError ignored;
    cJSON *h = fstat(fd, &st) == 0 ? read_header(fd, path, st.st_size, &data_start, &ignored) : NULL;
    close(fd);
    StoredType t = STORED_F32;
    for (const cJSON *e = h ? h->child : NULL; e; e = e->next) {
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
        if (strcmp(e->string, "__metadata__") == 0 || !cJSON_IsString(dt)) continue;
        t = strcmp(dt->valuestring, "BF16") == 0 ? STORED_BF16
            : strcmp(dt->valuestring, "F16") == 0 ? STORED_F16 : STORED_F32;
        break;
    }
    cJSON_Delete(h);
    return t;
}

/* Map the folder's files for m's stored matrices and point them at the
 * places load_file recorded (w, n wanted tensors). */
static int point_stored(const FolderFiles *ff, Model *m, const Want *w, int n, SrError *err)
{
    StoredMatrices *stored = model_stored_matrices(m);
    for (int i = 0; i < ff->n_files; i++)
        if (hf_mapped_map(stored, i, ff->files[i], err)) return -1;
    for (int i = 0; i < n; i++)
        if (!w[i].view.dest && hf_mapped_point(stored, w[i].view.name, w[i].file, w[i].at))
            return sr_fail(err, "%s: tensor '%s' cannot stay as stored", ff->listed_in,
                           w[i].view.name);
    if (!hf_mapped_complete(stored, &m->cfg))
        return sr_fail(err, "%s: a matrix of the model was not found", ff->listed_in);
    return 0;
}

/* Load the weights of the folder's files ff into m: converted into its
 * float32 parameters, or, for m's stored matrices, validated and mapped. */
static int load_weights(const FolderFiles *ff, Model *m, SrError *err)
{
    int n = 0, folder_dtype = 0, rc = 0;
    Want *w = wanted_tensors(m, &n);
    if (!w) return sr_fail(err, "%s: out of memory", ff->listed_in);
    for (int i = 0; i < ff->n_files && rc == 0; i++)
        rc = load_file(ff->files[i], i, w, n, m->cfg.tied, &folder_dtype, err);
    for (int i = 0; i < n && rc == 0; i++)
        if (!w[i].found) rc = sr_fail(err, "%s: missing tensor '%s'", ff->listed_in, w[i].view.name);
    if (rc == 0 && model_stored_matrices(m)) rc = point_stored(ff, m, w, n, err);
    free(w);
    return rc;
}

int hf_model_load(const char *dir, Model *m, int max_batch, int max_T, HfConfig *hc,
                  int keep_stored, SrError *err)
{
    memset(m, 0, sizeof *m);
    HfConfig local;
    if (!hc) hc = &local;
    if (hf_config_read(dir, hc, err)) return -1;
    FolderFiles ff;
    if (folder_files(dir, &ff, err)) {
        free_paths(ff.files, ff.n_files);
        return -1;
    }
    StoredType type = keep_stored ? folder_type(ff.files[0]) : STORED_F32;
    SrError why;
    int rc = 0;
    if (type != STORED_F32) {
        StoredMatrices *stored = hf_mapped_new(&hc->cfg, type, ff.n_files);
        if (!stored) rc = sr_fail(err, "%s: out of memory", dir);
        else if (model_create_stored(m, &hc->cfg, stored, max_batch, max_T, &why))
            rc = sr_fail(err, "%s: %s", dir, why.msg);
    } else if (model_create(m, &hc->cfg, max_batch, max_T, &why)) {
        rc = sr_fail(err, "%s: %s", dir, why.msg);
    }
    if (rc == 0 && load_weights(&ff, m, err)) {
        model_free(m);
        rc = -1;
    }
    free_paths(ff.files, ff.n_files);
    return rc;
}
