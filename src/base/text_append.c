/* text_append.c — printf-style text appended to a fixed buffer (see text_append.h). */
#include "base/text_append.h"

#include <stdarg.h>
#include <stdio.h>

void text_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (*used >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}
