/* test_model.c — the whole model: finite-difference gradients in every mask
 * and position plan and with the Hugging Face features (grouped-query
 * attention, head_dim, biases, q/k norms, Llama 3.1 RoPE), padding isolation,
 * early exit, the forward-only inference model, batch invariance (alone and
 * in a padded batch, every mask and position plan), reproducibility, the optimiser (which skips a non-finite
 * gradient) and schedule, and a tiny model learning a task to near-zero loss. */
#include "test_util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/adamw.h"
#include "engine/ops/mask.h"
#include "engine/model.h"
#include "engine/serving/model_inference.h"

enum { TB = 2, TT = 6, TV = 13, TC = 8, TL = 3, TH = 2, TF = 12 };

static ModelConfig small_config(int tied)
{
    ModelConfig c = {.vocab_size = TV, .d_model = TC, .n_layers = TL, .n_heads = TH, .d_ff = TF,
                     .max_seq_len = 16, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = tied};
    return c;
}

/* A model with larger-than-default random weights so that attention is far
 * from uniform and gradients are large enough to check numerically; with
 * repo_from >= 0, layers repo_from.. are RePo layers. */
static void make_model_repo(Model *m, int tied, unsigned long long seed, int repo_from)
{
    ModelConfig c = small_config(tied);
    c.repo = repo_from >= 0;
    c.repo_from = repo_from >= 0 ? repo_from : 0;
    SrError err;
    assert_int_equal(model_create(m, &c, TB, TT, &err), 0);
    unsigned long long st = seed;
    test_fill_random(m->params, (long)m->n_params, &st, 0.5f);
    for (int i = 0; i < TL * TC; i++) m->p.ln1w[i] = 1.0f + 0.3f * m->p.ln1w[i];
    for (int i = 0; i < TL * TC; i++) m->p.ln2w[i] = 1.0f + 0.3f * m->p.ln2w[i];
    for (int i = 0; i < TC; i++) m->p.lnfw[i] = 1.0f + 0.3f * m->p.lnfw[i];
}

static void make_model(Model *m, int tied, unsigned long long seed)
{
    make_model_repo(m, tied, seed, -1);
}

typedef struct {
    int ids[TB * TT];
    int targets[TB * TT];
    int lengths[TB];
    int positions[TB * TT];
    float real_pos[TL * TB * TT * TH];
    MaskKind mask[TL];
    PosKind pos[TL];
    ModelInput in;
} Batch;

static void make_batch(Batch *b, const char *mask_plan, const PosKind *pos)
{
    unsigned long long st = 77;
    for (int i = 0; i < TB * TT; i++) {
        b->ids[i] = (i * 7 + 3) % TV;
        b->targets[i] = (i * 5 + 1) % TV;
        b->positions[i] = (i % TT) + 2 * (i / TT);
    }
    b->targets[4] = -1;
    b->lengths[0] = TT;
    b->lengths[1] = TT - 2;
    for (int t = TT - 2; t < TT; t++) b->targets[TT + t] = -1; /* padding is never a target */
    test_fill_random(b->real_pos, TL * TB * TT * TH, &st, 4.0f);
    assert_int_equal(mask_plan_parse(mask_plan, b->mask, TL), 0);
    if (pos) memcpy(b->pos, pos, sizeof b->pos);
    ModelInput in = {.B = TB, .T = TT, .ids = b->ids, .lengths = b->lengths,
                     .positions = b->positions, .mask = b->mask, .pos_kind = pos ? b->pos : NULL,
                     .real_pos = b->real_pos, .want_logits = 1};
    b->in = in;
}

static double loss_of(Model *m, Batch *b)
{
    SrError err;
    assert_int_equal(model_forward(m, &b->in, &err), 0);
    return model_lm_loss(m, b->targets, -1);
}

