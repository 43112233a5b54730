/* test_ops.c — the numerical building blocks of src/engine/ops/ops.h.
 *
 * Every backward is checked against central finite differences of the scalar
 * loss L = sum(out * R) for a fixed random R (R is then exactly dL/dout). The
 * forwards are checked against hand-computed values and algebraic properties
 * (softmax rows sum to 1, RoPE composes and only sees relative positions). */
#include "test_util.h"
#include "gradient_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops/mask.h"
#include "engine/ops/ops.h"
#include "engine/threads.h"

/* ---- matmul ----------------------------------------------------------------- */

typedef struct {
    float *out, *inp, *w, *r;
    int N, C, OC;
} MatmulCase;

static double matmul_loss(void *ctx)
{
    MatmulCase *m = ctx;
    matmul_forward(m->out, m->inp, m->w, m->N, m->C, m->OC);
    return weighted_sum(m->out, m->r, (long)m->N * m->OC);
}

/* dinp and dw of matmul_backward against finite differences. */
static void test_matmul_gradients(void **state)
{
    (void)state;
    unsigned long long rng = 11;
    MatmulCase m = {0};
    m.N = 5, m.C = 7, m.OC = 6;
    m.inp = randoms((long)m.N * m.C, &rng, 1.0f);
    m.w = randoms((long)m.OC * m.C, &rng, 1.0f);
    m.r = randoms((long)m.N * m.OC, &rng, 1.0f);
    m.out = zeros((long)m.N * m.OC);
    float *dinp = zeros((long)m.N * m.C), *dw = zeros((long)m.OC * m.C);

    matmul_backward(dinp, dw, m.r, m.inp, m.w, m.N, m.C, m.OC);
    check_gradient("matmul dinp", matmul_loss, &m, m.inp, dinp, (long)m.N * m.C);
    check_gradient("matmul dw", matmul_loss, &m, m.w, dw, (long)m.OC * m.C);

    free(m.inp), free(m.w), free(m.r), free(m.out), free(dinp), free(dw);
}

/* The sgemm forward equals the plain loops whichever way the threads split
 * the work: by outputs (fewer rows than outputs) and by rows (more). */
static void test_matmul_forward_both_splits(void **state)
{
    (void)state;
    const int shapes[2][3] = {{5, 29, 41}, {41, 29, 5}}; /* N, C, OC */
    unsigned long long rng = 31;
    for (int s = 0; s < 2; s++) {
        int N = shapes[s][0], C = shapes[s][1], OC = shapes[s][2];
        float *inp = randoms((long)N * C, &rng, 1.0f), *w = randoms((long)OC * C, &rng, 1.0f);
        float *out_ref = zeros((long)N * OC), *out_fast = zeros((long)N * OC);
        matmul_forward_ref(out_ref, inp, w, N, C, OC);
        matmul_forward(out_fast, inp, w, N, C, OC);
        for (long i = 0; i < (long)N * OC; i++)
            assert_true(test_rel_diff(out_ref[i], out_fast[i], 1.0) < 1e-5);
        free(inp), free(w), free(out_ref), free(out_fast);
    }
}

/* The sgemm path equals the plain-loop reference on odd sizes, forward and
 * (accumulating) backward. */
static void test_matmul_matches_reference(void **state)
{
    (void)state;
    unsigned long long rng = 12;
    int N = 13, C = 29, OC = 17;
    float *inp = randoms((long)N * C, &rng, 1.0f), *w = randoms((long)OC * C, &rng, 1.0f);
    float *dout = randoms((long)N * OC, &rng, 1.0f);
    float *out_ref = zeros((long)N * OC), *out_fast = zeros((long)N * OC);
    matmul_forward_ref(out_ref, inp, w, N, C, OC);
    matmul_forward(out_fast, inp, w, N, C, OC);
    for (long i = 0; i < (long)N * OC; i++)
        assert_true(test_rel_diff(out_ref[i], out_fast[i], 1.0) < 1e-5);

    /* Start both from the same non-zero gradients to check accumulation. */
    float *dinp_ref = randoms((long)N * C, &rng, 1.0f), *dw_ref = randoms((long)OC * C, &rng, 1.0f);
    float *dinp_fast = zeros((long)N * C), *dw_fast = zeros((long)OC * C);
    memcpy(dinp_fast, dinp_ref, sizeof(float) * (size_t)N * C);
    memcpy(dw_fast, dw_ref, sizeof(float) * (size_t)OC * C);
    matmul_backward_ref(dinp_ref, dw_ref, dout, inp, w, N, C, OC);
    matmul_backward(dinp_fast, dw_fast, dout, inp, w, N, C, OC);
    for (long i = 0; i < (long)N * C; i++)
        assert_true(test_rel_diff(dinp_ref[i], dinp_fast[i], 1.0) < 1e-5);
    for (long i = 0; i < (long)OC * C; i++)
        assert_true(test_rel_diff(dw_ref[i], dw_fast[i], 1.0) < 1e-5);

    /* NULL gradients are skipped. */
    memcpy(dw_fast, dw_ref, sizeof(float) * (size_t)OC * C);
    matmul_backward(NULL, dw_fast, dout, inp, w, N, C, OC);
    matmul_backward_ref(NULL, dw_ref, dout, inp, w, N, C, OC);
    for (long i = 0; i < (long)OC * C; i++)
        assert_true(test_rel_diff(dw_ref[i], dw_fast[i], 1.0) < 1e-5);

    free(inp), free(w), free(dout), free(out_ref), free(out_fast);
    free(dinp_ref), free(dw_ref), free(dinp_fast), free(dw_fast);
}

