/* labelled_task.h — a labelling task held in memory: tokenizer, the three
 * splits as words, pieces and tag ids, and the label set. Shared by the
 * fine-tuning tests (finetune_task.h) and the benchmark (bench/bench_finetune.c). */
#ifndef SEQREP_LABELLED_TASK_H
#define SEQREP_LABELLED_TASK_H

#include <stdlib.h>

#include "data/dataset.h"
#include "label/labels.h"
#include "label/readout.h"
#include "text/tokenizer.h"
#include "train/finetune.h"

typedef struct {
    Tokenizer tok;
    Dataset data[3];      /* train, dev, test */
    PiecedData pieces[3];
    int *labels[3];       /* (words of split k) tag ids */
    LabelSet ls;
    LabelledSplit split[3];
} LabelledTask;

/* Release everything the task holds. */
static inline void labelled_task_free(LabelledTask *t)
{
    for (int k = 0; k < 3; k++) {
        dataset_free(&t->data[k]);
        pieced_data_free(&t->pieces[k]);
        free(t->labels[k]);
    }
    labels_free(&t->ls);
    tokenizer_free(&t->tok);
}

#endif
