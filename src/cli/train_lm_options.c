/* train_lm_options.c — the options of `seqrep train-lm`: the table and its
 * --help, the defaults it states, and the checks that need no file (see
 * train_lm.h). */
#include <string.h>

#include "cli/train_lm.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "train/repeat_random.h"

static const char *CMD = "train-lm";

/* With --init the size and the vocabulary come from the checkpoint: 2 after
 * the error line if one of those options was given too, else 0. */
static int check_init_options(const ArgSpec *specs, int n, const char *init)
{
    static const char *const fixed[] = {"layers", "d-model", "heads", "d-ff", "rope-theta",
                                        "untied", "lowercase", "min-count", "max-vocab"};
    if (!init) return 0;
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < sizeof fixed / sizeof fixed[0]; j++)
            if (specs[i].set && strcmp(specs[i].name, fixed[j]) == 0)
                return args_error(CMD, "--%s comes from --init %s; leave it out", fixed[j], init);
    return 0;
}

/* Check the parsed options and fill the defaults that depend on others;
 * 0, or 2 after the error line. */
static int check_options(TrainOptions *o)
{
    if (!o->init && o->repo_from != -1 && (o->repo_from < 0 || o->repo_from >= o->layers))
        return args_error(CMD, "--repo-from %d is outside 0..%d (the model's layers)", o->repo_from,
                          o->layers - 1);
    if (!o->init && o->method == REPO_METHOD_REPO && o->d_model % 8)
        return args_error(CMD, "--positions repo needs --d-model divisible by 8, got %d", o->d_model);
    if (o->d_model % o->heads)
        return args_error(CMD, "--d-model %d is not divisible by --heads %d", o->d_model, o->heads);
    if ((o->d_model / o->heads) % 2)
        return args_error(CMD, "head size --d-model/--heads = %d must be even (RoPE rotates pairs)",
                          o->d_model / o->heads);
    if (strcmp(o->tokenizer, "word") != 0 && strcmp(o->tokenizer, "bpe") != 0)
        return args_error(CMD, "--tokenizer must be word or bpe, got '%s'", o->tokenizer);
    if (o->vocab && o->init)
        return args_error(CMD, "--vocab and --init both give a vocabulary; choose one");
    if (strcmp(o->objective, "causal") != 0 && strcmp(o->objective, "mlm") != 0)
        return args_error(CMD, "--objective must be causal or mlm, got '%s'", o->objective);
    o->warmup_default = o->warmup < 0;
    if (option_settle_schedule(CMD, o->lr, o->steps, &o->min_lr, &o->warmup)) return 2;
    if (o->weight_decay < 0.0f) return args_error(CMD, "--weight-decay must not be negative");
    if (!(o->rope_theta > 0.0f)) return args_error(CMD, "--rope-theta must be positive");
    if (o->max_vocab != 0 && o->max_vocab <= TOK_N_SPECIAL)
        return args_error(CMD, "--max-vocab must be 0 or more than %d", TOK_N_SPECIAL);
    return 0;
}

/* Check the options of repeated text and snapshots (specs: the parsed
 * table, for what was given); 0, or 2 after the error line. */
static int check_repeat_options(const TrainOptions *o, const ArgSpec *specs, int n)
{
    if (!(o->repeat_share >= 0.0f && o->repeat_share < 1.0f))
        return args_error(CMD, "--repeat-share must be in [0, 1), got %g", (double)o->repeat_share);
    if (args_given(specs, n, "repeat-copies") && o->repeat_share == 0.0f)
        return args_error(CMD, "--repeat-copies needs --repeat-share above 0");
    if (!(o->repeat_random >= 0.0f && o->repeat_random < 1.0f))
        return args_error(CMD, "--repeat-random must be in [0, 1), got %g", (double)o->repeat_random);
    if (o->repeat_random > 0.0f && strcmp(o->objective, "causal") != 0)
        return args_error(CMD, "--repeat-random needs --objective causal (its first copy is "
                          "left out of a next-token loss)");
    if (o->repeat_random > 0.0f && o->seq_len < REPEAT_RANDOM_MIN_WINDOW)
        return args_error(CMD, "--repeat-random needs --seq-len %d or more (two copies of %d "
                          "pieces, each after <bos>), got %d", REPEAT_RANDOM_MIN_WINDOW,
                          REPEAT_RANDOM_MIN_PIECES, o->seq_len);
    if (o->snapshot_steps && !o->snapshots)
        return args_error(CMD, "--snapshot-steps needs --snapshots DIR");
    return 0;
}

