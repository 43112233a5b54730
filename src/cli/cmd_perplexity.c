/* cmd_perplexity.c — `seqrep perplexity MODEL --text FILE`: how well a
 * language model predicts held-out text (for example the heldout.txt of
 * `make corpus`).
 *
 * The text is encoded as train-lm encodes a corpus (one stream, <bos> before
 * every line) and cut into consecutive windows of the model's length; the
 * loss is the mean over windows of the mean cross-entropy, under the
 * checkpoint's own objective: next-token prediction for a causal LM, the
 * hidden 15% of tokens (the same fixed corruption on every call) for a
 * masked LM. Perplexity is exp(loss). With --out the numbers go to a JSON
 * file with a manifest beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "cli/common/cli_common.h"
#include "cli/commands.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/task.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"
#include "train/pretrain.h"

static const char *CMD = "perplexity";

typedef struct {
    const char *model, *text, *out;
    int batch, max_batches, threads;
} PerplexityOptions;

/* What the measurement found. */
typedef struct {
    char objective[32];
    long tokens, unknown, windows;
    int window;
    float loss;
} PerplexityResult;

/* Parse the command line into *o; 0, 1 (help printed) or 2 (error printed). */
static int parse_options(int argc, char **argv, PerplexityOptions *o)
{
    *o = (PerplexityOptions){.batch = 8, .max_batches = 1000000};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "text", .type = ARG_STRING, .value = &o->text, .required = 1,
         .help = "held-out text, one sentence or line per line"},
        {.name = "batch", .type = ARG_INT, .value = &o->batch, .min_int = 1,
         .help = help_text(&h, "windows per forward pass (default %d)", o->batch)},
        {.name = "max-batches", .type = ARG_INT, .value = &o->max_batches, .min_int = 1,
         .help = "measure at most this many batches (default all)"},
        {.name = "out", .type = ARG_STRING, .value = &o->out,
         .help = "JSON file for the numbers (with NAME.manifest.json beside it)"},
        option_threads(&o->threads),
    };
    int n_pos = 0;
    int rc = args_parse(CMD, "MODEL --text FILE [--batch B] [--max-batches N] [--out FILE.json]", specs,
                        ARGS_COUNT(specs), argc, argv, &o->model, 1, &n_pos);
    if (rc) return rc;
    if (n_pos != 1) return args_error(CMD, "expects one checkpoint (MODEL)");
    return 0;
}

/* Load the model, encode the text and measure the loss into *res. 0 or 2. */
static int measure(const PerplexityOptions *o, PerplexityResult *res)
{
    CheckpointInfo info = {0};
    Tokenizer tok = {0};
    EncodedText text = {0};
    Model m = {0};
    SrError err;
    int rc = 0;
    if (checkpoint_read_info(o->model, &info, &err) || checkpoint_tokenizer(&info, o->model, &tok, &err) ||
        tokenizer_encode_file(&tok, o->text, TOK_BOS, &text, &err) ||
        checkpoint_load(o->model, &m, o->batch, info.cfg.max_seq_len, NULL, &err)) {
        rc = args_error(CMD, "%s", err.msg);
        goto done;
    }
    checkpoint_objective(&info, res->objective, (int)sizeof res->objective);
    res->window = info.cfg.max_seq_len;
    res->tokens = text.n_ids;
    res->unknown = text.n_unk;
    PretrainConfig c = {.objective = strcmp(res->objective, "mlm") == 0 ? PRETRAIN_MLM : PRETRAIN_CAUSAL,
                        .batch = o->batch, .seq_len = res->window};
    if (pretrain_eval_loss(&m, &c, NULL, text.ids, 0, text.n_ids, o->max_batches, &res->loss, &err)) {
        rc = args_error(CMD, "%s", err.msg);
        goto done;
    }
    if (res->loss < 0.0f) {
        rc = args_error(CMD, "%s: %ld tokens, fewer than one window of %d + 1", o->text, text.n_ids,
                        res->window);
        goto done;
    }
    long whole = (text.n_ids - 1) / res->window;
    long most = (long)o->max_batches * o->batch;
    res->windows = whole < most ? whole : most;
done:
    model_free(&m);
    encoded_text_free(&text);
    tokenizer_free(&tok);
    checkpoint_info_free(&info);
    return rc;
}

/* Print the result, and with --out write it and its manifest. 0 or 2. */
static int write_outputs(int argc, char **argv, const PerplexityOptions *o, const PerplexityResult *res)
{
    double ppl = exp((double)res->loss);
    printf("%s on %s: %ld tokens (%ld unknown), %ld windows of %d; %s loss %.4f, perplexity %.2f\n",
           o->model, o->text, res->tokens, res->unknown, res->windows, res->window,
           strcmp(res->objective, "mlm") == 0 ? "masked-token" : "next-token", res->loss, ppl);
    if (!o->out) return 0;
    cJSON *numbers = cJSON_CreateObject();
    cJSON_AddStringToObject(numbers, "objective", res->objective);
    cJSON_AddNumberToObject(numbers, "tokens", (double)res->tokens);
    cJSON_AddNumberToObject(numbers, "unknown_tokens", (double)res->unknown);
    cJSON_AddNumberToObject(numbers, "windows", (double)res->windows);
    cJSON_AddNumberToObject(numbers, "window", res->window);
    cJSON_AddNumberToObject(numbers, "loss", res->loss);
    cJSON_AddNumberToObject(numbers, "perplexity", ppl);
    char *text = cJSON_Print(numbers);
    cJSON_Delete(numbers);
    if (!text) return args_error(CMD, "out of memory");
    SrError err;
    int rc = write_file_atomic(o->out, text, &err);
    free(text);
    if (rc) return args_error(CMD, "%s", err.msg);
    cJSON *manifest = manifest_begin(argc, argv, 0);
    manifest_add_file(manifest, "model", o->model);
    manifest_add_file(manifest, "text", o->text);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    if (manifest_write(o->out, manifest, NULL, &err)) rc = args_error(CMD, "%s", err.msg);
    cJSON_Delete(manifest);
    return rc;
}

int cmd_perplexity(int argc, char **argv)
{
    PerplexityOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    PerplexityResult res = {0};
    rc = measure(&o, &res);
    return rc ? rc : write_outputs(argc, argv, &o, &res);
}
