/* cmd_attnflow.c — `seqrep attnflow --model FILE --data FILE --r R`: run a
 * trained model on every sentence of a data set repeated k = r + 1 times and
 * report, per layer and head, where the attention of last-copy words goes
 * (own copy, earlier copies left of / at / right of the word, sinks). The
 * split itself is theory/attnflow.c, the reading data/piece_sentences.c and
 * the loop over the sentences theory/repeated_forward.c (both shared with
 * `heads`); this file parses, prints and writes.
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

#include "base/atomic_file.h"
#include "cli/common/cli_common.h"
#include "cli/theory/theory_commands.h"
#include "data/conll.h"
#include "data/piece_sentences.h"
#include "data/task_cues.h"
#include "engine/ops/mask.h"
#include "engine/threads.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "label/readout.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"
#include "theory/attnflow.h"
#include "theory/cue_attention.h"
#include "theory/repeated_forward.h"

static const char *CMD = "attnflow";

/* Print the readable table: one line per head, then the layer's mean. */
static void print_table(const AttnFlow *flow)
{
    static const int width[FLOW_N_CATEGORIES] = {9, 12, 9, 13, 7}; /* under each heading */
    printf("%5s %5s %10s %13s %10s %14s %8s\n", "layer", "head", "own copy", "earlier left",
           "same word", "earlier right", "sink");
    for (int l = 0; l < flow->n_layers; l++) {
        double layer_mean[FLOW_N_CATEGORIES] = {0};
        for (int h = 0; h < flow->n_heads; h++) {
            printf("%5d %5d", l, h);
            for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
                double v = attnflow_mean(flow, l, h, c);
                layer_mean[c] += v / flow->n_heads;
                printf(" %*.1f%%", width[c], 100.0 * v);
            }
            printf("\n");
        }
        if (flow->n_heads > 1) {
            printf("%5d %5s", l, "mean");
            for (int c = 0; c < FLOW_N_CATEGORIES; c++) printf(" %*.1f%%", width[c], 100.0 * layer_mean[c]);
            printf("\n");
        }
    }
}

/* Print the cue table: per layer and head the share of entity words'
 * attention on their cue and on one other word on its side. */
static void print_cue_table(const CueAttention *cues)
{
    printf("\nEntity words of the last copy (%lld queries): attention on their cue word in the earlier copies,\n"
           "and on one other word on the cue's side (the mean over those words).\n\n",
           (long long)cues->n_queries[0]);
    printf("%5s %5s %8s %8s\n", "layer", "head", "cue", "non-cue");
    for (int l = 0; l < cues->n_layers; l++)
        for (int h = 0; h < cues->n_heads; h++)
            printf("%5d %5d %7.1f%% %7.1f%%\n", l, h, 100.0 * cue_attention_cue_mean(cues, l, h),
                   100.0 * cue_attention_non_cue_mean(cues, l, h));
}

/* The CSV: layer,head,own_copy,earlier_left,same_word,earlier_right,sink,
 * and cue,non_cue when cues is not NULL. Returns a new string (caller
 * frees) or NULL when out of memory. */
static char *csv_text(const AttnFlow *flow, const CueAttention *cues)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    fprintf(mem, "layer,head");
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) fprintf(mem, ",%s", attnflow_category_name(c));
    fprintf(mem, cues ? ",cue,non_cue\n" : "\n");
    for (int l = 0; l < flow->n_layers; l++)
        for (int h = 0; h < flow->n_heads; h++) {
            fprintf(mem, "%d,%d", l, h);
            for (int c = 0; c < FLOW_N_CATEGORIES; c++)
                fprintf(mem, ",%.6f", attnflow_mean(flow, l, h, c));
            if (cues)
                fprintf(mem, ",%.6f,%.6f", cue_attention_cue_mean(cues, l, h), cue_attention_non_cue_mean(cues, l, h));
            fprintf(mem, "\n");
        }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The options of `seqrep attnflow`, as given and as parsed. */
typedef struct {
    const char *model, *adapter, *data, *out, *bos_text, *sep_text, *mask_text, *positions_text, *cues_text;
    int r, as_text, max_sentences, threads;
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
    int with_cues;  /* --cues given */
    TaskKind cue_task;
} AttnflowOptions;