/* ---- embedding ---------------------------------------------------------------- */

typedef struct {
    float *out, *wte, *r;
    const int *ids;
    int N, C;
} EmbeddingCase;

static double embedding_loss(void *ctx)
{
    EmbeddingCase *e = ctx;
    embedding_forward(e->out, e->ids, e->wte, e->N, e->C);
    return weighted_sum(e->out, e->r, (long)e->N * e->C);
}

/* Lookup copies rows; the backward adds every occurrence of a repeated id. */
static void test_embedding(void **state)
{
    (void)state;
    unsigned long long rng = 21;
    static const int ids[8] = {3, 0, 3, 5, 3, 0, 1, 5};
    int V = 7, N = 8, C = 5;
    EmbeddingCase e = {0};
    e.ids = ids, e.N = N, e.C = C;
    e.wte = randoms((long)V * C, &rng, 1.0f);
    e.r = randoms((long)N * C, &rng, 1.0f);
    e.out = zeros((long)N * C);
    embedding_forward(e.out, ids, e.wte, N, C);
    for (int n = 0; n < N; n++)
        assert_memory_equal(e.out + n * C, e.wte + ids[n] * C, sizeof(float) * (size_t)C);

    float *dwte = zeros((long)V * C);
    embedding_backward(dwte, e.r, ids, N, C);
    check_gradient("embedding dwte", embedding_loss, &e, e.wte, dwte, (long)V * C);
    /* Rows of ids that never occur get no gradient. */
    for (int c = 0; c < C; c++) {
        assert_true(dwte[2 * C + c] == 0.0f);
        assert_true(dwte[4 * C + c] == 0.0f);
        assert_true(dwte[6 * C + c] == 0.0f);
    }
    free(e.wte), free(e.r), free(e.out), free(dwte);
}

/* ---- RMSNorm ------------------------------------------------------------------ */

typedef struct {
    float *out, *rstd, *inp, *w, *r;
    int N, C;
} RmsnormCase;

static double rmsnorm_loss(void *ctx)
{
    RmsnormCase *m = ctx;
    rmsnorm_forward(m->out, m->rstd, m->inp, m->w, 1e-5f, m->N, m->C);
    return weighted_sum(m->out, m->r, (long)m->N * m->C);
}

/* Forward against a double-precision formula; dinp and dw against finite
 * differences. */
static void test_rmsnorm(void **state)
{
    (void)state;
    unsigned long long rng = 31;
    RmsnormCase m = {0};
    m.N = 6, m.C = 9;
    m.inp = randoms((long)m.N * m.C, &rng, 2.0f);
    m.w = randoms(m.C, &rng, 1.0f);
    m.r = randoms((long)m.N * m.C, &rng, 1.0f);
    m.out = zeros((long)m.N * m.C);
    m.rstd = zeros(m.N);
    rmsnorm_loss(&m);
    for (int n = 0; n < m.N; n++) {
        double sumsq = 0.0;
        for (int c = 0; c < m.C; c++) sumsq += (double)m.inp[n * m.C + c] * m.inp[n * m.C + c];
        double rstd = 1.0 / sqrt(sumsq / m.C + 1e-5);
        assert_true(test_rel_diff(m.rstd[n], rstd, 1e-6) < 1e-5);
        for (int c = 0; c < m.C; c++)
            assert_true(test_rel_diff(m.out[n * m.C + c], m.inp[n * m.C + c] * rstd * m.w[c],
                                      1e-6) < 1e-5);
    }

    float *dinp = zeros((long)m.N * m.C), *dw = zeros(m.C);
    rmsnorm_backward(dinp, dw, m.r, m.inp, m.w, m.rstd, m.N, m.C);
    check_gradient("rmsnorm dinp", rmsnorm_loss, &m, m.inp, dinp, (long)m.N * m.C);
    check_gradient("rmsnorm dw", rmsnorm_loss, &m, m.w, dw, m.C);
    free(m.inp), free(m.w), free(m.r), free(m.out), free(m.rstd), free(dinp), free(dw);
}

