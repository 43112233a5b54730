/* sweep_summary.h — the markdown summary of a sweep table: per dataset,
 * mean +- sample std over seeds. */
#ifndef SEQREP_SWEEP_SUMMARY_H
#define SEQREP_SWEEP_SUMMARY_H

#include "base/status.h"
#include "runs/sweep/sweep_table.h"

/* Mean and sample standard deviation (n - 1 in the denominator; 0 when
 * n < 2) of x[0..n). */
void sweep_mean_std(const double *x, int n, double *mean, double *std);

/* The markdown summary: per dataset, one table row per (model, method, r,
 * exit, recipe, positions; restart rows read "sr restart", induction rows
 * "sr induction") with test and dev F1 as mean +- std over seeds, the number of seeds,
 * forward FLOPs per sentence relative to causal at full depth, and training
 * seconds. New string or NULL. */
char *sweep_summary_markdown(const SweepTable *t);

/* Write the summary atomically. */
int sweep_summary_write(const char *path, const SweepTable *t, SrError *err);

#endif
