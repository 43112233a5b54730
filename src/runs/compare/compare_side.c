/* compare_side.c — one sweep's runs of a block gathered, sorted and read
 * back (see compare_side.h). */
#include "runs/compare/compare_side.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "label/bootstrap.h"
#include "runs/sweep/sweep_command.h"

int compare_wanted(const SweepRow *row, const CompareOptions *o)
{
    return (!o->dataset || strcmp(row->key.dataset, o->dataset) == 0) &&
           (!o->recipe || strcmp(sweep_recipe(&row->key), o->recipe) == 0) &&
           (o->exit_layer == 0 || row->key.exit_layer == o->exit_layer);
}

int compare_same_block(const SweepRun *a, const SweepRun *b)
{
    return strcmp(a->dataset, b->dataset) == 0 && strcmp(sweep_recipe(a), sweep_recipe(b)) == 0;
}

int compare_first_of_block(const SweepTable *t, int i, const CompareOptions *o)
{
    if (!compare_wanted(&t->rows[i], o)) return 0;
    for (int j = 0; j < i; j++)
        if (compare_wanted(&t->rows[j], o) && compare_same_block(&t->rows[j].key, &t->rows[i].key))
            return 0;
    return 1;
}

int compare_sides_check(const SweepTable *results, const SweepTable *against,
                        const CompareOptions *o, SrError *err)
{
    if (o->samples < 1) return sr_fail(err, "--samples must be at least 1");
    if (o->baseline) return sr_fail(err, "--baseline compares within one sweep, not across two");
    if (!o->results_name || !o->against_name)
        return sr_fail(err, "the two sweeps need names (--names)");
    int n_results = 0, n_against = 0;
    for (int i = 0; i < results->n; i++) n_results += compare_wanted(&results->rows[i], o);
    for (int i = 0; i < against->n; i++) n_against += compare_wanted(&against->rows[i], o);
    if (n_results == 0 || n_against == 0)
        return sr_fail(err, "no run of the %s sweep is of the dataset, recipe and exit asked for",
                       n_results == 0 ? "--results" : "--against");
    return 0;
}

int compare_side_gather(const SweepTable *t, const SweepRun *key, const CompareOptions *o,
                        CompareSide *side, SrError *err)
{
    side->n = 0;
    side->rows = malloc(sizeof *side->rows * (size_t)(t->n ? t->n : 1));
    if (!side->rows) return sr_fail(err, "out of memory");
    for (int i = 0; i < t->n; i++)
        if (compare_wanted(&t->rows[i], o) && compare_same_block(&t->rows[i].key, key))
            side->rows[side->n++] = &t->rows[i];
    qsort(side->rows, (size_t)side->n, sizeof *side->rows, compare_row_order);
    for (int i = 1; i < side->n; i++) {
        const SweepRow *p = side->rows[i - 1], *q = side->rows[i];
        if (compare_config_order(&p->key, &q->key) == 0 && p->key.seed == q->key.seed)
            return sr_fail(err, "%s and %s: two runs of one configuration and seed %d (models "
                                "%s and %s)", p->source, q->source, q->key.seed, p->key.model,
                           q->key.model);
    }
    return 0;
}

int compare_side_config_end(const CompareSide *s, int i)
{
    int j = i + 1;
    while (j < s->n && compare_config_order(&s->rows[j]->key, &s->rows[i]->key) == 0) j++;
    return j;
}

int compare_side_load(const SweepRow *row, const char *runs_dir, CompareTestSet *set,
                      PredictionCounts *p, SrError *err)
{
    char csv[1100], path[1200];
    if (sweep_run_path(&row->key, runs_dir, csv, sizeof csv, err) ||
        sweep_predictions_path(csv, path, sizeof path, err))
        return -1;
    if (access(path, R_OK) != 0)
        return sr_fail(err, "%s: cannot read the test predictions of the run of %s (replay the "
                            "run, e.g. examples/house_replay.py, or resume its sweep)", path,
                       row->source);
    if (predictions_read(path, p, err)) return -1;
    if (!set->known) {
        *set = (CompareTestSet){.known = 1, .n_sents = p->n_sents, .checksum = p->gold_checksum};
        snprintf(set->path, sizeof set->path, "%s", path);
    }
    int rc = 0;
    if (p->n_sents != set->n_sents || p->gold_checksum != set->checksum)
        rc = sr_fail(err, "%s: another test set than %s's (%d and %d sentences, or other words or "
                          "gold tags): the two sweeps do not share their test sentences", path,
                     set->path, p->n_sents, set->n_sents);
    double f1 = rc ? 0 : bootstrap_f1(p->counts, NULL, p->n_sents);
    if (rc == 0 && fabs(f1 - row->test_f1) > 1e-3)
        rc = sr_fail(err, "%s: test F1 %.4f from the predictions, %.4f in %s", path, f1,
                     row->test_f1, row->source);
    if (rc) predictions_free(p);
    return rc;
}
