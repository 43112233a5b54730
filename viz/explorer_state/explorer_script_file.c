/* explorer_script_file.c — a --script read from a file, line by line (see
 * explorer_script_file.h). */
#include "explorer_state/explorer_script_file.h"

#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"

/* The parser's message without its "--script: " prefix. */
static const char *without_prefix(const char *msg)
{
    const char *prefix = "--script: ";
    return strncmp(msg, prefix, strlen(prefix)) == 0 ? msg + strlen(prefix) : msg;
}

int explorer_script_read_file(const char *path, ScriptEvent **events, int *n_events, SrError *err)
{
    char *text;
    size_t len;
    *events = NULL;
    *n_events = 0;
    if (text_read_file(path, &text, &len, err)) return -1;
    ScriptEvent *all = NULL;
    int n = 0, rc = 0, line = 0;
    for (char *begin = text; rc == 0 && begin < text + len;) {
        line++;
        char *end = memchr(begin, '\n', (size_t)(text + len - begin));
        if (!end) end = text + len;
        char *next = end < text + len ? end + 1 : end;
        if (end > begin && end[-1] == '\r') end--; /* CRLF */
        *end = '\0';
        if (memchr(begin, '\0', (size_t)(end - begin))) {
            rc = sr_fail(err, "%s:%d: holds a NUL byte", path, line);
            break;
        }
        ScriptEvent *ev = NULL;
        int k = 0;
        SrError why;
        if (explorer_script_parse(begin, &ev, &k, &why)) {
            rc = sr_fail(err, "%s:%d: %s", path, line, without_prefix(why.msg));
            break;
        }
        ScriptEvent *grown = k ? realloc(all, sizeof *all * (size_t)(n + k)) : all;
        if (!grown) {
            free(ev);
            rc = sr_fail(err, "%s: out of memory", path);
            break;
        }
        all = grown;
        if (k) memcpy(all + n, ev, sizeof *ev * (size_t)k);
        n += k;
        free(ev);
        begin = next;
    }
    free(text);
    if (rc) {
        free(all);
        return -1;
    }
    *events = all;
    *n_events = n;
    return 0;
}
