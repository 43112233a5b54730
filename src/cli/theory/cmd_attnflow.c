/* cmd_attnflow.c — `seqrep attnflow --model FILE --data FILE --r R`: run a
 * trained model on every sentence of a data set repeated k = r + 1 times and
 * report, per layer and head, where the attention of last-copy words goes
 * (own copy, earlier copies left of / at / right of the word, sinks). The
 * split itself is theory/attnflow.c; the run is head_command.h's, shared
 * with `heads` (the checkpoint, the sentences of --data, the model, the CSV
 * and its manifest); this file gives the steps of its own: parsing, the
 * sentences of --cues, which sentences fit, measuring, printing and the
 * manifest's fields.
 *
 * Data: a CoNLL file (word in the first column, a blank line between
 * sentences, -DOCSTART- lines skipped) or, with --text, one sentence per line.
 * The words of a sentence are joined with spaces and tokenized with the
 * checkpoint's vocabulary; the sentence's tokens are the "words" of the
 * repetition layout (word index = token index in the sentence). With
 * --adapter FILE (finetune --save) the model runs with the file's LoRA
 * adapters merged in (formats/adapter_apply.h).
 *
 * With --cues TASK (right-cue, left-cue, last-word) the CoNLL file is read
 * with its tags and cut into pieces word by word as fine-tuning cuts it
 * (label/readout.h); every ambiguous entity's cue word is found
 * (data/task_cues.h) and the attention of the entity words on their cue in
 * the earlier copies is measured beside the split (theory/cue_attention.h):
 * two more columns, cue and non_cue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/theory/head_command.h"
#include "cli/theory/theory_commands.h"
#include "data/conll.h"
#include "data/task_cues.h"
#include "label/readout.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "runs/manifest.h"
#include "theory/attnflow.h"
#include "theory/cue_attention.h"

static const char *CMD = "attnflow";

/* `seqrep attnflow`: the options and the run it shares with heads, --cues,
 * the sentences' words and cues of a --cues run, and the accumulated split
 * and cue shares. */
typedef struct {
    HeadJob job;
    const char *cues_text;
    int with_cues; /* --cues given */
    TaskKind cue_task;
    AttnFlow flow;
    AttnFlow flow_chance; /* one head per layer: what a uniform head gives (theory/chance.h) */
    int **word_start;  /* --cues: (sentences) each (n_words + 1) piece boundaries of its words */
    int **cue;         /* --cues: (sentences) each (n_words) the word's cue, -1 for none */
    int *n_words;      /* --cues: (sentences) */
    int n_cue_sentences;
    CueAttention cues;
    CueAttention cues_chance; /* one head per layer */
    const int *chance_word_start, *chance_cue; /* the sentence the uniform head is added for */
    int chance_n_words;
} Attnflow;

/* Parse argv into self (an Attnflow): 0, 1 after --help, 2 after the error
 * line. */
static int parse_options(void *self, int argc, char **argv)
{
    Attnflow *af = self;
    HeadOptions *o = &af->job.o;
    *o = (HeadOptions){.sep_text = "none", .mask_text = "causal", .positions_text = "run"};
    HelpText h = {0};
    const ArgSpec input[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "checkpoint (.safetensors) or Hugging Face model folder"},
        option_adapter_file(&o->adapter, NULL),
        {.name = "data", .type = ARG_STRING, .value = &o->data, .required = 1,
         .help = "CoNLL file (first column = word), or text with --text"},
        {.name = "r", .type = ARG_INT, .value = &o->r, .required = 1,
         .help = "repetitions: k = r + 1 copies of each sentence"},
        {.name = "text", .type = ARG_FLAG, .value = &o->as_text,
         .help = "--data has one sentence per line"},
    };
    const ArgSpec output[] = {
        {.name = "out", .type = ARG_STRING, .value = &o->out,
         .help = "CSV to write (atomically, with a manifest)"},
        {.name = "cues", .type = ARG_STRING, .value = &af->cues_text,
         .help = "right-cue | left-cue | last-word: also measure the attention of each ambiguous entity "
                 "word on its cue word (a CoNLL --data of that task; columns cue, non_cue)"},
        option_threads(&o->threads),
    };
    ArgSpec specs[ARGS_COUNT(input) + HEAD_SHARED_ROWS + ARGS_COUNT(output)];
    head_command_option_table(specs, input, ARGS_COUNT(input), o, &h, output, ARGS_COUNT(output));
    int rc = args_parse(CMD, "--model FILE [--adapter FILE] --data FILE --r R [--text] [--bos B] [--sep S] "
                             "[--mask PLAN] [--cues TASK] [--out FILE]",
                        specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (head_command_parse_repeat(CMD, o)) return 2;
    if (af->cues_text) {
        SrError err;
        if (task_from_name(af->cues_text, &af->cue_task, &err)) return args_error(CMD, "--cues: %s", err.msg);
        if (o->as_text) return args_error(CMD, "--cues needs a CoNLL --data (the tags say where the entities are), not --text");
        af->with_cues = 1;
    }
    return 0;
}

