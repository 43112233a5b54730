/* results_csv.h — reading the CSV result files that seqrep commands write
 * (blocks, probe, finetune, sweep, attnflow), with the checks a figure needs.
 *
 * A file is a header line of column names and one row per line, fields
 * separated by commas (a field may be double-quoted: "" inside it is a
 * quote, and it may hold commas and line breaks). Spaces and tabs around a
 * field are dropped; blank lines are skipped. Every row must have as many
 * fields as the header. base/csv.h reads the file. Errors name the file and,
 * for a row, its line:
 *   "probe.csv: missing column 'f1'"
 *   "probe.csv:7: 5 fields, the header has 7"
 *   "probe.csv:7: column 'f1': 'abc' is not a number" */
#ifndef SEQREP_VIZ_RESULTS_CSV_H
#define SEQREP_VIZ_RESULTS_CSV_H

#include "base/csv.h"
#include "base/status.h"

/* The table read: path, n_cols, header (n_cols), n_rows, cells (n_rows,
 * n_cols) row-major, line (n_rows); see base/csv.h. */
typedef CsvFile CsvTable;

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
