/* compare_gap.h — the change of a gap between two sweeps: a difference of
 * differences, by the paired bootstrap (label/bootstrap.h), into the table
 * of runs/compare/compare.h.
 *
 * The gap is X - Y of two configurations (o->gap_x, o->gap_y: labels as
 * compare.h prints them, " exit=L" needed only when a block has X or Y at
 * more than one exit). In each dataset and recipe (block) both sweeps have,
 * with the seeds all four runs share (X and Y of results A, X and Y of
 * against B), it gives three rows:
 *   "X [A]" - "Y [A]"            the gap in A,
 *   "X [B]" - "Y [B]"            the gap in B,
 *   "X - Y [B]" - "X - Y [A]"    the change: f1_a the gap in B, f1_b the
 *                                gap in A, diff gap in B - gap in A,
 * where A and B are o->results_name and o->against_name. One table of
 * resampled F1 serves the three rows: every replicate draws the same test
 * sentences and the same seeds for all four runs. Every run's F1 is
 * recomputed from its predictions and must equal its row's test_f1; all
 * runs of a block share their test set. */
#ifndef SEQREP_COMPARE_GAP_H
#define SEQREP_COMPARE_GAP_H

#include "base/status.h"
#include "runs/compare/compare.h"
#include "runs/sweep/sweep_table.h"

/* The gap o->gap_x - o->gap_y of `results` (runs in runs_results) against
 * the same gap of `against` (runs in runs_against), as o filters them
 * (dataset, recipe, exit; o->baseline must be NULL), into out (empty on
 * entry). out->n_unpaired counts the blocks left out (in one sweep only,
 * a label missing there, or no seed common to the four). A label no
 * configuration of a sweep has, a label at two exits of a block, no block
 * with a seed common to the four, test sets that differ, a missing
 * predictions file or an F1 that disagrees with its row: -1 and err says
 * which. */
int compare_gap(const SweepTable *results, const char *runs_results, const SweepTable *against,
                const char *runs_against, const CompareOptions *o, CompareTable *out,
                SrError *err);

#endif
