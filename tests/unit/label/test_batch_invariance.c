/* test_batch_invariance.c — a sentence reads the same alone and in a batch.
 *
 * LLM2Vec's users found bidirectional attention silently off at batch size 1
 * (McGill-NLP/llm2vec issue 74). Here a short sentence (three words, r = 1:
 * k = 2 copies, <bos> per copy) goes through the read-out pipeline
 * (readout_batch_build, readout_model_input, model_forward, readout_gather,
 * label_head_forward) alone (B = 1) and as row 0, 1 and 2 of a right-padded
 * batch of three beside two longer sentences. Its hidden states at every
 * layer on its valid positions, its probe features (the gathered rows, every
 * layer) and the label head's logits must agree within the golden rule
 * (golden_compare.h) and its predictions (argmax) must be identical, for
 *   models:    the house LM's shape (4 layers, width 128, 4 heads, SwiGLU 352,
 *              8,000 pieces; random weights), the same with RePo layers from
 *              N/3 on, the house shape fine-tuned by finetune_run (all
 *              weights, SR r = 1) to tag the sentences' people and places,
 *              with the head its last epoch left, both in memory and saved
 *              as a checkpoint and loaded again, the Hugging Face folder
 *              qwen3_qknorm (q/k norms, GQA), mistral with a sliding window
 *              of 3 written into its config.json (a copy in a temporary
 *              folder), gemma2_window (BF16 kept as stored), and
 *              gemma2_window fine-tuned with LoRA on its frozen base, with
 *              the last epoch's head and adapters: the adapters attached (as
 *              fine-tuning predicts) and merged into the weights (as probe,
 *              plot and explore --adapter read them);
 *   masks:     causal, full, middle (the model's own windows), causal and
 *              full with a window of 3 keys on every layer, causal and middle
 *              with windows on alternating layers;
 *   positions: running and restarting (RoPE everywhere), and for the RePo
 *              model its own plan (RePo layers compute positions) with the
 *              RoPE layers below running or restarting.
 * So that the test cannot pass on plans that are silently ignored, every plan
 * must change the sentence's last hidden states alone: each mask plan against
 * causal without windows (unless it is that), each position plan against
 * running. readout_collect (the probe features of a data set) must also give
 * the same features in batches of one and of three. */
#include "test_util.h"
#include "golden_compare.h"
#include "random_model.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "data/dataset.h"
#include "engine/lora.h"
#include "engine/lora_merge.h"
#include "engine/model.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/readout.h"
#include "text/tokenizer.h"
#include "train/finetune.h"

enum { N_SENTS = 3, MAX_L = 8, MAX_T = 16, MAX_WORDS = 21, K_TAGS = 5, WINDOW = 3 };

/* ---- the sentences ------------------------------------------------------- */

static const char *VOCAB[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "ann",
                              "saw", "the", "old", "mill", "by", "river", "today", "with", "bob"};

/* Sentence 0 is the short one (3 words, 8 tokens laid out); 1 and 2 are
 * longer (7 and 6 words: 16 and 14 tokens). */
static const char *SENTS[N_SENTS][8] = {
    {"ann", "saw", "bob"},
    {"bob", "saw", "the", "old", "mill", "by", "river"},
    {"the", "river", "saw", "ann", "with", "bob", "today"},
};
static const int SENT_WORDS[N_SENTS] = {3, 7, 6};

/* A word's tag: names are people, the mill and the river places. */
static const char *tag_of(const char *word)
{
    if (!strcmp(word, "ann") || !strcmp(word, "bob")) return "B-PER";
    if (!strcmp(word, "mill") || !strcmp(word, "river")) return "B-LOC";
    return "O";
}

typedef struct {
    Tokenizer tok;
    Dataset data;
    PiecedData pd;
} Sentences;

