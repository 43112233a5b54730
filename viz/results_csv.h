/* results_csv.h — reading the CSV result files that seqrep commands write
 * (blocks, probe, finetune, sweep, attnflow), with the checks a figure needs.
 *
 * A file is a header line of column names and one row per line, fields
 * separated by commas (a field may be double-quoted, "" inside it is a
 * quote). Blank lines are skipped. Every row must have as many fields as the
 * header. Errors name the file and, for a row, its line:
 *   "probe.csv: missing column 'f1'"
 *   "probe.csv:7: 5 fields, the header has 7"
 *   "probe.csv:7: column 'f1': 'abc' is not a number" */
#ifndef SEQREP_VIZ_RESULTS_CSV_H
#define SEQREP_VIZ_RESULTS_CSV_H

#include "base/status.h"

typedef struct {
    char *path;      /* owned copy of the file name, for messages */
    int n_cols;
    char **header;   /* (n_cols) column names */
    int n_rows;
    char **cells;    /* (n_rows, n_cols) fields, row-major; all owned */
    int *line;       /* (n_rows) line of each row in the file (1-based) */
} CsvTable;

/* Read a whole CSV file. An empty file or one without data rows is an error.
 * On failure *t is empty. */
int csv_read(const char *path, CsvTable *t, SrError *err);
void csv_free(CsvTable *t);

/* Index of column `name`, or -1. */
int csv_column(const CsvTable *t, const char *name);

/* Indices of the columns names[0..n) into idx; fails naming the first
 * missing one: "FILE: missing column 'NAME'". */
int csv_require(const CsvTable *t, const char *const *names, int n, int *idx, SrError *err);

/* The field of row, col. */
const char *csv_cell(const CsvTable *t, int row, int col);

/* The field as a finite number / as an integer; errors name file, line and column. */
int csv_number(const CsvTable *t, int row, int col, double *out, SrError *err);
int csv_int(const CsvTable *t, int row, int col, int *out, SrError *err);

#endif
