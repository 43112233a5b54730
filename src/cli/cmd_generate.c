/* cmd_generate.c — `seqrep generate MODEL --prompt TEXT`: sample lines of
 * text from a trained language model, so a user sees what it learned.
 *
 * Training put <bos> before every line, so each sample starts from <bos>
 * followed by the prompt and stops where the model opens the next line. A
 * Hugging Face folder uses its tokenizer's own BOS and EOS (tokenizer.h
 * tokenizer_specials); with a tokenizer that puts no BOS (Qwen) a sample
 * starts from the prompt alone. --greedy takes the likeliest token at every
 * step; otherwise tokens are drawn with --temperature and --top-k. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "cli/commands.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"
#include "label/methods.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "text/tokenizer.h"

static const char *CMD = "generate";

/* The likeliest token of logits (V) among those allowed[v] marks. */
static int greedy_token(const float *logits, int V, const unsigned char *allowed)
{
    int best = -1;
    for (int v = 0; v < V; v++)
        if (allowed[v] && (best < 0 || logits[v] > logits[best])) best = v;
    return best;
}

/* Draw a token from logits (V) with temperature and top-k (0 = all), among
 * those allowed[v] marks; -1 if none is. */
static int sample_token(const float *logits, int V, const unsigned char *allowed,
                        float temperature, int top_k, Rng *rng, float *scratch)
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
        scratch[v] = (logits[v] >= threshold && allowed[v])
                         ? expf((logits[v] - max) / temperature) : 0.0f;
        total += scratch[v];
    }
    double u = rng_uniform(rng) * total, acc = 0.0;
    for (int v = 0; v < V; v++) {
        acc += scratch[v];
        if (scratch[v] > 0.0f && u < acc) return v;
    }
    for (int v = V - 1; v >= 0; v--) if (scratch[v] > 0.0f) return v;
    return -1;
}

/* The options of `seqrep generate`. */
typedef struct {
    const char *path, *prompt;
    int lines, max_tokens, top_k, seed, greedy;
    float temperature;
} GenerateOptions;

/* The weights, a forward-only model on them sized for one row of its whole
 * context, its tokenizer, and the buffers one sample needs. */
typedef struct {
    Model weights, model;
    CheckpointInfo info;
    Tokenizer tok;
    int T_max;
    TokenizerSpecials specials; /* the tokenizer's own BOS (maybe none) and EOS */
    int n_start;    /* 1: a <bos> opens the context, 0: the tokenizer has none */
    long n_prompt;  /* tokens of the prompt */
    int *ctx;       /* (n_start + n_prompt + max_tokens) <bos>, prompt, continuation */
    int V;          /* the model's vocabulary (rows of logits) */
    unsigned char *allowed; /* (V) 1 for ids a sample may take: they have text */
    float *scratch; /* (V) */
} GenerateRun;

/* Parse argv into o: 0, 1 after --help, 2 after the error line. */
static int parse_options(int argc, char **argv, GenerateOptions *o)
{
    *o = (GenerateOptions){.prompt = "", .lines = 3, .max_tokens = 40, .top_k = 20, .seed = 1,
                           .temperature = 0.8f};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "prompt", .type = ARG_STRING, .value = &o->prompt,
         .help = "text every sample starts with (default none)"},
        {.name = "lines", .type = ARG_INT, .value = &o->lines, .min_int = 1,
         .help = help_text(&h, "samples to draw (default %d)", o->lines)},
        {.name = "max-tokens", .type = ARG_INT, .value = &o->max_tokens, .min_int = 1,
         .help = help_text(&h, "longest continuation (default %d)", o->max_tokens)},
        {.name = "temperature", .type = ARG_FLOAT, .value = &o->temperature,
         .help = help_text(&h, "softmax temperature (default %g)", (double)o->temperature)},
        {.name = "top-k", .type = ARG_INT, .value = &o->top_k,
         .help = help_text(&h, "sample among the k likeliest, 0 = all (default %d)", o->top_k)},
        {.name = "greedy", .type = ARG_FLAG, .value = &o->greedy,
         .help = "take the likeliest token at every step (no sampling)"},
        option_seed(&o->seed, help_text(&h, "random seed (default %d)", o->seed)),
    };
    int npos = 0;
    int rc = args_parse(CMD, "MODEL [--prompt TEXT] [options]", specs, ARGS_COUNT(specs), argc, argv,
                        &o->path, 1, &npos);
    if (rc) return rc;
    if (npos != 1) return args_error(CMD, "expects one checkpoint path (see --help)");
    if (!(o->temperature > 0.0f)) return args_error(CMD, "--temperature must be positive");
    return 0;
}