/* Everything a run holds: the checkpoint, its tokenizer and mask plan, the
 * sentences (tokenized), how they are run and which fit, the model and the
 * accumulated split. */
typedef struct {
    CheckpointInfo info;
    Tokenizer tok;
    MaskKind *plan; /* (n_layers) */
    PieceSentences sentences;
    RepeatedForward setup;
    RepeatedFit fit;
    Model model;
    AttnFlow flow;
    int **word_start;  /* --cues: (sentences) each (n_words + 1) piece boundaries of its words */
    int **cue;         /* --cues: (sentences) each (n_words) the word's cue, -1 for none */
    int *n_words;      /* --cues: (sentences) */
    int n_cue_sentences;
    CueAttention cues;
} AttnflowRun;

/* Parse argv into o: 0, 1 after --help, 2 after the error line. */
static int parse_options(int argc, char **argv, AttnflowOptions *o)
{
    *o = (AttnflowOptions){.sep_text = "none", .mask_text = "causal",
                           .positions_text = "run"};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "checkpoint (.safetensors) or Hugging Face model folder"},
        option_adapter_file(&o->adapter, NULL),
        {.name = "data", .type = ARG_STRING, .value = &o->data, .required = 1,
         .help = "CoNLL file (first column = word), or text with --text"},
        {.name = "r", .type = ARG_INT, .value = &o->r, .required = 1,
         .help = "repetitions: k = r + 1 copies of each sentence"},
        {.name = "text", .type = ARG_FLAG, .value = &o->as_text,
         .help = "--data has one sentence per line"},
        option_bos(&o->bos_text, "none | once | per-copy (default per-copy, as the paper and train-lm; none "
                                 "when the tokenizer adds no BOS)"),
        option_sep(&o->sep_text, help_text(&h, "none | token: a <sep> between copies (default %s)",
                                           o->sep_text)),
        option_copy_positions(&o->positions_text),
        option_mask(&o->mask_text, help_text(&h, "mask plan: causal | middle | full | layer list "
                                             "(default %s)", o->mask_text)),
        {.name = "max-sentences", .type = ARG_INT, .value = &o->max_sentences,
         .help = help_text(&h, "use only the first N sentences, 0 = all (default %d)",
                           o->max_sentences)},
        {.name = "out", .type = ARG_STRING, .value = &o->out,
         .help = "CSV to write (atomically, with a manifest)"},
        {.name = "cues", .type = ARG_STRING, .value = &o->cues_text,
         .help = "right-cue | left-cue | last-word: also measure the attention of each ambiguous entity "
                 "word on its cue word (a CoNLL --data of that task; columns cue, non_cue)"},
        option_threads(&o->threads),
    };
    int rc = args_parse(CMD, "--model FILE [--adapter FILE] --data FILE --r R [--text] [--bos B] [--sep S] "
                             "[--mask PLAN] [--cues TASK] [--out FILE]",
                        specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (o->bos_text && option_parse_bos(CMD, o->bos_text, &o->bos)) return 2;
    if (option_parse_sep(CMD, o->sep_text, &o->sep)) return 2;
    if (option_parse_copy_positions(CMD, o->positions_text, &o->copy_positions)) return 2;
    if (o->cues_text) {
        SrError err;
        if (task_from_name(o->cues_text, &o->cue_task, &err)) return args_error(CMD, "--cues: %s", err.msg);
        if (o->as_text) return args_error(CMD, "--cues needs a CoNLL --data (the tags say where the entities are), not --text");
        o->with_cues = 1;
    }
    return 0;
}

/* Read the checkpoint's description and tokenizer and the mask plan; settle
 * o->bos for the tokenizer (readout_choose_bos). 0 or 2 after the error line. */
static int load_checkpoint(AttnflowOptions *o, AttnflowRun *run)
{
    return cli_load_checkpoint(CMD, o->model, o->bos_text, o->sep, o->mask_text, &run->info,
                               &run->tok, &o->bos, &run->plan);
}

/* Sentence s of a --cues run: keep its word boundaries in pieces, find its
 * cues and add its pieces to the run's sentences. 0 or -1 with err. */
