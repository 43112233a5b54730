/* snapshot_series.c — the files of a snapshot series and its series.json. */
#include "runs/snapshot_series.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/int_list.h"
#include "base/text_file.h"
#include "runs/manifest.h"
#include "runs/series_file.h"

char *snapshot_path(const char *dir, int step)
{
    size_t n = strlen(dir) + 40;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/step-%06d.safetensors", dir, step);
    return path;
}

/* qsort and bsearch order of ints. */
static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int snapshot_steps_plan(const char *list, int every, int steps, int **out, int *n, SrError *err)
{
    *out = NULL;
    *n = 0;
    if (list) {
        IntListRules rules = {.word = "step", .min_value = 0, .max_value = steps,
                              .allow_ranges = 1, .refuse_duplicates = 1, .max_values = 100000};
        if (int_list_parse(list, &rules, out, n, NULL, err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return sr_fail(err, "%s (the run has %d steps)", msg, steps);
        }
        qsort(*out, (size_t)*n, sizeof **out, compare_ints);
        return 0;
    }
    *out = malloc((size_t)(steps / every + 1) * sizeof **out);
    if (!*out) return sr_fail(err, "out of memory");
    for (int step = every; step <= steps; step += every) (*out)[(*n)++] = step;
    if (steps % every) (*out)[(*n)++] = steps;
    return 0;
}

int snapshot_steps_has(const int *steps, int n, int step)
{
    return bsearch(&step, steps, (size_t)n, sizeof step, compare_ints) != NULL;
}

int snapshot_exists(const char *dir, int step)
{
    char *path = snapshot_path(dir, step);
    struct stat st;
    int there = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return there;
}

int snapshot_dir_make(const char *dir, SrError *err)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : sr_fail(err, "%s: not a folder", dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sr_fail(err, "%s: cannot create the folder (%s)", dir, strerror(errno));
    return 0;
}

/* Whether dir/file (a name from series.json, no folder; NULL for none) is
 * a file there. */
static int entry_file_exists(const char *dir, const char *file)
{
    if (!file) return 0;
    size_t n = strlen(dir) + strlen(file) + 2;
    char *path = malloc(n);
    struct stat st;
    int there = 0;
    if (path) {
        snprintf(path, n, "%s/%s", dir, file);
        there = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    }
    free(path);
    return there;
}

/* The entry of one snapshot: step, file name (file NULL: step-NNNNNN.safetensors),
 * training loss (or null). */
static cJSON *snapshot_entry(int step, const char *file_name, int has_loss, double train_loss)
{
    char file[40];
    snprintf(file, sizeof file, "step-%06d.safetensors", step);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "step", step);
    cJSON_AddStringToObject(e, "file", file_name ? file_name : file);
    cJSON_AddItemToObject(e, "train_loss",
                          has_loss ? cJSON_CreateNumber(train_loss) : cJSON_CreateNull());
    return e;
}

/* An epoch's scores added to its entry e, as snapshot_series_add_epoch
 * writes them: "epoch", and "dev_f1" and "test_f1" where not NAN. */
static void add_epoch_scores(cJSON *e, int epoch, double dev_f1, double test_f1)
{
    cJSON_AddNumberToObject(e, "epoch", epoch);
    if (!isnan(dev_f1)) cJSON_AddNumberToObject(e, "dev_f1", dev_f1);
    if (!isnan(test_f1)) cJSON_AddNumberToObject(e, "test_f1", test_f1);
}

/* The snapshots of dir/series.json (the file series, read with
 * runs/series_file.h) whose files remain, without step (a new array; an
 * empty one when there is no series.json yet). NULL with err filled when
 * series.json is there but is not a series. */
