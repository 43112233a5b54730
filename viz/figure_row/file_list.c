/* file_list.c — a comma-separated list of files split into its paths. */
#include "figure_row/file_list.h"

#include <stdlib.h>
#include <string.h>

int file_list_split(const char *list, char **storage, const char **paths, int max_paths)
{
    *storage = malloc(strlen(list) + 1);
    if (!*storage) return -1;
    memcpy(*storage, list, strlen(list) + 1);
    int n = 0;
    char *save = NULL;
    for (char *p = strtok_r(*storage, ",", &save); p && n < max_paths; p = strtok_r(NULL, ",", &save))
        paths[n++] = p;
    return n;
}
