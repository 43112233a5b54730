/* finite.h — finding a NaN or an infinity among floats: a tensor read from a
 * damaged file, or a training run that diverged. */
#ifndef SEQREP_FINITE_H
#define SEQREP_FINITE_H

#include <stddef.h>

#include "base/status.h"

/* The index of the first of x[0..n) that is NaN or infinite, or -1. */
long finite_first_bad(const float *x, size_t n);

/* How a non-finite x reads in a message: "nan", "inf" or "-inf" (the sign of
 * a NaN says nothing); "finite" for any other. */
const char *finite_name(float x);

/* 0 when every one of x[0..n) is finite; else -1 with err = "PATH: tensor
 * 'NAME' holds a non-finite value (nan at element I of N); the file is
 * damaged or the training that wrote it diverged" (path NULL: no "PATH: "). */
int finite_check_tensor(const float *x, size_t n, const char *path, const char *name,
                        SrError *err);

#endif