/* allowed (V) for tok: not <pad> or <unk> for the house tokenizers; for a
 * Hugging Face one every id with a spelling (ids past the tokenizer, where
 * the embedding is padded, have none). */
static void mark_allowed(const Tokenizer *tok, int V, unsigned char *allowed)
{
    for (int v = 0; v < V; v++) {
        const char *word = tokenizer_word(tok, v);
        allowed[v] = tok->hf ? (word && word[0] != '\0') : (v != TOK_PAD && v != TOK_UNK && word != NULL);
    }
}

/* Load the tokenizer, then the model for one row as long as the prompt and
 * its continuation (or the model's whole context, when shorter: generation
 * then slides over the most recent window), and allocate the context and
 * scratch. 0 or 2 after the error line. */
static int load(const GenerateOptions *o, GenerateRun *run)
{
    SrError err;
    if (checkpoint_read_info(o->path, &run->info, &err) ||
        checkpoint_tokenizer(&run->info, o->path, &run->tok, &err))
        return args_error(CMD, "%s", err.msg);
    run->specials = tokenizer_specials(&run->tok);
    run->n_start = run->specials.bos >= 0;
    run->n_prompt = tokenizer_encode(&run->tok, o->prompt, 0, NULL, 0);
    if (run->n_start + run->n_prompt == 0)
        return args_error(CMD, "%s: the tokenizer puts no BOS token, so --prompt must give some text",
                          o->path);
    long cap = run->n_start + run->n_prompt + o->max_tokens;
    run->T_max = cap < run->info.cfg.max_seq_len ? (int)cap : run->info.cfg.max_seq_len;
    if (adapter_load_inference(o->path, NULL, &run->weights, &run->model, 1, run->T_max, &err))
        return args_error(CMD, "%s", err.msg);
    run->V = run->info.cfg.vocab_size;
    run->ctx = malloc((size_t)cap * sizeof(int));
    run->scratch = malloc((size_t)run->V * sizeof(float));
    run->allowed = malloc((size_t)run->V);
    if (!run->ctx || !run->scratch || !run->allowed) return args_error(CMD, "out of memory");
    mark_allowed(&run->tok, run->V, run->allowed);
    return 0;
}

/* Draw one line after <bos> (when the tokenizer has one) and the prompt,
 * stopping at <bos>, <eos> or --max-tokens, and print it decoded by the
 * tokenizer. 0 or 2 after the error line. */
static int sample_line(const GenerateOptions *o, GenerateRun *run, Rng *rng)
{
    const int V = run->V;
    SrError err;
    if (run->n_start) run->ctx[0] = run->specials.bos;
    tokenizer_encode(&run->tok, o->prompt, 0, run->ctx + run->n_start, run->n_prompt);
    long n = run->n_start + run->n_prompt;
    if (tokenizer_check_embedded(&run->tok, run->ctx, n, "--prompt", &err))
        return args_error(CMD, "%s", err.msg);
    for (int step = 0; step < o->max_tokens; step++) {
        long T = n < run->T_max ? n : run->T_max; /* the most recent window the model can see */
        ModelInput in = {.B = 1, .T = (int)T, .ids = run->ctx + n - T, .want_logits = LOGITS_LAST};
        if (model_forward(&run->model, &in, &err)) return args_error(CMD, "%s", err.msg);
        const float *last = run->model.a.logits; /* the last position's alone */
        int next = o->greedy ? greedy_token(last, V, run->allowed)
                             : sample_token(last, V, run->allowed, o->temperature, o->top_k, rng,
                                            run->scratch);
        if (next < 0 || next == run->specials.bos || next == run->specials.eos) break;
        run->ctx[n++] = next;
    }
    char *text = tokenizer_decode(&run->tok, run->ctx + run->n_start, n - run->n_start,
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
    free(run.allowed);
    tokenizer_free(&run.tok);
    checkpoint_info_free(&run.info);
    model_free(&run.model); /* before the weights it borrows */
    model_free(&run.weights);
    return rc;
}
