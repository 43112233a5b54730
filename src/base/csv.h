/* csv.h — reading a CSV file: a header row of column names, then one row of
 * fields per record; and writing one field the way it is read back.
 *
 * Fields are separated by commas. A field that starts with a double quote
 * runs to the closing quote: inside it "" stands for one quote, and commas
 * and line breaks are kept. A line ends at "\n" or "\r\n" (or a "\r" that
 * ends the text); empty lines are skipped. Every row must have as many
 * fields as the header. Errors name the file and the line a record starts on:
 *   "runs.csv:7: quoted field not closed"
 *   "runs.csv:7: 5 fields, the header has 7"
 *   "runs.csv: missing column 'f1'"
 *   "runs.csv:7: column 'f1': 'abc' is not a number" */
#ifndef SEQREP_CSV_H
#define SEQREP_CSV_H

#include <stdio.h>

#include "base/status.h"

/* What a reader of a particular kind of file also wants. */
typedef struct {
    int trim_blanks;         /* 1: spaces and tabs around every field are dropped, and a
                                line of only spaces and tabs counts as empty */
    int refuse_empty_names;  /* 1: an empty column name is an error ("FILE:LINE: empty
                                column name") */
} CsvOptions;

typedef struct {
    char *path;       /* owned copy of the file name, for messages */
    int n_cols;       /* fields of the header; 0 for a file without one (empty) */
    char **header;    /* (n_cols) column names */
    int n_rows;       /* records after the header */
    char **cells;     /* (n_rows, n_cols) fields, row-major; all owned */
    int *line;        /* (n_rows) line each row starts on (1-based) */
    int header_line;  /* line the header starts on (0 when there is none) */
} CsvFile;

/* Split text (the contents of the file `path`, for messages) into *c. An
 * empty text is no error: c->n_cols is 0. options may be NULL (none). On
 * failure *c is empty. */
int csv_file_parse(const char *path, const char *text, const CsvOptions *options, CsvFile *c,
                   SrError *err);

/* Read the file `path` (text_read_file: a byte-order mark is dropped) and
 * parse it as csv_file_parse does. */
int csv_file_read(const char *path, const CsvOptions *options, CsvFile *c, SrError *err);

/* Release every field; zero c. */
void csv_file_free(CsvFile *c);

/* Index of column `name`, or -1. */
int csv_file_column(const CsvFile *c, const char *name);

/* Indices of the columns names[0..n) into idx (n); fails naming the first
 * missing one: "FILE: missing column 'NAME'". */
int csv_file_require(const CsvFile *c, const char *const *names, int n, int *idx, SrError *err);

/* The field of row (0 = first row after the header) and col. */
const char *csv_file_cell(const CsvFile *c, int row, int col);

/* The field as a finite number: "FILE:LINE: column 'C': 'X' is not a number". */
int csv_file_number(const CsvFile *c, int row, int col, double *out, SrError *err);

/* The field as a whole number in [lo, hi]:
 * "FILE:LINE: column 'C': 'X' is not an integer in LO..HI". */
int csv_file_long(const CsvFile *c, int row, int col, long lo, long hi, long *out, SrError *err);

/* Write text to f as one field: as it is, or double-quoted (each quote
 * doubled) when it holds a comma, a quote or a line break. */
void csv_write_field(FILE *f, const char *text);

#endif
