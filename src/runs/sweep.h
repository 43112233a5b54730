/* sweep.h — a grid of fine-tuning runs and the table of their results.
 *
 * A sweep is data x seeds x methods x r x exit layers. Every run of the grid
 * is one `seqrep finetune` with its own result file (RUN.csv with a dev and a
 * test row, and RUN.manifest.json beside it); the sweep table holds one row
 * per run, identified by its key
 *
 *     (dataset, model, method, r, exit, seed)
 *
 * where dataset is the last component of the data directory (the directory
 * holding train.conll, dev.conll, test.conll), model is the checkpoint path
 * as given, and exit is the resolved layer L = 1..N (never 0). A table can be
 * read back, so a sweep resumes by running only the grid's runs without a
 * row, and tables from many machines merge by key.
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
 *   command                             the `seqrep finetune` command line
 * The markdown summary gives, per dataset, mean +- sample std over seeds. */
#ifndef SEQREP_SWEEP_H
#define SEQREP_SWEEP_H

#include <stddef.h>

#include "base/status.h"
#include "label/methods.h"

#define SWEEP_CSV_HEADER                                                                        \
    "dataset,model,method,r,exit,seed,dev_precision,dev_recall,dev_f1,test_precision,"          \
    "test_recall,test_f1,epochs,best_epoch,tokens,seconds,train_sentences,test_sentences,flops," \
    "ms_per_sentence,command"

/* The key of one run, and where its data lives. */
typedef struct {
    char dataset[256];    /* last component of data_dir */
    char data_dir[1024];  /* as given (empty for rows read back from a file) */
    char model[1024];     /* checkpoint path as given */
    Method method;
    int r;                /* sr: >= 1; every other method: 0 */
    int exit_layer;       /* 1..N once resolved; 0 = full depth before that */
    int seed;
} SweepRun;

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

/* What the grid is made of. Lists are used in the order given. */
typedef struct {
    const char *const *data_dirs;  /* (n_data) directories with the three splits */
    int n_data;
    const char *model;             /* checkpoint; "{data}" is replaced by the dataset name */
    const char *encoder_model;     /* checkpoint for method encoder (same rule); may be NULL */
    const Method *methods;         /* (n_methods) */
    int n_methods;
    const int *r_values;           /* (n_r) repetitions, each >= 1: used by sr only */
    int n_r;
    const int *exits;              /* (n_exits) exit layers, 0 = full depth */
    int n_exits;
    const int *seeds;              /* (n_seeds) */
    int n_seeds;
} SweepGrid;

/* Parse a comma-separated list of integers, each >= min_value ("5,29,42").
 * *values is a new array (caller frees). Duplicates are an error. */
int sweep_parse_int_list(const char *text, int min_value, int **values, int *n_values,
                         SrError *err);

/* Parse a comma-separated list of method names (methods.h) into methods
 * (capacity METHOD_COUNT). Duplicates are an error. */
int sweep_parse_methods(const char *text, Method *methods, int *n_methods, SrError *err);

/* The dataset name of a data directory: its last path component, trailing
 * slashes ignored ("out/right-cue/" -> "right-cue"). */
int sweep_dataset_name(const char *data_dir, char *name, size_t n, SrError *err);

/* Expand the grid into *runs (new array, caller frees), in the order data,
 * seed, method, r (sr only; the others have r = 0), exit. Exits stay as
 * given (0 = full depth) until sweep_resolve_exits. Method encoder needs an
 * encoder model; two data directories with the same name are an error. */
int sweep_grid_expand(const SweepGrid *g, SweepRun **runs, int *n_runs, SrError *err);

/* How many layers the checkpoint at `model` has (ctx is the caller's). */
typedef int (*SweepLayerCount)(const char *model, void *ctx, int *n_layers, SrError *err);

/* Replace exit 0 by each run's model depth N, check 1 <= exit <= N, and drop
 * the runs this makes duplicates (the first is kept); *n_runs shrinks. */
int sweep_resolve_exits(SweepRun *runs, int *n_runs, SweepLayerCount count, void *ctx,
                        SrError *err);

