/* test_head_plan.c — the head plan (ModelInput.head_scale): each attention
 * head's output times a weight before o_proj, in the training model and
 * the forward-only one, and --ablate-heads' text turned into a plan
 * (head_plan_parse).
 *
 * Checked against what taking a head away means without the plan: a model
 * whose o_proj columns of that head are zero computes the same forward and
 * the same gradients (but those columns' own); nothing trains through the
 * head (its q, k and v rows get no gradient, nor, under LoRA, the adapters'
 * rows of that head); a plan of ones is the model without a plan, bit for
 * bit. */
#include "random_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/head_scale.h"
#include "engine/input.h"
#include "engine/lora.h"
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

/* 1 if every one of n floats is zero. */
static int all_zero(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != 0.0f) return 0;
    return 1;
}

/* 1 if rows [row0, row0 + n_rows) of a (rows, cols) matrix are all zero. */
static int rows_zero(const float *m, int cols, int row0, int n_rows)
{
    return all_zero(m + (size_t)row0 * cols, (size_t)n_rows * cols);
}

/* 1 if columns [col0, col0 + n_cols) of a (rows, cols) matrix are all zero. */
static int columns_zero(const float *m, int rows, int cols, int col0, int n_cols)
{
    for (int r = 0; r < rows; r++)
        if (!all_zero(m + (size_t)r * cols + col0, (size_t)n_cols)) return 0;
    return 1;
}

/* Nothing trains through a head taken away: the q, k and v rows of head
 * `head` of layer `layer` (wqkv rows h*hd.., Q + h*hd.., 2Q + h*hd..) get a
 * zero gradient while another head's do not. */
static void test_no_gradient_through_head(void **s)
{
    (void)s;
    ModelConfig c = head_config();
    Model m;
    test_random_model(&m, &c, HB, HT, 23);
    const int layer = 1, head = 2, hd = HC / HH, Q = HC;
    float plan[HL * HH];
    for (int i = 0; i < HL * HH; i++) plan[i] = 1.0f;
    plan[layer * HH + head] = 0.0f;
    HeadBatch b;
    head_batch(&b, plan);
    train_step(&m, &b);
    const float *gqkv = m.grads + (m.p.wqkv - m.params) + (size_t)layer * 3 * Q * HC;
    for (int part = 0; part < 3; part++) {
        assert_true(rows_zero(gqkv, HC, part * Q + head * hd, hd));
        assert_false(rows_zero(gqkv, HC, part * Q + ((head + 1) % HH) * hd, hd));
    }
    model_free(&m);
}

/* Under LoRA on q, k, v and o (the base frozen), a head taken away is the
 * same as its o_proj columns and the o adapter's A columns of that head
 * zeroed by hand: the same loss and adapter gradients (but those A
 * columns', which the zeroed model trains), and the adapters learn nothing
 * for that head: B rows of q, k, v and A columns of o of the head have a
 * zero gradient. */
