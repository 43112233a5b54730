/* file_lock.h — one process at a time on an output: an advisory lock on a
 * file beside it (fcntl F_SETLK, a write lock on the whole file).
 *
 * The kernel drops the lock when its process ends, however it ends, so a
 * lock left by a dead process never blocks; the lock file itself stays (an
 * empty file is free; removing it could let two processes lock two files of
 * one name). */
#ifndef SEQREP_FILE_LOCK_H
#define SEQREP_FILE_LOCK_H

#include "base/status.h"

/* Create or open path and lock it without waiting; *fd gets the descriptor
 * to keep open while the output is being written. Held by another process:
 * -1 with "PATH: locked by process PID (what holds it); ..." in err, `what`
 * saying what that process is (e.g. "another sweep on this output"). */
int file_lock_take(const char *path, const char *what, int *fd, SrError *err);

/* Release the lock (closes fd; -1 is ignored). */
void file_lock_release(int fd);

#endif
