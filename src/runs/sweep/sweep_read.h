/* sweep_read.h — reading results back into a sweep table: a sweep CSV
 * (sweep_table.h), or one finished `seqrep finetune` run (its CSV and the
 * manifest beside it). Files are read by base/csv.h; errors name the file
 * and line. */
#ifndef SEQREP_SWEEP_READ_H
#define SEQREP_SWEEP_READ_H

#include "base/status.h"
#include "runs/sweep/sweep_table.h"

/* Read a sweep CSV (SWEEP_CSV_HEADER columns, in any order) and add its rows
 * to t (sweep_table_add: duplicates skipped). *n_added may be NULL. Errors
 * name the file and line. */
int sweep_table_read(const char *path, SweepTable *t, int *n_added, SrError *err);

/* Read one finished `seqrep finetune` run: its CSV (a dev and a test row)
 * and the manifest beside it (RUN.manifest.json: model, data, command, sizes).
 * The dataset is the name of the training file's directory. */
int sweep_row_from_run(const char *csv_path, SweepRow *row, SrError *err);

/* Add the rows of a file of either kind (sweep CSV, or finetune run CSV) to
 * t; the kind is told by the header. *n_rows receives the runs the file
 * holds, *n_added those that were new (either may be NULL). */
int sweep_table_merge_file(SweepTable *t, const char *path, int *n_rows, int *n_added,
                           SrError *err);

#endif