/* Compare the analytic gradient of one float against central differences. */
static void check_one(Model *m, Batch *b, float *x, float analytic, const char *what, long idx)
{
    const float h = 3e-3f;
    float saved = *x;
    *x = saved + h;
    double lp = loss_of(m, b);
    *x = saved - h;
    double lm = loss_of(m, b);
    *x = saved;
    double numeric = (lp - lm) / (2.0 * h);
    double tol = 2e-2 * fmax(fabs(numeric), fabs(analytic)) + 2e-4;
    if (fabs(numeric - analytic) > tol) {
        print_error("%s[%ld]: analytic %.6g numeric %.6g\n", what, idx, analytic, numeric);
        fail();
    }
}

/* Finite-difference check of a sample of every parameter tensor and of the
 * real-valued positions, for one mask plan and position plan (NULL: the
 * model's default, RePo layers from repo_from when repo_from >= 0). */
static void gradient_check_repo(const char *mask_plan, const PosKind *pos, int tied, int repo_from)
{
    Model m;
    Batch b;
    make_model_repo(&m, tied, 1234, repo_from);
    make_batch(&b, mask_plan, pos);
    loss_of(&m, &b);
    model_zero_grad(&m);
    model_backward(&m, b.targets, -1);
    float *grads = malloc(m.n_params * sizeof(float));
    memcpy(grads, m.grads, m.n_params * sizeof(float));
    float *dpos = malloc(sizeof b.real_pos);
    memcpy(dpos, m.ga.dreal_pos, sizeof b.real_pos);

    for (size_t i = 0; i < m.n_params; i += 7) check_one(&m, &b, &m.params[i], grads[i], "param", (long)i);
    for (int l = 0; l < TL && pos; l++) {
        if (pos[l] != POS_REAL) continue;
        for (int i = 0; i < TB * TT * TH; i += 3) {
            long k = (long)l * TB * TT * TH + i;
            check_one(&m, &b, &b.real_pos[k], dpos[k], "real_pos", k);
        }
    }
    free(dpos);
    free(grads);
    model_free(&m);
}

static void gradient_check(const char *mask_plan, const PosKind *pos, int tied)
{
    gradient_check_repo(mask_plan, pos, tied, -1);
}

static const PosKind ALL_ROPE[TL] = {POS_ROPE, POS_ROPE, POS_ROPE};
static const PosKind ALL_NOPE[TL] = {POS_NONE, POS_NONE, POS_NONE};
static const PosKind MIXED[TL] = {POS_ROPE, POS_REAL, POS_NONE};
static const PosKind ALL_REAL[TL] = {POS_REAL, POS_REAL, POS_REAL};

static void test_grad_causal_rope(void **s) { (void)s; gradient_check("causal", ALL_ROPE, 1); }
static void test_grad_full_rope_untied(void **s) { (void)s; gradient_check("full", ALL_ROPE, 0); }
static void test_grad_middle_mixed(void **s) { (void)s; gradient_check("middle", MIXED, 1); }
static void test_grad_causal_nope(void **s) { (void)s; gradient_check("causal", ALL_NOPE, 0); }
static void test_grad_subset_real(void **s) { (void)s; gradient_check("0,2", ALL_REAL, 1); }
static void test_grad_full_real(void **s) { (void)s; gradient_check("full", ALL_REAL, 0); }
/* RePo: gradients reach W_g, W_c, W_z through the rotation (default plan:
 * RoPE below repo_from, RePo from it on), also with an explicit mixed plan. */
static void test_grad_repo(void **s) { (void)s; gradient_check_repo("causal", NULL, 1, 1); }
static const PosKind REPO_MIXED[TL] = {POS_REPO, POS_NONE, POS_REPO};
static void test_grad_repo_mixed(void **s) { (void)s; gradient_check_repo("middle", REPO_MIXED, 0, 0); }

/* The Hugging Face features together: 2 query heads sharing 1 key/value
 * head, head size 6 (not 8 / 2), q/k/v biases, per-head q/k norms, Llama 3.1
 * RoPE frequencies (orig 16, low 1, high 4: one frequency kept, one divided
 * by the factor, one smoothed between), an untied head. */
