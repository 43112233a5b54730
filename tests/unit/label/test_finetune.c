/* test_finetune.c — methods -> plans (methods.h) and fine-tuning
 * (finetune.h) on a tiny in-code right-cue task: the label of the first
 * word is decided by the LAST word, so a causal reader cannot know it at
 * r = 0 and can at r = 1. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/model.h"
#include "label/labels.h"
#include "label/methods.h"
#include "label/readout.h"
#include "text/tokenizer.h"
#include "train/finetune.h"

/* ---- methods ------------------------------------------------------------------ */

static void test_method_plans(void **state)
{
    (void)state;
    MaskKind plan[6], middle[6];
    SrError err;
    Method m;
    for (int i = 0; i < METHOD_COUNT; i++) {
        assert_int_equal(method_parse(method_name((Method)i), &m), 0);
        assert_int_equal(m, i);
    }
    assert_int_equal(method_parse("bert", &m), -1);
    assert_int_equal(method_default_r(METHOD_SR), 1);
    assert_int_equal(method_default_r(METHOD_CAUSAL), 0);

    assert_int_equal(method_plan(METHOD_CAUSAL, 0, plan, 6, &err), 0);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], MASK_CAUSAL);
    assert_int_equal(method_plan(METHOD_SR, 4, plan, 6, &err), 0);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], MASK_CAUSAL);
    assert_int_equal(method_plan(METHOD_UNMASK_FULL, 0, plan, 6, &err), 0);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], MASK_BIDIRECTIONAL);
    assert_int_equal(method_plan(METHOD_ENCODER, 0, plan, 6, &err), 0);
    for (int l = 0; l < 6; l++) assert_int_equal(plan[l], MASK_BIDIRECTIONAL);
    assert_int_equal(method_plan(METHOD_UNMASK_MIDDLE, 0, plan, 6, &err), 0);
    mask_plan_middle(middle, 6);
    assert_memory_equal(plan, middle, sizeof plan);
    /* N = 6: cut = 2, lb = 1, ub = 4 -> causal, bi, bi, bi, bi, causal */
    assert_int_equal(plan[0], MASK_CAUSAL);
    assert_int_equal(plan[1], MASK_BIDIRECTIONAL);
    assert_int_equal(plan[5], MASK_CAUSAL);

    assert_int_equal(method_plan(METHOD_SR, 0, plan, 6, &err), -1);
    assert_non_null(strstr(err.msg, "r >= 1"));
    assert_int_equal(method_plan(METHOD_CAUSAL, 1, plan, 6, &err), -1);
    assert_int_equal(method_plan(METHOD_UNMASK_MIDDLE, 2, plan, 6, &err), -1);
}

#include "finetune_task.h"

static FinetuneConfig quick_config(Method method, int r)
{
    FinetuneConfig c = finetune_defaults();
    c.method = method;
    c.r = r;
    c.epochs = 12;
    c.lr = 3e-3f;
    c.batch = 16;
    return c;
}

/* The key result in miniature, from a random model: causal (r = 0) can only
 * guess the name's type (about half the spans right), sequence repetition
 * (r = 1) reads the cue and gets nearly all of them; full unmasking does too. */
static void test_repetition_reads_the_right_cue(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 240);
    SrError err;
    double f1[3];
    Method methods[3] = {METHOD_CAUSAL, METHOD_SR, METHOD_UNMASK_FULL};
    int rs[3] = {0, 1, 0};
    for (int i = 0; i < 3; i++) {
        Model m;
        make_model(&m, 2);
        FinetuneConfig cfg = quick_config(methods[i], rs[i]);
        FinetuneResult res;
        if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err))
            fail_msg("%s", err.msg);
        f1[i] = res.test.f1;
        assert_int_equal(res.n_epochs, 12);
        assert_true(res.best_epoch >= 1 && res.best_epoch <= 12);
        assert_true(res.dev.f1 == res.epochs[res.best_epoch - 1].dev.f1);
        for (int e = 0; e < 12; e++) assert_true(res.epochs[e].dev.f1 <= res.dev.f1);
        assert_true(res.epochs[11].train_loss < res.epochs[0].train_loss);
        assert_int_equal(res.test.counts.n_gold, 60); /* one name per sentence */
        finetune_result_free(&res);
        model_free(&m);
    }
    print_message("right-cue toy: causal %.1f, sr r=1 %.1f, unmask-full %.1f\n", f1[0], f1[1], f1[2]);
    assert_true(f1[0] < 80.0);
    assert_true(f1[1] > 95.0);
    assert_true(f1[2] > 95.0);
    task_free(&t);
}

