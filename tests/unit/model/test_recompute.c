/* test_recompute.c — a model that recomputes each layer in its backward
 * (model_set_recompute, or made for one position and then resized with
 * model_resize, as finetune --recompute does) against one that keeps every
 * layer: the loss, every gradient and the weights after a few optimiser
 * steps must be the same bits, on a house-shaped model (4 layers, width
 * 128, 4 heads, SwiGLU 352, RePo layers) in every mask, window and position
 * plan (running and given positions, NoPE, real-valued, RePo, RePo forced
 * to the index), with the head plan, at an early exit with a loss on the
 * hidden states, and with LoRA adapters under dropout; then Hugging Face
 * folders of tests/golden/hf/ with LoRA adapters, in the same model-level
 * plans and through finetune_run for every method, where the trained head
 * and adapters, every epoch's loss and the scores must match bit for bit. */
#include "test_util.h"
#include "finetune_task.h"
#include "random_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/adamw.h"
#include "engine/lora.h"
#include "engine/model.h"
#include "formats/hf/hf_model_folder.h"

enum { RB = 2, RT = 20, STEPS = 3 };

/* One plan of the model-level cases: a name, the mask, window and position
 * plans (as text, one letter a layer: c causal / b bidirectional; r RoPE, n
 * NoPE, p real, o RePo; windows as digits), the head plan, the exit layer
 * (0: all, with the LM loss; else a loss on the hidden states), LoRA. */
typedef struct {
    const char *name, *mask, *pos, *window;
    int given_positions, force_index, head_scale, exit_layer, lora;
} Plan;

/* The buffers of one batch of a plan for a model of n_layers layers and
 * n_heads heads. */
typedef struct {
    int ids[RB * RT], targets[RB * RT], lengths[RB], positions[RB * RT], window[8];
    MaskKind mask[8];
    PosKind pos[8];
    float *real_pos, *head_scale, *dhidden;
    ModelInput in;
} PlanBatch;

static void batch_make(PlanBatch *b, const Plan *p, const ModelConfig *c)
{
    int L = c->n_layers, H = c->n_heads, V = c->vocab_size;
    unsigned long long st = 91;
    memset(b, 0, sizeof *b);
    for (int i = 0; i < RB * RT; i++) {
        b->ids[i] = (i * 7 + 3) % V;
        b->targets[i] = (i * 5 + 1) % V;
        b->positions[i] = (i % RT) % 7; /* restarting positions, as SR's copies may */
    }
    b->lengths[0] = RT, b->lengths[1] = RT - 5;
    for (int t = RT - 5; t < RT; t++) b->targets[RT + t] = -1;
    for (int l = 0; l < L; l++) {
        b->mask[l] = p->mask && p->mask[l] == 'b' ? MASK_BIDIRECTIONAL : MASK_CAUSAL;
        char k = p->pos ? p->pos[l] : 'r';
        b->pos[l] = k == 'n' ? POS_NONE : k == 'p' ? POS_REAL : k == 'o' ? POS_REPO : POS_ROPE;
        b->window[l] = p->window ? p->window[l] - '0' : 0;
    }
    b->real_pos = malloc(sizeof(float) * (size_t)L * RB * RT * H);
    b->head_scale = malloc(sizeof(float) * (size_t)L * H);
    b->dhidden = malloc(sizeof(float) * (size_t)RB * RT * c->d_model);
    test_fill_random(b->real_pos, (long)L * RB * RT * H, &st, 6.0f);
    for (int i = 0; i < L * H; i++) b->head_scale[i] = (float)(i % 3) * 0.75f;
    test_fill_random(b->dhidden, (long)RB * RT * c->d_model, &st, 0.1f);
    b->in = (ModelInput){.B = RB, .T = RT, .ids = b->ids, .lengths = b->lengths,
                         .positions = p->given_positions ? b->positions : NULL, .mask = b->mask,
                         .pos_kind = p->pos ? b->pos : NULL, .real_pos = b->real_pos,
                         .window = p->window ? b->window : NULL,
                         .head_scale = p->head_scale ? b->head_scale : NULL,
                         .n_run = p->exit_layer, .want_logits = p->exit_layer ? 0 : 1,
                         .repo_force_index = p->force_index};
}