/* The dw reduction over rows gives the same bits with 1 and 2 threads. */
static void test_rmsnorm_backward_thread_independent(void **state)
{
    (void)state;
    unsigned long long rng = 32;
    int N = 64, C = 200;
    float *inp = randoms((long)N * C, &rng, 1.0f), *w = randoms(C, &rng, 1.0f);
    float *dout = randoms((long)N * C, &rng, 1.0f);
    float *out = zeros((long)N * C), *rstd = zeros(N);
    float *dinp1 = zeros((long)N * C), *dw1 = zeros(C);
    float *dinp2 = zeros((long)N * C), *dw2 = zeros(C);
    rmsnorm_forward(out, rstd, inp, w, 1e-5f, N, C);
    int saved_threads = threads_count();
    threads_set(1);
    rmsnorm_backward(dinp1, dw1, dout, inp, w, rstd, N, C);
    threads_set(2);
    rmsnorm_backward(dinp2, dw2, dout, inp, w, rstd, N, C);
    threads_set(saved_threads);
    assert_memory_equal(dinp1, dinp2, sizeof(float) * (size_t)N * C);
    assert_memory_equal(dw1, dw2, sizeof(float) * (size_t)C);
    free(inp), free(w), free(dout), free(out), free(rstd);
    free(dinp1), free(dw1), free(dinp2), free(dw2);
}

/* ---- RoPE --------------------------------------------------------------------- */

#define ROPE_THETA 10000.0f

typedef struct {
    float *out, *inp, *pos, *r;
    int in_stride, N, H, hd;
} RopeCase;

static double rope_loss(void *ctx)
{
    RopeCase *m = ctx;
    rope_forward(m->out, m->H * m->hd, m->inp, m->in_stride, m->pos, ROPE_THETA, m->N, m->H, m->hd);
    return weighted_sum(m->out, m->r, (long)m->N * m->H * m->hd);
}

/* dinp (strided rows) and dpos against finite differences, with non-integer
 * and negative positions; the padding columns of a strided row get nothing. */
static void test_rope_gradients(void **state)
{
    (void)state;
    unsigned long long rng = 41;
    RopeCase m = {0};
    m.N = 4, m.H = 2, m.hd = 6;
    int C = m.H * m.hd;
    m.in_stride = C + 5;
    m.inp = randoms((long)m.N * m.in_stride, &rng, 1.0f);
    m.pos = randoms((long)m.N * m.H, &rng, 6.0f); /* real values in [-6, 6) */
    m.pos[0] = -2.75f;
    m.r = randoms((long)m.N * C, &rng, 1.0f);
    m.out = zeros((long)m.N * C);
    rope_loss(&m);

    float *dinp = zeros((long)m.N * m.in_stride), *dpos = zeros((long)m.N * m.H);
    rope_backward(dinp, m.in_stride, dpos, m.r, m.out, m.H * m.hd, m.pos, ROPE_THETA, m.N, m.H, m.hd);
    check_gradient("rope dinp", rope_loss, &m, m.inp, dinp, (long)m.N * m.in_stride);
    check_gradient("rope dpos", rope_loss, &m, m.pos, dpos, (long)m.N * m.H);
    for (int n = 0; n < m.N; n++)
        for (int c = C; c < m.in_stride; c++) assert_true(dinp[n * m.in_stride + c] == 0.0f);
    free(m.inp), free(m.pos), free(m.r), free(m.out), free(dinp), free(dpos);
}

/* pos == NULL: the forward copies the strided rows, the backward adds dout to
 * dinp and leaves dpos alone. */
static void test_rope_without_positions(void **state)
{
    (void)state;
    unsigned long long rng = 42;
    RopeCase m = {0};
    m.N = 3, m.H = 2, m.hd = 4;
    int C = m.H * m.hd;
    m.in_stride = 3 * C;
    m.inp = randoms((long)m.N * m.in_stride, &rng, 1.0f);
    m.r = randoms((long)m.N * C, &rng, 1.0f);
    m.out = zeros((long)m.N * C);
    rope_loss(&m);
    for (int n = 0; n < m.N; n++)
        assert_memory_equal(m.out + n * C, m.inp + n * m.in_stride, sizeof(float) * (size_t)C);

    float *dinp = zeros((long)m.N * m.in_stride);
    float dpos[6] = {7, 7, 7, 7, 7, 7};
    rope_backward(dinp, m.in_stride, dpos, m.r, m.out, m.H * m.hd, NULL, ROPE_THETA, m.N, m.H, m.hd);
    check_gradient("rope (no positions) dinp", rope_loss, &m, m.inp, dinp,
                   (long)m.N * m.in_stride);
    for (int i = 0; i < 6; i++) assert_true(dpos[i] == 7.0f);
    free(m.inp), free(m.r), free(m.out), free(dinp);
}

