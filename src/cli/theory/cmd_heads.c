/* cmd_heads.c — `seqrep heads --model FILE (--data FILE | --random N) --out
 * FILE`: run a model on every sentence of a data set (or on random pieces)
 * repeated k = r + 1 times and score, per layer and head, the role each head
 * plays for the queries of the last copy: copy, induction, previous token,
 * sink, own copy (theory/heads.h). With --random, also the in-context
 * learning score: the loss on the first copy minus the loss on the last
 * (theory/head_roles.h). The reading is data/piece_sentences.c and the loop
 * over the sentences theory/repeated_forward.c, both shared with `attnflow`;
 * this file parses, draws the random pieces, prints and writes.
 *
 * Unlike attnflow, heads skips no sentence that is too long for the model's
 * context: it stops with an error naming the file and the sentence's line,
 * so a score is always over the whole data set asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "base/rng.h"
#include "cli/common/cli_common.h"
#include "cli/theory/theory_commands.h"
#include "data/piece_sentences.h"
#include "engine/threads.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"
#include "label/readout.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"
#include "theory/head_roles.h"
#include "theory/heads.h"
#include "theory/repeated_forward.h"

static const char *CMD = "heads";

/* Where the random sequences are said to come from in messages. */
static const char *RANDOM_SOURCE = "--random";

/* The options of `seqrep heads`, as given and as parsed. */
typedef struct {
    const char *model, *adapter, *data, *out, *bos_text, *sep_text, *mask_text, *positions_text;
    int r, as_text, max_sentences, threads;
    int random_n, sequences, seed; /* random_n 0 = --data */
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
} HeadsOptions;

/* Everything a run holds: the checkpoint, its tokenizer and mask plan, the
 * sentences or random sequences (as pieces), how they are run and which
 * fit, the model and the accumulated scores. */
typedef struct {
    CheckpointInfo info;
    Tokenizer tok;
    MaskKind *plan; /* (n_layers) */
    PieceSentences sentences;
    RepeatedForward setup;
    RepeatedFit fit;
    Model model;
    HeadRoles roles;
} HeadsRun;

/* The checks args_parse cannot make: exactly one of --data and --random,
 * the options of one mode not given with the other, r >= 1. 0 or 2 after
 * the error line. */
static int check_modes(const ArgSpec *specs, int n, const HeadsOptions *o)
{
    int data = args_given(specs, n, "data"), random = args_given(specs, n, "random");
    if (data == random)
        return args_error(CMD, data ? "give --data or --random, not both"
                                    : "missing --data FILE or --random N (what to run the model on)");
    if (random && (o->as_text || args_given(specs, n, "max-sentences")))
        return args_error(CMD, "--%s goes with --data, not --random",
                          o->as_text ? "text" : "max-sentences");
    if (data && (args_given(specs, n, "sequences") || args_given(specs, n, "seed")))
        return args_error(CMD, "--%s goes with --random, not --data",
                          args_given(specs, n, "sequences") ? "sequences" : "seed");
    if (o->r < 1)
        return args_error(CMD, "--r must be at least 1 (the scores look back from the last copy to "
                               "the copy before it), got %d", o->r);
    return 0;
}

