/* series_read.c — the steps, training losses (and an epoch series' F1) of DIR/series.json. */
#include "series/series_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runs/series_file.h"

void series_free(SeriesSteps *s)
{
    free(s->step);
    free(s->train_loss);
    free(s->dev_f1);
    free(s->test_f1);
    memset(s, 0, sizeof *s);
}

/* The steps and numbers of the series f (read by runs/series_file.h) into s. */
static int copy_steps(const SeriesFile *f, SeriesSteps *s, SrError *err)
{
    size_t n = (size_t)f->n;
    s->step = malloc(sizeof(int) * n);
    s->train_loss = malloc(sizeof(double) * n);
    s->dev_f1 = malloc(sizeof(double) * n);
    s->test_f1 = malloc(sizeof(double) * n);
    if (!s->step || !s->train_loss || !s->dev_f1 || !s->test_f1) return sr_fail(err, "%s: out of memory", f->path);
    for (int i = 0; i < f->n; i++) {
        s->step[i] = f->e[i].step;
        s->train_loss[i] = f->e[i].train_loss;
        s->dev_f1[i] = f->e[i].dev_f1;
        s->test_f1[i] = f->e[i].test_f1;
    }
    s->n = f->n;
    s->total = f->total;
    s->epochs = f->epochs;
    return 0;
}

int series_read(const char *dir, SeriesSteps *s, SrError *err)
{
    memset(s, 0, sizeof *s);
    SeriesFile f;
    if (series_file_read(dir, &f, err)) return -1;
    int rc = f.n == 0 ? sr_fail(err, "%s: no snapshots", f.path) : copy_steps(&f, s, err);
    if (rc) series_free(s);
    series_file_free(&f);
    return rc;
}

char *series_measure_path(const char *dir, const char *measure, int step, const char *suffix)
{
    size_t cap = strlen(dir) + strlen(measure) + strlen(suffix) + 40;
    char *path = malloc(cap);
    if (path) snprintf(path, cap, "%s/measures/%s/step-%06d%s", dir, measure, step, suffix);
    return path;
}

int series_has_measure(const char *dir, const char *measure)
{
    size_t cap = strlen(dir) + strlen(measure) + 16;
    char *path = malloc(cap);
    struct stat st;
    int yes = 0;
    if (path) {
        snprintf(path, cap, "%s/measures/%s", dir, measure);
        yes = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    }
    free(path);
    return yes;
}
