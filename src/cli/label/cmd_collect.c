/* cmd_collect.c — `seqrep collect FILE|DIR... --out sweep.csv`: merge the
 * results of runs made anywhere (by `seqrep sweep --plan` commands spread
 * over machines, or by several sweeps) into one sweep CSV and, on request,
 * its markdown summary.
 *
 * Each FILE is a `seqrep finetune` result (RUN.csv with RUN.manifest.json
 * beside it) or a sweep CSV; a DIR stands for the .csv files in it. Rows are
 * merged by key (dataset, model, method, r, exit, seed, recipe, positions):
 * a run found twice with the same scores is kept once, with different scores
 * it is an error naming both files. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/label/label_commands.h"
#include "options/args.h"
#include "runs/sweep/sweep.h"

static const char *CMD = "collect";

/* qsort order of file names: byte-wise. */
static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The paths of the "*.csv" files directly inside dir, sorted: *paths is a new
 * array of new strings (free each, then the array). */
static int list_csv_files(const char *dir, char ***paths, int *n, SrError *err)
{
    *paths = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return sr_fail(err, "%s: cannot open the directory", dir);
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".csv") != 0) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **bigger = realloc(*paths, sizeof(char *) * (size_t)cap);
            if (!bigger) break;
            *paths = bigger;
        }
        char *path = malloc(strlen(dir) + len + 2);
        if (!path) break;
        sprintf(path, "%s/%s", dir, e->d_name);
        (*paths)[(*n)++] = path;
    }
    closedir(d);
    if (e) { /* stopped early: out of memory */
        for (int i = 0; i < *n; i++) free((*paths)[i]);
        free(*paths);
        *paths = NULL;
        *n = 0;
        return sr_fail(err, "out of memory");
    }
    qsort(*paths, (size_t)*n, sizeof(char *), compare_names);
    return 0;
}

/* Merge one file into the table, counting files and duplicates. */
static int merge_one(SweepTable *t, const char *path, int *n_files, int *n_dups, SrError *err)
{
    int rows = 0, added = 0;
    if (sweep_table_merge_file(t, path, &rows, &added, err)) return -1;
    (*n_files)++;
    *n_dups += rows - added;
    return 0;
}

/* Merge every input into the table: a file as it is, a directory as the
 * .csv files in it (sorted). 0, or 2 after the error line. */
static int merge_inputs(SweepTable *t, const char *const *inputs, int n_inputs, int *n_files,
                        int *n_dups)
{
    SrError err;
    for (int i = 0; i < n_inputs; i++) {
        struct stat st;
        if (stat(inputs[i], &st) != 0) return args_error(CMD, "%s: no such file or directory", inputs[i]);
        if (!S_ISDIR(st.st_mode)) {
            if (merge_one(t, inputs[i], n_files, n_dups, &err)) return args_error(CMD, "%s", err.msg);
            continue;
        }
        char **paths;
        int n_paths, bad = 0;
        if (list_csv_files(inputs[i], &paths, &n_paths, &err)) return args_error(CMD, "%s", err.msg);
        for (int k = 0; k < n_paths && !bad; k++) bad = merge_one(t, paths[k], n_files, n_dups, &err);
        for (int k = 0; k < n_paths; k++) free(paths[k]);
        free(paths);
        if (bad) return args_error(CMD, "%s", err.msg);
    }
    if (t->n == 0) return args_error(CMD, "no runs found in the inputs");
    return 0;
}

/* Write the merged CSV and, when asked, the summary. 0, or 2 after the
 * error line. */
static int write_outputs(const SweepTable *t, const char *out_path, const char *summary_path)
{
    SrError err;
    if (sweep_table_write(out_path, t, &err) ||
        (summary_path && sweep_summary_write(summary_path, t, &err)))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

int cmd_collect(int argc, char **argv)
{
    const char *out_path = NULL, *summary_path = NULL;
    ArgSpec specs[] = {
        {.name = "out", .type = ARG_STRING, .value = &out_path, .required = 1,
         .help = "merged sweep CSV to write"},
        {.name = "summary", .type = ARG_STRING, .value = &summary_path,
         .help = "markdown summary to write (mean +- std over seeds)"},
    };
    const char **inputs = calloc((size_t)argc + 1, sizeof(char *));
    if (!inputs) return args_error(CMD, "out of memory");
    int n_inputs = 0;
    int rc = args_parse(CMD, "FILE|DIR... --out sweep.csv [--summary sweep.md]", specs,
                        ARGS_COUNT(specs), argc, argv, inputs, argc, &n_inputs);
    if (rc == 0 && n_inputs == 0)
        rc = args_error(CMD, "expects run CSVs, sweep CSVs or directories of them");
    SweepTable table = {0};
    int n_files = 0, n_dups = 0;
    if (rc == 0) rc = merge_inputs(&table, inputs, n_inputs, &n_files, &n_dups);
    if (rc == 0) rc = write_outputs(&table, out_path, summary_path);
    if (rc == 0)
        printf("collect: %d runs from %d files (%d duplicates dropped) into %s%s%s\n", table.n,
               n_files, n_dups, out_path, summary_path ? ", summary " : "",
               summary_path ? summary_path : "");
    sweep_table_free(&table);
    free(inputs);
    return rc == 1 ? 0 : rc;
}
