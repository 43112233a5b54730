/* bench_finetune.c — how fast the paper's grid can run: fine-tuning tokens/s
 * at r = 0, 1, 4, 8 and probe feature extraction (see bench.h).
 *
 * The model has the house LM's shape (4 layers, width 128, 4 heads, SwiGLU
 * 352, 8,000 ids; random weights: speed does not depend on what they know).
 * The data are NLU++-length sentences: 256 training sentences of 5-17 words
 * (uniform, mean 11; NLU++ has 8.6 white-space words per sentence, about 11
 * tokens with punctuation and byte-pair pieces), one word-level piece each,
 * one tagged word per sentence. Fine-tuning is one epoch of the paper recipe
 * (train/recipe.h: LoRA rank 16 on q, k, v, o, batch 8, gradient
 * accumulation 4, paper layout with <bos> per copy) — the same finetune_run
 * the command runs — and its tokens/s is the training tokens fed (padding
 * excluded, every copy counted) over the training seconds (dev and test
 * labelling excluded). Each r runs in its own process, so its peak RSS is
 * its own; the floor is engine/memory_floor.h's for the frozen base with the
 * adapters and the head trained. Probe extraction is readout_collect over the
 * 256 sentences at every layer for r = 0, 1, 2, 4, 8 one r at a time, against
 * readout_collect_prefixes, which reads all five from one pass of r = 8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "bench.h"
#include "engine/memory_floor.h"
#include "engine/threads.h"
#include "label/labels.h"
#include "label/readout.h"
#include "label/readout_prefix.h"
#include "labelled_task.h"
#include "text/tokenizer.h"
#include "train/finetune.h"
#include "train/recipe.h"

enum { N_WORD_TYPES = 1000, N_TRAIN = 256, N_EVAL = 16, MIN_WORDS = 5, MAX_WORDS = 17 };

/* The words of the synthetic vocabulary: the six specials, then w0 .. w999. */
static char **make_vocabulary(int *n)
{
    static const char *specials[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>"};
    *n = TOK_N_SPECIAL + N_WORD_TYPES;
    char **words = malloc(sizeof(char *) * (size_t)*n);
    for (int i = 0; i < TOK_N_SPECIAL; i++) words[i] = strdup(specials[i]);
    for (int i = 0; i < N_WORD_TYPES; i++) {
        char w[16];
        snprintf(w, sizeof w, "w%d", i);
        words[TOK_N_SPECIAL + i] = strdup(w);
    }
    return words;
}

/* n sentences of MIN_WORDS..MAX_WORDS random words, one of them B-X. */
static int make_sentences(Dataset *d, int n, unsigned long long seed, const char *source, SrError *err)
{
    Rng rng;
    rng_seed(&rng, seed);
    memset(d, 0, sizeof *d);
    d->source = strdup(source);
    char text[MAX_WORDS][16];
    const char *words[MAX_WORDS], *tags[MAX_WORDS];
    for (int s = 0; s < n; s++) {
        int len = MIN_WORDS + (int)rng_below(&rng, MAX_WORDS - MIN_WORDS + 1);
        int tagged = (int)rng_below(&rng, (unsigned)len);
        for (int i = 0; i < len; i++) {
            snprintf(text[i], sizeof text[i], "w%u", (unsigned)rng_below(&rng, N_WORD_TYPES));
            words[i] = text[i];
            tags[i] = i == tagged ? "B-X" : "O";
        }
        if (dataset_add(d, words, tags, len, 1 + s, err)) return -1;
    }
    return 0;
}

/* The house LM's shape (see bench.h). */
ModelConfig bench_house_shape(void)
{
    return (ModelConfig){.vocab_size = 8000, .d_model = 128, .n_layers = 4, .n_heads = 4,
                         .d_ff = 352, .max_seq_len = 512, .rope_theta = 10000.0f,
                         .norm_eps = 1e-5f, .tied = 1};
}

typedef LabelledTask SyntheticTask;

/* Build the task; 0, or -1 with err. */
static int task_make(SyntheticTask *t, SrError *err)
{
    memset(t, 0, sizeof *t);
    int n_vocab;
    char **vocab = make_vocabulary(&n_vocab);
    int rc = tokenizer_from_words(&t->tok, (const char *const *)vocab, n_vocab, 0, err);
    for (int i = 0; i < n_vocab; i++) free(vocab[i]);
    free(vocab);
    static const char *names[3] = {"train (synthetic)", "dev (synthetic)", "test (synthetic)"};
    const int sizes[3] = {N_TRAIN, N_EVAL, N_EVAL};
    for (int k = 0; rc == 0 && k < 3; k++) rc = make_sentences(&t->data[k], sizes[k], 11 + k, names[k], err);
    if (rc == 0) rc = labels_build(&t->ls, &t->data[0], err);
    for (int k = 0; rc == 0 && k < 3; k++) {
        rc = readout_prepare(&t->pieces[k], &t->data[k], &t->tok, err);
        t->labels[k] = malloc(sizeof(int) * (size_t)t->pieces[k].n_words);
        if (rc == 0) rc = labels_encode(&t->ls, &t->data[k], t->labels[k], NULL, err);
        t->split[k] = (LabelledSplit){&t->data[k], &t->pieces[k], t->labels[k]};
    }
    return rc;
}

typedef struct {
    int r, threads;
} FinetuneJob;

typedef struct {
    double tok_s, tokens_per_sentence, n_trained, max_T, batch;
} FinetuneSpeed;

/* In the child: one epoch of the paper recipe at repetition r. */
static int time_finetune(const void *arg, void *result)
{
    const FinetuneJob *job = arg;
    FinetuneSpeed *out = result;
    threads_set(job->threads);
    SrError err;
    SyntheticTask t;
    FinetuneConfig cfg;
    recipe_apply("paper", &cfg);
    cfg.method = job->r == 0 ? METHOD_CAUSAL : METHOD_SR;
    cfg.r = job->r;
    cfg.epochs = 1;
    ModelConfig mc = bench_house_shape();
    Model m;
    FinetuneResult res;
    ReadoutLayout lay = readout_layout_paper(job->r);
    if (task_make(&t, &err)) goto fail;
    int max_T = 0;
    for (int k = 0; k < 3; k++) {
        int len = readout_max_length(&t.pieces[k], lay);
        if (len > max_T) max_T = len;
    }
    if (model_create(&m, &mc, cfg.batch, max_T, &err)) goto fail;
    model_init_weights(&m, 3);
    if (finetune_run(&m, &t.ls, &t.split[0], &t.split[1], &t.split[2], &cfg, &res, &err)) goto fail;
    out->tok_s = (double)res.train_tokens / res.train_seconds;
    out->tokens_per_sentence = (double)res.train_tokens / N_TRAIN;
    out->n_trained = (double)(res.best.n_lora + (size_t)res.best.K * res.best.C + res.best.K);
    out->max_T = max_T;
    out->batch = cfg.batch;
    finetune_result_free(&res);
    model_free(&m);
    labelled_task_free(&t);
    return 0;
fail:
    fprintf(stderr, "bench: fine-tuning at r = %d: %s\n", job->r, err.msg);
    return -1;
}

typedef struct {
    int threads;
} ProbeJob;

typedef struct {
    double separate_seconds, one_pass_seconds, tokens_separate, tokens_one_pass;
} ProbeSpeed;

/* In the child: feature extraction for r = 0, 1, 2, 4, 8, five passes and one. */
static int time_probe_features(const void *arg, void *result)
{
    const ProbeJob *job = arg;
    ProbeSpeed *out = result;
    threads_set(job->threads);
    static const int r_values[] = {0, 1, 2, 4, 8};
    enum { N_R = 5, BATCH = 32 };
    SrError err;
    SyntheticTask t;
    if (task_make(&t, &err)) goto fail;
    ModelConfig mc = bench_house_shape();
    const PiecedData *pd = &t.pieces[0];
    int max_T = readout_max_length(pd, readout_layout_paper(8));
    size_t per_r = (size_t)(mc.n_layers + 1) * (size_t)pd->n_words * (size_t)mc.d_model;
    float *last[N_R], *first = malloc(sizeof(float) * per_r);
    for (int i = 0; i < N_R; i++) last[i] = malloc(sizeof(float) * per_r);
    Model m;
    if (model_create(&m, &mc, BATCH, max_T, &err)) goto fail;
    model_init_weights(&m, 3);
    out->tokens_separate = out->tokens_one_pass = 0.0;
    for (int s = 0; s < pd->n_sents; s++) {
        for (int i = 0; i < N_R; i++)
            out->tokens_separate += readout_sentence_length(pd, s, readout_layout_paper(r_values[i]));
        out->tokens_one_pass += readout_sentence_length(pd, s, readout_layout_paper(8));
    }
    double start = bench_now();
    for (int i = 0; i < N_R; i++)
        if (readout_collect(&m, pd, readout_layout_paper(r_values[i]), NULL, NULL, BATCH, last[i], first, &err))
            goto fail;
    out->separate_seconds = bench_now() - start;
    start = bench_now();
    if (readout_collect_prefixes(&m, pd, readout_layout_paper(8), r_values, N_R, NULL, NULL, BATCH, last,
                                 first, &err))
        goto fail;
    out->one_pass_seconds = bench_now() - start;
    for (int i = 0; i < N_R; i++) free(last[i]);
    free(first);
    model_free(&m);
    labelled_task_free(&t);
    return 0;
fail:
    fprintf(stderr, "bench: probe features: %s\n", err.msg);
    return -1;
}

int bench_finetune_table(int threads)
{
    static const int r_values[] = {0, 1, 4, 8};
    printf("fine-tuning (paper recipe, one epoch of %d NLU++-length sentences, house LM shape):\n",
           N_TRAIN);
    printf("%3s %9s %8s %10s %8s %9s %9s %6s\n", "r", "tok/sent", "tok/s", "vs r = 0", "FLOP/tok",
           "RSS MiB", "floor MiB", "xfloor");
    ModelConfig mc = bench_house_shape();
    double base_tok_s = 0.0, base_flops = 0.0;
    int failed = 0;
    for (int i = 0; i < 4; i++) {
        FinetuneJob job = {r_values[i], threads};
        FinetuneSpeed sp;
        double rss;
        if (bench_in_child(time_finetune, &job, &sp, sizeof sp, &rss)) {
            failed = 1;
            continue;
        }
        /* forward FLOPs per token at the mean input length, no LM head */
        int T = (int)(sp.tokens_per_sentence + 0.5);
        double flops = bench_forward_flops(&mc, 1, T, 0, 0) / T;
        if (i == 0) base_tok_s = sp.tok_s, base_flops = flops;
        FinetuneConfig paper;
        recipe_apply("paper", &paper);
        FloorRun run = {.B = (int)sp.batch, .T = (int)sp.max_T, .n_trained = (size_t)sp.n_trained,
                        .n_outside = (size_t)sp.n_trained, .lora = &paper.lora};
        MemoryFloor floor = memory_floor_training(&mc, 4, &run);
        printf("%3d %9.1f %8.0f %9.2fx %7.2fM %9.1f %9.1f %5.2fx\n", r_values[i],
               sp.tokens_per_sentence, sp.tok_s, base_tok_s > 0 ? sp.tok_s / base_tok_s : 0.0,
               flops / 1e6, bytes_to_mib(rss), bytes_to_mib(floor.total), rss / floor.total);
        fflush(stdout);
    }
    printf("tok/sent: input tokens per sentence (every copy and <bos>); FLOP/tok: forward FLOPs\n"
           "per input token at that length (r = 0: %.2fM); the floor is for the longest batch\n\n",
           base_flops / 1e6);

    ProbeJob pj = {threads};
    ProbeSpeed ps;
    double rss;
    if (bench_in_child(time_probe_features, &pj, &ps, sizeof ps, &rss)) return 1;
    printf("probe features, r = 0, 1, 2, 4, 8, every layer, %d sentences:\n", N_TRAIN);
    printf("  five passes: %.3f s (%.0f tokens, %.0f tok/s); one pass of r = 8: %.3f s (%.0f tokens,"
           " %.0f tok/s); %.2fx faster; peak RSS %.1f MiB\n\n",
           ps.separate_seconds, ps.tokens_separate, ps.tokens_separate / ps.separate_seconds,
           ps.one_pass_seconds, ps.tokens_one_pass, ps.tokens_one_pass / ps.one_pass_seconds,
           ps.separate_seconds / ps.one_pass_seconds, bytes_to_mib(rss));
    return failed;
}