static void test_head_away_under_lora(void **s)
{
    (void)s;
    ModelConfig c = head_config();
    const int layer = 2, head = 1, hd = HC / HH, rank = 3;
    float plan[HL * HH];
    for (int i = 0; i < HL * HH; i++) plan[i] = 1.0f;
    plan[layer * HH + head] = 0.0f;
    Model planned, zeroed;
    Lora lo_planned, lo_zeroed;
    LoraConfig lc = {.rank = rank, .alpha = 6.0f, .dropout = 0.0f, .targets = 0xFu};
    SrError err;
    Model *models[2] = {&planned, &zeroed};
    Lora *loras[2] = {&lo_planned, &lo_zeroed};
    for (int k = 0; k < 2; k++) {
        test_random_model(models[k], &c, HB, HT, 31);
        assert_int_equal(lora_create(loras[k], &lc, HL, HC, HB * HT, 7, &err), 0);
        unsigned long long st = 3;
        test_fill_random(loras[k]->params, (long)loras[k]->n_params, &st, 0.4f);
        assert_int_equal(model_freeze_base(models[k], 1, &err), 0);
        models[k]->lora = loras[k];
    }
    float *wo = zeroed.p.wo + (size_t)layer * HC * HC, *ao = lora_a(&lo_zeroed, layer, LORA_O, 0);
    for (int r = 0; r < HC; r++) memset(wo + (size_t)r * HC + head * hd, 0, hd * sizeof(float));
    for (int r = 0; r < rank; r++) memset(ao + (size_t)r * HC + head * hd, 0, hd * sizeof(float));
    HeadBatch with_plan, without;
    head_batch(&with_plan, plan);
    head_batch(&without, NULL);
    float away = train_step(&planned, &with_plan);
    assert_float_equal(train_step(&zeroed, &without), away, 1e-6f * fabsf(away));
    for (int t = LORA_Q; t <= LORA_V; t++) {
        assert_true(rows_zero(lora_b(&lo_planned, layer, (LoraTarget)t, 1), rank, head * hd, hd));
        assert_false(rows_zero(lora_b(&lo_planned, layer, (LoraTarget)t, 1), rank, 0, hd));
    }
    const float *ga = lora_a(&lo_planned, layer, LORA_O, 1);
    assert_true(columns_zero(ga, rank, HC, head * hd, hd));
    size_t ga_start = (size_t)(ga - lo_planned.grads);
    for (size_t i = 0; i < lo_planned.n_params; i++) {
        size_t in_a = i - ga_start;
        int own = i >= ga_start && in_a < (size_t)rank * HC && (in_a % HC) / hd == (size_t)head;
        if (own) continue; /* trained in the zeroed model: its input is not zero there */
        float want = lo_zeroed.grads[i];
        assert_float_equal(lo_planned.grads[i], want, 1e-5f + 1e-4f * fabsf(want));
    }
    for (int k = 0; k < 2; k++) {
        models[k]->lora = NULL;
        lora_free(loras[k]);
        model_free(models[k]);
    }
}

/* --ablate-heads' text: the heads named are 0, every other 1; "none" and
 * NULL are no plan; every mistake one line naming the item. */
static void test_parse(void **s)
{
    (void)s;
    float *plan;
    SrError err;
    assert_int_equal(head_plan_parse("2.1,0.3", HL, HH, &plan, &err), 0);
    for (int i = 0; i < HL * HH; i++)
        assert_true(plan[i] == (i == 2 * HH + 1 || i == 0 * HH + 3 ? 0.0f : 1.0f));
    free(plan);
    assert_int_equal(head_plan_parse("none", HL, HH, &plan, &err), 0);
    assert_null(plan);
    assert_int_equal(head_plan_parse(NULL, HL, HH, &plan, &err), 0);
    assert_null(plan);
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"3.0", "'3.0': layer 3 is out of range 0..2"},
        {"1.4", "'1.4': head 4 is out of range 0..3"},
        {"0.1,2", "'2' is not LAYER.HEAD (such as 2.1)"},
        {"1.x", "'1.x' is not LAYER.HEAD (such as 2.1)"},
        {"-1.0", "'-1.0' is not LAYER.HEAD (such as 2.1)"},
        {"1.2,", "'' is not LAYER.HEAD (such as 2.1)"},
        {"1.2,0.0,1.2", "'1.2' is named twice"},
        {"", "empty; give L.H[,L.H...] or none"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(head_plan_parse(bad[i].text, HL, HH, &plan, &err), -1);
        assert_null(plan);
        assert_string_equal(err.msg, bad[i].message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ones_change_nothing),
        cmocka_unit_test(test_head_away_equals_zero_columns),
        cmocka_unit_test(test_forward_only_model),
        cmocka_unit_test(test_no_gradient_through_head),
        cmocka_unit_test(test_head_away_under_lora),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
