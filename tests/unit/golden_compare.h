/* golden_compare.h — the golden rule of tests/unit/model/test_golden.c for the Hugging
 * Face golden tests: |a - b| <= 1e-4 * (max(|a|, |b|) + rms of the golden
 * tensor), quietly (golden_ratio) or printed (golden_compare). Include after
 * test_util.h. */
#ifndef SEQREP_GOLDEN_COMPARE_H
#define SEQREP_GOLDEN_COMPARE_H

#include <math.h>
#include <stdio.h>

#include "formats/safetensors.h"

#define GOLDEN_REL 1e-4

/* Worst |a-b| / tolerance over n elements of got against want (<= 1 passes),
 * quietly; *worst_i gets the worst element and *max_abs the largest absolute
 * difference (either may be NULL). */
static inline double golden_ratio(const float *got, const float *want, size_t n, size_t *worst_i,
                                  double *max_abs)
{
    double sq = 0.0, worst = 0.0, most = 0.0;
    for (size_t i = 0; i < n; i++) sq += (double)want[i] * want[i];
    double rms = n ? sqrt(sq / (double)n) : 0.0;
    size_t wi = 0;
    for (size_t i = 0; i < n; i++) {
        double a = got[i], b = want[i], diff = fabs(a - b);
        if (!(diff <= most)) most = isnan(diff) ? INFINITY : diff;
        if (diff == 0.0) continue;
        double tol = GOLDEN_REL * ((fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + rms);
        double ratio = tol > 0.0 ? diff / tol : INFINITY;
        if (!(ratio <= worst)) {
            worst = isnan(ratio) ? INFINITY : ratio;
            wi = i;
        }
    }
    if (worst_i) *worst_i = wi;
    if (max_abs) *max_abs = most;
    return worst;
}

/* golden_ratio, printed with the largest absolute difference, and the worst
 * element when it fails. */
static inline double golden_compare(const char *name, const char *what, const float *got,
                                    const float *want, size_t n)
{
    size_t worst_i;
    double max_abs, worst = golden_ratio(got, want, n, &worst_i, &max_abs);
    printf("  %-13s %-9s max abs diff %.3g (%.3f of the tolerance)\n", name, what, max_abs, worst);
    if (worst > 1.0)
        fprintf(stderr, "  %s: %s mismatch at element %zu of %zu: C %.9g, golden %.9g\n", name,
                what, worst_i, n, (double)got[worst_i], (double)want[worst_i]);
    return worst;
}

/* The golden tensor called name, of dtype and n elements (4 bytes each). */
static inline const StTensor *golden_find(const StFile *f, const char *name, StDtype dtype,
                                          size_t n)
{
    const StTensor *t = st_find(f, name);
    if (!t) fail_msg("golden file lacks %s", name);
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->nbytes, n * 4);
    return t;
}

#endif
