/* input.c — one forward call's inputs held against the model, and the head
 * plan of the heads taken away (input.h). */
#include "engine/input.h"

#include <stdlib.h>
#include <string.h>

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

/* One whole number of digits only in text[0..len) into *out: 0, 1 when it
 * is larger than limit, -1 when it is no such number. */
static int read_index(const char *text, size_t len, long limit, long *out)
{
    if (len == 0 || len > 9) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return -1;
        v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return v <= limit ? 0 : 1;
}

/* The item text[0..len) ("L.H") into layer and head, checked against the
 * model's sizes. 0 or -1 with err naming the item. */
static int read_item(const char *item, int len, int n_layers, int n_heads, int *layer, int *head,
                     SrError *err)
{
    const char *dot = memchr(item, '.', (size_t)len);
    long l = 0, h = 0;
    int l_rc = dot ? read_index(item, (size_t)(dot - item), n_layers - 1, &l) : -1;
    int h_rc = dot ? read_index(dot + 1, (size_t)(item + len - dot - 1), n_heads - 1, &h) : -1;
    if (l_rc < 0 || h_rc < 0)
        return sr_fail(err, "'%.*s' is not LAYER.HEAD (such as 2.1)", len, item);
    if (l_rc > 0)
        return sr_fail(err, "'%.*s': layer %ld is out of range 0..%d", len, item, l, n_layers - 1);
    if (h_rc > 0)
        return sr_fail(err, "'%.*s': head %ld is out of range 0..%d", len, item, h, n_heads - 1);
    *layer = (int)l;
    *head = (int)h;
    return 0;
}

int head_plan_parse(const char *text, int n_layers, int n_heads, float **plan, SrError *err)
{
    *plan = NULL;
    if (!text || strcmp(text, "none") == 0) return 0;
    if (!*text) return sr_fail(err, "empty; give L.H[,L.H...] or none");
    float *p = malloc(sizeof(float) * (size_t)n_layers * (size_t)n_heads);
    if (!p) return sr_fail(err, "out of memory");
    for (int i = 0; i < n_layers * n_heads; i++) p[i] = 1.0f;
    for (const char *item = text;; ) {
        int len = (int)strcspn(item, ",");
        int layer = 0, head = 0;
        if (read_item(item, len, n_layers, n_heads, &layer, &head, err)) {
            free(p);
            return -1;
        }
        if (p[layer * n_heads + head] == 0.0f) {
            sr_fail(err, "'%.*s' is named twice", len, item);
            free(p);
            return -1;
        }
        p[layer * n_heads + head] = 0.0f;
        if (!item[len]) break;
        item += len + 1;
    }
    *plan = p;
    return 0;
}
