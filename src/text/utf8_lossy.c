/* utf8_lossy.c — U+FFFD for each maximal ill-formed subpart (utf8_lossy.h). */
#include "text/utf8_lossy.h"

#include <stdlib.h>
#include <string.h>

/* Length of the well-formed sequence at s[0..n) (1..4), or 0 when it is
 * ill-formed; then *bad gets the length of its maximal ill-formed subpart. */
static size_t sequence_at(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned char c = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    *bad = 1;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) need = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    for (size_t k = 1; k < need; k++) {
        if (k >= n) return 0;
        unsigned char d = s[k];
        if (d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xBF)) return 0;
        *bad = k + 1;
    }
    return need;
}

char *utf8_lossy(const char *s, size_t n, size_t *out_n)
{
    char *out = malloc(3 * n + 1);
    if (!out) return NULL;
    size_t o = 0;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t bad, k = sequence_at(u + i, n - i, &bad);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i += bad;
        }
    }
    out[o] = '\0';
    if (out_n) *out_n = o;
    return out;
}