/* Position 0 leaves every vector unchanged, bit for bit. */
static void test_rope_zero_is_identity(void **state)
{
    (void)state;
    unsigned long long rng = 43;
    int N = 5, H = 3, hd = 8, C = H * hd;
    float *inp = randoms((long)N * C, &rng, 1.0f), *out = zeros((long)N * C);
    float *pos = zeros((long)N * H);
    rope_forward(out, C, inp, C, pos, ROPE_THETA, N, H, hd);
    for (long i = 0; i < (long)N * C; i++) assert_true(out[i] == inp[i]);
    free(inp), free(out), free(pos);
}

/* Rotating by p1 then by p2 equals rotating by p1 + p2. */
static void test_rope_composes(void **state)
{
    (void)state;
    unsigned long long rng = 44;
    int N = 4, H = 2, hd = 8, C = H * hd;
    float *inp = randoms((long)N * C, &rng, 1.0f);
    float *p1 = randoms((long)N * H, &rng, 8.0f), *p2 = randoms((long)N * H, &rng, 8.0f);
    float *psum = zeros((long)N * H);
    for (int i = 0; i < N * H; i++) psum[i] = p1[i] + p2[i];
    float *once = zeros((long)N * C), *twice = zeros((long)N * C), *direct = zeros((long)N * C);
    rope_forward(once, C, inp, C, p1, ROPE_THETA, N, H, hd);
    rope_forward(twice, C, once, C, p2, ROPE_THETA, N, H, hd);
    rope_forward(direct, C, inp, C, psum, ROPE_THETA, N, H, hd);
    for (long i = 0; i < (long)N * C; i++)
        assert_true(test_rel_diff(twice[i], direct[i], 1.0) < 1e-5);
    free(inp), free(p1), free(p2), free(psum), free(once), free(twice), free(direct);
}

/* dot(rope(q, p + a), rope(k, s + a)) does not depend on the shift a. */
static void test_rope_relative_positions(void **state)
{
    (void)state;
    unsigned long long rng = 45;
    int H = 2, hd = 8, C = H * hd;
    float q[16], k[16], qr[16], kr[16];
    test_fill_random(q, C, &rng, 1.0f);
    test_fill_random(k, C, &rng, 1.0f);
    const float p = 3.0f, s = -1.5f;
    const float shifts[4] = {0.0f, 2.5f, -7.0f, 31.0f};
    double reference[2] = {0.0, 0.0};
    for (int a = 0; a < 4; a++) {
        float qpos[2] = {p + shifts[a], p + shifts[a]};
        float kpos[2] = {s + shifts[a], s + shifts[a]};
        rope_forward(qr, C, q, C, qpos, ROPE_THETA, 1, H, hd);
        rope_forward(kr, C, k, C, kpos, ROPE_THETA, 1, H, hd);
        for (int h = 0; h < H; h++) {
            double dot = 0.0;
            for (int i = 0; i < hd; i++) dot += (double)qr[h * hd + i] * kr[h * hd + i];
            if (a == 0) reference[h] = dot;
            else assert_true(fabs(dot - reference[h]) < 1e-4);
        }
    }
}

/* ---- attention ---------------------------------------------------------------- */

typedef struct {
    float *out, *att, *q, *k, *v, *r;
    const int *lengths;
    MaskKind kind;
    int v_stride, B, T, H, hd;
} AttentionCase;

static double attention_loss(void *ctx)
{
    AttentionCase *m = ctx;
    attention_forward(m->out, m->att, m->q, m->k, m->v, m->v_stride, m->lengths, m->kind, m->B,
                      m->T, m->H, m->hd);
    return weighted_sum(m->out, m->r, (long)m->B * m->T * m->H * m->hd);
}

/* dq, dk, dv against finite differences for one mask kind, with a padded
 * sequence (length < T) and v rows strided like a fused qkv buffer. */