static void batch_free(PlanBatch *b)
{
    free(b->real_pos), free(b->head_scale), free(b->dhidden);
}

/* Attach LoRA adapters with dropout to m (base frozen), one layer's inputs
 * kept when m recomputes. */
static void attach_lora(Model *m, Lora *lo)
{
    SrError err;
    const ModelConfig *c = &m->cfg;
    LoraConfig lc = {.rank = 4, .alpha = 8.0f, .dropout = 0.2f, .targets = 0xFu};
    assert_int_equal(lora_create_dims(lo, &lc, c->n_layers, c->d_model, model_q_dim(c),
                                      model_kv_dim(c), RB * RT, 5, &err), 0);
    unsigned long long st = 17;
    test_fill_random(lo->params, (long)lo->n_params, &st, 0.2f); /* B not zero: gradients flow */
    if (m->recompute) assert_int_equal(lora_set_recompute(lo, 1, &err), 0);
    lo->training = 1;
    m->lora = lo;
    assert_int_equal(model_freeze_base(m, 1, &err), 0);
}

/* STEPS forward, loss, backward and AdamW steps of plan p on a and b (b
 * recomputing), holding every loss, gradient and weight of b to a's bits. */
static void train_both(Model *a, Model *b, const Plan *p)
{
    SrError err;
    PlanBatch pb;
    batch_make(&pb, p, &a->cfg);
    Lora la, lb;
    if (p->lora) attach_lora(a, &la), attach_lora(b, &lb);
    else assert_int_equal(adamw_create(a, &err), 0), assert_int_equal(adamw_create(b, &err), 0);
    AdamWConfig opt = adamw_defaults();
    size_t act = (size_t)RB * RT * a->cfg.d_model;
    for (int step = 1; step <= STEPS; step++) {
        Model *m[2] = {a, b};
        float loss[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            if (p->lora) lora_zero_grad(m[k]->lora);
            else model_zero_grad(m[k]);
            if (model_forward(m[k], &pb.in, &err)) fail_msg("%s: %s", p->name, err.msg);
            if (p->exit_layer) {
                model_backward_hidden(m[k], pb.dhidden);
                continue;
            }
            loss[k] = model_lm_loss(m[k], pb.targets, -1);
            model_backward(m[k], pb.targets, -1);
        }
        assert_memory_equal(&loss[0], &loss[1], sizeof(float));
        assert_memory_equal(model_hidden(a, a->n_run), model_hidden(b, b->n_run), act * sizeof(float));
        if (p->lora) {
            assert_memory_equal(la.grads, lb.grads, la.n_params * sizeof(float));
            adamw_step_lora(&la, &opt, 1e-2f, step), adamw_step_lora(&lb, &opt, 1e-2f, step);
        } else {
            assert_memory_equal(a->grads, b->grads, a->n_params * sizeof(float));
            adamw_step(a, &opt, 1e-2f, step), adamw_step(b, &opt, 1e-2f, step);
        }
        for (int l = 0; p->pos && l < a->cfg.n_layers; l++)
            if (pb.pos[l] == POS_REAL) /* the real positions' own gradient */
                assert_memory_equal(a->ga.dreal_pos + (size_t)l * RB * RT * a->cfg.n_heads,
                                    b->ga.dreal_pos + (size_t)l * RB * RT * a->cfg.n_heads,
                                    sizeof(float) * RB * RT * a->cfg.n_heads);
    }
    assert_memory_equal(a->params, b->params, a->n_params * sizeof(float));
    if (p->lora) {
        assert_memory_equal(la.params, lb.params, la.n_params * sizeof(float));
        a->lora = b->lora = NULL;
        lora_free(&la), lora_free(&lb);
    }
    printf("  %-28s bit for bit over %d steps\n", p->name, STEPS);
    batch_free(&pb);
}

