/* sweep_jobs.h — running the remaining runs of a sweep: each one `seqrep
 * finetune` (sweep_command.h) started as a child process of this very
 * binary, up to `jobs` at a time, its stdout and stderr into RUN.log; after
 * each, its result files taken into the table (checked to be the run asked
 * for) and the sweep CSV and summary written again, so that an interrupted
 * sweep loses no finished run. One progress line per finished run on
 * stderr:
 *
 *   [3/40] nlupp sr r=2 exit=0 seed=5: test F1 61.20 (dev 62.00), 1m05s, ETA 41m
 *   [4/40] nlupp causal r=0 exit=0 seed=5: FAILED (exit 2): <its log's last line> (log RUN.log)
 *
 * A signal (the flag *stop, set through base/job/interrupt.h) starts no new
 * run and stops the running ones with SIGTERM (each leaves no half-written
 * file); a run that finished meanwhile is kept. */
#ifndef SEQREP_SWEEP_JOBS_H
#define SEQREP_SWEEP_JOBS_H

#include <signal.h>

#include "base/status.h"
#include "runs/sweep/sweep_command.h"
#include "runs/sweep/sweep_grid.h"
#include "runs/sweep/sweep_table.h"

/* What running a sweep's runs needs. */
typedef struct {
    SweepRun *runs;                 /* the grid's runs */
    SweepTable *table;              /* the results so far, added to */
    const SweepFinetuneOptions *ft; /* passed to every run */
    const char *exe;                /* this program, to run `EXE finetune ...` */
    const char *runs_dir, *out_path, *summary_path;
    int epochs;                     /* a result of other epochs is refused */
    volatile sig_atomic_t *stop;    /* set by a signal: stop cleanly */
} SweepJobs;

/* Write the sweep CSV and the summary. 0, or -1 with err. */
int sweep_jobs_save(const SweepJobs *s, SrError *err);

/* Read the result files of run (its CSV at csv, its manifest beside it)
 * into the table, refused when they are another run's or of other epochs.
 * 0, or -1 with err naming the file. */
int sweep_jobs_take(const SweepJobs *s, int run, const char *csv, SrError *err);

/* Run runs[todo[0..n_todo)] with up to jobs children at a time; start no
 * more after stop_after finished runs (0 = never) or once *s->stop is set.
 * The number of failed runs (their logs named on stderr), or -1 on an
 * error that stops the sweep (err filled); *n_finished the runs that ended. */
int sweep_jobs_run(const SweepJobs *s, const int *todo, int n_todo, int jobs, int stop_after, int *n_finished,
                   SrError *err);

#endif
