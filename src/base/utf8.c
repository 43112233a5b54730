/* utf8.c — the longest well-formed UTF-8 prefix (see utf8.h). */
#include "base/utf8.h"

/* Length (1-4) of the well-formed UTF-8 character at s[0..n), or 0. */
static size_t char_length(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;       /* no overlong three-byte forms */
        if (c == 0xED) hi = 0x9F;       /* no surrogates U+D800..DFFF */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;       /* no overlong four-byte forms */
        if (c == 0xF4) hi = 0x8F;       /* nothing above U+10FFFF */
    } else return 0;
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return len;
}

size_t utf8_valid_prefix(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t len = char_length(u + i, n - i);
        if (!len) return i;
        i += len;
    }
    return n;
}