/* Sentence s of a --cues run: keep its word boundaries in pieces, find its
 * cues and add its pieces to the run's sentences. 0 or -1 with err. */
static int keep_cue_sentence(Attnflow *af, const Dataset *d, const PiecedSentence *ps, int s, SrError *err)
{
    int n = ps->n_words;
    af->n_words[s] = n;
    af->word_start[s] = malloc(sizeof(int) * (size_t)(n + 1));
    af->cue[s] = malloc(sizeof(int) * (size_t)n);
    if (!af->word_start[s] || !af->cue[s]) return sr_fail(err, "%s: out of memory", af->job.o.data);
    memcpy(af->word_start[s], ps->first_piece, sizeof(int) * (size_t)n);
    af->word_start[s][n] = ps->n_pieces;
    if (task_sentence_cues(af->cue_task, d, s, af->cue[s], err)) return -1;
    return piece_sentences_add(&af->job.run.sentences, ps->pieces, ps->n_pieces, ps->line, err);
}

/* --cues: read the first --max-sentences sentences of the CoNLL file with
 * their tags, cut them into pieces word by word as fine-tuning does
 * (readout_prepare) and keep them as the run's sentences, with each word's
 * piece boundaries and cue (task_cues.h). 0 or -1 with err. */
static int read_cue_sentences(Attnflow *af, SrError *err)
{
    const HeadOptions *o = &af->job.o;
    Dataset d;
    if (conll_read(o->data, &d, err)) return -1;
    PiecedData pd = {0};
    int rc = readout_prepare(&pd, &d, &af->job.run.tok, err);
    int n = o->max_sentences > 0 && o->max_sentences < d.n_sents ? o->max_sentences : d.n_sents;
    if (rc == 0) {
        af->word_start = calloc((size_t)n, sizeof *af->word_start);
        af->cue = calloc((size_t)n, sizeof *af->cue);
        af->n_words = calloc((size_t)n, sizeof *af->n_words);
        af->n_cue_sentences = n;
        if (!af->word_start || !af->cue || !af->n_words) rc = sr_fail(err, "%s: out of memory", o->data);
    }
    for (int s = 0; s < n && rc == 0; s++) rc = keep_cue_sentence(af, &d, &pd.sents[s], s, err);
    pieced_data_free(&pd);
    dataset_free(&d);
    return rc;
}

/* Read the data and tokenize the first --max-sentences sentences, keeping
 * those whose repeated input fits; note on stderr what was skipped. 0 or 2
 * after the error line (also when no sentence fits). */