/* Parse argv into o: 0, 1 after --help, 2 after the error line. */
static int parse_options(int argc, char **argv, HeadsOptions *o)
{
    *o = (HeadsOptions){.sep_text = "none", .mask_text = "causal", .positions_text = "run",
                        .r = 1, .sequences = 100, .seed = 1};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "checkpoint (.safetensors) or Hugging Face model folder"},
        option_adapter_file(&o->adapter, NULL),
        {.name = "data", .type = ARG_STRING, .value = &o->data,
         .help = "CoNLL file (first column = word), or text with --text; or --random"},
        {.name = "text", .type = ARG_FLAG, .value = &o->as_text,
         .help = "--data has one sentence per line"},
        {.name = "random", .type = ARG_INT, .value = &o->random_n, .min_int = 1,
         .help = "instead of --data: sequences of N pieces drawn uniformly from the tokenizer's "
                 "ids that are not special tokens (the induction test; adds the ICL score)"},
        {.name = "sequences", .type = ARG_INT, .value = &o->sequences, .min_int = 1,
         .help = help_text(&h, "with --random: how many sequences (default %d)", o->sequences)},
        option_seed(&o->seed,
                    help_text(&h, "with --random: seed of the pieces (default %d)", o->seed)),
        {.name = "r", .type = ARG_INT, .value = &o->r, .min_int = -2147483647,
         .help = help_text(&h, "repetitions: k = r + 1 copies, r >= 1 (default %d)", o->r)},
        option_bos(&o->bos_text, "none | once | per-copy (default per-copy, as the paper and "
                                 "train-lm; none when the tokenizer adds no BOS)"),
        option_sep(&o->sep_text, help_text(&h, "none | token: a <sep> between copies (default %s)",
                                           o->sep_text)),
        option_copy_positions(&o->positions_text),
        option_mask(&o->mask_text, help_text(&h, "mask plan: causal | middle | full | layer list "
                                             "(default %s)", o->mask_text)),
        {.name = "max-sentences", .type = ARG_INT, .value = &o->max_sentences,
         .help = help_text(&h, "use only the first N sentences, 0 = all (default %d)",
                           o->max_sentences)},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "CSV to write (atomically, with a manifest): layer,head,copy,induction,previous,"
                 "sink,own_copy; induction leaves out the last piece of a copy (no piece after it)"},
        option_threads(&o->threads),
    };
    int rc = args_parse(CMD, "--model FILE [--adapter FILE] (--data FILE [--text] | --random N "
                             "[--sequences S] [--seed X]) [--r R] [--bos B] [--sep S] [--mask PLAN] "
                             "--out FILE",
                        specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (check_modes(specs, ARGS_COUNT(specs), o)) return 2;
    if (o->bos_text && option_parse_bos(CMD, o->bos_text, &o->bos)) return 2;
    if (option_parse_sep(CMD, o->sep_text, &o->sep)) return 2;
    if (option_parse_copy_positions(CMD, o->positions_text, &o->copy_positions)) return 2;
    return 0;
}

/* Read the checkpoint's description and tokenizer and the mask plan; settle
 * o->bos for the tokenizer (readout_choose_bos) and how sentences are run.
 * 0 or 2 after the error line. */
static int load_checkpoint(HeadsOptions *o, HeadsRun *run)
{
    if (cli_load_checkpoint(CMD, o->model, o->bos_text, o->sep, o->mask_text, &run->info, &run->tok,
                            &o->bos, &run->plan))
        return 2;
    run->setup = (RepeatedForward){.r = o->r, .bos = o->bos, .sep = o->sep,
                                   .copy_positions = o->copy_positions,
                                   .ids = readout_repeat_ids(&run->tok), .plan = run->plan};
    return 0;
}

/* 1 if id is a piece random sequences may use: not one of the tokenizer's
 * special tokens (tokenizer_specials; the six fixed specials of a house
 * tokenizer; for a Hugging Face one, an id that decodes to nothing once
 * special tokens are skipped: its added special tokens and ids without a
 * spelling). */
static int is_plain_piece(const Tokenizer *tok, TokenizerSpecials sp, int id)
{
    if (id == sp.bos || id == sp.eos || id == sp.sep || id == sp.pad) return 0;
    if (!tok->hf) return id >= TOK_N_SPECIAL;
    char *text = tokenizer_decode(tok, &id, 1, TOKENIZER_DECODE_SKIP_SPECIAL);
    int plain = text && text[0] != 0;
    free(text);
    return plain;
}

/* The --sequences random sequences of --random pieces each, drawn with
 * --seed from the plain pieces (is_plain_piece) below both the tokenizer's
 * and the model's vocabulary size. 0 or 2 after the error line. */
