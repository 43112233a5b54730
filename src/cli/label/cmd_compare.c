/* cmd_compare.c — `seqrep compare --results SWEEP.csv --out compare.csv`:
 * paired bootstrap 95% intervals for the differences of mean test micro-F1
 * between the configurations of a sweep (dataset, recipe, method, r, exit,
 * positions), from the test predictions its runs wrote into the runs
 * directory. See src/runs/compare/compare.h and src/label/bootstrap.h.
 *
 * With --against B.csv, each configuration of --results (A) is compared
 * with the same one of B (another LM's grid; runs/compare/compare_against.h): the
 * rows are B - A, named by --names. With --gap X,Y too, the gap X - Y in
 * each sweep and its change, gap in B - gap in A, each with its interval
 * (runs/compare/compare_gap.h).
 *
 * The CSV (compare.h's COMPARE_CSV_HEADER) has one row per pair, with the
 * manifest beside it; --md writes the same as markdown; stdout gets one line
 * per pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "cli/common/cli_common.h"
#include "cli/label/label_commands.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "runs/compare/compare.h"
#include "runs/compare/compare_against.h"
#include "runs/compare/compare_gap.h"
#include "runs/manifest.h"
#include "runs/sweep/sweep.h"

static const char *CMD = "compare";

typedef struct {
    const char *results, *runs_arg, *out, *md;
    const char *against, *against_runs_arg, *names, *gap;
    int seed;
    char runs_dir[1100], against_runs_dir[1100];
    char names_buf[256], gap_buf[256];
    CompareOptions cmp;
} CompareCli;

/* The runs directory of a sweep CSV: given (option `given`), or the CSV's
 * default; it must exist. 0, or 2 after the error line. */
static int find_runs_dir(const char *csv, const char *given, const char *option, char *out,
                         size_t n)
{
    SrError err;
    if (given) snprintf(out, n, "%s", given);
    else if (sweep_default_runs_dir(csv, out, n, &err))
        return args_error(CMD, "%s: %s", option, err.msg);
    if (access(out, F_OK) != 0)
        return args_error(CMD, "%s: no such runs directory (give --%s-dir)", out,
                          strcmp(option, "--against") == 0 ? "against-runs" : "runs");
    return 0;
}

/* --gap X,Y: two different labels, each 1 to 40 characters, without a
 * comma, and only with --against and without --baseline. 0, or 2 after the
 * error line. */
static int parse_gap(CompareCli *o)
{
    if (!o->gap) return 0;
    if (!o->against) return args_error(CMD, "--gap needs --against");
    if (o->cmp.baseline)
        return args_error(CMD, "--gap compares one gap between two sweeps; give it without "
                               "--baseline");
    if (snprintf(o->gap_buf, sizeof o->gap_buf, "%s", o->gap) >= (int)sizeof o->gap_buf)
        return args_error(CMD, "--gap: too long");
    char *comma = strchr(o->gap_buf, ',');
    if (!comma || comma == o->gap_buf || !comma[1] || strchr(comma + 1, ','))
        return args_error(CMD, "--gap must be two configuration labels, X,Y (e.g. "
                               "'sr r=1,causal'); got '%s'", o->gap);
    *comma = 0;
    if (strlen(o->gap_buf) > 40 || strlen(comma + 1) > 40)
        return args_error(CMD, "--gap: each label at most 40 characters; got '%s'", o->gap);
    if (strcmp(o->gap_buf, comma + 1) == 0)
        return args_error(CMD, "--gap: two different labels, please; got '%s' twice", o->gap_buf);
    o->cmp.gap_x = o->gap_buf;
    o->cmp.gap_y = comma + 1;
    return 0;
}

/* --against and --names: the names of the two sweeps ("base,repeat25"),
 * each 1 to 40 characters without a comma. 0, or 2 after the error line. */
static int parse_names(CompareCli *o)
{
    if (!o->against) {
        if (o->names || o->against_runs_arg)
            return args_error(CMD, "--%s needs --against", o->names ? "names" : "against-runs-dir");
        return 0;
    }
    if (o->cmp.baseline)
        return args_error(CMD, "--baseline compares within one sweep; give it without --against");
    if (snprintf(o->names_buf, sizeof o->names_buf, "%s", o->names) >= (int)sizeof o->names_buf)
        return args_error(CMD, "--names: too long");
    char *comma = strchr(o->names_buf, ',');
    if (!comma || comma == o->names_buf || !comma[1] || strchr(comma + 1, ','))
        return args_error(CMD, "--names must be two names, RESULTS,AGAINST; got '%s'", o->names);
    *comma = 0;
    if (strlen(o->names_buf) > 40 || strlen(comma + 1) > 40)
        return args_error(CMD, "--names: each name at most 40 characters; got '%s'", o->names);
    o->cmp.results_name = o->names_buf;
    o->cmp.against_name = comma + 1;
    return 0;
}

