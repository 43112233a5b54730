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
    int skipped;        /* steps done before this job started (a resumed run) */
} Progress;

/* Wall-clock time in seconds (monotonic). */
double progress_now(void);

/* Begin a job of `total` steps reporting to out. */
void progress_start(Progress *p, FILE *out, int total, int every);

/* Report step (1-based) with its loss, after `tokens` more tokens. */
void progress_update(Progress *p, int step, float loss, float lr, long tokens);

/* A job resumed after `done` steps: the next step is done + 1 (printed as a
 * plain line too) and the ETA counts only the steps run since the start. */
void progress_skip(Progress *p, int done);

/* A line of its own between the progress lines (printf format), e.g. "saved
 * at step 40/100"; on a terminal it clears the redrawn line first. */
void progress_note(Progress *p, const char *fmt, ...);

/* Finish the line (terminal) and print the totals. */
void progress_finish(Progress *p, float final_loss);

#endif