static void check_attention_gradients(MaskKind kind, unsigned long long seed)
{
    unsigned long long rng = seed;
    static const int lengths[2] = {5, 3};
    AttentionCase m = {0};
    m.B = 2, m.T = 5, m.H = 2, m.hd = 4, m.kind = kind, m.lengths = lengths;
    int C = m.H * m.hd;
    long rows = (long)m.B * m.T;
    m.v_stride = C + 3;
    m.q = randoms(rows * C, &rng, 1.0f);
    m.k = randoms(rows * C, &rng, 1.0f);
    m.v = randoms(rows * m.v_stride, &rng, 1.0f);
    m.r = randoms(rows * C, &rng, 1.0f);
    m.out = zeros(rows * C);
    m.att = zeros((long)m.B * m.H * m.T * m.T);
    attention_loss(&m);

    float *dq = zeros(rows * C), *dk = zeros(rows * C), *dv = zeros(rows * m.v_stride);
    float *scratch = zeros((long)m.B * m.H * m.T * m.T);
    attention_backward(dq, dk, dv, m.v_stride, scratch, m.r, m.q, m.k, m.v, m.att, lengths, kind,
                       m.B, m.T, m.H, m.hd);
    check_gradient("attention dq", attention_loss, &m, m.q, dq, rows * C);
    check_gradient("attention dk", attention_loss, &m, m.k, dk, rows * C);
    check_gradient("attention dv", attention_loss, &m, m.v, dv, rows * m.v_stride);

    /* Padding keys of the short sequence and the stride gap of v get nothing. */
    for (int t = lengths[1]; t < m.T; t++)
        for (int c = 0; c < C; c++) {
            assert_true(dk[(m.T + t) * C + c] == 0.0f);
            assert_true(dv[(m.T + t) * m.v_stride + c] == 0.0f);
        }
    for (long n = 0; n < rows; n++)
        for (int c = C; c < m.v_stride; c++) assert_true(dv[n * m.v_stride + c] == 0.0f);

    free(m.q), free(m.k), free(m.v), free(m.r), free(m.out), free(m.att);
    free(dq), free(dk), free(dv), free(scratch);
}

static void test_attention_gradients_causal(void **state)
{
    (void)state;
    check_attention_gradients(MASK_CAUSAL, 51);
}

static void test_attention_gradients_bidirectional(void **state)
{
    (void)state;
    check_attention_gradients(MASK_BIDIRECTIONAL, 52);
}

/* Probabilities sum to 1 over visible keys and are exactly 0 where mask_build
 * says the key is masked, for both kinds and a padded sequence. */
static void test_attention_mask_pattern(void **state)
{
    (void)state;
    unsigned long long rng = 53;
    int B = 3, T = 7, H = 2, hd = 4, C = H * hd;
    const int lengths[3] = {7, 4, 1};
    float *q = randoms((long)B * T * C, &rng, 2.0f), *k = randoms((long)B * T * C, &rng, 2.0f);
    float *v = randoms((long)B * T * C, &rng, 1.0f);
    float *out = zeros((long)B * T * C), *att = zeros((long)B * H * T * T);
    uint8_t mask[49];
    for (int kind = MASK_CAUSAL; kind <= MASK_BIDIRECTIONAL; kind++) {
        /* Poison att so that every entry must be written. */
        for (long i = 0; i < (long)B * H * T * T; i++) att[i] = NAN;
        attention_forward(out, att, q, k, v, C, lengths, (MaskKind)kind, B, T, H, hd);
        for (int b = 0; b < B; b++) {
            mask_build((MaskKind)kind, T, lengths[b], mask);
            for (int h = 0; h < H; h++)
                for (int t = 0; t < T; t++) {
                    const float *row = att + (((long)b * H + h) * T + t) * T;
                    double sum = 0.0;
                    for (int s = 0; s < T; s++) {
                        if (mask[t * T + s]) {
                            assert_true(row[s] > 0.0f);
                            sum += row[s];
                        } else {
                            assert_true(row[s] == 0.0f);
                        }
                    }
                    assert_true(fabs(sum - 1.0) < 1e-5);
                }
        }
    }
    free(q), free(k), free(v), free(out), free(att);
}

/* T = 2, hd = 2, one head: probabilities and outputs worked out by hand.
 * q0 = (1, 0), q1 = (0, 1), k0 = (1, 0), k1 = (0, 2), v0 = (1, 2), v1 = (3, -1);
 * scores are q.k / sqrt(2). */
static void test_attention_by_hand(void **state)
{
    (void)state;
    const float q[4] = {1, 0, 0, 1}, k[4] = {1, 0, 0, 2}, v[4] = {1, 2, 3, -1};
    float out[4], att[4];
    double r2 = sqrt(2.0);

    /* Causal: row 0 sees only key 0; row 1 has scores (0, 2/sqrt2). */
    attention_forward(out, att, q, k, v, 2, NULL, MASK_CAUSAL, 1, 2, 1, 2);
    double a10 = 1.0 / (1.0 + exp(2.0 / r2)), a11 = 1.0 - a10;
    const double causal_att[4] = {1.0, 0.0, a10, a11};
    const double causal_out[4] = {1.0, 2.0, a10 * 1 + a11 * 3, a10 * 2 + a11 * -1};
    for (int i = 0; i < 4; i++) {
        assert_true(fabs(att[i] - causal_att[i]) < 1e-6);
        assert_true(fabs(out[i] - causal_out[i]) < 1e-6);
    }

    /* Bidirectional: row 0 now also sees key 1, scores (1/sqrt2, 0). */
    attention_forward(out, att, q, k, v, 2, NULL, MASK_BIDIRECTIONAL, 1, 2, 1, 2);
    double a00 = exp(1.0 / r2) / (exp(1.0 / r2) + 1.0), a01 = 1.0 - a00;
    const double full_att[4] = {a00, a01, a10, a11};
    const double full_out[4] = {a00 * 1 + a01 * 3, a00 * 2 + a01 * -1, a10 * 1 + a11 * 3,
                                a10 * 2 + a11 * -1};
    for (int i = 0; i < 4; i++) {
        assert_true(fabs(att[i] - full_att[i]) < 1e-6);
        assert_true(fabs(out[i] - full_out[i]) < 1e-6);
    }

    /* lengths = {1}: the second token is padding and row 1 sees key 0 only. */
    const int len1[1] = {1};
    attention_forward(out, att, q, k, v, 2, len1, MASK_BIDIRECTIONAL, 1, 2, 1, 2);
    const float padded_att[4] = {1, 0, 1, 0};
    assert_memory_equal(att, padded_att, sizeof(padded_att));
    assert_true(out[2] == 1.0f && out[3] == 2.0f);
}

