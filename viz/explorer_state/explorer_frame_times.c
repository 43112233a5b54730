/* explorer_frame_times.c — per-frame draw times and resident memory of the
 * explorer (see explorer_frame_times.h). */
#include "explorer_state/explorer_frame_times.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/atomic_file.h"
#include "base/rss.h"
#include "explorer_state/explorer_script.h"

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

int frame_times_add(FrameTimes *ft, double began, int key)
{
    if (ft->n == ft->cap) {
        int cap = ft->cap ? 2 * ft->cap : 256;
        double *t = realloc(ft->t_s, sizeof *t * (size_t)cap);
        if (t) ft->t_s = t;
        double *ms = realloc(ft->ms, sizeof *ms * (size_t)cap);
        if (ms) ft->ms = ms;
        long *rss = realloc(ft->rss_kb, sizeof *rss * (size_t)cap);
        if (rss) ft->rss_kb = rss;
        int *keys = realloc(ft->key, sizeof *keys * (size_t)cap);
        if (keys) ft->key = keys;
        if (!t || !ms || !rss || !keys) return -1;
        ft->cap = cap;
    }
    double now = frame_times_now();
    ft->t_s[ft->n] = now - ft->start;
    ft->ms[ft->n] = (now - began) * 1000.0;
    ft->rss_kb[ft->n] = rss_now_kib();
    ft->key[ft->n] = key;
    ft->n++;
    return 0;
}

/* qsort order of doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median and 99th percentile (nearest rank) of the n ms of the frames
 * that answered a key (answers 1) or of all frames (answers 0); -1 out of
 * memory. The count into *n. */
static int percentiles(const FrameTimes *ft, int answers, int *n, double *median, double *p99, double *max)
{
    double *sorted = malloc(sizeof *sorted * (size_t)(ft->n ? ft->n : 1));
    if (!sorted) return -1;
    *n = 0;
    for (int i = 0; i < ft->n; i++)
        if (!answers || ft->key[i] >= 0) sorted[(*n)++] = ft->ms[i];
    qsort(sorted, (size_t)*n, sizeof *sorted, by_value);
    if (*n) {
        int rank = (99 * *n + 99) / 100; /* ceil(0.99 n) */
        *median = sorted[*n / 2];
        *p99 = sorted[rank - 1];
        *max = sorted[*n - 1];
    }
    free(sorted);
    return 0;
}

int frame_times_write(const FrameTimes *ft, const char *path, SrError *err)
{
    AtomicFile af;
    char name[16];
    if (atomic_file_open(&af, path, err)) return -1;
    fprintf(af.f, "frame,t_s,ms,rss_kb,key\n");
    for (int i = 0; i < ft->n; i++)
        fprintf(af.f, "%d,%.3f,%.3f,%ld,%s\n", i, ft->t_s[i], ft->ms[i], ft->rss_kb[i],
                ft->key[i] < 0 ? "" : explorer_script_key_name(ft->key[i], name, sizeof name));
    if (atomic_file_commit(&af, err)) return -1;
    if (ft->n == 0) return 0;
    int n, n_keys;
    double median, p99, max, key_median = 0, key_p99 = 0, key_max = 0;
    if (percentiles(ft, 0, &n, &median, &p99, &max) || percentiles(ft, 1, &n_keys, &key_median, &key_p99, &key_max))
        return sr_fail(err, "%s: out of memory", path);
    int after = 0;
    while (after < ft->n - 1 && ft->t_s[after] < 60.0) after++;
    fprintf(stderr, "frames %d in %.1f s: draw time median %.1f ms, max %.1f ms; VmRSS %ld kB at the first "
                    "frame, %ld kB at %.1f s, %ld kB at the last\n",
            ft->n, ft->t_s[ft->n - 1], median, max, ft->rss_kb[0], ft->rss_kb[after], ft->t_s[after],
            ft->rss_kb[ft->n - 1]);
    if (n_keys)
        fprintf(stderr, "keys answered %d: frame after the key median %.1f ms, 99th percentile %.1f ms, max %.1f ms\n",
                n_keys, key_median, key_p99, key_max);
    return 0;
}

void frame_times_free(FrameTimes *ft)
{
    free(ft->t_s);
    free(ft->ms);
    free(ft->key);
    free(ft->rss_kb);
    memset(ft, 0, sizeof *ft);
}
