/* test_probe.c — softmax probes (probe.h): standardisation, fitting a
 * separable problem, determinism, per-layer scoring, and probes on the
 * features of a real (tiny, random) model through readout.h. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "label/labels.h"
#include "label/probe.h"
#include "label/readout.h"
#include "text/tokenizer.h"

/* Standardisation by hand: column 0 = {1, 3} -> mean 2, std 1; column 1 is
 * constant 5 -> mean 5 and inv_std 1 (not a division by zero). */
static void test_standardisation(void **state)
{
    (void)state;
    float X[] = {1, 5, 3, 5};
    int y[] = {0, 1};
    Probe p;
    SrError err;
    ProbeConfig cfg = probe_defaults();
    cfg.epochs = 1;
    assert_int_equal(probe_train(&p, X, y, 2, 2, 2, &cfg, &err), 0);
    assert_true(fabsf(p.mean[0] - 2.0f) < 1e-6f && fabsf(p.inv_std[0] - 1.0f) < 1e-6f);
    assert_true(fabsf(p.mean[1] - 5.0f) < 1e-6f && p.inv_std[1] == 1.0f);
    probe_free(&p);
    assert_int_equal(probe_train(&p, X, y, 0, 2, 2, &cfg, &err), -1);
}

/* Three well separated clusters in 2-D plus a constant feature, on a scale
 * far from 1 (standardisation must cope): the probe labels every point
 * right, and two runs with the same seed give the same weights bit for bit. */
static void test_separable_and_deterministic(void **state)
{
    (void)state;
    const int n = 300, C = 3, K = 3;
    float *X = malloc(sizeof(float) * n * C);
    int *y = malloc(sizeof(int) * n), *pred = malloc(sizeof(int) * n);
    unsigned long long rs = 42;
    float centre[3][2] = {{300, 0}, {-300, 0}, {0, 300}};
    for (int i = 0; i < n; i++) {
        float noise[2];
        test_fill_random(noise, 2, &rs, 60.0f);
        y[i] = i % K;
        X[i * C + 0] = 1000.0f + centre[y[i]][0] + noise[0];
        X[i * C + 1] = centre[y[i]][1] + noise[1];
        X[i * C + 2] = 7.0f;
    }
    ProbeConfig cfg = probe_defaults();
    Probe a, b;
    SrError err;
    assert_int_equal(probe_train(&a, X, y, n, C, K, &cfg, &err), 0);
    probe_predict(&a, X, n, pred);
    for (int i = 0; i < n; i++) assert_int_equal(pred[i], y[i]);
    assert_true(probe_loss(&a, X, y, n) < 0.5); /* chance: log 3 = 1.10 */
    assert_int_equal(probe_train(&b, X, y, n, C, K, &cfg, &err), 0);
    assert_memory_equal(a.W, b.W, sizeof(float) * K * C);
    assert_memory_equal(a.b, b.b, sizeof(float) * K);
    probe_free(&b);
    cfg.seed = 2; /* another order: different weights, same answers */
    assert_int_equal(probe_train(&b, X, y, n, C, K, &cfg, &err), 0);
    assert_true(memcmp(a.W, b.W, sizeof(float) * K * C) != 0);
    probe_predict(&b, X, n, pred);
    for (int i = 0; i < n; i++) assert_int_equal(pred[i], y[i]);
    probe_free(&a);
    probe_free(&b);
    free(X);
    free(y);
    free(pred);
}

/* Sentences "w/TAG ..." into a data set. */
static void add_sentence(Dataset *d, int n, const char *const *words, const char *const *tags)
{
    SrError err;
    assert_int_equal(dataset_add(d, words, tags, n, d->n_sents + 1, &err), 0);
}

/* A toy task: in every sentence "ann" is B-PER, "rome" B-LOC, "bob" I-PER
 * after "ann", the rest O. Sentences cycle through a few patterns. */
static void make_task(Dataset *d, int n_sents, int offset)
{
    static const char *W[4][4] = {{"ann", "bob", "went", "home"},
                                  {"home", "rome", "went", "home"},
                                  {"ann", "went", "rome", "home"},
                                  {"went", "home", "ann", "bob"}};
    static const char *T[4][4] = {{"B-PER", "I-PER", "O", "O"},
                                  {"O", "B-LOC", "O", "O"},
                                  {"B-PER", "O", "B-LOC", "O"},
                                  {"O", "O", "B-PER", "I-PER"}};
    memset(d, 0, sizeof *d);
    d->source = strdup("toy.conll");
    for (int s = 0; s < n_sents; s++) add_sentence(d, 4, W[(s + offset) % 4], T[(s + offset) % 4]);
}

/* probe_layers on hand-made features: layer 0 is pure noise, layer 1 holds
 * the tag as a one-hot (plus noise). Layer 1 scores 100 on dev and test,
 * layer 0 does not; the test predictions of layer 1 equal the gold ids. */
