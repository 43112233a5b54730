/* attention_data.c — the attention figures' data: from a trained model run
 * on one repeated sentence, or from arrays the caller computed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "attention/attention_data.h"
#include "engine/head_scale.h"
#include "engine/model.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"
#include "label/readout.h"
#include "text/tokenizer.h"

int attention_scale_parse(const char *text, AttentionScale *out)
{
    if (strcmp(text, "fixed") == 0) *out = SCALE_FIXED;
    else if (strcmp(text, "per-head") == 0) *out = SCALE_PER_HEAD;
    else if (strcmp(text, "log") == 0) *out = SCALE_LOG;
    else return -1;
    return 0;
}

const char *attention_scale_name(AttentionScale s)
{
    return s == SCALE_PER_HEAD ? "per-head" : s == SCALE_LOG ? "log" : "fixed";
}

void attention_data_free(AttentionData *d)
{
    if (d->tokens)
        for (int i = 0; i < d->T; i++) free(d->tokens[i]);
    free(d->tokens);
    attention_maps_free(d->maps);
    free(d->visible);
    free(d->visible_of);
    free(d->copy);
    free(d->boundary);
    free(d->repo_z);
    memset(d, 0, sizeof *d);
}

/* Copy the RePo positions z of row 0 of m's last forward (the one d was
 * filled from) into d->repo_z (L, T, H); NULL when m has no RePo layers. */
static int take_positions(AttentionData *d, const Model *m, SrError *err)
{
    free(d->repo_z);
    d->repo_z = NULL;
    if (!m->cfg.repo) return 0;
    size_t one = (size_t)d->T * d->n_heads;
    d->repo_z = malloc(sizeof(float) * (size_t)d->n_layers * one);
    if (!d->repo_z) return sr_fail(err, "attention figure: out of memory");
    for (int l = 0; l < d->n_layers; l++) {
        const float *z = l < m->n_run ? model_repo_positions(m, l) : NULL;
        for (size_t i = 0; i < one; i++) d->repo_z[l * one + i] = z ? z[i] : NAN;
    }
    return 0;
}

/* d->visible: one map (T, T) for each mask the layers use, a kind of the
 * plan (L, NULL = causal) with the layer's sliding window (those of cfg,
 * the model's own; NULL = none), in the order of first use, and
 * d->visible_of. 0 or -1. */
static int build_visible(AttentionData *d, const MaskKind *plan, const ModelConfig *cfg)
{
    MaskKind kinds[4];
    int windows[4];
    d->n_visible = 0;
    for (int l = 0; l < d->n_layers; l++) {
        MaskKind kind = plan ? plan[l] : MASK_CAUSAL;
        int window = cfg && model_layer_slides(cfg, l) ? cfg->family.sliding_window : 0;
        int i = 0;
        while (i < d->n_visible && !(kinds[i] == kind && windows[i] == window)) i++;
        if (i == d->n_visible) kinds[i] = kind, windows[i] = window, d->n_visible++;
        d->visible_of[l] = i;
    }
    size_t TT = (size_t)d->T * d->T;
    d->visible = malloc(TT * (size_t)d->n_visible);
    if (!d->visible) return -1;
    for (int i = 0; i < d->n_visible; i++)
        mask_build_window(kinds[i], windows[i], d->T, d->T, d->visible + i * TT);
    return 0;
}

/* Fill everything of d but its maps: the layout lay, its token labels (T
 * strings), the mask plan (L, NULL = causal) with the sliding windows of
 * cfg (NULL = none), the title; layer 0, the mean over heads, fixed scale.
 * 0 or -1 (d then empty). */
