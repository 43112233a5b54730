/* task.h — the task every labelling method runs on: a checkpoint (its
 * tokenizer rebuilt from the stored vocabulary and manifest) and three CoNLL
 * splits, their tag ids and their pieces. Probing, fine-tuning and any sweep
 * load it the same way. */
#ifndef SEQREP_TASK_H
#define SEQREP_TASK_H

#include "base/status.h"
#include "data/dataset.h"
#include "formats/checkpoint.h"
#include "label/labels.h"
#include "label/readout.h"
#include "text/tokenizer.h"

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

/* The three split files of a labelling task, in the order train, dev, test. */
typedef struct {
    const char *train, *dev, *test;
} SplitPaths;

/* Read the checkpoint's description (not its weights) and the three CoNLL
 * files; build the tag set, tag ids and pieces. Errors name the file (and
 * line). On failure *t is empty. */
int label_task_load(LabelTask *t, const char *model_path, const char *train_path,
                    const char *dev_path, const char *test_path, SrError *err);
/* Release everything label_task_load made; *t becomes empty. */
void label_task_free(LabelTask *t);

#endif
