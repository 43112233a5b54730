/* test_util.h — helpers shared by the cmocka tests. */
#ifndef SEQREP_TEST_UTIL_H
#define SEQREP_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The larger of worst and e, a NaN kept once seen: a running maximum of
 * differences that a NaN fails (fmax would drop it; an fmax running maximum
 * also crashed the vectoriser of Debian 12's aarch64 gcc 12.2 at -O2). */
static inline double test_worse(double worst, double e)
{
    return e > worst || e != e ? e : worst;
}

/* Remove the files of dir (no subdirectories) and dir itself. */
static inline void test_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Number of entries of dir other than . and .. */
static inline int test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

/* Write text (a C string) to path, replacing what is there. */
static inline void test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#endif
