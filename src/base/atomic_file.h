/* atomic_file.h — every file seqrep writes appears whole or not at all.
 *
 * A file is written to a temporary beside it (PATH.tmp.PID), flushed, synced
 * to disk (fsync) and renamed over PATH; on any failure the temporary is
 * removed and PATH keeps what it held before; a signal that ends the process
 * meanwhile removes it too (base/job/interrupt.h). One message style for all:
 *     "PATH: cannot write (reason)"   the temporary could not be created
 *     "PATH: write failed (reason)"   writing, syncing or renaming failed
 *
 *     AtomicFile af;
 *     if (atomic_file_open(&af, path, err)) return -1;
 *     fprintf(af.f, ...);                  // stream errors are caught by commit
 *     return atomic_file_commit(&af, err);  */
#ifndef SEQREP_ATOMIC_FILE_H
#define SEQREP_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "base/status.h"

typedef struct {
    FILE *f;      /* write here between open and commit */
    char *tmp;    /* the temporary's name (owned) */
    char *path;   /* the final name (owned) */
} AtomicFile;

/* Open a temporary for path; af->f is ready for writing. 0 or -1 (err set;
 * af then holds nothing and needs no abort). */
int atomic_file_open(AtomicFile *af, const char *path, SrError *err);

/* Flush, fsync, close and rename the temporary over the final name; a write
 * error seen on af->f, a failed flush, sync, close or rename fails with
 * "PATH: write failed (reason)" and removes the temporary (path unchanged).
 * Frees af's names either way. 0 or -1. */
int atomic_file_commit(AtomicFile *af, SrError *err);

/* Give up: close and remove the temporary, free af's names. */
void atomic_file_abort(AtomicFile *af);

/* Give up because writing failed for reason (e.g. strerror(errno)): fill err
 * with "PATH: write failed (reason)", abort af, return -1. */
int atomic_file_fail(AtomicFile *af, const char *reason, SrError *err);

/* Remove the temporaries of every atomic file opened and not yet committed
 * or aborted (at most 8 at a time are known; names up to 4095 bytes). Safe
 * in a signal handler (base/job/interrupt.h calls it); the AtomicFiles are left
 * as they are, for the process is about to end. */
void atomic_file_remove_temporaries(void);

/* Write the n bytes of data (or the NUL-terminated text) to path atomically. */
int write_bytes_atomic(const char *path, const void *data, size_t n, SrError *err);
int write_file_atomic(const char *path, const char *text, SrError *err);

#endif
