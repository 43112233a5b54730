/* test_golden.c — the C model against the PyTorch reference.
 *
 * For each golden case written by tests/reference/make_golden.py it loads the
 * initial weights with the checkpoint loader (so the Python-written checkpoint
 * format is checked too), runs the inputs of golden/<case>.io.safetensors and
 * compares: logits, loss, every parameter gradient (Hugging Face names mapped
 * onto the fused q/k/v and gate/up buffers), the gradient of real-valued
 * positions, the loss after one AdamW step and the weights after two. A RePo
 * case (position plan "repo") also compares the positions z its RePo layers
 * computed, and the gradients and updates of their gate, content and z
 * projections.
 *
 * Tolerance (the rule of tests/reference/README.md): element a matches golden
 * element b when |a - b| <= 1e-4 * (max(|a|, |b|) + rms), rms being the
 * root-mean-square of the whole golden tensor. Every mismatching tensor is
 * reported with its worst element before the case fails. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/adamw.h"
#include "engine/lora.h"
#include "engine/ops/mask.h"
#include "engine/model.h"
#include "formats/checkpoint.h"
#include "formats/safetensors.h"

#define GOLDEN_REL 1e-4
#define MAX_LAYERS 16

/* ---- comparing ----------------------------------------------------------- */

/* Compare got (n) with golden want (n) under the golden rule. Prints the worst
 * element when it fails. Returns the worst |a-b| / tolerance (<= 1 passes). */
static double compare_floats(const char *case_name, const char *what, const float *got,
                             const float *want, size_t n)
{
    double sq = 0.0;
    for (size_t i = 0; i < n; i++) sq += (double)want[i] * want[i];
    double rms = n ? sqrt(sq / (double)n) : 0.0;
    double worst = 0.0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        double a = got[i], b = want[i];
        double diff = fabs(a - b);
        if (diff == 0.0) continue;
        double big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
        double tol = GOLDEN_REL * (big + rms);
        double ratio = tol > 0.0 ? diff / tol : INFINITY;
        if (!(ratio <= worst)) { /* also catches NaN */
            worst = isnan(ratio) ? INFINITY : ratio;
            worst_i = i;
        }
    }
    if (worst > 1.0)
        fprintf(stderr, "  %s: %s mismatch at element %zu of %zu: C %.9g, golden %.9g "
                "(%.1f x the tolerance; tensor rms %.3g)\n", case_name, what, worst_i, n,
                (double)got[worst_i], (double)want[worst_i], worst, rms);
    return worst;
}

/* ---- reading the golden files ------------------------------------------ */

/* The tensor called name, which must exist, have the dtype and hold n elements. */
static const StTensor *golden_tensor(const StFile *f, const char *name, StDtype dtype, size_t n)
{
    const StTensor *t = st_find(f, name);
    if (!t) fail_msg("golden file lacks tensor %s", name);
    assert_int_equal(t->dtype, dtype);
    if (t->nbytes != n * 4)
        fail_msg("golden tensor %s holds %zu elements, expected %zu", name, t->nbytes / 4, n);
    return t;
}

/* The metadata value for key as a number; the key must exist. */
static double golden_number(const StFile *f, const char *key)
{
    const char *text = st_meta(f, key);
    if (!text) fail_msg("golden file lacks metadata %s", key);
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end) fail_msg("golden metadata %s = \"%s\" is not a number", key, text);
    return v;
}

/* Split a comma list of n_layers names into indices of `names` (n_names). */
static void parse_plan(const char *text, const char *const *names, int n_names, int *out,
                       int n_layers)
{
    const char *p = text;
    for (int l = 0; l < n_layers; l++) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k < n_names; k++)
            if (strlen(names[k]) == len && strncmp(p, names[k], len) == 0) found = k;
        if (found < 0) fail_msg("plan \"%s\": unknown name at layer %d", text, l);
        out[l] = found;
        p += len;
        if (*p == ',') p++;
        else if (l != n_layers - 1) fail_msg("plan \"%s\" has fewer than %d layers", text, n_layers);
    }
    if (*p) fail_msg("plan \"%s\" has more than %d layers", text, n_layers);
}

/* ---- Hugging Face names onto the model's parameter buffer ---------------- */

typedef struct {
    char name[96];
    size_t offset;   /* floats from the start of the parameter buffer */
    size_t count;
} HfTensor;

/* Append one entry: name = suffix (layer < 0) or "model.layers.<layer>.<suffix>",
 * at ptr (count floats) inside the parameter buffer that starts at base. */