static int tokenize_sentences(void *self)
{
    Attnflow *af = self;
    const HeadOptions *o = &af->job.o;
    HeadRun *run = &af->job.run;
    const ModelConfig cfg = run->info.cfg;
    SrError err;
    if (af->with_cues) {
        if (read_cue_sentences(af, &err)) return args_error(CMD, "%s", err.msg);
    } else if (head_command_read_data(CMD, o, run)) {
        return 2;
    }
    repeated_forward_fit(&run->sentences, &run->setup, cfg.max_seq_len, &run->fit);
    const RepeatedFit *fit = &run->fit;
    if (fit->n_fit == 0) {
        if (fit->max_n < 1)
            return args_error(CMD, "r = %d: even a one-token sentence does not fit in the model's "
                                   "%d positions", o->r, cfg.max_seq_len);
        return args_error(CMD, "%s: no sentence fits: with r = %d the model's %d positions hold "
                               "sentences of at most %d tokens", o->data, o->r, cfg.max_seq_len,
                          fit->max_n);
    }
    if (fit->n_too_long)
        fprintf(stderr, "seqrep %s: note: skipped %d sentences longer than %d tokens (r = %d, "
                        "max_seq_len %d)\n", CMD, fit->n_too_long, fit->max_n, o->r, cfg.max_seq_len);
    if (fit->n_empty)
        fprintf(stderr, "seqrep %s: note: skipped %d sentences without tokens\n", CMD, fit->n_empty);
    return 0;
}

/* A uniform head of one layer into the chance levels of the split and,
 * with --cues, of the cue shares (a ChanceAdd; ctx is the Attnflow). */
static void add_chance(void *ctx, int layer, const float *att, int stride, const RepeatLayout *lay)
{
    Attnflow *af = ctx;
    attnflow_add_layer(&af->flow_chance, layer, att, stride, lay);
    if (af->cue)
        cue_attention_add_layer(&af->cues_chance, layer, att, stride, lay, af->chance_word_start, af->chance_cue,
                                af->chance_n_words);
}

/* Add every layer's attention of one forward to the split, and with
 * --cues to the cue shares, and a uniform head's to their chance levels
 * (a RepeatedConsumer; ctx is the Attnflow). */
static int add_to_flow(void *ctx, Model *m, const RepeatLayout *lay, const PieceSentence *one,
                       SrError *err)
{
    Attnflow *af = ctx;
    int s = (int)(one - af->job.run.sentences.items);
    for (int l = 0; l < af->flow.n_layers; l++) {
        attnflow_add_layer(&af->flow, l, model_attention(m, l), lay->T, lay);
        if (af->cue)
            cue_attention_add_layer(&af->cues, l, model_attention(m, l), lay->T, lay, af->word_start[s],
                                    af->cue[s], af->n_words[s]);
    }
    if (af->cue) {
        af->chance_word_start = af->word_start[s];
        af->chance_cue = af->cue[s];
        af->chance_n_words = af->n_words[s];
    }
    return head_command_add_chance(&af->job.run, m, lay, add_chance, af, err);
}

/* Run every kept sentence repeated and add each layer's attention to the
 * split (and the cue shares). 0 or 2 after the error line. */
static int measure(void *self)
{
    Attnflow *af = self;
    HeadRun *run = &af->job.run;
    SrError err;
    const ModelConfig cfg = run->info.cfg;
    if (attnflow_init(&af->flow, cfg.n_layers, cfg.n_heads, &err) ||
        attnflow_chance_init(&af->flow_chance, cfg.n_layers, &err) ||
        (af->with_cues && (cue_attention_init(&af->cues, cfg.n_layers, cfg.n_heads, &err) ||
                           cue_attention_chance_init(&af->cues_chance, cfg.n_layers, &err))) ||
        repeated_forward_all(&run->model, &run->setup, &run->sentences, run->fit.max_n, af->job.o.data,
                             add_to_flow, af, &err))
        return args_error(CMD, "%s", err.msg);
    if (af->with_cues && cue_attention_queries(&af->cues, 0) == 0)
        return args_error(CMD, "%s: --cues %s: no ambiguous entity in the sentences measured", af->job.o.data,
                          task_name(af->cue_task));
    run->tables[run->n_tables++] = &af->flow;
    run->tables[run->n_tables++] = &af->flow_chance;
    if (af->with_cues) {
        run->tables[run->n_tables++] = &af->cues;
        run->tables[run->n_tables++] = &af->cues_chance;
    }
    return 0;
}

/* Print the readable table: one line per head, then the layer's mean and
 * its chance level. */
