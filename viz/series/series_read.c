/* series_read.c — the steps, training losses (and an epoch series' F1) of DIR/series.json. */
#include "series/series_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "base/text_file.h"

/* The largest step a series may name (snapshot_path writes six digits or more). */
#define SERIES_MAX_STEP 1000000000

void series_free(SeriesSteps *s)
{
    free(s->step);
    free(s->train_loss);
    free(s->dev_f1);
    free(s->test_f1);
    memset(s, 0, sizeof *s);
}

/* Read entry i of the "snapshots" list e into s (step, train_loss). */
static int read_entry(const cJSON *e, int i, const char *path, SeriesSteps *s, SrError *err)
{
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(e, "step");
    const cJSON *loss = cJSON_GetObjectItemCaseSensitive(e, "train_loss");
    if (!cJSON_IsNumber(step) || step->valuedouble != floor(step->valuedouble) || step->valuedouble < 0 ||
        step->valuedouble > SERIES_MAX_STEP)
        return sr_fail(err, "%s: snapshot %d: no step (a whole number 0..%d)", path, i, SERIES_MAX_STEP);
    s->step[i] = (int)step->valuedouble;
    if (i > 0 && s->step[i] <= s->step[i - 1])
        return sr_fail(err, "%s: snapshot %d: step %d after step %d (steps must rise)", path, i, s->step[i],
                       s->step[i - 1]);
    if (loss && !cJSON_IsNull(loss) && !(cJSON_IsNumber(loss) && isfinite(loss->valuedouble)))
        return sr_fail(err, "%s: snapshot %d: train_loss is neither a number nor null", path, i);
    s->train_loss[i] = cJSON_IsNumber(loss) ? loss->valuedouble : NAN;
    const char *names[2] = {"dev_f1", "test_f1"};
    double *into[2] = {&s->dev_f1[i], &s->test_f1[i]};
    for (int k = 0; k < 2; k++) {
        const cJSON *f1 = cJSON_GetObjectItemCaseSensitive(e, names[k]);
        if (f1 && !(cJSON_IsNumber(f1) && f1->valuedouble >= 0 && f1->valuedouble <= 100))
            return sr_fail(err, "%s: snapshot %d: %s is not a number 0..100", path, i, names[k]);
        *into[k] = f1 ? f1->valuedouble : NAN;
    }
    return 0;
}

/* Fill s from the parsed series.json root (read from path). */
static int read_root(const cJSON *root, const char *path, SeriesSteps *s, SrError *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "snapshots");
    if (!cJSON_IsArray(list)) return sr_fail(err, "%s: not a snapshot series (no \"snapshots\" list)", path);
    int n = cJSON_GetArraySize(list);
    if (n == 0) return sr_fail(err, "%s: no snapshots", path);
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(root, "steps");
    s->total = cJSON_IsNumber(total) ? (int)total->valuedouble : 0;
    s->step = malloc(sizeof(int) * (size_t)n);
    s->train_loss = malloc(sizeof(double) * (size_t)n);
    s->dev_f1 = malloc(sizeof(double) * (size_t)n);
    s->test_f1 = malloc(sizeof(double) * (size_t)n);
    if (!s->step || !s->train_loss || !s->dev_f1 || !s->test_f1) return sr_fail(err, "%s: out of memory", path);
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(root, "unit");
    if (unit && !(cJSON_IsString(unit) && (strcmp(unit->valuestring, "step") == 0 ||
                                           strcmp(unit->valuestring, "epoch") == 0)))
        return sr_fail(err, "%s: \"unit\" must be \"step\" or \"epoch\"", path);
    s->epochs = unit && strcmp(unit->valuestring, "epoch") == 0;
    s->n = n;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        if (read_entry(e, i, path, s, err)) return -1;
        i++;
    }
    return 0;
}

int series_read(const char *dir, SeriesSteps *s, SrError *err)
{
    memset(s, 0, sizeof *s);
    size_t cap = strlen(dir) + sizeof "/series.json";
    char *path = malloc(cap), *text = NULL;
    size_t len;
    if (!path) return sr_fail(err, "%s: out of memory", dir);
    snprintf(path, cap, "%s/series.json", dir);
    int rc = text_read_file(path, &text, &len, err);
    cJSON *root = rc == 0 ? cJSON_Parse(text) : NULL;
    if (rc == 0 && !cJSON_IsObject(root)) rc = sr_fail(err, "%s: not a snapshot series (not a JSON object)", path);
    if (rc == 0) rc = read_root(root, path, s, err);
    if (rc) series_free(s);
    cJSON_Delete(root);
    free(text);
    free(path);
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
