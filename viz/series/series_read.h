/* series_read.h — the steps of a snapshot series: DIR/series.json as
 * `train-lm --snapshots DIR` or `finetune --save-epochs DIR` writes it
 * (src/runs/snapshot_series.h), and
 * the paths of what was measured on each snapshot.
 *
 * Errors name the file:
 *   "runs/series.json: cannot open (No such file or directory)"
 *   "runs/series.json: not a snapshot series (no \"snapshots\" list)"
 *   "runs/series.json: no snapshots"
 *   "runs/series.json: snapshot 3: step 150 after step 300 (steps must rise)" */
#ifndef SEQREP_VIZ_SERIES_READ_H
#define SEQREP_VIZ_SERIES_READ_H

#include "base/status.h"

typedef struct {
    int n;              /* snapshots, at least one                         */
    int *step;          /* (n) ascending, none twice (epochs: the epoch)   */
    double *train_loss; /* (n) the loss of that step's batch; NAN for null */
    int total;          /* the run's "steps" (0 when series.json has none) */
    int epochs;         /* 1: "unit": "epoch" (finetune --save-epochs)      */
    double *dev_f1;     /* (n) an epoch's dev and test F1 (%); NAN where    */
    double *test_f1;    /*     the entry has none                          */
} SeriesSteps;

/* Read dir/series.json into s. 0, or -1 with err (s is then empty). */
int series_read(const char *dir, SeriesSteps *s, SrError *err);
void series_free(SeriesSteps *s);

/* "DIR/measures/MEASURE/step-NNNNNN" + suffix (".csv", ".manifest.json"):
 * the file of one measure of one snapshot, as examples/series_heads.sh
 * names it. A new string (caller frees), NULL when out of memory. */
char *series_measure_path(const char *dir, const char *measure, int step, const char *suffix);

/* 1 if dir/measures/MEASURE is a folder. */
int series_has_measure(const char *dir, const char *measure);

#endif
