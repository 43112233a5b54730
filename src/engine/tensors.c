/* tensors.c — the table of parameters and the list of a layer's slabs
 * (tensors.h), and the sizes read from them. */
#include "engine/tensors.h"

#include <stddef.h>

Dims tensor_dims(const ModelConfig *c, int max_T)
{
    size_t H = (size_t)c->n_heads, KVH = (size_t)family_kv_heads(&c->family, c->n_heads);
    size_t hd = (size_t)family_head_dim(&c->family, c->d_model, c->n_heads);
    return (Dims){
        .V = (size_t)c->vocab_size, .C = (size_t)c->d_model, .L = (size_t)c->n_layers,
        .F = (size_t)c->d_ff, .H = H, .KVH = KVH, .hd = hd, .Q = H * hd, .K = KVH * hd,
        .W = H * hd + 2 * KVH * hd, .P = (size_t)model_repo_dim(c),
        .R = c->repo ? (size_t)(c->n_layers - c->repo_from) : 0, .T = (size_t)max_T,
    };
}

size_t dim_value(const Dims *d, Dim dim)
{
    const size_t values[] = {
        [DIM_ONE] = 1, [DIM_V] = d->V, [DIM_C] = d->C, [DIM_L] = d->L, [DIM_R] = d->R,
        [DIM_F] = d->F, [DIM_2F] = 2 * d->F, [DIM_H] = d->H, [DIM_HD] = d->hd, [DIM_Q] = d->Q,
        [DIM_K] = d->K, [DIM_W] = d->W, [DIM_P] = d->P, [DIM_2P] = 2 * d->P,
        [DIM_QK] = d->Q + d->K, [DIM_HKV] = d->H + d->KVH, [DIM_HT] = d->H * d->T,
    };
    return values[dim];
}

int tensor_present(const ModelConfig *c, Presence has)
{
    const ModelFamily *f = &c->family;
    const int present[] = {
        [HAS_ALWAYS] = 1, [HAS_UNTIED] = !c->tied, [HAS_REPO] = c->repo != 0,
        [HAS_QKV_BIAS] = f->qkv_bias != 0, [HAS_QK_NORM] = f->qk_norm != 0,
        [HAS_POST_NORMS] = f->post_norms != 0,
    };
    return present[has];
}

/* The parameters: the plain Llama shape, RePo's, then a family's (Gemma's
 * file names for its norms after each sublayer). */