/* Forward twice gives the same bits; forward and backward give the same bits
 * with 1 and 2 threads. */
static void test_attention_deterministic(void **state)
{
    (void)state;
    unsigned long long rng = 54;
    int B = 2, T = 16, H = 3, hd = 8, C = H * hd;
    long rows = (long)B * T, natt = (long)B * H * T * T;
    const int lengths[2] = {16, 11};
    float *q = randoms(rows * C, &rng, 1.0f), *k = randoms(rows * C, &rng, 1.0f);
    float *v = randoms(rows * C, &rng, 1.0f), *dout = randoms(rows * C, &rng, 1.0f);
    float *out1 = zeros(rows * C), *att1 = zeros(natt), *out2 = zeros(rows * C), *att2 = zeros(natt);
    attention_forward(out1, att1, q, k, v, C, lengths, MASK_CAUSAL, B, T, H, hd);
    attention_forward(out2, att2, q, k, v, C, lengths, MASK_CAUSAL, B, T, H, hd);
    assert_memory_equal(out1, out2, sizeof(float) * (size_t)(rows * C));
    assert_memory_equal(att1, att2, sizeof(float) * (size_t)natt);

    float *grads1 = zeros(3 * rows * C), *grads2 = zeros(3 * rows * C), *scratch = zeros(natt);
    int saved_threads = threads_count();
    threads_set(1);
    attention_forward(out2, att2, q, k, v, C, lengths, MASK_BIDIRECTIONAL, B, T, H, hd);
    attention_backward(grads1, grads1 + rows * C, grads1 + 2 * rows * C, C, scratch, dout, q, k,
                       v, att2, lengths, MASK_BIDIRECTIONAL, B, T, H, hd);
    threads_set(2);
    attention_forward(out1, att1, q, k, v, C, lengths, MASK_BIDIRECTIONAL, B, T, H, hd);
    attention_backward(grads2, grads2 + rows * C, grads2 + 2 * rows * C, C, scratch, dout, q, k,
                       v, att1, lengths, MASK_BIDIRECTIONAL, B, T, H, hd);
    threads_set(saved_threads);
    assert_memory_equal(out1, out2, sizeof(float) * (size_t)(rows * C));
    assert_memory_equal(grads1, grads2, sizeof(float) * (size_t)(3 * rows * C));

    free(q), free(k), free(v), free(dout), free(out1), free(att1), free(out2), free(att2);
    free(grads1), free(grads2), free(scratch);
}

/* Any gradient pointer may be NULL: asking for one gradient alone gives the
 * same bits as asking for all three. */
static void test_attention_backward_null_gradients(void **state)
{
    (void)state;
    unsigned long long rng = 55;
    int B = 2, T = 6, H = 2, hd = 4, C = H * hd, v_stride = 3 * C;
    long rows = (long)B * T, natt = (long)B * H * T * T;
    const int lengths[2] = {6, 4};
    float *q = randoms(rows * C, &rng, 1.0f), *k = randoms(rows * C, &rng, 1.0f);
    float *v = randoms(rows * v_stride, &rng, 1.0f), *dout = randoms(rows * C, &rng, 1.0f);
    float *out = zeros(rows * C), *att = zeros(natt), *scratch = zeros(natt);
    float *dq = zeros(rows * C), *dk = zeros(rows * C), *dv = zeros(rows * v_stride);
    float *alone = zeros(rows * v_stride);
    attention_forward(out, att, q, k, v, v_stride, lengths, MASK_CAUSAL, B, T, H, hd);
    attention_backward(dq, dk, dv, v_stride, scratch, dout, q, k, v, att, lengths, MASK_CAUSAL, B,
                       T, H, hd);

    attention_backward(alone, NULL, NULL, v_stride, scratch, dout, q, k, v, att, lengths,
                       MASK_CAUSAL, B, T, H, hd);
    assert_memory_equal(alone, dq, sizeof(float) * (size_t)(rows * C));
    memset(alone, 0, sizeof(float) * (size_t)(rows * v_stride));
    attention_backward(NULL, alone, NULL, v_stride, scratch, dout, q, k, v, att, lengths,
                       MASK_CAUSAL, B, T, H, hd);
    assert_memory_equal(alone, dk, sizeof(float) * (size_t)(rows * C));
    memset(alone, 0, sizeof(float) * (size_t)(rows * v_stride));
    attention_backward(NULL, NULL, alone, v_stride, scratch, dout, q, k, v, att, lengths,
                       MASK_CAUSAL, B, T, H, hd);
    assert_memory_equal(alone, dv, sizeof(float) * (size_t)(rows * v_stride));

    free(q), free(k), free(v), free(dout), free(out), free(att), free(scratch);
    free(dq), free(dk), free(dv), free(alone);
}

