/* share.h — a share kept exact, num / den: the block proportions are
 * compared as fractions, never as rounded floats. */
#ifndef SEQREP_SHARE_H
#define SEQREP_SHARE_H

#include <stdint.h>

typedef struct {
    int64_t num, den;
} Share;

/* 1 if a and b are the same number (a.num * b.den == b.num * a.den). */
int share_equal(Share a, Share b);
/* a as a double (0 when den == 0). */
double share_value(Share a);
/* a in lowest terms. */
Share share_reduce(Share a);

#endif
