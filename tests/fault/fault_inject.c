/* fault_inject.c — an LD_PRELOAD library for tests/fault/e2e_faults.sh: makes the
 * writes, syncs, closes, renames or opens of chosen files fail, as a full or
 * failing disk would.
 *
 *   FAULT_PATH=out.csv    count only files whose name contains this (default: all
 *                         files opened for writing; a rename counts when either
 *                         name contains it)
 *   FAULT_CALL=write      which call fails: write, fsync, close, rename or open
 *                         (unset: nothing fails, calls are only counted)
 *   FAULT_AT=3            the 1-based matching call of that kind that fails first;
 *                         every later one fails too (a full disk stays full)
 *   FAULT_ERRNO=ENOSPC    ENOSPC (default), EIO, EDQUOT, EFBIG, EROFS or a number
 *   FAULT_DELAY_MS=20     every matching write, fsync and rename first sleeps this
 *                         long (a slow disk: signals then land while files are written)
 *   FAULT_REPORT=file     at exit append "write W fsync F close C rename R open O"
 *                         (the matching calls made) to this file
 *
 * stdio writes through glibc's own internal write, which LD_PRELOAD cannot
 * reach; so fopen of a matching file for writing returns a stream of
 * fopencookie whose every buffer flush goes through the counted write below,
 * and fileno of that stream gives its real descriptor (for fsync). Files
 * opened with open/openat/creat are tracked by descriptor. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum { K_WRITE, K_FSYNC, K_CLOSE, K_RENAME, K_OPEN, K_COUNT };
static const char *const KIND_NAMES[K_COUNT] = {"write", "fsync", "close", "rename", "open"};

#define MAX_FDS 4096
#define MAX_STREAMS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char tracked[MAX_FDS];          /* fd -> 1 when its file matches */
static struct { FILE *f; int fd; } streams[MAX_STREAMS]; /* cookie streams and their fds */
static long counts[K_COUNT];
static int fail_kind = -1, fail_at = 1, fail_errno = ENOSPC, delay_ms, configured;
static const char *match;

static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int), (*real_fdatasync)(int), (*real_close)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_open)(const char *, int, ...), (*real_openat)(int, const char *, int, ...);
static FILE *(*real_fopen)(const char *, const char *);
static int (*real_fileno)(FILE *);

/* An errno value from its name or number (ENOSPC when unknown). */
static int errno_of(const char *s)
{
    static const struct { const char *name; int value; } names[] = {
        {"ENOSPC", ENOSPC}, {"EIO", EIO}, {"EDQUOT", EDQUOT}, {"EFBIG", EFBIG}, {"EROFS", EROFS}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) return names[i].value;
    int v = atoi(s);
    return v > 0 ? v : ENOSPC;
}

/* Resolve the real functions and read the environment, once. */
static void setup(void)
{
    if (configured) return;
    real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    real_fopen = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    real_fileno = (int (*)(FILE *))dlsym(RTLD_NEXT, "fileno");
    match = getenv("FAULT_PATH");
    const char *call = getenv("FAULT_CALL"), *at = getenv("FAULT_AT"), *e = getenv("FAULT_ERRNO");
    for (int k = 0; call && k < K_COUNT; k++)
        if (strcmp(call, KIND_NAMES[k]) == 0) fail_kind = k;
    if (at && atoi(at) > 0) fail_at = atoi(at);
    if (e) fail_errno = errno_of(e);
    const char *delay = getenv("FAULT_DELAY_MS");
    if (delay && atoi(delay) > 0) delay_ms = atoi(delay);
    configured = 1;
}

/* 1 when path names a file the faults apply to. */
static int matches(const char *path)
{
    return path && (!match || !*match || strstr(path, match));
}

/* Count one matching call of kind (after FAULT_DELAY_MS); 1 (errno set)
 * when it is to fail. */
