/* figure_manifest.c — the inputs of a figure in its manifest. */
#include "figure_row/figure_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"
#include "runs/manifest.h"

void figure_manifest_input(cJSON *manifest, const char *key, const char *path)
{
    char name[64];
    SrError err;
    manifest_add_file(manifest, key, path);
    char *input_manifest = path_with_suffix(path, ".manifest.json"), *text = NULL;
    size_t len;
    if (input_manifest && strcmp(input_manifest, path) != 0 &&
        text_read_file(input_manifest, &text, &len, &err) == 0) {
        cJSON *parsed = cJSON_Parse(text);
        snprintf(name, sizeof name, "%s_manifest", key);
        if (cJSON_IsObject(parsed)) cJSON_AddItemToObject(manifest, name, parsed);
        else cJSON_Delete(parsed);
    }
    free(text);
    free(input_manifest);
}

void figure_manifest_inputs(cJSON *manifest, const char *key, const char *const *paths, int n)
{
    cJSON *files = cJSON_AddArrayToObject(manifest, key);
    for (int i = 0; i < n; i++) {
        cJSON *one = cJSON_CreateObject();
        figure_manifest_input(one, "file", paths[i]);
        cJSON_AddItemToArray(files, one);
    }
}

void figure_manifest_head(cJSON *manifest, int head)
{
    if (head >= 0) cJSON_AddNumberToObject(manifest, "head", head);
    else cJSON_AddStringToObject(manifest, "head", "mean");
}

void figure_manifest_model_run(cJSON *manifest, const FigureModelRun *q, const char *text, int r, RepeatBos bos,
                               RepeatSep sep, RepeatPositions positions)
{
    figure_manifest_input(manifest, "model", q->model);
    if (q->adapter) figure_manifest_input(manifest, "adapter", q->adapter);
    if (q->data) figure_manifest_input(manifest, "data", q->data);
    cJSON_AddStringToObject(manifest, "sentence", text);
    cJSON_AddNumberToObject(manifest, "r", r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    cJSON_AddStringToObject(manifest, "mask", q->mask ? q->mask : "causal");
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(positions));
}
