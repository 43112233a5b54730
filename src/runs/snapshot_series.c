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

/* Whether dir/file (a name from series.json, no folder) is a file there. */
static int entry_file_exists(const char *dir, const cJSON *file)
{
    if (!cJSON_IsString(file) || strchr(file->valuestring, '/')) return 0;
    size_t n = strlen(dir) + strlen(file->valuestring) + 2;
    char *path = malloc(n);
    struct stat st;
    int there = 0;
    if (path) {
        snprintf(path, n, "%s/%s", dir, file->valuestring);
        there = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    }
    free(path);
    return there;
}

/* The snapshots of dir/series.json whose files remain, without step (a new
 * array; an empty one when there is no series.json yet). NULL with err
 * filled when series.json is there but is not a series. */
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
    int read = text_read_file(series, &text, &len, err) == 0;
    cJSON *old = read ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(old, "snapshots"), *item;
    if (!cJSON_IsArray(list)) {
        if (read) sr_fail(err, "%s: not a snapshot series (no \"snapshots\" list); move it away",
                          series);
        cJSON_Delete(old);
        cJSON_Delete(kept);
        return NULL;
    }
    cJSON_ArrayForEach(item, list)
    {
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(item, "step");
        if (!cJSON_IsNumber(at) || at->valueint == step ||
            !entry_file_exists(dir, cJSON_GetObjectItemCaseSensitive(item, "file")))
            continue;
        cJSON_AddItemToArray(kept, cJSON_Duplicate(item, 1));
    }
    cJSON_Delete(old);
    return kept;
}

/* dir/series.json: a new string (caller frees), NULL when out of memory. */
static char *series_path(const char *dir)
{
    size_t n = strlen(dir) + 16;
    char *series = malloc(n);
    if (series) snprintf(series, n, "%s/series.json", dir);
    return series;
}

int snapshot_series_check(const char *dir, SrError *err)
{
    char *series = series_path(dir);
    cJSON *kept = series ? kept_snapshots(dir, series, -1, err) : NULL;
    int rc = kept ? 0 : series ? -1 : sr_fail(err, "out of memory");
    cJSON_Delete(kept);
    free(series);
    return rc;
}

/* The entry of one snapshot: step, file name (file NULL: step-NNNNNN.safetensors),
 * training loss (or null). */
static cJSON *snapshot_entry(int step, const char *file_name, int has_loss, double train_loss)
{
    char file[40];
    if (file_name) snprintf(file, sizeof file, "%s", file_name);
    else snprintf(file, sizeof file, "step-%06d.safetensors", step);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "step", step);
    cJSON_AddStringToObject(e, "file", file);
    cJSON_AddItemToObject(e, "train_loss",
                          has_loss ? cJSON_CreateNumber(train_loss) : cJSON_CreateNull());
    return e;
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
    char *series = series_path(dir);
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
    if (entry) {
        cJSON_AddNumberToObject(entry, "epoch", epoch);
        cJSON_AddNumberToObject(entry, "dev_f1", dev_f1);
        cJSON_AddNumberToObject(entry, "test_f1", test_f1);
    }
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

/* Entry i of the list (item of series, read from path) into l->e[i]. */
static int list_entry(const char *dir, const char *path, const cJSON *item, const char *base, int i,
                      SnapshotList *l, SrError *err)
{
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(item, "step");
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(item, "file");
    if (!cJSON_IsNumber(step) || step->valuedouble < 0 || !cJSON_IsString(file) || strchr(file->valuestring, '/'))
        return sr_fail(err, "%s: snapshot %d: no step and file", path, i);
    SnapshotEntry *e = &l->e[i];
    e->step = step->valueint;
    if (i > 0 && e->step <= l->e[i - 1].step)
        return sr_fail(err, "%s: snapshot %d: step %d after step %d (steps must rise)", path, i, e->step,
                       l->e[i - 1].step);
    char *snap = join_path(dir, file->valuestring);
    if (!snap) return sr_fail(err, "out of memory");
    if (!is_file(snap)) {
        sr_fail(err, "%s (step %d of %s) not found", snap, e->step, path);
        free(snap);
        return -1;
    }
    if (base) {
        e->adapter = snap;
        e->model = malloc(strlen(base) + 1);
        if (!e->model) return sr_fail(err, "out of memory");
        memcpy(e->model, base, strlen(base) + 1);
    } else {
        e->model = snap;
    }
    return 0;
}

int snapshot_series_list(const char *dir, SnapshotList *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    char *path = series_path(dir), *text = NULL;
    size_t len = 0;
    if (!path) return sr_fail(err, "out of memory");
    int rc = text_read_file(path, &text, &len, err);
    cJSON *root = rc == 0 ? cJSON_Parse(text) : NULL;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "snapshots");
    if (rc == 0 && !cJSON_IsArray(list)) rc = sr_fail(err, "%s: not a snapshot series (no \"snapshots\" list)", path);
    if (rc == 0 && cJSON_GetArraySize(list) == 0) rc = sr_fail(err, "%s: no snapshots", path);
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(root, "unit");
    out->epochs = cJSON_IsString(unit) && strcmp(unit->valuestring, "epoch") == 0;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "epoch_files");
    int adapters = out->epochs && !(cJSON_IsString(files) && strcmp(files->valuestring, "model") == 0);
    const char *base = NULL;
    if (rc == 0 && adapters) {
        if (!cJSON_IsString(model) || !is_file(model->valuestring))
            rc = sr_fail(err, "%s: its base model (\"model\": %s) is not there", path,
                         cJSON_IsString(model) ? model->valuestring : "none");
        else
            base = model->valuestring;
    }
    if (rc == 0) {
        out->n = cJSON_GetArraySize(list);
        out->e = calloc((size_t)out->n, sizeof *out->e);
        if (!out->e) rc = sr_fail(err, "out of memory");
    }
    const cJSON *item;
    int i = 0;
    if (rc == 0) cJSON_ArrayForEach(item, list)
        {
            if (list_entry(dir, path, item, base, i++, out, err)) {
                rc = -1;
                break;
            }
        }
    if (rc) snapshot_list_free(out);
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}
