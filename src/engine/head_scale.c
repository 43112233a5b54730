/* head_scale.c — "L.H[,L.H...]" into a head plan (head_scale.h). */
#include "engine/head_scale.h"

#include <stdlib.h>
#include <string.h>

/* One whole number of digits only in text[0..len) into *out: 0, 1 when it
 * is larger than limit, -1 when it is no such number. */
static int read_index(const char *text, size_t len, long limit, long *out)
{
    if (len == 0 || len > 9) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return -1;
        v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return v <= limit ? 0 : 1;
}

/* The item text[0..len) ("L.H") into layer and head, checked against the
 * model's sizes. 0 or -1 with err naming the item. */
static int read_item(const char *item, int len, int n_layers, int n_heads, int *layer, int *head,
                     SrError *err)
{
    const char *dot = memchr(item, '.', (size_t)len);
    long l = 0, h = 0;
    int l_rc = dot ? read_index(item, (size_t)(dot - item), n_layers - 1, &l) : -1;
    int h_rc = dot ? read_index(dot + 1, (size_t)(item + len - dot - 1), n_heads - 1, &h) : -1;
    if (l_rc < 0 || h_rc < 0)
        return sr_fail(err, "'%.*s' is not LAYER.HEAD (such as 2.1)", len, item);
    if (l_rc > 0)
        return sr_fail(err, "'%.*s': layer %ld is out of range 0..%d", len, item, l, n_layers - 1);
    if (h_rc > 0)
        return sr_fail(err, "'%.*s': head %ld is out of range 0..%d", len, item, h, n_heads - 1);
    *layer = (int)l;
    *head = (int)h;
    return 0;
}

int head_plan_parse(const char *text, int n_layers, int n_heads, float **plan, SrError *err)
{
    *plan = NULL;
    if (!text || strcmp(text, "none") == 0) return 0;
    if (!*text) return sr_fail(err, "empty; give L.H[,L.H...] or none");
    float *p = malloc(sizeof(float) * (size_t)n_layers * (size_t)n_heads);
    if (!p) return sr_fail(err, "out of memory");
    for (int i = 0; i < n_layers * n_heads; i++) p[i] = 1.0f;
    for (const char *item = text;; ) {
        int len = (int)strcspn(item, ",");
        int layer = 0, head = 0;
        if (read_item(item, len, n_layers, n_heads, &layer, &head, err)) {
            free(p);
            return -1;
        }
        if (p[layer * n_heads + head] == 0.0f) {
            sr_fail(err, "'%.*s' is named twice", len, item);
            free(p);
            return -1;
        }
        p[layer * n_heads + head] = 0.0f;
        if (!item[len]) break;
        item += len + 1;
    }
    *plan = p;
    return 0;
}