static const ParamSpec PARAMS[PARAM_COUNT] = {
    [PARAM_WTE] = {
        .name = "wte", .view = offsetof(ParamViews, wte), .stack = DIM_ONE,
        .rows = DIM_V, .cols = DIM_C, .has = HAS_ALWAYS, .decay = 1, .matrix = 1,
        .file = {{.name = "model.embed_tokens.weight", .rows = DIM_V}},
    },
    [PARAM_LN1W] = {
        .name = "ln1w", .view = offsetof(ParamViews, ln1w), .stack = DIM_L,
        .rows = DIM_C, .cols = DIM_ONE, .has = HAS_ALWAYS, .norm = 1,
        .file = {{.name = "model.layers.%d.input_layernorm.weight", .rows = DIM_C}},
    },
    [PARAM_WQKV] = {
        .name = "wqkv", .view = offsetof(ParamViews, wqkv), .stack = DIM_L,
        .rows = DIM_W, .cols = DIM_C, .has = HAS_ALWAYS, .decay = 1, .lora = 1, .matrix = 1,
        .file = {{.name = "model.layers.%d.self_attn.q_proj.weight", .rows = DIM_Q},
                 {.name = "model.layers.%d.self_attn.k_proj.weight", .rows = DIM_K},
                 {.name = "model.layers.%d.self_attn.v_proj.weight", .rows = DIM_K}},
    },
    [PARAM_WO] = {
        .name = "wo", .view = offsetof(ParamViews, wo), .stack = DIM_L,
        .rows = DIM_C, .cols = DIM_Q, .has = HAS_ALWAYS, .decay = 1, .lora = 1, .matrix = 1,
        .file = {{.name = "model.layers.%d.self_attn.o_proj.weight", .rows = DIM_C}},
    },
    [PARAM_LN2W] = {
        .name = "ln2w", .view = offsetof(ParamViews, ln2w), .stack = DIM_L,
        .rows = DIM_C, .cols = DIM_ONE, .has = HAS_ALWAYS, .norm = 1,
        .file = {{.name = "model.layers.%d.post_attention_layernorm.weight", .rows = DIM_C}},
    },
    [PARAM_WGU] = {
        .name = "wgu", .view = offsetof(ParamViews, wgu), .stack = DIM_L,
        .rows = DIM_2F, .cols = DIM_C, .has = HAS_ALWAYS, .decay = 1, .matrix = 1,
        .file = {{.name = "model.layers.%d.mlp.gate_proj.weight", .rows = DIM_F},
                 {.name = "model.layers.%d.mlp.up_proj.weight", .rows = DIM_F}},
    },
    [PARAM_WDOWN] = {
        .name = "wdown", .view = offsetof(ParamViews, wdown), .stack = DIM_L,
        .rows = DIM_C, .cols = DIM_F, .has = HAS_ALWAYS, .decay = 1, .matrix = 1,
        .file = {{.name = "model.layers.%d.mlp.down_proj.weight", .rows = DIM_C}},
    },
    [PARAM_LNFW] = {
        .name = "lnfw", .view = offsetof(ParamViews, lnfw), .stack = DIM_ONE,
        .rows = DIM_C, .cols = DIM_ONE, .has = HAS_ALWAYS, .norm = 1,
        .file = {{.name = "model.norm.weight", .rows = DIM_C}},
    },
    [PARAM_WLM] = {
        .name = "wlm", .view = offsetof(ParamViews, wlm), .stack = DIM_ONE,
        .rows = DIM_V, .cols = DIM_C, .has = HAS_UNTIED, .decay = 1, .matrix = 1,
        .file = {{.name = "lm_head.weight", .rows = DIM_V}},
    },
    [PARAM_WGC] = {
        .name = "wgc", .view = offsetof(ParamViews, wgc), .stack = DIM_R,
        .rows = DIM_2P, .cols = DIM_C, .has = HAS_REPO, .decay = 1,
        .file = {{.name = "model.layers.%d.self_attn.repo.gate_proj.weight", .rows = DIM_P},
                 {.name = "model.layers.%d.self_attn.repo.content_proj.weight", .rows = DIM_P}},
    },
    [PARAM_WZ] = {
        .name = "wz", .view = offsetof(ParamViews, wz), .stack = DIM_R,
        .rows = DIM_H, .cols = DIM_P, .has = HAS_REPO, .decay = 1,
        .file = {{.name = "model.layers.%d.self_attn.repo.z_proj.weight", .rows = DIM_H}},
    },
    [PARAM_BQKV] = {
        .name = "bqkv", .view = offsetof(ParamViews, family.bqkv), .stack = DIM_L,
        .rows = DIM_W, .cols = DIM_ONE, .has = HAS_QKV_BIAS,
        .file = {{.name = "model.layers.%d.self_attn.q_proj.bias", .rows = DIM_Q},
                 {.name = "model.layers.%d.self_attn.k_proj.bias", .rows = DIM_K},
                 {.name = "model.layers.%d.self_attn.v_proj.bias", .rows = DIM_K}},
    },
    [PARAM_QNW] = {
        .name = "qnw", .view = offsetof(ParamViews, family.qnw), .stack = DIM_L,
        .rows = DIM_HD, .cols = DIM_ONE, .has = HAS_QK_NORM, .norm = 1,
        .file = {{.name = "model.layers.%d.self_attn.q_norm.weight", .rows = DIM_HD}},
    },
    [PARAM_KNW] = {
        .name = "knw", .view = offsetof(ParamViews, family.knw), .stack = DIM_L,
        .rows = DIM_HD, .cols = DIM_ONE, .has = HAS_QK_NORM, .norm = 1,
        .file = {{.name = "model.layers.%d.self_attn.k_norm.weight", .rows = DIM_HD}},
    },
    [PARAM_PANW] = {
        .name = "panw", .view = offsetof(ParamViews, family.panw), .stack = DIM_L,
        .rows = DIM_C, .cols = DIM_ONE, .has = HAS_POST_NORMS, .norm = 1,
        .file = {{.name = "model.layers.%d.post_attention_layernorm.weight", .rows = DIM_C}},
    },
    [PARAM_PFNW] = {
        .name = "pfnw", .view = offsetof(ParamViews, family.pfnw), .stack = DIM_L,
        .rows = DIM_C, .cols = DIM_ONE, .has = HAS_POST_NORMS, .norm = 1,
        .file = {{.name = "model.layers.%d.post_feedforward_layernorm.weight", .rows = DIM_C}},
    },
};

const ParamSpec *param_spec(ParamId id)
{
    return &PARAMS[id];
}

size_t param_floats(const ModelConfig *c, ParamId id, int matrices_outside)
{
    const ParamSpec *s = &PARAMS[id];
    if (!tensor_present(c, s->has) || (matrices_outside && s->matrix)) return 0;
    Dims d = tensor_dims(c, 0);
    return dim_value(&d, s->stack) * dim_value(&d, s->rows) * dim_value(&d, s->cols);
}

size_t model_param_count(const ModelConfig *c)
{
    size_t n = 0;
    for (int id = 0; id < PARAM_COUNT; id++) n += param_floats(c, (ParamId)id, 0);
    return n;
}

float **param_view(ParamViews *v, ParamId id)
{
    return (float **)((char *)v + PARAMS[id].view);
}

