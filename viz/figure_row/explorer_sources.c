/* explorer_sources.c — the files explore was started on, by the name of
 * the option that gave each: what a view of the table is drawn from. */
#include "figure_row/explorer_sources.h"

#include <stddef.h>
#include <string.h>

/* An explore option of a file and its place in ExplorerSources. */
typedef struct {
    const char *option;
    size_t offset;
} SourceOption;

static const SourceOption FILES[] = {
    {.option = "layers", .offset = offsetof(ExplorerSources, layers)},
    {.option = "exit", .offset = offsetof(ExplorerSources, exit)},
    {.option = "flow", .offset = offsetof(ExplorerSources, flow)},
    {.option = "repo-range", .offset = offsetof(ExplorerSources, repo_range)},
    {.option = "repo-needle", .offset = offsetof(ExplorerSources, repo_needle)},
    {.option = "heads", .offset = offsetof(ExplorerSources, heads)},
    {.option = "series", .offset = offsetof(ExplorerSources, series)},
};

const char *explorer_source(const ExplorerSources *src, const char *option)
{
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++)
        if (strcmp(FILES[i].option, option) == 0) return *(const char *const *)((const char *)src + FILES[i].offset);
    return NULL;
}