static void make_hf_model(Model *m)
{
    ModelConfig c = small_config(0);
    c.family.n_kv_heads = 1;
    c.family.head_dim = 6;
    c.family.qkv_bias = 1;
    c.family.qk_norm = 1;
    c.family.rope_llama3 = 1;
    c.family.rope_factor = 4.0f;
    c.family.rope_low_freq_factor = 1.0f;
    c.family.rope_high_freq_factor = 4.0f;
    c.family.rope_original_max_pos = 16;
    SrError err;
    assert_int_equal(model_create(m, &c, TB, TT, &err), 0);
    unsigned long long st = 4321;
    test_fill_random(m->params, (long)m->n_params, &st, 0.5f);
    for (int i = 0; i < TL * 6; i++) m->p.family.qnw[i] = 1.0f + 0.3f * m->p.family.qnw[i];
    for (int i = 0; i < TL * 6; i++) m->p.family.knw[i] = 1.0f + 0.3f * m->p.family.knw[i];
}

/* Finite differences of every bias, q_norm and k_norm weight, every shared
 * key/value row of wqkv, and a sample of the rest, on the model above. */
static void test_grad_hf_features(void **s)
{
    (void)s;
    Model m;
    Batch b;
    make_hf_model(&m);
    make_batch(&b, "causal", NULL);
    loss_of(&m, &b);
    model_zero_grad(&m);
    model_backward(&m, b.targets, -1);
    float *grads = malloc(m.n_params * sizeof(float));
    memcpy(grads, m.grads, m.n_params * sizeof(float));
    size_t Q = 12, K = 6, W = Q + 2 * K;
    for (size_t i = 0; i < TL * W; i++) {
        size_t k = (size_t)(m.p.family.bqkv - m.params) + i;
        check_one(&m, &b, &m.params[k], grads[k], "bqkv", (long)i);
    }
    for (size_t i = 0; i < TL * 6; i++) {
        size_t kq = (size_t)(m.p.family.qnw - m.params) + i, kk = (size_t)(m.p.family.knw - m.params) + i;
        check_one(&m, &b, &m.params[kq], grads[kq], "q_norm", (long)i);
        check_one(&m, &b, &m.params[kk], grads[kk], "k_norm", (long)i);
    }
    for (int l = 0; l < TL; l++)
        for (size_t i = Q * TC; i < W * TC; i += 2) { /* k and v rows: one head, two readers */
            size_t k = (size_t)(m.p.wqkv - m.params) + (size_t)l * W * TC + i;
            check_one(&m, &b, &m.params[k], grads[k], "wqkv k/v", (long)k);
        }
    for (size_t i = 0; i < m.n_params; i += 11) check_one(&m, &b, &m.params[i], grads[i], "param", (long)i);
    free(grads);
    model_free(&m);
}

/* A RePo layer whose positions are forced to the token index is exactly a
 * RoPE layer; and rotating by the z it computed equals giving that z as
 * real-valued positions. */
static void test_repo_equals_rope_at_index(void **s)
{
    (void)s;
    Model m;
    Batch b;
    SrError err;
    make_model_repo(&m, 1, 21, 1);
    make_batch(&b, "causal", ALL_ROPE);
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    float rope[TB * TT * TV];
    memcpy(rope, m.a.logits, sizeof rope);
    b.in.pos_kind = NULL; /* default plan: layers 1, 2 are RePo */
    b.in.repo_force_index = 1;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    for (int i = 0; i < TB * TT * TV; i++) assert_true(fabsf(rope[i] - m.a.logits[i]) <= 1e-6f);

    b.in.repo_force_index = 0;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    float repo[TB * TT * TV];
    memcpy(repo, m.a.logits, sizeof repo);
    assert_null(model_repo_positions(&m, 0));
    for (int l = 1; l < TL; l++)
        memcpy(b.real_pos + (size_t)l * TB * TT * TH, model_repo_positions(&m, l),
               TB * TT * TH * sizeof(float));
    PosKind real_plan[TL] = {POS_ROPE, POS_REAL, POS_REAL};
    b.in.pos_kind = real_plan;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    assert_memory_equal(repo, m.a.logits, sizeof repo);
    /* and the positions really differ from the index, so the check means something */
    assert_true(fabsf(repo[TV] - rope[TV]) > 1e-6f || fabsf(repo[2 * TV] - rope[2 * TV]) > 1e-6f);

    /* a RePo plan on a layer without RePo weights is refused */
    PosKind bad[TL] = {POS_REPO, POS_ROPE, POS_ROPE};
    b.in.pos_kind = bad;
    assert_int_equal(model_forward(&m, &b.in, &err), -1);
    assert_non_null(strstr(err.msg, "no RePo weights"));
    model_free(&m);
    ModelConfig c = small_config(1);
    c.repo = 1;
    c.repo_from = TL;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), -1);
    assert_non_null(strstr(err.msg, "repo_from"));
}

