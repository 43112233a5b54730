/* progress.h — progress of a long job: step, loss, tokens/s and ETA.
 *
 * On a terminal one line is redrawn in place with a bar; elsewhere (a pipe, a
 * log file, CI) a plain line is printed every `every` steps and at the end. */
#ifndef SEQREP_PROGRESS_H
#define SEQREP_PROGRESS_H

#include <stdio.h>

typedef struct {
    FILE *out;
    int total;          /* steps in the job */
    int every;          /* plain-line interval */
    int is_tty;
    double start;       /* wall clock at progress_start (s) */
    double last_draw;   /* wall clock of the last redraw (s) */
    long tokens;        /* tokens processed so far */
} Progress;

/* Wall-clock time in seconds (monotonic). */
double progress_now(void);

/* Begin a job of `total` steps reporting to out. */
void progress_start(Progress *p, FILE *out, int total, int every);

/* Report step (1-based) with its loss, after `tokens` more tokens. */
void progress_update(Progress *p, int step, float loss, float lr, long tokens);

/* Finish the line (terminal) and print the totals. */
void progress_finish(Progress *p, float final_loss);

#endif
