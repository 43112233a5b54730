/* test_ops_rules.c — the ops the Gemma family and sliding windows added to
 * src/engine/ops/ops.h: attention under a rule (a sliding window of keys, a
 * score scale other than 1/sqrt(hd), Gemma 2's soft cap on the scores), the
 * GeGLU gate and the soft cap of the final logits. Backwards against central
 * finite differences (gradient_check.h); the window against the mask rule
 * itself (mask_build_window). */
#include "test_util.h"
#include "gradient_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops/mask.h"
#include "engine/ops/ops.h"

/* Probabilities are exactly 0 where mask_build_window masks a key and sum to
 * 1 over the rest, for both kinds, several windows and a padded row, over
 * more rows than one query block (32) so that the blocks' key ranges move. */
static void test_window_pattern(void **state)
{
    (void)state;
    enum { B = 2, T = 70, H = 2, KVH = 1, hd = 4 };
    static const int lengths[B] = {70, 45};
    static const int windows[] = {1, 2, 5, 33, 100};
    unsigned long long rng = 7;
    float *q = randoms((long)B * T * H * hd, &rng, 1.0f), *k = randoms((long)B * T * KVH * hd, &rng, 1.0f);
    float *v = randoms((long)B * T * KVH * hd, &rng, 1.0f), *out = zeros((long)B * T * H * hd);
    float *att = zeros((long)B * H * T * T);
    uint8_t *mask = malloc((size_t)T * T);
    assert_non_null(mask);
    for (int kind = 0; kind < 2; kind++)
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
            AttentionRule rule = attention_rule_plain((MaskKind)kind, hd);
            rule.window = windows[w];
            attention_forward_gqa(out, att, q, H * hd, k, KVH * hd, v, KVH * hd, lengths, &rule, B, T, H, KVH, hd);
            for (int b = 0; b < B; b++) {
                mask_build_window((MaskKind)kind, windows[w], T, lengths[b], mask);
                for (int h = 0; h < H; h++)
                    for (int t = 0; t < T; t++) {
                        const float *row = att + (((size_t)b * H + h) * T + t) * T;
                        double sum = 0.0;
                        int seen = 0;
                        for (int s = 0; s < T; s++) {
                            if (!mask[(size_t)t * T + s]) assert_true(row[s] == 0.0f);
                            else sum += row[s], seen++;
                        }
                        assert_true(seen >= 1 && (windows[w] > T || seen <= windows[w] * (kind + 1)));
                        assert_true(fabs(sum - 1.0) < 1e-5);
                    }
            }
        }
    free(q), free(k), free(v), free(out), free(att), free(mask);
}

/* The window rule by hand: causal window 3 at t = 5 sees keys 3, 4, 5;
 * bidirectional window 2 in a row of 6 sees t - 1 .. t + 1; a padding row
 * beyond the window still sees one key. */
static void test_window_by_hand(void **state)
{
    (void)state;
    int s, e;
    mask_key_range(MASK_CAUSAL, 3, 5, 10, &s, &e);
    assert_int_equal(s, 3), assert_int_equal(e, 6);
    mask_key_range(MASK_BIDIRECTIONAL, 2, 3, 6, &s, &e);
    assert_int_equal(s, 2), assert_int_equal(e, 5);
    mask_key_range(MASK_CAUSAL, 2, 9, 4, &s, &e);
    assert_int_equal(s, 3), assert_int_equal(e, 4);
    mask_key_range(MASK_CAUSAL, 0, 5, 10, &s, &e);
    assert_int_equal(s, 0), assert_int_equal(e, 6);
}

typedef struct {
    float *out, *att, *q, *k, *v, *r;
    const int *lengths;
    AttentionRule rule;
    int B, T, H, KVH, hd;
} RuleCase;

static double rule_loss(void *ctx)
{
    RuleCase *m = ctx;
    attention_forward_gqa(m->out, m->att, m->q, m->H * m->hd, m->k, m->KVH * m->hd, m->v,
                          m->KVH * m->hd, m->lengths, &m->rule, m->B, m->T, m->H, m->KVH, m->hd);
    return weighted_sum(m->out, m->r, (long)m->B * m->T * m->H * m->hd);
}

/* dq, dk, dv of attention under a rule (window, scale, soft cap; grouped
 * query heads, a padded row) against finite differences. */
static void check_rule_gradients(MaskKind kind, int window, float scale, float softcap)
{
    unsigned long long rng = 40 + (unsigned long long)window;
    static const int lengths[2] = {7, 4};
    RuleCase m = {.B = 2, .T = 7, .H = 4, .KVH = 2, .hd = 4, .lengths = lengths};
    m.rule = (AttentionRule){.kind = kind, .window = window, .scale = scale, .softcap = softcap};
    long rows = (long)m.B * m.T, C = m.H * m.hd, KC = m.KVH * m.hd;
    m.q = randoms(rows * C, &rng, 1.5f);
    m.k = randoms(rows * KC, &rng, 1.5f);
    m.v = randoms(rows * KC, &rng, 1.0f);
    m.r = randoms(rows * C, &rng, 1.0f);
    m.out = zeros(rows * C);
    m.att = zeros((long)m.B * m.H * m.T * m.T);
    rule_loss(&m);
    float *dq = zeros(rows * C), *dk = zeros(rows * KC), *dv = zeros(rows * KC);
    float *scratch = zeros((long)m.B * m.H * m.T * m.T);
    attention_backward_gqa(dq, dk, dv, (int)KC, scratch, m.r, m.q, (int)C, m.k, (int)KC, m.v,
                           m.att, lengths, &m.rule, m.B, m.T, m.H, m.KVH, m.hd);
    check_gradient("rule dq", rule_loss, &m, m.q, dq, rows * C);
    check_gradient("rule dk", rule_loss, &m, m.k, dk, rows * KC);
    check_gradient("rule dv", rule_loss, &m, m.v, dv, rows * KC);
    free(m.q), free(m.k), free(m.v), free(m.r), free(m.out), free(m.att);
    free(dq), free(dk), free(dv), free(scratch);
}

