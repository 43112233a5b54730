/* methods.c — method -> (r, mask plan) (see methods.h). */
#include "label/methods.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[METHOD_COUNT] = {"causal", "sr", "unmask-full", "unmask-middle",
                                                "encoder"};

int method_parse(const char *text, Method *out)
{
    for (int i = 0; i < METHOD_COUNT; i++)
        if (strcmp(text, NAMES[i]) == 0) {
            *out = (Method)i;
            return 0;
        }
    return -1;
}

const char *method_name(Method method)
{
    return method >= 0 && method < METHOD_COUNT ? NAMES[method] : "unknown";
}

int method_default_r(Method method)
{
    return method == METHOD_SR ? 1 : 0;
}

int method_plan(Method method, int r, MaskKind *plan, int n_layers, SrError *err)
{
    if (method < 0 || method >= METHOD_COUNT) return sr_fail(err, "unknown method %d", method);
    if (method == METHOD_SR && r < 1)
        return sr_fail(err, "method sr needs r >= 1 (got r = %d; r = 0 is the causal method)", r);
    if (method != METHOD_SR && r != 0)
        return sr_fail(err, "method %s runs one copy (r = 0), got r = %d; use --method sr",
                       NAMES[method], r);
    for (int l = 0; l < n_layers; l++)
        plan[l] = (method == METHOD_UNMASK_FULL || method == METHOD_ENCODER) ? MASK_BIDIRECTIONAL
                                                                             : MASK_CAUSAL;
    if (method == METHOD_UNMASK_MIDDLE) mask_plan_middle(plan, n_layers);
    return 0;
}