/* The tokenizer of VOCAB and the three sentences cut into its pieces. */
static void sentences_make(Sentences *s)
{
    SrError err;
    memset(s, 0, sizeof *s);
    int n_vocab = (int)(sizeof VOCAB / sizeof VOCAB[0]);
    assert_int_equal(tokenizer_from_words(&s->tok, VOCAB, n_vocab, 1, &err), 0);
    s->data.source = strdup("batch.conll");
    for (int i = 0; i < N_SENTS; i++) {
        const char *tags[8];
        for (int w = 0; w < SENT_WORDS[i]; w++) tags[w] = tag_of(SENTS[i][w]);
        assert_int_equal(dataset_add(&s->data, SENTS[i], tags, SENT_WORDS[i], 1 + 9 * i, &err), 0);
    }
    assert_int_equal(readout_prepare(&s->pd, &s->data, &s->tok, &err), 0);
}

/* Release what sentences_make made. */
static void sentences_free(Sentences *s)
{
    pieced_data_free(&s->pd);
    dataset_free(&s->data);
    tokenizer_free(&s->tok);
}

/* ---- the plans ----------------------------------------------------------- */

typedef enum { WIN_OWN = 0, WIN_ALL = 1, WIN_ALT = 2, WIN_NONE = 3 } WindowPlan;

typedef struct {
    const char *name;
    const char *mask;   /* mask_plan_parse name */
    WindowPlan window;  /* the model's own windows, WINDOW keys on every layer or on even
                           ones, or none at all */
} MaskPlan;

static const MaskPlan MASK_PLANS[] = {
    {.name = "causal", .mask = "causal", .window = WIN_OWN},
    {.name = "full", .mask = "full", .window = WIN_OWN},
    {.name = "middle", .mask = "middle", .window = WIN_OWN},
    {.name = "causal+window", .mask = "causal", .window = WIN_ALL},
    {.name = "full+window", .mask = "full", .window = WIN_ALL},
    {.name = "causal+alt-window", .mask = "causal", .window = WIN_ALT},
    {.name = "middle+alt-window", .mask = "middle", .window = WIN_ALT},
};
enum { N_MASK_PLANS = sizeof MASK_PLANS / sizeof MASK_PLANS[0] };

typedef struct {
    const char *name;
    RepeatPositions copies; /* integer positions running on or restarting per copy */
    int repo;               /* 1: the model's own plan (RePo layers); 0: RoPE everywhere */
} PosPlan;

static const PosPlan POS_PLANS[] = {
    {.name = "running", .copies = REPEAT_POSITIONS_RUN, .repo = 0},
    {.name = "restarting", .copies = REPEAT_POSITIONS_RESTART, .repo = 0},
    {.name = "repo", .copies = REPEAT_POSITIONS_RUN, .repo = 1},
    {.name = "repo+restarting", .copies = REPEAT_POSITIONS_RESTART, .repo = 1},
};

/* ---- one model under one pair of plans ------------------------------------- */

/* The model, its head and the plans of the forward calls in force. */
typedef struct {
    const char *name;
    Model *m;
    const Sentences *s;
    LabelHead head;
    ReadoutBatch b;
    ReadoutLayout lay;
    MaskKind mask[MAX_L];
    int window[MAX_L];
    PosKind pos[MAX_L];
    const int *window_plan;   /* window or NULL (the model's own) */
    const PosKind *pos_plan;  /* pos or NULL (the model's own) */
    const char *plan_name;    /* "mask plan / position plan" for messages */
    float gathered[MAX_WORDS * 128];
    double worst;             /* worst ratio to the tolerance seen */
} Bench;

/* What the pipeline gives sentence 0: hidden states (L+1, len, C) on its
 * valid positions, features (L+1, n_words, C), logits (n_words, K) and the
 * predicted tags (n_words). */
typedef struct {
    int len, n_words;
    float hidden[(MAX_L + 1) * MAX_T * 128];
    float feat[(MAX_L + 1) * 8 * 128];
    float logits[8 * K_TAGS];
    int pred[8];
} Reading;

/* Set the bench's plans to mask plan mp and position plan pp for its model. */
static void bench_plans(Bench *bn, const MaskPlan *mp, const PosPlan *pp)
{
    int L = bn->m->cfg.n_layers;
    assert_int_equal(mask_plan_parse(mp->mask, bn->mask, L), 0);
    for (int l = 0; l < L; l++) {
        bn->window[l] = mp->window == WIN_ALL || (mp->window == WIN_ALT && l % 2 == 0) ? WINDOW : 0;
        bn->pos[l] = POS_ROPE;
    }
    bn->window_plan = mp->window == WIN_OWN ? NULL : bn->window;
    bn->pos_plan = pp->repo ? NULL : bn->pos;
    bn->lay = readout_layout_paper(1);
    bn->lay.copy_positions = pp->copies;
}

