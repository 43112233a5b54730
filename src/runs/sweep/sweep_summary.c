/* sweep_summary.c — the markdown summary of a sweep table: per dataset, one
 * row per (model, method, r, exit, recipe, positions) with mean +- std over
 * seeds (see sweep_summary.h). A recipe other than "full" is shown beside the
 * method: "sr [paper]"; copy positions other than run as "sr restart",
 * "sr induction". */
#include "runs/sweep/sweep_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "runs/sweep/sweep_command.h"

void sweep_mean_std(const double *x, int n, double *mean, double *std)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    double m = n > 0 ? s / n : 0, q = 0;
    for (int i = 0; i < n; i++) q += (x[i] - m) * (x[i] - m);
    *mean = m;
    *std = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* Rows that differ only in seed, summarised. */
typedef struct {
    const SweepRow *first;  /* its key (seed aside) */
    int n;
    double test_mean, test_std, dev_mean, dev_std, flops, seconds;
} SummaryGroup;

/* Order of rows in the summary: dataset (first appearance), model, method, r,
 * exit, recipe, positions, seed. The dataset rank is kept in dataset_rank. */
typedef struct {
    const SweepRow *row;
    int dataset_rank;
} RankedRow;

/* qsort order of RankedRow: the summary's order above. */
static int compare_ranked(const void *pa, const void *pb)
{
    const RankedRow *a = pa, *b = pb;
    if (a->dataset_rank != b->dataset_rank) return a->dataset_rank < b->dataset_rank ? -1 : 1;
    const SweepRun *x = &a->row->key, *y = &b->row->key;
    int c = strcmp(x->model, y->model);
    if (c) return c;
    if (x->method != y->method) return x->method < y->method ? -1 : 1;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    if (x->exit_layer != y->exit_layer) return x->exit_layer < y->exit_layer ? -1 : 1;
    c = strcmp(sweep_recipe(x), sweep_recipe(y));
    if (c) return c;
    if (x->positions != y->positions) return x->positions < y->positions ? -1 : 1;
    if (x->seed != y->seed) return x->seed < y->seed ? -1 : 1;
    return 0;
}

/* 1 if two rows belong to one group (same key but for the seed). */
static int same_group(const SweepRow *a, const SweepRow *b)
{
    return strcmp(a->key.dataset, b->key.dataset) == 0 && strcmp(a->key.model, b->key.model) == 0 &&
           a->key.method == b->key.method && a->key.r == b->key.r &&
           a->key.exit_layer == b->key.exit_layer && a->key.positions == b->key.positions &&
           strcmp(sweep_recipe(&a->key), sweep_recipe(&b->key)) == 0;
}

/* 1 if the dataset name looks like NLU++ (its tables must credit the source). */
static int is_nlupp(const char *dataset)
{
    for (const char *p = dataset; *p; p++)
        if ((p[0] == 'n' || p[0] == 'N') && (p[1] == 'l' || p[1] == 'L') && (p[2] == 'u' || p[2] == 'U'))
            return 1;
    return 0;
}

/* Write the table of groups g[0..n) of one dataset. */
static void write_dataset_table(FILE *f, const SummaryGroup *g, int n)
{
    /* reference: causal (r = 0) at its deepest exit, first model that has one */
    const SummaryGroup *ref = NULL;
    for (int i = 0; i < n; i++)
        if (g[i].first->key.method == METHOD_CAUSAL &&
            (!ref || (strcmp(ref->first->key.model, g[i].first->key.model) == 0 &&
                      g[i].first->key.exit_layer > ref->first->key.exit_layer)))
            ref = &g[i];
    fprintf(f, "### %s\n\n", g[0].first->key.dataset);
    fprintf(f, "| model | method | r | exit | seeds | test F1 | dev F1 | test F1 − causal | "
               "FLOPs / sentence | × causal | train s |\n");
    fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; i++) {
        const SweepRun *k = &g[i].first->key;
        char label[1024], delta[32] = "–", rel[32] = "–", method[80];
        sweep_model_label(k->model, label, sizeof label);
        const int renumbered = k->positions != REPEAT_POSITIONS_RUN;
        const char *space = renumbered ? " " : "", *positions = renumbered ? repeat_positions_name(k->positions) : "";
        if (strcmp(sweep_recipe(k), "full") == 0)
            snprintf(method, sizeof method, "%s%s%s", method_name(k->method), space, positions);
        else snprintf(method, sizeof method, "%s%s%s [%s]", method_name(k->method), space, positions,
                      sweep_recipe(k));
        /* causal of the same model and exit, for the F1 difference */
        for (int j = 0; j < n; j++) {
            const SweepRun *c = &g[j].first->key;
            if (c->method == METHOD_CAUSAL && c->exit_layer == k->exit_layer &&
                strcmp(c->model, k->model) == 0 && strcmp(sweep_recipe(c), sweep_recipe(k)) == 0 &&
                j != i)
                snprintf(delta, sizeof delta, "%+.2f", g[i].test_mean - g[j].test_mean);
        }
        if (ref && ref->flops > 0) snprintf(rel, sizeof rel, "%.2f", g[i].flops / ref->flops);
        fprintf(f, "| %s | %s | %d | %d | %d | %.2f ± %.2f | %.2f ± %.2f | %s | %.3g | %s | %.1f |\n",
                label, method, k->r, k->exit_layer, g[i].n, g[i].test_mean,
                g[i].test_std, g[i].dev_mean, g[i].dev_std, delta, g[i].flops, rel, g[i].seconds);
    }
    fprintf(f, "\n");
    if (is_nlupp(g[0].first->key.dataset))
        fprintf(f, "Data: NLU++ by PolyAI (Casanueva et al., *NLU++: A Multi-Label, Slot-Rich, "
                   "Generalisable Dataset for Natural Language Understanding in Task-Oriented "
                   "Dialogue*, Findings of NAACL 2022), CC BY 4.0.\n\n");
}

