/* explorer_names.c — the first free explore-NNNN name in the save
 * directory, so that a save never overwrites an earlier one. */
#include "explorer_state/explorer_names.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* 1 if path exists (any kind of file). */
static int path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 || errno != ENOENT;
}

int explorer_save_path(const char *dir, const char *suffix, const char *ext, char *out,
                       size_t cap, SrError *err)
{
    static const char *const TAKEN[] = {".png", ".svg", "-window.png"};
    char probe[4096];
    for (int i = 1; i <= 9999; i++) {
        int free_number = 1;
        for (size_t j = 0; j < sizeof TAKEN / sizeof TAKEN[0] && free_number; j++) {
            int len = snprintf(probe, sizeof probe, "%s/explore-%04d%s", dir, i, TAKEN[j]);
            if (len < 0 || (size_t)len >= sizeof probe)
                return sr_fail(err, "%s: save directory name too long", dir);
            if (path_exists(probe)) free_number = 0;
        }
        if (!free_number) continue;
        int len = snprintf(out, cap, "%s/explore-%04d%s.%s", dir, i, suffix, ext);
        if (len < 0 || (size_t)len >= cap) return sr_fail(err, "%s: save directory name too long", dir);
        return 0;
    }
    return sr_fail(err, "%s: explore-0001 .. explore-9999 are all taken", dir);
}
