/* test_finetune_lora.c — fine-tuning with LoRA adapters and gradient
 * accumulation (finetune.h), the recipes (recipe.h) and the adapter file
 * (formats/adapter.h), on the tiny right-cue task of finetune_task.h:
 * the base stays bit-identical under LoRA, G batches of B accumulate to the
 * gradient and update of one batch of G x B, an adapter file reads back
 * exactly and only for its own base model, and a head taken away is its
 * o_proj columns zeroed. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "finetune_task.h"
#include "formats/adapter.h"
#include "formats/safetensors.h"
#include "train/recipe.h"

/* LoRA on sr r = 1 with the head dropout and lr of the quick tests. */
static FinetuneConfig lora_config(int epochs)
{
    FinetuneConfig c = finetune_defaults();
    c.method = METHOD_SR;
    c.r = 1;
    c.epochs = epochs;
    c.lr = 3e-3f;
    c.batch = 16;
    c.adapter = ADAPTER_LORA;
    c.lora = (LoraConfig){4, 8.0f, 0.1f, 0xFu};
    return c;
}

/* With LoRA every base weight (the final norm included) is bit-identical
 * after training, the model is handed back without adapters, the loss falls
 * and the best epoch's adapters are trained (B no longer zero). */
static void test_lora_leaves_base_bit_identical(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 64);
    SrError err;
    Model m;
    make_model(&m, 2);
    float *before = malloc(sizeof(float) * m.n_params);
    memcpy(before, m.params, sizeof(float) * m.n_params);
    FinetuneConfig cfg = lora_config(4);
    FinetuneResult res;
    if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(before, m.params, sizeof(float) * m.n_params);
    assert_null(m.lora);
    assert_int_equal(m.frozen_base, 0);
    assert_null(m.m1); /* no optimiser moments for the frozen base */
    assert_true(res.epochs[3].train_loss < res.epochs[0].train_loss);
    assert_int_equal(res.best.n_lora, adapter_lora_floats(&cfg.lora, 2, 32));
    double b_norm = 0;
    size_t AB = (size_t)4 * 32;
    for (size_t i = AB; i < 2 * AB; i++) b_norm += fabs(res.best.lora_w[i]); /* layer 0, q: B */
    assert_true(b_norm > 0);
    finetune_result_free(&res);
    free(before);
    model_free(&m);
    task_free(&t);
}

/* One update (epochs 1, 8 sentences, no dropout) of batch B x grad_accum G:
 * the model's parameters after it (into params) and the gradient that made
 * it (into grads, full fine-tuning only), both n_params floats; for LoRA the
 * adapters after it. */
static void one_update(const Task *t, AdapterKind adapter, int batch, int accum, float *params,
                       float *grads, float *adapters)
{
    SrError err;
    Model m;
    make_model(&m, 2);
    FinetuneConfig cfg = finetune_defaults();
    cfg.method = METHOD_SR;
    cfg.r = 1;
    cfg.epochs = 1;
    cfg.batch = batch;
    cfg.grad_accum = accum;
    cfg.dropout = 0.0f;
    cfg.adapter = adapter;
    cfg.lora = (LoraConfig){4, 8.0f, 0.0f, 0xFu};
    FinetuneResult res;
    if (finetune_run(&m, &t->ls, &t->split[0], &t->split[1], &t->split[2], &cfg, &res, &err))
        fail_msg("%s", err.msg);
    memcpy(params, m.params, sizeof(float) * m.n_params);
    if (adapter == ADAPTER_LORA) assert_null(m.grads); /* a LoRA run frees the base's gradients */
    else memcpy(grads, m.grads, sizeof(float) * m.n_params);
    if (adapters) memcpy(adapters, res.best.lora_w, sizeof(float) * res.best.n_lora);
    finetune_result_free(&res);
    model_free(&m);
}

/* Largest |a - b| over n floats, relative to the largest |b|. */
static double max_rel_diff(const float *a, const float *b, size_t n)
{
    double d = 0, scale = 1e-12;
    for (size_t i = 0; i < n; i++) {
        if (fabs(a[i] - b[i]) > d) d = fabs(a[i] - b[i]);
        if (fabs(b[i]) > scale) scale = fabs(b[i]);
    }
    return d / scale;
}

/* Batch 4 with grad-accum 2 is batch 8: the same summed gradient (each
 * batch weighted by its share of the words; the 8 sentences have different
 * word counts, so equal weights would not do) and the same update, up to
 * float rounding; with LoRA the same adapters after the update. */