/* Parse options; 0, 1 (help shown) or 2 (error printed). */
static int parse_options(int argc, char **argv, CompareCli *o)
{
    *o = (CompareCli){.seed = 1, .names = "results,against", .cmp = {.samples = 10000}};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "results", .type = ARG_STRING, .value = &o->results, .required = 1,
         .help = "sweep CSV whose configurations to compare"},
        {.name = "runs-dir", .type = ARG_STRING, .value = &o->runs_arg,
         .help = "its runs' files (default: RESULTS without .csv, plus .runs)"},
        {.name = "dataset", .type = ARG_STRING, .value = &o->cmp.dataset,
         .help = "only this dataset (default: each)"},
        {.name = "recipe", .type = ARG_STRING, .value = &o->cmp.recipe,
         .help = "only this recipe label, e.g. full or paper (default: each)"},
        {.name = "exit", .type = ARG_INT, .value = &o->cmp.exit_layer, .min_int = 1,
         .help = "only this exit layer (default: each)"},
        {.name = "baseline", .type = ARG_STRING, .value = &o->cmp.baseline,
         .help = "compare every configuration with this one, e.g. "
                 "causal or 'sr r=4 restart' (default: all pairs)"},
        {.name = "against", .type = ARG_STRING, .value = &o->against,
         .help = "another sweep CSV (another LM's grid): each configuration of RESULTS against "
                 "the same one of it, paired by seed and test sentence, AGAINST - RESULTS"},
        {.name = "against-runs-dir", .type = ARG_STRING, .value = &o->against_runs_arg,
         .help = "its runs' files (default: AGAINST without .csv, plus .runs)"},
        {.name = "gap", .type = ARG_STRING, .value = &o->gap,
         .help = "with --against: two configuration labels X,Y, e.g. 'sr r=1,causal'; per "
                 "dataset and recipe, the gap X - Y in each sweep and its change, gap in "
                 "AGAINST - gap in RESULTS, on the seeds all four runs share"},
        {.name = "names", .type = ARG_STRING, .value = &o->names,
         .help = help_text(&h, "with --against: the two sweeps' names in the labels, RESULTS,"
                           "AGAINST (default %s)", o->names)},
        {.name = "samples", .type = ARG_INT, .value = &o->cmp.samples, .min_int = 1,
         .help = help_text(&h, "bootstrap samples (default %d)", o->cmp.samples)},
        option_seed(&o->seed, help_text(&h, "seed of the resampling (default %d)", o->seed)),
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "CSV to write: one row per pair (manifest beside it)"},
        {.name = "md", .type = ARG_STRING, .value = &o->md,
         .help = "markdown to write: a table per dataset and recipe"},
    };
    const char *usage = help_text(&h, "--results SWEEP.csv [--runs-dir DIR] [--dataset D] "
                                      "[--recipe R] [--exit L] [--baseline LABEL | --against "
                                      "B.csv [--gap X,Y] [--names A,B]] [--samples %d] [--seed S] "
                                      "--out compare.csv [--md compare.md]",
                                  o->cmp.samples);
    int rc = args_parse(CMD, usage, specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    o->cmp.seed = (unsigned long long)o->seed;
    int given_names = args_given(specs, ARGS_COUNT(specs), "names");
    if (!given_names && !o->against) o->names = NULL;
    if (parse_gap(o) || parse_names(o)) return 2;
    o->cmp.results_file = o->results;
    o->cmp.against_file = o->against;
    if (find_runs_dir(o->results, o->runs_arg, "--results", o->runs_dir, sizeof o->runs_dir))
        return 2;
    if (o->against && find_runs_dir(o->against, o->against_runs_arg, "--against",
                                    o->against_runs_dir, sizeof o->against_runs_dir))
        return 2;
    return 0;
}

