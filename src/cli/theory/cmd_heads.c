/* cmd_heads.c — `seqrep heads --model FILE (--data FILE | --random N) --out
 * FILE`: run a model on every sentence of a data set (or on random pieces)
 * repeated k = r + 1 times and score, per layer and head, the role each head
 * plays for the queries of the last copy: copy, induction, previous token,
 * sink, own copy (theory/heads.h). With --random, also the in-context
 * learning score: the loss on the first copy minus the loss on the last
 * (theory/head_roles.h). The run is head_command.h's, shared with
 * `attnflow` (the checkpoint, the model, the CSV and its manifest); this
 * file gives the steps of its own: parsing, drawing the random pieces,
 * measuring, printing and the manifest's fields.
 *
 * Unlike attnflow, heads skips no sentence that is too long for the model's
 * context: it stops with an error naming the file and the sentence's line,
 * so a score is always over the whole data set asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/rng.h"
#include "cli/theory/head_command.h"
#include "cli/theory/theory_commands.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"
#include "theory/head_roles.h"
#include "theory/heads.h"

static const char *CMD = "heads";

/* Where the random sequences are said to come from in messages. */
static const char *RANDOM_SOURCE = "--random";

/* `seqrep heads`: the options and the run it shares with attnflow, its own
 * options, and the scores it accumulates. */
typedef struct {
    HeadJob job;
    int random_n, sequences, seed; /* --random N (0: --data), --sequences, --seed */
    HeadRoles roles;
} Heads;

/* The checks args_parse cannot make: exactly one of --data and --random,
 * the options of one mode not given with the other, r >= 1. 0 or 2 after
 * the error line. */
static int check_modes(const ArgSpec *specs, int n, const Heads *hd)
{
    const HeadOptions *o = &hd->job.o;
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

/* Parse argv into self (a Heads): 0, 1 after --help, 2 after the error line. */
static int parse_options(void *self, int argc, char **argv)
{
    Heads *hd = self;
    HeadOptions *o = &hd->job.o;
    *o = (HeadOptions){.sep_text = "none", .mask_text = "causal", .positions_text = "run", .r = 1};
    hd->sequences = 100;
    hd->seed = 1;
    HelpText h = {0};
    const ArgSpec input[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "checkpoint (.safetensors) or Hugging Face model folder"},
        option_adapter_file(&o->adapter, NULL),
        {.name = "data", .type = ARG_STRING, .value = &o->data,
         .help = "CoNLL file (first column = word), or text with --text; or --random"},
        {.name = "text", .type = ARG_FLAG, .value = &o->as_text,
         .help = "--data has one sentence per line"},
        {.name = "random", .type = ARG_INT, .value = &hd->random_n, .min_int = 1,
         .help = "instead of --data: sequences of N pieces drawn uniformly from the tokenizer's "
                 "ids that are not special tokens (the induction test; adds the ICL score)"},
        {.name = "sequences", .type = ARG_INT, .value = &hd->sequences, .min_int = 1,
         .help = help_text(&h, "with --random: how many sequences (default %d)", hd->sequences)},
        option_seed(&hd->seed,
                    help_text(&h, "with --random: seed of the pieces (default %d)", hd->seed)),
        {.name = "r", .type = ARG_INT, .value = &o->r, .min_int = -2147483647,
         .help = help_text(&h, "repetitions: k = r + 1 copies, r >= 1 (default %d)", o->r)},
    };
    const ArgSpec output[] = {
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "CSV to write (atomically, with a manifest): layer,head,copy,induction,previous,"
                 "sink,own_copy; induction leaves out the last piece of a copy (no piece after it)"},
        option_threads(&o->threads),
    };
    ArgSpec specs[ARGS_COUNT(input) + HEAD_SHARED_ROWS + ARGS_COUNT(output)];
    head_command_option_table(specs, input, ARGS_COUNT(input), o, &h, output, ARGS_COUNT(output));
    int rc = args_parse(CMD, "--model FILE [--adapter FILE] (--data FILE [--text] | --random N "
                             "[--sequences S] [--seed X]) [--r R] [--bos B] [--sep S] [--mask PLAN] "
                             "--out FILE",
                        specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (check_modes(specs, ARGS_COUNT(specs), hd)) return 2;
    return head_command_parse_repeat(CMD, o);
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
static int draw_random(Heads *hd)
{
    HeadRun *run = &hd->job.run;
    int V = run->tok.n_words < run->info.cfg.vocab_size ? run->tok.n_words : run->info.cfg.vocab_size;
    int *pool = malloc(sizeof(int) * (size_t)(V > 0 ? V : 1));
    int *seq = malloc(sizeof(int) * (size_t)hd->random_n);
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
                             "has nothing to draw", hd->job.o.model);
    Rng rng;
    rng_seed(&rng, (uint64_t)(unsigned)hd->seed);
    for (int s = 0; s < hd->sequences && rc == 0; s++) {
        for (int j = 0; j < hd->random_n; j++) seq[j] = pool[rng_below(&rng, (uint32_t)n_pool)];
        if (piece_sentences_add(&run->sentences, seq, hd->random_n, s + 1, &err))
            rc = args_error(CMD, "%s", err.msg);
    }
    free(pool);
    free(seq);
    return rc;
}

