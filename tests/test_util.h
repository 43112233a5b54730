/* test_util.h — helpers shared by the cmocka tests. */
#ifndef SEQREP_TEST_UTIL_H
#define SEQREP_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

/* Deterministic uniform floats in [-scale, scale) for test inputs. */
static inline void test_fill_random(float *x, long n, unsigned long long *state, float scale)
{
    for (long i = 0; i < n; i++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(*state >> 11) / 9007199254740992.0;
        x[i] = (float)((2.0 * u - 1.0) * scale);
    }
}

/* Relative difference |a-b| / max(|a|, |b|, floor). */
static inline double test_rel_diff(double a, double b, double floor)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < floor) m = floor;
    return fabs(a - b) / m;
}

#endif