static void print_table(const AttnFlow *flow, const AttnFlow *chance)
{
    static const int width[FLOW_N_CATEGORIES] = {9, 12, 9, 13, 7}; /* under each heading */
    printf("%5s %5s %10s %13s %10s %14s %8s\n", "layer", "head", "own copy", "earlier left",
           "same word", "earlier right", "sink");
    head_command_print_rows(flow, chance, width, 1);
}

/* Print the cue table: per layer and head the share of entity words'
 * attention on their cue and on one other word on its side. */
static void print_cue_table(const CueAttention *cues, const CueAttention *chance)
{
    static const int width[CUE_N_COLUMNS] = {7, 7}; /* under each heading */
    printf("\nEntity words of the last copy (%lld queries): attention on their cue word in the earlier copies,\n"
           "and on one other word on the cue's side (the mean over those words).\n\n",
           (long long)cue_attention_queries(cues, 0));
    printf("%5s %5s %8s %8s\n", "layer", "head", "cue", "non-cue");
    head_command_print_rows(cues, chance, width, 0);
}

/* Print the heading lines and the table on stdout. */
static void print_report(const void *self)
{
    const Attnflow *af = self;
    const HeadOptions *o = &af->job.o;
    head_command_print_model(CMD, o);
    printf("%s\n", o->data);
    head_command_print_setup(o, af->job.run.fit.n_fit, "sentences", (long long)attnflow_queries(&af->flow, 0));
    printf("Mean share of the attention of last-copy tokens; each line sums to 100%%.\n"
           "\"earlier right\" = words to the right of the token's own word, in earlier copies.\n"
           "\"chance\" = what a uniform head gives: each query's weight spread evenly over the keys its\n"
           "mask lets it see, on the same sentences (the share of a region is its visible keys / all).\n\n");
    print_table(&af->flow, &af->flow_chance);
    if (af->with_cues) print_cue_table(&af->cues, &af->cues_chance);
}

/* The manifest beside the CSV: inputs, options and counts. */
static cJSON *make_manifest(const void *self, int argc, char **argv)
{
    const Attnflow *af = self;
    const HeadOptions *o = &af->job.o;
    cJSON *manifest = head_command_manifest_begin(argc, argv, 0, o);
    manifest_add_file(manifest, "data", o->data);
    head_command_manifest_repeat(manifest, o);
    cJSON_AddNumberToObject(manifest, "sentences", af->job.run.fit.n_fit);
    cJSON_AddNumberToObject(manifest, "sentences_skipped_too_long", af->job.run.fit.n_too_long);
    cJSON_AddNumberToObject(manifest, "last_copy_tokens", (double)attnflow_queries(&af->flow, 0));
    if (af->with_cues) {
        cJSON_AddStringToObject(manifest, "cues", task_name(af->cue_task));
        cJSON_AddNumberToObject(manifest, "cue_queries", (double)cue_attention_queries(&af->cues, 0));
        cJSON_AddNumberToObject(manifest, "non_cue_queries", (double)cue_attention_non_cue_queries(&af->cues, 0));
    }
    return manifest;
}

/* Release the split, the cue shares and the words' cues (the run is
 * head_command's to free). */
static void free_attnflow(void *self)
{
    Attnflow *af = self;
    attnflow_free(&af->flow);
    attnflow_free(&af->flow_chance);
    cue_attention_free(&af->cues);
    cue_attention_free(&af->cues_chance);
    for (int s = 0; s < af->n_cue_sentences; s++) {
        free(af->word_start[s]);
        free(af->cue[s]);
    }
    free(af->word_start);
    free(af->cue);
    free(af->n_words);
}

/* `seqrep attnflow`: read the checkpoint and the data, run every sentence
 * repeated, accumulate the split per layer and head, print and write it. */
int cmd_attnflow(int argc, char **argv)
{
    const HeadCommand steps = {.name = CMD, .parse = parse_options, .sentences = tokenize_sentences,
                               .measure = measure, .print = print_report, .manifest = make_manifest,
                               .free = free_attnflow};
    Attnflow af = {0};
    return head_command_run(&steps, &af, &af.job, argc, argv);
}
