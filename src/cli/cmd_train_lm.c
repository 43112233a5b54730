/* cmd_train_lm.c — `seqrep train-lm`: train a language model on a text
 * corpus and save it as a safetensors checkpoint.
 *
 * Two objectives, one model: "causal" predicts the next token under the
 * causal mask; "mlm" (the encoder baseline) hides 15% of the tokens and
 * predicts them with no attention mask at all (every layer bidirectional).
 *
 * The corpus is read line by line, a word vocabulary is built from it, and the
 * lines are encoded into one stream with <bos> before each line (as Llama's tokenizer
 * does, so a repeated sentence "<bos> s <bos> s" looks like text the model has seen). Training
 * windows of seq_len + 1 tokens are drawn at random from the first 95% of the
 * stream; the last 5% is held out for a validation loss.
 *
 * Positions (--positions, see src/repo_eval.h): rope, nope, const, hybrid, or
 * repo (learned positions from layer --repo-from on). --init MODEL continues
 * training a checkpoint (continued pre-training): its size and vocabulary are
 * kept, its weights copied, and RePo weights it lacks start at Normal(0, 0.02). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "base/rng.h"
#include "cli/commands.h"
#include "engine/adamw.h"
#include "engine/model.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "options/args.h"
#include "repo/repo_eval.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"

static const char *CMD = "train-lm";

typedef struct {
    const char *corpus, *out, *objective, *positions, *init, *tokenizer, *vocab;
    int layers, d_model, heads, d_ff, seq_len, batch, steps, warmup, seed, threads, repo_from;
    int min_count, max_vocab, lowercase, untied, quiet, vocab_size;
    float lr, min_lr, weight_decay, clip, rope_theta;
} TrainOptions;

/* Masked-LM corruption of ids (n) in place: each token is chosen with
 * probability 15%; a chosen token becomes the target and is replaced by
 * <mask> (80%), a random word (10%) or left as it is (10%). Targets of
 * tokens not chosen are -1 (ignored). */
static void mlm_corrupt(Rng *rng, int *ids, int *targets, long n, int vocab_size)
{
    for (long i = 0; i < n; i++) {
        targets[i] = -1;
        if (rng_uniform(rng) >= 0.15f) continue;
        targets[i] = ids[i];
        float u = rng_uniform(rng);
        if (u < 0.8f) ids[i] = TOK_MASK;
        else if (u < 0.9f) ids[i] = TOK_N_SPECIAL + (int)rng_below(rng, (uint32_t)(vocab_size - TOK_N_SPECIAL));
    }
}

/* Fill ids/targets (B, T) with random windows of stream[lo, hi). */
static void sample_batch(Rng *rng, const int *stream, long lo, long hi, int B, int T, int *ids,
                         int *targets)
{
    long span = hi - lo - T; /* window start in [lo, lo + span) so that T+1 tokens fit */
    for (int b = 0; b < B; b++) {
        long start = lo + (long)rng_below(rng, (uint32_t)span);
        memcpy(ids + (size_t)b * T, stream + start, (size_t)T * sizeof(int));
        memcpy(targets + (size_t)b * T, stream + start + 1, (size_t)T * sizeof(int));
    }
}

/* Mean loss over consecutive windows of stream[lo, hi) (at most max_batches
 * batches) under the training objective. Returns -1 if the range is shorter
 * than one window. */
static float evaluate(Model *m, const int *stream, long lo, long hi, int B, int T, int *ids,
                      int *targets, int max_batches, const MaskKind *plan, int mlm,
                      const RepoRun *positions)
{
    Rng rng;
    rng_seed(&rng, 12345); /* the same corruption for every evaluation */
    double sum = 0.0;
    int batches = 0;
    long pos = lo;
    SrError err;
    while (batches < max_batches) {
        int rows = 0;
        for (; rows < B && pos + T + 1 <= hi; rows++, pos += T) {
            memcpy(ids + (size_t)rows * T, stream + pos, (size_t)T * sizeof(int));
            memcpy(targets + (size_t)rows * T, stream + pos + 1, (size_t)T * sizeof(int));
        }
        if (rows == 0) break;
        if (mlm) mlm_corrupt(&rng, ids, targets, (long)rows * T, m->cfg.vocab_size);
        ModelInput in = {.B = rows, .T = T, .ids = ids, .mask = plan, .want_logits = 1};
        repo_run_apply(positions, &in);
        if (model_forward(m, &in, &err)) return -1.0f;
        sum += model_lm_loss(m, targets, -1);
        batches++;
    }
    return batches ? (float)(sum / batches) : -1.0f;
}