/* Same seed, same result, bit for bit (scores and predictions). */
static void test_deterministic(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 48);
    SrError err;
    FinetuneResult res[2];
    for (int i = 0; i < 2; i++) {
        Model m;
        make_model(&m, 2);
        FinetuneConfig cfg = quick_config(METHOD_SR, 1);
        cfg.epochs = 2;
        assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res[i], &err), 0);
        model_free(&m);
    }
    assert_true(res[0].epochs[1].train_loss == res[1].epochs[1].train_loss);
    assert_true(res[0].test.f1 == res[1].test.f1);
    assert_memory_equal(res[0].test_pred, res[1].test_pred, sizeof(int) * t.pieces[2].n_words);
    assert_true(res[0].train_tokens == res[1].train_tokens);
    /* 2 epochs x every training sentence laid out twice with a <bos> per copy */
    long tokens = 0;
    for (int s = 0; s < t.pieces[0].n_sents; s++) tokens += 2 * (t.pieces[0].sents[s].n_pieces + 1);
    assert_int_equal(res[0].train_tokens, 2 * tokens);
    for (int i = 0; i < 2; i++) finetune_result_free(&res[i]);
    task_free(&t);
}

/* Early exit: with exit L = 1 of 2 layers and no weight decay, the second
 * layer's weights are never touched while the first layer's are trained. */
static void test_early_exit_leaves_upper_layers(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 32);
    SrError err;
    Model m;
    make_model(&m, 2);
    const int C = 32;
    size_t layer_wqkv = (size_t)3 * C * C;
    float *before = malloc(sizeof(float) * 2 * layer_wqkv);
    memcpy(before, m.p.wqkv, sizeof(float) * 2 * layer_wqkv);
    FinetuneConfig cfg = quick_config(METHOD_CAUSAL, 0);
    cfg.epochs = 1;
    cfg.exit_layer = 1;
    cfg.weight_decay = 0.0f;
    FinetuneResult res;
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), 0);
    assert_int_equal(res.exit_layer, 1);
    assert_memory_equal(before + layer_wqkv, m.p.wqkv + layer_wqkv, sizeof(float) * layer_wqkv);
    assert_true(memcmp(before, m.p.wqkv, sizeof(float) * layer_wqkv) != 0);
    finetune_result_free(&res);
    free(before);
    model_free(&m);
    task_free(&t);
}

/* Loss of the head on batch b (forward of model and head, no dropout). */
static float batch_loss(Model *m, LabelHead *h, const ReadoutBatch *b, const int *targets)
{
    SrError err;
    ModelInput in = readout_model_input(b, NULL, NULL, 0);
    assert_int_equal(model_forward(m, &in, &err), 0);
    label_head_forward(h, m, b, model_hidden(m, m->cfg.n_layers), 0.0f, NULL);
    memcpy(h->targets, targets, sizeof(int) * b->n_words);
    model_zero_grad(m);
    label_head_zero_grad(h);
    return label_head_backward(h, m, b, 1.0f);
}

/* One parameter to check: its name, where it lives, its analytic gradient. */
typedef struct {
    const char *name;
    float *p;
    float g;
} ParamCheck;

/* Index of the largest |g[i]| in g[0..n). */
static long argmax_abs(const float *g, long n)
{
    long best = 0;
    for (long i = 1; i < n; i++)
        if (fabsf(g[i]) > fabsf(g[best])) best = i;
    return best;
}

/* The gradients of the whole labelling step (head, final norm, and through
 * model_backward_hidden every model parameter) against central differences
 * of the loss, at r = 1 with two sentences of different length (padding). */
