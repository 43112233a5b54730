/* results_csv.c — the result files a figure reads, through base/csv.h. */
#include "results/results_csv.h"

#include <errno.h>
#include <stdlib.h>

int csv_read(const char *path, CsvTable *t, SrError *err)
{
    const CsvOptions options = {.trim_blanks = 1, .refuse_empty_names = 1};
    if (csv_file_read(path, &options, t, err)) return -1;
    int rc = 0;
    if (t->n_cols == 0) rc = sr_fail(err, "%s: empty file (no header line)", path);
    else if (t->n_rows == 0) rc = sr_fail(err, "%s: no data rows after the header", path);
    if (rc) csv_file_free(t);
    return rc;
}

void csv_free(CsvTable *t)
{
    csv_file_free(t);
}

int csv_column(const CsvTable *t, const char *name)
{
    return csv_file_column(t, name);
}

int csv_require(const CsvTable *t, const char *const *names, int n, int *idx, SrError *err)
{
    return csv_file_require(t, names, n, idx, err);
}

const char *csv_cell(const CsvTable *t, int row, int col)
{
    return csv_file_cell(t, row, col);
}

int csv_number(const CsvTable *t, int row, int col, double *out, SrError *err)
{
    return csv_file_number(t, row, col, out, err);
}

int csv_int(const CsvTable *t, int row, int col, int *out, SrError *err)
{
    const char *s = csv_cell(t, row, col);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < -2147483647L || v > 2147483647L)
        return sr_fail(err, "%s:%d: column '%s': '%s' is not an integer", t->path, t->line[row],
                       t->header[col], s);
    *out = (int)v;
    return 0;
}