static void hf_add(HfTensor *out, int *n, const float *base, const float *ptr, size_t count,
                   int layer, const char *suffix)
{
    HfTensor *e = &out[(*n)++];
    if (layer < 0) snprintf(e->name, sizeof e->name, "%s", suffix);
    else snprintf(e->name, sizeof e->name, "model.layers.%d.%s", layer, suffix);
    e->offset = (size_t)(ptr - base);
    e->count = count;
}

/* Fill out with every parameter's Hugging Face name, offset and size in the
 * layout of m->params (the same offsets index m->grads), RePo projections
 * included. Returns the count. */
static int hf_tensors(const Model *m, HfTensor *out)
{
    const ModelConfig *c = &m->cfg;
    size_t C = c->d_model, F = c->d_ff, V = c->vocab_size, H = c->n_heads, P = model_repo_dim(c);
    const float *base = m->params;
    int n = 0;
    hf_add(out, &n, base, m->p.wte, V * C, -1, "model.embed_tokens.weight");
    for (int l = 0; l < c->n_layers; l++) {
        const float *qkv = m->p.wqkv + (size_t)l * 3 * C * C; /* rows: q, k, v */
        const float *gu = m->p.wgu + (size_t)l * 2 * F * C;   /* rows: gate, up */
        hf_add(out, &n, base, m->p.ln1w + (size_t)l * C, C, l, "input_layernorm.weight");
        hf_add(out, &n, base, qkv, C * C, l, "self_attn.q_proj.weight");
        hf_add(out, &n, base, qkv + C * C, C * C, l, "self_attn.k_proj.weight");
        hf_add(out, &n, base, qkv + 2 * C * C, C * C, l, "self_attn.v_proj.weight");
        hf_add(out, &n, base, m->p.wo + (size_t)l * C * C, C * C, l, "self_attn.o_proj.weight");
        hf_add(out, &n, base, m->p.ln2w + (size_t)l * C, C, l,
               "post_attention_layernorm.weight");
        hf_add(out, &n, base, gu, F * C, l, "mlp.gate_proj.weight");
        hf_add(out, &n, base, gu + F * C, F * C, l, "mlp.up_proj.weight");
        hf_add(out, &n, base, m->p.wdown + (size_t)l * C * F, C * F, l, "mlp.down_proj.weight");
        if (c->repo && l >= c->repo_from) { /* rows of wgc: gate, content */
            const float *gc = m->p.wgc + (size_t)(l - c->repo_from) * 2 * P * C;
            hf_add(out, &n, base, gc, P * C, l, "self_attn.repo.gate_proj.weight");
            hf_add(out, &n, base, gc + P * C, P * C, l, "self_attn.repo.content_proj.weight");
            hf_add(out, &n, base, m->p.wz + (size_t)(l - c->repo_from) * H * P, H * P, l,
                   "self_attn.repo.z_proj.weight");
        }
    }
    hf_add(out, &n, base, m->p.lnfw, C, -1, "model.norm.weight");
    if (!c->tied) hf_add(out, &n, base, m->p.wlm, V * C, -1, "lm_head.weight");
    return n;
}

/* Compare every parameter-shaped tensor `prefix<name>` of the golden file with
 * buf (m->grads or m->params). Returns the worst ratio. */
static double compare_params(const char *case_name, const StFile *io, const Model *m,
                             const float *buf, const char *prefix)
{
    HfTensor list[3 + 12 * MAX_LAYERS];
    int n = hf_tensors(m, list);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        char key[160];
        int len = snprintf(key, sizeof key, "%s%s", prefix, list[i].name);
        assert_true(len > 0 && (size_t)len < sizeof key);
        const StTensor *t = golden_tensor(io, key, ST_F32, list[i].count);
        double w = compare_floats(case_name, key, buf + list[i].offset, t->data, list[i].count);
        if (w > worst) worst = w;
    }
    return worst;
}

/* ---- the LoRA case --------------------------------------------------------- */

/* The PEFT name of adapter (layer, target) weight A or B into out. */
static void lora_peft_name(char *out, size_t cap, const char *prefix, int layer, int target,
                           char which)
{
    static const char proj[LORA_N_TARGETS] = {'q', 'k', 'v', 'o'};
    snprintf(out, cap, "%sbase_model.model.model.layers.%d.self_attn.%c_proj.lora_%c.weight",
             prefix, layer, proj[target], which);
}

/* Adapters as the golden file describes them (lora_rank, lora_alpha,
 * lora_targets; no dropout), with A and B set to its init.* tensors. */