static int keep_cue_sentence(const AttnflowOptions *o, AttnflowRun *run, const Dataset *d,
                             const PiecedSentence *ps, int s, SrError *err)
{
    int n = ps->n_words;
    run->n_words[s] = n;
    run->word_start[s] = malloc(sizeof(int) * (size_t)(n + 1));
    run->cue[s] = malloc(sizeof(int) * (size_t)n);
    if (!run->word_start[s] || !run->cue[s]) return sr_fail(err, "%s: out of memory", o->data);
    memcpy(run->word_start[s], ps->first_piece, sizeof(int) * (size_t)n);
    run->word_start[s][n] = ps->n_pieces;
    if (task_sentence_cues(o->cue_task, d, s, run->cue[s], err)) return -1;
    return piece_sentences_add(&run->sentences, ps->pieces, ps->n_pieces, ps->line, err);
}

/* --cues: read the first --max-sentences sentences of the CoNLL file with
 * their tags, cut them into pieces word by word as fine-tuning does
 * (readout_prepare) and keep them as the run's sentences, with each word's
 * piece boundaries and cue (task_cues.h). 0 or -1 with err. */
static int read_cue_sentences(const AttnflowOptions *o, AttnflowRun *run, SrError *err)
{
    Dataset d;
    if (conll_read(o->data, &d, err)) return -1;
    PiecedData pd = {0};
    int rc = readout_prepare(&pd, &d, &run->tok, err);
    int n = o->max_sentences > 0 && o->max_sentences < d.n_sents ? o->max_sentences : d.n_sents;
    if (rc == 0) {
        run->word_start = calloc((size_t)n, sizeof *run->word_start);
        run->cue = calloc((size_t)n, sizeof *run->cue);
        run->n_words = calloc((size_t)n, sizeof *run->n_words);
        run->n_cue_sentences = n;
        if (!run->word_start || !run->cue || !run->n_words) rc = sr_fail(err, "%s: out of memory", o->data);
    }
    for (int s = 0; s < n && rc == 0; s++) rc = keep_cue_sentence(o, run, &d, &pd.sents[s], s, err);
    pieced_data_free(&pd);
    dataset_free(&d);
    return rc;
}

/* Read the data and tokenize the first --max-sentences sentences, keeping
 * those whose repeated input fits; note on stderr what was skipped. 0 or 2
 * after the error line (also when no sentence fits). */
