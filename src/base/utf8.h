/* utf8.h — checking that bytes are well-formed UTF-8. */
#ifndef SEQREP_UTF8_H
#define SEQREP_UTF8_H

#include <stddef.h>

/* The length of the longest prefix of s[0..n) that is well-formed UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF);
 * n when all of it is. */
size_t utf8_valid_prefix(const char *s, size_t n);

#endif
