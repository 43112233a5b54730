/* explorer_page_walk.c — the states of the page of explore --html: from
 * the first state, every key of the window applied (explorer_apply_key, the
 * window's own keys) to every state reached, breadth first; a state outside
 * what the page exports (another r than --html-r, a view not in
 * --html-views, another sentence, theme, scale or the b filter) is not
 * kept, and the key says why. */
#include "page/explorer_page_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_state/explorer_command.h"
#include "explorer_state/explorer_keys.h"

/* The keys every page answers, before the keys of the views of the table. */
static const PageKey FIXED_KEYS[] = {
    {.key = EXPLORER_KEY_LEFT, .name = "ArrowLeft"}, {.key = EXPLORER_KEY_RIGHT, .name = "ArrowRight"},
    {.key = EXPLORER_KEY_UP, .name = "ArrowUp"},     {.key = EXPLORER_KEY_DOWN, .name = "ArrowDown"},
    {.key = EXPLORER_KEY_PGUP, .name = "PageUp"},    {.key = EXPLORER_KEY_PGDN, .name = "PageDown"},
    {.key = EXPLORER_KEY_HOME, .name = "Home"},      {.key = EXPLORER_KEY_END, .name = "End"},
    {.key = 'a', .name = "a"}, {.key = '+', .name = "+"}, {.key = '-', .name = "-"}, {.key = 'R', .name = "R"},
    {.key = 'b', .name = "b"}, {.key = 'l', .name = "l"}, {.key = 't', .name = "t"}, {.key = '[', .name = "["},
    {.key = ']', .name = "]"}, {.key = ' ', .name = " "},
};

/* The one-character names of the keys 0..9 and of the views' keys. */
static char KEY_NAMES[128][2];

/* The page's keys: the fixed ones, the digits and each view's own key. */
static void collect_keys(PageWalk *w)
{
    w->n_keys = 0;
    for (size_t i = 0; i < sizeof FIXED_KEYS / sizeof FIXED_KEYS[0]; i++) w->keys[w->n_keys++] = FIXED_KEYS[i];
    for (int c = 0; c < 128; c++) KEY_NAMES[c][0] = (char)c;
    for (int d = '0'; d <= '9'; d++) w->keys[w->n_keys++] = (PageKey){.key = d, .name = KEY_NAMES[d]};
    for (int v = 0; v < figure_view_count() && w->n_keys < PAGE_MAX_KEYS; v++) {
        int key = figure_view(v)->key, seen = 0;
        for (int i = 0; i < w->n_keys; i++) seen |= w->keys[i].key == key;
        if (key > 32 && key < 127 && !seen) w->keys[w->n_keys++] = (PageKey){.key = key, .name = KEY_NAMES[key]};
    }
}

/* A state's name: what of it the page tells apart (the rest is fixed). */
static int state_name(const ExplorerState *s, char *out, size_t cap)
{
    return snprintf(out, cap, "%d %d %d %d %d %d %d", s->view, s->r, s->layer, s->head, s->last_head, s->snapshot,
                    s->show_roles);
}

/* 1 when view v is in the comma list `views` (NULL: every view). */
static int view_listed(const char *views, int v)
{
    if (!views) return 1;
    const char *name = explorer_view_name(v);
    size_t n = strlen(name);
    for (const char *p = views; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p += len + (end != NULL);
    }
    return 0;
}

/* 1 when the page holds state s; else 0 and why into out. */
static int page_holds(const Explorer *e, const ExplorerState *first, const ExplorerState *s, char *out, size_t cap)
{
    const ExplorerOptions *o = e->o;
    int r_listed = o->n_html_r == 0 && s->r == first->r;
    for (int i = 0; i < o->n_html_r; i++) r_listed |= o->html_r[i] == s->r;
    if (!r_listed) snprintf(out, cap, "r = %d is not in this page (seqrep explore --html ... --html-r LIST)", s->r);
    else if (!view_listed(o->html_views, s->view))
        snprintf(out, cap, "the %s view is not in this page (seqrep explore --html ... --html-views LIST)",
                 explorer_view_name(s->view));
    else if (s->sentence != first->sentence) snprintf(out, cap, "a page holds one sentence");
    else if (s->theme != first->theme) snprintf(out, cap, "a page holds one theme (explore --html --theme)");
    else if (s->scale != first->scale) snprintf(out, cap, "a page holds one colour scale (explore --html --scale)");
    else if (s->last_copy_only != first->last_copy_only) snprintf(out, cap, "the b filter is not in pages");
    else return 1;
    return 0;
}