/* An inference model on the weights of a training model (model_create_inference)
 * gives the same residual streams, logits and RePo positions; every layer's
 * attention, asked for again with model_layer_attention in any order, equals
 * what the training model's forward kept; with a padded batch, a mask plan
 * of mixed layers, RePo layers, and the Hugging Face features. */
static void check_inference_equals(Model *train, const char *mask_plan)
{
    Batch b;
    SrError err;
    make_batch(&b, mask_plan, NULL);
    assert_int_equal(model_forward(train, &b.in, &err), 0);
    Model inf;
    assert_int_equal(model_create_inference(&inf, train, TB, TT, &err), 0);
    assert_int_equal(model_forward(&inf, &b.in, &err), 0);
    for (int l = 0; l <= TL; l++)
        assert_memory_equal(model_hidden(&inf, l), model_hidden(train, l), sizeof(float) * TB * TT * TC);
    assert_memory_equal(inf.a.logits, train->a.logits, sizeof(float) * TB * TT * TV);
    for (int l = 0; l < TL; l++)
        if (model_repo_positions(train, l))
            assert_memory_equal(model_repo_positions(&inf, l), model_repo_positions(train, l),
                                sizeof(float) * TB * TT * TH);
    size_t one = (size_t)TB * TH * TT * TT;
    const int order[TL] = {2, 0, 1};
    for (int i = 0; i < TL; i++) {
        const float *att = model_layer_attention(&inf, order[i], NULL, &err);
        assert_non_null(att);
        assert_memory_equal(att, model_attention(train, order[i]), sizeof(float) * one);
    }
    float *mine = malloc(sizeof(float) * one);
    assert_ptr_equal(model_layer_attention(&inf, 1, mine, &err), mine);
    assert_memory_equal(mine, model_attention(train, 1), sizeof(float) * one);
    free(mine);
    /* recomputing on the training model gives its own numbers back */
    assert_memory_equal(model_layer_attention(train, 1, NULL, &err), model_attention(train, 1), sizeof(float) * one);
    assert_null(model_layer_attention(&inf, TL, NULL, &err));
    assert_non_null(strstr(err.msg, "was not run"));
    model_free(&inf);
    /* the weights were borrowed: the training model's are intact */
    assert_non_null(train->params);
}

static void test_inference_model(void **s)
{
    (void)s;
    Model m;
    make_model_repo(&m, 0, 31, 1);
    check_inference_equals(&m, "causal");
    check_inference_equals(&m, "0,2");
    model_free(&m);
    make_hf_model(&m);
    check_inference_equals(&m, "middle");
    model_free(&m);
}

/* LOGITS_LAST (generation): each row's last position's logits alone, as
 * the forward of every position gives them, after the final soft cap too;
 * a padded batch on the Hugging Face features' model. */
static void test_last_logits(void **s)
{
    (void)s;
    Model w, inf;
    Batch b;
    SrError err;
    make_hf_model(&w);
    w.cfg.family.logit_softcap = 0.5f; /* copied by the inference model, which keeps no capped copy */
    make_batch(&b, "causal", NULL);
    assert_int_equal(model_create_inference(&inf, &w, TB, TT, &err), 0);
    float all[TB * TT * TV];
    assert_int_equal(model_forward(&inf, &b.in, &err), 0);
    memcpy(all, inf.a.logits, sizeof all);
    b.in.want_logits = LOGITS_LAST;
    assert_int_equal(model_forward(&inf, &b.in, &err), 0);
    for (int r = 0; r < TB; r++)
        for (int v = 0; v < TV; v++) {
            float want = all[((size_t)r * TT + b.lengths[r] - 1) * TV + v];
            assert_true(fabsf(want) <= 0.5f); /* capped */
            assert_true(fabsf(inf.a.logits[r * TV + v] - want) <= 1e-5f * (1.0f + fabsf(want)));
        }
    b.in.want_logits = LOGITS_LAST + 1;
    assert_int_equal(model_forward(&inf, &b.in, &err), -1);
    assert_non_null(strstr(err.msg, "want_logits"));
    model_free(&inf);
    model_free(&w);
}

