/* compare_side.h — the runs of one sweep in one dataset and recipe (a
 * block), as the comparisons across two sweeps (compare_against.h,
 * compare_gap.h) take them: the rows o wants, sorted by configuration and
 * seed, and each run's test predictions read back and checked against its
 * row's test_f1 and the block's test set. */
#ifndef SEQREP_COMPARE_SIDE_H
#define SEQREP_COMPARE_SIDE_H

#include "base/status.h"
#include "label/predictions.h"
#include "runs/compare/compare.h"
#include "runs/sweep/sweep_table.h"

/* The wanted rows of one sweep in one block, sorted by configuration, then
 * seed. */
typedef struct {
    const SweepRow **rows; /* (n) */
    int n;
    const char *runs_dir;  /* where their run files are */
} CompareSide;

/* The test set the first run read of a block had. */
typedef struct {
    int known, n_sents;
    unsigned long long checksum;
    char path[1200];
} CompareTestSet;

/* 1 if the row is one o asks for (dataset, recipe, exit). */
int compare_wanted(const SweepRow *row, const CompareOptions *o);

/* 1 if two runs belong to one block: same dataset and recipe. */
int compare_same_block(const SweepRun *a, const SweepRun *b);

/* 1 if row i of t is the first of its block among the rows o wants. */
int compare_first_of_block(const SweepTable *t, int i, const CompareOptions *o);

/* The checks both comparisons across two sweeps open with: samples, no
 * --baseline, the two names, and a run o wants in each sweep. 0, or -1 and
 * err says which. */
int compare_sides_check(const SweepTable *results, const SweepTable *against,
                        const CompareOptions *o, SrError *err);

/* The wanted rows of t in the block of key into side (side->rows a new
 * array, freed by the caller), sorted; two runs of one configuration and
 * seed (from two models) are an error. */
int compare_side_gather(const SweepTable *t, const SweepRun *key, const CompareOptions *o,
                        CompareSide *side, SrError *err);

/* The end of the configuration of side's row i: the first row of another. */
int compare_side_config_end(const CompareSide *s, int i);

/* Read the test predictions of row (in runs_dir) into p, and check that its
 * F1 is its row's and that its test set is the block's (*set, filled by the
 * first run read). -1 and err names the file on any failure (p then freed). */
int compare_side_load(const SweepRow *row, const char *runs_dir, CompareTestSet *set,
                      PredictionCounts *p, SrError *err);

#endif