static void test_rule_gradients(void **state)
{
    (void)state;
    check_rule_gradients(MASK_CAUSAL, 3, 0.37f, 0.0f);
    check_rule_gradients(MASK_CAUSAL, 2, 0.5f, 1.5f);
    check_rule_gradients(MASK_BIDIRECTIONAL, 2, 0.5f, 1.5f);
    check_rule_gradients(MASK_CAUSAL, 0, 0.5f, 0.8f);
}

/* A soft cap far above every score changes nothing measurable, and a small
 * one changes the probabilities. */
static void test_softcap_limits(void **state)
{
    (void)state;
    enum { T = 9, H = 1, hd = 8 };
    unsigned long long rng = 3;
    float *q = randoms(T * hd, &rng, 2.0f), *k = randoms(T * hd, &rng, 2.0f);
    float *v = randoms(T * hd, &rng, 1.0f), *out = zeros(T * hd);
    float *plain = zeros(T * T), *capped = zeros(T * T);
    AttentionRule rule = attention_rule_plain(MASK_CAUSAL, hd);
    attention_forward_gqa(out, plain, q, H * hd, k, H * hd, v, hd, NULL, &rule, 1, T, H, H, hd);
    rule.softcap = 1e6f;
    attention_forward_gqa(out, capped, q, H * hd, k, H * hd, v, hd, NULL, &rule, 1, T, H, H, hd);
    double worst = 0.0;
    for (int i = 0; i < T * T; i++) worst = test_worse(worst, fabs(plain[i] - capped[i]));
    assert_true(worst < 1e-6);
    rule.softcap = 0.5f;
    attention_forward_gqa(out, capped, q, H * hd, k, H * hd, v, hd, NULL, &rule, 1, T, H, H, hd);
    worst = 0.0;
    for (int i = 0; i < T * T; i++) worst = test_worse(worst, fabs(plain[i] - capped[i]));
    assert_true(worst > 1e-2);
    free(q), free(k), free(v), free(out), free(plain), free(capped);
}

typedef struct {
    float *out, *gu, *r;
    int N, F;
} GegluCase;

static double geglu_loss(void *ctx)
{
    GegluCase *m = ctx;
    geglu_forward(m->out, m->gu, m->N, m->F);
    return weighted_sum(m->out, m->r, (long)m->N * m->F);
}

/* GeGLU against a value by hand (gelu_tanh(1) = 0.8411920) and finite
 * differences. */
static void test_geglu(void **state)
{
    (void)state;
    float one[2] = {1.0f, 2.0f}, y;
    geglu_forward(&y, one, 1, 1);
    assert_true(fabs(y - 2.0f * 0.8411920f) < 1e-6);
    unsigned long long rng = 11;
    GegluCase m = {.N = 3, .F = 5};
    m.gu = randoms(2L * m.N * m.F, &rng, 3.0f);
    m.r = randoms((long)m.N * m.F, &rng, 1.0f);
    m.out = zeros((long)m.N * m.F);
    float *dgu = zeros(2L * m.N * m.F);
    geglu_backward(dgu, m.r, m.gu, m.N, m.F);
    check_gradient("geglu dgu", geglu_loss, &m, m.gu, dgu, 2L * m.N * m.F);
    free(m.gu), free(m.r), free(m.out), free(dgu);
}

typedef struct {
    float *x, *y, *r;
    float cap;
    long n;
} CapCase;

static double cap_loss(void *ctx)
{
    CapCase *m = ctx;
    memcpy(m->y, m->x, (size_t)m->n * sizeof(float));
    softcap_forward(m->y, m->cap, m->n);
    return weighted_sum(m->y, m->r, m->n);
}

/* The logit cap: bounded by cap, odd, and its backward against finite
 * differences. */
static void test_logit_softcap(void **state)
{
    (void)state;
    unsigned long long rng = 12;
    CapCase m = {.n = 40, .cap = 3.0f};
    m.x = randoms(m.n, &rng, 10.0f);
    m.r = randoms(m.n, &rng, 1.0f);
    m.y = zeros(m.n);
    cap_loss(&m);
    for (long i = 0; i < m.n; i++) assert_true(fabsf(m.y[i]) < m.cap);
    float *dx = zeros(m.n);
    memcpy(dx, m.r, (size_t)m.n * sizeof(float));
    softcap_backward(dx, m.y, m.cap, m.n);
    check_gradient("softcap dx", cap_loss, &m, m.x, dx, m.n);
    free(m.x), free(m.y), free(m.r), free(dx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_pattern),
        cmocka_unit_test(test_window_by_hand),
        cmocka_unit_test(test_rule_gradients),
        cmocka_unit_test(test_softcap_limits),
        cmocka_unit_test(test_geglu),
        cmocka_unit_test(test_logit_softcap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
