/* utf8.h — checking that bytes are well-formed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates U+D800..DFFF, nothing above U+10FFFF, no truncated
 * sequence), the one check every reader of text uses; and making bytes valid
 * the way Python's errors="replace", Rust's from_utf8_lossy and the WHATWG
 * decoder do: each maximal ill-formed subpart (the longest prefix of a
 * sequence that could still have been well-formed, else one byte) becomes
 * U+FFFD. */
#ifndef SEQREP_UTF8_H
#define SEQREP_UTF8_H

#include <stddef.h>

/* Length (1..4) of the well-formed UTF-8 character at s[0..n), or 0 when
 * the bytes there are not one (a bad lead byte, a missing or bad
 * continuation byte, an overlong form, a surrogate, a code point above
 * U+10FFFF, or n == 0). */
size_t utf8_char_length(const char *s, size_t n);

/* The length of the longest prefix of s[0..n) that is well-formed UTF-8;
 * n when all of it is. */
size_t utf8_valid_prefix(const char *s, size_t n);

/* A new NUL-terminated copy of s[0..n) with every ill-formed subpart
 * replaced by U+FFFD (EF BF BD); *out_n (may be NULL) gets its length.
 * NULL when out of memory. */
char *utf8_lossy(const char *s, size_t n, size_t *out_n);

#endif