static void test_grad_accum_matches_one_big_batch(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 8);
    Model probe;
    make_model(&probe, 2);
    size_t n = probe.n_params;
    model_free(&probe);
    float *p8 = malloc(sizeof(float) * n), *g8 = malloc(sizeof(float) * n);
    float *p4 = malloc(sizeof(float) * n), *g4 = malloc(sizeof(float) * n);
    one_update(&t, ADAPTER_NONE, 8, 1, p8, g8, NULL);
    one_update(&t, ADAPTER_NONE, 4, 2, p4, g4, NULL);
    double dg = max_rel_diff(g4, g8, n), dp = max_rel_diff(p4, p8, n);
    print_message("grad-accum 2 x 4 vs 8: gradient %.2g, parameters %.2g (relative)\n", dg, dp);
    assert_true(dg < 1e-5);
    assert_true(dp < 1e-5);

    LoraConfig lc = {4, 8.0f, 0.0f, 0xFu};
    size_t nl = adapter_lora_floats(&lc, 2, 32);
    float *a8 = malloc(sizeof(float) * nl), *a4 = malloc(sizeof(float) * nl);
    one_update(&t, ADAPTER_LORA, 8, 1, p8, g8, a8);
    one_update(&t, ADAPTER_LORA, 4, 2, p4, g4, a4);
    assert_memory_equal(p4, p8, sizeof(float) * n); /* the base: untouched either way */
    double da = max_rel_diff(a4, a8, nl);
    print_message("LoRA grad-accum 2 x 4 vs 8: adapters %.2g (relative)\n", da);
    assert_true(da < 1e-5);
    free(a8), free(a4), free(p8), free(g8), free(p4), free(g4);
    task_free(&t);
}

/* An adapter file of random adapters and head for model m, written to path. */
static void write_random_adapter(const Model *m, const LabelSet *ls, const char *path,
                                 AdapterFile *a)
{
    unsigned long long seed = 77;
    memset(a, 0, sizeof *a);
    a->n_layers = m->cfg.n_layers, a->d_model = m->cfg.d_model;
    adapter_base_checksum(m, a->base_checksum);
    a->has_lora = 1;
    a->lora = (LoraConfig){4, 8.0f, 0.1f, (1u << LORA_Q) | (1u << LORA_V)};
    a->n_lora = adapter_lora_floats(&a->lora, a->n_layers, a->d_model);
    a->lora_w = malloc(sizeof(float) * a->n_lora);
    test_fill_random(a->lora_w, (long)a->n_lora, &seed, 1.0f);
    a->n_labels = ls->n;
    a->labels = ls->names;
    a->head_W = malloc(sizeof(float) * (size_t)ls->n * a->d_model);
    a->head_b = malloc(sizeof(float) * (size_t)ls->n);
    test_fill_random(a->head_W, (long)ls->n * a->d_model, &seed, 1.0f);
    test_fill_random(a->head_b, ls->n, &seed, 1.0f);
    a->exit_layer = 2, a->r = 1;
    strcpy(a->method, "sr");
    SrError err;
    if (adapter_write(path, a, &err)) fail_msg("%s", err.msg);
}

/* Rewrite the safetensors file at path with one metadata value changed (or
 * one tensor renamed when key starts with "tensor:"). */
static void rewrite(const char *path, const char *key, const char *value)
{
    SrError err;
    StFile f;
    assert_int_equal(st_read(path, &f, &err), 0);
    for (int i = 0; i < f.n_meta; i++)
        if (strcmp(f.meta[i].key, key) == 0) {
            free(f.meta[i].value);
            f.meta[i].value = strdup(value);
        }
    if (strncmp(key, "tensor:", 7) == 0)
        for (int i = 0; i < f.n_tensors; i++)
            if (strcmp(f.tensors[i].name, key + 7) == 0) {
                free(f.tensors[i].name);
                f.tensors[i].name = strdup(value);
            }
    assert_int_equal(st_write(path, f.tensors, f.n_tensors, f.meta, f.n_meta, &err), 0);
    st_free(&f);
}

/* Write, read back (every float, the labels and settings equal), and the
 * errors: another base model, another width, a renamed tensor, a rank the
 * tensors do not have, a file that is no adapter. */