/* Write the CSV, its manifest and the markdown. 0, or 2 after the error line. */
static int write_outputs(int argc, char **argv, const CompareCli *o, const CompareTable *t)
{
    SrError err;
    char *csv = compare_csv(t), *md = o->md ? compare_markdown(t, &o->cmp) : NULL;
    int rc = csv && (md || !o->md) ? 0 : sr_fail(&err, "out of memory");
    if (rc == 0) rc = write_file_atomic(o->out, csv, &err);
    if (rc == 0 && md) rc = write_file_atomic(o->md, md, &err);
    free(csv);
    free(md);
    if (rc == 0) {
        cJSON *manifest = manifest_begin(argc, argv, o->cmp.seed);
        manifest_add_file(manifest, "results", o->results);
        cJSON_AddStringToObject(manifest, "runs_dir", o->runs_dir);
        if (o->against) {
            manifest_add_file(manifest, "against", o->against);
            cJSON_AddStringToObject(manifest, "against_runs_dir", o->against_runs_dir);
            cJSON_AddStringToObject(manifest, "results_name", o->cmp.results_name);
            cJSON_AddStringToObject(manifest, "against_name", o->cmp.against_name);
        }
        if (o->cmp.gap_x) {
            char gap[128];
            snprintf(gap, sizeof gap, "%s - %s", o->cmp.gap_x, o->cmp.gap_y);
            cJSON_AddStringToObject(manifest, "gap", gap);
            cJSON_AddStringToObject(manifest, "gap_interval",
                                    "rows per dataset and recipe: the gap in results, the gap in "
                                    "against, and the change (gap in against - gap in results), "
                                    "each with the 2.5th to 97.5th percentile of one paired "
                                    "bootstrap drawing the same test sentences and seeds (those "
                                    "all four runs share) for the four runs");
        }
        cJSON_AddNumberToObject(manifest, "samples", o->cmp.samples);
        cJSON_AddStringToObject(manifest, "interval", "2.5th to 97.5th percentile of the paired "
                                                      "bootstrap over test sentences and seeds");
        cJSON_AddNumberToObject(manifest, "pairs", t->n);
        rc = manifest_write(o->out, manifest, NULL, &err);
        cJSON_Delete(manifest);
    }
    return rc ? args_error(CMD, "%s", err.msg) : 0;
}

/* The comparison the options ask for: within one sweep, against another,
 * or a gap's change between two. */
static int compare_run(const CompareCli *o, const SweepTable *table, const SweepTable *against,
                       CompareTable *cmp, SrError *err)
{
    if (o->cmp.gap_x)
        return compare_gap(table, o->runs_dir, against, o->against_runs_dir, &o->cmp, cmp, err);
    if (o->against)
        return compare_against(table, o->runs_dir, against, o->against_runs_dir, &o->cmp, cmp,
                               err);
    return compare_sweep(table, o->runs_dir, &o->cmp, cmp, err);
}

int cmd_compare(int argc, char **argv)
{
    CompareCli o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    SrError err;
    SweepTable table = {0}, against = {0};
    CompareTable cmp = {0};
    if (sweep_table_read(o.results, &table, NULL, &err) ||
        (o.against && sweep_table_read(o.against, &against, NULL, &err)))
        rc = args_error(CMD, "%s", err.msg);
    if (rc == 0 && compare_run(&o, &table, &against, &cmp, &err))
        rc = args_error(CMD, "%s", err.msg);
    if (rc == 0) rc = write_outputs(argc, argv, &o, &cmp);
    for (int i = 0; rc == 0 && i < cmp.n; i++) {
        const CompareRow *w = &cmp.rows[i];
        printf("%s [%s]: %s − %s = %+.2f [%+.2f, %+.2f] over %d seeds: %s\n", w->dataset, w->recipe,
               w->a, w->b, w->d.diff, w->d.lo, w->d.hi, w->seeds, compare_resolved(w));
    }
    if (rc == 0 && cmp.n_unpaired && !o.against)
        fprintf(stderr, "seqrep %s: %d pairs left out: no seed in common\n", CMD, cmp.n_unpaired);
    if (rc == 0 && cmp.n_unpaired && o.cmp.gap_x)
        fprintf(stderr, "seqrep %s: %d datasets and recipes left out: in one sweep only, a label "
                        "missing, or no seed common to the four runs\n", CMD, cmp.n_unpaired);
    if (rc == 0 && cmp.n_unpaired && o.against && !o.cmp.gap_x)
        fprintf(stderr, "seqrep %s: %d configurations left out: in one sweep only, or no seed in "
                        "common\n", CMD, cmp.n_unpaired);
    if (rc == 0)
        printf("compare: %d pairs (%d samples) into %s%s%s\n", cmp.n, o.cmp.samples, o.out,
               o.md ? ", markdown " : "", o.md ? o.md : "");
    compare_table_free(&cmp);
    sweep_table_free(&table);
    sweep_table_free(&against);
    return rc;
}