/* The options when none is given (what --help says); -1 = derived from
 * others (warm-up, final learning rate, first RePo layer). */
static TrainOptions train_defaults(void)
{
    return (TrainOptions){.layers = 4, .d_model = 64, .heads = 4, .d_ff = 176, .seq_len = 64,
                          .batch = 16, .steps = 600, .warmup = -1, .seed = 1, .threads = 0,
                          .min_count = 1, .max_vocab = 0, .lr = 3e-3f, .min_lr = -1.0f,
                          .weight_decay = 0.1f, .clip = 1.0f, .rope_theta = 10000.0f,
                          .objective = "causal", .positions = "rope", .repo_from = -1,
                          .tokenizer = "word", .vocab_size = 2000, .repeat_copies = 2};
}

enum { RUN_ROWS = 7 }; /* the rows of run_rows */

/* The option rows (RUN_ROWS) of saving, resuming, repeated text and
 * snapshots into rows, their help lines in h. */
static void run_rows(TrainOptions *o, HelpText *h, ArgSpec *rows)
{
    const ArgSpec table[RUN_ROWS] = {
        {.name = "save-every", .type = ARG_INT, .value = &o->save_every,
         .help = help_text(h, "every N steps and at the end save --out and beside it its state "
                           "MODEL.state.safetensors, 0 = never (default %d)", o->save_every)},
        {.name = "resume", .type = ARG_FLAG, .value = &o->resume,
         .help = "continue from that state (same options; --steps may grow, the cosine then "
                 "spans the new total)"},
        {.name = "repeat-share", .type = ARG_FLOAT, .value = &o->repeat_share,
         .help = help_text(h, "share P in [0, 1) of the training sentences followed by K - 1 "
                           "more copies, each after <bos>, chosen from --seed; the held-out 5%% "
                           "is never repeated (default %g)", (double)o->repeat_share)},
        {.name = "repeat-copies", .type = ARG_INT, .value = &o->repeat_copies, .min_int = 2,
         .help = help_text(h, "K, copies of a repeated sentence; only sentences whose K copies "
                           "fit in --seq-len are repeated, and K is refused when more than 1%% "
                           "of the training sentences do not fit (the house corpus at --seq-len "
                           "512: K <= 6) (default %d)", o->repeat_copies)},
        {.name = "repeat-random", .type = ARG_FLOAT, .value = &o->repeat_random,
         .help = help_text(h, "share P in [0, 1) of the windows made of a random sequence x of "
                           "%d..%d non-special pieces and its copies, <bos> x <bos> x ..., the "
                           "first copy left out of the loss; causal only (default %g)",
                           REPEAT_RANDOM_MIN_PIECES, REPEAT_RANDOM_MAX_PIECES,
                           (double)o->repeat_random)},
        {.name = "snapshots", .type = ARG_STRING, .value = &o->snapshots,
         .help = "keep the checkpoint of each --snapshot-steps step as DIR/step-NNNNNN.safetensors "
                 "and list them in DIR/series.json (step, file, training loss, command)"},
        {.name = "snapshot-steps", .type = ARG_STRING, .value = &o->snapshot_steps,
         .help = "steps of the snapshots, e.g. 0,50,100..120 (0 = the initial weights; default: "
                 "every --save-every step and the last)"},
    };
    memcpy(rows, table, sizeof table);
}

/* After parsing (specs: the table, for what was given): --positions as a
 * method, and every check of check_init_options, check_options and
 * check_repeat_options. 0, or 2 after the error line. */
static int settle_options(const ArgSpec *specs, int n, TrainOptions *o)
{
    if (repo_method_parse(o->positions, &o->method))
        return args_error(CMD, "--positions must be rope, nope, const, hybrid or repo, got '%s'",
                          o->positions);
    if (o->repo_from != -1 && o->method != REPO_METHOD_REPO)
        return args_error(CMD, "--repo-from needs --positions repo");
    if (check_init_options(specs, n, o->init)) return 2;
    if (check_options(o)) return 2;
    return check_repeat_options(o, specs, n);
}

