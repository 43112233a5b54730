/* test_adapter_apply.c — LoRA adapters merged into the weights
 * (engine/lora_merge.h) and an adapter file applied to a loaded base model
 * (formats/adapter_apply.h): the merged model's logits and attention equal
 * those of the model with the adapters attached (Model.lora) within 1e-5,
 * also on a model with grouped-query attention and a separate head size,
 * an untrained adapter (B = 0) leaves every weight bit-identical, and a file
 * without adapters or of another base model is refused, naming the file,
 * with the model unchanged. */
#include "random_model.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/lora.h"
#include "engine/lora_merge.h"
#include "engine/model.h"
#include "formats/adapter.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"

enum { TB = 2, TT = 6, TV = 13, TC = 8, TL = 3, TH = 2, TF = 12 };

/* A small model with large random weights (random_model.h); with hf, the
 * Hugging Face features: 2 query heads on 1 key/value head of size 6 (not
 * 8 / 2), q/k/v biases and q/k norms, so q is 12 wide and k, v 6. */
static void make_model_shaped(Model *m, unsigned long long seed, int hf)
{
    ModelConfig c = {.vocab_size = TV, .d_model = TC, .n_layers = TL, .n_heads = TH, .d_ff = TF,
                     .max_seq_len = 16, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    if (hf) c.family.n_kv_heads = 1, c.family.head_dim = 6, c.family.qkv_bias = 1, c.family.qk_norm = 1;
    test_random_model(m, &c, TB, TT, seed);
}

static void make_model(Model *m, unsigned long long seed)
{
    make_model_shaped(m, seed, 0);
}

/* Adapters of rank 3, alpha 6 on targets of m's projections, dropout 0.2
 * (off at inference); A and B random when randomise, otherwise as
 * lora_create leaves them (B = 0). */
static void make_lora_for(Lora *lo, const Model *m, unsigned targets, int randomise)
{
    LoraConfig cfg = {.rank = 3, .alpha = 6.0f, .dropout = 0.2f, .targets = targets};
    SrError err;
    assert_int_equal(lora_create_dims(lo, &cfg, TL, TC, model_q_dim(&m->cfg),
                                      model_kv_dim(&m->cfg), TB * TT, 99, &err), 0);
    if (randomise) {
        unsigned long long st = 5;
        test_fill_random(lo->params, (long)lo->n_params, &st, 0.4f);
    }
}

/* make_lora_for a model of seqrep's own shape (q, k, v, o all 8 x 8). */
static void make_lora(Lora *lo, unsigned targets, int randomise)
{
    Model square = {.cfg = {.d_model = TC, .n_heads = TH}};
    make_lora_for(lo, &square, targets, randomise);
}

static int IDS[TB * TT], LENGTHS[TB] = {TT, TT - 2};

/* The fixed batch of every forward here (logits wanted). */
static ModelInput batch(void)
{
    for (int i = 0; i < TB * TT; i++) IDS[i] = (i * 7 + 3) % TV;
    return (ModelInput){.B = TB, .T = TT, .ids = IDS, .lengths = LENGTHS, .want_logits = 1};
}

/* The logits (B, T, V) and attention (L, B, H, T, T) of one forward of m. */
typedef struct {
    float *logits, *att;
} Outputs;

static Outputs run(Model *m)
{
    ModelInput in = batch();
    SrError err;
    if (model_forward(m, &in, &err)) fail_msg("%s", err.msg);
    size_t nl = (size_t)TB * TT * TV, na = (size_t)TL * TB * TH * TT * TT;
    Outputs o = {malloc(nl * sizeof(float)), malloc(na * sizeof(float))};
    memcpy(o.logits, m->a.logits, nl * sizeof(float));
    for (int l = 0; l < TL; l++)
        memcpy(o.att + (size_t)l * TB * TH * TT * TT, model_attention(m, l),
               sizeof(float) * TB * TH * TT * TT);
    return o;
}

/* Largest |a - b| over both outputs (NaN if either holds one); printed under name. */
static double max_diff(const char *name, Outputs a, Outputs b)
{
    double d = 0.0;
    for (size_t i = 0; i < (size_t)TB * TT * TV; i++) d = test_worse(d, fabs(a.logits[i] - b.logits[i]));
    for (size_t i = 0; i < (size_t)TL * TB * TH * TT * TT; i++) d = test_worse(d, fabs(a.att[i] - b.att[i]));
    print_message("%s: max difference %.3g\n", name, d);
    return d;
}

static void outputs_free(Outputs o)
{
    free(o.logits);
    free(o.att);
}

/* Merged adapters compute what attached ones do, for every target set (hf:
 * on the Hugging Face shape of make_model_shaped). */
static void merged_equals_attached(unsigned targets, const char *name, int hf)
{
    Model attached, merged;
    Lora lo;
    make_model_shaped(&attached, 1, hf);
    make_model_shaped(&merged, 1, hf);
    make_lora_for(&lo, &attached, targets, 1);
    attached.lora = &lo; /* lo.training is 0: no dropout, as at inference */
    Outputs want = run(&attached);
    SrError err;
    assert_int_equal(lora_merge(&merged, &lo, &err), 0);
    Outputs got = run(&merged);
    assert_true(max_diff(name, got, want) < 1e-5);
    /* and the adapters are no no-op here: the base alone differs */
    attached.lora = NULL;
    Outputs base = run(&attached);
    assert_true(max_diff("base vs attached", base, want) > 1e-3);
    outputs_free(base), outputs_free(want), outputs_free(got);
    lora_free(&lo);
    model_free(&attached), model_free(&merged);
}

static void test_merge_qkvo(void **s) { (void)s; merged_equals_attached(0xF, "q,k,v,o", 0); }
static void test_merge_q_and_o(void **s) { (void)s; merged_equals_attached((1u << LORA_Q) | (1u << LORA_O), "q,o", 0); }
static void test_merge_v_only(void **s) { (void)s; merged_equals_attached(1u << LORA_V, "v", 0); }
static void test_merge_hf_qkvo(void **s) { (void)s; merged_equals_attached(0xF, "hf q,k,v,o", 1); }
static void test_merge_hf_k_and_o(void **s) { (void)s; merged_equals_attached((1u << LORA_K) | (1u << LORA_O), "hf k,o", 1); }

/* B = 0 (an untrained adapter): every weight stays bit-identical. */
static void test_merge_untrained_is_the_base(void **state)
{
    (void)state;
    Model m, before;
    Lora lo;
    make_model(&m, 3);
    make_model(&before, 3);
    make_lora(&lo, 0xF, 0);
    SrError err;
    assert_int_equal(lora_merge(&m, &lo, &err), 0);
    assert_memory_equal(m.params, before.params, sizeof(float) * m.n_params);
    lora_free(&lo);
    model_free(&m), model_free(&before);
}

/* Adapters of another depth are refused before any weight changes. */
static void test_merge_other_depth(void **state)
{
    (void)state;
    Model m;
    Lora lo;
    make_model(&m, 1);
    LoraConfig cfg = {.rank = 2, .alpha = 2.0f, .dropout = 0.0f, .targets = 0xF};
    SrError err;
    assert_int_equal(lora_create(&lo, &cfg, TL + 1, TC, 4, 1, &err), 0);
    assert_int_equal(lora_merge(&m, &lo, &err), -1);
    assert_non_null(strstr(err.msg, "4 layers of width 8 do not fit a model of 3 layers"));
    lora_free(&lo);
    model_free(&m);
}

/* Write an adapter file for base with lo's adapters (or, with lo NULL, a
 * head only, as finetune --adapter none saves it). */
static void write_adapter(const char *path, const Model *base, const Lora *lo)
{
    static const char *labels[] = {"O", "B-X"};
    float head_W[2 * TC] = {0}, head_b[2] = {0};
    AdapterFile a;
    memset(&a, 0, sizeof a);
    a.n_layers = TL, a.d_model = TC;
    a.q_dim = model_q_dim(&base->cfg), a.kv_dim = model_kv_dim(&base->cfg);
    adapter_base_checksum(base, a.base_checksum);
    a.has_lora = lo != NULL;
    if (lo) {
        a.lora = lo->cfg;
        a.n_lora = lo->n_params;
        a.lora_w = lo->params;
    }
    a.n_labels = 2;
    a.labels = (char **)labels;
    a.head_W = head_W, a.head_b = head_b;
    a.exit_layer = TL, a.r = 1;
    strcpy(a.method, "sr");
    SrError err;
    if (adapter_write(path, &a, &err)) fail_msg("%s", err.msg);
}

/* The file's adapters applied to the base: as attached, within 1e-5; a file
 * with a head only and one of another base are refused, the model unchanged. */
static void test_apply_file(void **state)
{
    (void)state;
    char path[64], head_only[64], model_path[64];
    snprintf(path, sizeof path, "/tmp/test_adapter_apply.%d.st", (int)getpid());
    snprintf(head_only, sizeof head_only, "/tmp/test_adapter_head.%d.st", (int)getpid());
    snprintf(model_path, sizeof model_path, "/tmp/test_adapter_model.%d.st", (int)getpid());
    Model base, attached, other;
    Lora lo;
    make_model(&base, 4);
    make_model(&attached, 4);
    make_model(&other, 5);
    make_lora(&lo, (1u << LORA_K) | (1u << LORA_V) | (1u << LORA_O), 1);
    write_adapter(path, &base, &lo);
    write_adapter(head_only, &base, NULL);
    attached.lora = &lo;
    Outputs want = run(&attached);

    SrError err;
    LoraConfig applied;
    assert_int_equal(adapter_apply(path, &base, &applied, &err), 0);
    assert_int_equal(applied.rank, 3);
    assert_int_equal(applied.targets, lo.cfg.targets);
    Outputs got = run(&base);
    assert_true(max_diff("applied file", got, want) < 1e-5);

    float *kept = malloc(sizeof(float) * other.n_params);
    memcpy(kept, other.params, sizeof(float) * other.n_params);
    assert_int_equal(adapter_apply(path, &other, NULL, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "made for another base model"));
    write_adapter(head_only, &other, NULL);
    assert_int_equal(adapter_apply(head_only, &other, NULL, &err), -1);
    assert_non_null(strstr(err.msg, head_only));
    assert_non_null(strstr(err.msg, "has no adapters; nothing to apply"));
    assert_memory_equal(kept, other.params, sizeof(float) * other.n_params);

    /* through a checkpoint: the error names the option and the file */
    const char *vocab[TV];
    char words[TV][8];
    for (int i = 0; i < TV; i++) snprintf(words[i], sizeof words[i], "w%d", i), vocab[i] = words[i];
    assert_int_equal(checkpoint_save(model_path, &other, vocab, TV, NULL, &err), 0);
    Model loaded;
    assert_int_equal(adapter_load_model(model_path, path, &loaded, 1, 8, &err), -1);
    assert_non_null(strstr(err.msg, "--adapter "));
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(adapter_load_model(model_path, NULL, &loaded, 1, 8, &err), 0);
    assert_memory_equal(loaded.params, other.params, sizeof(float) * other.n_params);
    model_free(&loaded);

    unlink(path), unlink(head_only), unlink(model_path);
    free(kept);
    outputs_free(want), outputs_free(got);
    lora_free(&lo);
    model_free(&base), model_free(&attached), model_free(&other);
}

/* The same through a file on the Hugging Face shape (q 12, k and v 6 wide):
 * the tensors keep their shapes and the applied file computes as attached. */
static void test_apply_hf_file(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_adapter_hf.%d.st", (int)getpid());
    Model base, attached;
    Lora lo;
    make_model_shaped(&base, 6, 1);
    make_model_shaped(&attached, 6, 1);
    make_lora_for(&lo, &base, 0xF, 1);
    write_adapter(path, &base, &lo);
    attached.lora = &lo;
    Outputs want = run(&attached);
    SrError err;
    if (adapter_apply(path, &base, NULL, &err)) fail_msg("%s", err.msg);
    Outputs got = run(&base);
    assert_true(max_diff("applied hf file", got, want) < 1e-5);
    unlink(path);
    outputs_free(want), outputs_free(got);
    lora_free(&lo);
    model_free(&base), model_free(&attached);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_qkvo),
        cmocka_unit_test(test_merge_q_and_o),
        cmocka_unit_test(test_merge_v_only),
        cmocka_unit_test(test_merge_hf_qkvo),
        cmocka_unit_test(test_merge_hf_k_and_o),
        cmocka_unit_test(test_merge_untrained_is_the_base),
        cmocka_unit_test(test_merge_other_depth),
        cmocka_unit_test(test_apply_file),
        cmocka_unit_test(test_apply_hf_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
