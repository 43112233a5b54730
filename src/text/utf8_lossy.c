/* utf8_lossy.c — U+FFFD for each maximal ill-formed subpart (utf8_lossy.h);
 * what is well-formed is base/utf8.h's to say. */
#include "text/utf8_lossy.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

/* The length of the maximal ill-formed subpart at s[0..n), where no
 * well-formed character starts: the longest prefix (of at most 3 bytes)
 * that some well-formed character could still begin with, else one byte.
 * A prefix of k >= 2 bytes can begin one when, completed by continuation
 * bytes 0x80, it is well-formed: its lead byte and the ranges of its second
 * and later bytes are then those of a character. */
static size_t ill_formed_length(const char *s, size_t n)
{
    size_t bad = 1;
    for (size_t k = 2; k <= 3 && k <= n; k++) {
        char completed[4] = {'\x80', '\x80', '\x80', '\x80'};
        memcpy(completed, s, k);
        if (!utf8_char_length(completed, sizeof completed)) break;
        bad = k;
    }
    return bad;
}

char *utf8_lossy(const char *s, size_t n, size_t *out_n)
{
    char *out = malloc(3 * n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_char_length(s + i, n - i);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i += ill_formed_length(s + i, n - i);
        }
    }
    out[o] = '\0';
    if (out_n) *out_n = o;
    return out;
}