/* Make room for one more state. 0 or -1. */
static int grow_states(PageWalk *w)
{
    if (w->n < w->cap) return 0;
    int cap = w->cap ? 2 * w->cap : 256;
    ExplorerState *states = realloc(w->states, (size_t)cap * sizeof *states);
    if (states) w->states = states;
    int *next = realloc(w->next, (size_t)cap * (size_t)PAGE_MAX_KEYS * sizeof *next);
    if (next) w->next = next;
    int *message = realloc(w->message, (size_t)cap * (size_t)PAGE_MAX_KEYS * sizeof *message);
    if (message) w->message = message;
    int *frame = realloc(w->frame, (size_t)cap * sizeof *frame);
    if (frame) w->frame = frame;
    if (!states || !next || !message || !frame) return -1;
    w->cap = cap;
    return 0;
}

/* The number of state s, added when new. -1 when out of memory. */
static int state_number(PageWalk *w, const ExplorerState *s)
{
    char name[160];
    state_name(s, name, sizeof name);
    int before = w->state_names.n;
    if (grow_states(w)) return -1;
    int id = string_table_add(&w->state_names, name, strlen(name));
    if (id < 0 || id < before) return id;
    w->states[id] = *s;
    w->states[id].message[0] = 0;
    w->n = id + 1;
    return id;
}

/* The number of the frame state number `state` shows: its plot command at the page's
 * size, with the head roles when they are drawn. 0 or -1 with err. */
static int frame_number(PageWalk *w, Explorer *e, int state, SrError *err)
{
    const ExplorerState *s = &w->states[state];
    char line[8192];
    ExplorerSources src = e->src;
    if (e->series.n) {
        src.model = e->series.e[s->snapshot].model;
        src.adapter = e->series.e[s->snapshot].adapter;
    }
    if (explorer_command_line(s, &src, s->sentence, s->r, e->o->width, e->o->height, "view.png", line,
                              sizeof line - 16, err))
        return -1;
    if (s->show_roles && figure_view(s->view)->panels) strcat(line, " +roles");
    int before = w->frame_names.n;
    int id = string_table_add(&w->frame_names, line, strlen(line));
    if (id < 0) return sr_fail(err, "out of memory");
    if (id >= before) {
        if (id >= w->frame_cap) {
            int cap = w->frame_cap ? 2 * w->frame_cap : 64;
            int *fs = realloc(w->frame_state, (size_t)cap * sizeof *fs);
            if (!fs) return sr_fail(err, "out of memory");
            w->frame_state = fs;
            w->frame_cap = cap;
        }
        w->frame_state[id] = state;
    }
    return id;
}

/* Apply every key to state i: where it leads and what it says. 0 or -1. */
static int walk_keys(PageWalk *w, const Explorer *e, int i)
{
    for (int k = 0; k < w->n_keys; k++) {
        ExplorerState s = w->states[i];
        explorer_apply_key(&s, w->keys[k].key);
        char why[600] = "";
        int to = page_holds(e, &w->first, &s, why, sizeof why) ? state_number(w, &s) : -1;
        if (to < -1 || (to < 0 && !why[0])) return -1;
        const char *said = why[0] ? why : s.message;
        int m = said[0] ? string_table_add(&w->messages, said, strlen(said)) : -1;
        if (said[0] && m < 0) return -1;
        w->next[(size_t)i * PAGE_MAX_KEYS + k] = to;
        w->message[(size_t)i * PAGE_MAX_KEYS + k] = m;
    }
    return 0;
}

int page_walk(PageWalk *w, Explorer *e, SrError *err)
{
    memset(w, 0, sizeof *w);
    collect_keys(w);
    w->first = e->st;
    w->first.message[0] = 0;
    w->first.pinned = w->first.hover_query = w->first.hover_key = -1;
    w->first.show_help = 0;
    if (state_number(w, &w->first) != 0) return sr_fail(err, "out of memory");
    for (int i = 0; i < w->n; i++) { /* w->n grows as states are found */
        if (walk_keys(w, e, i)) return sr_fail(err, "out of memory");
        w->frame[i] = frame_number(w, e, i, err);
        if (w->frame[i] < 0) return -1;
    }
    return 0;
}

void page_walk_free(PageWalk *w)
{
    string_table_free(&w->state_names);
    string_table_free(&w->messages);
    string_table_free(&w->frame_names);
    free(w->states);
    free(w->next);
    free(w->message);
    free(w->frame);
    free(w->frame_state);
    memset(w, 0, sizeof *w);
}