static void test_adapter_file_round_trip_and_mismatch(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 8);
    Model m, other, wide;
    make_model(&m, 2);
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_adapter.%d.safetensors", (int)getpid());
    AdapterFile a, back;
    write_random_adapter(&m, &t.ls, path, &a);
    SrError err;
    if (adapter_read(path, &m, &back, &err)) fail_msg("%s", err.msg);
    assert_int_equal(back.has_lora, 1);
    assert_int_equal(back.lora.rank, 4);
    assert_true(back.lora.alpha == 8.0f && back.lora.dropout == 0.1f);
    assert_int_equal(back.lora.targets, a.lora.targets);
    assert_int_equal(back.n_lora, a.n_lora);
    assert_memory_equal(back.lora_w, a.lora_w, sizeof(float) * a.n_lora);
    assert_memory_equal(back.head_W, a.head_W, sizeof(float) * (size_t)t.ls.n * 32);
    assert_memory_equal(back.head_b, a.head_b, sizeof(float) * (size_t)t.ls.n);
    assert_int_equal(back.n_labels, t.ls.n);
    for (int k = 0; k < t.ls.n; k++) assert_string_equal(back.labels[k], t.ls.names[k]);
    assert_int_equal(back.exit_layer, 2);
    assert_int_equal(back.r, 1);
    assert_string_equal(back.method, "sr");
    assert_string_equal(back.base_checksum, a.base_checksum);
    adapter_free(&back);

    /* alpha and dropout come back as the same floats, not six digits of
     * them (a fuzz_adapter input: a dropout of 0.9999999 came back as 1) */
    a.lora.alpha = 1.0f / 3.0f;
    a.lora.dropout = 0.9999999f;
    if (adapter_write(path, &a, &err) || adapter_read(path, &m, &back, &err)) fail_msg("%s", err.msg);
    assert_true(back.lora.alpha == a.lora.alpha && back.lora.dropout == a.lora.dropout);
    adapter_free(&back);

    /* PEFT names: layer 1's v adapter is there, its k adapter is not */
    StFile f;
    assert_int_equal(st_read(path, &f, &err), 0);
    assert_non_null(st_find(&f, "base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight"));
    assert_null(st_find(&f, "base_model.model.model.layers.1.self_attn.k_proj.lora_A.weight"));
    assert_non_null(st_find(&f, "classifier.bias"));
    st_free(&f);

    make_model(&other, 2);
    other.params[0] += 1.0f;
    assert_int_equal(adapter_read(path, &other, &back, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "another base model"));
    make_model(&wide, 3);
    assert_int_equal(adapter_read(path, &wide, &back, &err), -1);
    assert_non_null(strstr(err.msg, "2 layers of width 32, this one has 3 of 32"));

    rewrite(path, "lora_rank", "8");
    assert_int_equal(adapter_read(path, &m, &back, &err), -1);
    assert_non_null(strstr(err.msg, "is not F32 of shape (8, 32)"));
    rewrite(path, "lora_rank", "4");
    rewrite(path, "tensor:classifier.bias", "score.bias");
    assert_int_equal(adapter_read(path, &m, &back, &err), -1);
    assert_non_null(strstr(err.msg, "unexpected tensor 'score.bias'"));
    rewrite(path, "lora_alpha", "1e39");
    assert_int_equal(adapter_read(path, &m, &back, &err), -1);
    assert_non_null(strstr(err.msg, "metadata 'lora_alpha' is missing or not a finite number"));
    rewrite(path, "seqrep.adapter", "x");
    assert_int_equal(adapter_read(path, &m, &back, &err), -1);
    assert_non_null(strstr(err.msg, "not a seqrep adapter file"));

    unlink(path);
    free(a.lora_w), free(a.head_W), free(a.head_b);
    model_free(&m), model_free(&other), model_free(&wide);
    task_free(&t);
}

/* Starting from saved weights: a run of 1 epoch at learning rate ~0 from
 * the best weights of another run labels like that run did. */
static void test_start_from_trained_weights(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 32);
    SrError err;
    Model m;
    make_model(&m, 2);
    FinetuneConfig cfg = lora_config(3);
    FinetuneResult first, again;
    if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &first, &err))
        fail_msg("%s", err.msg);
    FinetuneConfig cont = lora_config(1);
    cont.lr = 1e-30f;
    cont.start = &first.best;
    if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cont, &again, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(again.test_pred, first.test_pred, sizeof(int) * t.pieces[2].n_words);
    finetune_result_free(&again);
    TrainedWeights bad = first.best;
    bad.K = first.best.K - 1;
    cont.start = &bad;
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cont, &again, &err), -1);
    assert_non_null(strstr(err.msg, "starting head"));
    finetune_result_free(&first);
    model_free(&m);
    task_free(&t);
}

/* 1 when every field of a and b is the same (a struct's padding bytes are
 * not compared: they need not be copied). */
