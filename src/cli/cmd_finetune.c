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

#include "cli/commands.h"
#include "base/atomic_file.h"
#include "data/conll.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/cost.h"
#include "label/methods.h"
#include "label/task.h"
#include "label/readout.h"
#include "options/args.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "train/finetune.h"

static const char *CMD = "finetune";

/* Write the test predictions as CoNLL "word gold predicted". */
static int write_predictions(const char *path, const LabelTask *task, const int *pred, SrError *err)
{
    const Dataset *d = &task->test;
    char ***names = calloc((size_t)d->n_sents, sizeof(char **));
    int rc = names ? 0 : sr_fail(err, "out of memory");
    for (int s = 0; s < d->n_sents && rc == 0; s++) {
        names[s] = malloc(sizeof(char *) * (size_t)(d->sents[s].n_words + 1));
        if (!names[s]) {
            rc = sr_fail(err, "out of memory");
            break;
        }
        for (int w = 0; w < d->sents[s].n_words; w++)
            names[s][w] = task->labels.names[pred[task->test_p.word_start[s] + w]];
    }
    if (rc == 0) rc = conll_write(path, d, (char *const *const *)names, err);
    if (names)
        for (int s = 0; s < d->n_sents; s++) free(names[s]);
    free(names);
    return rc;
}

