/* explorer_script.c — the --script parser: a string of keys, <named> keys
 * and mouse events into the list of events the window replays. Pure. */
#include "explorer_state/explorer_script.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append one event to the growing list; 0 or -1. */
static int push_event(ScriptEvent **ev, int *n, int *cap, ScriptEvent e)
{
    if (*n == *cap) {
        int grown_cap = *cap ? 2 * *cap : 32;
        ScriptEvent *grown = realloc(*ev, sizeof *grown * (size_t)grown_cap);
        if (!grown) return -1;
        *ev = grown;
        *cap = grown_cap;
    }
    (*ev)[(*n)++] = e;
    return 0;
}

/* A decimal number 0..INT_MAX at *p (blanks before it skipped) into *v, *p
 * moved past it; -1 when there is none or it does not fit. sscanf's %d is
 * undefined past INT_MAX (glibc wrapped "<hover 1 4294967297>" to y = 1),
 * and %9d split "<click 1234567890>" into (123456789, 0); both found by
 * fuzzing. */
static int read_number(const char **p, int *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (errno == ERANGE || x > INT_MAX) return -1;
    *v = (int)x;
    *p = end;
    return 0;
}

/* name is "WORD X Y" (sep ' ') or "WORD XxY" (sep 'x'), blanks around the
 * numbers allowed: the numbers into *x, *y; 0 or -1. */
static int read_pair(const char *name, const char *word, char sep, int *x, int *y)
{
    size_t n = strlen(word);
    if (strncmp(name, word, n) != 0 || (name[n] != ' ' && name[n] != '\t')) return -1;
    const char *p = name + n;
    if (read_number(&p, x)) return -1;
    if (sep == ' ' && *p != ' ' && *p != '\t') return -1;
    if (sep != ' ' && *p++ != sep) return -1;
    if (read_number(&p, y)) return -1;
    while (*p == ' ' || *p == '\t') p++;
    return *p ? -1 : 0;
}

/* The keys a script names in angle brackets. */
static const struct {
    const char *name;
    int key;
} KEYS[] = {{"left", EXPLORER_KEY_LEFT}, {"right", EXPLORER_KEY_RIGHT}, {"up", EXPLORER_KEY_UP},
            {"down", EXPLORER_KEY_DOWN}, {"pgup", EXPLORER_KEY_PGUP}, {"pgdn", EXPLORER_KEY_PGDN},
            {"home", EXPLORER_KEY_HOME}, {"end", EXPLORER_KEY_END}, {"esc", EXPLORER_KEY_ESC},
            {"space", ' '}, {"lt", '<'}, {"gt", '>'}};

const char *explorer_script_key_name(int key, char *buf, size_t cap)
{
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (KEYS[i].key == key) {
            snprintf(buf, cap, "<%s>", KEYS[i].name);
            return buf;
        }
    if (key > 32 && key < 127) snprintf(buf, cap, "%c", key);
    else snprintf(buf, cap, "<%d>", key);
    return buf;
}

/* Parse the name inside <...> (without the brackets) into an event; 0 or -1. */
static int parse_named(const char *name, ScriptEvent *e)
{
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(name, KEYS[i].name) == 0) {
            e->kind = SCRIPT_KEY;
            e->key = KEYS[i].key;
            return 0;
        }
    if (strcmp(name, "shot") == 0) {
        e->kind = SCRIPT_SHOT;
        return 0;
    }
    if (read_pair(name, "hover", ' ', &e->x, &e->y) == 0) {
        e->kind = SCRIPT_HOVER;
        return 0;
    }
    if (read_pair(name, "click", ' ', &e->x, &e->y) == 0) {
        e->kind = SCRIPT_CLICK;
        return 0;
    }
    const char *p = name + 4;
    if (strncmp(name, "wait", 4) == 0 && (*p == ' ' || *p == '\t') && read_number(&p, &e->x) == 0 &&
        e->x <= 60000 && *p == 0) {
        e->kind = SCRIPT_WAIT;
        return 0;
    }
    if (read_pair(name, "resize", 'x', &e->x, &e->y) == 0 && e->x >= 16 && e->y >= 16 &&
        e->x <= 8192 && e->y <= 8192) {
        e->kind = SCRIPT_RESIZE;
        return 0;
    }
    return -1;
}

int explorer_script_parse(const char *text, ScriptEvent **events, int *n_events, SrError *err)
{
    ScriptEvent *ev = NULL;
    int n = 0, cap = 0;
    *events = NULL;
    *n_events = 0;
    for (size_t i = 0; text[i]; i++) {
        unsigned char c = (unsigned char)text[i];
        ScriptEvent e = {.kind = SCRIPT_KEY, .key = c, .x = 0, .y = 0};
        if (c == ' ' || c == '\t' || c == '\n') continue;
        if (c < 32 || c > 126) {
            free(ev);
            return sr_fail(err, "--script: character %zu is not a printable ASCII key", i + 1);
        }
        if (c == '<') {
            const char *close = strchr(text + i, '>');
            char name[64];
            size_t len = close ? (size_t)(close - (text + i) - 1) : 0;
            if (!close || len == 0 || len >= sizeof name) {
                free(ev);
                return sr_fail(err, "--script: '<' at character %zu opens no key name (write <lt> for the '<' key)",
                               i + 1);
            }
            memcpy(name, text + i + 1, len);
            name[len] = 0;
            if (parse_named(name, &e)) {
                free(ev);
                return sr_fail(err, "--script: unknown key name '<%s>' at character %zu", name, i + 1);
            }
            i += len + 1;
        }
        if (push_event(&ev, &n, &cap, e)) {
            free(ev);
            return sr_fail(err, "--script: out of memory");
        }
    }
    *events = ev;
    *n_events = n;
    return 0;
}
