/* status.h — how library functions report failure.
 *
 * Every fallible function returns 0 on success and -1 on failure, and fills an
 * SrError with one human-readable line (naming the file and line of the input
 * when there is one). The library never calls exit(); the CLI prints the line
 * and exits with status 2. */
#ifndef SEQREP_STATUS_H
#define SEQREP_STATUS_H

typedef struct {
    char msg[512];
} SrError;

/* Fill err (may be NULL) with a printf-style message; always returns -1 so a
 * caller can write `return sr_fail(err, "...")`. */
int sr_fail(SrError *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
