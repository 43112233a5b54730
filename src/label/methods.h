/* methods.h — the labelling methods compared in the paper, as plans.
 *
 * A method is nothing but a number of repetitions r and a mask plan; the model
 * is the same for all of them:
 *
 *   method          r            mask plan
 *   causal          0            causal in every layer (the decoder as it is)
 *   sr              r >= 1       causal in every layer (sequence repetition)
 *   unmask-full     0            bidirectional in every layer
 *   unmask-middle   0            mask_plan_middle: the middle layers bidirectional
 *   encoder         0            bidirectional in every layer, meant for a model
 *                                pre-trained with masked-LM (checkpoint objective "mlm")
 *
 * The second half of the file is the task every method runs on: a checkpoint
 * (its tokenizer rebuilt from the stored vocabulary and manifest) and three
 * CoNLL splits, their tag ids and their pieces. Probing, fine-tuning and any
 * sweep load it the same way. */
#ifndef SEQREP_METHODS_H
#define SEQREP_METHODS_H

#include "base/status.h"
#include "data/dataset.h"
#include "engine/mask.h"
#include "formats/checkpoint.h"
#include "label/labels.h"
#include "label/readout.h"
#include "text/tokenizer.h"

typedef enum {
    METHOD_CAUSAL = 0,
    METHOD_SR = 1,
    METHOD_UNMASK_FULL = 2,
    METHOD_UNMASK_MIDDLE = 3,
    METHOD_ENCODER = 4,
    METHOD_COUNT = 5
} Method;

/* Parse "causal" | "sr" | "unmask-full" | "unmask-middle" | "encoder"; 0 or -1. */
int method_parse(const char *text, Method *out);

/* The name the parser accepts. */
const char *method_name(Method method);

/* r used when the caller gives none: 1 for sr, 0 otherwise. */
int method_default_r(Method method);

/* Check r for the method (sr: r >= 1; every other method: r == 0) and fill
 * plan[0..n_layers) with its mask plan. */
int method_plan(Method method, int r, MaskKind *plan, int n_layers, SrError *err);

/* ---- the task ------------------------------------------------------------- */

/* The checkpoint manifest's "objective" ("causal-lm", "mlm"), or "causal-lm"
 * when the manifest does not say. Copied into out (n bytes). */
void checkpoint_objective(const CheckpointInfo *info, char *out, int n);

typedef struct {
    CheckpointInfo info;            /* config, vocabulary, manifest of the model */
    Tokenizer tok;
    Dataset train, dev, test;       /* IOB2 words and tags (conll.h) */
    LabelSet labels;                /* from the training split */
    int *train_y, *dev_y, *test_y;  /* (words of the split) tag ids */
    long dev_unknown, test_unknown; /* dev/test tags not in the training split (mapped to O) */
    PiecedData train_p, dev_p, test_p;
    char objective[32];             /* the checkpoint's pre-training objective */
} LabelTask;

/* Read the checkpoint's description (not its weights) and the three CoNLL
 * files; build the tag set, tag ids and pieces. Errors name the file (and
 * line). On failure *t is empty. */
int label_task_load(LabelTask *t, const char *model_path, const char *train_path,
                    const char *dev_path, const char *test_path, SrError *err);
/* Release everything label_task_load made; *t becomes empty. */
void label_task_free(LabelTask *t);

#endif