/* Batch invariance (LLM2Vec's users found bidirectional attention silently
 * off at batch size 1): a sentence's hidden states at every layer are the
 * same alone (B = 1, T = its length) and as the shortest row of a right-padded
 * batch beside longer sentences, for every mask plan (causal, bidirectional,
 * middle) and position plan (running, restarting in each half as SR's
 * copies do, RePo layers); up to float rounding of matrix products of
 * another shape. */
static void check_batch_invariance(Model *m, const char *mask_plan, int restart)
{
    enum { N = 4, BB = 3, BT = 7 };
    SrError err;
    MaskKind mask[TL];
    assert_int_equal(mask_plan_parse(mask_plan, mask, TL), 0);
    int alone_ids[N] = {3, 9, 4, 11}, alone_pos[N];
    for (int t = 0; t < N; t++) alone_pos[t] = restart ? t % (N / 2) : t;
    ModelInput one = {.B = 1, .T = N, .ids = alone_ids, .positions = alone_pos, .mask = mask};
    assert_int_equal(model_forward(m, &one, &err), 0);
    float alone[(TL + 1) * N * TC];
    for (int l = 0; l <= TL; l++) memcpy(alone + (size_t)l * N * TC, model_hidden(m, l), sizeof(float) * N * TC);
    /* row 1 holds the sentence, rows 0 and 2 longer ones; padding ids differ */
    int ids[BB * BT], pos[BB * BT], lengths[BB] = {BT, N, BT - 1};
    for (int i = 0; i < BB * BT; i++) ids[i] = (i * 5 + 2) % TV, pos[i] = restart ? (i % BT) % 3 : i % BT;
    for (int t = 0; t < N; t++) ids[BT + t] = alone_ids[t], pos[BT + t] = alone_pos[t];
    ModelInput batch = {.B = BB, .T = BT, .ids = ids, .positions = pos, .lengths = lengths, .mask = mask};
    assert_int_equal(model_forward(m, &batch, &err), 0);
    for (int l = 0; l <= TL; l++) {
        const float *row = model_hidden(m, l) + (size_t)1 * BT * TC;
        for (int i = 0; i < N * TC; i++) {
            float a = alone[(size_t)l * N * TC + i];
            assert_true(fabsf(row[i] - a) <= 1e-5f * (1.0f + fabsf(a)));
        }
    }
}

static void test_batch_invariance(void **s)
{
    (void)s;
    const char *plans[3] = {"causal", "full", "middle"};
    for (int repo = 0; repo < 2; repo++) {
        ModelConfig c = small_config(1);
        c.repo = repo;
        c.repo_from = 1;
        c.max_seq_len = 16;
        Model m;
        SrError err;
        assert_int_equal(model_create(&m, &c, 3, 7, &err), 0);
        unsigned long long st = 101;
        test_fill_random(m.params, (long)m.n_params, &st, 0.5f);
        for (int p = 0; p < 3; p++)
            for (int restart = 0; restart < 2; restart++) check_batch_invariance(&m, plans[p], restart);
        model_free(&m);
    }
}

/* The middle-unmasking plan follows the paper's formula. */
static void test_middle_plan(void **s)
{
    (void)s;
    MaskKind plan[32];
    mask_plan_middle(plan, 32); /* cut 10, lb 10, ub 21 */
    for (int l = 0; l < 32; l++) assert_int_equal(plan[l], (l >= 10 && l <= 21) ? MASK_BIDIRECTIONAL : MASK_CAUSAL);
    mask_plan_middle(plan, 4); /* cut 0, lb 1, ub 2 */
    assert_int_equal(plan[0], MASK_CAUSAL);
    assert_int_equal(plan[1], MASK_BIDIRECTIONAL);
    assert_int_equal(plan[2], MASK_BIDIRECTIONAL);
    assert_int_equal(plan[3], MASK_CAUSAL);
    assert_int_equal(mask_plan_parse("1,x", plan, 4), -1);
    assert_int_equal(mask_plan_parse("4", plan, 4), -1);
}