static int init_layout(AttentionData *d, int n_layers, int n_heads, const RepeatLayout *lay,
                       const char *const *tokens, const MaskKind *plan, const ModelConfig *cfg,
                       SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    if (n_layers < 1 || n_heads < 1) return sr_fail(err, "attention figure: no layers or heads");
    if (lay->T > ATTENTION_MAX_T)
        return sr_fail(err, "attention figure: %d tokens are too many to draw (at most %d)", lay->T,
                       ATTENTION_MAX_T);
    size_t T = (size_t)lay->T, L = (size_t)n_layers;
    d->n_layers = n_layers;
    d->n_heads = n_heads;
    d->T = lay->T;
    d->k = lay->k;
    d->head = -1;
    d->visible_of = malloc(sizeof(int) * L);
    d->tokens = calloc(T, sizeof *d->tokens);
    d->copy = malloc(sizeof(int) * T);
    d->boundary = malloc(sizeof(int) * (size_t)(lay->k > 1 ? lay->k - 1 : 1));
    if (!d->visible_of || !d->tokens || !d->copy || !d->boundary || build_visible(d, plan, cfg)) {
        attention_data_free(d);
        return sr_fail(err, "attention figure: out of memory");
    }
    for (size_t t = 0; t < T; t++) {
        const char *word = tokens[t] ? tokens[t] : "?";
        d->tokens[t] = malloc(strlen(word) + 1);
        if (!d->tokens[t]) {
            attention_data_free(d);
            return sr_fail(err, "attention figure: out of memory");
        }
        memcpy(d->tokens[t], word, strlen(word) + 1);
    }
    memcpy(d->copy, lay->copy, sizeof(int) * T);
    for (int c = 1; c < lay->k; c++) d->boundary[c - 1] = lay->copy_start[c - 1] + lay->n;
    snprintf(d->meta.title, sizeof d->meta.title, "Attention, layer 0, mean over heads");
    return 0;
}

int attention_data_init(AttentionData *d, int n_layers, int n_heads, const RepeatLayout *lay,
                        const char *const *tokens, const float *att, const MaskKind *plan,
                        SrError *err)
{
    if (init_layout(d, n_layers, n_heads, lay, tokens, plan, NULL, err)) return -1;
    d->maps = attention_maps_new_whole(n_layers, n_heads, lay->T, att, err);
    if (!d->maps) {
        attention_data_free(d);
        return -1;
    }
    return 0;
}

int attention_select(AttentionData *d, int layer, int head, SrError *err)
{
    if (layer < 0 || layer >= d->n_layers)
        return sr_fail(err, "layer %d out of range 0..%d", layer, d->n_layers - 1);
    if (head < -1 || head >= d->n_heads)
        return sr_fail(err, "head %d out of range 0..%d (or mean)", head, d->n_heads - 1);
    d->layer = layer;
    d->head = head;
    return 0;
}

double attention_value(const AttentionData *d, int layer, int head, int query, int key)
{
    size_t T = (size_t)d->T;
    if (head < 0) {
        const double *mean = attention_maps_mean(d->maps, layer);
        return mean ? mean[(size_t)query * T + key] : 0.0; /* out of memory: said once on stderr */
    }
    const float *map = attention_maps_layer(d->maps, layer);
    return map ? map[((size_t)head * T + query) * T + key] : 0.0;
}

const uint8_t *attention_visible_map(const AttentionData *d, int layer)
{
    return d->visible + (size_t)d->visible_of[layer] * d->T * d->T;
}

int attention_visible(const AttentionData *d, int layer, int query, int key)
{
    return attention_visible_map(d, layer)[(size_t)query * d->T + key] == ATTENTION_SHOWN;
}

int attention_filtered(const AttentionData *d, int layer, int query, int key)
{
    return attention_visible_map(d, layer)[(size_t)query * d->T + key] == ATTENTION_FILTERED;
}

/* 1 if any cell of d is hidden by the `b` filter (it hides the same cells
 * of every layer and always some of layer 0: its diagonal). */
static int any_filtered(const AttentionData *d)
{
    size_t n = (size_t)d->T * d->T;
    for (size_t i = 0; i < n; i++)
        if (d->visible[i] == ATTENTION_FILTERED) return 1;
    return 0;
}

