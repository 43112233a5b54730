/* family_config.c — a family's head widths and the check of its fields (family.h). */
#include "engine/families/family.h"

int family_kv_heads(const ModelFamily *f, int H)
{
    return f->n_kv_heads ? f->n_kv_heads : H;
}

int family_head_dim(const ModelFamily *f, int C, int H)
{
    return f->head_dim ? f->head_dim : (H > 0 ? C / H : 0);
}

HeadShape family_shape(const ModelFamily *f, int C, int H, float eps)
{
    int KVH = family_kv_heads(f, H), hd = family_head_dim(f, C, H);
    return (HeadShape){
        .C = C, .H = H, .KVH = KVH, .hd = hd, .Q = H * hd, .K = KVH * hd,
        .W = H * hd + 2 * KVH * hd, .eps = eps,
    };
}

int family_any(const ModelFamily *f, int H)
{
    return (f->n_kv_heads != 0 && f->n_kv_heads != H) || f->head_dim != 0 || f->qkv_bias ||
           f->qk_norm || f->rope_llama3 || f->sliding_layers || f->embed_scale > 0.0f || f->gelu_mlp ||
           f->post_norms || f->attn_scale > 0.0f || f->attn_softcap > 0.0f ||
           f->logit_softcap > 0.0f || f->rope_local_theta > 0.0f || f->rope_linear_factor > 0.0f;
}

int family_check(const ModelFamily *f, int n_layers, int C, int H, SrError *err)
{
    if (f->head_dim < 0) return sr_fail(err, "head_dim must be positive, got %d", f->head_dim);
    if (f->head_dim == 0 && C % H != 0)
        return sr_fail(err, "d_model %d is not divisible by n_heads %d", C, H);
    int hd = family_head_dim(f, C, H);
    if (hd % 2 != 0)
        return sr_fail(err, "head size %s = %d must be even for RoPE",
                       f->head_dim ? "head_dim" : "d_model/n_heads", hd);
    int KVH = family_kv_heads(f, H);
    if (f->n_kv_heads < 0 || KVH > H || H % KVH)
        return sr_fail(err, "n_kv_heads %d does not divide n_heads %d", f->n_kv_heads, H);
    if (f->rope_llama3 && !(f->rope_factor > 0.0f && f->rope_low_freq_factor > 0.0f &&
                            f->rope_high_freq_factor > f->rope_low_freq_factor &&
                            f->rope_original_max_pos > 0))
        return sr_fail(err, "llama3 rope scaling needs factor > 0, 0 < low_freq_factor < "
                       "high_freq_factor and original_max_position_embeddings > 0");
    if (f->sliding_window < 0 || (f->sliding_layers && f->sliding_window == 0))
        return sr_fail(err, "sliding_window must be positive for the sliding layers, got %d",
                       f->sliding_window);
    if (f->sliding_layers && n_layers < 64 && f->sliding_layers >> n_layers)
        return sr_fail(err, "sliding_layers names a layer beyond the model's %d", n_layers);
    if (!(f->embed_scale >= 0.0f) || !(f->attn_scale >= 0.0f) || !(f->attn_softcap >= 0.0f) ||
        !(f->logit_softcap >= 0.0f) || !(f->rope_local_theta >= 0.0f) ||
        !(f->rope_linear_factor >= 0.0f))
        return sr_fail(err, "embed_scale, attn_scale, the soft caps, rope_local_theta and "
                       "rope_linear_factor must be 0 (off) or positive");
    if (f->rope_llama3 && f->rope_linear_factor > 0.0f)
        return sr_fail(err, "llama3 and linear RoPE scaling cannot both be on");
    return 0;
}
