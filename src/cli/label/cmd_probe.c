/* cmd_probe.c — `seqrep probe`: how well can linear probes read the tags off
 * the frozen hidden states of a pre-trained model, layer by layer, with the
 * sentence repeated k = r + 1 times?
 *
 * Under the causal mask the model runs ONCE over each split, with the
 * largest r of the list, and the rows of every smaller r are read from that
 * pass (label/readout_prefix.h: the input of a smaller r is a prefix of it);
 * with other mask plans, or when the features of every r would not fit in
 * PREFIX_FEATURE_BYTES, it runs once per r. Every word's feature is the
 * residual stream at its first piece in the last copy (and in the first
 * copy, for contrast). One softmax probe per (r, layer, copy) is
 * trained on train and scored on dev and test (strict IOB2 span micro-F1).
 * Nothing is chosen on test: --predictions writes the test labels of the
 * probe with the best DEV F1 (last copy), and the manifest and stderr say
 * which r and layer that was. With --adapter FILE (finetune --save) the
 * hidden states are those of the model with the file's LoRA adapters merged
 * in (formats/adapter_apply.h): the probes are trained here on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "base/job/interrupt.h"
#include "base/job/progress.h"
#include "cli/common/cli_common.h"
#include "cli/label/label_commands.h"
#include "engine/ops/mask.h"
#include "engine/threads.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"
#include "label/methods.h"
#include "label/probe.h"
#include "label/readout.h"
#include "label/readout_prefix.h"
#include "label/task.h"
#include "options/args.h"
#include "options/head_plan.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"

static const char *CMD = "probe";

/* Most bytes the features of every r may take for the one-pass read-out;
 * beyond it, one pass per r (one r's features at a time). */
static const double PREFIX_FEATURE_BYTES = 4.0 * 1024 * 1024 * 1024;

/* Scores of every probe: index ((ri * n_copies + ci) * n_layers + l). */
typedef struct {
    int n_r, n_copies, n_layers;
    SpanScores *dev, *test;
} ProbeTable;

/* Position of the cell (r index, copy index, layer) in the table arrays. */
static int table_index(const ProbeTable *t, int ri, int ci, int l)
{
    return (ri * t->n_copies + ci) * t->n_layers + l;
}

/* Parse "--copies": "last", "first", or both comma-separated, into copies[]. */
static int parse_copies(const char *text, ReadCopy copies[2], int *n)
{
    *n = 0;
    char buf[64];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        ReadCopy c;
        if (read_copy_parse(item, &c) || *n == 2 || (*n == 1 && copies[0] == c)) return -1;
        copies[(*n)++] = c;
    }
    return *n > 0 ? 0 : -1;
}

/* CSV text of the table: r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold.
 * New string (caller frees) or NULL when out of memory. */
static char *csv_text(const ProbeTable *t, const int *r_values, const ReadCopy *copies)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    fprintf(mem, "r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold\n");
    for (int ri = 0; ri < t->n_r; ri++)
        for (int ci = 0; ci < t->n_copies; ci++)
            for (int l = 0; l < t->n_layers; l++)
                for (int split = 0; split < 2; split++) {
                    const SpanScores *s = split == 0 ? &t->dev[table_index(t, ri, ci, l)]
                                                     : &t->test[table_index(t, ri, ci, l)];
                    fprintf(mem, "%d,%d,%s,%s,%.4f,%.4f,%.4f,%ld,%ld,%ld\n", r_values[ri], l,
                            read_copy_name(copies[ci]), split == 0 ? "dev" : "test", s->precision,
                            s->recall, s->f1, s->counts.tp, s->counts.n_pred, s->counts.n_gold);
                }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Print the readable table: layers down, r across, dev and test F1 of copy ci;
 * the probe with the best dev F1 is starred. */
