/* text_append.h — writing a line of text piece by piece into a fixed buffer:
 * a figure's caption, a label made of several parts, a list of names. */
#ifndef SEQREP_TEXT_APPEND_H
#define SEQREP_TEXT_APPEND_H

#include <stddef.h>

/* Append printf-style text to buf (cap bytes) at *used and advance *used by
 * the length written. Text that does not fit is cut (buf stays
 * NUL-terminated); once full, *used is cap or more and later calls add
 * nothing. Start with *used = 0. */
void text_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
