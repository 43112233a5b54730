/* sweep.h — a grid of fine-tuning runs and the table of their results.
 *
 * A sweep is data x seeds x methods x r x exit layers x recipes x copy
 * positions. Every run of the grid is one `seqrep finetune` with its own
 * result files (RUN.csv with a dev and a test row, RUN.manifest.json and the
 * test predictions RUN.predictions.conll beside it); the sweep table holds
 * one row per run, identified by its key
 *
 *     (dataset, model, method, r, exit, seed, recipe, positions)
 *
 * The parts, one idea each:
 *   sweep_grid.h     the grid and its runs (keys, list options, exits)
 *   sweep_table.h    the table of results and its CSV (SWEEP_CSV_HEADER)
 *   sweep_read.h     reading a sweep CSV or a finished run back into a table
 *   sweep_summary.h  the markdown summary: per dataset, mean +- std over seeds
 *   sweep_command.h  one run as a `seqrep finetune` command line
 * The commands include this header for all of them. What only `seqrep sweep`
 * does has two more: sweep_models.h (the models checked before a run
 * starts) and sweep_jobs.h (the runs as child processes). `seqrep compare`
 * reads a sweep's rows and predictions back with runs/compare/compare.h
 * (not included here). */
#ifndef SEQREP_SWEEP_H
#define SEQREP_SWEEP_H

#include "runs/sweep/sweep_command.h"
#include "runs/sweep/sweep_grid.h"
#include "runs/sweep/sweep_read.h"
#include "runs/sweep/sweep_summary.h"
#include "runs/sweep/sweep_table.h"

#endif