/* Run the batch of sentences order[0..n) through the pipeline and read
 * sentence order[row] into out. */
static void bench_read(Bench *bn, const int *order, int n, int row, Reading *out)
{
    SrError err;
    Model *m = bn->m;
    const int C = m->cfg.d_model, L = m->cfg.n_layers, K = bn->head.K;
    if (readout_batch_build(&bn->b, &bn->s->pd, order, n, bn->lay, m->max_T, &err))
        fail_msg("%s", err.msg);
    ModelInput in = readout_model_input(&bn->b, bn->mask, NULL, 0);
    in.window = bn->window_plan;
    in.pos_kind = bn->pos_plan;
    if (model_forward(m, &in, &err)) fail_msg("%s", err.msg);
    int T = bn->b.T, w0 = bn->b.word_start[row];
    out->len = bn->b.lengths[row];
    out->n_words = bn->s->pd.sents[order[row]].n_words;
    size_t hn = (size_t)out->len * C, fn = (size_t)out->n_words * C;
    for (int l = 0; l <= L; l++) {
        const float *hidden = model_hidden(m, l);
        memcpy(out->hidden + l * hn, hidden + (size_t)row * T * C, sizeof(float) * hn);
        readout_gather(&bn->b, hidden, C, READ_LAST_COPY, bn->gathered);
        memcpy(out->feat + l * fn, bn->gathered + (size_t)w0 * C, sizeof(float) * fn);
    }
    label_head_forward(&bn->head, m, &bn->b, model_hidden(m, L), 0.0f, NULL);
    memcpy(out->logits, bn->head.logits + (size_t)w0 * K, sizeof(float) * out->n_words * K);
    for (int w = 0; w < out->n_words; w++) {
        const float *row_l = out->logits + w * K;
        out->pred[w] = 0;
        for (int k = 1; k < K; k++)
            if (row_l[k] > row_l[out->pred[w]]) out->pred[w] = k;
    }
}

/* Fail, naming the case (row: sentence 0's row in the batch; -1: all
 * sentences, readout_collect), when got (n) is off want by more than the
 * golden tolerance; remember the worst ratio. */
static void bench_agree(Bench *bn, const char *what, int row, int layer, const float *got,
                        const float *want, size_t n)
{
    size_t wi;
    double ratio = golden_ratio(got, want, n, &wi, NULL);
    if (ratio > bn->worst) bn->worst = ratio;
    char where[48] = "batches of 3 against 1";
    if (row >= 0) snprintf(where, sizeof where, "batch row %d against alone", row);
    if (ratio > 1.0)
        fail_msg("%s, %s, %s: %s of layer %d differ at element %zu: %.9g against %.9g (%.3g "
                 "of the tolerance)", bn->name, bn->plan_name, where, what, layer, wi,
                 (double)got[wi], (double)want[wi], ratio);
}

/* Sentence 0 in row `row` of the batch reads as `alone` does. */
static void bench_batched(Bench *bn, const Reading *alone, int row, Reading *got)
{
    int order[N_SENTS], others = 1;
    for (int i = 0; i < N_SENTS; i++) order[i] = i == row ? 0 : others++;
    bench_read(bn, order, N_SENTS, row, got);
    assert_true(bn->b.T > alone->len); /* the sentence is padded */
    assert_int_equal(got->len, alone->len);
    assert_int_equal(got->n_words, alone->n_words);
    const int C = bn->m->cfg.d_model, L = bn->m->cfg.n_layers;
    size_t hn = (size_t)alone->len * C, fn = (size_t)alone->n_words * C;
    for (int l = 0; l <= L; l++) {
        bench_agree(bn, "hidden states", row, l, got->hidden + l * hn, alone->hidden + l * hn, hn);
        bench_agree(bn, "features", row, l, got->feat + l * fn, alone->feat + l * fn, fn);
    }
    bench_agree(bn, "head logits", row, L, got->logits, alone->logits,
                (size_t)alone->n_words * bn->head.K);
    assert_memory_equal(got->pred, alone->pred, sizeof(int) * alone->n_words);
}

