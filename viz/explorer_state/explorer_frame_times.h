/* explorer_frame_times.h — `seqrep explore --frame-times FILE`: how long each
 * drawn frame took and the process's resident memory after it, for the
 * soak test of a long scripted session (tests/soak/e2e_soak.sh). Pure: no SDL. */
#ifndef SEQREP_VIZ_EXPLORER_FRAME_TIMES_H
#define SEQREP_VIZ_EXPLORER_FRAME_TIMES_H

#include "base/status.h"

typedef struct {
    double *t_s;     /* (n) seconds since frame_times_start, at the frame's end */
    double *ms;      /* (n) milliseconds the frame took to draw                  */
    long *rss_kb;    /* (n) VmRSS after it, in kB (-1 when /proc is missing)     */
    int n, cap;
    double start;    /* the monotonic clock at frame_times_start, in seconds     */
} FrameTimes;

/* Seconds on the monotonic clock. */
double frame_times_now(void);

/* Empty *ft and start its clock. */
void frame_times_start(FrameTimes *ft);

/* Record one frame that began at `began` (frame_times_now) and ended now. 0 or
 * -1 when out of memory. */
int frame_times_add(FrameTimes *ft, double began);

/* Write the frames as CSV (frame,t_s,ms,rss_kb), atomically, and print one
 * summary line on stderr: frames, median and max ms, VmRSS at the first
 * frame, at the first frame after 60 s and at the last. 0 or -1 (err names
 * the file). */
int frame_times_write(const FrameTimes *ft, const char *path, SrError *err);

/* Release the arrays. */
void frame_times_free(FrameTimes *ft);

#endif