static void lora_from_golden(Lora *lo, const StFile *io, const Model *m, int rows)
{
    LoraConfig cfg = {.rank = (int)golden_number(io, "lora_rank"),
                      .alpha = (float)golden_number(io, "lora_alpha"), .dropout = 0.0f};
    SrError err;
    assert_non_null(st_meta(io, "lora_targets"));
    assert_int_equal(lora_parse_targets(st_meta(io, "lora_targets"), &cfg.targets, &err), 0);
    assert_int_equal(lora_create(lo, &cfg, m->cfg.n_layers, m->cfg.d_model, rows, 1, &err), 0);
    size_t na = (size_t)cfg.rank * m->cfg.d_model;
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++) {
            if (!lora_a(lo, l, (LoraTarget)t, 0)) continue;
            char key[160];
            lora_peft_name(key, sizeof key, "init.", l, t, 'A');
            memcpy(lora_a(lo, l, (LoraTarget)t, 0), golden_tensor(io, key, ST_F32, na)->data,
                   na * sizeof(float));
            lora_peft_name(key, sizeof key, "init.", l, t, 'B');
            memcpy(lora_b(lo, l, (LoraTarget)t, 0), golden_tensor(io, key, ST_F32, na)->data,
                   na * sizeof(float));
        }
}

/* Compare every adapter weight (grads when grads is 1, else values) with the
 * golden tensors prefix<peft name>. Returns the worst ratio. */
static double compare_lora(const char *case_name, const StFile *io, const Lora *lo,
                           const char *prefix, int grads)
{
    double worst = 0.0;
    size_t na = (size_t)lo->cfg.rank * lo->d_model;
    for (int l = 0; l < lo->n_layers; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++) {
            if (!lora_a(lo, l, (LoraTarget)t, grads)) continue;
            for (int k = 0; k < 2; k++) {
                char key[160];
                lora_peft_name(key, sizeof key, prefix, l, t, k ? 'B' : 'A');
                const float *got = k ? lora_b(lo, l, (LoraTarget)t, grads)
                                     : lora_a(lo, l, (LoraTarget)t, grads);
                double w = compare_floats(case_name, key, got,
                                          golden_tensor(io, key, ST_F32, na)->data, na);
                if (w > worst) worst = w;
            }
        }
    return worst;
}

/* ---- one case ------------------------------------------------------------- */

/* The inputs of a case: the batch, its mask and position plans (mask and
 * pos_kind hold L entries), the targets and the optimiser settings. */
typedef struct {
    ModelInput in;
    MaskKind mask[MAX_LAYERS];
    PosKind pos_kind[MAX_LAYERS];
    const int *targets;
    int ignore;
    AdamWConfig opt;
    float lr;
} GoldenInputs;

/* Read the inputs of case `name` from io for model m. */
static void read_inputs(const char *name, const StFile *io, const Model *m, GoldenInputs *g)
{
    const StTensor *ids_t = st_find(io, "ids");
    int B = (int)ids_t->shape[0], T = (int)ids_t->shape[1];
    const ModelConfig *c = &m->cfg;
    int L = c->n_layers, H = c->n_heads;
    size_t BT = (size_t)B * T;
    const int *ids = ids_t->data;
    const int *lengths = golden_tensor(io, "lengths", ST_I32, (size_t)B)->data;
    const int *positions = golden_tensor(io, "positions", ST_I32, BT)->data;
    g->targets = golden_tensor(io, "targets", ST_I32, BT)->data;
    const float *real_pos = golden_tensor(io, "real_pos", ST_F32, (size_t)L * BT * H)->data;
    g->ignore = (int)golden_number(io, "ignore");

    static const char *const mask_names[] = {"causal", "bidirectional"};
    static const char *const pos_names[] = {"rope", "none", "real", "repo"};
    static const PosKind pos_kinds[] = {POS_ROPE, POS_NONE, POS_REAL, POS_REPO};
    int mask_idx[MAX_LAYERS], pos_idx[MAX_LAYERS];
    const char *mask_text = st_meta(io, "mask_plan"), *pos_text = st_meta(io, "pos_plan");
    assert_non_null(mask_text);
    assert_non_null(pos_text);
    parse_plan(mask_text, mask_names, 2, mask_idx, L);
    parse_plan(pos_text, pos_names, 4, pos_idx, L);
    for (int l = 0; l < L; l++) {
        g->mask[l] = mask_idx[l] == 0 ? MASK_CAUSAL : MASK_BIDIRECTIONAL;
        g->pos_kind[l] = pos_kinds[pos_idx[l]];
    }
    if (strcmp(name, "middle") == 0) { /* Python's middle plan is the C one */
        MaskKind middle[MAX_LAYERS];
        mask_plan_middle(middle, L);
        assert_memory_equal(middle, g->mask, (size_t)L * sizeof(MaskKind));
    }

    g->opt.beta1 = (float)golden_number(io, "beta1");
    g->opt.beta2 = (float)golden_number(io, "beta2");
    g->opt.eps = (float)golden_number(io, "eps");
    g->opt.weight_decay = (float)golden_number(io, "weight_decay");
    g->opt.grad_clip = (float)golden_number(io, "grad_clip");
    g->lr = (float)golden_number(io, "lr");

    g->in = (ModelInput){.B = B, .T = T, .ids = ids, .lengths = lengths, .positions = positions,
                         .mask = g->mask, .pos_kind = g->pos_kind, .real_pos = real_pos,
                         .want_logits = 1};
}


