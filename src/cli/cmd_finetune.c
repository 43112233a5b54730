/* cmd_finetune.c — `seqrep finetune`: fine-tune a pre-trained model for
 * sequence labelling with one method (causal, sr, unmask-full,
 * unmask-middle, encoder; see methods.h) and report strict span F1.
 *
 * The model is cut at --exit L, a linear head on the final-norm'd residual
 * stream at layer L reads each word's first piece in the last copy, and all
 * weights are trained (finetune.h). The test score is the one at the epoch
 * with the best dev F1. The CSV has one row per split (dev, test) with the
 * method, r, exit layer, seed, precision / recall / F1, the training tokens
 * and seconds, and the analytic forward FLOPs of labelling that split once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/cost.h"
#include "label/methods.h"
#include "label/readout.h"
#include "label/task.h"
#include "options/args.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "train/finetune.h"

static const char *CMD = "finetune";

/* The options of one fine-tuning run; fc holds the parsed training settings
 * (its exit layer is set once the model's depth is known). */
typedef struct {
    const char *model, *train, *dev, *test, *out, *predictions;
    int exit_layer; /* as given: 0 = the model's depth */
    int seed, threads, quiet;
    FinetuneConfig fc;
} FinetuneOptions;

/* Everything a run holds: the task, the model, its mask plan, the result and
 * the forward FLOPs of labelling dev and test once. */
typedef struct {
    LabelTask task;
    Model model;
    MaskKind *plan; /* (n_layers of the model) */
    FinetuneResult res;
    double flops[2];
} FinetuneRun;

/* Parse argv into o and check every value that needs no file: 0, 1 after
 * --help, 2 after the error line. */