static int tokenize_sentences(const AttnflowOptions *o, AttnflowRun *run)
{
    const ModelConfig cfg = run->info.cfg;
    SrError err;
    if (o->with_cues ? read_cue_sentences(o, run, &err)
                     : piece_sentences_read(o->data, o->as_text, o->max_sentences, &run->sentences, &err) ||
                           piece_sentences_tokenize(&run->sentences, &run->tok, o->data, &err))
        return args_error(CMD, "%s", err.msg);
    run->setup = (RepeatedForward){.r = o->r, .bos = o->bos, .sep = o->sep,
                                   .copy_positions = o->copy_positions,
                                   .ids = readout_repeat_ids(&run->tok), .plan = run->plan};
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

/* Add every layer's attention of one forward to the split, and with
 * --cues to the cue shares (a RepeatedConsumer; ctx is the AttnflowRun). */
static int add_to_flow(void *ctx, Model *m, const RepeatLayout *lay, const PieceSentence *one,
                       SrError *err)
{
    (void)err;
    AttnflowRun *run = ctx;
    int s = (int)(one - run->sentences.items);
    for (int l = 0; l < run->flow.n_layers; l++) {
        attnflow_add_layer(&run->flow, l, model_attention(m, l), lay->T, lay);
        if (run->cue)
            cue_attention_add_layer(&run->cues, l, model_attention(m, l), lay->T, lay, run->word_start[s],
                                    run->cue[s], run->n_words[s]);
    }
    return 0;
}

/* Load the model, run every kept sentence repeated and add each layer's
 * attention to the split. 0 or 2 after the error line. */
static int run_flow(const AttnflowOptions *o, AttnflowRun *run)
{
    SrError err;
    const ModelConfig cfg = run->info.cfg;
    if (adapter_load_model(o->model, o->adapter, &run->model, 1, run->fit.max_T, &err) ||
        attnflow_init(&run->flow, cfg.n_layers, cfg.n_heads, &err) ||
        (o->with_cues && cue_attention_init(&run->cues, cfg.n_layers, cfg.n_heads, &err)) ||
        repeated_forward_all(&run->model, &run->setup, &run->sentences, run->fit.max_n, o->data,
                             add_to_flow, run, &err))
        return args_error(CMD, "%s", err.msg);
    if (o->with_cues && run->cues.n_queries[0] == 0)
        return args_error(CMD, "%s: --cues %s: no ambiguous entity in the sentences measured", o->data,
                          task_name(o->cue_task));
    return 0;
}

/* Print the heading lines and the table on stdout. */
static void print_report(const AttnflowOptions *o, const AttnflowRun *run)
{
    printf("seqrep attnflow: %s%s%s on %s\n", o->model, o->adapter ? " with the adapters of " : "",
           o->adapter ? o->adapter : "", o->data);
    printf("r = %d (k = %d copies), bos %s, sep %s, mask %s: %d sentences, %lld last-copy tokens\n",
           o->r, o->r + 1, repeat_bos_name(o->bos), repeat_sep_name(o->sep), o->mask_text,
           run->fit.n_fit, (long long)run->flow.n_queries[0]);
    printf("Mean share of the attention of last-copy tokens; each line sums to 100%%.\n"
           "\"earlier right\" = words to the right of the token's own word, in earlier copies.\n\n");
    print_table(&run->flow);
    if (o->with_cues) print_cue_table(&run->cues);
}

/* With --out: write the CSV atomically and its manifest beside it ("x.csv" ->
 * "x.manifest.json"), recording inputs, options and counts. 0 or 2 after
 * the error line. */
static int write_outputs(int argc, char **argv, const AttnflowOptions *o, const AttnflowRun *run)
{
    if (!o->out) return 0;
    SrError err;
    char *csv = csv_text(&run->flow, o->with_cues ? &run->cues : NULL);
    if (!csv) return args_error(CMD, "out of memory");
    int rc = write_file_atomic(o->out, csv, &err);
    free(csv);
    if (rc) return args_error(CMD, "%s", err.msg);
    cJSON *manifest = manifest_begin(argc, argv, 0);
    manifest_add_file(manifest, "model", o->model);
    if (o->adapter) manifest_add_file(manifest, "adapter", o->adapter);
    manifest_add_file(manifest, "data", o->data);
    cJSON_AddNumberToObject(manifest, "r", o->r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(o->bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(o->sep));
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(o->copy_positions));
    cJSON_AddStringToObject(manifest, "mask", o->mask_text);
    cJSON_AddNumberToObject(manifest, "sentences", run->fit.n_fit);
    cJSON_AddNumberToObject(manifest, "sentences_skipped_too_long", run->fit.n_too_long);
    cJSON_AddNumberToObject(manifest, "last_copy_tokens", (double)run->flow.n_queries[0]);
    if (o->with_cues) {
        cJSON_AddStringToObject(manifest, "cues", task_name(o->cue_task));
        cJSON_AddNumberToObject(manifest, "cue_queries", (double)run->cues.n_queries[0]);
        cJSON_AddNumberToObject(manifest, "non_cue_queries", (double)run->cues.n_non_cue[0]);
    }
    rc = manifest_write(o->out, manifest, NULL, &err);
    cJSON_Delete(manifest);
    if (rc) return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s\n", o->out);
    return 0;
}

/* Release everything the run holds. */
static void free_run(AttnflowRun *run)
{
    attnflow_free(&run->flow);
    cue_attention_free(&run->cues);
    for (int s = 0; s < run->n_cue_sentences; s++) {
        free(run->word_start[s]);
        free(run->cue[s]);
    }
    free(run->word_start);
    free(run->cue);
    free(run->n_words);
    model_free(&run->model);
    free(run->plan);
    piece_sentences_free(&run->sentences);
    tokenizer_free(&run->tok);
    checkpoint_info_free(&run->info);
}

/* `seqrep attnflow`: read the checkpoint and the data, run every sentence
 * repeated, accumulate the split per layer and head, print and write it. */
int cmd_attnflow(int argc, char **argv)
{
    AttnflowOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    AttnflowRun run = {0};
    rc = load_checkpoint(&o, &run);
    if (rc == 0) rc = tokenize_sentences(&o, &run);
    if (rc == 0) rc = run_flow(&o, &run);
    if (rc == 0) print_report(&o, &run);
    if (rc == 0) rc = write_outputs(argc, argv, &o, &run);
    free_run(&run);
    return rc;
}
