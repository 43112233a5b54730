/* finite.c — the first non-finite float of an array (see finite.h). */
#include "formats/finite.h"

#include <math.h>

long finite_first_bad(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return (long)i;
    return -1;
}

const char *finite_name(float x)
{
    return isnan(x) ? "nan" : isinf(x) ? (x > 0 ? "inf" : "-inf") : "finite";
}

int finite_check_tensor(const float *x, size_t n, const char *path, const char *name,
                        SrError *err)
{
    long bad = finite_first_bad(x, n);
    if (bad < 0) return 0;
    return sr_fail(err, "%s%stensor '%s' holds a non-finite value (%s at element %ld of %zu); the "
                   "file is damaged or the training that wrote it diverged",
                   path ? path : "", path ? ": " : "", name, finite_name(x[bad]), bad, n);
}
