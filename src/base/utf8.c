/* utf8.c — well-formed UTF-8, checked by utf8proc's decoder, and U+FFFD
 * for each maximal ill-formed subpart (see utf8.h). */
#include "base/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

size_t utf8_char_length(const char *s, size_t n)
{
    if (n == 0) return 0;
    utf8proc_int32_t code_point;
    utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)s,
                                            (utf8proc_ssize_t)(n < 4 ? n : 4), &code_point);
    return len > 0 ? (size_t)len : 0;
}

size_t utf8_valid_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint64_t word = 0x80; /* ASCII, most of most text: 8 bytes at a time, no decoder call */
        if (n - i >= 8) memcpy(&word, s + i, 8);
        if ((word & 0x8080808080808080ULL) == 0) {
            i += 8;
            continue;
        }
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = utf8_char_length(s + i, n - i);
        if (!len) return i;
        i += len;
    }
    return n;
}

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