/* One golden case being run: its files, the model, the inputs read from
 * them, the LoRA adapters of the LoRA case, and the worst difference so far
 * as a share of the tolerance. */
typedef struct {
    const char *name;
    StFile io;
    Model m;
    CheckpointInfo info;
    GoldenInputs gi;
    int with_lora;
    Lora lo;
    double worst;
} GoldenRun;

/* Keep the worst of the differences seen. */
static void note(GoldenRun *g, double w)
{
    if (w > g->worst) g->worst = w;
}

/* Open golden case `name`: its inputs and outputs, and its model with the
 * vocabulary and manifest that came through the checkpoint. */
static void open_case(GoldenRun *g, const char *name)
{
    char model_path[256], io_path[256];
    snprintf(model_path, sizeof model_path, "golden/%s.model.safetensors", name);
    snprintf(io_path, sizeof io_path, "golden/%s.io.safetensors", name);
    SrError err;
    memset(g, 0, sizeof *g);
    g->name = name;
    if (st_read(io_path, &g->io, &err) != 0) fail_msg("%s", err.msg);
    const StTensor *ids_t = st_find(&g->io, "ids");
    if (!ids_t || ids_t->ndim != 2) fail_msg("%s: no (B, T) tensor ids", io_path);
    int B = (int)ids_t->shape[0], T = (int)ids_t->shape[1];
    if (checkpoint_load(model_path, &g->m, B, T, &g->info, &err) != 0) fail_msg("%s", err.msg);
    int V = g->m.cfg.vocab_size;
    assert_true(g->m.cfg.n_layers <= MAX_LAYERS);
    assert_int_equal(g->info.n_vocab, V);
    assert_string_equal(g->info.vocab[0], "<pad>");
    assert_string_equal(g->info.vocab[5], "<mask>");
    char last[16];
    snprintf(last, sizeof last, "w%d", V - 1);
    assert_string_equal(g->info.vocab[V - 1], last);
    assert_non_null(strstr(g->info.manifest_json, "make_golden.py"));
    read_inputs(name, &g->io, &g->m, &g->gi);
    /* the LoRA case: the base frozen, adapters trained (tests/reference/make_golden.py) */
    g->with_lora = st_meta(&g->io, "lora_rank") != NULL;
    if (g->with_lora) {
        lora_from_golden(&g->lo, &g->io, &g->m, B * T);
        g->m.lora = &g->lo;
    }
}

/* Forward and loss against the golden logits, loss and RePo positions. */
static void check_forward(GoldenRun *g)
{
    SrError err;
    const ModelConfig *c = &g->m.cfg;
    size_t BT = (size_t)g->gi.in.B * g->gi.in.T, V = (size_t)c->vocab_size, H = (size_t)c->n_heads;
    int L = c->n_layers;
    if (model_forward(&g->m, &g->gi.in, &err) != 0) fail_msg("%s", err.msg);
    note(g, compare_floats(g->name, "logits", g->m.a.logits,
                           golden_tensor(&g->io, "logits", ST_F32, BT * V)->data, BT * V));
    float loss = model_lm_loss(&g->m, g->gi.targets, g->gi.ignore);
    note(g, compare_floats(g->name, "loss", &loss, golden_tensor(&g->io, "loss", ST_F32, 1)->data, 1));
    int n_repo = 0;
    for (int l = 0; l < L; l++) {
        if (g->gi.pos_kind[l] != POS_REPO) continue;
        const float *want_z = golden_tensor(&g->io, "repo_z", ST_F32, (size_t)L * BT * H)->data;
        char what[64];
        snprintf(what, sizeof what, "repo_z[layer %d]", l);
        assert_non_null(model_repo_positions(&g->m, l));
        note(g, compare_floats(g->name, what, model_repo_positions(&g->m, l),
                               want_z + (size_t)l * BT * H, BT * H));
        n_repo++;
    }
    if (st_find(&g->io, "repo_z")) assert_true(n_repo > 0); /* a RePo case ran RePo layers */
}