static int config_equal(const FinetuneConfig *a, const FinetuneConfig *b)
{
    return a->method == b->method && a->r == b->r && a->exit_layer == b->exit_layer &&
           a->epochs == b->epochs && a->lr == b->lr && a->batch == b->batch && a->seed == b->seed &&
           a->dropout == b->dropout && a->weight_decay == b->weight_decay && a->bos == b->bos &&
           a->sep == b->sep && a->copy_positions == b->copy_positions && a->adapter == b->adapter &&
           a->lora.rank == b->lora.rank && a->lora.alpha == b->lora.alpha &&
           a->lora.dropout == b->lora.dropout && a->lora.targets == b->lora.targets &&
           a->grad_accum == b->grad_accum && a->start == b->start && a->log == b->log;
}

/* The recipes: paper's settings, full is the defaults, labels, bad names. */
static void test_recipes(void **state)
{
    (void)state;
    FinetuneConfig c, d = finetune_defaults();
    assert_int_equal(recipe_apply("full", &c), 0);
    assert_true(config_equal(&c, &d));
    assert_int_equal(recipe_apply("paper", &c), 0);
    assert_int_equal(c.adapter, ADAPTER_LORA);
    assert_int_equal(c.lora.rank, 16);
    assert_true(c.lora.alpha == 16.0f && c.lora.dropout == 0.1f);
    assert_int_equal(c.lora.targets, 0xF);
    assert_true(c.lr == 2e-4f && c.weight_decay == 0.05f && c.dropout == 0.1f);
    assert_int_equal(c.epochs, 10);
    assert_int_equal(c.batch * c.grad_accum, 32);
    assert_int_equal(recipe_apply("lora", &c), -1);
    char label[48];
    recipe_label("paper", ADAPTER_LORA, label, sizeof label);
    assert_string_equal(label, "paper");
    recipe_label("full", ADAPTER_LORA, label, sizeof label);
    assert_string_equal(label, "full+lora");
    AdapterKind k;
    assert_int_equal(adapter_parse("lora", &k), 0);
    assert_int_equal(adapter_parse("prefix", &k), -1);
}

/* Bad LoRA settings and grad-accum fail with one clear line. */
static void test_errors(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 8);
    SrError err;
    Model m;
    make_model(&m, 2);
    FinetuneResult res;
    FinetuneConfig cfg = lora_config(1);
    cfg.lora.rank = 33;
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), -1);
    assert_non_null(strstr(err.msg, "rank must be 1..32"));
    cfg = lora_config(1);
    cfg.grad_accum = 0;
    assert_int_equal(finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err), -1);
    assert_non_null(strstr(err.msg, "grad-accum"));
    model_free(&m);
    task_free(&t);
}

/* Fine-tuning with a head taken away (cfg.head_scale) is fine-tuning the
 * model whose o_proj columns of that head were zeroed by hand, under LoRA
 * on q, k and v (whose adapters then learn nothing for that head; with o,
 * the zeroed model's o adapter would read the head): the same scores,
 * test labels and adapters after every epoch. */
static void test_head_taken_away(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 48);
    SrError err;
    const int layer = 1, head = 0, C = 32, hd = 16;
    float plan[2 * 2] = {1.0f, 1.0f, 1.0f, 1.0f};
    plan[layer * 2 + head] = 0.0f;
    FinetuneResult res[2];
    for (int k = 0; k < 2; k++) {
        Model m;
        make_model(&m, 2);
        FinetuneConfig cfg = lora_config(2);
        cfg.lora.targets = 0x7u; /* q, k, v */
        if (k == 0) {
            cfg.head_scale = plan;
        } else {
            float *wo = m.p.wo + (size_t)layer * C * C;
            for (int r = 0; r < C; r++) memset(wo + (size_t)r * C + head * hd, 0, hd * sizeof(float));
        }
        if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res[k], &err))
            fail_msg("%s", err.msg);
        model_free(&m);
    }
    for (int e = 0; e < 2; e++) {
        assert_true(res[0].epochs[e].train_loss == res[1].epochs[e].train_loss);
        assert_true(res[0].epochs[e].test.f1 == res[1].epochs[e].test.f1);
    }
    assert_memory_equal(res[0].test_pred, res[1].test_pred, sizeof(int) * (size_t)t.pieces[2].n_words);
    assert_int_equal(res[0].best.n_lora, res[1].best.n_lora);
    assert_memory_equal(res[0].best.lora_w, res[1].best.lora_w, sizeof(float) * res[0].best.n_lora);
    for (int k = 0; k < 2; k++) finetune_result_free(&res[k]);
    task_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lora_leaves_base_bit_identical),
        cmocka_unit_test(test_grad_accum_matches_one_big_batch),
        cmocka_unit_test(test_adapter_file_round_trip_and_mismatch),
        cmocka_unit_test(test_start_from_trained_weights),
        cmocka_unit_test(test_recipes),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_head_taken_away),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
