/* family_sublayers.c — the hooks around the sublayers (family.h): the
 * embedding's scale, a norm on each sublayer's output, the MLP's
 * activation and the logits' soft cap. */
#include "engine/families/family.h"

#include <string.h>

/* x (n) *= s. */
static void scale_values(float *x, float s, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) x[i] *= s;
}

void family_embed_forward(const ModelFamily *f, float *x, long n)
{
    if (f->embed_scale > 0.0f) scale_values(x, f->embed_scale, n);
}

void family_embed_backward(const ModelFamily *f, float *dx, long n)
{
    if (f->embed_scale > 0.0f) scale_values(dx, f->embed_scale, n);
}

/* The norm of sublayer `which` of layer l: its weights in p (NULL p: NULL),
 * the projection's output slab and the norm's rstd. */
static float *sublayer_weights(const FamilyParams *p, FamilySublayer which, int l, int C)
{
    if (!p) return NULL;
    return (which == FAMILY_ATTENTION ? p->panw : p->pfnw) + (size_t)l * C;
}

static float *sublayer_output(const FamilyLayerActs *x, FamilySublayer which)
{
    return which == FAMILY_ATTENTION ? x->attn_o : x->mlp_o;
}

static float *sublayer_rstd(const FamilyLayerActs *x, FamilySublayer which)
{
    return which == FAMILY_ATTENTION ? x->attn_o_rstd : x->mlp_o_rstd;
}

float *family_sublayer_target(const ModelFamily *f, const FamilyLayerActs *x, FamilySublayer which,
                              float *dest)
{
    return f->post_norms ? sublayer_output(x, which) : dest;
}

void family_sublayer_forward(const ModelFamily *f, const FamilyParams *p, const FamilyLayerActs *x,
                             FamilySublayer which, int l, float *dest, const HeadShape *s, int N)
{
    if (!f->post_norms) return;
    rmsnorm_forward(dest, sublayer_rstd(x, which), sublayer_output(x, which),
                    sublayer_weights(p, which, l, s->C), s->eps, N, s->C);
}

const float *family_sublayer_backward(const ModelFamily *f, const FamilyParams *p,
                                      const FamilyParams *g, const FamilyLayerActs *x,
                                      const FamilyGrads *scratch, FamilySublayer which, int l,
                                      const float *dy, const HeadShape *s, int N)
{
    if (!f->post_norms) return dy;
    int C = s->C;
    memset(scratch->dpost, 0, (size_t)N * C * sizeof(float));
    rmsnorm_backward(scratch->dpost, sublayer_weights(g, which, l, C), dy,
                     sublayer_output(x, which), sublayer_weights(p, which, l, C),
                     sublayer_rstd(x, which), N, C);
    return scratch->dpost;
}

void family_gate_forward(const ModelFamily *f, float *out, const float *gu, int N, int F)
{
    if (f->gelu_mlp)
        geglu_forward(out, gu, N, F);
    else
        swiglu_forward(out, gu, N, F);
}

void family_gate_backward(const ModelFamily *f, float *dgu, const float *dout, const float *gu,
                          int N, int F)
{
    if (f->gelu_mlp)
        geglu_backward(dgu, dout, gu, N, F);
    else
        swiglu_backward(dgu, dout, gu, N, F);
}

void family_logits_forward(const ModelFamily *f, const FamilyActs *a, float *logits, long n)
{
    if (!(f->logit_softcap > 0.0f)) return;
    softcap_forward(logits, f->logit_softcap, n);
    if (a->capped) memcpy(a->capped, logits, (size_t)n * sizeof(float));
}

void family_logits_backward(const ModelFamily *f, const FamilyActs *a, float *dlogits, long n)
{
    if (f->logit_softcap > 0.0f) softcap_backward(dlogits, a->capped, f->logit_softcap, n);
}
