/* cmd_probe.c — `seqrep probe`: how well can linear probes read the tags off
 * the frozen hidden states of a pre-trained model, layer by layer, with the
 * sentence repeated k = r + 1 times?
 *
 * For every r the model runs once over each split (all layers); every word's
 * feature is the residual stream at its first piece in the last copy (and in
 * the first copy, for contrast). One softmax probe per (r, layer, copy) is
 * trained on train and scored on dev and test (strict IOB2 span micro-F1).
 * Nothing is chosen on test: --predictions writes the test labels of the
 * probe with the best DEV F1 (last copy), and the manifest and stderr say
 * which r and layer that was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/progress.h"
#include "base/atomic_file.h"
#include "cli/commands.h"
#include "data/conll.h"
#include "engine/mask.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/methods.h"
#include "label/task.h"
#include "label/probe.h"
#include "label/readout.h"
#include "options/args.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"

static const char *CMD = "probe";

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

/* The features of one split for one r: (N+1, n_words, C) per copy. */
typedef struct {
    float *last, *first;
} SplitFeatures;

int cmd_probe(int argc, char **argv)
{
    const char *model_path = NULL, *train_path = NULL, *dev_path = NULL, *test_path = NULL;
    const char *out_path = NULL, *pred_path = NULL, *r_text = "0,1,2,4", *copies_text = "last,first";
    const char *bos_text = "per-copy", *sep_text = "none", *mask_text = "causal";
    int seed = 1, epochs = 10, batch = 16, n_threads = 0;
    float lr = 1e-2f, l2 = 1e-4f;
    ArgSpec specs[] = {
        {"model", ARG_STRING, &model_path, "pre-trained checkpoint (.safetensors)", 1, 0, 0},
        {"train", ARG_STRING, &train_path, "CoNLL training split", 1, 0, 0},
        {"dev", ARG_STRING, &dev_path, "CoNLL dev split", 1, 0, 0},
        {"test", ARG_STRING, &test_path, "CoNLL test split", 1, 0, 0},
        {"out", ARG_STRING, &out_path, "CSV to write (with NAME.manifest.json beside it)", 1, 0, 0},
        {"r", ARG_STRING, &r_text, "repetitions: list such as 0,1,2,4 or 0..4 (default 0,1,2,4)", 0, 0, 0},
        {"copies", ARG_STRING, &copies_text, "read-out copies: last, first or last,first (default)", 0, 0, 0},
        {"predictions", ARG_STRING, &pred_path, "CoNLL file: test word, gold, predicted (best dev probe)", 0, 0, 0},
        {"seed", ARG_INT, &seed, "probe seed (default 1)", 0, 0, 0},
        {"epochs", ARG_INT, &epochs, "probe training epochs (default 10)", 0, 1, 0},
        {"lr", ARG_FLOAT, &lr, "probe Adam step size (default 1e-2)", 0, 0, 0},
        {"l2", ARG_FLOAT, &l2, "probe L2 penalty (default 1e-4)", 0, 0, 0},
        {"batch", ARG_INT, &batch, "sentences per forward pass (default 16)", 0, 1, 0},
        {"mask", ARG_STRING, &mask_text, "mask plan: causal | middle | full | layer list (default causal)", 0, 0, 0},
        {"bos", ARG_STRING, &bos_text, "none | once | per-copy (default per-copy, as the paper)", 0, 0, 0},
        {"sep", ARG_STRING, &sep_text, "none | token (default none, as the paper)", 0, 0, 0},
        {"threads", ARG_INT, &n_threads, "threads, 0 = all cores (default 0)", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--model M --train F --dev F --test F --out probe.csv [--r 0,1,2,4] "
                             "[--copies last,first] [--predictions FILE] [--seed S] [--epochs E]",
                        specs, (int)(sizeof specs / sizeof specs[0]), argc, argv, NULL, 0, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    RepeatBos bos;
    RepeatSep sep;
    ReadCopy copies[2];
    int n_copies = 0;
    if (repeat_parse_bos(bos_text, &bos))
        return args_error(CMD, "--bos must be none, once or per-copy, got '%s'", bos_text);
    if (repeat_parse_sep(sep_text, &sep))
        return args_error(CMD, "--sep must be none or token, got '%s'", sep_text);
    if (parse_copies(copies_text, copies, &n_copies))
        return args_error(CMD, "--copies must be last, first or last,first; got '%s'", copies_text);
    if (!(lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (l2 < 0.0f) return args_error(CMD, "--l2 must not be negative");
    SrError err;
    int *r_values = NULL, n_r = 0;
    if (repeat_parse_r_list(r_text, &r_values, &n_r, &err))
        return args_error(CMD, "--r: %s", err.msg);
    threads_set(n_threads);

    LabelTask task = {0};
    Model m = {0};
    MaskKind *plan = NULL;
    ProbeTable table = {0};
    SplitFeatures feats[3] = {{0}};
    int *test_pred = NULL, *best_pred = NULL;
    char ***pred_names = NULL;
    char *csv = NULL, *mpath = NULL, *mtext = NULL;
    cJSON *manifest = NULL;
    rc = 2;

    if (label_task_load(&task, model_path, train_path, dev_path, test_path, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    const ModelConfig cfg = task.info.cfg;
    const int N = cfg.n_layers, C = cfg.d_model, n_layers = N + 1;
    if (task.dev_unknown)
        fprintf(stderr, "seqrep %s: warning: %s: %ld tags not in the training data mapped to O\n",
                CMD, dev_path, task.dev_unknown);
    if (task.test_unknown)
        fprintf(stderr, "seqrep %s: warning: %s: %ld tags not in the training data mapped to O\n",
                CMD, test_path, task.test_unknown);
    plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!plan) {
        args_error(CMD, "out of memory");
        goto done;
    }
    if (mask_plan_parse(mask_text, plan, N)) {
        args_error(CMD, "--mask must be causal, middle, full or layer indices 0..%d; got '%s'",
                   N - 1, mask_text);
        goto done;
    }
    const PiecedData *pieces[3] = {&task.train_p, &task.dev_p, &task.test_p};
    const Dataset *data[3] = {&task.train, &task.dev, &task.test};
    const int *labels[3] = {task.train_y, task.dev_y, task.test_y};
    int max_T = 1;
    for (int ri = 0; ri < n_r; ri++)
        for (int s = 0; s < 3; s++) {
            ReadoutLayout lay = {r_values[ri], bos, sep};
            if (readout_check_fits(pieces[s], lay, cfg.max_seq_len, &err)) {
                args_error(CMD, "%s (r = %d)", err.msg, r_values[ri]);
                goto done;
            }
            int T = readout_max_length(pieces[s], lay);
            if (T > max_T) max_T = T;
        }
    if (checkpoint_load(model_path, &m, batch, max_T, NULL, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }

    table = (ProbeTable){n_r, n_copies, n_layers, NULL, NULL};
    size_t n_cells = (size_t)n_r * n_copies * n_layers;
    table.dev = calloc(n_cells, sizeof(SpanScores));
    table.test = calloc(n_cells, sizeof(SpanScores));
    test_pred = malloc(sizeof(int) * (size_t)n_layers * (size_t)(task.test_p.n_words + 1));
    best_pred = malloc(sizeof(int) * (size_t)(task.test_p.n_words + 1));
    int want_first = 0;
    for (int ci = 0; ci < n_copies; ci++) want_first |= copies[ci] == READ_FIRST_COPY;
    int alloc_ok = table.dev && table.test && test_pred && best_pred;
    for (int s = 0; s < 3 && alloc_ok; s++) {
        size_t n = (size_t)n_layers * (size_t)pieces[s]->n_words * C;
        feats[s].last = malloc(sizeof(float) * n);
        feats[s].first = want_first ? malloc(sizeof(float) * n) : NULL;
        alloc_ok = feats[s].last && (!want_first || feats[s].first);
    }
    if (!alloc_ok) {
        args_error(CMD, "out of memory for the features");
        goto done;
    }
    ProbeConfig pcfg = probe_defaults();
    pcfg.epochs = epochs;
    pcfg.lr = lr;
    pcfg.l2 = l2;
    pcfg.seed = (unsigned long long)seed;
    /* the probe for --predictions is chosen on dev among the last-copy probes
     * (the first-copy ones when only those were asked for) */
    int pick_ci = 0;
    for (int ci = 0; ci < n_copies; ci++)
        if (copies[ci] == READ_LAST_COPY) pick_ci = ci;
    int best_ri = 0, best_l = 0;
    double best_dev = -1.0;
    for (int ri = 0; ri < n_r; ri++) {
        ReadoutLayout lay = {r_values[ri], bos, sep};
        double start = progress_now();
        for (int s = 0; s < 3; s++)
            if (readout_collect(&m, pieces[s], lay, plan, batch, feats[s].last, feats[s].first, &err)) {
                args_error(CMD, "%s", err.msg);
                goto done;
            }
        for (int ci = 0; ci < n_copies; ci++) {
            ProbeSplit split[3];
            for (int s = 0; s < 3; s++)
                split[s] = (ProbeSplit){copies[ci] == READ_FIRST_COPY ? feats[s].first : feats[s].last,
                                        labels[s], pieces[s]->n_words, data[s]};
            int i0 = table_index(&table, ri, ci, 0);
            if (probe_layers(&split[0], &split[1], &split[2], n_layers, C, &task.labels, &pcfg,
                             table.dev + i0, table.test + i0, test_pred, &err)) {
                args_error(CMD, "%s", err.msg);
                goto done;
            }
            if (ci != pick_ci) continue;
            for (int l = 0; l < n_layers; l++)
                if (table.dev[i0 + l].f1 > best_dev) {
                    best_dev = table.dev[i0 + l].f1;
                    best_ri = ri, best_l = l;
                    memcpy(best_pred, test_pred + (size_t)l * task.test_p.n_words,
                           sizeof(int) * (size_t)task.test_p.n_words);
                }
        }
        fprintf(stderr, "seqrep %s: r = %d: features and %d probes in %.1f s\n", CMD,
                r_values[ri], n_layers * n_copies, progress_now() - start);
    }
    int best_i = table_index(&table, best_ri, pick_ci, best_l);
    fprintf(stderr, "seqrep %s: best dev F1 %.2f (%s copy): r = %d, layer %d; its test F1 %.2f\n",
            CMD, best_dev, read_copy_name(copies[pick_ci]), r_values[best_ri], best_l,
            table.test[best_i].f1);

    /* outputs: CSV, manifest, predictions */
    csv = csv_text(&table, r_values, copies);
    if (!csv || write_file_atomic(out_path, csv, &err)) {
        args_error(CMD, "%s", csv ? err.msg : "out of memory");
        goto done;
    }
    if (pred_path) {
        pred_names = calloc((size_t)task.test.n_sents, sizeof(char **));
        if (!pred_names) {
            args_error(CMD, "out of memory");
            goto done;
        }
        for (int s = 0; s < task.test.n_sents; s++) {
            pred_names[s] = malloc(sizeof(char *) * (size_t)(task.test.sents[s].n_words + 1));
            if (!pred_names[s]) {
                args_error(CMD, "out of memory");
                goto done;
            }
            for (int w = 0; w < task.test.sents[s].n_words; w++)
                pred_names[s][w] = task.labels.names[best_pred[task.test_p.word_start[s] + w]];
        }
        if (conll_write(pred_path, &task.test, (char *const *const *)pred_names, &err)) {
            args_error(CMD, "%s", err.msg);
            goto done;
        }
    }
    manifest = manifest_begin(argc, argv, (unsigned long long)seed);
    manifest_add_file(manifest, "model", model_path);
    const char *paths[3] = {train_path, dev_path, test_path}, *names[3] = {"train", "dev", "test"};
    for (int s = 0; s < 3; s++) {
        char key[32];
        manifest_add_file(manifest, names[s], paths[s]);
        snprintf(key, sizeof key, "%s_sentences", names[s]);
        cJSON_AddNumberToObject(manifest, key, pieces[s]->n_sents);
        snprintf(key, sizeof key, "%s_words", names[s]);
        cJSON_AddNumberToObject(manifest, key, (double)pieces[s]->n_words);
    }
    cJSON_AddStringToObject(manifest, "model_objective", task.objective);
    cJSON_AddStringToObject(manifest, "r", r_text);
    cJSON_AddStringToObject(manifest, "copies", copies_text);
    cJSON_AddStringToObject(manifest, "mask", mask_text);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    cJSON_AddStringToObject(manifest, "features",
                            "residual stream at the word's first piece, no final norm, standardised");
    cJSON_AddNumberToObject(manifest, "probe_epochs", epochs);
    cJSON_AddNumberToObject(manifest, "probe_lr", lr);
    cJSON_AddNumberToObject(manifest, "probe_l2", l2);
    cJSON_AddNumberToObject(manifest, "probe_batch", pcfg.batch);
    cJSON_AddNumberToObject(manifest, "labels", task.labels.n);
    cJSON_AddNumberToObject(manifest, "dev_unknown_tags", (double)task.dev_unknown);
    cJSON_AddNumberToObject(manifest, "test_unknown_tags", (double)task.test_unknown);
    cJSON *best = cJSON_AddObjectToObject(manifest, "best_dev");
    cJSON_AddStringToObject(best, "copy", read_copy_name(copies[pick_ci]));
    cJSON_AddNumberToObject(best, "r", r_values[best_ri]);
    cJSON_AddNumberToObject(best, "layer", best_l);
    cJSON_AddNumberToObject(best, "dev_f1", table.dev[best_i].f1);
    cJSON_AddNumberToObject(best, "test_f1", table.test[best_i].f1);
    if (pred_path) cJSON_AddStringToObject(manifest, "predictions", pred_path);
    cJSON_AddStringToObject(manifest, "result", out_path);
    mpath = path_with_suffix(out_path, ".manifest.json");
    mtext = cJSON_Print(manifest);
    if (!mpath || !mtext || write_file_atomic(mpath, mtext, &err)) {
        args_error(CMD, "%s", mpath && mtext ? err.msg : "out of memory");
        goto done;
    }
    print_table(&table, r_values, read_copy_name(copies[pick_ci]), pick_ci, best_ri, best_l);
    fprintf(stderr, "wrote %s and %s%s%s\n", out_path, mpath, pred_path ? " and " : "",
            pred_path ? pred_path : "");
    rc = 0;
done:
    if (pred_names) {
        for (int s = 0; s < task.test.n_sents; s++) free(pred_names[s]);
        free(pred_names);
    }
    free(csv);
    free(mpath);
    free(mtext);
    cJSON_Delete(manifest);
    for (int s = 0; s < 3; s++) {
        free(feats[s].last);
        free(feats[s].first);
    }
    free(table.dev);
    free(table.test);
    free(test_pred);
    free(best_pred);
    free(plan);
    free(r_values);
    model_free(&m);
    label_task_free(&task);
    return rc;
}
