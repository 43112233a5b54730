/* series_file.h — DIR/series.json read back: the one reader of the manifest
 * of a snapshot series (runs/snapshot_series.h writes it; `train-lm
 * --snapshots DIR`, `finetune --save-epochs DIR`).
 *
 * Every reader of a series goes through here: the writer, before it adds a
 * snapshot (which entries to keep); the list of what to load for each
 * snapshot (snapshot_series_list: `explore --series`, `seqrep series
 * --list`); the timeline figure's steps and losses (viz/series/series_read.h)
 * and `seqrep series --steps`. What it checks, and its messages:
 *
 *   "runs/series.json: cannot open (No such file or directory)"
 *   "runs/series.json: not a snapshot series (not a JSON object)"
 *   "runs/series.json: not a snapshot series (no \"snapshots\" list)"
 *   "runs/series.json: \"unit\" must be \"step\" or \"epoch\""
 *   "runs/series.json: snapshot 3: no step (a whole number 0..1000000000)"
 *   "runs/series.json: snapshot 3: step 150 after step 300 (steps must rise)"
 *   "runs/series.json: snapshot 3: train_loss is neither a number nor null"
 *   "runs/series.json: snapshot 3: dev_f1 is not a number 0..100"
 *
 * An empty "snapshots" list is read (n = 0): the writer adds to it, and each
 * reader that needs a snapshot says "runs/series.json: no snapshots". */
#ifndef SEQREP_SERIES_FILE_H
#define SEQREP_SERIES_FILE_H

#include "base/status.h"

/* The largest step a series may name (snapshot_path writes six digits or more). */
#define SERIES_MAX_STEP 1000000000

/* One snapshot as series.json records it. */
typedef struct {
    int step;          /* its step; in an epoch series, its epoch              */
    char *file;        /* its file's name in the series' folder (owned); NULL
                          when the entry names none, or a name with a '/'     */
    double train_loss; /* the loss of that step's batch (of that epoch); NAN for null */
    double dev_f1;     /* an epoch's dev and test F1 (%); NAN where the entry  */
    double test_f1;    /*     has none                                         */
} SeriesEntry;

/* What DIR/series.json says. */
typedef struct {
    char *path;       /* "DIR/series.json" (owned), for messages              */
    int n;            /* snapshots (0 for an empty list)                      */
    SeriesEntry *e;   /* (n) in the order of their steps, which rise           */
    int total;        /* "steps": the run's steps or epochs; 0 when absent      */
    int epochs;       /* 1: "unit": "epoch" (finetune --save-epochs)            */
    int adapters;     /* 1: an epoch series whose files are adapters on a base
                         model ("epoch_files" other than "model")               */
    char *model;      /* "model": that base model (owned); NULL when absent     */
} SeriesFile;

/* Read and check dir/series.json into s. 0, or -1 with err (s is then empty). */
int series_file_read(const char *dir, SeriesFile *s, SrError *err);

/* The same from text, the contents of the file at path (named in messages). */
int series_file_parse(const char *path, const char *text, SeriesFile *s, SrError *err);

void series_file_free(SeriesFile *s);

/* "DIR/series.json": a new string (caller frees), NULL when out of memory. */
char *series_file_path(const char *dir);

#endif