static void test_gradients_match_finite_differences(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 8);
    SrError err;
    Model m;
    make_model(&m, 2);
    for (size_t i = 0; i < m.n_params; i++) m.params[i] *= 5.0f; /* make every layer matter */
    for (int c = 0; c < 32; c++) m.p.lnfw[c] = 1.0f + 0.1f * (float)(c % 5);
    Rng rng;
    rng_seed(&rng, 9);
    LabelHead h;
    assert_int_equal(label_head_create(&h, 32, t.ls.n, 32, 16, 24, &rng), 0);
    for (int i = 0; i < 32 * t.ls.n; i++) h.W[i] *= 20.0f;
    ReadoutBatch b = {0};
    int sents[2] = {0, 3};
    assert_int_equal(readout_batch_build(&b, &t.pieces[0], sents, 2, readout_layout_paper(1), 0, &err), 0);
    assert_true(b.lengths[0] != b.lengths[1]);
    int targets[16];
    for (int i = 0, w = 0; i < 2; i++)
        for (int k = 0; k < t.pieces[0].sents[sents[i]].n_words; k++)
            targets[w++] = t.labels[0][t.pieces[0].word_start[sents[i]] + k];

    batch_loss(&m, &h, &b, targets);
    model_backward_hidden(&m, h.dhidden);
    float *model_grad = malloc(sizeof(float) * m.n_params);
    memcpy(model_grad, m.grads, sizeof(float) * m.n_params);
    float *head_grad = malloc(sizeof(float) * 32 * t.ls.n);
    memcpy(head_grad, h.gW, sizeof(float) * 32 * t.ls.n);

    /* parameters to check: the largest-gradient entry of each tensor */
    ParamCheck checks[6];
    int n_checks = 0;
    long i;
    i = argmax_abs(head_grad, 32 * t.ls.n);
    checks[n_checks++] = (ParamCheck){"head W", &h.W[i], head_grad[i]};
    float *views[5] = {m.p.lnfw, m.p.wte, m.p.wqkv, m.p.wdown, m.p.ln1w};
    float *gviews[5] = {m.g.lnfw, m.g.wte, m.g.wqkv, m.g.wdown, m.g.ln1w};
    long sizes[5] = {32, 14 * 32, 2 * 3 * 32 * 32, 2 * 32 * 64, 2 * 32};
    const char *names[5] = {"final norm", "embedding", "wqkv", "wdown", "ln1"};
    for (int k = 0; k < 5; k++) {
        const float *g = model_grad + (gviews[k] - m.grads);
        i = argmax_abs(g, sizes[k]);
        checks[n_checks++] = (ParamCheck){names[k], views[k] + i, g[i]};
    }
    for (int k = 0; k < n_checks; k++) {
        const float eps = 5e-4f; /* the embedding is strongly curved: 1e-2 is too coarse */
        float keep = *checks[k].p;
        *checks[k].p = keep + eps;
        double up = batch_loss(&m, &h, &b, targets);
        *checks[k].p = keep - eps;
        double down = batch_loss(&m, &h, &b, targets);
        *checks[k].p = keep;
        double numeric = (up - down) / (2.0 * eps);
        if (test_rel_diff(numeric, checks[k].g, 1e-3) > 0.03)
            fail_msg("%s: analytic %g, numeric %g", checks[k].name, checks[k].g, numeric);
        assert_true(fabs(checks[k].g) > 1e-4);
    }
    free(model_grad);
    free(head_grad);
    readout_batch_free(&b);
    label_head_free(&h);
    model_free(&m);
    task_free(&t);
}

/* Bad configurations fail with one clear line. */
static void test_errors(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 16);
    SrError err;
    Model m;
    make_model(&m, 2);
    FinetuneResult res;
    FinetuneConfig cfg = quick_config(METHOD_CAUSAL, 0);
    cfg.exit_layer = 3;
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), -1);
    assert_non_null(strstr(err.msg, "exit layer 3"));
    cfg = quick_config(METHOD_SR, 0);
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), -1);
    assert_non_null(strstr(err.msg, "r >= 1"));
    /* sentences have at most 6 words: with r = 2 and <bos> per copy that is
     * 3 * 7 = 21 tokens, within max_T 24; r = 3 gives up to 28, too many */
    cfg = quick_config(METHOD_SR, 3);
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), -1);
    assert_non_null(strstr(err.msg, "train.conll:"));
    assert_non_null(strstr(err.msg, "max_seq_len 24"));
    cfg = quick_config(METHOD_CAUSAL, 0);
    cfg.batch = 17;
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), -1);
    model_free(&m);
    task_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_method_plans),
        cmocka_unit_test(test_repetition_reads_the_right_cue),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_early_exit_leaves_upper_layers),
        cmocka_unit_test(test_gradients_match_finite_differences),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
