/* test_hf_train.c — training Hugging Face model folders against the PyTorch
 * reference, and LoRA fine-tuning of one.
 *
 * Each folder of tests/golden/hf/ holds train.safetensors (written by
 * tests/reference/make_hf_golden.py in float64): for the folder's golden ids
 * and their next-token targets, the loss, every gradient and the weights
 * after two AdamW steps of full training ("full.*"), and the same for LoRA
 * adapters on q, k, v, o with the base frozen ("lora.*", starting from
 * "lora.init.*"). The C backward and optimiser must match them under the
 * golden rule (golden_compare.h), and the frozen base must come out bit for
 * bit as it went in, with no gradient buffer of its own.
 *
 * The last test fine-tunes LoRA adapters and a labelling head on a golden
 * folder loaded by hf_model_load (finetune_run on the right-cue task of
 * finetune_task.h): the loss falls and the base weights are bit-identical. */
#include "test_util.h"
#include "golden_compare.h"
#include "finetune_task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/adamw.h"
#include "engine/lora.h"
#include "engine/model.h"
#include "formats/adapter.h"
#include "formats/hf/hf_model_folder.h"
#include "formats/safetensors.h"

/* The metadata number called key of the golden file. */
static double meta_number(const StFile *f, const char *key)
{
    const char *s = st_meta(f, key);
    if (!s) fail_msg("golden file lacks metadata %s", key);
    return strtod(s, NULL);
}

/* The golden training file of case name, the folder's model (B = 1, T = the
 * ids; BF16 / F16 matrices kept as stored when keep_stored) and its ids,
 * targets and forward input. */
typedef struct {
    StFile io, g;
    Model m;
    int T, ignore;
    const int *targets;
    ModelInput in;
    AdamWConfig opt;
    float lr;
} TrainCase;

static void open_case(TrainCase *tc, const char *name, int keep_stored)
{
    char dir[256], path[300];
    SrError err;
    snprintf(dir, sizeof dir, "golden/hf/%s", name);
    snprintf(path, sizeof path, "%s/golden.safetensors", dir);
    if (st_read(path, &tc->g, &err)) fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/train.safetensors", dir);
    if (st_read(path, &tc->io, &err)) fail_msg("%s", err.msg);
    const StTensor *ids = st_find(&tc->g, "ids");
    assert_non_null(ids);
    tc->T = (int)ids->shape[0];
    tc->targets = golden_find(&tc->io, "targets", ST_I32, (size_t)tc->T)->data;
    tc->ignore = (int)meta_number(&tc->io, "ignore");
    if (hf_model_load(dir, &tc->m, 1, tc->T, NULL, keep_stored, &err)) fail_msg("%s", err.msg);
    tc->in = (ModelInput){.B = 1, .T = tc->T, .ids = ids->data, .want_logits = 1};
    tc->opt = (AdamWConfig){.beta1 = (float)meta_number(&tc->io, "beta1"),
                            .beta2 = (float)meta_number(&tc->io, "beta2"),
                            .eps = (float)meta_number(&tc->io, "eps"),
                            .weight_decay = (float)meta_number(&tc->io, "weight_decay"),
                            .grad_clip = (float)meta_number(&tc->io, "grad_clip")};
    tc->lr = (float)meta_number(&tc->io, "lr");
}

static void close_case(TrainCase *tc)
{
    model_free(&tc->m);
    st_free(&tc->io);
    st_free(&tc->g);
}

/* Forward and loss of the case's batch, the loss compared with metadata key. */
static double forward_loss(TrainCase *tc, const char *name, const char *key)
{
    SrError err;
    if (model_forward(&tc->m, &tc->in, &err)) fail_msg("%s", err.msg);
    float loss = model_lm_loss(&tc->m, tc->targets, tc->ignore);
    float want = (float)meta_number(&tc->io, key);
    return golden_compare(name, key, &loss, &want, 1);
}

/* Every weight-shaped tensor prefix<Hugging Face name> of the golden file
 * against the views v: m->g (weights 0) or m->p (weights 1; the model
 * holds a file's value plus the view's offset, Gemma's 1 + w, so that is
 * taken off first). Returns the worst ratio. */
static double compare_views(const char *name, const TrainCase *tc, const ParamViews *v,
                            const char *prefix, int weights)
{
    HfTensorView views[HF_MAX_TENSORS(8)];
    assert_true(tc->m.cfg.n_layers <= 8);
    int n = hf_tensor_views(&tc->m, v, views);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        char key[256];
        int len = snprintf(key, sizeof key, "%s%s", prefix, views[i].name);
        assert_true(len > 0 && (size_t)len < sizeof key);
        size_t count = (size_t)views[i].shape[0] * (size_t)(views[i].ndim == 2 ? views[i].shape[1] : 1);
        float offset = weights ? views[i].offset : 0.0f;
        float *got = malloc(count * sizeof(float));
        assert_non_null(got);
        for (size_t j = 0; j < count; j++) got[j] = views[i].dest[j] - offset;
        double w = golden_compare(name, key, got, golden_find(&tc->io, key, ST_F32, count)->data,
                                  count);
        free(got);
        if (w > worst) worst = w;
    }
    return worst;
}

