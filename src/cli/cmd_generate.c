/* cmd_generate.c — `seqrep generate MODEL --prompt TEXT`: sample lines of
 * text from a trained language model, so a user sees what it learned.
 *
 * Training put <bos> before every line, so each sample starts from <bos>
 * followed by the prompt and stops where the model opens the next line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "cli/commands.h"
#include "formats/checkpoint.h"
#include "label/methods.h"
#include "options/args.h"
#include "options/rows.h"
#include "text/tokenizer.h"

static const char *CMD = "generate";

/* Draw a token from logits (V) with temperature and top-k (0 = all). */
static int sample_token(const float *logits, int V, float temperature, int top_k, Rng *rng,
                        float *scratch)
{
    float max = logits[0];
    for (int v = 1; v < V; v++) max = logits[v] > max ? logits[v] : max;
    float threshold = -1e30f;
    if (top_k > 0 && top_k < V) {
        /* the k-th largest logit: copy and partially select */
        memcpy(scratch, logits, (size_t)V * sizeof(float));
        for (int i = 0; i < top_k; i++) {
            int best = i;
            for (int j = i + 1; j < V; j++) if (scratch[j] > scratch[best]) best = j;
            float t = scratch[i]; scratch[i] = scratch[best]; scratch[best] = t;
        }
        threshold = scratch[top_k - 1];
    }
    double total = 0.0;
    for (int v = 0; v < V; v++) {
        scratch[v] = (logits[v] >= threshold && v != TOK_PAD && v != TOK_UNK)
                         ? expf((logits[v] - max) / temperature) : 0.0f;
        total += scratch[v];
    }
    double u = rng_uniform(rng) * total, acc = 0.0;
    for (int v = 0; v < V; v++) {
        acc += scratch[v];
        if (scratch[v] > 0.0f && u < acc) return v;
    }
    for (int v = V - 1; v >= 0; v--) if (scratch[v] > 0.0f) return v;
    return TOK_EOS;
}

/* The options of `seqrep generate`. */
typedef struct {
    const char *path, *prompt;
    int lines, max_tokens, top_k, seed;
    float temperature;
} GenerateOptions;

/* The model sized for one row of its whole context, its tokenizer, and the
 * buffers one sample needs. */
typedef struct {
    Model model;
    CheckpointInfo info;
    Tokenizer tok;
    int T_max;
    long n_prompt;  /* tokens of the prompt */
    int *ctx;       /* (1 + n_prompt + max_tokens) <bos>, prompt, continuation */
    float *scratch; /* (vocabulary) */
} GenerateRun;

/* Parse argv into o: 0, 1 after --help, 2 after the error line. */
static int parse_options(int argc, char **argv, GenerateOptions *o)
{
    *o = (GenerateOptions){.prompt = "", .lines = 3, .max_tokens = 40, .top_k = 20, .seed = 1,
                           .temperature = 0.8f};
    ArgSpec specs[] = {
        {"prompt", ARG_STRING, &o->prompt, "text every sample starts with (default none)", 0, 0, 0},
        {"lines", ARG_INT, &o->lines, "samples to draw (default 3)", 0, 1, 0},
        {"max-tokens", ARG_INT, &o->max_tokens, "longest continuation (default 40)", 0, 1, 0},
        {"temperature", ARG_FLOAT, &o->temperature, "softmax temperature (default 0.8)", 0, 0, 0},
        {"top-k", ARG_INT, &o->top_k, "sample among the k likeliest, 0 = all (default 20)", 0, 0, 0},
        option_seed(&o->seed, "random seed (default 1)"),
    };
    int npos = 0;
    int rc = args_parse(CMD, "MODEL [--prompt TEXT] [options]", specs, ARGS_COUNT(specs), argc, argv,
                        &o->path, 1, &npos);
    if (rc) return rc;
    if (npos != 1) return args_error(CMD, "expects one checkpoint path (see --help)");
    if (!(o->temperature > 0.0f)) return args_error(CMD, "--temperature must be positive");
    return 0;
}

/* Load the model for one row of its whole context and its tokenizer, and
 * allocate the context and scratch. 0 or 2 after the error line. */
static int load(const GenerateOptions *o, GenerateRun *run)
{
    SrError err;
    if (checkpoint_read_info(o->path, &run->info, &err)) return args_error(CMD, "%s", err.msg);
    run->T_max = run->info.cfg.max_seq_len;
    checkpoint_info_free(&run->info);
    if (checkpoint_load(o->path, &run->model, 1, run->T_max, &run->info, &err) ||
        checkpoint_tokenizer(&run->info, o->path, &run->tok, &err))
        return args_error(CMD, "%s", err.msg);
    run->n_prompt = tokenizer_encode(&run->tok, o->prompt, 0, NULL, 0);
    long cap = 1 + run->n_prompt + o->max_tokens;
    run->ctx = malloc((size_t)cap * sizeof(int));
    run->scratch = malloc((size_t)run->tok.n_words * sizeof(float));
    if (!run->ctx || !run->scratch) return args_error(CMD, "out of memory");
    return 0;
}

/* Draw one line after <bos> and the prompt, stopping at <bos>, <eos> or
 * --max-tokens, and print it. 0 or 2 after the error line. */
static int sample_line(const GenerateOptions *o, GenerateRun *run, Rng *rng)
{
    const int V = run->tok.n_words;
    SrError err;
    run->ctx[0] = TOK_BOS;
    tokenizer_encode(&run->tok, o->prompt, 0, run->ctx + 1, run->n_prompt);
    long n = 1 + run->n_prompt;
    for (int step = 0; step < o->max_tokens; step++) {
        long T = n < run->T_max ? n : run->T_max; /* the most recent window the model can see */
        ModelInput in = {.B = 1, .T = (int)T, .ids = run->ctx + n - T, .want_logits = 1};
        if (model_forward(&run->model, &in, &err)) return args_error(CMD, "%s", err.msg);
        int next = sample_token(run->model.a.logits + (size_t)(T - 1) * V, V, o->temperature,
                                o->top_k, rng, run->scratch);
        if (next == TOK_BOS || next == TOK_EOS) break;
        run->ctx[n++] = next;
    }
    char *text = tokenizer_decode(&run->tok, run->ctx + 1, n - 1,
                                  TOKENIZER_DECODE_PRETTY | TOKENIZER_DECODE_SKIP_SPECIAL);
    printf("%s\n", text ? text : "");
    free(text);
    return 0;
}

/* `seqrep generate`: options, model, then --lines samples from one seed. */
int cmd_generate(int argc, char **argv)
{
    GenerateOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    GenerateRun run = {0};
    rc = load(&o, &run);
    Rng rng;
    rng_seed(&rng, (uint64_t)o.seed);
    for (int line = 0; line < o.lines && rc == 0; line++) rc = sample_line(&o, &run, &rng);
    free(run.ctx);
    free(run.scratch);
    tokenizer_free(&run.tok);
    checkpoint_info_free(&run.info);
    model_free(&run.model);
    return rc;
}
