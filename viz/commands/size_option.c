/* size_option.c — "WIDTHxHEIGHT" into two integers. */
#include "commands/size_option.h"

#include <stdlib.h>

int size_option_parse(const char *text, long *w, long *h)
{
    char *end;
    long a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X')) return -1;
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (end == second || *end) return -1;
    *w = a;
    *h = b;
    return 0;
}
