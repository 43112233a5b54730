/* help_text.c — help lines formatted from defaults (see help_text.h). */
#include "options/help_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *help_text(HelpText *h, const char *fmt, ...)
{
    size_t room = sizeof h->text - h->used;
    char *line = h->text + h->used;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) return "";
    h->used += (size_t)n + 1;
    return line;
}

const char *help_number_e(HelpText *h, float x)
{
    char digits[32];
    for (int precision = 0; precision < 9; precision++) {
        snprintf(digits, sizeof digits, "%.*e", precision, (double)x);
        if (strtof(digits, NULL) == x) break;
    }
    char *e = strchr(digits, 'e');
    if (!e) return help_text(h, "%s", digits); /* inf or nan */
    int exponent = atoi(e + 1);
    *e = '\0';
    return help_text(h, "%se%d", digits, exponent);
}