static cJSON *kept_snapshots(const char *dir, const char *series, int step, SrError *err)
{
    cJSON *kept = cJSON_CreateArray();
    if (!kept) {
        sr_fail(err, "out of memory");
        return NULL;
    }
    FILE *f = fopen(series, "rb");
    if (!f) return kept; /* no series yet */
    fclose(f);
    char *text = NULL;
    size_t len = 0;
    SeriesFile old = {0};
    int rc = text_read_file(series, &text, &len, err);
    if (rc == 0 && series_file_parse(series, text, &old, err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rc = sr_fail(err, "%s; move it away", msg);
    }
    free(text);
    for (int i = 0; rc == 0 && i < old.n; i++) {
        const SeriesEntry *e = &old.e[i];
        if (e->step == step || !entry_file_exists(dir, e->file)) continue;
        cJSON *entry = snapshot_entry(e->step, e->file, !isnan(e->train_loss), e->train_loss);
        if (old.epochs) add_epoch_scores(entry, e->step, e->dev_f1, e->test_f1);
        cJSON_AddItemToArray(kept, entry);
    }
    series_file_free(&old);
    if (rc == 0) return kept;
    cJSON_Delete(kept);
    return NULL;
}

int snapshot_series_check(const char *dir, SrError *err)
{
    char *series = series_file_path(dir);
    cJSON *kept = series ? kept_snapshots(dir, series, -1, err) : NULL;
    int rc = kept ? 0 : series ? -1 : sr_fail(err, "out of memory");
    cJSON_Delete(kept);
    free(series);
    return rc;
}

/* The snapshots of kept (freed here) with entry, the snapshot of step,
 * before the first of a later step: a new array. */
static cJSON *with_entry(cJSON *kept, cJSON *entry, int step)
{
    cJSON *list = cJSON_CreateArray();
    const cJSON *item;
    cJSON_ArrayForEach(item, kept)
    {
        if (entry && cJSON_GetObjectItemCaseSensitive(item, "step")->valueint > step) {
            cJSON_AddItemToArray(list, entry);
            entry = NULL;
        }
        cJSON_AddItemToArray(list, cJSON_Duplicate(item, 1));
    }
    if (entry) cJSON_AddItemToArray(list, entry);
    cJSON_Delete(kept);
    return list;
}

/* Write dir/series.json: head with "steps": total (and the fields of more,
 * copied), the kept snapshots and entry (taken) in the order of their steps. */
static int series_write(const char *dir, const cJSON *head, int total, const cJSON *more, int step,
                        cJSON *entry, SrError *err)
{
    char *series = series_file_path(dir);
    if (!series || !entry) {
        cJSON_Delete(entry);
        free(series);
        return sr_fail(err, "out of memory");
    }
    cJSON *list = kept_snapshots(dir, series, step, err);
    if (list) list = with_entry(list, entry, step);
    else cJSON_Delete(entry);
    cJSON *out = list ? cJSON_Duplicate(head, 1) : NULL;
    int rc = -1;
    if (list && out) {
        cJSON_AddNumberToObject(out, "steps", total);
        const cJSON *field;
        cJSON_ArrayForEach(field, more) cJSON_AddItemToObject(out, field->string, cJSON_Duplicate(field, 1));
        cJSON_AddItemToObject(out, "snapshots", list);
        list = NULL;
        rc = manifest_save(series, out, err);
    } else if (list) {
        rc = sr_fail(err, "out of memory");
    }
    cJSON_Delete(list);
    cJSON_Delete(out);
    free(series);
    return rc;
}

int snapshot_series_add(const char *dir, const cJSON *head, int total, int step, int has_loss,
                        double train_loss, SrError *err)
{
    return series_write(dir, head, total, NULL, step, snapshot_entry(step, NULL, has_loss, train_loss), err);
}

char *snapshot_epoch_path(const char *dir, int epoch)
{
    size_t n = strlen(dir) + 40;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/epoch-%04d.safetensors", dir, epoch);
    return path;
}

int snapshot_series_add_epoch(const char *dir, const cJSON *head, int epochs, int epoch, double train_loss,
                              double dev_f1, double test_f1, SrError *err)
{
    char file[40];
    snprintf(file, sizeof file, "epoch-%04d.safetensors", epoch);
    cJSON *entry = snapshot_entry(epoch, file, isfinite(train_loss), train_loss);
    if (entry) add_epoch_scores(entry, epoch, dev_f1, test_f1);
    cJSON *more = cJSON_CreateObject();
    cJSON_AddStringToObject(more, "unit", "epoch");
    int rc = series_write(dir, head, epochs, more, epoch, entry, err);
    cJSON_Delete(more);
    return rc;
}

void snapshot_list_free(SnapshotList *l)
{
    for (int i = 0; i < l->n && l->e; i++) {
        free(l->e[i].model);
        free(l->e[i].adapter);
    }
    free(l->e);
    memset(l, 0, sizeof *l);
}

/* A new string "dir/name" (NULL when out of memory). */
static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/%s", dir, name);
    return path;
}

/* Whether path is a regular file. */
static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Snapshot i of the series s (read from dir) into l->e[i]: its step and
 * what to load, each file there. 0, or -1 with err naming the file. */
static int list_entry(const char *dir, const SeriesFile *s, int i, SnapshotList *l, SrError *err)
{
    const SeriesEntry *from = &s->e[i];
    SnapshotEntry *e = &l->e[i];
    if (!from->file) return sr_fail(err, "%s: snapshot %d: no step and file", s->path, i);
    e->step = from->step;
    char *snap = join_path(dir, from->file);
    if (!snap) return sr_fail(err, "out of memory");
    if (!is_file(snap)) {
        sr_fail(err, "%s (step %d of %s) not found", snap, e->step, s->path);
        free(snap);
        return -1;
    }
    if (!s->adapters) {
        e->model = snap;
        return 0;
    }
    e->adapter = snap;
    e->model = strdup(s->model);
    return e->model ? 0 : sr_fail(err, "out of memory");
}

int snapshot_series_list(const char *dir, SnapshotList *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    SeriesFile s;
    if (series_file_read(dir, &s, err)) return -1;
    int rc = s.n == 0 ? sr_fail(err, "%s: no snapshots", s.path) : 0;
    if (rc == 0 && s.adapters && !(s.model && is_file(s.model)))
        rc = sr_fail(err, "%s: its base model (\"model\": %s) is not there", s.path, s.model ? s.model : "none");
    out->epochs = s.epochs;
    if (rc == 0) {
        out->e = calloc((size_t)s.n, sizeof *out->e);
        out->n = s.n;
        if (!out->e) rc = sr_fail(err, "out of memory");
    }
    for (int i = 0; rc == 0 && i < s.n; i++) rc = list_entry(dir, &s, i, out, err);
    if (rc) snapshot_list_free(out);
    series_file_free(&s);
    return rc;
}
