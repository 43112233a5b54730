/* fuzz_util.h — what the libFuzzer harnesses of tests/fuzz/ share: one
 * input handed to a parser as a file (most of seqrep's readers take a path)
 * or as a NUL-terminated string, and a loud stop when a harness finds a
 * property broken (libFuzzer saves the input as a crash).
 *
 * Files go to a per-process folder in $SEQREP_FUZZ_TMP, else /dev/shm (memory,
 * so the many small writes stay cheap) when it exists, else /tmp; it is
 * removed when the harness exits normally. */
#ifndef SEQREP_FUZZ_UTIL_H
#define SEQREP_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Stop with a message naming the broken property; libFuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: fuzz property broken: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* The same for a call that returns 0 or -1 with an SrError: its message is shown. */
#define FUZZ_OK(call, err)                                                                \
    do {                                                                                  \
        if ((call) != 0) {                                                                \
            fprintf(stderr, "%s:%d: fuzz property broken: %s failed: %s\n", __FILE__,    \
                    __LINE__, #call, (err).msg);                                          \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

static char fuzz_dir_path[512];

/* Remove path and, when it is a folder, everything in it. */
static inline void fuzz_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char child[1024];
            if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child) continue;
            fuzz_remove_tree(child);
        }
        if (d) closedir(d);
    }
    remove(path);
}

/* At exit: remove the scratch folder and what is in it. */
static inline void fuzz_cleanup(void)
{
    if (fuzz_dir_path[0]) fuzz_remove_tree(fuzz_dir_path);
}

/* This process's scratch folder (made on first use, removed at exit), e.g.
 * /dev/shm/seqrep-fuzz-123. */
static inline const char *fuzz_dir(void)
{
    char *dir = fuzz_dir_path;
    if (dir[0]) return dir;
    const char *base = getenv("SEQREP_FUZZ_TMP");
    struct stat st;
    if (!base || !*base) base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof fuzz_dir_path, "%s/seqrep-fuzz-%ld", base, (long)getpid());
    mkdir(dir, 0700);
    atexit(fuzz_cleanup);
    return dir;
}

/* path = fuzz_dir()/name (cap bytes). */
static inline void fuzz_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", fuzz_dir(), name);
}

/* Write data[0..size) to the file path (replacing it); aborts when it cannot,
 * since every later result would be meaningless. */
static inline void fuzz_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(size == 0 || fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
}

/* Write data to fuzz_dir()/name; path receives the file's name. */
static inline void fuzz_file(char *path, size_t cap, const char *name, const void *data,
                             size_t size)
{
    fuzz_path(path, cap, name);
    fuzz_write(path, data, size);
}

/* A malloc'd NUL-terminated copy of data[0..size) (it may hold NULs of its own). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL);
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Split data at the first byte sep: *rest and *rest_size get what follows it
 * (NULL, 0 when there is no sep); returns the length before it. */
static inline size_t fuzz_split(const uint8_t *data, size_t size, uint8_t sep,
                                const uint8_t **rest, size_t *rest_size)
{
    const uint8_t *at = size ? memchr(data, sep, size) : NULL;
    if (!at) {
        *rest = NULL;
        *rest_size = 0;
        return size;
    }
    *rest = at + 1;
    *rest_size = size - (size_t)(at - data) - 1;
    return (size_t)(at - data);
}

#endif
