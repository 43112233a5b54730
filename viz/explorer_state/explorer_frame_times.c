/* explorer_frame_times.c — per-frame draw times and resident memory of the
 * explorer (see explorer_frame_times.h). */
#include "explorer_state/explorer_frame_times.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/atomic_file.h"
#include "base/rss.h"

double frame_times_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void frame_times_start(FrameTimes *ft)
{
    memset(ft, 0, sizeof *ft);
    ft->start = frame_times_now();
}

int frame_times_add(FrameTimes *ft, double began)
{
    if (ft->n == ft->cap) {
        int cap = ft->cap ? 2 * ft->cap : 256;
        double *t = realloc(ft->t_s, sizeof *t * (size_t)cap);
        if (t) ft->t_s = t;
        double *ms = realloc(ft->ms, sizeof *ms * (size_t)cap);
        if (ms) ft->ms = ms;
        long *rss = realloc(ft->rss_kb, sizeof *rss * (size_t)cap);
        if (rss) ft->rss_kb = rss;
        if (!t || !ms || !rss) return -1;
        ft->cap = cap;
    }
    double now = frame_times_now();
    ft->t_s[ft->n] = now - ft->start;
    ft->ms[ft->n] = (now - began) * 1000.0;
    ft->rss_kb[ft->n] = rss_now_kib();
    ft->n++;
    return 0;
}

/* qsort order of doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int frame_times_write(const FrameTimes *ft, const char *path, SrError *err)
{
    AtomicFile af;
    if (atomic_file_open(&af, path, err)) return -1;
    fprintf(af.f, "frame,t_s,ms,rss_kb\n");
    for (int i = 0; i < ft->n; i++)
        fprintf(af.f, "%d,%.3f,%.3f,%ld\n", i, ft->t_s[i], ft->ms[i], ft->rss_kb[i]);
    if (atomic_file_commit(&af, err)) return -1;
    if (ft->n == 0) return 0;
    double *sorted = malloc(sizeof *sorted * (size_t)ft->n);
    if (!sorted) return sr_fail(err, "%s: out of memory", path);
    memcpy(sorted, ft->ms, sizeof *sorted * (size_t)ft->n);
    qsort(sorted, (size_t)ft->n, sizeof *sorted, by_value);
    int after = 0;
    while (after < ft->n - 1 && ft->t_s[after] < 60.0) after++;
    fprintf(stderr, "frames %d in %.1f s: draw time median %.1f ms, max %.1f ms; VmRSS %ld kB at the first "
                    "frame, %ld kB at %.1f s, %ld kB at the last\n",
            ft->n, ft->t_s[ft->n - 1], sorted[ft->n / 2], sorted[ft->n - 1], ft->rss_kb[0],
            ft->rss_kb[after], ft->t_s[after], ft->rss_kb[ft->n - 1]);
    free(sorted);
    return 0;
}

void frame_times_free(FrameTimes *ft)
{
    free(ft->t_s);
    free(ft->ms);
    free(ft->rss_kb);
    memset(ft, 0, sizeof *ft);
}