/* Sentence 0 alone into alone, then checked against it in each row of a batch. */
static void bench_case(Bench *bn, Reading *alone, Reading *scratch)
{
    int only = 0;
    bench_read(bn, &only, 1, 0, alone);
    assert_int_equal(bn->b.T, alone->len);
    if (bn->lay.copy_positions == REPEAT_POSITIONS_RESTART)
        assert_int_equal(bn->b.positions[alone->len / 2], 0); /* copy 2 starts at 0 again */
    for (int row = 0; row < N_SENTS; row++) bench_batched(bn, alone, row, scratch);
}

/* The last layer's hidden states of two readings differ beyond the tolerance. */
static int last_layer_differs(const Model *m, const Reading *a, const Reading *b)
{
    size_t n = (size_t)a->len * m->cfg.d_model, off = (size_t)m->cfg.n_layers * n;
    return golden_ratio(a->hidden + off, b->hidden + off, n, NULL, NULL) > 1.0;
}

/* 1 if mask plan mp is, on this model, causal attention without any window. */
static int plan_is_plain_causal(const Bench *bn, const MaskPlan *mp)
{
    const ModelConfig *c = &bn->m->cfg;
    if (strcmp(mp->mask, "causal") != 0) return 0;
    if (mp->window != WIN_OWN) return 0;
    return c->family.sliding_window == 0 || c->family.sliding_layers == 0;
}

/* ---- the matrix ------------------------------------------------------------ */

/* The plan every other mask plan must differ from: causal, no window at all. */
static const MaskPlan PLAIN_CAUSAL = {.name = "causal, no window", .mask = "causal",
                                      .window = WIN_NONE};

/* Under position plan pp: every mask plan's case, each plan's effect against
 * plain causal attention, and (pp not the first) against running[i], the
 * readings of the first position plan, which pp == POS_PLANS fills. r holds
 * three scratch readings. */
static void bench_positions(Bench *bn, const PosPlan *pp, Reading *running, Reading *r)
{
    char plan_name[96];
    int only = 0;
    bench_plans(bn, &PLAIN_CAUSAL, pp);
    bench_read(bn, &only, 1, 0, &r[0]);
    for (int i = 0; i < N_MASK_PLANS; i++) {
        const MaskPlan *mp = &MASK_PLANS[i];
        snprintf(plan_name, sizeof plan_name, "mask %s, positions %s", mp->name, pp->name);
        bn->plan_name = plan_name;
        bench_plans(bn, mp, pp);
        bench_case(bn, &r[1], &r[2]);
        if (!plan_is_plain_causal(bn, mp) && !last_layer_differs(bn->m, &r[1], &r[0]))
            fail_msg("%s, %s: the mask plan changes nothing", bn->name, plan_name);
        if (pp == POS_PLANS)
            running[i] = r[1];
        else if (!last_layer_differs(bn->m, &r[1], &running[i]))
            fail_msg("%s, %s: the same as positions running", bn->name, plan_name);
    }
}

/* readout_collect, the probe features of every word and layer, gives the
 * same in batches of one and of three under mask plans causal, full and
 * middle (the model's own windows and positions), copies running or
 * restarting. */
static void bench_collect(Bench *bn)
{
    static const char *masks[] = {"causal", "full", "middle"};
    const int C = bn->m->cfg.d_model, L = bn->m->cfg.n_layers;
    size_t n = (size_t)bn->s->pd.n_words * C;
    float *one = malloc(sizeof(float) * (L + 1) * n), *three = malloc(sizeof(float) * (L + 1) * n);
    assert_non_null(one);
    assert_non_null(three);
    SrError err;
    for (int i = 0; i < 3; i++)
        for (int restart = 0; restart < 2; restart++) {
            char plan_name[64];
            snprintf(plan_name, sizeof plan_name, "readout_collect, mask %s, positions %s",
                     masks[i], restart ? "restarting" : "running");
            bn->plan_name = plan_name;
            assert_int_equal(mask_plan_parse(masks[i], bn->mask, L), 0);
            ReadoutLayout lay = readout_layout_paper(1);
            lay.copy_positions = restart ? REPEAT_POSITIONS_RESTART : REPEAT_POSITIONS_RUN;
            if (readout_collect(bn->m, &bn->s->pd, lay, bn->mask, NULL, 1, one, NULL, &err) ||
                readout_collect(bn->m, &bn->s->pd, lay, bn->mask, NULL, N_SENTS, three, NULL, &err))
                fail_msg("%s", err.msg);
            for (int l = 0; l <= L; l++)
                bench_agree(bn, "collected features", -1, l, three + l * n, one + l * n, n);
        }
    free(one);
    free(three);
}

