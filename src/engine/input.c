/* input.c — one forward call's inputs held against the model (input.h). */
#include "engine/input.h"

#include "engine/lora.h"

int input_check(const ModelInput *in, const ModelConfig *c, int max_batch, int max_T,
                const struct Lora *lora, SrError *err)
{
    if (in->B <= 0 || in->T <= 0) return sr_fail(err, "empty batch (B=%d, T=%d)", in->B, in->T);
    if (in->B > max_batch)
        return sr_fail(err, "batch of %d rows exceeds the %d the model was sized for", in->B,
                       max_batch);
    if (in->T > max_T)
        return sr_fail(err, "sequence of %d tokens exceeds the %d the model was sized for "
                       "(max_seq_len %d)", in->T, max_T, c->max_seq_len);
    if (in->n_run < 0 || in->n_run > c->n_layers)
        return sr_fail(err, "exit layer %d is outside 0..%d", in->n_run, c->n_layers);
    if (lora && (lora->max_rows < in->B * in->T || lora->n_layers != c->n_layers ||
            lora->d_model != c->d_model || lora->q_dim != model_q_dim(c) ||
            lora->kv_dim != model_kv_dim(c)))
        return sr_fail(err, "the LoRA adapters do not fit this model or batch");
    for (long i = 0; i < (long)in->B * in->T; i++)
        if (in->ids[i] < 0 || in->ids[i] >= c->vocab_size)
            return sr_fail(err, "token id %d at position %ld is outside the vocabulary (0..%d)",
                           in->ids[i], i, c->vocab_size - 1);
    for (int l = 0; in->window && l < c->n_layers; l++)
        if (in->window[l] < 0)
            return sr_fail(err, "layer %d: window %d is negative", l, in->window[l]);
    if (in->want_logits < LOGITS_NONE || in->want_logits > LOGITS_LAST)
        return sr_fail(err, "want_logits %d is not one of 0, 1, 2", in->want_logits);
    for (int b = 0; in->lengths && b < in->B; b++)
        if (in->lengths[b] < 1 || in->lengths[b] > in->T)
            return sr_fail(err, "length %d of row %d is outside 1..%d", in->lengths[b], b, in->T);
    for (int l = 0; in->pos_kind && l < c->n_layers; l++) {
        if (in->pos_kind[l] == POS_REAL && !in->real_pos)
            return sr_fail(err, "layer %d uses real-valued positions but none were given", l);
        if (in->pos_kind[l] == POS_REPO && (!c->repo || l < c->repo_from))
            return sr_fail(err, "layer %d asks for RePo positions but the model has no RePo "
                           "weights there", l);
        if (in->pos_kind[l] == POS_REAL && model_kv_heads(c) != c->n_heads)
            return sr_fail(err, "layer %d: real-valued positions per head need as many "
                           "key/value heads as heads (the model has %d of %d)", l,
                           model_kv_heads(c), c->n_heads);
    }
    return 0;
}
