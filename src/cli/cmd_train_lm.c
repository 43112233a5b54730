/* cmd_train_lm.c — `seqrep train-lm`: train a language model on a text
 * corpus and save it as a safetensors checkpoint.
 *
 * The objectives (causal, mlm) and the loop are train/pretrain.h's. The
 * corpus is read line by line, a word vocabulary is built from it, and the
 * lines are encoded into one stream with <bos> before each line (as Llama's tokenizer
 * does, so a repeated sentence "<bos> s <bos> s" looks like text the model has seen). Training
 * windows of seq_len + 1 tokens are drawn at random from the first 95% of the
 * stream; the last 5% is held out for a validation loss.
 *
 * Positions (--positions, see src/repo/repo_eval.h): rope, nope, const, hybrid, or
 * repo (learned positions from layer --repo-from on). --init MODEL continues
 * training a checkpoint (continued pre-training): its size and vocabulary are
 * kept, its weights copied, and RePo weights it lacks start at Normal(0, 0.02).
 *
 * Resuming (--save-every N, --resume): every N steps, and after the last, the
 * run writes its training state (formats/train_state.h) to OUT's name with
 * the extension replaced by .state.safetensors, then the checkpoint OUT
 * itself (usable at once; its manifest has "saved_at_step"). The state holds
 * the weights, the AdamW moments, the step, the one Rng of window choices and
 * mlm corruption, and the settings: the options that must not change (model
 * size, corpus and vocabulary checksums, seed, batch, seq-len, objective,
 * positions, schedule, tokenizer) plus steps and threads. --resume with the
 * same options continues after the saved step; the weights then equal those
 * of an uninterrupted run bit for bit (same threads). --steps may be raised:
 * the cosine decay is then recomputed over the new total from the saved step
 * on (the warm-up stays the saved one unless --warmup is given). SIGINT,
 * SIGTERM and SIGHUP during a saving run stop it after the current step with
 * a save.
 *
 * Repeated text: --repeat-share (train/repeat_stream.h, after the held-out
 * split) and --repeat-random (train/repeat_random.h); at 0 the run is the run
 * without them, bit for bit. Snapshots: runs/snapshot_series.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/job/interrupt.h"
#include "cli/common/cli_common.h"
#include "cli/commands.h"
#include "engine/model.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "formats/train_state.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repo/repo_eval.h"
#include "runs/manifest.h"
#include "runs/run_settings.h"
#include "runs/snapshot_series.h"
#include "text/tokenizer.h"
#include "train/pretrain.h"
#include "train/repeat_random.h"
#include "train/repeat_stream.h"

static const char *CMD = "train-lm";

typedef struct {
    const char *corpus, *out, *objective, *positions, *init, *tokenizer, *vocab;
    const char *snapshots, *snapshot_steps; /* NULL: no snapshots; default steps */
    int layers, d_model, heads, d_ff, seq_len, batch, steps, warmup, seed, threads, repo_from;
    int min_count, max_vocab, lowercase, untied, quiet, vocab_size;
    int save_every, resume, warmup_default; /* warmup_default: --warmup not given */
    float lr, min_lr, weight_decay, clip, rope_theta;
    float repeat_share, repeat_random; /* P of the repeated sentences, of the random windows */
    int repeat_copies;                 /* K */
    RepoMethod method;  /* --positions, parsed */
} TrainOptions;

/* What one run holds: the vocabulary and the encoded corpus, the --init
 * checkpoint, the model being trained and its positions. */
typedef struct {
    Tokenizer tok;
    EncodedText text;
    RepeatedStream repeated; /* with --repeat-share: the stream with repeated sentences */
    RepeatCounts counts;     /* with --repeat-share: the sentences repeated */
    const int *ids;          /* the stream trained on: text.ids, or repeated.ids */
    long n_ids;
    long n_train;       /* tokens of the training part (the first 95% of text, its
                           repeated sentences added) */
    int *snapshot_steps; /* (n_snapshots) ascending, with --snapshots */
    int n_snapshots;
    Model base;         /* the --init checkpoint */
    Model m;
    RepoRun positions;
    PretrainResult result;
    float val_loss;     /* -1: none */
    char *state_path;   /* OUT.state.safetensors, with --save-every or --resume */
    char *settings;     /* the settings of this run (JSON object text) */
    PretrainState from; /* with --resume: where the saved run stands */
} TrainRun;