static int should_fail(int kind)
{
    if (delay_ms && kind != K_OPEN && kind != K_CLOSE) {
        struct timespec t = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    pthread_mutex_lock(&lock);
    long n = ++counts[kind];
    pthread_mutex_unlock(&lock);
    if (kind == fail_kind && n >= fail_at) {
        errno = fail_errno;
        return 1;
    }
    return 0;
}

/* 1 when fd belongs to a matching file. */
static int is_tracked(int fd)
{
    return fd >= 0 && fd < MAX_FDS && tracked[fd];
}

/* Start (on = 1) or stop tracking fd. */
static void track(int fd, int on)
{
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = (unsigned char)on;
}

/* 1 when open flags write to the file. */
static int writes(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
}

/* The counted open of path: may fail (kind open), tracks the descriptor. */
static int open_counted(int dirfd, const char *path, int flags, mode_t mode)
{
    setup();
    int match_it = writes(flags) && matches(path);
    if (match_it && should_fail(K_OPEN)) return -1;
    int fd = dirfd == AT_FDCWD ? real_open(path, flags, mode) : real_openat(dirfd, path, flags, mode);
    if (fd >= 0) track(fd, match_it);
    return fd;
}

/* The mode argument of an open call with these flags (0 when it has none). */
static mode_t mode_of(int flags, va_list ap)
{
    return flags & (O_CREAT | O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0;
}

/* open, open64, openat, openat64, creat: the counted open (may fail, tracks the file). */
int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return open_counted(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return open_counted(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int creat(const char *path, mode_t mode)
{
    return open_counted(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

/* write, fsync, fdatasync, close: fail from the chosen call on when fd is tracked. */
ssize_t write(int fd, const void *buf, size_t n)
{
    setup();
    if (is_tracked(fd) && should_fail(K_WRITE)) return -1;
    return real_write(fd, buf, n);
}

int fsync(int fd)
{
    setup();
    if (is_tracked(fd) && should_fail(K_FSYNC)) return -1;
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    setup();
    if (is_tracked(fd) && should_fail(K_FSYNC)) return -1;
    return real_fdatasync(fd);
}

int close(int fd)
{
    setup();
    if (is_tracked(fd)) {
        track(fd, 0);
        if (should_fail(K_CLOSE)) {
            int e = errno;
            real_close(fd); /* the descriptor is gone either way, as with a real failing close */
            errno = e;
            return -1;
        }
    }
    return real_close(fd);
}

/* rename: fails from the chosen call on when either name matches. */
int rename(const char *from, const char *to)
{
    setup();
    if ((matches(from) || matches(to)) && should_fail(K_RENAME)) return -1;
    return real_rename(from, to);
}

/* ---- stdio streams of matching files ---------------------------------------- */

/* The cookie's write: all n bytes through the counted write. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
    int fd = (int)(long)cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

/* The cookie's reads and seeks go straight to the descriptor. */
static ssize_t cookie_read(void *cookie, char *buf, size_t n)
{
    return read((int)(long)cookie, buf, n);
}

/* (seek) */
static int cookie_seek(void *cookie, off64_t *at, int whence)
{
    off_t r = lseek((int)(long)cookie, (off_t)*at, whence);
    if (r < 0) return -1;
    *at = r;
    return 0;
}

/* The cookie's close: forget the stream, then the counted close. */
static int cookie_close(void *cookie)
{
    int fd = (int)(long)cookie;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].f && streams[i].fd == fd) streams[i].f = NULL;
    pthread_mutex_unlock(&lock);
    return close(fd);
}

/* open(2) flags of an fopen mode. */
static int mode_flags(const char *mode)
{
    int plus = strchr(mode, '+') != NULL;
    switch (mode[0]) {
    case 'w': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
    case 'a': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
    default: return plus ? O_RDWR : O_RDONLY;
    }
}

/* fopen of a matching file for writing: a cookie stream over the counted calls;
 * every other fopen is the real one. */
FILE *fopen(const char *path, const char *mode)
{
    setup();
    int flags = mode_flags(mode);
    if (!writes(flags) || !matches(path)) return real_fopen(path, mode);
    int fd = open_counted(AT_FDCWD, path, flags | O_CLOEXEC * (strchr(mode, 'e') != NULL), 0666);
    if (fd < 0) return NULL;
    cookie_io_functions_t io = {cookie_read, cookie_write, cookie_seek, cookie_close};
    FILE *f = fopencookie((void *)(long)fd, mode, io);
    if (!f) {
        int e = errno;
        track(fd, 0);
        real_close(fd);
        errno = e;
        return NULL;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_STREAMS; i++)
        if (!streams[i].f) {
            streams[i].f = f;
            streams[i].fd = fd;
            break;
        }
    pthread_mutex_unlock(&lock);
    return f;
}

FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

/* fileno: the real descriptor of a cookie stream, else the real fileno. */
int fileno(FILE *f)
{
    setup();
    pthread_mutex_lock(&lock);
    int fd = -1;
    for (int i = 0; i < MAX_STREAMS && fd < 0; i++)
        if (streams[i].f == f) fd = streams[i].fd;
    pthread_mutex_unlock(&lock);
    return fd >= 0 ? fd : real_fileno(f);
}

/* At exit: append the counts of matching calls to FAULT_REPORT. */
__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("FAULT_REPORT");
    if (!path || !configured) return;
    char line[256];
    int n = snprintf(line, sizeof line, "write %ld fsync %ld close %ld rename %ld open %ld\n",
                     counts[K_WRITE], counts[K_FSYNC], counts[K_CLOSE], counts[K_RENAME],
                     counts[K_OPEN]);
    int fd = real_open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    if (real_write(fd, line, (size_t)n) < 0) { /* nothing to be done at exit */ }
    real_close(fd);
}