/* Parse options; returns 0, 1 (help shown) or 2 (error printed). */
/* Load a vocabulary file into tok, in subword mode when asked. */
static int tokenizer_load_vocab(Tokenizer *tok, const char *path, int lowercase, int subword,
                                SrError *err)
{
    if (tokenizer_load(tok, path, lowercase, err)) return -1;
    if (subword) tokenizer_set_subword(tok, 1);
    return 0;
}

static int parse_options(int argc, char **argv, TrainOptions *o)
{
    *o = (TrainOptions){.layers = 4, .d_model = 64, .heads = 4, .d_ff = 176, .seq_len = 64,
                        .batch = 16, .steps = 600, .warmup = -1, .seed = 1, .threads = 0,
                        .min_count = 1, .max_vocab = 0, .lr = 3e-3f, .min_lr = -1.0f,
                        .weight_decay = 0.1f, .clip = 1.0f, .rope_theta = 10000.0f,
                        .objective = "causal", .positions = "rope", .repo_from = -1};
    ArgSpec specs[] = {
        {"corpus", ARG_STRING, &o->corpus, "text file, one sentence or line per line", 1, 0, 0},
        {"objective", ARG_STRING, &o->objective, "causal (next token) or mlm (masked, no mask plan)", 0, 0, 0},
        {"out", ARG_STRING, &o->out, "checkpoint to write (.safetensors)", 1, 0, 0},
        {"layers", ARG_INT, &o->layers, "transformer blocks (default 4)", 0, 1, 0},
        {"d-model", ARG_INT, &o->d_model, "model width (default 64)", 0, 1, 0},
        {"heads", ARG_INT, &o->heads, "attention heads (default 4)", 0, 1, 0},
        {"d-ff", ARG_INT, &o->d_ff, "SwiGLU hidden width (default 176)", 0, 1, 0},
        {"seq-len", ARG_INT, &o->seq_len, "training window and max length (default 64)", 0, 2, 0},
        {"batch", ARG_INT, &o->batch, "windows per step (default 16)", 0, 1, 0},
        {"steps", ARG_INT, &o->steps, "optimiser steps (default 600)", 0, 1, 0},
        {"lr", ARG_FLOAT, &o->lr, "peak learning rate (default 3e-3)", 0, 0, 0},
        {"min-lr", ARG_FLOAT, &o->min_lr, "final learning rate (default lr/10)", 0, 0, 0},
        {"warmup", ARG_INT, &o->warmup, "warm-up steps (default steps/20)", 0, 0, 0},
        {"weight-decay", ARG_FLOAT, &o->weight_decay, "AdamW decoupled decay (default 0.1)", 0, 0, 0},
        {"clip", ARG_FLOAT, &o->clip, "global gradient-norm clip, 0 = off (default 1)", 0, 0, 0},
        {"rope-theta", ARG_FLOAT, &o->rope_theta, "RoPE base (default 10000)", 0, 0, 0},
        {"untied", ARG_FLAG, &o->untied, "separate LM head instead of the embedding", 0, 0, 0},
        {"lowercase", ARG_FLAG, &o->lowercase, "lower-case the corpus", 0, 0, 0},
        {"tokenizer", ARG_STRING, &o->tokenizer, "word (default) or bpe (byte-pair pieces)", 0, 0, 0},
        {"vocab-size", ARG_INT, &o->vocab_size, "bpe: pieces to learn, specials included (default 2000)", 0, 8, 0},
        {"vocab", ARG_STRING, &o->vocab, "use this vocabulary file (one token per line) as it is", 0, 0, 0},
        {"min-count", ARG_INT, &o->min_count, "keep words seen this often (default 1)", 0, 1, 0},
        {"max-vocab", ARG_INT, &o->max_vocab, "largest vocabulary, 0 = all (default 0)", 0, 0, 0},
        {"seed", ARG_INT, &o->seed, "random seed (default 1)", 0, 0, 0},
        {"threads", ARG_INT, &o->threads, "threads, 0 = all cores (default 0)", 0, 0, 0},
        {"quiet", ARG_FLAG, &o->quiet, "no progress output", 0, 0, 0},
        {"positions", ARG_STRING, &o->positions, "rope, nope, const, hybrid or repo (default rope)", 0, 0, 0},
        {"repo-from", ARG_INT, &o->repo_from, "first RePo layer (default ceil(layers/3))", 0, -1000000, 0},
        {"init", ARG_STRING, &o->init, "continue training this checkpoint (size, vocabulary, weights)", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--corpus FILE --out MODEL [options]", specs,
                        (int)(sizeof specs / sizeof specs[0]), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    RepoMethod method;
    if (repo_method_parse(o->positions, &method))
        return args_error(CMD, "--positions must be rope, nope, const, hybrid or repo, got '%s'",
                          o->positions);
    if (o->repo_from != -1 && method != REPO_METHOD_REPO)
        return args_error(CMD, "--repo-from needs --positions repo");
    if (o->init) /* the size and the vocabulary come from the checkpoint */
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            static const char *const fixed[] = {"layers", "d-model", "heads", "d-ff", "rope-theta",
                                                "untied", "lowercase", "min-count", "max-vocab"};
            for (size_t j = 0; j < sizeof fixed / sizeof fixed[0]; j++)
                if (specs[i].set && strcmp(specs[i].name, fixed[j]) == 0)
                    return args_error(CMD, "--%s comes from --init %s; leave it out", fixed[j],
                                      o->init);
        }
    if (!o->init && o->repo_from != -1 && (o->repo_from < 0 || o->repo_from >= o->layers))
        return args_error(CMD, "--repo-from %d is outside 0..%d (the model's layers)", o->repo_from,
                          o->layers - 1);
    if (!o->init && method == REPO_METHOD_REPO && o->d_model % 8)
        return args_error(CMD, "--positions repo needs --d-model divisible by 8, got %d", o->d_model);
    if (o->d_model % o->heads)
        return args_error(CMD, "--d-model %d is not divisible by --heads %d", o->d_model, o->heads);
    if ((o->d_model / o->heads) % 2)
        return args_error(CMD, "head size --d-model/--heads = %d must be even (RoPE rotates pairs)",
                          o->d_model / o->heads);
    if (!o->tokenizer) o->tokenizer = "word";
    if (!o->vocab_size) o->vocab_size = 2000;
    if (strcmp(o->tokenizer, "word") != 0 && strcmp(o->tokenizer, "bpe") != 0)
        return args_error(CMD, "--tokenizer must be word or bpe, got '%s'", o->tokenizer);
    if (o->vocab && o->init)
        return args_error(CMD, "--vocab and --init both give a vocabulary; choose one");
    if (strcmp(o->objective, "causal") != 0 && strcmp(o->objective, "mlm") != 0)
        return args_error(CMD, "--objective must be causal or mlm, got '%s'", o->objective);
    if (!(o->lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (o->min_lr < 0.0f) o->min_lr = o->lr / 10.0f;
    if (o->warmup < 0) o->warmup = o->steps / 20;
    if (o->warmup > o->steps) return args_error(CMD, "--warmup %d exceeds --steps %d", o->warmup, o->steps);
    if (o->weight_decay < 0.0f) return args_error(CMD, "--weight-decay must not be negative");
    if (!(o->rope_theta > 0.0f)) return args_error(CMD, "--rope-theta must be positive");
    if (o->max_vocab != 0 && o->max_vocab <= TOK_N_SPECIAL)
        return args_error(CMD, "--max-vocab must be 0 or more than %d", TOK_N_SPECIAL);
    return 0;
}

int cmd_train_lm(int argc, char **argv)
{
    TrainOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    SrError err;
    Tokenizer tok = {0};
    EncodedText text = {0};
    Model m = {0};
    int *ids = NULL, *targets = NULL;
    MaskKind *plan = NULL;
    cJSON *manifest = NULL;
    char *manifest_text = NULL;
    Model base = {0};   /* the --init checkpoint */
    RepoRun positions = {0};
    RepoMethod method = REPO_METHOD_ROPE;
    repo_method_parse(o.positions, &method);
    rc = 2;

    if ((o.init ? repo_load_model(o.init, REPO_METHOD_ROPE, 1, 1, &base, &tok, NULL, &err)
                : o.vocab ? tokenizer_load_vocab(&tok, o.vocab, o.lowercase, strcmp(o.tokenizer, "bpe") == 0, &err)
                : strcmp(o.tokenizer, "bpe") == 0
                    ? tokenizer_build_bpe_from_file(&tok, o.corpus, o.vocab_size, o.lowercase, &err)
                    : tokenizer_build_from_file(&tok, o.corpus, o.min_count, o.max_vocab,
                                                o.lowercase, &err)) ||
        tokenizer_encode_file(&tok, o.corpus, TOK_BOS, &text, &err)) {
        fprintf(stderr, "seqrep %s: %s\n", CMD, err.msg);
        goto done;
    }
    if (o.init && text.n_unk == text.n_ids - text.n_lines) {
        fprintf(stderr, "seqrep %s: %s shares no word with the vocabulary of --init %s\n", CMD,
                o.corpus, o.init);
        goto done;
    }
    long n_train = text.n_ids - text.n_ids / 20;
    if (n_train < o.seq_len + 2) {
        fprintf(stderr, "seqrep %s: %s: corpus has %ld tokens, too few for --seq-len %d "
                "(need at least %d in the training part)\n", CMD, o.corpus, text.n_ids,
                o.seq_len, o.seq_len + 2);
        goto done;
    }
    ModelConfig cfg = {.vocab_size = tok.n_words, .d_model = o.d_model, .n_layers = o.layers,
                       .n_heads = o.heads, .d_ff = o.d_ff, .max_seq_len = o.seq_len,
                       .rope_theta = o.rope_theta, .norm_eps = 1e-5f, .tied = !o.untied};
    int repo_from = o.repo_from;
    if (o.init) {
        cfg = base.cfg;
        if (cfg.max_seq_len < o.seq_len) cfg.max_seq_len = o.seq_len;
        if (base.cfg.repo && (method != REPO_METHOD_REPO ||
                              (repo_from != -1 && repo_from != base.cfg.repo_from))) {
            fprintf(stderr, "seqrep %s: --init %s has RePo layers from %d; continue it with "
                    "--positions repo --repo-from %d\n", CMD, o.init, base.cfg.repo_from,
                    base.cfg.repo_from);
            goto done;
        }
        if (base.cfg.repo) repo_from = base.cfg.repo_from;
    }
    if (repo_method_config(method, repo_from, &cfg, &err) ||
        model_create(&m, &cfg, o.batch, o.seq_len, &err) || adamw_create(&m, &err)) {
        fprintf(stderr, "seqrep %s: %s\n", CMD, err.msg);
        goto done;
    }
    model_init_weights(&m, (unsigned long long)o.seed); /* RePo weights: Normal(0, 0.02) */
    if ((o.init && repo_copy_shared_weights(&m, &base, &err)) ||
        repo_run_init(&positions, method, &m, &err)) {
        fprintf(stderr, "seqrep %s: %s\n", CMD, err.msg);
        goto done;
    }
    ids = malloc((size_t)o.batch * o.seq_len * sizeof(int));
    targets = malloc((size_t)o.batch * o.seq_len * sizeof(int));
    if (!ids || !targets) {
        fprintf(stderr, "seqrep %s: out of memory\n", CMD);
        goto done;
    }
    if (!o.quiet)
        fprintf(stderr, "corpus %s: %ld lines, %ld tokens, vocabulary %d (%ld unknown)\n"
                "model: %d layers, d_model %d, %d heads, d_ff %d, %zu parameters; "
                "batch %d x %d, %d steps, %d threads\n",
                o.corpus, text.n_lines, text.n_ids, tok.n_words, text.n_unk, o.layers, o.d_model,
                o.heads, o.d_ff, m.n_params, o.batch, o.seq_len, o.steps, threads_count());

    int mlm = strcmp(o.objective, "mlm") == 0;
    plan = calloc((size_t)o.layers, sizeof(MaskKind));
    if (!plan) goto done;
    for (int l = 0; l < o.layers; l++) plan[l] = mlm ? MASK_BIDIRECTIONAL : MASK_CAUSAL;
    Rng rng;
    rng_seed(&rng, (uint64_t)o.seed * 2654435761ULL + 17);
    AdamWConfig opt = adamw_defaults();
    opt.weight_decay = o.weight_decay;
    opt.grad_clip = o.clip;
    Progress prog;
    progress_start(&prog, stderr, o.steps, o.steps / 20 > 0 ? o.steps / 20 : 1);
    float loss = 0.0f;
    for (int step = 1; step <= o.steps; step++) {
        sample_batch(&rng, text.ids, 0, n_train, o.batch, o.seq_len, ids, targets);
        if (mlm) {
            /* the window itself is the target, before corruption */
            memcpy(targets, ids, (size_t)o.batch * o.seq_len * sizeof(int));
            mlm_corrupt(&rng, ids, targets, (long)o.batch * o.seq_len, tok.n_words);
        }
        ModelInput in = {.B = o.batch, .T = o.seq_len, .ids = ids, .mask = plan, .want_logits = 1};
        repo_run_apply(&positions, &in);
        if (model_forward(&m, &in, &err)) {
            fprintf(stderr, "seqrep %s: %s\n", CMD, err.msg);
            goto done;
        }
        loss = model_lm_loss(&m, targets, -1);
        model_zero_grad(&m);
        model_backward(&m, targets, -1);
        float lr = lr_schedule(step, o.warmup, o.steps, o.lr, o.min_lr);
        adamw_step(&m, &opt, lr, step);
        if (!o.quiet) progress_update(&prog, step, loss, lr, (long)o.batch * o.seq_len);
    }
    double seconds = progress_now() - prog.start;
    if (!o.quiet) progress_finish(&prog, loss);
    float val = evaluate(&m, text.ids, n_train, text.n_ids, o.batch, o.seq_len, ids, targets, 50,
                         plan, mlm, &positions);
    if (!o.quiet && val >= 0.0f) fprintf(stderr, "validation loss %.4f (held-out last 5%%)\n", val);

    manifest = manifest_begin(argc, argv, (unsigned long long)o.seed);
    manifest_add_file(manifest, "corpus", o.corpus);
    cJSON_AddStringToObject(manifest, "objective", mlm ? "mlm" : "causal-lm");
    cJSON_AddStringToObject(manifest, "tokenizer", tok.subword ? "bpe" : "word");
    cJSON_AddNumberToObject(manifest, "corpus_tokens", (double)text.n_ids);
    cJSON_AddBoolToObject(manifest, "lowercase", tok.lowercase);
    cJSON_AddStringToObject(manifest, "positions", repo_method_name(method));
    if (m.cfg.repo) cJSON_AddNumberToObject(manifest, "repo_from", m.cfg.repo_from);
    if (o.init) {
        manifest_add_file(manifest, "init", o.init);
    }
    cJSON_AddNumberToObject(manifest, "steps", o.steps);
    cJSON_AddNumberToObject(manifest, "batch", o.batch);
    cJSON_AddNumberToObject(manifest, "seq_len", o.seq_len);
    cJSON_AddNumberToObject(manifest, "lr", o.lr);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    cJSON_AddNumberToObject(manifest, "final_train_loss", loss);
    if (val >= 0.0f) cJSON_AddNumberToObject(manifest, "val_loss", val);
    cJSON_AddNumberToObject(manifest, "train_seconds", seconds);
    manifest_text = cJSON_PrintUnformatted(manifest);
    if (checkpoint_save(o.out, &m, (const char *const *)tok.words, tok.n_words, manifest_text, &err)) {
        fprintf(stderr, "seqrep %s: %s\n", CMD, err.msg);
        goto done;
    }
    if (!o.quiet) fprintf(stderr, "saved %s\n", o.out);
    rc = 0;
done:
    repo_run_free(&positions);
    model_free(&base);
    free(plan);
    free(manifest_text);
    cJSON_Delete(manifest);
    free(ids);
    free(targets);
    model_free(&m);
    encoded_text_free(&text);
    tokenizer_free(&tok);
    return rc;
}
