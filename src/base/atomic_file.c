/* atomic_file.c — temporary file, fsync, rename (see atomic_file.h). */
#include "base/atomic_file.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The temporaries being written, for a signal handler to remove: a slot is
 * in use while live[i] is 1 (its name is then complete in names[i]). */
enum { N_LIVE = 8, LIVE_NAME = 4096 };
static volatile sig_atomic_t live[N_LIVE];
static char names[N_LIVE][LIVE_NAME];

/* Note the temporary tmp as being written (not when all slots are taken). */
static void remember(const char *tmp)
{
    if (strlen(tmp) >= LIVE_NAME) return;
    for (int i = 0; i < N_LIVE; i++)
        if (!live[i]) {
            strcpy(names[i], tmp);
            live[i] = 1;
            return;
        }
}

/* Forget the temporary tmp (written, or given up). */
static void forget(const char *tmp)
{
    for (int i = 0; i < N_LIVE; i++)
        if (live[i] && strcmp(names[i], tmp) == 0) live[i] = 0;
}

void atomic_file_remove_temporaries(void)
{
    for (int i = 0; i < N_LIVE; i++)
        if (live[i]) unlink(names[i]);
}

int atomic_file_open(AtomicFile *af, const char *path, SrError *err)
{
    af->f = NULL;
    af->path = strdup(path);
    af->tmp = malloc(strlen(path) + 32);
    if (!af->path || !af->tmp) {
        free(af->path);
        free(af->tmp);
        af->path = af->tmp = NULL;
        return sr_fail(err, "%s: out of memory", path);
    }
    sprintf(af->tmp, "%s.tmp.%ld", path, (long)getpid());
    remember(af->tmp);
    af->f = fopen(af->tmp, "wb");
    if (!af->f) {
        int e = errno;
        forget(af->tmp);
        free(af->path);
        free(af->tmp);
        af->path = af->tmp = NULL;
        return sr_fail(err, "%s: cannot write (%s)", path, strerror(e));
    }
    return 0;
}

/* Free the names held by af. */
static void release(AtomicFile *af)
{
    if (af->tmp) forget(af->tmp);
    free(af->tmp);
    free(af->path);
    af->tmp = af->path = NULL;
    af->f = NULL;
}

int atomic_file_commit(AtomicFile *af, SrError *err)
{
    int e = 0;
    const char *step = "";
    if (ferror(af->f)) e = errno ? errno : EIO;
    if (!e && fflush(af->f) != 0) e = errno;
    if (!e && fsync(fileno(af->f)) != 0) e = errno;
    if (fclose(af->f) != 0 && !e) e = errno;
    af->f = NULL;
    if (!e && rename(af->tmp, af->path) != 0) {
        e = errno;
        step = "cannot rename into place: ";
    }
    if (e) {
        remove(af->tmp);
        sr_fail(err, "%s: write failed (%s%s)", af->path, step, strerror(e));
        release(af);
        return -1;
    }
    release(af);
    return 0;
}

void atomic_file_abort(AtomicFile *af)
{
    if (af->f) fclose(af->f);
    if (af->tmp) remove(af->tmp);
    release(af);
}

int atomic_file_fail(AtomicFile *af, const char *reason, SrError *err)
{
    sr_fail(err, "%s: write failed (%s)", af->path, reason);
    atomic_file_abort(af);
    return -1;
}

int write_bytes_atomic(const char *path, const void *data, size_t n, SrError *err)
{
    AtomicFile af;
    if (atomic_file_open(&af, path, err)) return -1;
    if (n && fwrite(data, 1, n, af.f) != n)
        return atomic_file_fail(&af, strerror(errno ? errno : EIO), err);
    return atomic_file_commit(&af, err);
}

int write_file_atomic(const char *path, const char *text, SrError *err)
{
    return write_bytes_atomic(path, text, strlen(text), err);
}