int cmd_finetune(int argc, char **argv)
{
    const char *model_path = NULL, *train_path = NULL, *dev_path = NULL, *test_path = NULL;
    const char *out_path = NULL, *pred_path = NULL, *method_text = NULL;
    const char *bos_text = "per-copy", *sep_text = "none";
    FinetuneConfig fc = finetune_defaults();
    int r = -1, exit_layer = 0, seed = 1, n_threads = 0, quiet = 0;
    ArgSpec specs[] = {
        {"model", ARG_STRING, &model_path, "pre-trained checkpoint (.safetensors)", 1, 0, 0},
        {"train", ARG_STRING, &train_path, "CoNLL training split", 1, 0, 0},
        {"dev", ARG_STRING, &dev_path, "CoNLL dev split (chooses the epoch)", 1, 0, 0},
        {"test", ARG_STRING, &test_path, "CoNLL test split", 1, 0, 0},
        {"method", ARG_STRING, &method_text, "causal | sr | unmask-full | unmask-middle | encoder", 1, 0, 0},
        {"out", ARG_STRING, &out_path, "CSV to write (with NAME.manifest.json beside it)", 1, 0, 0},
        {"r", ARG_INT, &r, "repetitions for --method sr (default 1; other methods use 0)", 0, 0, 0},
        {"exit", ARG_INT, &exit_layer, "read from layer L = 1..N, running only L layers (default N)", 0, 1, 0},
        {"epochs", ARG_INT, &fc.epochs, "training epochs (default 8)", 0, 1, 0},
        {"lr", ARG_FLOAT, &fc.lr, "peak learning rate (default 2e-3)", 0, 0, 0},
        {"batch", ARG_INT, &fc.batch, "sentences per step (default 8)", 0, 1, 0},
        {"seed", ARG_INT, &seed, "seed: head init, order, dropout (default 1)", 0, 0, 0},
        {"dropout", ARG_FLOAT, &fc.dropout, "dropout on the head's input (default 0.1)", 0, 0, 0},
        {"weight-decay", ARG_FLOAT, &fc.weight_decay, "AdamW decoupled decay (default 0.01)", 0, 0, 0},
        {"predictions", ARG_STRING, &pred_path, "CoNLL file: test word, gold, predicted", 0, 0, 0},
        {"bos", ARG_STRING, &bos_text, "none | once | per-copy (default per-copy, as the paper)", 0, 0, 0},
        {"sep", ARG_STRING, &sep_text, "none | token (default none, as the paper)", 0, 0, 0},
        {"threads", ARG_INT, &n_threads, "threads, 0 = all cores (default 0)", 0, 0, 0},
        {"quiet", ARG_FLAG, &quiet, "no progress lines", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--model M --train F --dev F --test F --method METHOD --out run.csv "
                             "[--r R] [--exit L] [--epochs E] [--lr LR] [--batch B] [--seed S] "
                             "[--predictions FILE]",
                        specs, (int)(sizeof specs / sizeof specs[0]), argc, argv, NULL, 0, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    if (method_parse(method_text, &fc.method))
        return args_error(CMD, "--method must be causal, sr, unmask-full, unmask-middle or encoder; "
                               "got '%s'", method_text);
    fc.r = r >= 0 ? r : method_default_r(fc.method); /* --r has minimum 0; -1 = not given */
    if (repeat_parse_bos(bos_text, &fc.bos))
        return args_error(CMD, "--bos must be none, once or per-copy, got '%s'", bos_text);
    if (repeat_parse_sep(sep_text, &fc.sep))
        return args_error(CMD, "--sep must be none or token, got '%s'", sep_text);
    if (!(fc.lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (!(fc.dropout >= 0.0f && fc.dropout < 1.0f)) return args_error(CMD, "--dropout must be in [0, 1)");
    if (fc.weight_decay < 0.0f) return args_error(CMD, "--weight-decay must not be negative");
    SrError err;
    if (method_plan(fc.method, fc.r, NULL, 0, &err)) return args_error(CMD, "%s", err.msg);
    fc.seed = (unsigned long long)seed;
    fc.log = quiet ? NULL : stderr;
    threads_set(n_threads);

    LabelTask task = {0};
    Model m = {0};
    FinetuneResult res = {0};
    MaskKind *plan = NULL;
    cJSON *manifest = NULL;
    char *csv = NULL, *mpath = NULL, *mtext = NULL;
    size_t csv_len = 0;
    rc = 2;

    if (label_task_load(&task, model_path, train_path, dev_path, test_path, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    const ModelConfig cfg = task.info.cfg;
    const int N = cfg.n_layers;
    if (exit_layer > N) {
        args_error(CMD, "--exit %d is outside 1..%d (the model has %d layers)", exit_layer, N, N);
        goto done;
    }
    fc.exit_layer = exit_layer ? exit_layer : N;
    if (fc.method == METHOD_ENCODER && strcmp(task.objective, "mlm") != 0)
        fprintf(stderr, "seqrep %s: warning: method encoder on %s, whose pre-training objective is "
                        "'%s', not 'mlm'\n", CMD, model_path, task.objective);
    if (task.dev_unknown)
        fprintf(stderr, "seqrep %s: warning: %s: %ld tags not in the training data mapped to O\n",
                CMD, dev_path, task.dev_unknown);
    if (task.test_unknown)
        fprintf(stderr, "seqrep %s: warning: %s: %ld tags not in the training data mapped to O\n",
                CMD, test_path, task.test_unknown);
    ReadoutLayout lay = {fc.r, fc.bos, fc.sep};
    const PiecedData *pieces[3] = {&task.train_p, &task.dev_p, &task.test_p};
    int max_T = 1;
    for (int s = 0; s < 3; s++) {
        if (readout_check_fits(pieces[s], lay, cfg.max_seq_len, &err)) {
            args_error(CMD, "%s (r = %d)", err.msg, fc.r);
            goto done;
        }
        int T = readout_max_length(pieces[s], lay);
        if (T > max_T) max_T = T;
    }
    if (checkpoint_load(model_path, &m, fc.batch, max_T, NULL, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!plan || method_plan(fc.method, fc.r, plan, N, &err)) {
        args_error(CMD, "%s", plan ? err.msg : "out of memory");
        goto done;
    }
    if (!quiet)
        fprintf(stderr, "seqrep %s: method %s, r = %d (k = %d copies), exit layer %d of %d; "
                        "%d / %d / %d sentences, %d tags, %d threads\n",
                CMD, method_name(fc.method), fc.r, fc.r + 1, fc.exit_layer, N, task.train.n_sents,
                task.dev.n_sents, task.test.n_sents, task.labels.n, threads_count());
    LabelledSplit train = {&task.train, &task.train_p, task.train_y};
    LabelledSplit dev = {&task.dev, &task.dev_p, task.dev_y};
    LabelledSplit test = {&task.test, &task.test_p, task.test_y};
    if (finetune_run(&m, &task.labels, &train, &dev, &test, &fc, &res, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    double flops[2] = {cost_data_flops(&cfg, &task.dev_p, lay, fc.exit_layer, plan),
                       cost_data_flops(&cfg, &task.test_p, lay, fc.exit_layer, plan)};
    if (!quiet)
        fprintf(stderr, "seqrep %s: best dev F1 %.2f at epoch %d; test F1 %.2f\n", CMD, res.dev.f1,
                res.best_epoch, res.test.f1);

    FILE *mem = open_memstream(&csv, &csv_len);
    if (!mem) {
        args_error(CMD, "out of memory");
        goto done;
    }
    fprintf(mem, "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,"
                 "tokens,seconds,flops\n");
    for (int s = 0; s < 2; s++) {
        const SpanScores *sc = s == 0 ? &res.dev : &res.test;
        fprintf(mem, "%s,%d,%d,%d,%s,%.4f,%.4f,%.4f,%ld,%ld,%ld,%d,%d,%ld,%.3f,%.6g\n",
                method_name(fc.method), fc.r, fc.exit_layer, seed, s == 0 ? "dev" : "test",
                sc->precision, sc->recall, sc->f1, sc->counts.tp, sc->counts.n_pred,
                sc->counts.n_gold, fc.epochs, res.best_epoch, res.train_tokens, res.train_seconds,
                flops[s]);
    }
    if (fclose(mem) != 0 || !csv) {
        args_error(CMD, "out of memory");
        goto done;
    }
    if (write_file_atomic(out_path, csv, &err) ||
        (pred_path && write_predictions(pred_path, &task, res.test_pred, &err))) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }

    manifest = manifest_begin(argc, argv, (unsigned long long)seed);
    manifest_add_file(manifest, "model", model_path);
    cJSON_AddStringToObject(manifest, "model_objective", task.objective);
    const char *paths[3] = {train_path, dev_path, test_path}, *names[3] = {"train", "dev", "test"};
    for (int s = 0; s < 3; s++) {
        char key[32];
        manifest_add_file(manifest, names[s], paths[s]);
        snprintf(key, sizeof key, "%s_sentences", names[s]);
        cJSON_AddNumberToObject(manifest, key, pieces[s]->n_sents);
    }
    cJSON_AddStringToObject(manifest, "method", method_name(fc.method));
    cJSON_AddNumberToObject(manifest, "r", fc.r);
    cJSON_AddNumberToObject(manifest, "exit", fc.exit_layer);
    cJSON_AddNumberToObject(manifest, "n_layers", N);
    cJSON *mask = cJSON_AddArrayToObject(manifest, "mask_plan");
    for (int l = 0; l < N; l++)
        cJSON_AddItemToArray(mask, cJSON_CreateString(plan[l] == MASK_CAUSAL ? "causal" : "bidirectional"));
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(fc.bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(fc.sep));
    cJSON_AddStringToObject(manifest, "head",
                            "linear on final-RMSNorm(res[exit]) at each word's first piece, "
                            "last copy; dropout before it");
    cJSON_AddNumberToObject(manifest, "epochs", fc.epochs);
    cJSON_AddNumberToObject(manifest, "lr", fc.lr);
    cJSON_AddNumberToObject(manifest, "batch", fc.batch);
    cJSON_AddNumberToObject(manifest, "dropout", fc.dropout);
    cJSON_AddNumberToObject(manifest, "weight_decay", fc.weight_decay);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    cJSON_AddNumberToObject(manifest, "best_epoch", res.best_epoch);
    cJSON_AddNumberToObject(manifest, "dev_f1", res.dev.f1);
    cJSON_AddNumberToObject(manifest, "test_f1", res.test.f1);
    cJSON *history = cJSON_AddArrayToObject(manifest, "history");
    for (int e = 0; e < res.n_epochs; e++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "epoch", e + 1);
        cJSON_AddNumberToObject(row, "train_loss", res.epochs[e].train_loss);
        cJSON_AddNumberToObject(row, "dev_f1", res.epochs[e].dev.f1);
        cJSON_AddNumberToObject(row, "test_f1", res.epochs[e].test.f1);
        cJSON_AddNumberToObject(row, "seconds", res.epochs[e].seconds);
        cJSON_AddItemToArray(history, row);
    }
    cJSON_AddStringToObject(manifest, "flops_note",
                            "analytic forward FLOPs of labelling the split once at this exit (cost.h)");
    if (pred_path) cJSON_AddStringToObject(manifest, "predictions", pred_path);
    cJSON_AddStringToObject(manifest, "result", out_path);
    mpath = path_with_suffix(out_path, ".manifest.json");
    mtext = cJSON_Print(manifest);
    if (!mpath || !mtext || write_file_atomic(mpath, mtext, &err)) {
        args_error(CMD, "%s", mpath && mtext ? err.msg : "out of memory");
        goto done;
    }
    printf("%s r=%d exit=%d: dev F1 %.2f, test F1 %.2f (best epoch %d of %d)\n",
           method_name(fc.method), fc.r, fc.exit_layer, res.dev.f1, res.test.f1, res.best_epoch,
           fc.epochs);
    rc = 0;
done:
    free(csv);
    free(mpath);
    free(mtext);
    cJSON_Delete(manifest);
    free(plan);
    finetune_result_free(&res);
    model_free(&m);
    label_task_free(&task);
    return rc;
}