/* The house shape with RePo layers 2 and 3 and a small vocabulary. */
static ModelConfig house_config(void)
{
    return (ModelConfig){.vocab_size = 97, .d_model = 128, .n_layers = 4, .n_heads = 4,
                         .d_ff = 352, .max_seq_len = 64, .rope_theta = 10000.0f,
                         .norm_eps = 1e-5f, .tied = 1, .repo = 1, .repo_from = 2};
}

static const Plan HOUSE_PLANS[] = {
    {.name = "causal, RoPE"},
    {.name = "bidirectional", .mask = "bbbb"},
    {.name = "mixed masks (SR's plan)", .mask = "ccbb", .given_positions = 1},
    {.name = "windows", .mask = "cbcb", .window = "0305"},
    {.name = "NoPE, real, RePo", .pos = "rnpo", .mask = "cbcb"},
    {.name = "RePo forced to the index", .force_index = 1},
    {.name = "head plan", .head_scale = 1, .mask = "bcbc"},
    {.name = "exit layer 3, hidden loss", .exit_layer = 3, .mask = "cccb"},
    {.name = "LoRA with dropout", .lora = 1, .mask = "ccbb"},
    {.name = "LoRA at exit 2, RePo", .lora = 1, .exit_layer = 2, .pos = "rroo"},
};

static void test_house_recompute(void **state)
{
    (void)state;
    ModelConfig c = house_config();
    for (size_t i = 0; i < sizeof HOUSE_PLANS / sizeof HOUSE_PLANS[0]; i++) {
        Model a, b;
        SrError err;
        test_random_model_scaled(&a, &c, RB, RT, 11, 0.1f);
        /* every other plan: b made for one position, then resized (model_resize) */
        test_random_model_scaled(&b, &c, i % 2 ? 1 : RB, i % 2 ? 1 : RT, 11, 0.1f);
        if (i % 2) assert_int_equal(model_resize(&b, RB, RT, 1, &err), 0);
        else assert_int_equal(model_set_recompute(&b, 1, &err), 0);
        assert_int_equal(b.layers_kept, 1);
        assert_int_equal(b.max_batch, RB);
        train_both(&a, &b, &HOUSE_PLANS[i]);
        model_free(&a), model_free(&b);
    }
}

/* Plans for folders of up to 8 layers (each string's first n_layers letters). */
static const Plan HF_PLANS[] = {
    {.name = "LoRA, causal", .lora = 1},
    {.name = "LoRA, bidirectional, given", .lora = 1, .mask = "bbbbbbbb", .given_positions = 1},
    {.name = "LoRA, mixed, NoPE", .lora = 1, .mask = "cbcbcbcb", .pos = "nrnrnrnr"},
    {.name = "LoRA, windows, head plan", .lora = 1, .mask = "bcbcbcbc", .window = "40404040",
     .head_scale = 1},
    {.name = "LoRA, exit 1", .lora = 1, .exit_layer = 1},
};

/* The model-level plans on the folder, then finetune_run with LoRA for
 * every method, with and without recompute: the same bits. */