/* A label head (and adapters) as fine-tuning left it. */
typedef struct {
    int K;
    float W[K_TAGS * 128], b[K_TAGS];
    LoraConfig lora;  /* the adapters' settings (rank 0: none) */
    size_t n_lora;    /* floats in lora_w */
    float *lora_w;    /* (n_lora) adapter weights, Lora.params layout; NULL: none */
    double dev_f1;    /* the dev F1 of the epoch it is from */
    int gold[8];      /* sentence 0's tags as the head's ids */
} TrainedHead;

/* Under the plans fine-tuning used (causal with the model's own windows,
 * running positions) the tuned model tags sentence 0 as taught, and adapters
 * attached to it (m->lora) change its last hidden states: the matrix runs the
 * weights, head and adapters that learnt the task. */
static void bench_tags_taught(Bench *bn, const TrainedHead *trained)
{
    Reading *r = calloc(2, sizeof *r);
    assert_non_null(r);
    bench_plans(bn, &MASK_PLANS[0], &POS_PLANS[0]);
    int only = 0;
    bench_read(bn, &only, 1, 0, &r[0]);
    assert_memory_equal(r[0].pred, trained->gold, sizeof(int) * r[0].n_words);
    struct Lora *adapters = bn->m->lora;
    if (adapters) {
        bn->m->lora = NULL;
        bench_read(bn, &only, 1, 0, &r[1]);
        bn->m->lora = adapters;
        if (!last_layer_differs(bn->m, &r[0], &r[1]))
            fail_msg("%s: the adapters change nothing", bn->name);
    }
    free(r);
}

/* The whole matrix on model m (named name): every mask plan under the first
 * n_pos position plans (none: 0), then readout_collect; prints the worst
 * ratio. The label head is `trained`, or random when it is NULL. */
static void run_matrix(const char *name, Model *m, int n_pos, const TrainedHead *trained)
{
    const int C = m->cfg.d_model;
    assert_true(C <= 128 && m->cfg.n_layers <= MAX_L && m->max_T >= MAX_T);
    Sentences s;
    sentences_make(&s);
    Bench *bn = calloc(1, sizeof *bn);
    Reading *running = calloc(N_MASK_PLANS, sizeof *running), *r = calloc(3, sizeof *r);
    assert_true(bn && running && r);
    *bn = (Bench){.name = name, .m = m, .s = &s};
    Rng rng;
    rng_seed(&rng, 7);
    int K = trained ? trained->K : K_TAGS;
    assert_int_equal(label_head_create(&bn->head, C, K, MAX_WORDS, N_SENTS, MAX_T, &rng), 0);
    if (trained) {
        memcpy(bn->head.W, trained->W, sizeof(float) * (size_t)K * C);
        memcpy(bn->head.b, trained->b, sizeof(float) * (size_t)K);
    }
    if (trained) bench_tags_taught(bn, trained);
    for (int p = 0; p < n_pos; p++) bench_positions(bn, &POS_PLANS[p], running, r);
    bench_collect(bn);
    char cases[64] = "";
    if (n_pos)
        snprintf(cases, sizeof cases, "%d mask x %d position plans x %d rows, ", N_MASK_PLANS,
                 n_pos, N_SENTS);
    printf("  %-14s %sreadout_collect: worst %.3f of the tolerance\n", name, cases, bn->worst);
    label_head_free(&bn->head);
    readout_batch_free(&bn->b);
    free(r);
    free(running);
    free(bn);
    sentences_free(&s);
}