int train_lm_parse_options(int argc, char **argv, TrainOptions *o)
{
    *o = train_defaults();
    HelpText h = {0};
    ArgSpec model_specs[] = {
        {.name = "corpus", .type = ARG_STRING, .value = &o->corpus, .required = 1,
         .help = "text file, one sentence or line per line"},
        {.name = "objective", .type = ARG_STRING, .value = &o->objective,
         .help = "causal (next token) or mlm (masked, no mask plan)"},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "checkpoint to write (.safetensors)"},
        {.name = "layers", .type = ARG_INT, .value = &o->layers, .min_int = 1,
         .help = help_text(&h, "transformer blocks (default %d)", o->layers)},
        {.name = "d-model", .type = ARG_INT, .value = &o->d_model, .min_int = 1,
         .help = help_text(&h, "model width (default %d)", o->d_model)},
        {.name = "heads", .type = ARG_INT, .value = &o->heads, .min_int = 1,
         .help = help_text(&h, "attention heads (default %d)", o->heads)},
        {.name = "d-ff", .type = ARG_INT, .value = &o->d_ff, .min_int = 1,
         .help = help_text(&h, "SwiGLU hidden width (default %d)", o->d_ff)},
        {.name = "seq-len", .type = ARG_INT, .value = &o->seq_len, .min_int = 2,
         .help = help_text(&h, "training window and max length (default %d)", o->seq_len)},
        {.name = "batch", .type = ARG_INT, .value = &o->batch, .min_int = 1,
         .help = help_text(&h, "windows per step (default %d)", o->batch)},
        {.name = "steps", .type = ARG_INT, .value = &o->steps, .min_int = 1,
         .help = help_text(&h, "optimiser steps (default %d)", o->steps)},
        option_lr(&o->lr, help_text(&h, "peak learning rate (default %s)",
                                    help_number_e(&h, o->lr))),
        option_min_lr(&o->min_lr),
        option_warmup(&o->warmup),
        {.name = "weight-decay", .type = ARG_FLOAT, .value = &o->weight_decay,
         .help = help_text(&h, "AdamW decoupled decay (default %g)", (double)o->weight_decay)},
        {.name = "clip", .type = ARG_FLOAT, .value = &o->clip,
         .help = help_text(&h, "global gradient-norm clip, 0 = off (default %g)", (double)o->clip)},
        {.name = "rope-theta", .type = ARG_FLOAT, .value = &o->rope_theta,
         .help = help_text(&h, "RoPE base (default %g)", (double)o->rope_theta)},
        {.name = "untied", .type = ARG_FLAG, .value = &o->untied,
         .help = "separate LM head instead of the embedding"},
        {.name = "lowercase", .type = ARG_FLAG, .value = &o->lowercase,
         .help = "lower-case the corpus"},
        {.name = "tokenizer", .type = ARG_STRING, .value = &o->tokenizer,
         .help = help_text(&h, "%s (default) or bpe (byte-pair pieces)", o->tokenizer)},
        {.name = "vocab-size", .type = ARG_INT, .value = &o->vocab_size, .min_int = 8,
         .help = help_text(&h, "bpe: pieces to learn, specials included (default %d)",
                           o->vocab_size)},
        {.name = "vocab", .type = ARG_STRING, .value = &o->vocab,
         .help = "use this vocabulary file (one token per line) as it is"},
        {.name = "min-count", .type = ARG_INT, .value = &o->min_count, .min_int = 1,
         .help = help_text(&h, "keep words seen this often (default %d)", o->min_count)},
        {.name = "max-vocab", .type = ARG_INT, .value = &o->max_vocab,
         .help = help_text(&h, "largest vocabulary, 0 = all (default %d)", o->max_vocab)},
        option_seed(&o->seed, help_text(&h, "random seed (default %d)", o->seed)),
        option_threads(&o->threads),
        option_quiet(&o->quiet, "no progress output"),
        {.name = "recompute", .type = ARG_FLAG, .value = &o->recompute,
         .help = "keep each layer's input only and run each layer again in the backward: "
                 "less memory, more time, the same numbers"},
        {.name = "positions", .type = ARG_STRING, .value = &o->positions,
         .help = help_text(&h, "rope, nope, const, hybrid or repo (default %s)", o->positions)},
        {.name = "repo-from", .type = ARG_INT, .value = &o->repo_from, .min_int = -1000000,
         .help = "first RePo layer (default ceil(layers/3))"},
        {.name = "init", .type = ARG_STRING, .value = &o->init,
         .help = "continue training this checkpoint (size, vocabulary, weights)"},
    };
    ArgSpec specs[ARGS_COUNT(model_specs) + RUN_ROWS];
    memcpy(specs, model_specs, sizeof model_specs);
    run_rows(o, &h, specs + ARGS_COUNT(model_specs));
    int rc = args_parse(CMD, "--corpus FILE --out MODEL [options]", specs, ARGS_COUNT(specs), argc,
                        argv, NULL, 0, NULL);
    if (rc) return rc;
    return settle_options(specs, ARGS_COUNT(specs), o);
}