/* A (which 'A') or B of the adapter on (layer, t), in params or grads. */
static float *lora_matrix(const Lora *lo, int layer, int t, char which, int grads)
{
    return which == 'A' ? lora_a(lo, layer, (LoraTarget)t, grads)
                        : lora_b(lo, layer, (LoraTarget)t, grads);
}

/* Copy (to_lora 1) golden prefix<peft name> tensors into lo's params, or
 * compare lo's params or grads (grads 1) with them; returns the worst ratio. */
static double lora_tensors(const char *name, const TrainCase *tc, const Lora *lo,
                           const char *prefix, int grads, int to_lora)
{
    static const char proj[LORA_N_TARGETS] = {'q', 'k', 'v', 'o'};
    double worst = 0.0;
    for (int l = 0; l < lo->n_layers; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++)
            for (int k = 0; k < 2; k++) {
                char which = k ? 'B' : 'A', key[200];
                snprintf(key, sizeof key,
                         "%sbase_model.model.model.layers.%d.self_attn.%c_proj.lora_%c.weight",
                         prefix, l, proj[t], which);
                size_t count = (size_t)lo->cfg.rank *
                               (size_t)(k ? lora_out_dim(lo, (LoraTarget)t) : lora_in_dim(lo, (LoraTarget)t));
                const float *want = golden_find(&tc->io, key, ST_F32, count)->data;
                float *have = lora_matrix(lo, l, t, which, grads);
                if (to_lora) {
                    memcpy(have, want, count * sizeof(float));
                } else {
                    double w = golden_compare(name, key, have, want, count);
                    if (w > worst) worst = w;
                }
            }
    return worst;
}

/* The golden key kind.what ("full" or "lora", then e.g. "loss" or "grad."). */
static const char *golden_key(char *buf, size_t cap, const char *kind, const char *what)
{
    snprintf(buf, cap, "%s.%s", kind, what);
    return buf;
}

/* Loss, gradients, loss after one AdamW step and weights after two, against
 * the golden kind: "full" (every weight; lo NULL) or "lora" (the adapters lo,
 * the base frozen). Returns the worst ratio. */
static double two_steps(TrainCase *tc, const char *name, const char *kind, Lora *lo)
{
    SrError err;
    char key[64];
    if (!lo) assert_int_equal(adamw_create(&tc->m, &err), 0);
    double worst = forward_loss(tc, name, golden_key(key, sizeof key, kind, "loss")), w;
    for (int step = 1; step <= 2; step++) {
        if (lo) lora_zero_grad(lo);
        else model_zero_grad(&tc->m);
        model_backward(&tc->m, tc->targets, tc->ignore);
        if (step == 1) {
            golden_key(key, sizeof key, kind, "grad.");
            w = lo ? lora_tensors(name, tc, lo, key, 1, 0) : compare_views(name, tc, &tc->m.g, key, 0);
            worst = w > worst ? w : worst;
        }
        if (lo) adamw_step_lora(lo, &tc->opt, tc->lr, step);
        else adamw_step(&tc->m, &tc->opt, tc->lr, step);
        if (step == 1) {
            w = forward_loss(tc, name, golden_key(key, sizeof key, kind, "loss_step2"));
            worst = w > worst ? w : worst;
        }
    }
    golden_key(key, sizeof key, kind, "after2.");
    w = lo ? lora_tensors(name, tc, lo, key, 0, 0) : compare_views(name, tc, &tc->m.p, key, 1);
    return w > worst ? w : worst;
}

/* Full training of case name. */
static double run_full(const char *name)
{
    TrainCase tc;
    open_case(&tc, name, 0);
    double worst = two_steps(&tc, name, "full", NULL);
    close_case(&tc);
    return worst;
}

/* LoRA training of case name with the base frozen, its BF16 / F16
 * matrices kept as stored (the backward widens them a block at a time): the
 * base comes out unchanged and never had gradients. */