/* 1 if a and b have the same key (dataset, model, method, r, exit, seed). */
int sweep_same_key(const SweepRun *a, const SweepRun *b);

/* Index of the row with run's key, or -1. */
int sweep_table_find(const SweepTable *t, const SweepRun *run);

/* Add a copy of row. A row with the same key and the same scores and token
 * count is a duplicate: nothing is added (*added = 0). The same key with
 * other scores is an error naming both sources. */
int sweep_table_add(SweepTable *t, const SweepRow *row, int *added, SrError *err);

void sweep_table_free(SweepTable *t);

/* The runs of runs[0..n_runs) that have no row in t: their indices, in grid
 * order, into todo (capacity n_runs); returns how many. */
int sweep_remaining(const SweepRun *runs, int n_runs, const SweepTable *t, int *todo);

/* Read a sweep CSV (SWEEP_CSV_HEADER columns, in any order) and add its rows
 * to t (sweep_table_add: duplicates skipped). *n_added may be NULL. Errors
 * name the file and line. */
int sweep_table_read(const char *path, SweepTable *t, int *n_added, SrError *err);

/* Read one finished `seqrep finetune` run: its CSV (a dev and a test row)
 * and the manifest beside it (RUN.manifest.json: model, data, command, sizes).
 * The dataset is the name of the training file's directory. */
int sweep_row_from_run(const char *csv_path, SweepRow *row, SrError *err);

/* Add the rows of a file of either kind (sweep CSV, or finetune run CSV) to
 * t; the kind is told by the header. *n_rows receives the runs the file
 * holds, *n_added those that were new (either may be NULL). */
int sweep_table_merge_file(SweepTable *t, const char *path, int *n_rows, int *n_added,
                           SrError *err);

/* The table as CSV text (header SWEEP_CSV_HEADER, one line per row; fields
 * with a comma, quote or newline are double-quoted). New string or NULL. */
char *sweep_table_csv(const SweepTable *t);

/* Write the CSV atomically (temporary file, then rename). */
int sweep_table_write(const char *path, const SweepTable *t, SrError *err);

/* Mean and sample standard deviation (n - 1 in the denominator; 0 when
 * n < 2) of x[0..n). */
void sweep_mean_std(const double *x, int n, double *mean, double *std);

/* The markdown summary: per dataset, one table row per (model, method, r,
 * exit) with test and dev F1 as mean +- std over seeds, the number of seeds,
 * forward FLOPs per sentence relative to causal at full depth, and training
 * seconds. New string or NULL. */
char *sweep_summary_markdown(const SweepTable *t);

/* Write the summary atomically. */
int sweep_summary_write(const char *path, const SweepTable *t, SrError *err);

/* ---- one run as a command ------------------------------------------------- */

/* Fine-tuning options passed to every run. */
typedef struct {
    int epochs;         /* > 0 */
    float lr;           /* passed only when lr_set */
    int lr_set;
    int batch;          /* passed only when batch_set */
    int batch_set;
    int threads;        /* passed only when threads_set */
    int threads_set;
} SweepFinetuneOptions;

/* File name of a run's result inside runs_dir:
 *   RUNS_DIR/DATASET.MODEL.METHOD.rR.exitL.seedS.csv
 * where MODEL is the checkpoint's file name without ".safetensors". */
int sweep_run_path(const SweepRun *run, const char *runs_dir, char *out, size_t n, SrError *err);

/* The argument vector of the run: exe finetune --model M --train DIR/train.conll
 * --dev DIR/dev.conll --test DIR/test.conll --method X --r R --exit L --seed S
 * --epochs E [--lr --batch --threads] --out out_csv --quiet, NULL-terminated.
 * New array of new strings (sweep_argv_free). */
int sweep_run_argv(const SweepRun *run, const SweepFinetuneOptions *o, const char *exe,
                   const char *out_csv, char ***argv, int *argc, SrError *err);
void sweep_argv_free(char **argv, int argc);

/* The argument vector as one shell command line (words quoted where
 * needed). New string or NULL. */
char *sweep_command_line(char *const *argv, int argc);

#endif
