/* series_file.c — reading DIR/series.json back (see series_file.h). */
#include "runs/series_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/text_file.h"

void series_file_free(SeriesFile *s)
{
    for (int i = 0; i < s->n && s->e; i++) free(s->e[i].file);
    free(s->e);
    free(s->model);
    free(s->path);
    memset(s, 0, sizeof *s);
}

char *series_file_path(const char *dir)
{
    size_t n = strlen(dir) + sizeof "/series.json";
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/series.json", dir);
    return path;
}

/* Entry i of the "snapshots" list (item) into s->e[i]: its step (a whole
 * number, above the step before), file name, training loss and F1. 0, or -1
 * with err naming the entry. */
static int read_entry(const cJSON *item, int i, SeriesFile *s, SrError *err)
{
    SeriesEntry *e = &s->e[i];
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(item, "step");
    const cJSON *loss = cJSON_GetObjectItemCaseSensitive(item, "train_loss");
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(item, "file");
    if (!cJSON_IsNumber(step) || step->valuedouble != floor(step->valuedouble) || step->valuedouble < 0 ||
        step->valuedouble > SERIES_MAX_STEP)
        return sr_fail(err, "%s: snapshot %d: no step (a whole number 0..%d)", s->path, i, SERIES_MAX_STEP);
    e->step = (int)step->valuedouble;
    if (i > 0 && e->step <= s->e[i - 1].step)
        return sr_fail(err, "%s: snapshot %d: step %d after step %d (steps must rise)", s->path, i, e->step,
                       s->e[i - 1].step);
    if (loss && !cJSON_IsNull(loss) && !(cJSON_IsNumber(loss) && isfinite(loss->valuedouble)))
        return sr_fail(err, "%s: snapshot %d: train_loss is neither a number nor null", s->path, i);
    e->train_loss = cJSON_IsNumber(loss) ? loss->valuedouble : NAN;
    const char *names[2] = {"dev_f1", "test_f1"};
    double *into[2] = {&e->dev_f1, &e->test_f1};
    for (int k = 0; k < 2; k++) {
        const cJSON *f1 = cJSON_GetObjectItemCaseSensitive(item, names[k]);
        if (f1 && !(cJSON_IsNumber(f1) && f1->valuedouble >= 0 && f1->valuedouble <= 100))
            return sr_fail(err, "%s: snapshot %d: %s is not a number 0..100", s->path, i, names[k]);
        *into[k] = f1 ? f1->valuedouble : NAN;
    }
    if (cJSON_IsString(file) && !strchr(file->valuestring, '/')) {
        e->file = strdup(file->valuestring);
        if (!e->file) return sr_fail(err, "%s: out of memory", s->path);
    }
    return 0;
}

/* The series' own fields: "steps", "unit", "epoch_files" and "model". 0, or
 * -1 with err. */
static int read_head(const cJSON *root, SeriesFile *s, SrError *err)
{
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(root, "steps");
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(root, "unit");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "epoch_files");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    s->total = cJSON_IsNumber(total) ? (int)total->valuedouble : 0;
    if (unit && !(cJSON_IsString(unit) && (strcmp(unit->valuestring, "step") == 0 ||
                                           strcmp(unit->valuestring, "epoch") == 0)))
        return sr_fail(err, "%s: \"unit\" must be \"step\" or \"epoch\"", s->path);
    s->epochs = unit && strcmp(unit->valuestring, "epoch") == 0;
    s->adapters = s->epochs && !(cJSON_IsString(files) && strcmp(files->valuestring, "model") == 0);
    if (cJSON_IsString(model) && !(s->model = strdup(model->valuestring)))
        return sr_fail(err, "%s: out of memory", s->path);
    return 0;
}

/* Fill s from the parsed root object. */
static int read_root(const cJSON *root, SeriesFile *s, SrError *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "snapshots");
    if (!cJSON_IsArray(list)) return sr_fail(err, "%s: not a snapshot series (no \"snapshots\" list)", s->path);
    int n = cJSON_GetArraySize(list);
    if (n == 0) return 0; /* each reader that needs a snapshot says so */
    if (read_head(root, s, err)) return -1;
    s->e = calloc((size_t)n, sizeof *s->e);
    if (!s->e) return sr_fail(err, "%s: out of memory", s->path);
    s->n = n;
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (read_entry(item, i++, s, err)) return -1;
    }
    return 0;
}

int series_file_parse(const char *path, const char *text, SeriesFile *s, SrError *err)
{
    memset(s, 0, sizeof *s);
    s->path = strdup(path);
    if (!s->path) return sr_fail(err, "%s: out of memory", path);
    cJSON *root = cJSON_Parse(text);
    int rc = cJSON_IsObject(root) ? read_root(root, s, err)
                                  : sr_fail(err, "%s: not a snapshot series (not a JSON object)", path);
    cJSON_Delete(root);
    if (rc) series_file_free(s);
    return rc;
}

int series_file_read(const char *dir, SeriesFile *s, SrError *err)
{
    memset(s, 0, sizeof *s);
    char *path = series_file_path(dir), *text = NULL;
    size_t len;
    if (!path) return sr_fail(err, "%s: out of memory", dir);
    int rc = text_read_file(path, &text, &len, err);
    if (rc == 0) rc = series_file_parse(path, text, s, err);
    free(text);
    free(path);
    return rc;
}