static int draw_random(const HeadsOptions *o, HeadsRun *run)
{
    int V = run->tok.n_words < run->info.cfg.vocab_size ? run->tok.n_words : run->info.cfg.vocab_size;
    int *pool = malloc(sizeof(int) * (size_t)(V > 0 ? V : 1));
    int *seq = malloc(sizeof(int) * (size_t)o->random_n);
    if (!pool || !seq) {
        free(pool);
        free(seq);
        return args_error(CMD, "out of memory");
    }
    TokenizerSpecials sp = tokenizer_specials(&run->tok);
    int n_pool = 0;
    for (int id = 0; id < V; id++)
        if (is_plain_piece(&run->tok, sp, id)) pool[n_pool++] = id;
    int rc = 0;
    SrError err;
    if (n_pool == 0)
        rc = args_error(CMD, "%s: the tokenizer has no ids that are not special tokens, so --random "
                             "has nothing to draw", o->model);
    Rng rng;
    rng_seed(&rng, (uint64_t)(unsigned)o->seed);
    for (int s = 0; s < o->sequences && rc == 0; s++) {
        for (int j = 0; j < o->random_n; j++) seq[j] = pool[rng_below(&rng, (uint32_t)n_pool)];
        if (piece_sentences_add(&run->sentences, seq, o->random_n, s + 1, &err))
            rc = args_error(CMD, "%s", err.msg);
    }
    free(pool);
    free(seq);
    return rc;
}

/* The sentences of --data as pieces, or the random sequences; every one must
 * fit the model's context. 0 or 2 after the error line. */
static int gather_sentences(const HeadsOptions *o, HeadsRun *run)
{
    const int max_seq_len = run->info.cfg.max_seq_len;
    SrError err;
    if (o->random_n > 0) {
        int64_t T = repeat_length(o->random_n, o->r, o->bos, o->sep);
        if (T > max_seq_len)
            return args_error(CMD, "--random %d: %d pieces repeated k = %d times make %lld tokens, "
                                   "more than the model's %d positions", o->random_n, o->random_n,
                              o->r + 1, (long long)T, max_seq_len);
        if (draw_random(o, run)) return 2;
    } else if (piece_sentences_read(o->data, o->as_text, o->max_sentences, &run->sentences, &err) ||
               piece_sentences_tokenize(&run->sentences, &run->tok, o->data, &err)) {
        return args_error(CMD, "%s", err.msg);
    }
    const RepeatedFit *fit = &run->fit;
    repeated_forward_fit(&run->sentences, &run->setup, max_seq_len, &run->fit);
    if (fit->n_too_long) {
        const PieceSentence *one = &run->sentences.items[fit->first_too_long];
        char more[64] = "";
        if (fit->n_too_long > 1)
            snprintf(more, sizeof more, "; %d more do not fit", fit->n_too_long - 1);
        return args_error(CMD, "%s:%d: the sentence's %d pieces repeated k = %d times make %lld "
                               "tokens, more than the model's %d positions (heads skips no "
                               "sentence%s)", o->data, one->line, one->n, o->r + 1,
                          (long long)repeat_length(one->n, o->r, o->bos, o->sep), max_seq_len, more);
    }
    if (fit->n_fit == 0) return args_error(CMD, "%s: no sentence has a token", o->data);
    if (fit->n_empty)
        fprintf(stderr, "seqrep %s: note: skipped %d sentences without tokens\n", CMD, fit->n_empty);
    return 0;
}