/* ---- SwiGLU ------------------------------------------------------------------- */

typedef struct {
    float *out, *gu, *r;
    int N, F;
} SwigluCase;

static double swiglu_loss(void *ctx)
{
    SwigluCase *m = ctx;
    swiglu_forward(m->out, m->gu, m->N, m->F);
    return weighted_sum(m->out, m->r, (long)m->N * m->F);
}

/* Forward against the formula in double; dgu against finite differences. */
static void test_swiglu(void **state)
{
    (void)state;
    unsigned long long rng = 61;
    SwigluCase m = {0};
    m.N = 4, m.F = 6;
    m.gu = randoms((long)m.N * 2 * m.F, &rng, 4.0f);
    m.r = randoms((long)m.N * m.F, &rng, 1.0f);
    m.out = zeros((long)m.N * m.F);
    swiglu_loss(&m);
    for (int n = 0; n < m.N; n++)
        for (int f = 0; f < m.F; f++) {
            double g = m.gu[n * 2 * m.F + f], u = m.gu[n * 2 * m.F + m.F + f];
            double expected = g / (1.0 + exp(-g)) * u;
            assert_true(test_rel_diff(m.out[n * m.F + f], expected, 1e-6) < 1e-5);
        }
    float *dgu = zeros((long)m.N * 2 * m.F);
    swiglu_backward(dgu, m.r, m.gu, m.N, m.F);
    check_gradient("swiglu dgu", swiglu_loss, &m, m.gu, dgu, (long)m.N * 2 * m.F);
    free(m.gu), free(m.r), free(m.out), free(dgu);
}

/* ---- residual ----------------------------------------------------------------- */

typedef struct {
    float *out, *a, *b, *r;
    long n;
} ResidualCase;

static double residual_loss(void *ctx)
{
    ResidualCase *m = ctx;
    residual_forward(m->out, m->a, m->b, m->n);
    return weighted_sum(m->out, m->r, m->n);
}

/* out = a + b, and both inputs receive dout (accumulated). */
static void test_residual(void **state)
{
    (void)state;
    unsigned long long rng = 71;
    ResidualCase m = {0};
    m.n = 23;
    m.a = randoms(m.n, &rng, 1.0f), m.b = randoms(m.n, &rng, 1.0f);
    m.r = randoms(m.n, &rng, 1.0f), m.out = zeros(m.n);
    residual_loss(&m);
    for (long i = 0; i < m.n; i++) assert_true(m.out[i] == m.a[i] + m.b[i]);
    float *da = zeros(m.n), *db = zeros(m.n);
    residual_backward(da, db, m.r, m.n);
    check_gradient("residual da", residual_loss, &m, m.a, da, m.n);
    check_gradient("residual db", residual_loss, &m, m.b, db, m.n);
    residual_backward(da, NULL, m.r, m.n);
    for (long i = 0; i < m.n; i++) assert_true(da[i] == 2.0f * m.r[i]);
    free(m.a), free(m.b), free(m.r), free(m.out), free(da), free(db);
}

/* ---- cross-entropy ------------------------------------------------------------ */

#define IGNORE_LABEL (-100)

typedef struct {
    float *losses, *probs, *logits;
    const int *targets;
    int N, V;
} CrossentropyCase;

/* Mean loss over counted rows. */
static double crossentropy_mean_loss(void *ctx)
{
    CrossentropyCase *m = ctx;
    int counted = crossentropy_forward(m->losses, m->probs, m->logits, m->targets, IGNORE_LABEL,
                                       m->N, m->V);
    double sum = 0.0;
    for (int n = 0; n < m->N; n++) sum += m->losses[n];
    return sum / counted;
}

/* Gradient of the mean loss (scale = 1 / counted) against finite differences;
 * ignored rows have zero loss and zero gradient; in-place softmax agrees. */
