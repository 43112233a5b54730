/* utf8.c — well-formed UTF-8, checked by utf8proc's decoder (see utf8.h). */
#include "base/utf8.h"

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
        size_t len = utf8_char_length(s + i, n - i);
        if (!len) return i;
        i += len;
    }
    return n;
}