static void test_probe_layers_scores(void **state)
{
    (void)state;
    Dataset train, dev, test;
    make_task(&train, 40, 0);
    make_task(&dev, 12, 1);
    make_task(&test, 12, 2);
    LabelSet ls;
    SrError err;
    assert_int_equal(labels_build(&ls, &train, &err), 0);
    assert_int_equal(ls.n, 5); /* O B-LOC I-LOC B-PER I-PER */
    const Dataset *sets[3] = {&train, &dev, &test};
    float *x[3];
    int *y[3];
    long nw[3];
    const int C = 8, L = 2;
    unsigned long long rs = 7;
    for (int k = 0; k < 3; k++) {
        nw[k] = dataset_n_words(sets[k]);
        y[k] = malloc(sizeof(int) * nw[k]);
        assert_int_equal(labels_encode(&ls, sets[k], y[k], NULL, &err), 0);
        x[k] = malloc(sizeof(float) * L * nw[k] * C);
        test_fill_random(x[k], L * nw[k] * C, &rs, 1.0f);
        for (long w = 0; w < nw[k]; w++) x[k][(nw[k] + w) * C + y[k][w]] += 5.0f;
    }
    ProbeSplit tr = {x[0], y[0], nw[0], &train}, dv = {x[1], y[1], nw[1], &dev},
               te = {x[2], y[2], nw[2], &test};
    SpanScores dev_s[2], test_s[2];
    int *pred = malloc(sizeof(int) * L * nw[2]);
    ProbeConfig cfg = probe_defaults();
    cfg.epochs = 30;
    assert_int_equal(probe_layers(&tr, &dv, &te, L, C, &ls, &cfg, dev_s, test_s, pred, &err), 0);
    assert_true(fabs(dev_s[1].f1 - 100.0) < 1e-9);
    assert_true(fabs(test_s[1].f1 - 100.0) < 1e-9);
    assert_true(dev_s[0].f1 < 90.0);
    for (long w = 0; w < nw[2]; w++) assert_int_equal(pred[nw[2] + w], y[2][w]);
    /* 12 test sentences cycling patterns 2,3,0,1: spans 2+1+1+1 per cycle -> 15 */
    assert_int_equal(test_s[1].counts.n_gold, 15);
    free(pred);
    for (int k = 0; k < 3; k++) {
        free(x[k]);
        free(y[k]);
    }
    labels_free(&ls);
    dataset_free(&train);
    dataset_free(&dev);
    dataset_free(&test);
}

/* Probes on real model features through readout_collect: the tags of this
 * task are a function of the word and its left neighbour, so the
 * embeddings (layer 0) already give most of it and a causal layer above,
 * which sees the left neighbour, gives all of it; r = 1 runs too. */
static void test_probe_on_model_features(void **state)
{
    (void)state;
    static const char *VOCAB[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
                                  "ann", "bob", "went", "home", "rome"};
    Tokenizer tok;
    SrError err;
    assert_int_equal(tokenizer_from_words(&tok, VOCAB, 11, 1, &err), 0);
    Dataset train, dev, test;
    make_task(&train, 40, 0);
    make_task(&dev, 12, 1);
    make_task(&test, 12, 2);
    LabelSet ls;
    assert_int_equal(labels_build(&ls, &train, &err), 0);
    PiecedData pd[3];
    const Dataset *sets[3] = {&train, &dev, &test};
    int *y[3];
    for (int k = 0; k < 3; k++) {
        assert_int_equal(readout_prepare(&pd[k], sets[k], &tok, &err), 0);
        y[k] = malloc(sizeof(int) * pd[k].n_words);
        assert_int_equal(labels_encode(&ls, sets[k], y[k], NULL, &err), 0);
    }
    ModelConfig mc = {.vocab_size = 11, .d_model = 16, .n_layers = 2, .n_heads = 2, .d_ff = 32,
                      .max_seq_len = 16, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    Model m;
    assert_int_equal(model_create(&m, &mc, 8, 16, &err), 0);
    model_init_weights(&m, 3);
    const int C = 16, L = 3;
    for (int r = 0; r <= 1; r++) {
        float *x[3];
        for (int k = 0; k < 3; k++) {
            x[k] = malloc(sizeof(float) * L * pd[k].n_words * C);
            assert_int_equal(readout_collect(&m, &pd[k], readout_layout_paper(r), NULL, NULL, 8, x[k], NULL, &err), 0);
        }
        ProbeSplit tr = {x[0], y[0], pd[0].n_words, &train}, dv = {x[1], y[1], pd[1].n_words, &dev},
                   te = {x[2], y[2], pd[2].n_words, &test};
        SpanScores dev_s[3], test_s[3];
        ProbeConfig cfg = probe_defaults();
        cfg.epochs = 40;
        assert_int_equal(probe_layers(&tr, &dv, &te, L, C, &ls, &cfg, dev_s, test_s, NULL, &err), 0);
        /* layer 0: "bob" is I-PER after "ann" every time, so word identity is enough here */
        assert_true(dev_s[0].f1 > 99.0);
        for (int l = 1; l < L; l++) assert_true(dev_s[l].f1 > 90.0);
        for (int k = 0; k < 3; k++) free(x[k]);
    }
    model_free(&m);
    for (int k = 0; k < 3; k++) {
        pieced_data_free(&pd[k]);
        free(y[k]);
    }
    labels_free(&ls);
    dataset_free(&train);
    dataset_free(&dev);
    dataset_free(&test);
    tokenizer_free(&tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standardisation),
        cmocka_unit_test(test_separable_and_deterministic),
        cmocka_unit_test(test_probe_layers_scores),
        cmocka_unit_test(test_probe_on_model_features),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
