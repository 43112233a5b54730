/* model_check.c — a configuration held against what the model can do
 * (model.h), each failure one message naming the field. */
#include "engine/model.h"

/* The RePo and NoPE fields of c, with the model's own layers. */
static int check_positions(const ModelConfig *c, SrError *err)
{
    if (c->nope_layers && (c->n_layers < 64 && c->nope_layers >> c->n_layers))
        return sr_fail(err, "nope_layers names a layer beyond the model's %d", c->n_layers);
    if (c->repo) {
        if (c->repo_from < 0 || c->repo_from >= c->n_layers)
            return sr_fail(err, "repo_from %d is outside 0..%d (the model's layers)", c->repo_from,
                           c->n_layers - 1);
        if (c->d_model % 8 != 0)
            return sr_fail(err, "RePo needs d_model divisible by 8 (d_p = d_model/8), got %d",
                           c->d_model);
    }
    return 0;
}

int model_config_check(const ModelConfig *c, SrError *err)
{
    if (c->vocab_size <= 0) return sr_fail(err, "vocab_size must be positive, got %d", c->vocab_size);
    if (c->d_model <= 0) return sr_fail(err, "d_model must be positive, got %d", c->d_model);
    if (c->n_layers <= 0) return sr_fail(err, "n_layers must be positive, got %d", c->n_layers);
    if (c->n_heads <= 0) return sr_fail(err, "n_heads must be positive, got %d", c->n_heads);
    /* the head size (C / H, or a family's) and what a family changes */
    if (family_check(&c->family, c->n_layers, c->d_model, c->n_heads, err)) return -1;
    if (model_hf_features(c) && c->repo)
        return sr_fail(err, "RePo layers cannot be combined with Hugging Face model features");
    if (c->d_ff <= 0) return sr_fail(err, "d_ff must be positive, got %d", c->d_ff);
    if (c->max_seq_len <= 0)
        return sr_fail(err, "max_seq_len must be positive, got %d", c->max_seq_len);
    if (!(c->rope_theta > 0.0f)) return sr_fail(err, "rope_theta must be positive");
    if (!(c->norm_eps > 0.0f)) return sr_fail(err, "norm_eps must be positive");
    if (c->tied != 0 && c->tied != 1) return sr_fail(err, "tied must be 0 or 1, got %d", c->tied);
    if (c->repo != 0 && c->repo != 1) return sr_fail(err, "repo must be 0 or 1, got %d", c->repo);
    return check_positions(c, err);
}
