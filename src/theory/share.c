/* share.c — shares kept as exact fractions (share.h). */
#include "theory/share.h"

/* Greatest common divisor of two non-negative numbers (gcd(0, 0) = 0). */
static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

Share share_reduce(Share a)
{
    int64_t g = gcd64(a.num < 0 ? -a.num : a.num, a.den < 0 ? -a.den : a.den);
    if (g > 1) {
        a.num /= g;
        a.den /= g;
    }
    return a;
}

int share_equal(Share a, Share b)
{
    /* Reduce first so that the cross products stay far from overflow. */
    a = share_reduce(a);
    b = share_reduce(b);
    return a.num * b.den == b.num * a.den;
}

double share_value(Share a)
{
    return a.den ? (double)a.num / (double)a.den : 0.0;
}
