/* utf8_lossy.h — making bytes valid UTF-8 the way Python's
 * errors="replace", Rust's from_utf8_lossy and the WHATWG decoder do: each
 * maximal ill-formed subpart (the longest prefix of a sequence that could
 * still have been well-formed, else one byte) becomes U+FFFD. */
#ifndef SEQREP_UTF8_LOSSY_H
#define SEQREP_UTF8_LOSSY_H

#include <stddef.h>

/* A new NUL-terminated copy of s[0..n) with every ill-formed subpart
 * replaced by U+FFFD (EF BF BD); *out_n (may be NULL) gets its length.
 * NULL when out of memory. */
char *utf8_lossy(const char *s, size_t n, size_t *out_n);

#endif
