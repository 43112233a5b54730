/* text_file.c — reading a whole text file into memory (see text_file.h). */
#include "base/text_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int text_read_file(const char *path, char **text, size_t *len, SrError *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, "%s: cannot open (%s)", path, strerror(errno));

    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return sr_fail(err, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                fclose(f);
                return sr_fail(err, "%s: out of memory", path);
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        return sr_fail(err, "%s: read error (%s)", path, strerror(e));
    }
    fclose(f);

    if (n >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
        (unsigned char)buf[2] == 0xBF) {
        memmove(buf, buf + 3, n - 3);
        n -= 3;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