/* Whatever sits in padding positions never changes the valid tokens' outputs,
 * in causal and bidirectional layers alike. */
static void test_padding_isolated(void **s)
{
    (void)s;
    Model m;
    Batch b;
    make_model(&m, 1, 99);
    make_batch(&b, "full", ALL_ROPE);
    SrError err;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    float before[TT * TV];
    memcpy(before, m.a.logits + TT * TV, sizeof before);
    b.ids[TT + TT - 1] = (b.ids[TT + TT - 1] + 5) % TV;
    b.ids[TT + TT - 2] = (b.ids[TT + TT - 2] + 3) % TV;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    for (int i = 0; i < (TT - 2) * TV; i++) assert_true(before[i] == m.a.logits[TT * TV + i]);
    /* and attention never lands on padding keys */
    for (int l = 0; l < TL; l++) {
        const float *att = model_attention(&m, l) + (size_t)1 * TH * TT * TT;
        for (int h = 0; h < TH; h++)
            for (int q = 0; q < TT; q++)
                for (int k = TT - 2; k < TT; k++) assert_true(att[(h * TT + q) * TT + k] == 0.0f);
    }
    model_free(&m);
}

/* Running only the first L layers gives the same residual stream up to L as
 * the full model, and positions are inputs (a shift of all positions leaves a
 * RoPE model's outputs unchanged, up to rounding). */
static void test_early_exit_and_positions(void **s)
{
    (void)s;
    Model m;
    Batch b;
    SrError err;
    make_model(&m, 1, 5);
    make_batch(&b, "causal", ALL_ROPE);
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    float full[TB * TT * TC];
    memcpy(full, model_hidden(&m, 2), sizeof full);
    float logits_full[TB * TT * TV];
    memcpy(logits_full, m.a.logits, sizeof logits_full);
    b.in.n_run = 2;
    b.in.want_logits = 0;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    assert_memory_equal(full, model_hidden(&m, 2), sizeof full);
    b.in.n_run = TL + 1;
    assert_int_equal(model_forward(&m, &b.in, &err), -1);
    assert_non_null(strstr(err.msg, "exit layer"));

    b.in.n_run = 0;
    b.in.want_logits = 1;
    for (int i = 0; i < TB * TT; i++) b.positions[i] += 11;
    assert_int_equal(model_forward(&m, &b.in, &err), 0);
    for (int i = 0; i < TB * TT * TV; i++)
        assert_true(fabs(logits_full[i] - m.a.logits[i]) < 1e-4);
    model_free(&m);
}

/* Bad inputs are refused with a message, never a crash. */
static void test_bad_inputs(void **s)
{
    (void)s;
    Model m;
    SrError err;
    ModelConfig c = small_config(1);
    c.n_heads = 3;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), -1);
    assert_non_null(strstr(err.msg, "divisible"));
    c = small_config(1);
    c.d_model = 0;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), -1);
    c = small_config(1);
    assert_int_equal(model_create(&m, &c, 1, 17, &err), -1);
    assert_non_null(strstr(err.msg, "max_seq_len"));

    make_model(&m, 1, 3);
    int ids[TT] = {1, 2, 3, TV, 0, 0};
    ModelInput in = {.B = 1, .T = TT, .ids = ids, .want_logits = 1};
    assert_int_equal(model_forward(&m, &in, &err), -1);
    assert_non_null(strstr(err.msg, "vocabulary"));
    ids[3] = 1;
    in.T = TT + 1;
    assert_int_equal(model_forward(&m, &in, &err), -1);
    in.T = TT;
    int len = 0;
    in.lengths = &len;
    assert_int_equal(model_forward(&m, &in, &err), -1);
    model_free(&m);
}

