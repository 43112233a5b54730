/* sweep_table.c — the table of a sweep's results: adding rows by key, the
 * runs still to do, and the table written as CSV (see sweep_table.h). */
#include "runs/sweep/sweep_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/csv.h"

int sweep_table_find(const SweepTable *t, const SweepRun *run)
{
    for (int i = 0; i < t->n; i++)
        if (sweep_same_key(&t->rows[i].key, run)) return i;
    return -1;
}

/* 1 if two rows of the same key report the same result. */
static int same_result(const SweepRow *a, const SweepRow *b)
{
    const double tol = 5e-5;
    return fabs(a->dev_precision - b->dev_precision) < tol &&
           fabs(a->dev_recall - b->dev_recall) < tol && fabs(a->dev_f1 - b->dev_f1) < tol &&
           fabs(a->test_precision - b->test_precision) < tol &&
           fabs(a->test_recall - b->test_recall) < tol && fabs(a->test_f1 - b->test_f1) < tol &&
           a->tokens == b->tokens && a->epochs == b->epochs;
}

int sweep_table_add(SweepTable *t, const SweepRow *row, int *added, SrError *err)
{
    *added = 0;
    int i = sweep_table_find(t, &row->key);
    if (i >= 0) {
        const SweepRow *old = &t->rows[i];
        if (same_result(old, row)) return 0;
        return sr_fail(err, "%s and %s disagree on the run %s %s %s r=%d exit=%d seed=%d%s "
                            "(test F1 %.2f vs %.2f)", old->source, row->source, row->key.dataset,
                       row->key.model, method_name(row->key.method), row->key.r,
                       row->key.exit_layer, row->key.seed,
                       sweep_positions_words(row->key.positions),
                       old->test_f1, row->test_f1);
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        SweepRow *rows = realloc(t->rows, sizeof *rows * (size_t)cap);
        if (!rows) return sr_fail(err, "out of memory");
        t->rows = rows;
        t->cap = cap;
    }
    t->rows[t->n++] = *row;
    *added = 1;
    return 0;
}

void sweep_table_remove(SweepTable *t, int i)
{
    memmove(&t->rows[i], &t->rows[i + 1], sizeof *t->rows * (size_t)(t->n - i - 1));
    t->n--;
}

void sweep_table_free(SweepTable *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int sweep_remaining(const SweepRun *runs, int n_runs, const SweepTable *t, int *todo)
{
    int n = 0;
    for (int i = 0; i < n_runs; i++)
        if (sweep_table_find(t, &runs[i]) < 0) todo[n++] = i;
    return n;
}

/* ---- writing CSV ------------------------------------------------------------------ */

char *sweep_table_csv(const SweepTable *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "%s\n", SWEEP_CSV_HEADER);
    for (int i = 0; i < t->n; i++) {
        const SweepRow *w = &t->rows[i];
        csv_write_field(f, w->key.dataset);
        fputc(',', f);
        csv_write_field(f, w->key.model);
        fprintf(f, ",%s,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%ld,%.3f,%ld,%ld,%.6g,%.4g,",
                method_name(w->key.method), w->key.r, w->key.exit_layer, w->key.seed,
                w->dev_precision, w->dev_recall, w->dev_f1, w->test_precision, w->test_recall,
                w->test_f1, w->epochs, w->best_epoch, w->tokens, w->seconds, w->train_sentences,
                w->test_sentences, w->flops, w->ms_per_sentence);
        csv_write_field(f, sweep_recipe(&w->key));
        fprintf(f, ",%s,", repeat_positions_name(w->key.positions));
        csv_write_field(f, w->command);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int sweep_table_write(const char *path, const SweepTable *t, SrError *err)
{
    char *text = sweep_table_csv(t);
    if (!text) return sr_fail(err, "%s: out of memory", path);
    int rc = write_file_atomic(path, text, err);
    free(text);
    return rc;
}
