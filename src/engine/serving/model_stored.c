/* model_stored.c — a model on weights kept as stored: the MatrixSource
 * whose products read the stored matrices (model_stored.h). */
#include "engine/serving/model_stored.h"

#include <stdlib.h>

#include "engine/threads.h"

/* The source's state: the matrices, whether it releases them, and the
 * scratch of the products (ops_stored.h) for `threads` threads. */
typedef struct {
    MatrixSource source;
    StoredMatrices *s;
    int owns;
    float *scratch;
    int threads;
} StoredSource;

/* The stored tensors matrix id of layer l is made of, in the order of its
 * fused output rows (q, k, v; gate, up; one for o, down and the LM head),
 * with their rows each, and the product's input width; returns how many. */
static int matrix_parts(const StoredMatrices *s, ParamId id, int l, const void *parts[3],
                        int rows[3], int *in)
{
    *in = s->C;
    if (id == PARAM_WQKV) {
        parts[0] = s->q[l], parts[1] = s->k[l], parts[2] = s->v[l];
        rows[0] = s->Q, rows[1] = s->K, rows[2] = s->K, *in = s->C;
        return 3;
    }
    if (id == PARAM_WGU) {
        parts[0] = s->gate[l], parts[1] = s->up[l];
        rows[0] = s->F, rows[1] = s->F, *in = s->C;
        return 2;
    }
    if (id == PARAM_WO) parts[0] = s->o[l], rows[0] = s->C, *in = s->Q;
    if (id == PARAM_WDOWN) parts[0] = s->down[l], rows[0] = s->C, *in = s->F;
    if (id == PARAM_WLM) parts[0] = s->lm_head, rows[0] = s->V;
    return 1;
}

/* MatrixSource.product: out (N, rows) = inp . W^T, one product per stored
 * tensor, each into its block of the fused row. */
static void stored_product(void *state, ParamId id, int l, float *out, const float *inp, int N)
{
    StoredSource *src = state;
    const void *parts[3];
    int rows[3], in, n = matrix_parts(src->s, id, l, parts, rows, &in), width = 0, at = 0;
    for (int i = 0; i < n; i++) width += rows[i];
    for (int i = 0; i < n; i++) {
        stored_matmul_forward(out + at, width, inp, parts[i], src->s->type, N, in, rows[i],
                              src->scratch, src->threads);
        at += rows[i];
    }
}

/* MatrixSource.product_back: dinp (N, in) += dout (N, rows) . W. */
static void stored_product_back(void *state, ParamId id, int l, float *dinp, const float *dout,
                                int N)
{
    StoredSource *src = state;
    const void *parts[3];
    int rows[3], in, n = matrix_parts(src->s, id, l, parts, rows, &in), width = 0, at = 0;
    for (int i = 0; i < n; i++) width += rows[i];
    for (int i = 0; i < n; i++) {
        stored_matmul_backward(dinp, dout + at, width, parts[i], src->s->type, N, in, rows[i],
                               src->scratch, src->threads);
        at += rows[i];
    }
}

/* MatrixSource.embed: out (N, C) = the embedding rows of ids, widened. */
static void stored_embed(void *state, float *out, const int *ids, int N)
{
    StoredSource *src = state;
    stored_embedding(out, ids, src->s->embed, src->s->type, N, src->s->C);
}

/* MatrixSource.release: the scratch, the source, and the matrices it owns. */
static void stored_release(void *state)
{
    StoredSource *src = state;
    if (src->owns && src->s->release) src->s->release(src->s->owner);
    free(src->scratch);
    free(src);
}

uint64_t stored_param_fnv1a(const StoredMatrices *stored, ParamId id, int tied, uint64_t h)
{
    size_t V = (size_t)stored->V, C = (size_t)stored->C;
    if (id == PARAM_WTE) return stored_fnv1a(h, stored->embed, stored->type, V * C);
    if (id == PARAM_WLM) return tied ? h : stored_fnv1a(h, stored->lm_head, stored->type, V * C);
    for (int l = 0; l < stored->n_layers; l++) {
        const void *parts[3];
        int rows[3], in, n = matrix_parts(stored, id, l, parts, rows, &in);
        for (int i = 0; i < n; i++)
            h = stored_fnv1a(h, parts[i], stored->type, (size_t)rows[i] * (size_t)in);
    }
    return h;
}

MatrixSource *stored_source_new(StoredMatrices *stored, int owns, const ModelConfig *cfg)
{
    StoredSource *src = calloc(1, sizeof *src);
    if (!src) return NULL;
    int widest = cfg->d_model > cfg->d_ff ? cfg->d_model : cfg->d_ff;
    if (model_q_dim(cfg) > widest) widest = model_q_dim(cfg);
    src->threads = threads_count();
    src->scratch = malloc(stored_scratch_floats(widest, src->threads) * sizeof(float));
    if (!src->scratch) {
        free(src);
        return NULL;
    }
    src->s = stored;
    src->owns = owns;
    src->source = (MatrixSource){
        .state = src, .product = stored_product, .product_back = stored_product_back,
        .embed = stored_embed, .release = stored_release, .value_bytes = stored_bytes(stored->type),
    };
    return &src->source;
}

int model_create_stored(Model *m, const ModelConfig *cfg, StoredMatrices *stored, int max_batch,
                        int max_T, SrError *err)
{
    MatrixSource *source = stored_source_new(stored, 1, cfg);
    if (!source) {
        if (stored->release) stored->release(stored->owner);
        return sr_fail(err, "out of memory allocating a model for batch %d x length %d", max_batch,
                       max_T);
    }
    ModelBuild how = {.max_batch = max_batch, .max_T = max_T, .matrices = source};
    return model_build(m, cfg, &how, err);
}

StoredMatrices *model_stored_matrices(const Model *m)
{
    if (!m->matrices || m->matrices->product != stored_product) return NULL;
    return ((StoredSource *)m->matrices->state)->s;
}