static void print_table(const ProbeTable *t, const int *r_values, const char *copy_name, int ci,
                        int best_r, int best_l)
{
    printf("probe F1 (strict IOB2 spans, %%), %s copy, dev / test\n%5s", copy_name, "layer");
    for (int ri = 0; ri < t->n_r; ri++) {
        char head[32];
        snprintf(head, sizeof head, "r=%d", r_values[ri]);
        printf("  %-14s", head);
    }
    printf("\n");
    for (int l = 0; l < t->n_layers; l++) {
        printf("%5d", l);
        for (int ri = 0; ri < t->n_r; ri++) {
            int i = table_index(t, ri, ci, l);
            printf("  %5.1f / %5.1f%c", t->dev[i].f1, t->test[i].f1,
                   ri == best_r && l == best_l ? '*' : ' ');
        }
        printf("\n");
    }
    printf("* best dev F1\n");
}

/* The options of one probe run, as given and as parsed. */
typedef struct {
    const char *model, *adapter, *train, *dev, *test, *out, *predictions;
    const char *r_text, *copies_text, *bos_text, *sep_text, *mask_text, *positions_text, *ablate_text;
    int seed, epochs, batch, threads, quiet;
    float lr, l2;
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
    ReadCopy copies[2];
    int n_copies;
    int *r_values, n_r; /* the list of --r (owned) */
} ProbeOptions;

/* The features of one split: last-copy features (N+1, n_words, C) of each
 * r (n_sets of them: every r in one pass, or one r at a time) and the
 * first-copy features of the r at hand (the same for every r in one pass). */
typedef struct {
    float **last;  /* (n_sets) */
    float *first;
} SplitFeatures;

/* Everything a probe run holds: the task, the weights and a forward-only
 * model on them sized for it, the table of scores and the probe chosen on
 * dev (its cell and test predictions). */
typedef struct {
    LabelTask task;
    Model weights, model;
    MaskKind *plan;          /* (n_layers of the model) */
    float *head_scale;       /* (n_layers, n_heads) --ablate-heads; NULL = every head */
    ProbeTable table;
    SplitFeatures feats[3];  /* train, dev, test */
    int one_pass;            /* 1: every r read from one pass (feats[s].last[ri]) */
    int n_sets;              /* arrays in feats[s].last: n_r in one pass, else 1 */
    int *test_pred;          /* (N+1, test words): every layer's test labels for one copy */
    int *best_pred;          /* (test words): the test labels of the best dev probe */
    int pick_ci;             /* the copy --predictions is chosen among */
    int best_ri, best_l;
    double best_dev;
} ProbeRun;

/* Parse argv into o and check every value that needs no file: 0, 1 after
 * --help, 2 after the error line. */
