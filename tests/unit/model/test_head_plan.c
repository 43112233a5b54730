/* test_head_plan.c — the head plan (ModelInput.head_scale): each attention
 * head's output times a weight before o_proj, in the training model and
 * the forward-only one.
 *
 * Checked against what taking a head away means without the plan: a model
 * whose o_proj columns of that head are zero computes the same forward and
 * the same gradients (but those columns' own); a plan of ones is the
 * model without a plan, bit for bit. */
#include "random_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/serving/model_inference.h"

enum { HB = 2, HT = 7, HV = 17, HC = 16, HL = 3, HH = 4, HF = 24 };

static ModelConfig head_config(void)
{
    return (ModelConfig){.vocab_size = HV, .d_model = HC, .n_layers = HL, .n_heads = HH,
                         .d_ff = HF, .max_seq_len = 16, .rope_theta = 10000.0f,
                         .norm_eps = 1e-5f, .tied = 0};
}

/* The batch every case runs: two rows, the second padded, bidirectional
 * middle layer. */
typedef struct {
    int ids[HB * HT], targets[HB * HT], lengths[HB];
    MaskKind mask[HL];
    ModelInput in;
} HeadBatch;

static void head_batch(HeadBatch *b, const float *head_scale)
{
    for (int i = 0; i < HB * HT; i++) {
        b->ids[i] = (i * 5 + 2) % HV;
        b->targets[i] = (i * 3 + 1) % HV;
    }
    b->lengths[0] = HT;
    b->lengths[1] = HT - 3;
    for (int t = HT - 3; t < HT; t++) b->targets[HT + t] = -1;
    b->mask[0] = b->mask[2] = MASK_CAUSAL;
    b->mask[1] = MASK_BIDIRECTIONAL;
    b->in = (ModelInput){.B = HB, .T = HT, .ids = b->ids, .lengths = b->lengths, .mask = b->mask,
                         .head_scale = head_scale, .want_logits = LOGITS_ALL};
}

/* Forward, loss and backward of m on b; the loss. */
static float train_step(Model *m, HeadBatch *b)
{
    SrError err;
    assert_int_equal(model_forward(m, &b->in, &err), 0);
    float loss = model_lm_loss(m, b->targets, -1);
    model_zero_grad(m);
    model_backward(m, b->targets, -1);
    return loss;
}

/* A plan of ones is no plan: logits and every gradient equal bit for bit. */
static void test_ones_change_nothing(void **s)
{
    (void)s;
    ModelConfig c = head_config();
    Model m;
    test_random_model(&m, &c, HB, HT, 91);
    float ones[HL * HH];
    for (int i = 0; i < HL * HH; i++) ones[i] = 1.0f;
    HeadBatch plain, planned;
    head_batch(&plain, NULL);
    head_batch(&planned, ones);
    float loss = train_step(&m, &plain);
    float *grads = malloc(m.n_params * sizeof(float));
    memcpy(grads, m.grads, m.n_params * sizeof(float));
    assert_true(train_step(&m, &planned) == loss);
    assert_memory_equal(grads, m.grads, m.n_params * sizeof(float));
    free(grads);
    model_free(&m);
}

/* Head h of layer l taken away (weight 0) against the same model with the
 * o_proj columns of that head zero and no plan: the same loss, the same
 * gradients everywhere but in those columns (where the plan's are zero),
 * and a forward different from the intact model's. */
static void check_head_away(int layer, int head)
{
    ModelConfig c = head_config();
    Model planned, zeroed;
    test_random_model(&planned, &c, HB, HT, 17);
    test_random_model(&zeroed, &c, HB, HT, 17);
    int hd = HC / HH;
    float *wo = zeroed.p.wo + (size_t)layer * HC * HC; /* (C, Q): head h's columns h*hd.. */
    for (int r = 0; r < HC; r++) memset(wo + (size_t)r * HC + head * hd, 0, hd * sizeof(float));
    float plan[HL * HH];
    for (int i = 0; i < HL * HH; i++) plan[i] = 1.0f;
    plan[layer * HH + head] = 0.0f;
    HeadBatch with_plan, without;
    head_batch(&with_plan, plan);
    head_batch(&without, NULL);
    float intact = train_step(&planned, &without);
    float away = train_step(&planned, &with_plan);
    assert_true(away != intact);
    assert_float_equal(train_step(&zeroed, &without), away, 1e-6f * fabsf(away));
    size_t wo_start = (size_t)(planned.p.wo - planned.params) + (size_t)layer * HC * HC;
    for (size_t i = 0; i < planned.n_params; i++) {
        size_t in_wo = i - wo_start, col = in_wo % HC;
        int own = i >= wo_start && in_wo < (size_t)HC * HC && col / hd == (size_t)head;
        float want = own ? 0.0f : zeroed.grads[i];
        assert_float_equal(planned.grads[i], want, 1e-5f + 1e-4f * fabsf(want));
    }
    model_free(&planned);
    model_free(&zeroed);
}

static void test_head_away_equals_zero_columns(void **s)
{
    (void)s;
    check_head_away(0, 1);
    check_head_away(1, 3);
    check_head_away(2, 0);
}

/* The forward-only model applies the same plan: its hidden states equal
 * the training model's at every layer. */
static void test_forward_only_model(void **s)
{
    (void)s;
    ModelConfig c = head_config();
    Model train, fwd;
    SrError err;
    test_random_model(&train, &c, HB, HT, 5);
    assert_int_equal(model_create_inference(&fwd, &train, HB, HT, &err), 0);
    float plan[HL * HH];
    for (int i = 0; i < HL * HH; i++) plan[i] = (float)(i % 3) * 0.5f; /* 0, 0.5, 1 */
    HeadBatch b;
    head_batch(&b, plan);
    assert_int_equal(model_forward(&train, &b.in, &err), 0);
    assert_int_equal(model_forward(&fwd, &b.in, &err), 0);
    for (int l = 0; l <= HL; l++)
        assert_memory_equal(model_hidden(&train, l), model_hidden(&fwd, l),
                            (size_t)HB * HT * HC * sizeof(float));
    HeadBatch none;
    head_batch(&none, NULL);
    assert_int_equal(model_forward(&fwd, &none.in, &err), 0);
    assert_memory_not_equal(model_hidden(&train, HL), model_hidden(&fwd, HL),
                            (size_t)HB * HT * HC * sizeof(float));
    model_free(&fwd);
    model_free(&train);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ones_change_nothing),
        cmocka_unit_test(test_head_away_equals_zero_columns),
        cmocka_unit_test(test_forward_only_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