void attention_range(const AttentionData *d, int layer, int head, double *lo, double *hi)
{
    if (d->scale == SCALE_LOG) {
        *lo = log10(ATTENTION_LOG_FLOOR);
        *hi = 0;
        return;
    }
    *lo = 0;
    *hi = 1;
    if (d->scale != SCALE_PER_HEAD) return;
    double mn = 1, mx = 0;
    for (int q = 0; q < d->T; q++)
        for (int k = 0; k < d->T; k++) {
            if (!attention_visible(d, layer, q, k)) continue;
            double v = attention_value(d, layer, head, q, k);
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
    if (mx > mn) {
        *lo = mn;
        *hi = mx;
    }
}

double attention_colour_position(const AttentionData *d, double p, double lo, double hi)
{
    if (d->scale == SCALE_LOG) {
        double v = log10(p > ATTENTION_LOG_FLOOR ? p : ATTENTION_LOG_FLOOR);
        return (v - lo) / (hi - lo);
    }
    return (p - lo) / (hi - lo);
}

/* The training seed from a checkpoint manifest, or -1. */
static long long manifest_seed(const char *manifest_json)
{
    cJSON *m = cJSON_Parse(manifest_json);
    cJSON *seed = cJSON_GetObjectItem(m, "seed");
    long long value = cJSON_IsNumber(seed) ? (long long)seed->valuedouble : -1;
    cJSON_Delete(m);
    return value;
}

int attention_data_from_inference(AttentionData *d, Model *inference, Model *weights, const RepeatLayout *lay,
                                  const Tokenizer *tok, const MaskKind *plan, SrError *err)
{
    enum { LABEL_BYTES = 64 };
    const char **tokens = malloc(sizeof *tokens * (size_t)lay->T);
    char *labels = malloc((size_t)LABEL_BYTES * (size_t)lay->T);
    if (!tokens || !labels) {
        free(tokens);
        free(labels);
        return sr_fail(err, "out of memory");
    }
    for (int t = 0; t < lay->T; t++)
        tokens[t] = tok->hf ? tokenizer_piece_label(tok, lay->ids[t], labels + (size_t)t * LABEL_BYTES, LABEL_BYTES)
                            : tokenizer_word(tok, lay->ids[t]);
    int rc = init_layout(d, inference->cfg.n_layers, inference->cfg.n_heads, lay, tokens, plan,
                         &inference->cfg, err);
    d->window = inference->cfg.family.sliding_window;
    d->sliding_layers = inference->cfg.family.sliding_layers;
    free(tokens);
    free(labels);
    if (rc) return -1;
    if (take_positions(d, inference, err)) {
        attention_data_free(d);
        return -1;
    }
    d->maps = attention_maps_new_on_demand(inference, weights, err);
    if (!d->maps) {
        attention_data_free(d);
        return -1;
    }
    return 0;
}

/* Load the model of model_path (with adapter_path merged in, NULL = none),
 * run it forward-only over lay with the mask and head plans and fill d with
 * its maps on demand (d owns both models). 0 or -1. */
static int run_on_demand(AttentionData *d, const char *model_path, const char *adapter_path,
                         const RepeatLayout *lay, const Tokenizer *tok, const MaskKind *plan,
                         const float *head_scale, SrError *err)
{
    Model *weights = calloc(1, sizeof *weights), *inference = calloc(1, sizeof *inference);
    if (!weights || !inference) {
        free(weights);
        free(inference);
        return sr_fail(err, "out of memory");
    }
    int made = adapter_load_inference(model_path, adapter_path, weights, inference, 1, lay->T,
                                      err) == 0;
    ModelInput in = {.B = 1, .T = lay->T, .ids = lay->ids, .positions = lay->positions, .mask = plan,
                     .head_scale = head_scale};
    if (made && model_forward(inference, &in, err) == 0 &&
        attention_data_from_inference(d, inference, weights, lay, tok, plan, err) == 0)
        return 0;
    if (made) {
        model_free(inference); /* before the weights it borrows */
        model_free(weights);
    }
    free(inference);
    free(weights);
    return -1;
}

int attention_data_from_model(AttentionData *d, const char *model_path, const char *adapter_path,
                              const char *text, int r, RepeatBos *bos, int bos_given, RepeatSep sep,
                              RepeatPositions positions, const char *mask_plan,
                              const char *ablate_heads, long long *seed, SrError *err)
{
    memset(d, 0, sizeof *d);
    CheckpointInfo info = {0};
    Tokenizer tok = {0};
    RepeatLayout lay = {0};
    MaskKind *plan = NULL;
    float *head_scale = NULL;
    int *ids = NULL, rc = -1;
    if (checkpoint_read_info(model_path, &info, err)) return -1;
    if (seed) *seed = manifest_seed(info.manifest_json);
    if (checkpoint_tokenizer(&info, model_path, &tok, err) ||
        readout_choose_bos(&tok, bos_given ? repeat_bos_name(*bos) : NULL, *bos, sep, bos, err))
        goto done;
    const ModelConfig cfg = info.cfg;
    plan = malloc(sizeof(MaskKind) * (size_t)cfg.n_layers);
    if (!plan) {
        sr_fail(err, "out of memory");
        goto done;
    }
    if (mask_plan_parse(mask_plan ? mask_plan : "causal", plan, cfg.n_layers)) {
        sr_fail(err, "mask plan '%s' is not causal, middle, full or layer indices 0..%d", mask_plan,
                cfg.n_layers - 1);
        goto done;
    }
    SrError plan_err;
    if (head_plan_parse(ablate_heads, cfg.n_layers, cfg.n_heads, &head_scale, &plan_err)) {
        sr_fail(err, "--ablate-heads: %s", plan_err.msg);
        goto done;
    }
    long n = tokenizer_encode(&tok, text, 0, NULL, 0);
    if (n < 1) {
        sr_fail(err, "the sentence has no tokens");
        goto done;
    }
    int max_n = repeat_max_n(cfg.max_seq_len, r, *bos, sep);
    if (n > max_n) {
        sr_fail(err, "the sentence has %ld tokens; with r = %d the model's %d positions hold at most %d",
                n, r, cfg.max_seq_len, max_n);
        goto done;
    }
    ids = malloc(sizeof(int) * (size_t)n);
    if (!ids) {
        sr_fail(err, "out of memory");
        goto done;
    }
    tokenizer_encode(&tok, text, 0, ids, n);
    if (tokenizer_check_embedded(&tok, ids, n, "--text", err)) goto done;
    if (repeat_build_ids(ids, (int)n, r, *bos, sep, readout_repeat_ids(&tok), ATTENTION_MAX_T, &lay, err))
        goto done;
    repeat_apply_positions(&lay, positions);
    rc = run_on_demand(d, model_path, adapter_path, &lay, &tok, plan, head_scale, err);
    if (rc == 0) d->copy_positions = positions;
done:
    repeat_free(&lay);
    free(ids);
    free(plan);
    free(head_scale);
    tokenizer_free(&tok);
    checkpoint_info_free(&info);
    return rc;
}

void attention_adapter_words(char *out, size_t cap, const char *adapter_path)
{
    if (adapter_path) snprintf(out, cap, " with the LoRA adapters of %.400s merged in", adapter_path);
    else if (cap) out[0] = 0;
}

void attention_data_unknown(const AttentionData *d, int *n_unknown, int *n_first)
{
    *n_unknown = *n_first = 0;
    for (int t = 0; t < d->T; t++) {
        if (d->copy[t] != 0) continue;
        (*n_first)++;
        *n_unknown += tokenizer_is_unknown_label(d->tokens[t]);
    }
}

/* ", a sliding window of W keys on layers a, b, ..." for a model with one
 * (at most cap bytes into out), "" otherwise. */
static void window_words(const AttentionData *d, char *out, size_t cap)
{
    out[0] = 0;
    if (!d->window) return;
    size_t used = (size_t)snprintf(out, cap, ", a sliding window of %d keys on layer%s", d->window,
                                   d->sliding_layers & (d->sliding_layers - 1) ? "s" : "");
    const char *sep = " ";
    for (int l = 0; l < d->n_layers && l < 64 && used < cap; l++)
        if (d->sliding_layers >> l & 1) {
            used += (size_t)snprintf(out + used, cap - used, "%s%d", sep, l);
            sep = ", ";
        }
}

void attention_data_describe(AttentionData *d, int overview, const char *model_path,
                             const char *adapter_path, const char *checksum, long long seed,
                             const char *text, const char *text_source, int r, RepeatBos bos,
                             RepeatSep sep, const char *mask_plan)
{
    char heads[48], seed_text[32], sentence[120], what[96], adapters[480], adapted[80] = "", unknown[96] = "";
    char windows[64];
    window_words(d, windows, sizeof windows);
    int n_unknown, n_first;
    attention_data_unknown(d, &n_unknown, &n_first);
    if (2 * n_unknown > n_first)
        snprintf(unknown, sizeof unknown, "; %d of its %d tokens unknown to the model, drawn as <unk>", n_unknown,
                 n_first);
    if (d->head >= 0) snprintf(heads, sizeof heads, "head %d", d->head);
    else snprintf(heads, sizeof heads, "mean over %d heads", d->n_heads);
    if (seed >= 0) snprintf(seed_text, sizeof seed_text, "%lld", seed);
    else snprintf(seed_text, sizeof seed_text, "unknown");
    snprintf(sentence, sizeof sentence, "%.100s%s", text, strlen(text) > 100 ? "..." : "");
    attention_adapter_words(adapters, sizeof adapters, adapter_path);
    if (adapter_path) snprintf(adapted, sizeof adapted, ", adapter %.60s", adapter_path);
    if (overview) {
        snprintf(d->meta.title, sizeof d->meta.title, "Attention of every layer and head, r = %d%s", r, adapted);
        snprintf(what, sizeof what, "every layer and head (and the mean over heads)");
    } else {
        snprintf(d->meta.title, sizeof d->meta.title, "Attention of layer %d, %s, r = %d%s", d->layer, heads,
                 r, adapted);
        snprintf(what, sizeof what, "layer %d, %s", d->layer, heads);
    }
    const char *colour = d->scale == SCALE_FIXED ? "fixed 0..1"
                         : d->scale == SCALE_LOG ? "log10, floor 0.001"
                                                 : "each map's own range";
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Attention: %s of model %s (%d layers, %d heads; checksum %s; training seed %s)%s on "
             "\"%s\" (%s%s), repeated k = r + 1 = %d times (r = %d), bos %s, sep %s, mask %s%.60s%s; "
             "colour %s. Rows are queries, columns keys; white lines mark copy boundaries; hatched "
             "grey cells are masked%s.",
             what, model_path, d->n_layers, d->n_heads, checksum, seed_text, adapters, sentence, text_source, unknown, r + 1, r,
             repeat_bos_name(bos), repeat_sep_name(sep), mask_plan ? mask_plan : "causal", windows,
             d->copy_positions == REPEAT_POSITIONS_RESTART     ? ", positions restarting at 0 in every copy"
             : d->copy_positions == REPEAT_POSITIONS_INDUCTION ? ", positions induction-aligned (a later copy's piece i "
                                                                 "where the first copy's piece i + 1 is)"
                                                               : "",
             colour,
             any_filtered(d) ? "; plain grey cells are visible but hidden, to show only what the last copy's "
                               "words take from earlier copies"
                             : "");
}