/* ---- the models ------------------------------------------------------------ */

/* The house shape's random weights: uniform in [-0.15, 0.15), a standard
 * deviation near 1/sqrt(128). Alone and batched never agree bit for bit
 * (OpenBLAS rounds a product of 8 rows and one of 16 or 48 differently, in
 * the attention scores and the projections alike); at random_model.h's 0.5
 * the attention of width 128 is nearly one-hot and four layers blow that
 * rounding up to the tolerance (RePo, positions repo+restarting: a head logit
 * at 1.19 of it) where 0.15 stays below 0.04. */
static const float HOUSE_SCALE = 0.15f;

/* The house LM's shape (docs/house.md), with RePo layers from N/3 on when repo. */
static ModelConfig house_config(int repo)
{
    return (ModelConfig){.vocab_size = 8000, .d_model = 128, .n_layers = 4, .n_heads = 4,
                         .d_ff = 352, .max_seq_len = 64, .rope_theta = 10000.0f,
                         .norm_eps = 1e-5f, .tied = 1, .repo = repo, .repo_from = repo ? 4 / 3 : 0};
}

/* The house shape: running and restarting positions. */
static void test_house(void **state)
{
    (void)state;
    ModelConfig c = house_config(0);
    Model m;
    test_random_model_scaled(&m, &c, N_SENTS, MAX_T, 11, HOUSE_SCALE);
    run_matrix("house", &m, 2, NULL);
    model_free(&m);
}

/* The house shape again on two threads, which split every product another
 * way: readout_collect only (the rest is the same work, and slow on a busy
 * machine). */
static void test_house_two_threads(void **state)
{
    (void)state;
    threads_set(2);
    ModelConfig c = house_config(0);
    Model m;
    test_random_model_scaled(&m, &c, N_SENTS, MAX_T, 11, HOUSE_SCALE);
    run_matrix("house, 2 thr.", &m, 0, NULL);
    model_free(&m);
    threads_set(1);
}

/* The house shape with RePo layers: also its own plan, RePo layers computing positions. */
static void test_house_repo(void **state)
{
    (void)state;
    ModelConfig c = house_config(1);
    Model m;
    test_random_model_scaled(&m, &c, N_SENTS, MAX_T, 12, HOUSE_SCALE);
    assert_int_equal(model_layer_pos_kind(&m, &(ModelInput){0}, 1), POS_REPO);
    run_matrix("house+repo", &m, 4, NULL);
    model_free(&m);
}

/* Fine-tuning's epoch hook: keep the head (and adapters) of the latest epoch. */
static int keep_head(void *ctx, int epoch, const Model *m, const TrainedWeights *w,
                     const FinetuneEpoch *e, SrError *err)
{
    (void)epoch, (void)m, (void)err;
    TrainedHead *h = ctx;
    assert_true(w->K <= K_TAGS && w->C <= 128);
    h->K = w->K;
    memcpy(h->W, w->W, sizeof(float) * (size_t)w->K * w->C);
    memcpy(h->b, w->b, sizeof(float) * (size_t)w->K);
    if (w->n_lora) {
        if (!h->lora_w) h->lora_w = malloc(sizeof(float) * w->n_lora);
        assert_non_null(h->lora_w);
        memcpy(h->lora_w, w->lora_w, sizeof(float) * w->n_lora);
        h->lora = w->lora;
        h->n_lora = w->n_lora;
    }
    h->dev_f1 = e->dev.f1;
    return 0;
}

/* m saved with checkpoint_save (a vocabulary of VOCAB's words, then p16,
 * p17, ...) into a temporary folder and loaded back into *loaded, whose
 * weights must be m's. */
