/* mask.c — materialising and naming mask plans. */
#include "engine/ops/mask.h"

#include <stdlib.h>
#include <string.h>

void mask_build(MaskKind kind, int T, int len, uint8_t *out)
{
    mask_build_window(kind, 0, T, len, out);
}

void mask_build_window(MaskKind kind, int window, int T, int len, uint8_t *out)
{
    for (int t = 0; t < T; t++) {
        int start, end;
        mask_key_range(kind, window, t, len, &start, &end);
        for (int s = 0; s < T; s++) out[(size_t)t * T + s] = (uint8_t)(s >= start && s < end);
    }
}

void mask_plan_middle(MaskKind *plan, int n_layers)
{
    int cut = (n_layers / 3) / 2 * 2;
    int lb = n_layers / 2 - 1 - cut / 2;
    int ub = n_layers / 2 + cut / 2;
    for (int l = 0; l < n_layers; l++)
        plan[l] = (l >= lb && l <= ub) ? MASK_BIDIRECTIONAL : MASK_CAUSAL;
}

int mask_plan_parse(const char *text, MaskKind *plan, int n_layers)
{
    for (int l = 0; l < n_layers; l++) plan[l] = MASK_CAUSAL;
    if (strcmp(text, "causal") == 0) return 0;
    if (strcmp(text, "full") == 0) {
        for (int l = 0; l < n_layers; l++) plan[l] = MASK_BIDIRECTIONAL;
        return 0;
    }
    if (strcmp(text, "middle") == 0) {
        mask_plan_middle(plan, n_layers);
        return 0;
    }
    const char *p = text;
    while (*p) {
        char *end;
        long l = strtol(p, &end, 10);
        if (end == p || l < 0 || l >= n_layers) return -1;
        plan[l] = MASK_BIDIRECTIONAL;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return 0;
}