char *sweep_summary_markdown(const SweepTable *t)
{
    char *text = NULL;
    size_t len = 0;
    RankedRow *ranked = malloc(sizeof *ranked * (size_t)(t->n ? t->n : 1));
    SummaryGroup *groups = malloc(sizeof *groups * (size_t)(t->n ? t->n : 1));
    double *test = malloc(sizeof(double) * (size_t)(t->n ? t->n : 1));
    double *dev = malloc(sizeof(double) * (size_t)(t->n ? t->n : 1));
    FILE *f = ranked && groups && test && dev ? open_memstream(&text, &len) : NULL;
    if (!f) {
        free(ranked);
        free(groups);
        free(test);
        free(dev);
        return NULL;
    }
    for (int i = 0; i < t->n; i++) {
        ranked[i].row = &t->rows[i];
        ranked[i].dataset_rank = i;
        for (int j = 0; j < i; j++)
            if (strcmp(t->rows[j].key.dataset, t->rows[i].key.dataset) == 0) {
                ranked[i].dataset_rank = ranked[j].dataset_rank;
                break;
            }
    }
    qsort(ranked, (size_t)t->n, sizeof *ranked, compare_ranked);
    int n_groups = 0;
    for (int i = 0; i < t->n;) {
        int j = i;
        SummaryGroup *g = &groups[n_groups++];
        g->first = ranked[i].row;
        g->flops = g->seconds = 0;
        while (j < t->n && same_group(ranked[i].row, ranked[j].row)) {
            test[j - i] = ranked[j].row->test_f1;
            dev[j - i] = ranked[j].row->dev_f1;
            g->flops += ranked[j].row->flops;
            g->seconds += ranked[j].row->seconds;
            j++;
        }
        g->n = j - i;
        sweep_mean_std(test, g->n, &g->test_mean, &g->test_std);
        sweep_mean_std(dev, g->n, &g->dev_mean, &g->dev_std);
        g->flops /= g->n;
        g->seconds /= g->n;
        i = j;
    }
    fprintf(f, "Strict IOB2 span micro-F1 (%%), mean ± sample std over seeds; the test score is "
               "the one at the epoch with the best dev F1. \"test F1 − causal\": difference of "
               "the means from causal (r = 0) with the same model and exit. FLOPs: analytic "
               "forward FLOPs per test sentence at this exit (matrix products only); × causal: "
               "relative to causal at full depth. train s: fine-tuning wall clock per run.\n\n");
    for (int i = 0; i < n_groups;) {
        int j = i;
        while (j < n_groups && strcmp(groups[j].first->key.dataset, groups[i].first->key.dataset) == 0) j++;
        write_dataset_table(f, &groups[i], j - i);
        i = j;
    }
    if (n_groups == 0) fprintf(f, "(no runs yet)\n");
    free(ranked);
    free(groups);
    free(test);
    free(dev);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int sweep_summary_write(const char *path, const SweepTable *t, SrError *err)
{
    char *text = sweep_summary_markdown(t);
    if (!text) return sr_fail(err, "%s: out of memory", path);
    int rc = write_file_atomic(path, text, err);
    free(text);
    return rc;
}