static void saved_and_loaded(const Model *m, Model *loaded)
{
    const int V = m->cfg.vocab_size, n_named = (int)(sizeof VOCAB / sizeof VOCAB[0]);
    char **words = calloc((size_t)V, sizeof *words);
    assert_non_null(words);
    for (int i = 0; i < V; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        words[i] = strdup(i < n_named ? VOCAB[i] : name);
        assert_non_null(words[i]);
    }
    char dir[] = "/tmp/seqrep_batchinv_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/house.ckpt", dir);
    SrError err;
    if (checkpoint_save(path, m, (const char *const *)words, V, NULL, &err))
        fail_msg("%s", err.msg);
    if (checkpoint_load(path, loaded, m->max_batch, m->max_T, NULL, &err)) fail_msg("%s", err.msg);
    test_remove_dir(dir);
    assert_int_equal(loaded->n_params, m->n_params);
    assert_memory_equal(loaded->params, m->params, sizeof(float) * m->n_params);
    for (int i = 0; i < V; i++) free(words[i]);
    free(words);
}

/* The three sentences' tags taught to m as `finetune` does (SR with r = 1,
 * 30 epochs, lr 1e-2, the three as one batch): every weight, or LoRA
 * adapters on its frozen base when lora is not NULL. *head receives the head
 * (and adapters) of the last epoch, which must have learnt the tags (dev
 * F1 >= 99 on the same sentences). */
static void fine_tune(Model *m, const char *name, const LoraConfig *lora, TrainedHead *head)
{
    Sentences s;
    sentences_make(&s);
    LabelSet ls;
    SrError err;
    int ids[MAX_WORDS];
    long unknown = 0;
    assert_int_equal(labels_build(&ls, &s.data, &err), 0);
    assert_int_equal(labels_encode(&ls, &s.data, ids, &unknown, &err), 0);
    LabelledSplit split = {.data = &s.data, .pieces = &s.pd, .labels = ids};
    FinetuneConfig cfg = finetune_defaults();
    cfg.method = METHOD_SR;
    cfg.r = 1;
    cfg.epochs = 30;
    cfg.lr = 1e-2f;
    cfg.batch = N_SENTS;
    if (lora) {
        cfg.adapter = ADAPTER_LORA;
        cfg.lora = *lora;
    }
    *head = (TrainedHead){0};
    memcpy(head->gold, ids, sizeof(int) * SENT_WORDS[0]);
    cfg.on_epoch = keep_head;
    cfg.on_epoch_ctx = head;
    FinetuneResult res;
    if (finetune_run(m, &ls, &split, &split, &split, &cfg, &res, &err)) fail_msg("%s", err.msg);
    printf("  %-14s fine-tuned: train loss %.3f -> %.3f, dev F1 %.1f at the last epoch\n", name,
           res.epochs[0].train_loss, res.epochs[cfg.epochs - 1].train_loss, head->dev_f1);
    assert_true(head->K == ls.n && head->dev_f1 >= 99.0); /* it has learnt the tags */
    assert_true(lora ? head->n_lora > 0 : head->lora_w == NULL);
    finetune_result_free(&res);
    labels_free(&ls);
    sentences_free(&s);
}

/* The house shape fine-tuned (all weights), then the matrix on the weights
 * and head its last epoch left, in memory and as a checkpoint loaded again. */
static void test_house_fine_tuned(void **state)
{
    (void)state;
    ModelConfig c = house_config(0);
    Model m, loaded;
    test_random_model_scaled(&m, &c, N_SENTS, MAX_T, 13, HOUSE_SCALE);
    TrainedHead head;
    fine_tune(&m, "house", NULL, &head);
    run_matrix("house, tuned", &m, 2, &head);
    saved_and_loaded(&m, &loaded);
    run_matrix("its checkpoint", &loaded, 2, &head);
    model_free(&loaded);
    model_free(&m);
}

/* A Hugging Face folder loaded as every command loads it. */
static void run_folder(const char *dir, const char *name)
{
    Model m;
    SrError err;
    if (checkpoint_load(dir, &m, N_SENTS, MAX_T, NULL, &err)) fail_msg("%s", err.msg);
    run_matrix(name, &m, 2, NULL);
    model_free(&m);
}

/* Qwen3: q/k norms, grouped-query attention, head_dim 16. */
static void test_qwen3(void **state)
{
    (void)state;
    run_folder("golden/hf/qwen3_qknorm", "qwen3_qknorm");
}