/* Load the model and measure every sentence. 0 or 2 after the error line. */
static int run_heads(const HeadsOptions *o, HeadsRun *run)
{
    SrError err;
    const char *source = o->random_n > 0 ? RANDOM_SOURCE : o->data;
    if (adapter_load_model(o->model, o->adapter, &run->model, 1, run->fit.max_T, &err) ||
        head_roles_init(&run->roles, run->info.cfg.n_layers, run->info.cfg.n_heads, o->random_n > 0,
                        &err) ||
        head_roles_measure(&run->model, &run->setup, &run->sentences, run->fit.max_n, source,
                           &run->roles, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* Print one line per head and then the head with the largest mean of each
 * score. */
static void print_table(const HeadScores *s)
{
    printf("%5s %5s %9s %10s %9s %9s %9s\n", "layer", "head", "copy", "induction", "previous", "sink",
           "own copy");
    static const int width[HEAD_N_SCORES] = {8, 9, 8, 8, 8}; /* under each heading */
    for (int l = 0; l < s->n_layers; l++)
        for (int h = 0; h < s->n_heads; h++) {
            printf("%5d %5d", l, h);
            for (int c = 0; c < HEAD_N_SCORES; c++)
                printf(" %*.1f%%", width[c], 100.0 * head_scores_mean(s, l, h, (HeadScore)c));
            printf("\n");
        }
    printf("\nbest head per score:\n");
    for (int c = 0; c < HEAD_N_SCORES; c++) {
        int l, h;
        head_scores_best(s, (HeadScore)c, &l, &h);
        printf("  %-10s layer %d head %d  %5.1f%%\n", head_score_name((HeadScore)c), l, h,
               100.0 * head_scores_mean(s, l, h, (HeadScore)c));
    }
}

/* Print the in-context learning lines of a --random run. */
static void print_icl(const IclLoss *icl)
{
    printf("\nIn-context learning: mean next-token loss on pieces 1..N-1 of a copy\n");
    if (icl->count[ICL_FIRST_COPY] == 0) {
        printf("  n/a: a sequence of one piece has no piece after the first\n");
        return;
    }
    double first = icl_mean(icl, ICL_FIRST_COPY), last = icl_mean(icl, ICL_LAST_COPY);
    printf("  first copy  %.4f  (%lld tokens)\n", first, (long long)icl->count[ICL_FIRST_COPY]);
    printf("  last copy   %.4f  (%lld tokens)\n", last, (long long)icl->count[ICL_LAST_COPY]);
    printf("  icl score   %.4f  (first - last)\n", first - last);
}

/* Print the heading lines, the table and (with --random) the ICL score. */
static void print_report(const HeadsOptions *o, const HeadsRun *run)
{
    const HeadScores *s = &run->roles.scores;
    printf("seqrep heads: %s%s%s on ", o->model, o->adapter ? " with the adapters of " : "",
           o->adapter ? o->adapter : "");
    if (o->random_n > 0)
        printf("%d random sequences of %d pieces (seed %d)\n", o->sequences, o->random_n, o->seed);
    else printf("%s\n", o->data);
    printf("r = %d (k = %d copies), bos %s, sep %s, mask %s: %d %s, %lld last-copy tokens\n", o->r,
           o->r + 1, repeat_bos_name(o->bos), repeat_sep_name(o->sep), o->mask_text, run->fit.n_fit,
           o->random_n > 0 ? "sequences" : "sentences",
           (long long)head_scores_count(s, 0, 0, HEAD_OWN_COPY));
    printf("Mean attention of last-copy tokens to the key each score reads: piece i (copy) and i + 1\n"
           "(induction) of the copy before, the row before (previous), row 0 (sink), the whole\n"
           "last copy (own copy). Induction leaves out the last piece of a copy: %lld tokens.\n\n",
           (long long)head_scores_count(s, 0, 0, HEAD_INDUCTION));
    print_table(s);
    if (run->roles.with_icl) print_icl(&run->roles.icl);
}

/* The CSV: layer,head,copy,induction,previous,sink,own_copy. Returns a new
 * string (caller frees) or NULL when out of memory. */
static char *csv_text(const HeadScores *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    fprintf(mem, "layer,head");
    for (int c = 0; c < HEAD_N_SCORES; c++) fprintf(mem, ",%s", head_score_name((HeadScore)c));
    fprintf(mem, "\n");
    for (int l = 0; l < s->n_layers; l++)
        for (int h = 0; h < s->n_heads; h++) {
            fprintf(mem, "%d,%d", l, h);
            for (int c = 0; c < HEAD_N_SCORES; c++)
                fprintf(mem, ",%.6f", head_scores_mean(s, l, h, (HeadScore)c));
            fprintf(mem, "\n");
        }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The ICL numbers of a --random run: the two mean losses, their difference
 * and the tokens each is over (null means when there were none). */
static void manifest_add_icl(cJSON *manifest, const IclLoss *icl)
{
    double first = icl_mean(icl, ICL_FIRST_COPY), last = icl_mean(icl, ICL_LAST_COPY);
    if (icl->count[ICL_FIRST_COPY] > 0) {
        cJSON_AddNumberToObject(manifest, "loss_first_copy", first);
        cJSON_AddNumberToObject(manifest, "loss_last_copy", last);
        cJSON_AddNumberToObject(manifest, "icl_score", first - last);
    } else {
        cJSON_AddNullToObject(manifest, "loss_first_copy");
        cJSON_AddNullToObject(manifest, "loss_last_copy");
        cJSON_AddNullToObject(manifest, "icl_score");
    }
    cJSON_AddNumberToObject(manifest, "loss_first_copy_tokens", (double)icl->count[ICL_FIRST_COPY]);
    cJSON_AddNumberToObject(manifest, "loss_last_copy_tokens", (double)icl->count[ICL_LAST_COPY]);
}

/* The manifest beside the CSV: inputs, options and counts. */
static cJSON *make_manifest(int argc, char **argv, const HeadsOptions *o, const HeadsRun *run)
{
    const HeadScores *s = &run->roles.scores;
    cJSON *manifest = manifest_begin(argc, argv, o->random_n > 0 ? (unsigned long long)o->seed : 0);
    manifest_add_file(manifest, "model", o->model);
    if (o->adapter) manifest_add_file(manifest, "adapter", o->adapter);
    if (o->random_n > 0) {
        cJSON_AddNumberToObject(manifest, "random_pieces", o->random_n);
        cJSON_AddNumberToObject(manifest, "sequences", o->sequences);
    } else {
        manifest_add_file(manifest, "data", o->data);
        cJSON_AddNumberToObject(manifest, "sentences", run->fit.n_fit);
    }
    cJSON_AddNumberToObject(manifest, "r", o->r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(o->bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(o->sep));
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(o->copy_positions));
    cJSON_AddStringToObject(manifest, "mask", o->mask_text);
    cJSON_AddNumberToObject(manifest, "last_copy_tokens",
                            (double)head_scores_count(s, 0, 0, HEAD_OWN_COPY));
    cJSON_AddNumberToObject(manifest, "induction_tokens",
                            (double)head_scores_count(s, 0, 0, HEAD_INDUCTION));
    if (run->roles.with_icl) manifest_add_icl(manifest, &run->roles.icl);
    return manifest;
}

/* Write the CSV atomically and its manifest beside it ("x.csv" ->
 * "x.manifest.json"). 0 or 2 after the error line. */
static int write_outputs(int argc, char **argv, const HeadsOptions *o, const HeadsRun *run)
{
    SrError err;
    char *csv = csv_text(&run->roles.scores);
    if (!csv) return args_error(CMD, "out of memory");
    int rc = write_file_atomic(o->out, csv, &err);
    free(csv);
    if (rc) return args_error(CMD, "%s", err.msg);
    cJSON *manifest = make_manifest(argc, argv, o, run);
    rc = manifest_write(o->out, manifest, NULL, &err);
    cJSON_Delete(manifest);
    if (rc) return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s\n", o->out);
    return 0;
}

/* Release everything the run holds. */
static void free_run(HeadsRun *run)
{
    head_roles_free(&run->roles);
    model_free(&run->model);
    free(run->plan);
    piece_sentences_free(&run->sentences);
    tokenizer_free(&run->tok);
    checkpoint_info_free(&run->info);
}

/* `seqrep heads`: read the checkpoint and the data (or draw random pieces),
 * run every sentence repeated, score each head, print and write. */
int cmd_heads(int argc, char **argv)
{
    HeadsOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    HeadsRun run = {0};
    rc = load_checkpoint(&o, &run);
    if (rc == 0) rc = gather_sentences(&o, &run);
    if (rc == 0) rc = run_heads(&o, &run);
    if (rc == 0) print_report(&o, &run);
    if (rc == 0) rc = write_outputs(argc, argv, &o, &run);
    free_run(&run);
    return rc;
}