/* A layer's working slabs: the plain layer's, RePo's, then a family's. */
static const SlabSpec SLABS[SLAB_COUNT] = {
    [SLAB_LN1] = {.name = "ln1", .view = offsetof(ActViews, ln1),
                  .layer_view = offsetof(LayerActs, ln1),
                  .width = DIM_C, .has = HAS_ALWAYS},
    [SLAB_LN1_RSTD] = {.name = "ln1_rstd", .view = offsetof(ActViews, ln1_rstd),
                       .layer_view = offsetof(LayerActs, ln1_rstd),
                       .width = DIM_ONE, .has = HAS_ALWAYS},
    [SLAB_QKV] = {.name = "qkv", .view = offsetof(ActViews, qkv),
                  .layer_view = offsetof(LayerActs, qkv),
                  .width = DIM_W, .has = HAS_ALWAYS},
    [SLAB_ATT] = {.name = "att", .view = offsetof(ActViews, att),
                  .layer_view = offsetof(LayerActs, att),
                  .width = DIM_HT, .has = HAS_ALWAYS},
    [SLAB_ATTY] = {.name = "atty", .view = offsetof(ActViews, atty),
                   .layer_view = offsetof(LayerActs, atty),
                   .width = DIM_Q, .has = HAS_ALWAYS},
    [SLAB_RES_MID] = {.name = "res_mid", .view = offsetof(ActViews, res_mid),
                      .layer_view = offsetof(LayerActs, res_mid),
                      .width = DIM_C, .has = HAS_ALWAYS},
    [SLAB_LN2] = {.name = "ln2", .view = offsetof(ActViews, ln2),
                  .layer_view = offsetof(LayerActs, ln2),
                  .width = DIM_C, .has = HAS_ALWAYS},
    [SLAB_LN2_RSTD] = {.name = "ln2_rstd", .view = offsetof(ActViews, ln2_rstd),
                       .layer_view = offsetof(LayerActs, ln2_rstd),
                       .width = DIM_ONE, .has = HAS_ALWAYS},
    [SLAB_GU] = {.name = "gu", .view = offsetof(ActViews, gu),
                 .layer_view = offsetof(LayerActs, gu),
                 .width = DIM_2F, .has = HAS_ALWAYS},
    [SLAB_SWI] = {.name = "swi", .view = offsetof(ActViews, swi),
                  .layer_view = offsetof(LayerActs, swi),
                  .width = DIM_F, .has = HAS_ALWAYS},
    [SLAB_REPO_GC] = {.name = "repo_gc", .view = offsetof(ActViews, repo_gc),
                      .layer_view = offsetof(LayerActs, repo_gc),
                      .width = DIM_2P, .has = HAS_REPO},
    [SLAB_REPO_R] = {.name = "repo_r", .view = offsetof(ActViews, repo_r),
                     .layer_view = offsetof(LayerActs, repo_r),
                     .width = DIM_P, .has = HAS_REPO},
    [SLAB_QK_PRE] = {.name = "qk_pre", .view = offsetof(ActViews, family_layers.qk_pre),
                     .layer_view = offsetof(LayerActs, family.qk_pre),
                     .width = DIM_QK, .has = HAS_QK_NORM},
    [SLAB_QK_RSTD] = {.name = "qk_rstd", .view = offsetof(ActViews, family_layers.qk_rstd),
                      .layer_view = offsetof(LayerActs, family.qk_rstd),
                      .width = DIM_HKV, .has = HAS_QK_NORM},
    [SLAB_ATTN_O] = {.name = "attn_o", .view = offsetof(ActViews, family_layers.attn_o),
                     .layer_view = offsetof(LayerActs, family.attn_o),
                     .width = DIM_C, .has = HAS_POST_NORMS},
    [SLAB_ATTN_O_RSTD] = {.name = "attn_o_rstd",
                          .view = offsetof(ActViews, family_layers.attn_o_rstd),
                          .layer_view = offsetof(LayerActs, family.attn_o_rstd),
                          .width = DIM_ONE, .has = HAS_POST_NORMS},
    [SLAB_MLP_O] = {.name = "mlp_o", .view = offsetof(ActViews, family_layers.mlp_o),
                    .layer_view = offsetof(LayerActs, family.mlp_o),
                    .width = DIM_C, .has = HAS_POST_NORMS},
    [SLAB_MLP_O_RSTD] = {.name = "mlp_o_rstd", .view = offsetof(ActViews, family_layers.mlp_o_rstd),
                         .layer_view = offsetof(LayerActs, family.mlp_o_rstd),
                         .width = DIM_ONE, .has = HAS_POST_NORMS},
};

const SlabSpec *slab_spec(SlabId id)
{
    return &SLABS[id];
}

size_t slab_width(const ModelConfig *c, SlabId id, int max_T)
{
    if (!tensor_present(c, SLABS[id].has)) return 0;
    Dims d = tensor_dims(c, max_T);
    return dim_value(&d, SLABS[id].width);
}

LayerActs tensor_layer_views(const ActViews *a, const ModelConfig *c, int max_batch, int max_T,
                             size_t kept)
{
    LayerActs x = {0};
    size_t tokens = (size_t)max_batch * (size_t)max_T;
    for (int id = 0; id < SLAB_COUNT; id++) {
        float *const *all = (float *const *)((const char *)a + SLABS[id].view);
        float **one = (float **)((char *)&x + SLABS[id].layer_view);
        *one = *all + kept * tokens * slab_width(c, (SlabId)id, max_T);
    }
    return x;
}
