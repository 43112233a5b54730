/* test_lora.c — low-rank adapters on q, k, v, o: an untrained adapter is the
 * base model exactly, finite-difference gradients of every adapter weight
 * (with and without dropout, every target subset), the base weights' gradient
 * untouched by the adapters, the frozen base (no base gradients, the same
 * adapter gradients), and the checks of the configuration. */
#include "random_model.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/lora.h"
#include "engine/model.h"

enum { TB = 2, TT = 6, TV = 13, TC = 8, TL = 3, TH = 2, TF = 12 };

/* A small model with large random weights (random_model.h). */
static void make_model(Model *m, unsigned long long seed)
{
    ModelConfig c = {.vocab_size = TV, .d_model = TC, .n_layers = TL, .n_heads = TH, .d_ff = TF,
                     .max_seq_len = 16, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    test_random_model(m, &c, TB, TT, seed);
}

/* Adapters of rank 3 on the given targets; B made non-zero when randomise. */
static void make_lora(Lora *lo, unsigned targets, float dropout, int randomise)
{
    LoraConfig cfg = {.rank = 3, .alpha = 6.0f, .dropout = dropout, .targets = targets};
    SrError err;
    assert_int_equal(lora_create(lo, &cfg, TL, TC, TB * TT, 99, &err), 0);
    if (randomise) {
        unsigned long long st = 5;
        test_fill_random(lo->params, (long)lo->n_params, &st, 0.4f);
    }
}

static int IDS[TB * TT], TARGETS[TB * TT], LENGTHS[TB] = {TT, TT - 2};

/* Fill the fixed batch: ids, targets (padding and one position ignored). */
static ModelInput batch(void)
{
    for (int i = 0; i < TB * TT; i++) {
        IDS[i] = (i * 7 + 3) % TV;
        TARGETS[i] = (i * 5 + 1) % TV;
    }
    TARGETS[4] = -1;
    for (int t = TT - 2; t < TT; t++) TARGETS[TT + t] = -1;
    return (ModelInput){.B = TB, .T = TT, .ids = IDS, .lengths = LENGTHS, .want_logits = 1};
}

/* Loss of one forward; the dropout stream restarts from *rng each time so
 * that every forward of a finite-difference check draws the same masks. */
static double loss_of(Model *m, const ModelInput *in, const Rng *rng)
{
    SrError err;
    if (m->lora) m->lora->rng = *rng;
    assert_int_equal(model_forward(m, in, &err), 0);
    return model_lm_loss(m, TARGETS, -1);
}

/* An adapter whose B is zero changes nothing: the logits are bit-identical. */
static void test_untrained_adapter_is_the_base(void **state)
{
    (void)state;
    Model m;
    Lora lo;
    make_model(&m, 1);
    make_lora(&lo, 0xF, 0.0f, 0);
    ModelInput in = batch();
    SrError err;
    assert_int_equal(model_forward(&m, &in, &err), 0);
    size_t n = (size_t)TB * TT * TV;
    float *base = malloc(n * sizeof(float));
    memcpy(base, m.a.logits, n * sizeof(float));
    m.lora = &lo;
    assert_int_equal(model_forward(&m, &in, &err), 0);
    assert_memory_equal(base, m.a.logits, n * sizeof(float));
    /* and A is not zero, so only B = 0 makes it so */
    double sum = 0.0;
    for (int i = 0; i < TC * 3; i++) sum += fabs(lora_a(&lo, 0, LORA_Q, 0)[i]);
    assert_true(sum > 0.0);
    free(base);
    lora_free(&lo);
    model_free(&m);
}

/* Central differences against the analytic gradient of every adapter weight
 * (every 3rd float), for one target set and dropout rate. */
static void gradient_check(unsigned targets, float dropout)
{
    Model m;
    Lora lo;
    make_model(&m, 7);
    make_lora(&lo, targets, dropout, 1);
    lo.training = 1;
    m.lora = &lo;
    ModelInput in = batch();
    Rng start = lo.rng;
    loss_of(&m, &in, &start);
    model_zero_grad(&m);
    lora_zero_grad(&lo);
    model_backward(&m, TARGETS, -1);
    float *grads = malloc(lo.n_params * sizeof(float));
    memcpy(grads, lo.grads, lo.n_params * sizeof(float));
    const float h = 1e-3f; /* the adapters make the loss curved: 3e-3 leaves a truncation error */
    int bad = 0;
    for (size_t i = 0; i < lo.n_params; i += 2) {
        float saved = lo.params[i];
        lo.params[i] = saved + h;
        double lp = loss_of(&m, &in, &start);
        lo.params[i] = saved - h;
        double lm = loss_of(&m, &in, &start);
        lo.params[i] = saved;
        double numeric = (lp - lm) / (2.0 * h);
        double tol = 2e-2 * fmax(fabs(numeric), fabs((double)grads[i])) + 2e-4;
        if (fabs(numeric - grads[i]) > tol) {
            print_error("lora param %zu: analytic %.6g numeric %.6g\n", i, grads[i], numeric);
            bad++;
        }
    }
    size_t n_params = lo.n_params;
    free(grads);
    lora_free(&lo);
    model_free(&m);
    if (bad) {
        print_error("%d of %zu adapter gradients off\n", bad, n_params / 2);
        fail();
    }
}

static void test_grad_qkvo(void **s) { (void)s; gradient_check(0xF, 0.0f); }
static void test_grad_qkvo_dropout(void **s) { (void)s; gradient_check(0xF, 0.3f); }
static void test_grad_q_and_o(void **s) { (void)s; gradient_check((1u << LORA_Q) | (1u << LORA_O), 0.1f); }
static void test_grad_v_only(void **s) { (void)s; gradient_check(1u << LORA_V, 0.0f); }

/* With the adapters on, the gradient the base weights get is still the true
 * gradient of the loss (finite differences on a sample of base weights). */
static void test_base_gradient_through_adapters(void **state)
{
    (void)state;
    Model m;
    Lora lo;
    make_model(&m, 11);
    make_lora(&lo, 0xF, 0.0f, 1);
    m.lora = &lo;
    ModelInput in = batch();
    Rng start = lo.rng;
    loss_of(&m, &in, &start);
    model_zero_grad(&m);
    lora_zero_grad(&lo);
    model_backward(&m, TARGETS, -1);
    const float h = 3e-3f;
    for (size_t i = 0; i < m.n_params; i += 11) {
        float analytic = m.grads[i], saved = m.params[i];
        m.params[i] = saved + h;
        double lp = loss_of(&m, &in, &start);
        m.params[i] = saved - h;
        double lm = loss_of(&m, &in, &start);
        m.params[i] = saved;
        double numeric = (lp - lm) / (2.0 * h);
        assert_true(fabs(numeric - analytic) <= 2e-2 * fmax(fabs(numeric), fabs(analytic)) + 2e-4);
    }
    lora_free(&lo);
    model_free(&m);
}

/* Model.frozen_base: the adapters' gradients are the same bit for bit as
 * with the base's gradients computed, and the base gets none (m.grads keeps
 * what it held). */
static void test_frozen_base_skips_base_gradients(void **state)
{
    (void)state;
    Model m;
    Lora lo;
    make_model(&m, 13);
    make_lora(&lo, 0xF, 0.2f, 1);
    lo.training = 1;
    m.lora = &lo;
    ModelInput in = batch();
    Rng start = lo.rng;
    loss_of(&m, &in, &start);
    model_zero_grad(&m);
    lora_zero_grad(&lo);
    model_backward(&m, TARGETS, -1);
    float *full = malloc(sizeof(float) * lo.n_params);
    memcpy(full, lo.grads, sizeof(float) * lo.n_params);
    loss_of(&m, &in, &start);
    for (size_t i = 0; i < m.n_params; i++) m.grads[i] = 7.0f;
    lora_zero_grad(&lo);
    m.frozen_base = 1;
    model_backward(&m, TARGETS, -1);
    assert_memory_equal(full, lo.grads, sizeof(float) * lo.n_params);
    for (size_t i = 0; i < m.n_params; i++) assert_true(m.grads[i] == 7.0f);
    free(full);
    lora_free(&lo);
    model_free(&m);
}

/* Dropout is drawn only while training, and at rate p about a fraction p of
 * the inputs are dropped. */
static void test_dropout_only_when_training(void **state)
{
    (void)state;
    Model m;
    Lora lo;
    make_model(&m, 3);
    make_lora(&lo, 0xF, 0.5f, 1);
    m.lora = &lo;
    ModelInput in = batch();
    SrError err;
    assert_int_equal(model_forward(&m, &in, &err), 0);
    size_t n = (size_t)TB * TT * TV;
    float *eval1 = malloc(n * sizeof(float));
    memcpy(eval1, m.a.logits, n * sizeof(float));
    assert_int_equal(model_forward(&m, &in, &err), 0);
    assert_memory_equal(eval1, m.a.logits, n * sizeof(float));
    lo.training = 1;
    assert_int_equal(model_forward(&m, &in, &err), 0);
    assert_memory_not_equal(eval1, m.a.logits, n * sizeof(float));
    long kept = 0, total = (long)TB * TT * TC;
    for (long i = 0; i < total; i++) kept += lo.keep[i];
    assert_true(kept > total / 4 && kept < 3 * total / 4);
    free(eval1);
    lora_free(&lo);
    model_free(&m);
}

/* Bad configurations and target lists are refused with a message. */
static void test_config_checks(void **state)
{
    (void)state;
    SrError err;
    unsigned t;
    assert_int_equal(lora_parse_targets("q,k,v,o", &t, &err), 0);
    assert_int_equal(t, 0xF);
    assert_int_equal(lora_parse_targets("o", &t, &err), 0);
    assert_int_equal(t, 1u << LORA_O);
    assert_int_equal(lora_parse_targets("q,gate", &t, &err), -1);
    assert_non_null(strstr(err.msg, "q, k, v, o"));
    assert_int_equal(lora_parse_targets("q,q", &t, &err), -1);
    assert_non_null(strstr(err.msg, "twice"));
    assert_int_equal(lora_parse_targets("", &t, &err), -1);
    LoraConfig ok = {.rank = 4, .alpha = 16.0f, .dropout = 0.1f, .targets = 0xF};
    assert_int_equal(lora_config_check(&ok, 8, &err), 0);
    LoraConfig bad = ok;
    bad.rank = 0;
    assert_int_equal(lora_config_check(&bad, 8, &err), -1);
    assert_non_null(strstr(err.msg, "rank must be 1..8"));
    bad.rank = 9;
    assert_int_equal(lora_config_check(&bad, 8, &err), -1);
    bad = ok;
    bad.dropout = 1.0f;
    assert_int_equal(lora_config_check(&bad, 8, &err), -1);
    bad = ok;
    bad.targets = 0;
    assert_int_equal(lora_config_check(&bad, 8, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_untrained_adapter_is_the_base),
        cmocka_unit_test(test_grad_qkvo),
        cmocka_unit_test(test_grad_qkvo_dropout),
        cmocka_unit_test(test_grad_q_and_o),
        cmocka_unit_test(test_grad_v_only),
        cmocka_unit_test(test_base_gradient_through_adapters),
        cmocka_unit_test(test_frozen_base_skips_base_gradients),
        cmocka_unit_test(test_dropout_only_when_training),
        cmocka_unit_test(test_config_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