static void test_crossentropy_gradients(void **state)
{
    (void)state;
    unsigned long long rng = 81;
    static const int targets[6] = {2, IGNORE_LABEL, 0, 6, IGNORE_LABEL, 2};
    CrossentropyCase m = {0};
    m.N = 6, m.V = 7, m.targets = targets;
    m.logits = randoms((long)m.N * m.V, &rng, 3.0f);
    m.probs = zeros((long)m.N * m.V);
    m.losses = zeros(m.N);
    int counted = crossentropy_forward(m.losses, m.probs, m.logits, targets, IGNORE_LABEL, m.N, m.V);
    assert_int_equal(counted, 4);
    assert_true(m.losses[1] == 0.0f && m.losses[4] == 0.0f);
    for (int n = 0; n < m.N; n++) {
        double sum = 0.0;
        for (int i = 0; i < m.V; i++) sum += m.probs[n * m.V + i];
        assert_true(fabs(sum - 1.0) < 1e-6);
        if (targets[n] != IGNORE_LABEL)
            assert_true(test_rel_diff(m.losses[n], -log(m.probs[n * m.V + targets[n]]), 1e-6) <
                        1e-5);
    }

    float *dlogits = zeros((long)m.N * m.V);
    for (long i = 0; i < (long)m.N * m.V; i++) dlogits[i] = 9.0f; /* assigned, not added */
    crossentropy_backward(dlogits, m.probs, targets, IGNORE_LABEL, 1.0f / counted, m.N, m.V);
    check_gradient("crossentropy dlogits", crossentropy_mean_loss, &m, m.logits, dlogits,
                   (long)m.N * m.V);
    for (int i = 0; i < m.V; i++) assert_true(dlogits[1 * m.V + i] == 0.0f);

    /* In place: probs aliasing logits, then dlogits aliasing probs. The
     * gradient check left perturbed outputs behind, so recompute them first. */
    crossentropy_mean_loss(&m);
    float *inplace = zeros((long)m.N * m.V), *losses2 = zeros(m.N);
    memcpy(inplace, m.logits, sizeof(float) * (size_t)m.N * m.V);
    crossentropy_forward(losses2, inplace, inplace, targets, IGNORE_LABEL, m.N, m.V);
    assert_memory_equal(inplace, m.probs, sizeof(float) * (size_t)m.N * m.V);
    assert_memory_equal(losses2, m.losses, sizeof(float) * (size_t)m.N);
    crossentropy_backward(inplace, inplace, targets, IGNORE_LABEL, 1.0f / counted, m.N, m.V);
    assert_memory_equal(inplace, dlogits, sizeof(float) * (size_t)m.N * m.V);

    free(m.logits), free(m.probs), free(m.losses), free(dlogits), free(inplace), free(losses2);
}

/* Equal logits give loss log(V) on every counted row, even for huge logits. */
static void test_crossentropy_uniform(void **state)
{
    (void)state;
    int N = 3, V = 50;
    const int targets[3] = {0, 49, IGNORE_LABEL};
    float *logits = zeros((long)N * V), *probs = zeros((long)N * V), losses[3];
    for (int i = 0; i < V; i++) logits[V + i] = 1000.0f; /* row 1: large but equal */
    int counted = crossentropy_forward(losses, probs, logits, targets, IGNORE_LABEL, N, V);
    assert_int_equal(counted, 2);
    assert_true(fabs(losses[0] - log(50.0)) < 1e-5);
    assert_true(fabs(losses[1] - log(50.0)) < 1e-5);
    assert_true(losses[2] == 0.0f);
    for (long i = 0; i < (long)N * V; i++) assert_true(fabs(probs[i] - 0.02) < 1e-7);
    free(logits), free(probs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_gradients),
        cmocka_unit_test(test_matmul_matches_reference),
        cmocka_unit_test(test_matmul_forward_both_splits),
        cmocka_unit_test(test_embedding),
        cmocka_unit_test(test_rmsnorm),
        cmocka_unit_test(test_rmsnorm_backward_thread_independent),
        cmocka_unit_test(test_rope_gradients),
        cmocka_unit_test(test_rope_without_positions),
        cmocka_unit_test(test_rope_zero_is_identity),
        cmocka_unit_test(test_rope_composes),
        cmocka_unit_test(test_rope_relative_positions),
        cmocka_unit_test(test_attention_gradients_causal),
        cmocka_unit_test(test_attention_gradients_bidirectional),
        cmocka_unit_test(test_attention_mask_pattern),
        cmocka_unit_test(test_attention_by_hand),
        cmocka_unit_test(test_attention_deterministic),
        cmocka_unit_test(test_attention_backward_null_gradients),
        cmocka_unit_test(test_swiglu),
        cmocka_unit_test(test_residual),
        cmocka_unit_test(test_crossentropy_gradients),
        cmocka_unit_test(test_crossentropy_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