/* Load a vocabulary file into tok, in subword mode when asked. */
static int tokenizer_load_vocab(Tokenizer *tok, const char *path, int lowercase, int subword,
                                SrError *err)
{
    if (tokenizer_load(tok, path, lowercase, err)) return -1;
    if (subword) tokenizer_set_subword(tok, 1);
    return 0;
}

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

/* Parse options; returns 0, 1 (help shown) or 2 (error printed). */
static int parse_options(int argc, char **argv, TrainOptions *o)
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
    if (repo_method_parse(o->positions, &o->method))
        return args_error(CMD, "--positions must be rope, nope, const, hybrid or repo, got '%s'",
                          o->positions);
    if (o->repo_from != -1 && o->method != REPO_METHOD_REPO)
        return args_error(CMD, "--repo-from needs --positions repo");
    if (check_init_options(specs, ARGS_COUNT(specs), o->init)) return 2;
    if (check_options(o)) return 2;
    return check_repeat_options(o, specs, ARGS_COUNT(specs));
}

/* The stream to train on: the corpus as encoded, or with --repeat-share its
 * chosen training sentences repeated (after checking that --repeat-copies
 * fits the window). 0, or 2 after the error line. */
static int repeat_sentences(const TrainOptions *o, TrainRun *run)
{
    run->ids = run->text.ids;
    run->n_ids = run->text.n_ids;
    if (o->repeat_random > 0.0f && run->tok.n_words <= TOK_N_SPECIAL)
        return args_error(CMD, "--repeat-random needs a vocabulary with words beside the specials");
    if (o->repeat_share == 0.0f) return 0;
    long longest = 0;
    int most = repeat_stream_max_copies(&run->text, run->n_train, o->seq_len, &longest);
    if (o->repeat_copies > most)
        return args_error(CMD, "--repeat-copies %d: 99%% of the training sentences of %s fit in "
                          "--seq-len %d only %d times (the longest of them has %ld tokens with "
                          "<bos>); give at most %d or a longer --seq-len", o->repeat_copies,
                          o->corpus, o->seq_len, most, longest, most);
    RepeatSettings rs = {.share = o->repeat_share, .copies = o->repeat_copies,
                         .window = o->seq_len, .seed = (uint64_t)o->seed};
    SrError err;
    if (repeat_stream_make(&run->text, run->n_train, &rs, &run->repeated, &run->counts, &err))
        return args_error(CMD, "%s", err.msg);
    run->ids = run->repeated.ids;
    run->n_ids = run->repeated.n_ids;
    run->n_train = run->repeated.n_train;
    return 0;
}

/* The vocabulary (from --init, --vocab, or built from the corpus as word or
 * bpe) and the encoded corpus, with the --init checkpoint into run->base.
 * 0, or 2 after the error line. */
static int load_corpus(const TrainOptions *o, TrainRun *run)
{
    SrError err;
    int bpe = strcmp(o->tokenizer, "bpe") == 0;
    if ((o->init ? repo_load_model(o->init, REPO_METHOD_ROPE, 1, 1, &run->base, &run->tok, NULL, &err)
                 : o->vocab ? tokenizer_load_vocab(&run->tok, o->vocab, o->lowercase, bpe, &err)
                 : bpe ? tokenizer_build_bpe_from_file(&run->tok, o->corpus, o->vocab_size,
                                                       o->lowercase, &err)
                       : tokenizer_build_from_file(&run->tok, o->corpus, o->min_count, o->max_vocab,
                                                   o->lowercase, &err)) ||
        tokenizer_encode_file(&run->tok, o->corpus, TOK_BOS, &run->text, &err))
        return args_error(CMD, "%s", err.msg);
    const EncodedText *text = &run->text;
    if (o->init && text->n_unk == text->n_ids - text->n_lines)
        return args_error(CMD, "%s shares no word with the vocabulary of --init %s", o->corpus,
                          o->init);
    run->n_train = text->n_ids - text->n_ids / 20;
    if (run->n_train < o->seq_len + 2)
        return args_error(CMD, "%s: corpus has %ld tokens, too few for --seq-len %d "
                          "(need at least %d in the training part)", o->corpus, text->n_ids,
                          o->seq_len, o->seq_len + 2);
    return repeat_sentences(o, run);
}

