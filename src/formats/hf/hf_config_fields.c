/* hf_config_fields.c — typed fields of a config.json (see hf_config_fields.h). */
#include "formats/hf/hf_config_fields.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* The field key of o, or NULL when it is absent or null (the default applies). */
const cJSON *hf_field(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return it && !cJSON_IsNull(it) ? it : NULL;
}

/* Integer field key of o into *v; def when absent or null (def < 0: required). */
int hf_get_int(const char *file, const cJSON *o, const char *key, int def, int *v,
               SrError *err)
{
    const cJSON *it = hf_field(o, key);
    if (!it && def < 0) return sr_fail(err, "%s: missing field '%s'", file, key);
    if (!it) return *v = def, 0;
    double d = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(d >= 0 && d <= INT_MAX) || d != floor(d))
        return sr_fail(err, "%s: '%s' must be a non-negative integer", file, key);
    *v = (int)d;
    return 0;
}

/* Real field key of o into *v; def when absent or null. */
int hf_get_float(const char *file, const cJSON *o, const char *key, double def, float *v,
                 SrError *err)
{
    const cJSON *it = hf_field(o, key);
    if (!it) return *v = (float)def, 0;
    if (!cJSON_IsNumber(it) || !isfinite((float)it->valuedouble))
        return sr_fail(err, "%s: '%s' must be a finite number", file, key);
    *v = (float)it->valuedouble;
    return 0;
}

/* Boolean field key of o into *v; def when absent or null. */
int hf_get_bool(const char *file, const cJSON *o, const char *key, int def, int *v,
                    SrError *err)
{
    const cJSON *it = hf_field(o, key);
    if (!it) return *v = def, 0;
    if (!cJSON_IsBool(it)) return sr_fail(err, "%s: '%s' must be true or false", file, key);
    *v = cJSON_IsTrue(it);
    return 0;
}

int hf_get_layer_types(const char *file, const cJSON *o, int n_layers, unsigned long long *sliding,
                       SrError *err)
{
    const cJSON *types = hf_field(o, "layer_types");
    if (!types) return 0;
    if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) != n_layers)
        return sr_fail(err, "%s: 'layer_types' must list one type for each of the %d layers", file,
                       n_layers);
    if (n_layers > 64)
        return sr_fail(err, "%s: 'layer_types' of %d layers (at most 64 supported)", file, n_layers);
    int l = 0;
    for (const cJSON *t = types->child; t; t = t->next, l++) {
        int slides = cJSON_IsString(t) && strcmp(t->valuestring, "sliding_attention") == 0;
        if (!slides && !(cJSON_IsString(t) && strcmp(t->valuestring, "full_attention") == 0))
            return sr_fail(err, "%s: 'layer_types' entry %d is not \"sliding_attention\" or "
                           "\"full_attention\"", file, l);
        if (slides) *sliding |= 1ull << l;
    }
    return 1;
}
