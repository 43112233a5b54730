/* compare_against.h — the same configuration compared between two sweeps
 * (e.g. the grid of the house LM and the grid of a variant pre-trained on
 * repeated text) by the paired bootstrap (label/bootstrap.h), into the
 * table of runs/compare/compare.h.
 *
 * A configuration is (dataset, recipe, method, r, positions, exit), the
 * model left out: the configuration of the sweep `results` (A) and the same
 * one of the sweep `against` (B) are paired by seed (the seeds both have)
 * and by test sentence, and the row is B - A: a is the against side,
 * labelled "LABEL [against_name]", b the results side, "LABEL
 * [results_name]" (names cut at 40 characters; labels as compare.h's, " exit=L" when the pairs of a
 * dataset and recipe have more than one exit). Every run's F1 is recomputed
 * from its predictions (RUN.predictions.conll in its sweep's runs
 * directory) and must equal its row's test_f1; every run of a dataset, in
 * either sweep, must have the same test set. Rows come in the order of the
 * datasets and recipes of `results`, then of the configurations. */
#ifndef SEQREP_COMPARE_AGAINST_H
#define SEQREP_COMPARE_AGAINST_H

#include "base/status.h"
#include "runs/compare/compare.h"
#include "runs/sweep/sweep_table.h"

/* Compare every configuration of `results` (runs in runs_results) with the
 * same configuration of `against` (runs in runs_against), as o filters them
 * (dataset, recipe, exit; o->baseline must be NULL; o->results_name and
 * o->against_name label the two sides), into out (empty on entry).
 * out->n_unpaired counts the configurations, of either sweep, without a
 * partner sharing a seed. Nothing paired, test sets that differ, a missing
 * predictions file or an F1 that disagrees with its row: -1 and err names
 * the files. */
int compare_against(const SweepTable *results, const char *runs_results, const SweepTable *against,
                    const char *runs_against, const CompareOptions *o, CompareTable *out,
                    SrError *err);

#endif