static double run_lora(const char *name)
{
    TrainCase tc;
    open_case(&tc, name, 1);
    SrError err;
    const ModelConfig *c = &tc.m.cfg;
    LoraConfig cfg = {.rank = (int)meta_number(&tc.io, "lora_rank"),
                      .alpha = (float)meta_number(&tc.io, "lora_alpha"), .dropout = 0.0f};
    assert_int_equal(lora_parse_targets(st_meta(&tc.io, "lora_targets"), &cfg.targets, &err), 0);
    Lora lo;
    assert_int_equal(lora_create_dims(&lo, &cfg, c->n_layers, c->d_model, model_q_dim(c),
                                      model_kv_dim(c), tc.T, 1, &err), 0);
    lora_tensors(name, &tc, &lo, "lora.init.", 0, 1);
    tc.m.lora = &lo;
    assert_int_equal(model_freeze_base(&tc.m, 1, &err), 0);
    assert_null(tc.m.grads);
    float *base = malloc(tc.m.n_params * sizeof(float));
    memcpy(base, tc.m.params, tc.m.n_params * sizeof(float));
    double worst = two_steps(&tc, name, "lora", &lo);
    assert_memory_equal(base, tc.m.params, tc.m.n_params * sizeof(float));
    assert_null(tc.m.grads);
    free(base);
    tc.m.lora = NULL;
    lora_free(&lo);
    close_case(&tc);
    return worst;
}

/* Both comparisons of one case; every ratio must be <= 1. */
static void run_case(const char *name)
{
    double full = run_full(name), lora = run_lora(name);
    printf("  train %-13s worst difference: full %.3f, lora %.3f of the tolerance\n", name, full,
           lora);
    fflush(stdout);
    assert_true(full <= 1.0);
    assert_true(lora <= 1.0);
}

static void test_llama_gqa(void **state) { (void)state; run_case("llama_gqa"); }
static void test_mistral(void **state) { (void)state; run_case("mistral"); }
static void test_qwen2_bias(void **state) { (void)state; run_case("qwen2_bias"); }
static void test_qwen3_qknorm(void **state) { (void)state; run_case("qwen3_qknorm"); }
static void test_llama3_rope(void **state) { (void)state; run_case("llama3_rope"); }
static void test_gemma_mqa(void **state) { (void)state; run_case("gemma_mqa"); }
static void test_gemma2_window(void **state) { (void)state; run_case("gemma2_window"); }
static void test_gemma3_local(void **state) { (void)state; run_case("gemma3_local"); }

/* LoRA fine-tuning (sr, r = 1, with the head) of the Qwen3 folder (q/k norms,
 * head_dim 16, grouped-query attention) on the right-cue task: the training
 * loss falls over four epochs and the base is bit-identical afterwards. */
static void test_finetune_lora_on_folder(void **state)
{
    (void)state;
    Task t;
    task_make(&t, 48);
    SrError err;
    Model m;
    if (hf_model_load("golden/hf/qwen3_qknorm", &m, 16, 24, NULL, 0, &err)) fail_msg("%s", err.msg);
    float *before = malloc(sizeof(float) * m.n_params);
    memcpy(before, m.params, sizeof(float) * m.n_params);
    FinetuneConfig cfg = finetune_defaults();
    cfg.method = METHOD_SR;
    cfg.r = 1;
    cfg.epochs = 4;
    cfg.lr = 3e-3f;
    cfg.batch = 16;
    cfg.adapter = ADAPTER_LORA;
    cfg.lora = (LoraConfig){4, 8.0f, 0.1f, 0xFu};
    FinetuneResult res;
    if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err))
        fail_msg("%s", err.msg);
    printf("  finetune qwen3_qknorm LoRA: train loss %.4f -> %.4f\n", res.epochs[0].train_loss,
           res.epochs[3].train_loss);
    assert_true(res.epochs[3].train_loss < res.epochs[0].train_loss);
    assert_memory_equal(before, m.params, sizeof(float) * m.n_params);
    assert_null(m.grads); /* a LoRA run holds no gradient of the base */
    assert_null(m.lora);
    const ModelConfig *c = &m.cfg;
    assert_int_equal(res.best.n_lora, adapter_lora_floats_dims(&cfg.lora, c->n_layers, c->d_model,
                                                               model_q_dim(c), model_kv_dim(c)));
    finetune_result_free(&res);
    free(before);
    model_free(&m);
    task_free(&t);
}

int main(void)
{
    (void)make_model; /* finetune_task.h's seqrep model: this file loads folders instead */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_gqa),    cmocka_unit_test(test_mistral),
        cmocka_unit_test(test_qwen2_bias),   cmocka_unit_test(test_qwen3_qknorm),
        cmocka_unit_test(test_llama3_rope),  cmocka_unit_test(test_gemma_mqa),
        cmocka_unit_test(test_gemma2_window), cmocka_unit_test(test_gemma3_local),
        cmocka_unit_test(test_finetune_lora_on_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
