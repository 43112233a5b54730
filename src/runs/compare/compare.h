/* compare.h — paired bootstrap comparison of the configurations of a sweep
 * (label/bootstrap.h), from the sweep's rows and its runs' test predictions
 * (RUN.predictions.conll beside each RUN.csv in the runs directory).
 *
 * A configuration is (dataset, recipe, method, r, exit, positions); its runs
 * are its seeds. Configurations are compared within one dataset and recipe:
 * the difference A - B of mean-over-seeds test micro-F1, paired by seed (the
 * seeds both have) and by test sentence. Every run's F1 is recomputed from
 * its predictions and must equal its row's test_f1 (to the CSV's rounding).
 *
 * A configuration's label is its method, " r=R" for sr, " restart" or
 * " induction" for copy positions other than run (repeat.h), and " exit=L" when the configurations of its
 * dataset and recipe have more than one exit: "causal", "sr r=4 restart",
 * "sr r=2 exit=3". Configurations are ordered by method (methods.h), r, exit
 * and positions; of two, the later is A and the earlier B ("sr r=1" - "causal").
 * runs/compare/compare_against.h compares the same configuration between two sweeps
 * (another LM's grid) into the same table, runs/compare/compare_gap.h the
 * change of a gap between two configurations from one sweep to the other. */
#ifndef SEQREP_COMPARE_H
#define SEQREP_COMPARE_H

#include "base/status.h"
#include "label/bootstrap.h"
#include "runs/sweep/sweep_table.h"

#define COMPARE_CSV_HEADER "dataset,recipe,a,b,seeds,f1_a,f1_b,diff,lo,hi,resolved"

/* Which configurations, and how. */
typedef struct {
    const char *dataset;   /* only this dataset; NULL = all */
    const char *recipe;    /* only this recipe label; NULL = all */
    int exit_layer;        /* only this exit layer; 0 = all */
    const char *baseline;  /* every configuration against the one of this label; NULL = all pairs */
    int samples;           /* bootstrap samples, >= 1 */
    unsigned long long seed;
    /* across two sweeps only (compare_against.h): the names of the sweep of
     * --results and of --against; NULL within one sweep */
    const char *results_name, *against_name;
    /* their CSVs (messages only; NULL: the names) */
    const char *results_file, *against_file;
    /* with --gap only (compare_gap.h): the two labels X and Y of the gap
     * X - Y whose change between the two sweeps is asked for; else NULL */
    const char *gap_x, *gap_y;
} CompareOptions;

/* One pair A - B. */
typedef struct {
    char dataset[256], recipe[48], a[128], b[128];
    int seeds;        /* seeds both have */
    BootstrapDiff d;  /* percent */
} CompareRow;

/* Pairs in order: dataset and recipe (first appearance), then B, then A. */
typedef struct {
    int n, cap;
    CompareRow *rows;   /* (n) */
    int n_unpaired;     /* pairs left out: no seed in common */
} CompareTable;

/* Compare the configurations of the rows of t (runs_dir: where their run
 * files are) as o asks, into out (empty on entry). A missing or unreadable
 * predictions file, test sets that differ, an F1 that disagrees with its row,
 * an unknown --baseline label: -1 and err names the file or label. */
int compare_sweep(const SweepTable *t, const char *runs_dir, const CompareOptions *o,
                  CompareTable *out, SrError *err);

/* Order of configurations: method, r, exit, positions (0 = one
 * configuration; the model and the seed are not looked at). */
int compare_config_order(const SweepRun *x, const SweepRun *y);

/* qsort order of SweepRow pointers: configuration, then seed. */
int compare_row_order(const void *pa, const void *pb);

/* The label of a configuration (see above; " exit=L" when with_exit) into
 * out (capacity n). */
void compare_config_label(const SweepRun *k, int with_exit, char *out, size_t n);

/* Append a copy of row to t. */
int compare_table_push(CompareTable *t, const CompareRow *row, SrError *err);

/* "a>b" when the interval lies above 0, "b>a" below, "noise" when it holds 0. */
const char *compare_resolved(const CompareRow *row);

/* The table as CSV (COMPARE_CSV_HEADER; F1 values in percent, 4 decimals),
 * and as markdown (a table per dataset and recipe; its first paragraph says
 * what was compared, naming o's two sweeps when it has them). New strings or
 * NULL. */
char *compare_csv(const CompareTable *t);
char *compare_markdown(const CompareTable *t, const CompareOptions *o);

void compare_table_free(CompareTable *t);

#endif
