/* sweep_table.h — the table of a sweep's results: one row per finished run,
 * found by its key (sweep_grid.h), written and read back as CSV.
 *
 * A table can be read back, so a sweep resumes by running only the grid's
 * runs without a row, and tables from many machines merge by key.
 *
 * The sweep CSV has the columns SWEEP_CSV_HEADER (one row per run):
 *   dev_/test_precision, _recall, _f1   strict IOB2 span scores, percent,
 *                                       test at the epoch with the best dev F1
 *   epochs, best_epoch                  fine-tuning epochs and the chosen one
 *   tokens                              tokens fed in training (no padding)
 *   seconds                             wall clock of the training steps
 *   train_sentences, test_sentences
 *   flops                               analytic forward FLOPs per test
 *                                       sentence (mean; cost.h) at this exit
 *   ms_per_sentence                     training milliseconds per sentence
 *                                       and epoch (forward and backward)
 *   recipe                              the fine-tuning recipe's label (part
 *                                       of the key; train/recipe.h). Sweep
 *                                       CSVs written before it are read as
 *                                       "full"
 *   positions                           run | restart | induction: how the
 *                                       copies are numbered (part of the key;
 *                                       the last two for sr only). Sweep CSVs written
 *                                       before it are read as "run"
 *   command                             the `seqrep finetune` command line */
#ifndef SEQREP_SWEEP_TABLE_H
#define SEQREP_SWEEP_TABLE_H

#include "base/status.h"
#include "runs/sweep/sweep_grid.h"

#define SWEEP_CSV_HEADER                                                                        \
    "dataset,model,method,r,exit,seed,dev_precision,dev_recall,dev_f1,test_precision,"          \
    "test_recall,test_f1,epochs,best_epoch,tokens,seconds,train_sentences,test_sentences,flops," \
    "ms_per_sentence,recipe,positions,command"

/* One finished run. */
typedef struct {
    SweepRun key;
    double dev_precision, dev_recall, dev_f1;
    double test_precision, test_recall, test_f1;
    int epochs, best_epoch;
    long tokens, train_sentences, test_sentences;
    double seconds;          /* training wall clock */
    double flops;            /* forward FLOPs per test sentence */
    double ms_per_sentence;  /* training ms per sentence and epoch */
    char command[4096];
    char source[1024];       /* "FILE" or "FILE:LINE" it came from (messages only) */
} SweepRow;

/* Rows in insertion order. */
typedef struct {
    int n, cap;
    SweepRow *rows;  /* (n) */
} SweepTable;

/* Index of the row with run's key, or -1. */
int sweep_table_find(const SweepTable *t, const SweepRun *run);

/* Add a copy of row. A row with the same key and the same scores and token
 * count is a duplicate: nothing is added (*added = 0). The same key with
 * other scores is an error naming both sources. */
int sweep_table_add(SweepTable *t, const SweepRow *row, int *added, SrError *err);

/* Remove row i (0 <= i < n), keeping the others in order. */
void sweep_table_remove(SweepTable *t, int i);

void sweep_table_free(SweepTable *t);

/* The runs of runs[0..n_runs) that have no row in t: their indices, in grid
 * order, into todo (capacity n_runs); returns how many. */
int sweep_remaining(const SweepRun *runs, int n_runs, const SweepTable *t, int *todo);

/* The table as CSV text (header SWEEP_CSV_HEADER, one line per row; fields
 * with a comma, quote or newline are double-quoted). New string or NULL. */
char *sweep_table_csv(const SweepTable *t);

/* Write the CSV atomically (temporary file, then rename). */
int sweep_table_write(const char *path, const SweepTable *t, SrError *err);

#endif