/* The model to train: new with the options' size, or --init's size and
 * weights; RePo weights it lacks at Normal(0, 0.02); and its positions.
 * 0, or 2 after the error line. */
static int build_model(const TrainOptions *o, TrainRun *run)
{
    SrError err;
    const Model *base = &run->base;
    ModelConfig cfg = {.vocab_size = run->tok.n_words, .d_model = o->d_model, .n_layers = o->layers,
                       .n_heads = o->heads, .d_ff = o->d_ff, .max_seq_len = o->seq_len,
                       .rope_theta = o->rope_theta, .norm_eps = 1e-5f, .tied = !o->untied};
    int repo_from = o->repo_from;
    if (o->init) {
        cfg = base->cfg;
        if (cfg.max_seq_len < o->seq_len) cfg.max_seq_len = o->seq_len;
        if (base->cfg.repo && (o->method != REPO_METHOD_REPO ||
                               (repo_from != -1 && repo_from != base->cfg.repo_from)))
            return args_error(CMD, "--init %s has RePo layers from %d; continue it with "
                              "--positions repo --repo-from %d", o->init, base->cfg.repo_from,
                              base->cfg.repo_from);
        if (base->cfg.repo) repo_from = base->cfg.repo_from;
    }
    if (repo_method_config(o->method, repo_from, &cfg, &err) ||
        model_create(&run->m, &cfg, o->batch, o->seq_len, &err))
        return args_error(CMD, "%s", err.msg);
    model_init_weights(&run->m, (unsigned long long)o->seed); /* RePo weights: Normal(0, 0.02) */
    if ((o->init && repo_copy_shared_weights(&run->m, base, &err)) ||
        repo_run_init(&run->positions, o->method, &run->m, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* ---- resuming ------------------------------------------------------------ */

/* The settings of this run, keyed by option name (all values text): what
 * must not change on resuming (the size as the model cfg has it, which
 * --init may have chosen), then steps, threads and save-every, which may.
 * JSON object text (caller frees), NULL when out of memory. */
static char *run_settings(const TrainOptions *o, const ModelConfig *cfg)
{
    cJSON *s = cJSON_CreateObject();
    if (!s) return NULL;
    run_settings_add_file(s, "corpus", o->corpus);
    run_settings_add_file(s, "init", o->init);
    run_settings_add_file(s, "vocab", o->vocab);
    run_settings_add_text(s, "objective", o->objective);
    run_settings_add_text(s, "positions", repo_method_name(o->method));
    run_settings_add_text(s, "tokenizer", o->tokenizer);
    const char *int_names[] = {"layers", "d-model", "heads", "d-ff", "seq-len", "batch", "seed",
                               "warmup", "repo-from", "untied", "lowercase", "vocab-size",
                               "min-count", "max-vocab"};
    const int ints[] = {cfg->n_layers, cfg->d_model, cfg->n_heads, cfg->d_ff, o->seq_len, o->batch,
                        o->seed, o->warmup, cfg->repo ? cfg->repo_from : -1, !cfg->tied,
                        o->lowercase, o->vocab_size, o->min_count, o->max_vocab};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        run_settings_add_int(s, int_names[i], ints[i]);
    const char *float_names[] = {"lr", "min-lr", "weight-decay", "clip", "rope-theta"};
    const float floats[] = {o->lr, o->min_lr, o->weight_decay, o->clip, cfg->rope_theta};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
        run_settings_add_float(s, float_names[i], floats[i]);
    if (o->repeat_share > 0.0f) { /* absent at 0: the settings of a run before them */
        run_settings_add_float(s, "repeat-share", o->repeat_share);
        run_settings_add_int(s, "repeat-copies", o->repeat_copies);
    }
    if (o->repeat_random > 0.0f) run_settings_add_float(s, "repeat-random", o->repeat_random);
    run_settings_add_int(s, "steps", o->steps);
    run_settings_add_int(s, "threads", threads_count());
    run_settings_add_int(s, "save-every", o->save_every);
    char *text = cJSON_PrintUnformatted(s);
    cJSON_Delete(s);
    return text;
}

/* Take from the saved settings what this run left to its defaults: the
 * warm-up (its default follows --steps, which may have grown) and the save
 * interval. */
static void adopt_saved_settings(TrainOptions *o, const cJSON *saved)
{
    const char *warmup = run_settings_get(saved, "warmup");
    const char *every = run_settings_get(saved, "save-every");
    if (o->warmup_default && warmup) o->warmup = atoi(warmup);
    if (o->save_every == 0 && every) o->save_every = atoi(every);
}

/* 0 when this run's settings (now) agree with the saved ones, else 2 after
 * one line naming the first option that differs. --steps may only grow;
 * other threads only earn a note (the weights may then differ in the last bits). */
static int check_settings(const TrainOptions *o, const char *state_path, const cJSON *saved,
                          const cJSON *now)
{
    static const char *const may_change[] = {"steps", "threads", "save-every"};
    const char *key = run_settings_first_change(saved, now, may_change, 3);
    if (key) {
        const char *here = run_settings_get(now, key), *was = run_settings_get(saved, key);
        return args_error(CMD, "--resume: --%s is %s here but %s in the saved run %s; resume "
                          "with the same options", key, here ? here : "not given",
                          was ? was : "not recorded", state_path);
    }
    const char *steps = run_settings_get(saved, "steps");
    const char *threads = run_settings_get(saved, "threads");
    if (!steps || o->steps < atoi(steps))
        return args_error(CMD, "--resume: --steps %d is below the %s steps of the saved run %s; "
                          "it may only be raised", o->steps, steps ? steps : "(unknown)", state_path);
    if (!o->quiet && threads && atoi(threads) != threads_count())
        fprintf(stderr, "note: resuming with %d threads, the saved run had %s: the weights may "
                "differ in the last bits from an uninterrupted run\n", threads_count(), threads);
    return 0;
}

/* With --resume: read the state, check its settings against the options
 * (adopting the saved warm-up and interval they left to defaults), put its
 * weights and moments into run->m and its step and Rng into run->from;
 * run->settings gets this run's settings. 0, or 2 after the error line. */
static int load_state(TrainOptions *o, TrainRun *run)
{
    SrError err;
    FILE *f = fopen(run->state_path, "rb");
    if (!f)
        return args_error(CMD, "--resume: no training state %s to resume (a run with "
                          "--save-every N writes it)", run->state_path);
    fclose(f);
    TrainState st;
    if (train_state_read(run->state_path, &st, &err)) return args_error(CMD, "%s", err.msg);
    cJSON *saved = cJSON_Parse(st.settings_json), *now = NULL;
    int rc = cJSON_IsObject(saved) ? 0
             : args_error(CMD, "%s: damaged training state (settings)", run->state_path);
    if (rc == 0) {
        adopt_saved_settings(o, saved);
        run->settings = run_settings(o, &run->m.cfg);
        now = run->settings ? cJSON_Parse(run->settings) : NULL;
        rc = now ? check_settings(o, run->state_path, saved, now) : args_error(CMD, "out of memory");
    }
    if (rc == 0 && train_state_apply(&st, &run->m, &err))
        rc = args_error(CMD, "%s: %s", run->state_path, err.msg);
    if (rc == 0) run->from = (PretrainState){.step = st.step, .rng = st.rng, .loss = st.loss};
    cJSON_Delete(saved);
    cJSON_Delete(now);
    train_state_free(&st);
    return rc;
}

/* With --save-every or --resume: the state's name beside --out, and the
 * saved state (--resume) or this run's settings. 0, or 2 after the error line. */
static int prepare_saving(TrainOptions *o, TrainRun *run)
{
    if (o->save_every == 0 && !o->resume) return 0;
    run->state_path = path_with_suffix(o->out, ".state.safetensors");
    if (!run->state_path) return args_error(CMD, "out of memory");
    if (o->resume) return load_state(o, run);
    run->settings = run_settings(o, &run->m.cfg);
    return run->settings ? 0 : args_error(CMD, "out of memory");
}

/* The pre-training configuration of the options. */
static PretrainConfig pretrain_config(const TrainOptions *o)
{
    return (PretrainConfig){.objective = strcmp(o->objective, "mlm") == 0 ? PRETRAIN_MLM
                                                                          : PRETRAIN_CAUSAL,
                            .steps = o->steps, .batch = o->batch, .seq_len = o->seq_len,
                            .warmup = o->warmup, .lr = o->lr, .min_lr = o->min_lr,
                            .weight_decay = o->weight_decay, .clip = o->clip,
                            .seed = (uint64_t)o->seed,
                            .progress_every = o->steps / 20 > 0 ? o->steps / 20 : 1};
}

/* The manifest stored in the checkpoint: the command, the corpus and what
 * the run did; saved_at > 0 marks a checkpoint saved at that step of a run
 * still going, snapshot >= 0 the snapshot of that step. */
static cJSON *train_manifest(int argc, char **argv, const TrainOptions *o, const TrainRun *run,
                             int saved_at, int snapshot)
{
    cJSON *manifest = manifest_begin(argc, argv, (unsigned long long)o->seed);
    manifest_add_file(manifest, "corpus", o->corpus);
    cJSON_AddStringToObject(manifest, "objective",
                            strcmp(o->objective, "mlm") == 0 ? "mlm" : "causal-lm");
    cJSON_AddStringToObject(manifest, "tokenizer", run->tok.subword ? "bpe" : "word");
    cJSON_AddNumberToObject(manifest, "corpus_tokens", (double)run->text.n_ids);
    cJSON_AddBoolToObject(manifest, "lowercase", run->tok.lowercase);
    cJSON_AddStringToObject(manifest, "positions", repo_method_name(o->method));
    if (run->m.cfg.repo) cJSON_AddNumberToObject(manifest, "repo_from", run->m.cfg.repo_from);
    if (o->init) manifest_add_file(manifest, "init", o->init);
    cJSON_AddNumberToObject(manifest, "steps", o->steps);
    cJSON_AddNumberToObject(manifest, "batch", o->batch);
    cJSON_AddNumberToObject(manifest, "seq_len", o->seq_len);
    cJSON_AddNumberToObject(manifest, "lr", o->lr);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    if (o->repeat_share > 0.0f) {
        cJSON_AddNumberToObject(manifest, "repeat_share", o->repeat_share);
        cJSON_AddNumberToObject(manifest, "repeat_copies", o->repeat_copies);
        cJSON_AddNumberToObject(manifest, "training_sentences", (double)run->counts.sentences);
        cJSON_AddNumberToObject(manifest, "repeated_sentences", (double)run->counts.repeated);
        cJSON_AddNumberToObject(manifest, "stream_tokens", (double)run->n_ids);
    }
    if (o->repeat_random > 0.0f) cJSON_AddNumberToObject(manifest, "repeat_random", o->repeat_random);
    if (run->result.steps_done > 0)
        cJSON_AddNumberToObject(manifest, "final_train_loss", run->result.final_loss);
    if (run->val_loss >= 0.0f) cJSON_AddNumberToObject(manifest, "val_loss", run->val_loss);
    cJSON_AddNumberToObject(manifest, "train_seconds", run->result.seconds);
    if (o->save_every > 0) cJSON_AddNumberToObject(manifest, "save_every", o->save_every);
    if (saved_at > 0) cJSON_AddNumberToObject(manifest, "saved_at_step", saved_at);
    if (snapshot >= 0) cJSON_AddNumberToObject(manifest, "snapshot_step", snapshot);
    if (o->resume) cJSON_AddNumberToObject(manifest, "resumed_from_step", run->from.step);
    return manifest;
}

/* Write the checkpoint of m to path with its vocabulary and manifest
 * (saved_at and snapshot as in train_manifest). 0 or -1 with err filled. */
static int write_checkpoint(int argc, char **argv, const TrainOptions *o, const TrainRun *run,
                            const Model *m, const char *path, int saved_at, int snapshot,
                            SrError *err)
{
    cJSON *manifest = train_manifest(argc, argv, o, run, saved_at, snapshot);
    char *manifest_text = manifest ? cJSON_PrintUnformatted(manifest) : NULL;
    int rc = manifest_text ? checkpoint_save(path, m, (const char *const *)run->tok.words,
                                             run->tok.n_words, manifest_text, err)
                           : sr_fail(err, "out of memory");
    free(manifest_text);
    cJSON_Delete(manifest);
    return rc;
}

/* Write the final checkpoint. 0, or 2 after the error line. */
static int save_checkpoint(int argc, char **argv, const TrainOptions *o, const TrainRun *run)
{
    SrError err;
    if (write_checkpoint(argc, argv, o, run, &run->m, o->out, 0, -1, &err))
        return args_error(CMD, "%s", err.msg);
    if (!o->quiet) fprintf(stderr, "saved %s\n", o->out);
    return 0;
}

/* What a save during the run needs, and the step of the last save. */
typedef struct {
    int argc;
    char **argv;
    const TrainOptions *o;
    const TrainRun *run;
    int saved_at; /* 0: none yet (with --resume: the saved step resumed from) */
} SaveContext;

/* PretrainSaveFn: the state first, then (before the last step, after which
 * the final checkpoint follows) the checkpoint, so that a failed write leaves
 * the previous checkpoint as it was. */
static int save_during_run(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    SaveContext *sc = ctx;
    const TrainRun *run = sc->run;
    if (train_state_save(run->state_path, m, st->step, &st->rng, st->loss, run->settings, err))
        return -1;
    if (st->step < sc->o->steps &&
        write_checkpoint(sc->argc, sc->argv, sc->o, run, m, sc->o->out, st->step, -1, err))
        return -1;
    sc->saved_at = st->step;
    return 0;
}

/* ---- snapshots ----------------------------------------------------------- */

/* The steps of the snapshots (run->snapshot_steps, ascending): --snapshot-steps,
 * or every --save-every step and the last. 0, or 2 after the error line. */
static int plan_snapshots(const TrainOptions *o, TrainRun *run)
{
    SrError err;
    if (!o->snapshots) return 0;
    if (!o->snapshot_steps && o->save_every < 1)
        return args_error(CMD, "--snapshots needs --snapshot-steps or --save-every");
    if (snapshot_steps_plan(o->snapshot_steps, o->save_every, o->steps, &run->snapshot_steps,
                            &run->n_snapshots, &err))
        return args_error(CMD, "--snapshot-steps: %s", err.msg);
    return 0;
}

/* Write the snapshot of m at step to DIR/step-NNNNNN.safetensors and record
 * it in DIR/series.json (has_loss 0: no training loss yet). 0 or -1. */
static int write_snapshot(const SaveContext *sc, const Model *m, int step, int has_loss,
                          float loss, SrError *err)
{
    const TrainOptions *o = sc->o;
    char *path = snapshot_path(o->snapshots, step);
    cJSON *head = manifest_begin(sc->argc, sc->argv, (unsigned long long)o->seed);
    int rc = path && head ? 0 : sr_fail(err, "out of memory");
    if (rc == 0)
        rc = write_checkpoint(sc->argc, sc->argv, o, sc->run, m, path,
                              step < o->steps ? step : 0, step, err);
    if (rc == 0) rc = snapshot_series_add(o->snapshots, head, o->steps, step, has_loss, loss, err);
    free(path);
    cJSON_Delete(head);
    return rc;
}

/* PretrainSaveFn after every step: the snapshot, when the step is one. */
static int snapshot_after_step(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    const SaveContext *sc = ctx;
    const TrainRun *run = sc->run;
    if (!snapshot_steps_has(run->snapshot_steps, run->n_snapshots, st->step)) return 0;
    return write_snapshot(sc, m, st->step, 1, st->loss, err);
}

/* Before the loop: the snapshot folder, the snapshot of step 0 in a new run,
 * and a note for each snapshot a resumed run is past and did not find.
 * 0, or 2 after the error line. */
static int start_snapshots(const SaveContext *sc)
{
    const TrainOptions *o = sc->o;
    const TrainRun *run = sc->run;
    SrError err;
    if (!o->snapshots) return 0;
    if (snapshot_series_check(o->snapshots, &err) || snapshot_dir_make(o->snapshots, &err))
        return args_error(CMD, "--snapshots %s", err.msg);
    for (int i = 0; i < run->n_snapshots; i++) {
        int step = run->snapshot_steps[i];
        if (step > (o->resume ? run->from.step : 0)) break;
        if (!o->resume && write_snapshot(sc, &run->m, 0, 0, 0.0f, &err))
            return args_error(CMD, "%s", err.msg);
        if (o->resume && !snapshot_exists(o->snapshots, step) && !o->quiet)
            fprintf(stderr, "note: snapshot step %d is not in %s, and a run resumed at step %d "
                    "cannot make it\n", step, o->snapshots, run->from.step);
    }
    if (!o->quiet)
        fprintf(stderr, "snapshots: %d steps into %s/\n", run->n_snapshots, o->snapshots);
    return 0;
}

/* Set by SIGINT, SIGTERM or SIGHUP during a saving run: stop after the
 * step (a second signal acts as usual, base/job/interrupt.h). */
static volatile sig_atomic_t stop_requested = 0;

/* The run stopped at a step whose loss, gradients or weights were not
 * finite (why: the message naming them): one line with the learning rate of
 * that step and what is left of the run. Returns 2. */
static int diverged(const TrainOptions *o, const TrainRun *run, const SaveContext *sc,
                    const char *why)
{
    char left[2200];
    if (sc->saved_at > 0)
        snprintf(left, sizeof left, "the last save, step %d, is in %s and %s", sc->saved_at,
                 o->out, run->state_path);
    else
        snprintf(left, sizeof left, "nothing was saved (%s is as it was)", o->out);
    return args_error(CMD, "%s at learning rate %g (try a lower --lr); %s", why,
                      (double)run->result.diverged_lr, left);
}

/* The lines train prints before the loop: the corpus, the model, what is
 * repeated, resuming and saving. */
static void report_start(const TrainOptions *o, const TrainRun *run)
{
    fprintf(stderr, "corpus %s: %ld lines, %ld tokens, vocabulary %d (%ld unknown)\n"
            "model: %d layers, d_model %d, %d heads, d_ff %d, %zu parameters; "
            "batch %d x %d, %d steps, %d threads\n",
            o->corpus, run->text.n_lines, run->text.n_ids, run->tok.n_words, run->text.n_unk,
            o->layers, o->d_model, o->heads, o->d_ff, run->m.n_params, o->batch, o->seq_len,
            o->steps, threads_count());
    if (o->repeat_share > 0.0f)
        fprintf(stderr, "repeated text: %ld of %ld training sentences written %d times (%ld fit "
                "%d times in %d tokens); training part %ld tokens instead of %ld\n",
                run->counts.repeated, run->counts.sentences, o->repeat_copies,
                run->counts.candidates, o->repeat_copies, o->seq_len, run->n_train,
                run->n_train - (run->n_ids - run->text.n_ids));
    if (o->repeat_random > 0.0f)
        fprintf(stderr, "random windows: a share %g of the windows repeats a random sequence of "
                "%d..%d pieces\n", (double)o->repeat_random, REPEAT_RANDOM_MIN_PIECES,
                REPEAT_RANDOM_MAX_PIECES);
    if (o->resume)
        fprintf(stderr, "resuming %s at step %d/%d\n", run->state_path, run->from.step, o->steps);
    if (o->save_every > 0)
        fprintf(stderr, "saving every %d steps: %s and %s\n", o->save_every, o->out, run->state_path);
}

/* The optimiser loop on the training part of the stream (its windows, and
 * with --repeat-random random ones), saving as --save-every asks and keeping
 * the snapshots, from the saved step with --resume. 0, or 2 after the error
 * line (also when stopped by a signal). */
static int run_loop(int argc, char **argv, const TrainOptions *o, TrainRun *run,
                    const PretrainConfig *c, const PretrainPositions *pos)
{
    SrError err;
    RepeatRandomSource random = {.stream = {.ids = run->ids, .lo = 0, .hi = run->n_train},
                                 .share = o->repeat_random, .vocab_size = run->tok.n_words};
    SaveContext sc = {.argc = argc, .argv = argv, .o = o, .run = run,
                      .saved_at = o->resume ? run->from.step : 0};
    PretrainSaving saving = {.every = o->save_every, .save = save_during_run, .ctx = &sc,
                             .from = o->resume ? &run->from : NULL, .stop = &stop_requested,
                             .after_step = o->snapshots ? snapshot_after_step : NULL};
    if (start_snapshots(&sc)) return 2;
    if (o->save_every > 0) interrupt_notify(&stop_requested, 1);
    if (pretrain_run_saving(&run->m, c, pos,
                            o->repeat_random > 0.0f ? repeat_random_batch : pretrain_stream_batch,
                            o->repeat_random > 0.0f ? (void *)&random : (void *)&random.stream,
                            o->save_every > 0 || o->resume || o->snapshots ? &saving : NULL,
                            o->quiet ? NULL : stderr, &run->result, &err))
        return run->result.diverged_at ? diverged(o, run, &sc, err.msg)
                                       : args_error(CMD, "%s", err.msg);
    if (run->result.steps_done < o->steps)
        return args_error(CMD, "stopped at step %d/%d by %s; saved %s and %s, continue with "
                          "--resume (the same command with --resume added)",
                          run->result.steps_done, o->steps,
                          interrupt_signal_name(interrupt_last_signal()), o->out, run->state_path);
    return 0;
}

/* Train on the training part of the stream (run_loop), then measure the
 * loss on the held-out rest (at most 50 batches). 0, or 2 after the error
 * line. */
static int train(int argc, char **argv, const TrainOptions *o, TrainRun *run)
{
    SrError err;
    if (!o->quiet) report_start(o, run);
    PretrainConfig c = pretrain_config(o);
    PretrainPositions pos = {run->positions.plan, run->positions.zeros};
    int rc = run_loop(argc, argv, o, run, &c, &pos);
    if (rc) return rc;
    if (pretrain_eval_loss(&run->m, &c, &pos, run->ids, run->n_train, run->n_ids, 50,
                           &run->val_loss, &err))
        run->val_loss = -1.0f; /* no held-out loss, as when the held-out part is too short */
    if (!o->quiet && run->val_loss >= 0.0f)
        fprintf(stderr, "validation loss %.4f (held-out last 5%%)\n", run->val_loss);
    if (!o->quiet) cli_report_memory(CMD, &run->m, run->m.n_params, 0, 1);
    return 0;
}

int cmd_train_lm(int argc, char **argv)
{
    TrainOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    TrainRun run = {.val_loss = -1.0f};
    rc = load_corpus(&o, &run);
    if (rc == 0) rc = build_model(&o, &run);
    if (rc == 0) rc = prepare_saving(&o, &run);
    if (rc == 0) rc = plan_snapshots(&o, &run);
    if (rc == 0) rc = train(argc, argv, &o, &run);
    if (rc == 0) rc = save_checkpoint(argc, argv, &o, &run);
    repo_run_free(&run.positions);
    model_free(&run.base);
    model_free(&run.m);
    encoded_text_free(&run.text);
    repeated_stream_free(&run.repeated);
    free(run.snapshot_steps);
    tokenizer_free(&run.tok);
    free(run.state_path);
    free(run.settings);
    return rc;
}