static void hf_case(const char *name)
{
    char dir[128];
    snprintf(dir, sizeof dir, "golden/hf/%s", name);
    printf(" %s\n", name);
    SrError err;
    for (size_t i = 0; i < sizeof HF_PLANS / sizeof HF_PLANS[0]; i++) {
        Model a, b;
        /* b as finetune --recompute makes it: loaded for one position, then resized */
        if (hf_model_load(dir, &a, RB, RT, NULL, 1, &err) ||
            hf_model_load(dir, &b, 1, 1, NULL, 1, &err) || model_resize(&b, RB, RT, 1, &err))
            fail_msg("%s", err.msg);
        train_both(&a, &b, &HF_PLANS[i]);
        model_free(&a), model_free(&b);
    }
    static const Method methods[] = {METHOD_CAUSAL, METHOD_SR, METHOD_UNMASK_FULL,
                                         METHOD_UNMASK_MIDDLE, METHOD_ENCODER};
    Task t;
    task_make(&t, 24);
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        FinetuneConfig cfg = finetune_defaults();
        cfg.method = methods[k];
        cfg.r = methods[k] == METHOD_SR ? 2 : 0;
        cfg.copy_positions = k % 2 ? REPEAT_POSITIONS_RESTART : REPEAT_POSITIONS_RUN;
        cfg.epochs = 2, cfg.batch = 8, cfg.grad_accum = 2, cfg.lr = 3e-3f;
        cfg.adapter = ADAPTER_LORA;
        cfg.lora = (LoraConfig){4, 8.0f, 0.1f, 0xFu};
        FinetuneResult res[2];
        for (int rc = 0; rc < 2; rc++) {
            Model m;
            if (hf_model_load(dir, &m, rc ? 1 : 8, rc ? 1 : 40, NULL, 1, &err) ||
                (rc && model_resize(&m, 8, 40, 1, &err)) ||
                finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res[rc], &err))
                fail_msg("%s: %s", method_name(methods[k]), err.msg);
            model_free(&m);
        }
        const TrainedWeights *w0 = &res[0].best, *w1 = &res[1].best;
        assert_int_equal(res[0].best_epoch, res[1].best_epoch);
        for (int e = 0; e < cfg.epochs; e++)
            assert_memory_equal(&res[0].epochs[e].train_loss, &res[1].epochs[e].train_loss,
                                sizeof(double));
        assert_memory_equal(w0->W, w1->W, sizeof(float) * (size_t)w0->K * w0->C);
        assert_memory_equal(w0->b, w1->b, sizeof(float) * (size_t)w0->K);
        assert_memory_equal(w0->lora_w, w1->lora_w, sizeof(float) * w0->n_lora);
        printf("  finetune %-14s bit for bit (loss %.4f)\n", method_name(methods[k]),
               res[0].epochs[cfg.epochs - 1].train_loss);
        finetune_result_free(&res[0]), finetune_result_free(&res[1]);
    }
    task_free(&t);
}

static void test_hf_qwen3(void **state) { (void)state; hf_case("qwen3_qknorm"); }
static void test_hf_gemma2(void **state) { (void)state; hf_case("gemma2_window"); }
static void test_hf_llama(void **state) { (void)state; hf_case("llama_gqa"); }

/* A forward-only model cannot recompute; LoRA keeping one layer on a model
 * that keeps every layer is refused at the forward. */
static void test_recompute_refusals(void **state)
{
    (void)state;
    ModelConfig c = house_config();
    Model a;
    SrError err;
    test_random_model_scaled(&a, &c, RB, RT, 3, 0.1f);
    Lora lo;
    LoraConfig lc = {.rank = 2, .alpha = 2.0f, .targets = 0x1u};
    assert_int_equal(lora_create(&lo, &lc, c.n_layers, c.d_model, RB * RT, 1, &err), 0);
    assert_int_equal(lora_set_recompute(&lo, 1, &err), 0);
    a.lora = &lo;
    PlanBatch pb;
    Plan p = {.name = "refused"};
    batch_make(&pb, &p, &c);
    assert_int_equal(model_forward(&a, &pb.in, &err), -1);
    assert_non_null(strstr(err.msg, "one layer"));
    a.lora = NULL;
    Model inf;
    assert_int_equal(model_build(&inf, &c, &(ModelBuild){.max_batch = 1, .max_T = 4,
                                                         .forward_only = 1, .borrow = &a}, &err), 0);
    assert_int_equal(model_set_recompute(&inf, 1, &err), -1);
    /* a resize the model refuses leaves it as it was */
    assert_int_equal(model_resize(&a, RB, c.max_seq_len + 1, 1, &err), -1);
    assert_non_null(strstr(err.msg, "max_seq_len"));
    assert_int_equal(a.max_T, RT);
    assert_int_equal(a.layers_kept, c.n_layers);
    model_free(&inf);
    batch_free(&pb);
    lora_free(&lo);
    model_free(&a);
}

int main(void)
{
    (void)make_model; /* finetune_task.h's own model: these tests make theirs */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_house_recompute), cmocka_unit_test(test_hf_qwen3),
        cmocka_unit_test(test_hf_gemma2),       cmocka_unit_test(test_hf_llama),
        cmocka_unit_test(test_recompute_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