/* Copy file from to file to (both small). */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_true(in && out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* golden/hf/mistral copied into dir (a fresh temporary folder), its
 * config.json's sliding window 4096 made WINDOW. */
static void windowed_mistral(char *dir)
{
    assert_non_null(mkdtemp(dir));
    char path[128], config[4096], edited[4200];
    FILE *f = fopen("golden/hf/mistral/config.json", "rb");
    assert_non_null(f);
    size_t n = fread(config, 1, sizeof config - 1, f);
    fclose(f);
    config[n] = '\0';
    const char *key = "\"sliding_window\": 4096", *at = strstr(config, key);
    assert_non_null(at);
    snprintf(edited, sizeof edited, "%.*s\"sliding_window\": %d%s", (int)(at - config), config,
             WINDOW, at + strlen(key));
    snprintf(path, sizeof path, "%s/config.json", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_true(fputs(edited, f) >= 0);
    assert_int_equal(fclose(f), 0);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    copy_file("golden/hf/mistral/model.safetensors", path);
}

/* Mistral with its window cutting the repeated sentence (WINDOW keys on
 * every layer, from its config.json). */
static void test_mistral_window(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_batchinv_XXXXXX";
    windowed_mistral(dir);
    Model m;
    SrError err;
    if (checkpoint_load(dir, &m, N_SENTS, MAX_T, NULL, &err)) fail_msg("%s", err.msg);
    test_remove_dir(dir);
    assert_int_equal(m.cfg.family.sliding_window, WINDOW);
    assert_int_equal(m.cfg.family.sliding_layers, (1ull << m.cfg.n_layers) - 1);
    run_matrix("mistral+window", &m, 2, NULL);
    model_free(&m);
}

/* Gemma 2 with its sliding layers, when tests/golden/hf/gemma2_window exists. */
static void test_gemma2_window(void **state)
{
    (void)state;
    if (access("golden/hf/gemma2_window/config.json", R_OK) != 0) {
        printf("  gemma2_window  not in tests/golden/hf: skipped\n");
        skip();
    }
    run_folder("golden/hf/gemma2_window", "gemma2_window");
}

/* gemma2_window (BF16 kept as stored) fine-tuned with LoRA as `finetune
 * --adapter lora` does (base frozen), then the matrix with the last epoch's
 * head and adapters: attached to the stored base (dropout off, the path of
 * fine-tuning's own predictions) and merged into a float32 copy of the
 * weights (the path of probe, plot and explore --adapter). */
static void test_gemma2_lora_tuned(void **state)
{
    (void)state;
    const char *dir = "golden/hf/gemma2_window";
    Model m, merged;
    SrError err;
    if (checkpoint_load(dir, &m, N_SENTS, MAX_T, NULL, &err)) fail_msg("%s", err.msg);
    TrainedHead head;
    fine_tune(&m, "gemma2 + LoRA", &(LoraConfig){.rank = 4, .alpha = 8.0f, .dropout = 0.1f,
                                                 .targets = 0xFu}, &head);
    Lora lo;
    if (lora_create_dims(&lo, &head.lora, m.cfg.n_layers, m.cfg.d_model, model_q_dim(&m.cfg),
                         model_kv_dim(&m.cfg), m.max_batch * m.max_T, 1, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(lo.n_params, head.n_lora);
    memcpy(lo.params, head.lora_w, sizeof(float) * lo.n_params);
    lo.training = 0;
    m.lora = &lo;
    run_matrix("gemma2 + LoRA", &m, 2, &head);
    m.lora = NULL;
    if (checkpoint_load_trainable(dir, &merged, N_SENTS, MAX_T, NULL, &err) ||
        lora_merge(&merged, &lo, &err))
        fail_msg("%s", err.msg);
    run_matrix("LoRA merged", &merged, 2, &head);
    model_free(&merged);
    lora_free(&lo);
    free(head.lora_w);
    model_free(&m);
}

int main(void)
{
    threads_set(1); /* tiny shapes: one thread is fastest and immune to a busy machine */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_house),          cmocka_unit_test(test_house_two_threads),
        cmocka_unit_test(test_house_repo),     cmocka_unit_test(test_house_fine_tuned),
        cmocka_unit_test(test_qwen3),          cmocka_unit_test(test_mistral_window),
        cmocka_unit_test(test_gemma2_window),  cmocka_unit_test(test_gemma2_lora_tuned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