/* Backward against the golden gradients of the parameters (or of the
 * adapters) and of the real-valued positions. */
static void check_backward(GoldenRun *g)
{
    const ModelConfig *c = &g->m.cfg;
    size_t BT = (size_t)g->gi.in.B * g->gi.in.T, H = (size_t)c->n_heads;
    int L = c->n_layers;
    model_zero_grad(&g->m);
    if (g->with_lora) lora_zero_grad(&g->lo);
    model_backward(&g->m, g->gi.targets, g->gi.ignore);
    note(g, g->with_lora ? compare_lora(g->name, &g->io, &g->lo, "grad.", 1)
                         : compare_params(g->name, &g->io, &g->m, g->m.grads, "grad."));
    const float *want_dpos = golden_tensor(&g->io, "grad.real_pos", ST_F32, (size_t)L * BT * H)->data;
    for (int l = 0; l < L && !g->with_lora; l++) {
        if (g->gi.pos_kind[l] != POS_REAL) continue;
        char what[64];
        snprintf(what, sizeof what, "grad.real_pos[layer %d]", l);
        size_t off = (size_t)l * BT * H;
        note(g, compare_floats(g->name, what, g->m.ga.dreal_pos + off, want_dpos + off, BT * H));
    }
}

/* Two AdamW steps on the same batch (on the adapters alone in the LoRA
 * case): the loss after one, the weights after two; in the LoRA case the
 * base weights did not move, bit for bit. */
static void check_two_steps(GoldenRun *g)
{
    SrError err;
    float *base = malloc(g->m.n_params * sizeof(float));
    memcpy(base, g->m.params, g->m.n_params * sizeof(float));
    assert_int_equal(adamw_create(&g->m, &err), 0);
    for (int step = 1; step <= 2; step++) {
        if (g->with_lora) adamw_step_lora(&g->lo, &g->gi.opt, g->gi.lr, step);
        else adamw_step(&g->m, &g->gi.opt, g->gi.lr, step);
        if (step == 2) break;
        if (model_forward(&g->m, &g->gi.in, &err) != 0) fail_msg("%s", err.msg);
        float loss2 = model_lm_loss(&g->m, g->gi.targets, g->gi.ignore);
        float want_loss2 = (float)golden_number(&g->io, "loss_step2");
        note(g, compare_floats(g->name, "loss after one step", &loss2, &want_loss2, 1));
        model_zero_grad(&g->m);
        if (g->with_lora) lora_zero_grad(&g->lo);
        model_backward(&g->m, g->gi.targets, g->gi.ignore);
    }
    note(g, g->with_lora ? compare_lora(g->name, &g->io, &g->lo, "after2.", 0)
                         : compare_params(g->name, &g->io, &g->m, g->m.params, "after2."));
    if (g->with_lora) assert_memory_equal(base, g->m.params, g->m.n_params * sizeof(float));
    free(base);
}

/* Run golden case `name` and assert that every compared tensor matches. */
static void run_golden_case(const char *name)
{
    GoldenRun g;
    open_case(&g, name);
    check_forward(&g);
    check_backward(&g);
    check_two_steps(&g);
    printf("  golden %-13s worst difference %.3f of the tolerance\n", name, g.worst);
    fflush(stdout);
    if (g.with_lora) lora_free(&g.lo);
    checkpoint_info_free(&g.info);
    model_free(&g.m);
    st_free(&g.io);
    assert_true(g.worst <= 1.0);
}

static void test_golden_causal(void **state)
{
    (void)state;
    run_golden_case("causal");
}

static void test_golden_bidirectional(void **state)
{
    (void)state;
    run_golden_case("bidirectional");
}

static void test_golden_middle(void **state)
{
    (void)state;
    run_golden_case("middle");
}

static void test_golden_nope(void **state)
{
    (void)state;
    run_golden_case("nope");
}

static void test_golden_realpos(void **state)
{
    (void)state;
    run_golden_case("realpos");
}

static void test_golden_lora(void **state)
{
    (void)state;
    run_golden_case("lora");
}

static void test_golden_repo(void **state)
{
    (void)state;
    run_golden_case("repo");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_causal),
        cmocka_unit_test(test_golden_bidirectional),
        cmocka_unit_test(test_golden_middle),
        cmocka_unit_test(test_golden_nope),
        cmocka_unit_test(test_golden_realpos),
        cmocka_unit_test(test_golden_repo),
        cmocka_unit_test(test_golden_lora),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