/* Write text as one double-quoted CSV field ("" for a quote inside). */
static void write_quoted(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

/* Write the T rows of map (layer, head) in the wide format of
 * attention_data_write_csv. */
static void write_map(const AttentionData *d, FILE *out, int layer, int head)
{
    for (int q = 0; q < d->T; q++) {
        if (head >= 0) fprintf(out, "%d,%d,%d,", layer, head, q);
        else fprintf(out, "%d,mean,%d,", layer, q);
        write_quoted(out, d->tokens[q]);
        fprintf(out, ",%d", d->copy[q]);
        for (int k = 0; k < d->T; k++) {
            if (attention_visible(d, layer, q, k)) fprintf(out, ",%.4g", attention_value(d, layer, head, q, k));
            else fputc(',', out);
        }
        fputc('\n', out);
    }
}

void attention_data_write_csv(const AttentionData *d, FILE *out, int all_maps)
{
    fprintf(out, "layer,head,query,query_token,query_copy");
    for (int k = 0; k < d->T; k++) fprintf(out, ",k%d", k);
    fputc('\n', out);
    if (!all_maps) {
        write_map(d, out, d->layer, d->head);
        return;
    }
    for (int l = 0; l < d->n_layers; l++) {
        for (int h = 0; h < d->n_heads; h++) write_map(d, out, l, h);
        if (d->n_heads > 1) write_map(d, out, l, -1);
    }
}

void attention_last_copy_visible(const AttentionData *d, uint8_t *out)
{
    size_t T = (size_t)d->T;
    int last = d->k - 1;
    for (int m = 0; m < d->n_visible; m++)
        for (size_t q = 0; q < T; q++)
            for (size_t k = 0; k < T; k++) {
                size_t i = ((size_t)m * T + q) * T + k;
                int keep = d->copy[q] == last && d->copy[k] >= 0 && d->copy[k] < last;
                if (d->visible[i] == ATTENTION_MASKED) out[i] = ATTENTION_MASKED;
                else out[i] = keep ? ATTENTION_SHOWN : ATTENTION_FILTERED;
            }
}

/* "7 'word' (copy c)" or "0 '<bos>' (no copy)" for position t, copies counted from 1. */
static void describe_token(const AttentionData *d, int t, char *out, size_t cap)
{
    if (d->copy[t] >= 0) snprintf(out, cap, "%d '%.40s' (copy %d)", t, d->tokens[t], d->copy[t] + 1);
    else snprintf(out, cap, "%d '%.40s' (no copy)", t, d->tokens[t]);
}

void attention_tooltip(const AttentionData *d, int layer, int head, int query, int key, char *out, size_t cap)
{
    char q[80], k[80];
    describe_token(d, query, q, sizeof q);
    describe_token(d, key, k, sizeof k);
    if (attention_filtered(d, layer, query, key))
        snprintf(out, cap, "query %s\nkey %s\nhidden by the b filter", q, k);
    else if (!attention_visible(d, layer, query, key))
        snprintf(out, cap, "query %s\nkey %s\nmasked", q, k);
    else
        snprintf(out, cap, "query %s\nkey %s\np = %.4f", q, k, attention_value(d, layer, head, query, key));
}
