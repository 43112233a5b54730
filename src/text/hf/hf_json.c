/* hf_json.c — a tokenizer.json split into a cJSON tree of its small parts
 * and the places of model.vocab and model.merges (hf_json.h). */
#include "text/hf/hf_json.h"

#include <stdlib.h>
#include <string.h>

#include "text/hf/json_scan.h"

/* The value that comes next, parsed by cJSON and added to obj under key.
 * 0, or -1 on bad JSON (the scanner stands where it went wrong) or when out
 * of memory (*oom set). */
static int add_value(JsonScan *j, cJSON *obj, const char *key, int *oom)
{
    json_peek(j);
    size_t from = j->pos;
    if (json_skip(j)) return -1;
    cJSON *v = cJSON_ParseWithLength(j->s + from, j->pos - from);
    if (!v) return j->pos = from, -1; /* what cJSON refuses (or no memory for it) */
    if (!cJSON_AddItemToObject(obj, key, v)) {
        cJSON_Delete(v);
        return *oom = 1, -1;
    }
    return 0;
}

/* The members of the model object that comes next: vocab and merges noted
 * (the first of each), the rest parsed into a new cJSON object added to root
 * as "model". 0 or -1 as add_value. */
static int split_model(JsonScan *j, cJSON *root, HfJsonParts *out, int *oom)
{
    cJSON *model = cJSON_CreateObject();
    if (!model || !cJSON_AddItemToObject(root, "model", model)) {
        cJSON_Delete(model);
        return *oom = 1, -1;
    }
    JsonBuf key = {0};
    long count = 0;
    int r;
    json_enter(j, '{');
    while ((r = json_next_member(j, &count, &key)) == 1) {
        int is_vocab = strcmp(key.s, "vocab") == 0, is_merges = strcmp(key.s, "merges") == 0;
        size_t *at = is_vocab ? &out->vocab_at : is_merges ? &out->merges_at : NULL;
        if (at && *at == 0) *at = j->pos;
        if (at ? json_skip(j) : add_value(j, model, key.s, oom)) {
            r = -1;
            break;
        }
    }
    free(key.s);
    return r;
}

int hf_json_split(const char *path, const char *text, size_t n, HfJsonParts *out, SrError *err)
{
    JsonScan j;
    json_scan_init(&j, text, n);
    memset(out, 0, sizeof *out);
    if (json_enter(&j, '{')) return sr_fail(err, "%s: not a JSON object", path);
    out->root = cJSON_CreateObject();
    if (!out->root) return sr_fail(err, "%s: out of memory", path);
    JsonBuf key = {0};
    long count = 0;
    int r, oom = 0, seen_model = 0;
    while ((r = json_next_member(&j, &count, &key)) == 1) {
        if (strcmp(key.s, "model") == 0 && !seen_model && json_peek(&j) == '{') {
            seen_model = 1;
            r = split_model(&j, out->root, out, &oom);
        } else {
            r = add_value(&j, out->root, key.s, &oom);
        }
        if (r) break;
    }
    free(key.s);
    if (r == 0 && json_peek(&j) < 0) return 0;
    cJSON_Delete(out->root);
    out->root = NULL;
    if (oom) return sr_fail(err, "%s: out of memory", path);
    return sr_fail(err, "%s: not valid JSON (at byte %zu)", path, j.pos);
}