static int parse_options(int argc, char **argv, FinetuneOptions *o)
{
    const char *method_text = NULL, *bos_text = "per-copy", *sep_text = "none";
    int r = 0;
    *o = (FinetuneOptions){.seed = 1, .fc = finetune_defaults()};
    FinetuneConfig *fc = &o->fc;
    ArgSpec specs[] = {
        {"model", ARG_STRING, &o->model, "pre-trained checkpoint (.safetensors)", 1, 0, 0},
        {"train", ARG_STRING, &o->train, "CoNLL training split", 1, 0, 0},
        {"dev", ARG_STRING, &o->dev, "CoNLL dev split (chooses the epoch)", 1, 0, 0},
        {"test", ARG_STRING, &o->test, "CoNLL test split", 1, 0, 0},
        {"method", ARG_STRING, &method_text, "causal | sr | unmask-full | unmask-middle | encoder", 1, 0, 0},
        {"out", ARG_STRING, &o->out, "CSV to write (with NAME.manifest.json beside it)", 1, 0, 0},
        {"r", ARG_INT, &r, "repetitions for --method sr (default 1; other methods use 0)", 0, 0, 0},
        {"exit", ARG_INT, &o->exit_layer, "read from layer L = 1..N, running only L layers (default N)", 0, 1, 0},
        {"epochs", ARG_INT, &fc->epochs, "training epochs (default 8)", 0, 1, 0},
        {"lr", ARG_FLOAT, &fc->lr, "peak learning rate (default 2e-3)", 0, 0, 0},
        {"batch", ARG_INT, &fc->batch, "sentences per step (default 8)", 0, 1, 0},
        option_seed(&o->seed, "seed: head init, order, dropout (default 1)"),
        {"dropout", ARG_FLOAT, &fc->dropout, "dropout on the head's input (default 0.1)", 0, 0, 0},
        {"weight-decay", ARG_FLOAT, &fc->weight_decay, "AdamW decoupled decay (default 0.01)", 0, 0, 0},
        {"predictions", ARG_STRING, &o->predictions, "CoNLL file: test word, gold, predicted", 0, 0, 0},
        option_bos(&bos_text, "none | once | per-copy (default per-copy, as the paper)"),
        option_sep(&sep_text, "none | token (default none, as the paper)"),
        option_threads(&o->threads),
        option_quiet(&o->quiet, "no progress lines"),
    };
    int rc = args_parse(CMD, "--model M --train F --dev F --test F --method METHOD --out run.csv "
                             "[--r R] [--exit L] [--epochs E] [--lr LR] [--batch B] [--seed S] "
                             "[--predictions FILE]",
                        specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (method_parse(method_text, &fc->method))
        return args_error(CMD, "--method must be causal, sr, unmask-full, unmask-middle or encoder; "
                               "got '%s'", method_text);
    fc->r = args_given(specs, ARGS_COUNT(specs), "r") ? r : method_default_r(fc->method);
    if (option_parse_bos(CMD, bos_text, &fc->bos)) return 2;
    if (option_parse_sep(CMD, sep_text, &fc->sep)) return 2;
    if (!(fc->lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (!(fc->dropout >= 0.0f && fc->dropout < 1.0f)) return args_error(CMD, "--dropout must be in [0, 1)");
    if (fc->weight_decay < 0.0f) return args_error(CMD, "--weight-decay must not be negative");
    SrError err;
    if (method_plan(fc->method, fc->r, NULL, 0, &err)) return args_error(CMD, "%s", err.msg);
    fc->seed = (unsigned long long)o->seed;
    fc->log = o->quiet ? NULL : stderr;
    return 0;
}

/* Load the task, check the exit layer, warn about the objective and unknown
 * tags, load the model sized for the longest input and build the method's
 * mask plan. 0 or 2 after the error line. */
static int load_task_and_model(FinetuneOptions *o, FinetuneRun *run)
{
    SrError err;
    FinetuneConfig *fc = &o->fc;
    if (label_task_load(&run->task, o->model, o->train, o->dev, o->test, &err))
        return args_error(CMD, "%s", err.msg);
    const ModelConfig cfg = run->task.info.cfg;
    const int N = cfg.n_layers;
    if (o->exit_layer > N)
        return args_error(CMD, "--exit %d is outside 1..%d (the model has %d layers)", o->exit_layer,
                          N, N);
    fc->exit_layer = o->exit_layer ? o->exit_layer : N;
    if (fc->method == METHOD_ENCODER && strcmp(run->task.objective, "mlm") != 0)
        fprintf(stderr, "seqrep %s: warning: method encoder on %s, whose pre-training objective is "
                        "'%s', not 'mlm'\n", CMD, o->model, run->task.objective);
    cli_warn_unknown_tags(CMD, &run->task, (SplitPaths){o->train, o->dev, o->test});
    int max_T;
    if (cli_task_max_length(CMD, &run->task, &fc->r, 1, fc->bos, fc->sep, cfg.max_seq_len, &max_T))
        return 2;
    if (checkpoint_load(o->model, &run->model, fc->batch, max_T, NULL, &err))
        return args_error(CMD, "%s", err.msg);
    run->plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!run->plan || method_plan(fc->method, fc->r, run->plan, N, &err))
        return args_error(CMD, "%s", run->plan ? err.msg : "out of memory");
    return 0;
}

/* Fine-tune, then count the FLOPs of labelling dev and test once. 0 or 2
 * after the error line. */
static int run_finetune(const FinetuneOptions *o, FinetuneRun *run)
{
    const FinetuneConfig *fc = &o->fc;
    const LabelTask *task = &run->task;
    const ModelConfig *cfg = &task->info.cfg;
    SrError err;
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: method %s, r = %d (k = %d copies), exit layer %d of %d; "
                        "%d / %d / %d sentences, %d tags, %d threads\n",
                CMD, method_name(fc->method), fc->r, fc->r + 1, fc->exit_layer, cfg->n_layers,
                task->train.n_sents, task->dev.n_sents, task->test.n_sents, task->labels.n,
                threads_count());
    LabelledSplit train = {&task->train, &task->train_p, task->train_y};
    LabelledSplit dev = {&task->dev, &task->dev_p, task->dev_y};
    LabelledSplit test = {&task->test, &task->test_p, task->test_y};
    if (finetune_run(&run->model, &task->labels, &train, &dev, &test, fc, &run->res, &err))
        return args_error(CMD, "%s", err.msg);
    ReadoutLayout lay = {fc->r, fc->bos, fc->sep};
    run->flops[0] = cost_data_flops(cfg, &task->dev_p, lay, fc->exit_layer, run->plan);
    run->flops[1] = cost_data_flops(cfg, &task->test_p, lay, fc->exit_layer, run->plan);
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: best dev F1 %.2f at epoch %d; test F1 %.2f\n", CMD,
                run->res.dev.f1, run->res.best_epoch, run->res.test.f1);
    return 0;
}

/* The CSV: one row per split (dev, test). A new string (caller frees) or NULL
 * when out of memory. */
static char *csv_text(const FinetuneOptions *o, const FinetuneRun *run)
{
    const FinetuneConfig *fc = &o->fc;
    const FinetuneResult *res = &run->res;
    char *csv = NULL;
    size_t csv_len = 0;
    FILE *mem = open_memstream(&csv, &csv_len);
    if (!mem) return NULL;
    fprintf(mem, "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,"
                 "tokens,seconds,flops\n");
    for (int s = 0; s < 2; s++) {
        const SpanScores *sc = s == 0 ? &res->dev : &res->test;
        fprintf(mem, "%s,%d,%d,%d,%s,%.4f,%.4f,%.4f,%ld,%ld,%ld,%d,%d,%ld,%.3f,%.6g\n",
                method_name(fc->method), fc->r, fc->exit_layer, o->seed, s == 0 ? "dev" : "test",
                sc->precision, sc->recall, sc->f1, sc->counts.tp, sc->counts.n_pred,
                sc->counts.n_gold, fc->epochs, res->best_epoch, res->train_tokens,
                res->train_seconds, run->flops[s]);
    }
    if (fclose(mem) != 0) {
        free(csv);
        return NULL;
    }
    return csv;
}