/* The sentences of --data as pieces, or the random sequences; every one must
 * fit the model's context. 0 or 2 after the error line. */
static int gather_sentences(void *self)
{
    Heads *hd = self;
    const HeadOptions *o = &hd->job.o;
    HeadRun *run = &hd->job.run;
    const int max_seq_len = run->info.cfg.max_seq_len;
    if (hd->random_n > 0) {
        int64_t T = repeat_length(hd->random_n, o->r, o->bos, o->sep);
        if (T > max_seq_len)
            return args_error(CMD, "--random %d: %d pieces repeated k = %d times make %lld tokens, "
                                   "more than the model's %d positions", hd->random_n, hd->random_n,
                              o->r + 1, (long long)T, max_seq_len);
        if (draw_random(hd)) return 2;
    } else if (head_command_read_data(CMD, o, run)) {
        return 2;
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

/* Score every head (and with --random the ICL loss) over every sentence.
 * 0 or 2 after the error line. */
static int measure(void *self)
{
    Heads *hd = self;
    HeadRun *run = &hd->job.run;
    SrError err;
    const char *source = hd->random_n > 0 ? RANDOM_SOURCE : hd->job.o.data;
    if (head_roles_init(&hd->roles, run->info.cfg.n_layers, run->info.cfg.n_heads, hd->random_n > 0, &err) ||
        head_roles_measure(&run->model, &run->setup, &run->sentences, run->fit.max_n, source, &hd->roles, &err))
        return args_error(CMD, "%s", err.msg);
    run->tables[0] = &hd->roles.scores;
    run->tables[1] = &hd->roles.chance;
    run->n_tables = 2;
    return 0;
}

/* Print one line per head and then the head with the largest mean of each
 * score. */
static void print_table(const HeadScores *s, const HeadScores *chance)
{
    printf("%5s %5s %9s %10s %9s %9s %9s\n", "layer", "head", "copy", "induction", "previous", "sink",
           "own copy");
    static const int width[HEAD_N_SCORES] = {8, 9, 8, 8, 8}; /* under each heading */
    head_command_print_rows(s, chance, width, 0);
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
static void print_report(const void *self)
{
    const Heads *hd = self;
    const HeadOptions *o = &hd->job.o;
    const HeadScores *s = &hd->roles.scores;
    head_command_print_model(CMD, o);
    if (hd->random_n > 0)
        printf("%d random sequences of %d pieces (seed %d)\n", hd->sequences, hd->random_n, hd->seed);
    else printf("%s\n", o->data);
    head_command_print_setup(o, hd->job.run.fit.n_fit, hd->random_n > 0 ? "sequences" : "sentences",
                             (long long)head_scores_count(s, 0, 0, HEAD_OWN_COPY));
    printf("Mean attention of last-copy tokens to the key each score reads: piece i (copy) and i + 1\n"
           "(induction) of the copy before, the row before (previous), row 0 (sink), the whole\n"
           "last copy (own copy). Induction leaves out the last piece of a copy: %lld tokens.\n"
           "\"chance\" = what a uniform head scores: each query's weight spread evenly over the keys\n"
           "its mask lets it see, on the same sentences.\n\n",
           (long long)head_scores_count(s, 0, 0, HEAD_INDUCTION));
    print_table(s, &hd->roles.chance);
    if (hd->roles.with_icl) print_icl(&hd->roles.icl);
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
static cJSON *make_manifest(const void *self, int argc, char **argv)
{
    const Heads *hd = self;
    const HeadOptions *o = &hd->job.o;
    const HeadScores *s = &hd->roles.scores;
    cJSON *manifest =
        head_command_manifest_begin(argc, argv, hd->random_n > 0 ? (unsigned long long)hd->seed : 0, o);
    if (hd->random_n > 0) {
        cJSON_AddNumberToObject(manifest, "random_pieces", hd->random_n);
        cJSON_AddNumberToObject(manifest, "sequences", hd->sequences);
    } else {
        manifest_add_file(manifest, "data", o->data);
        cJSON_AddNumberToObject(manifest, "sentences", hd->job.run.fit.n_fit);
    }
    head_command_manifest_repeat(manifest, o);
    cJSON_AddNumberToObject(manifest, "last_copy_tokens",
                            (double)head_scores_count(s, 0, 0, HEAD_OWN_COPY));
    cJSON_AddNumberToObject(manifest, "induction_tokens",
                            (double)head_scores_count(s, 0, 0, HEAD_INDUCTION));
    if (hd->roles.with_icl) manifest_add_icl(manifest, &hd->roles.icl);
    return manifest;
}

/* Release the scores (the run is head_command's to free). */
static void free_heads(void *self)
{
    Heads *hd = self;
    head_roles_free(&hd->roles);
}

/* `seqrep heads`: read the checkpoint and the data (or draw random pieces),
 * run every sentence repeated, score each head, print and write. */
int cmd_heads(int argc, char **argv)
{
    const HeadCommand steps = {.name = CMD, .parse = parse_options, .sentences = gather_sentences,
                               .measure = measure, .print = print_report, .manifest = make_manifest,
                               .free = free_heads};
    Heads hd = {0};
    return head_command_run(&steps, &hd, &hd.job, argc, argv);
}
