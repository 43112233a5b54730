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
    int *key;        /* (n) the key it answers (the first frame after it), or -1 */
    int n, cap;
    double start;    /* the monotonic clock at frame_times_start, in seconds     */
} FrameTimes;

/* Seconds on the monotonic clock. */
double frame_times_now(void);

/* Empty *ft and start its clock. */
void frame_times_start(FrameTimes *ft);

/* Record one frame that began at `began` (frame_times_now) and ended now,
 * the first drawn after key (explorer_keys.h codes), or -1 for none. 0 or -1
 * when out of memory. */
int frame_times_add(FrameTimes *ft, double began, int key);

/* Write the frames as CSV (frame,t_s,ms,rss_kb,key: the key's script name,
 * explorer_script_key_name, or empty), atomically, and print on stderr one
 * summary line: frames, median and max ms, VmRSS at the first frame, at the
 * first frame after 60 s and at the last; and, when keys were answered, a
 * second: how many, their median and 99th percentile ms. 0 or -1 (err names
 * the file). */
int frame_times_write(const FrameTimes *ft, const char *path, SrError *err);

/* Release the arrays. */
void frame_times_free(FrameTimes *ft);

#endif