/* The manifest: inputs, method and layout, training settings, the scores and
 * the history of every epoch (without "result", which cli_write_manifest adds). */
static cJSON *finetune_manifest(int argc, char **argv, const FinetuneOptions *o,
                                const FinetuneRun *run)
{
    const FinetuneConfig *fc = &o->fc;
    const FinetuneResult *res = &run->res;
    const int N = run->task.info.cfg.n_layers;
    cJSON *manifest = manifest_begin(argc, argv, (unsigned long long)o->seed);
    manifest_add_file(manifest, "model", o->model);
    cJSON_AddStringToObject(manifest, "model_objective", run->task.objective);
    cli_manifest_add_splits(manifest, &run->task, (SplitPaths){o->train, o->dev, o->test}, 0);
    cJSON_AddStringToObject(manifest, "method", method_name(fc->method));
    cJSON_AddNumberToObject(manifest, "r", fc->r);
    cJSON_AddNumberToObject(manifest, "exit", fc->exit_layer);
    cJSON_AddNumberToObject(manifest, "n_layers", N);
    cJSON *mask = cJSON_AddArrayToObject(manifest, "mask_plan");
    for (int l = 0; l < N; l++)
        cJSON_AddItemToArray(mask, cJSON_CreateString(run->plan[l] == MASK_CAUSAL ? "causal"
                                                                                 : "bidirectional"));
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(fc->bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(fc->sep));
    cJSON_AddStringToObject(manifest, "head",
                            "linear on final-RMSNorm(res[exit]) at each word's first piece, "
                            "last copy; dropout before it");
    cJSON_AddNumberToObject(manifest, "epochs", fc->epochs);
    cJSON_AddNumberToObject(manifest, "lr", fc->lr);
    cJSON_AddNumberToObject(manifest, "batch", fc->batch);
    cJSON_AddNumberToObject(manifest, "dropout", fc->dropout);
    cJSON_AddNumberToObject(manifest, "weight_decay", fc->weight_decay);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    cJSON_AddNumberToObject(manifest, "best_epoch", res->best_epoch);
    cJSON_AddNumberToObject(manifest, "dev_f1", res->dev.f1);
    cJSON_AddNumberToObject(manifest, "test_f1", res->test.f1);
    cJSON *history = cJSON_AddArrayToObject(manifest, "history");
    for (int e = 0; e < res->n_epochs; e++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "epoch", e + 1);
        cJSON_AddNumberToObject(row, "train_loss", res->epochs[e].train_loss);
        cJSON_AddNumberToObject(row, "dev_f1", res->epochs[e].dev.f1);
        cJSON_AddNumberToObject(row, "test_f1", res->epochs[e].test.f1);
        cJSON_AddNumberToObject(row, "seconds", res->epochs[e].seconds);
        cJSON_AddItemToArray(history, row);
    }
    cJSON_AddStringToObject(manifest, "flops_note",
                            "analytic forward FLOPs of labelling the split once at this exit (cost.h)");
    if (o->predictions) cJSON_AddStringToObject(manifest, "predictions", o->predictions);
    return manifest;
}

/* Write the CSV, the predictions and the manifest, then print the summary
 * line. 0 or 2 after the error line. */
static int write_outputs(int argc, char **argv, const FinetuneOptions *o, const FinetuneRun *run)
{
    SrError err;
    char *csv = csv_text(o, run);
    if (!csv) return args_error(CMD, "out of memory");
    int rc = write_file_atomic(o->out, csv, &err);
    free(csv);
    if (rc || (o->predictions &&
               cli_write_predictions(o->predictions, &run->task, run->res.test_pred, &err)))
        return args_error(CMD, "%s", err.msg);
    cJSON *manifest = finetune_manifest(argc, argv, o, run);
    rc = cli_write_manifest(o->out, manifest, NULL, &err);
    cJSON_Delete(manifest);
    if (rc) return args_error(CMD, "%s", err.msg);
    printf("%s r=%d exit=%d: dev F1 %.2f, test F1 %.2f (best epoch %d of %d)\n",
           method_name(o->fc.method), o->fc.r, o->fc.exit_layer, run->res.dev.f1,
           run->res.test.f1, run->res.best_epoch, o->fc.epochs);
    return 0;
}

/* `seqrep finetune`: options, task and model, training, then the outputs. */
int cmd_finetune(int argc, char **argv)
{
    FinetuneOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    FinetuneRun run = {0};
    rc = load_task_and_model(&o, &run);
    if (rc == 0) rc = run_finetune(&o, &run);
    if (rc == 0) rc = write_outputs(argc, argv, &o, &run);
    free(run.plan);
    finetune_result_free(&run.res);
    model_free(&run.model);
    label_task_free(&run.task);
    return rc;
}