/* Sizes whose products would wrap around size_t or int (a config.json can
 * claim any of them) are refused with a message before anything is
 * allocated, instead of allocating a wrapped-around small buffer. */
static void test_sizes_overflow(void **s)
{
    (void)s;
    Model m;
    SrError err;
    ModelConfig c = small_config(0);
    c.vocab_size = INT_MAX;           /* V x C x 4 bytes, twice (untied): past 2^64 */
    c.d_model = INT_MAX - 3;         /* head size 2^30 - 2, even */
    c.n_heads = 2;
    c.family.head_dim = 0;
    c.d_ff = 8;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), -1);
    assert_non_null(strstr(err.msg, "too large"));
    assert_null(m.params);

    c = small_config(1);
    c.n_heads = 1 << 16;              /* Q = n_heads x head_dim = 2^32: past INT_MAX */
    c.family.n_kv_heads = 1 << 16;
    c.family.head_dim = 1 << 16;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), -1);
    assert_non_null(strstr(err.msg, "too large"));

    c = small_config(1);
    c.n_layers = INT_MAX;             /* L x (...) x C: the per-layer stacks */
    c.d_ff = INT_MAX / 2;
    c.max_seq_len = INT_MAX;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), -1);
    assert_non_null(strstr(err.msg, "too large"));
    assert_int_equal(model_create(&m, &c, INT_MAX, INT_MAX, &err), -1);
    assert_non_null(strstr(err.msg, "too large"));

    c = small_config(1);              /* the small model still fits */
    assert_int_equal(model_create(&m, &c, 2, 16, &err), 0);
    model_free(&m);
}

/* The schedule warms up linearly and decays by a cosine to lr_min. */
static void test_lr_schedule(void **s)
{
    (void)s;
    assert_float_equal(lr_schedule(1, 10, 100, 1.0f, 0.1f), 0.1f, 1e-6);
    assert_float_equal(lr_schedule(10, 10, 100, 1.0f, 0.1f), 1.0f, 1e-6);
    assert_float_equal(lr_schedule(55, 10, 100, 1.0f, 0.1f), 0.55f, 1e-6);
    assert_float_equal(lr_schedule(100, 10, 100, 1.0f, 0.1f), 0.1f, 1e-6);
    assert_float_equal(lr_schedule(1, 0, 100, 1.0f, 0.0f), 1.0f, 1e-3);
}

/* One AdamW step on a hand-set gradient: with bias correction the first step
 * moves every parameter by lr * sign(g) (plus decay on matrices only), after
 * clipping by the global norm. */
/* A small model with zeroed AdamW moments; returns a copy of its weights
 * (caller frees). */
static float *model_for_adamw(Model *m)
{
    make_model(m, 1, 8);
    SrError err;
    assert_int_equal(adamw_create(m, &err), 0);
    float *before = malloc(m->n_params * sizeof(float));
    memcpy(before, m->params, m->n_params * sizeof(float));
    return before;
}

static void test_adamw_first_step(void **s)
{
    (void)s;
    Model m;
    float *before = model_for_adamw(&m);
    for (size_t i = 0; i < m.n_params; i++) m.grads[i] = (i % 2) ? 3.0f : -3.0f;
    AdamWConfig cfg = adamw_defaults();
    cfg.eps = 0.0f;
    float norm = adamw_step(&m, &cfg, 0.01f, 1);
    assert_float_equal(norm, 3.0f * sqrtf((float)m.n_params), 1e-2 * norm);
    for (size_t i = 0; i < m.n_params; i++) {
        int is_norm_weight = (m.params + i >= m.p.ln1w && m.params + i < m.p.ln1w + TL * TC) ||
                             (m.params + i >= m.p.ln2w && m.params + i < m.p.ln2w + TL * TC) ||
                             (m.params + i >= m.p.lnfw && m.params + i < m.p.lnfw + TC);
        float wd = is_norm_weight ? 0.0f : 0.1f;
        float expect = before[i] - 0.01f * (((i % 2) ? 1.0f : -1.0f) + wd * before[i]);
        assert_float_equal(m.params[i], expect, 1e-5);
    }
    free(before);
    model_free(&m);
}

