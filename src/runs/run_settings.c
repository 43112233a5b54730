/* run_settings.c — a run's settings as a JSON object of texts. */
#include "runs/run_settings.h"

#include <stdio.h>
#include <string.h>

#include "runs/manifest.h"

void run_settings_add_text(cJSON *settings, const char *key, const char *text)
{
    cJSON_AddStringToObject(settings, key, text);
}

void run_settings_add_int(cJSON *settings, const char *key, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    run_settings_add_text(settings, key, text);
}

void run_settings_add_float(cJSON *settings, const char *key, float v)
{
    char text[32];
    snprintf(text, sizeof text, "%.9g", (double)v);
    run_settings_add_text(settings, key, text);
}

void run_settings_add_file(cJSON *settings, const char *key, const char *path)
{
    char hex[17], text[40];
    SrError err;
    if (!path) snprintf(text, sizeof text, "none");
    else if (file_checksum(path, hex, &err)) snprintf(text, sizeof text, "unreadable");
    else snprintf(text, sizeof text, "checksum %s", hex);
    run_settings_add_text(settings, key, text);
}

const char *run_settings_get(const cJSON *settings, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(settings, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* Whether key is one of the n keys. */
static int is_one_of(const char *key, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(key, keys[i]) == 0) return 1;
    return 0;
}

const char *run_settings_first_change(const cJSON *saved, const cJSON *now,
                                      const char *const *free, int n_free)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, now)
    {
        const char *was = run_settings_get(saved, item->string);
        if (is_one_of(item->string, free, n_free)) continue;
        if (!was || !cJSON_IsString(item) || strcmp(was, item->valuestring) != 0)
            return item->string;
    }
    cJSON_ArrayForEach(item, saved)
        if (!is_one_of(item->string, free, n_free) &&
            !cJSON_GetObjectItemCaseSensitive(now, item->string))
            return item->string;
    return NULL;
}