static int parse_options(int argc, char **argv, ProbeOptions *o)
{
    const ProbeConfig probe = probe_defaults();
    *o = (ProbeOptions){.r_text = "0,1,2,4", .copies_text = "last,first", .positions_text = "run",
                        .sep_text = "none", .mask_text = "causal", .seed = (int)probe.seed,
                        .epochs = probe.epochs, .batch = 16, .lr = probe.lr, .l2 = probe.l2};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "pre-trained checkpoint (.safetensors) or Hugging Face model folder"},
        option_adapter_file(&o->adapter, NULL),
        {.name = "train", .type = ARG_STRING, .value = &o->train, .required = 1,
         .help = "CoNLL training split"},
        {.name = "dev", .type = ARG_STRING, .value = &o->dev, .required = 1,
         .help = "CoNLL dev split"},
        {.name = "test", .type = ARG_STRING, .value = &o->test, .required = 1,
         .help = "CoNLL test split"},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "CSV to write (with NAME.manifest.json beside it)"},
        {.name = "r", .type = ARG_STRING, .value = &o->r_text,
         .help = help_text(&h, "repetitions: list such as 0,1,2,4 or 0..4 (default %s)",
                           o->r_text)},
        {.name = "copies", .type = ARG_STRING, .value = &o->copies_text,
         .help = "read-out copies: last, first or last,first (default)"},
        {.name = "predictions", .type = ARG_STRING, .value = &o->predictions,
         .help = "CoNLL file: test word, gold, predicted (best dev probe)"},
        option_seed(&o->seed, help_text(&h, "probe seed (default %d)", o->seed)),
        {.name = "epochs", .type = ARG_INT, .value = &o->epochs, .min_int = 1,
         .help = help_text(&h, "probe training epochs (default %d)", o->epochs)},
        {.name = "lr", .type = ARG_FLOAT, .value = &o->lr,
         .help = help_text(&h, "probe Adam step size (default %s)", help_number_e(&h, o->lr))},
        {.name = "l2", .type = ARG_FLOAT, .value = &o->l2,
         .help = help_text(&h, "probe L2 penalty (default %s)", help_number_e(&h, o->l2))},
        {.name = "batch", .type = ARG_INT, .value = &o->batch, .min_int = 1,
         .help = help_text(&h, "sentences per forward pass (default %d)", o->batch)},
        option_mask(&o->mask_text, help_text(&h, "mask plan: causal | middle | full | layer list "
                                             "(default %s)", o->mask_text)),
        option_bos(&o->bos_text, "none | once | per-copy (default per-copy, as the paper; none when the "
                                 "tokenizer adds no BOS)"),
        option_sep(&o->sep_text, help_text(&h, "none | token (default %s, as the paper)",
                                           o->sep_text)),
        option_copy_positions(&o->positions_text),
        option_ablate_heads(&o->ablate_text),
        option_threads(&o->threads),
        option_quiet(&o->quiet, "no progress lines on stderr"),
    };
    const char *usage = help_text(&h, "--model M [--adapter FILE] --train F --dev F --test F "
                                      "--out probe.csv [--r %s] [--copies %s] [--predictions FILE] "
                                      "[--seed S] [--epochs E] [--ablate-heads L.H,...]",
                                  o->r_text, o->copies_text);
    int rc = args_parse(CMD, usage, specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (o->bos_text && option_parse_bos(CMD, o->bos_text, &o->bos)) return 2;
    if (option_parse_sep(CMD, o->sep_text, &o->sep)) return 2;
    if (option_parse_copy_positions(CMD, o->positions_text, &o->copy_positions)) return 2;
    if (parse_copies(o->copies_text, o->copies, &o->n_copies))
        return args_error(CMD, "--copies must be last, first or last,first; got '%s'", o->copies_text);
    if (!(o->lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (o->l2 < 0.0f) return args_error(CMD, "--l2 must not be negative");
    return option_parse_r_list(CMD, o->r_text, &o->r_values, &o->n_r);
}

/* Load the task and the model, sized for a batch of the longest input over
 * every r; read the mask plan; settle o->bos for the model's tokenizer
 * (readout_choose_bos). 0 or 2 after the error line. */
static int load_task_and_model(ProbeOptions *o, ProbeRun *run)
{
    SrError err;
    if (label_task_load(&run->task, o->model, o->train, o->dev, o->test, &err) ||
        readout_choose_bos(&run->task.tok, o->bos_text, REPEAT_BOS_PER_COPY, o->sep, &o->bos, &err))
        return args_error(CMD, "%s", err.msg);
    const ModelConfig cfg = run->task.info.cfg;
    SplitPaths paths = {.train = o->train, .dev = o->dev, .test = o->test};
    cli_warn_unknown_tags(CMD, &run->task, paths);
    if (cli_mask_plan(CMD, o->mask_text, cfg.n_layers, &run->plan) ||
        option_parse_ablate_heads(CMD, o->ablate_text, cfg.n_layers, cfg.n_heads, &run->head_scale))
        return 2;
    int max_T;
    if (cli_task_max_length(CMD, &run->task, o->r_values, o->n_r, o->bos, o->sep, cfg.max_seq_len,
                            &max_T))
        return 2;
    if (adapter_load_inference(o->model, o->adapter, &run->weights, &run->model, o->batch, max_T,
                               &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* Allocate the table, the predictions and the features of the three splits
 * (the first copy's only when asked for). 0 or 2 after the error line. */
static int alloc_run(const ProbeOptions *o, ProbeRun *run)
{
    const PiecedData *pieces[3] = {&run->task.train_p, &run->task.dev_p, &run->task.test_p};
    const int n_layers = run->task.info.cfg.n_layers + 1, C = run->task.info.cfg.d_model;
    const size_t n_test = (size_t)(run->task.test_p.n_words + 1);
    run->table = (ProbeTable){.n_r = o->n_r, .n_copies = o->n_copies, .n_layers = n_layers};
    size_t n_cells = (size_t)o->n_r * o->n_copies * n_layers;
    run->table.dev = calloc(n_cells, sizeof(SpanScores));
    run->table.test = calloc(n_cells, sizeof(SpanScores));
    run->test_pred = malloc(sizeof(int) * (size_t)n_layers * n_test);
    run->best_pred = malloc(sizeof(int) * n_test);
    int want_first = 0;
    for (int ci = 0; ci < o->n_copies; ci++) want_first |= o->copies[ci] == READ_FIRST_COPY;
    double bytes = 0.0;
    for (int s = 0; s < 3; s++) bytes += sizeof(float) * (double)n_layers * pieces[s]->n_words * C;
    run->one_pass = o->n_r > 1 && readout_prefix_applies(run->plan, n_layers - 1) &&
                    bytes * (o->n_r + want_first) <= PREFIX_FEATURE_BYTES;
    run->n_sets = run->one_pass ? o->n_r : 1;
    int ok = run->table.dev && run->table.test && run->test_pred && run->best_pred;
    for (int s = 0; s < 3 && ok; s++) {
        size_t n = (size_t)n_layers * (size_t)pieces[s]->n_words * C;
        run->feats[s].last = calloc((size_t)run->n_sets, sizeof(float *));
        ok = run->feats[s].last != NULL;
        for (int i = 0; i < run->n_sets && ok; i++)
            ok = (run->feats[s].last[i] = malloc(sizeof(float) * n)) != NULL;
        run->feats[s].first = want_first ? malloc(sizeof(float) * n) : NULL;
        ok = ok && (!want_first || run->feats[s].first);
    }
    return ok ? 0 : args_error(CMD, "out of memory for the features");
}

/* For the r of index ri: collect the features of the three splits, train and
 * score one probe per layer and copy, and keep the probe with the best dev F1
 * among the copy pick_ci. 0 or 2 after the error line. */
static int probe_one_r(const ProbeOptions *o, const ProbeConfig *pcfg, int ri, ProbeRun *run)
{
    LabelTask *task = &run->task;
    const PiecedData *pieces[3] = {&task->train_p, &task->dev_p, &task->test_p};
    const Dataset *data[3] = {&task->train, &task->dev, &task->test};
    const int *labels[3] = {task->train_y, task->dev_y, task->test_y};
    const int n_layers = run->table.n_layers, C = task->info.cfg.d_model;
    ReadoutLayout lay = {.r = o->r_values[ri], .bos = o->bos, .sep = o->sep,
                         .copy_positions = o->copy_positions};
    SrError err;
    double start = progress_now();
    for (int s = 0; s < 3 && !run->one_pass; s++)
        if (readout_collect(&run->model, pieces[s], lay, run->plan, run->head_scale, o->batch,
                            run->feats[s].last[0], run->feats[s].first, &err))
            return args_error(CMD, "%s", err.msg);
    for (int ci = 0; ci < o->n_copies; ci++) {
        ProbeSplit split[3];
        for (int s = 0; s < 3; s++) {
            const float *last = run->feats[s].last[run->one_pass ? ri : 0];
            split[s] = (ProbeSplit){
                .x = o->copies[ci] == READ_FIRST_COPY ? run->feats[s].first : last,
                .y = labels[s], .n_words = pieces[s]->n_words, .data = data[s]};
        }
        int i0 = table_index(&run->table, ri, ci, 0);
        if (probe_layers(&split[0], &split[1], &split[2], n_layers, C, &task->labels, pcfg,
                         run->table.dev + i0, run->table.test + i0, run->test_pred, &err))
            return args_error(CMD, "%s", err.msg);
        if (ci != run->pick_ci) continue;
        for (int l = 0; l < n_layers; l++)
            if (run->table.dev[i0 + l].f1 > run->best_dev) {
                run->best_dev = run->table.dev[i0 + l].f1;
                run->best_ri = ri, run->best_l = l;
                memcpy(run->best_pred, run->test_pred + (size_t)l * task->test_p.n_words,
                       sizeof(int) * (size_t)task->test_p.n_words);
            }
    }
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: r = %d: %s%d probes in %.1f s\n", CMD, o->r_values[ri],
                run->one_pass ? "" : "features and ", n_layers * o->n_copies, progress_now() - start);
    return 0;
}

/* In one pass: the features of every r of the three splits from one forward
 * of the largest r. 0 or 2 after the error line. */
static int collect_one_pass(const ProbeOptions *o, ProbeRun *run)
{
    const PiecedData *pieces[3] = {&run->task.train_p, &run->task.dev_p, &run->task.test_p};
    ReadoutLayout lay = {.r = 0, .bos = o->bos, .sep = o->sep, .copy_positions = o->copy_positions};
    SrError err;
    double start = progress_now();
    for (int s = 0; s < 3; s++)
        if (readout_collect_prefixes(&run->model, pieces[s], lay, o->r_values, o->n_r, run->plan,
                                     run->head_scale, o->batch, run->feats[s].last,
                                     run->feats[s].first, &err))
            return args_error(CMD, "%s", err.msg);
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: features of every r from one pass of the largest in %.1f s\n", CMD,
                progress_now() - start);
    return 0;
}

/* Fill the whole table, r by r, and say on stderr which probe was best on
 * dev. 0 or 2 after the error line. */
static int probe_all(const ProbeOptions *o, ProbeRun *run)
{
    if (alloc_run(o, run)) return 2;
    ProbeConfig pcfg = probe_defaults();
    pcfg.epochs = o->epochs;
    pcfg.lr = o->lr;
    pcfg.l2 = o->l2;
    pcfg.seed = (unsigned long long)o->seed;
    /* the probe for --predictions is chosen on dev among the last-copy probes
     * (the first-copy ones when only those were asked for) */
    run->pick_ci = 0;
    for (int ci = 0; ci < o->n_copies; ci++)
        if (o->copies[ci] == READ_LAST_COPY) run->pick_ci = ci;
    run->best_ri = 0, run->best_l = 0;
    run->best_dev = -1.0;
    if (run->one_pass && collect_one_pass(o, run)) return 2;
    for (int ri = 0; ri < o->n_r; ri++)
        if (probe_one_r(o, &pcfg, ri, run)) return 2;
    int best_i = table_index(&run->table, run->best_ri, run->pick_ci, run->best_l);
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: best dev F1 %.2f (%s copy): r = %d, layer %d; its test F1 %.2f\n",
                CMD, run->best_dev, read_copy_name(o->copies[run->pick_ci]), o->r_values[run->best_ri],
                run->best_l, run->table.test[best_i].f1);
    return 0;
}

/* The manifest of the run: inputs, options, counts and the best dev probe
 * (without "result", which manifest_write adds). */
static cJSON *probe_manifest(int argc, char **argv, const ProbeOptions *o, const ProbeRun *run)
{
    const LabelTask *task = &run->task;
    int best_i = table_index(&run->table, run->best_ri, run->pick_ci, run->best_l);
    cJSON *manifest = manifest_begin(argc, argv, (unsigned long long)o->seed);
    manifest_add_file(manifest, "model", o->model);
    if (o->adapter) manifest_add_file(manifest, "adapter", o->adapter);
    SplitPaths paths = {.train = o->train, .dev = o->dev, .test = o->test};
    manifest_add_splits(manifest, task, paths, 1);
    cJSON_AddStringToObject(manifest, "model_objective", task->objective);
    cJSON_AddStringToObject(manifest, "r", o->r_text);
    cJSON_AddStringToObject(manifest, "copies", o->copies_text);
    cJSON_AddStringToObject(manifest, "mask", o->mask_text);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(o->bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(o->sep));
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(o->copy_positions));
    cJSON_AddStringToObject(manifest, "ablate_heads", head_plan_name(o->ablate_text));
    cJSON_AddStringToObject(manifest, "features",
                            "residual stream at the word's first piece, no final norm, standardised");
    cJSON_AddNumberToObject(manifest, "probe_epochs", o->epochs);
    cJSON_AddNumberToObject(manifest, "probe_lr", o->lr);
    cJSON_AddNumberToObject(manifest, "probe_l2", o->l2);
    cJSON_AddNumberToObject(manifest, "probe_batch", probe_defaults().batch);
    cJSON_AddNumberToObject(manifest, "labels", task->labels.n);
    cJSON_AddNumberToObject(manifest, "dev_unknown_tags", (double)task->dev_unknown);
    cJSON_AddNumberToObject(manifest, "test_unknown_tags", (double)task->test_unknown);
    cJSON *best = cJSON_AddObjectToObject(manifest, "best_dev");
    cJSON_AddStringToObject(best, "copy", read_copy_name(o->copies[run->pick_ci]));
    cJSON_AddNumberToObject(best, "r", o->r_values[run->best_ri]);
    cJSON_AddNumberToObject(best, "layer", run->best_l);
    cJSON_AddNumberToObject(best, "dev_f1", run->table.dev[best_i].f1);
    cJSON_AddNumberToObject(best, "test_f1", run->table.test[best_i].f1);
    if (o->predictions) cJSON_AddStringToObject(manifest, "predictions", o->predictions);
    return manifest;
}

/* Write the CSV, the predictions and the manifest, then print the table and
 * the files written. 0 or 2 after the error line. */
static int write_outputs(int argc, char **argv, const ProbeOptions *o, const ProbeRun *run)
{
    SrError err;
    char *csv = csv_text(&run->table, o->r_values, o->copies);
    if (!csv || write_file_atomic(o->out, csv, &err)) {
        free(csv);
        return args_error(CMD, "%s", csv ? err.msg : "out of memory");
    }
    free(csv);
    if (o->predictions && cli_write_predictions(o->predictions, &run->task, run->best_pred, &err))
        return args_error(CMD, "%s", err.msg);
    cJSON *manifest = probe_manifest(argc, argv, o, run);
    char *mpath;
    int rc = manifest_write(o->out, manifest, &mpath, &err);
    cJSON_Delete(manifest);
    if (rc) return args_error(CMD, "%s", err.msg);
    print_table(&run->table, o->r_values, read_copy_name(o->copies[run->pick_ci]), run->pick_ci,
                run->best_ri, run->best_l);
    if (!o->quiet)
        fprintf(stderr, "wrote %s and %s%s%s\n", o->out, mpath, o->predictions ? " and " : "",
                o->predictions ? o->predictions : "");
    free(mpath);
    return 0;
}

/* Release everything the run holds. */
static void free_run(ProbeRun *run)
{
    for (int s = 0; s < 3; s++) {
        for (int i = 0; run->feats[s].last && i < run->n_sets; i++) free(run->feats[s].last[i]);
        free(run->feats[s].last);
        free(run->feats[s].first);
    }
    free(run->table.dev);
    free(run->table.test);
    free(run->test_pred);
    free(run->best_pred);
    free(run->plan);
    free(run->head_scale);
    model_free(&run->model); /* before the weights it borrows */
    model_free(&run->weights);
    label_task_free(&run->task);
}

/* `seqrep probe`: options, task and model, every probe, then the outputs. */
int cmd_probe(int argc, char **argv)
{
    ProbeOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    ProbeRun run = {0};
    rc = load_task_and_model(&o, &run);
    if (rc == 0) rc = probe_all(&o, &run);
    if (rc == 0) {
        interrupt_hold(); /* the outputs are all written, or none is, when a signal comes */
        rc = write_outputs(argc, argv, &o, &run);
        interrupt_release();
    }
    free_run(&run);
    free(o.r_values);
    return rc;
}
