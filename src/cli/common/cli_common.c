/* cli_common.c — the steps several commands share (see cli_common.h). */
#include "cli/common/cli_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/rss.h"
#include "data/conll.h"
#include "engine/memory_floor.h"
#include "formats/hf/hf_model_folder.h"
#include "label/readout.h"
#include "options/args.h"
#include "options/rows.h"

void cli_warn_unknown_tags(const char *command, const LabelTask *task, SplitPaths paths)
{
    if (task->dev_unknown)
        fprintf(stderr, "seqrep %s: warning: %s: %ld tags not in the training data mapped to O\n",
                command, paths.dev, task->dev_unknown);
    if (task->test_unknown)
        fprintf(stderr, "seqrep %s: warning: %s: %ld tags not in the training data mapped to O\n",
                command, paths.test, task->test_unknown);
}

int cli_task_max_length(const char *command, const LabelTask *task, const int *r_values, int n_r,
                        RepeatBos bos, RepeatSep sep, int max_seq_len, int *max_T)
{
    const PiecedData *pieces[3] = {&task->train_p, &task->dev_p, &task->test_p};
    SrError err;
    *max_T = 1;
    for (int ri = 0; ri < n_r; ri++)
        for (int s = 0; s < 3; s++) {
            /* the copy positions do not change lengths */
            ReadoutLayout lay = {.r = r_values[ri], .bos = bos, .sep = sep,
                                 .copy_positions = REPEAT_POSITIONS_RUN};
            if (readout_check_fits(pieces[s], lay, max_seq_len, &err))
                return args_error(command, "%s (r = %d)", err.msg, r_values[ri]);
            int T = readout_max_length(pieces[s], lay);
            if (T > *max_T) *max_T = T;
        }
    return 0;
}

int cli_default_bos(const char *command, const CheckpointInfo *info, const char *model,
                    const char *bos_text, RepeatSep sep, RepeatBos *bos)
{
    if (bos_text) return option_parse_bos(command, bos_text, bos);
    *bos = REPEAT_BOS_PER_COPY;
    char path[4200];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    if (!hf_is_model_dir(model) || access(path, F_OK) != 0) return 0;
    Tokenizer tok;
    SrError err;
    int rc = checkpoint_tokenizer(info, model, &tok, &err) ||
             readout_choose_bos(&tok, NULL, REPEAT_BOS_PER_COPY, sep, bos, &err);
    tokenizer_free(&tok);
    return rc ? args_error(command, "%s", err.msg) : 0;
}

int cli_write_predictions(const char *path, const LabelTask *task, const int *pred, SrError *err)
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

int cli_mask_plan(const char *command, const char *text, int n_layers, MaskKind **plan)
{
    *plan = malloc(sizeof(MaskKind) * (size_t)n_layers);
    if (!*plan) return args_error(command, "out of memory");
    return option_parse_mask(command, text, *plan, n_layers);
}

int cli_load_checkpoint(const char *command, const char *model, const char *bos_text, RepeatSep sep,
                        const char *mask_text, CheckpointInfo *info, Tokenizer *tok, RepeatBos *bos,
                        MaskKind **plan)
{
    SrError err;
    if (checkpoint_read_info(model, info, &err) || checkpoint_tokenizer(info, model, tok, &err) ||
        readout_choose_bos(tok, bos_text, REPEAT_BOS_PER_COPY, sep, bos, &err))
        return args_error(command, "%s", err.msg);
    return cli_mask_plan(command, mask_text, info->cfg.n_layers, plan);
}

void cli_report_memory(const char *command, const Model *m, const FloorRun *run)
{
    MemoryFloor floor = memory_floor_of_model(m, run);
    double rss = rss_peak_bytes();
    fprintf(stderr, "seqrep %s: peak RSS %.1f MiB; floor %.1f MiB (process %.1f, weights %.1f, "
                    "trained state %.1f, activations %.1f, adapters %.1f, gradients %.1f; "
                    "%d x %d tokens a step%s): %.2fx\n",
            command, bytes_to_mib(rss), bytes_to_mib(floor.total), bytes_to_mib(floor.process),
            bytes_to_mib(floor.weights), bytes_to_mib(floor.trained),
            bytes_to_mib(floor.activations), bytes_to_mib(floor.adapters),
            bytes_to_mib(floor.gradient), run->B, run->T, run->recompute ? ", recomputed" : "",
            floor.total > 0 ? rss / floor.total : 0.0);
}

int cli_check_memory(const char *command, const ModelConfig *c, int matrix_bytes,
                     const FloorRun *run)
{
    MemoryFloor floor = memory_floor_training(c, matrix_bytes, run);
    const char *what;
    double limit = memory_limit_bytes(&what), available = memory_available_bytes();
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char lower[96];
    snprintf(lower, sizeof lower, "%s--batch below %d", run->recompute ? "" : "--recompute or ",
             run->B);
    if (limit > 0.0 && floor.total > limit)
        return args_error(command, "a training step of %d sequences x %d tokens needs at least "
                          "%.1f GiB, more than %s allows (%.1f GiB); try %s", run->B, run->T,
                          floor.total / gib, what, limit / gib, lower);
    if (available > 0.0 && floor.total > available)
        fprintf(stderr, "seqrep %s: warning: a training step of %d sequences x %d tokens needs at "
                        "least %.1f GiB, more than the %.1f GiB available now; %s would need "
                        "less\n", command, run->B, run->T, floor.total / gib, available / gib, lower);
    return 0;
}

double cli_process_bytes(void)
{
    long kib = rss_now_kib();
    return kib > 0 ? 1024.0 * (double)kib : 0.0;
}
