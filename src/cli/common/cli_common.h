/* cli_common.h — steps several commands take the same way: warn about
 * dev/test tags the training split lacks, size the model for a labelling
 * task, write test predictions, read the --mask plan, load a checkpoint with
 * its tokenizer, bos and mask plan, choose the --bos of a
 * command without a tokenizer, report the memory used. Each prints or returns
 * exactly what the commands printed before they shared it. */
#ifndef SEQREP_CLI_COMMON_H
#define SEQREP_CLI_COMMON_H

#include <cJSON.h>

#include "base/status.h"
#include "engine/memory_floor.h"
#include "engine/ops/mask.h"
#include "engine/model.h"
#include "formats/checkpoint.h"
#include "label/task.h"
#include "repeat/repeat.h"
#include "text/tokenizer.h"

/* On stderr, one warning per split (dev, test) with tags not in the training
 * data: "seqrep CMD: warning: PATH: N tags not in the training data mapped to O". */
void cli_warn_unknown_tags(const char *command, const LabelTask *task, SplitPaths paths);

/* The longest read-out input over the three splits and the n_r repetitions
 * r_values[0..n_r) with bos and sep, at least 1, into *max_T. When a split
 * does not fit in max_seq_len positions: the error line "seqrep CMD: ...
 * (r = R)" and 2; otherwise 0. */
int cli_task_max_length(const char *command, const LabelTask *task, const int *r_values, int n_r,
                        RepeatBos bos, RepeatSep sep, int max_seq_len, int *max_T);

/* Write the test split as CoNLL "word gold predicted", the predicted tag of
 * test word i being task->labels.names[pred[i]] (pred: test words). 0 or -1. */
int cli_write_predictions(const char *path, const LabelTask *task, const int *pred, SrError *err);

/* The bos mode of a command that does not otherwise need the tokenizer
 * (cost): bos_text when given (NULL = not given), else per-copy, or none
 * when the model is a Hugging Face folder whose tokenizer.json puts no BOS
 * (readout_choose_bos; a folder without tokenizer.json keeps per-copy).
 * 0, or 2 after the error line. */
int cli_default_bos(const char *command, const CheckpointInfo *info, const char *model,
                    const char *bos_text, RepeatSep sep, RepeatBos *bos);

/* A new plan of n_layers masks (*plan, caller frees) read from --mask text.
 * 0, or 2 after the error line (out of memory, or option_parse_mask's). */
int cli_mask_plan(const char *command, const char *text, int n_layers, MaskKind **plan);

/* What a command that runs a checkpoint on its own sentences reads first:
 * the checkpoint's description (*info) and tokenizer (*tok), the --bos mode
 * settled for that tokenizer (*bos; bos_text NULL = not given;
 * readout_choose_bos) and the --mask plan (*plan, n_layers masks, caller
 * frees). 0, or 2 after the error line. */
int cli_load_checkpoint(const char *command, const char *model, const char *bos_text, RepeatSep sep,
                        const char *mask_text, CheckpointInfo *info, Tokenizer *tok, RepeatBos *bos,
                        MaskKind **plan);

/* One line on stderr: this process's peak RSS against the memory floor of
 * the run `run` describes on model m (engine/memory_floor.h). */
void cli_report_memory(const char *command, const Model *m, const FloorRun *run);

/* Before a run allocates its model: the floor of `run` on a model of
 * configuration c whose big matrices take matrix_bytes a value
 * (engine/memory_floor.h) against the memory this process may hold
 * (base/rss.h). Over it: the error line naming the floor, the limit and what
 * lowers the floor (--recompute unless given, --batch), and 2. Over the
 * memory available now (but not the machine's): a warning line, and 0. */
int cli_check_memory(const char *command, const ModelConfig *c, int matrix_bytes,
                     const FloorRun *run);

/* The resident set of this process now, in bytes (FloorRun.process). */
double cli_process_bytes(void);

#endif