/* A NaN among the gradients: adamw_step returns a non-finite norm and
 * leaves every weight and moment as it was. */
static void test_adamw_skips_nonfinite(void **s)
{
    (void)s;
    Model m;
    float *before = model_for_adamw(&m);
    for (size_t i = 0; i < m.n_params; i++) m.grads[i] = 0.5f;
    m.grads[m.n_params / 2] = NAN;
    AdamWConfig cfg = adamw_defaults();
    assert_false(isfinite(adamw_step(&m, &cfg, 0.01f, 1)));
    assert_memory_equal(m.params, before, m.n_params * sizeof(float));
    for (size_t i = 0; i < m.n_params; i++) assert_true(m.m1[i] == 0.0f && m.m2[i] == 0.0f);
    free(before);
    model_free(&m);
}

/* Train steps on a copy task; returns the final loss and the parameters. */
static float train_copy_task(Model *m, int steps, unsigned long long seed)
{
    ModelConfig c = {.vocab_size = 16, .d_model = 32, .n_layers = 2, .n_heads = 4, .d_ff = 64,
                     .max_seq_len = 16, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    SrError err;
    assert_int_equal(model_create(m, &c, 8, 16, &err), 0);
    model_init_weights(m, seed);
    assert_int_equal(adamw_create(m, &err), 0);
    AdamWConfig cfg = adamw_defaults();
    cfg.weight_decay = 0.0f;
    int ids[8 * 16], targets[8 * 16];
    float loss = 0.0f;
    unsigned long long st = seed;
    for (int step = 1; step <= steps; step++) {
        /* each row: 8 random symbols, then the same 8 again; only the second
         * half is predictable, so only it is a target */
        for (int b = 0; b < 8; b++) {
            for (int t = 0; t < 8; t++) {
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                ids[b * 16 + t] = ids[b * 16 + t + 8] = 6 + (int)((st >> 33) % 10);
            }
            for (int t = 0; t < 16; t++)
                targets[b * 16 + t] = (t >= 7 && t < 15) ? ids[b * 16 + t + 1] : -1;
        }
        ModelInput in = {.B = 8, .T = 16, .ids = ids, .want_logits = 1};
        assert_int_equal(model_forward(m, &in, &err), 0);
        loss = model_lm_loss(m, targets, -1);
        model_zero_grad(m);
        model_backward(m, targets, -1);
        adamw_step(m, &cfg, lr_schedule(step, 20, steps, 1e-2f, 1e-3f), step);
    }
    return loss;
}

/* A tiny model learns to copy (an induction task) to near-zero loss, and the
 * same seed and thread count give bit-identical parameters. */
static void test_learns_and_reproducible(void **s)
{
    (void)s;
    Model a, b;
    float la = train_copy_task(&a, 400, 42);
    float lb = train_copy_task(&b, 400, 42);
    assert_true(la < 0.05f);
    assert_true(la == lb);
    assert_memory_equal(a.params, b.params, a.n_params * sizeof(float));
    model_free(&a);
    model_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_causal_rope),
        cmocka_unit_test(test_grad_full_rope_untied),
        cmocka_unit_test(test_grad_middle_mixed),
        cmocka_unit_test(test_grad_causal_nope),
        cmocka_unit_test(test_grad_subset_real),
        cmocka_unit_test(test_grad_full_real),
        cmocka_unit_test(test_grad_repo),
        cmocka_unit_test(test_grad_repo_mixed),
        cmocka_unit_test(test_grad_hf_features),
        cmocka_unit_test(test_repo_equals_rope_at_index),
        cmocka_unit_test(test_inference_model),
        cmocka_unit_test(test_last_logits),
        cmocka_unit_test(test_batch_invariance),
        cmocka_unit_test(test_middle_plan),
        cmocka_unit_test(test_padding_isolated),
        cmocka_unit_test(test_early_exit_and_positions),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_sizes_overflow),
        cmocka_unit_test(test_lr_schedule),
        cmocka_unit_test(test_adamw_first_step),
        cmocka_unit_test(test_adamw_skips_nonfinite),
        cmocka_unit_test(test_learns_and_reproducible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
