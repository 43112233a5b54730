/* file_lock.c — fcntl write locks on a lock file (see file_lock.h). */
#include "base/job/file_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int file_lock_take(const char *path, const char *what, int *fd, SrError *err)
{
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) return sr_fail(err, "%s: cannot create the lock file (%s)", path, strerror(errno));
    struct flock lk;
    memset(&lk, 0, sizeof lk);
    lk.l_type = F_WRLCK;
    lk.l_whence = SEEK_SET; /* l_start 0, l_len 0: the whole file */
    if (fcntl(*fd, F_SETLK, &lk) == 0) return 0;
    int e = errno;
    struct flock holder = lk;
    long pid = fcntl(*fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK ? (long)holder.l_pid : 0;
    close(*fd);
    *fd = -1;
    if (e != EACCES && e != EAGAIN)
        return sr_fail(err, "%s: cannot lock (%s)", path, strerror(e));
    if (pid > 0)
        return sr_fail(err, "%s: locked by process %ld (%s); wait for it to end or stop it", path,
                       pid, what);
    return sr_fail(err, "%s: locked by another process (%s); wait for it to end or stop it", path,
                   what);
}

void file_lock_release(int fd)
{
    if (fd >= 0) close(fd);
}
