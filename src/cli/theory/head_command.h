/* head_command.h — the one runner of the commands that load a model and
 * sentences, run every sentence repeated k = r + 1 times and write a table
 * per layer and head (theory/head_table.h): `seqrep heads` (the role of
 * each head) and `seqrep attnflow` (where the attention goes; with --cues,
 * the attention on a cue word beside it).
 *
 * head_command_run takes the steps in this order; a command gives the ones
 * marked with a name, the runner does the rest:
 *
 *   the options (the command's own table and checks)               parse
 *   the threads; the checkpoint's description, tokenizer, --bos
 *   and mask plan; how every sentence is laid out and run
 *   the sentences, and which of them fit the model's context       sentences
 *   the model, with the --adapter file's adapters merged in
 *   the tables, over every sentence                                measure
 *   the report on stdout                                           print
 *   with --out: the CSV of the tables (atomically) and the
 *   manifest beside it                                             manifest
 *   freeing what the command holds, then the run                   free
 *
 * parse returns 0, 1 after --help or 2; sentences and measure (and the
 * runner's own steps) 0, or 2 after one error line "seqrep CMD: ..."; the
 * run stops at the first that fails. */
#ifndef SEQREP_HEAD_COMMAND_H
#define SEQREP_HEAD_COMMAND_H

#include <cJSON.h>

#include "data/piece_sentences.h"
#include "engine/model.h"
#include "engine/ops/mask.h"
#include "formats/checkpoint.h"
#include "options/args.h"
#include "options/help_text.h"
#include "repeat/repeat.h"
#include "text/tokenizer.h"
#include "theory/chance.h"
#include "theory/head_table.h"
#include "theory/repeated_forward.h"

/* The options both commands have, as given and as parsed. */
typedef struct {
    const char *model, *adapter, *data, *out, *bos_text, *sep_text, *mask_text, *positions_text;
    const char *ablate_text; /* --ablate-heads (head_plan.h); NULL = none */
    int r, as_text, max_sentences, threads;
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
} HeadOptions;

/* What a run holds: the checkpoint, its tokenizer and mask plan, the
 * sentences (as pieces), how they are run and which fit, the model, and
 * the tables the CSV holds, left to right (set by the command's measure). */
typedef struct {
    CheckpointInfo info;
    Tokenizer tok;
    MaskKind *plan;     /* (n_layers) */
    float *head_scale;  /* (n_layers, n_heads) of --ablate-heads; NULL = every head */
    PieceSentences sentences;
    RepeatedForward setup;
    RepeatedFit fit;
    Model model;
    const HeadTable *tables[4]; /* each measure, then its chance levels (theory/chance.h) */
    int n_tables;
} HeadRun;

/* The options and the run of one command; its own state holds one. */
typedef struct {
    HeadOptions o;
    HeadRun run;
} HeadJob;

/* The steps a command gives (see above); self is the command's own state. */
typedef struct {
    const char *name;                                           /* "heads", "attnflow" */
    int (*parse)(void *self, int argc, char **argv);            /* 0, 1 after --help, or 2 */
    int (*sentences)(void *self);                               /* run.sentences and run.fit */
    int (*measure)(void *self);                                 /* the tables, run.tables */
    void (*print)(const void *self);                            /* the report */
    cJSON *(*manifest)(const void *self, int argc, char **argv); /* beside the CSV */
    void (*free)(void *self);                                   /* all but the HeadRun */
} HeadCommand;

/* Run the command c on argv: the exit status (0, or 2 after the error line). */
int head_command_run(const HeadCommand *c, void *self, HeadJob *job, int argc, char **argv);

/* What the steps share. */

/* The option rows both commands have: --bos, --sep, --copy-positions,
 * --mask, --ablate-heads and --max-sentences. */
enum { HEAD_SHARED_ROWS = 6 };

/* A command's option table into specs (n_first + HEAD_SHARED_ROWS + n_last
 * rows): its own rows first[0..n_first), the shared rows (into o, their
 * help lines in h), then its rows last[0..n_last). */
void head_command_option_table(ArgSpec *specs, const ArgSpec *first, int n_first, HeadOptions *o, HelpText *h,
                               const ArgSpec *last, int n_last);

/* --bos, --sep and --copy-positions as given into o. 0, or 2 after the
 * error line. */
int head_command_parse_repeat(const char *command, HeadOptions *o);

/* The sentences of --data (CoNLL, or one a line with --text; the first
 * --max-sentences) as the tokenizer's pieces into run->sentences. 0, or 2
 * after the error line. */
int head_command_read_data(const char *command, const HeadOptions *o, HeadRun *run);

/* "seqrep COMMAND: MODEL[ with the adapters of ADAPTER] on " on stdout: the
 * start of the report's first line. */
void head_command_print_model(const char *command, const HeadOptions *o);

/* "r = R (k = K copies), bos B, sep S, mask M[, heads taken away L.H,...]:
 * N SENTENCES, T last-copy tokens" and a newline on stdout. */
void head_command_print_setup(const HeadOptions *o, int n, const char *sentences, long long tokens);

/* One line per (layer, head) of t on stdout: "%5d %5d", then each column's
 * mean in percent, " %*.1f%%" under width[c]; with layer_means, after each
 * layer of more than one head a line of its mean over the heads; after
 * each layer the line "chance" of the table chance (one head per layer,
 * the same columns: what a uniform head gives, theory/chance.h). */
void head_command_print_rows(const HeadTable *t, const HeadTable *chance, const int *width, int layer_means);

/* The uniform head of every layer of the run (its mask plan, the model's
 * windows) laid out as lay, added to chance with add (a RepeatedConsumer's
 * step: theory/chance.h). 0, or -1 with err. */
int head_command_add_chance(const HeadRun *run, const Model *m, const RepeatLayout *lay, ChanceAdd add, void *chance,
                            SrError *err);

/* A new manifest (runs/manifest.h, with seed) with "model" and, given,
 * "adapter": how every manifest of these commands starts. */
cJSON *head_command_manifest_begin(int argc, char **argv, unsigned long long seed, const HeadOptions *o);

/* "r", "bos", "sep", "copy_positions" and "mask" added to manifest. */
void head_command_manifest_repeat(cJSON *manifest, const HeadOptions *o);

#endif
