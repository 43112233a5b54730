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

int cmd_generate(int argc, char **argv)
{
    const char *path = NULL, *prompt = "";
    int lines = 3, max_tokens = 40, top_k = 20, seed = 1;
    float temperature = 0.8f;
    ArgSpec specs[] = {
        {"prompt", ARG_STRING, &prompt, "text every sample starts with (default none)", 0, 0, 0},
        {"lines", ARG_INT, &lines, "samples to draw (default 3)", 0, 1, 0},
        {"max-tokens", ARG_INT, &max_tokens, "longest continuation (default 40)", 0, 1, 0},
        {"temperature", ARG_FLOAT, &temperature, "softmax temperature (default 0.8)", 0, 0, 0},
        {"top-k", ARG_INT, &top_k, "sample among the k likeliest, 0 = all (default 20)", 0, 0, 0},
        {"seed", ARG_INT, &seed, "random seed (default 1)", 0, 0, 0},
    };
    int npos = 0;
    int rc = args_parse(CMD, "MODEL [--prompt TEXT] [options]", specs, 6, argc, argv, &path, 1, &npos);
    if (rc) return rc == 1 ? 0 : rc;
    if (npos != 1) return args_error(CMD, "expects one checkpoint path (see --help)");
    if (!(temperature > 0.0f)) return args_error(CMD, "--temperature must be positive");

    SrError err;
    Model m = {0};
    CheckpointInfo info = {0};
    Tokenizer tok = {0};
    int *ctx = NULL;
    float *scratch = NULL;
    rc = 2;
    /* the model is sized for one row of its whole context */
    if (checkpoint_read_info(path, &info, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    int T_max = info.cfg.max_seq_len;
    checkpoint_info_free(&info);
    if (checkpoint_load(path, &m, 1, T_max, &info, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    if (checkpoint_tokenizer(&info, path, &tok, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    long n_prompt = tokenizer_encode(&tok, prompt, 0, NULL, 0);
    long cap = 1 + n_prompt + max_tokens;
    ctx = malloc((size_t)cap * sizeof(int));
    scratch = malloc((size_t)tok.n_words * sizeof(float));
    if (!ctx || !scratch) {
        args_error(CMD, "out of memory");
        goto done;
    }
    Rng rng;
    rng_seed(&rng, (uint64_t)seed);
    for (int line = 0; line < lines; line++) {
        ctx[0] = TOK_BOS;
        tokenizer_encode(&tok, prompt, 0, ctx + 1, n_prompt);
        long n = 1 + n_prompt;
        for (int step = 0; step < max_tokens; step++) {
            long T = n < T_max ? n : T_max; /* the most recent window the model can see */
            ModelInput in = {.B = 1, .T = (int)T, .ids = ctx + n - T, .want_logits = 1};
            if (model_forward(&m, &in, &err)) {
                args_error(CMD, "%s", err.msg);
                goto done;
            }
            int next = sample_token(m.a.logits + (size_t)(T - 1) * tok.n_words, tok.n_words,
                                    temperature, top_k, &rng, scratch);
            if (next == TOK_BOS || next == TOK_EOS) break;
            ctx[n++] = next;
        }
        char *text = tokenizer_decode(&tok, ctx + 1, n - 1,
                                      TOKENIZER_DECODE_PRETTY | TOKENIZER_DECODE_SKIP_SPECIAL);
        printf("%s\n", text ? text : "");
        free(text);
    }
    rc = 0;
done:
    free(ctx);
    free(scratch);
    tokenizer_free(&tok);
    checkpoint_info_free(&info);
    model_free(&m);
    return rc;
}
