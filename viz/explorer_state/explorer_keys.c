/* explorer_keys.c — what each key of the explorer does to the view state:
 * layer, head, r, sentence, view, scale, theme, the guided walk, and the
 * bits that tell the window to redraw, recompute, save or quit. The views
 * and the keys that show them are those of the table of figures
 * (figures/figures.h), each view's behaviour read from its row
 * (figure_row/figure_view.h). Pure: no SDL, no model. */
#include "explorer_state/explorer_keys.h"

#include <stdio.h>
#include <string.h>

#include "explorer_state/explorer_roles.h"
#include "figures/figures.h"

/* The view of the layer x head grid (the overview), where R marks the head
 * roles; the home view when there is none. */
static int grid_view(void)
{
    for (int v = 0; v < figure_view_count(); v++)
        if (figure_view(v)->panels) return v;
    return explorer_home_view();
}

/* The first view that is a stop of the guided walk of kind `tour`; the home
 * view when there is none. */
static int tour_view(ViewTour tour)
{
    for (int v = 0; v < figure_view_count(); v++)
        if (figure_view(v)->tour == tour) return v;
    return explorer_home_view();
}

/* 1 if view v can be shown now: its data can be had and, when it compares
 * copies, the sentence is repeated. */
static int showable(const ExplorerState *s, int v)
{
    return s->available[v] && !(figure_view(v)->needs_copies && s->r == 0);
}

/* Set r to value if it fits the current sentence; otherwise explain. */
static int set_r(ExplorerState *s, int value)
{
    int r_max = explorer_r_max(s);
    if (value < 0) {
        snprintf(s->message, sizeof s->message, "r is at least 0");
        return EXPLORER_REDRAW;
    }
    if (value > r_max) {
        snprintf(s->message, sizeof s->message,
                 "r = %d does not fit: %d tokens x %d copies exceed %d positions (r <= %d)", value,
                 s->n_tokens ? s->n_tokens[s->sentence] : 1, value + 1, s->max_T, r_max);
        return EXPLORER_REDRAW;
    }
    if (value == s->r) return 0;
    s->r = value;
    const FigureView *on = figure_view(s->view);
    if (value == 0 && on->needs_copies) { /* one copy: nothing to compare; the view its key leads back to */
        int back = on->again ? explorer_view_named(on->again) : -1;
        s->view = back >= 0 ? back : explorer_home_view();
    }
    s->pinned = -1;
    s->hover_query = s->hover_key = -1;
    snprintf(s->message, sizeof s->message, "r = %d: k = %d copies", value, value + 1);
    return EXPLORER_REDRAW | EXPLORER_RECOMPUTE;
}

/* Move to sentence i (clamped), keeping r where it fits. */
static int set_sentence(ExplorerState *s, int i)
{
    if (i < 0) i = 0;
    if (i >= s->n_sentences) i = s->n_sentences - 1;
    if (i == s->sentence) {
        snprintf(s->message, sizeof s->message, "sentence %d of %d", i + 1, s->n_sentences);
        return EXPLORER_REDRAW;
    }
    s->sentence = i;
    s->pinned = -1;
    s->hover_query = s->hover_key = -1;
    int r_max = explorer_r_max(s);
    if (s->r > r_max) s->r = r_max;
    snprintf(s->message, sizeof s->message, "sentence %d of %d (%d tokens)", i + 1, s->n_sentences,
             s->n_tokens ? s->n_tokens[i] : 0);
    return EXPLORER_REDRAW | EXPLORER_RECOMPUTE;
}

/* Show view v if its data is loaded; otherwise say which option loads it. */
static int set_view(ExplorerState *s, int v)
{
    const FigureView *view = figure_view(v);
    if (!s->available[v]) {
        snprintf(s->message, sizeof s->message, "no %s view: %s", view->name,
                 s->unavailable[v] ? s->unavailable[v] : view->needs);
        return EXPLORER_REDRAW;
    }
    if (view->needs_copies && s->r == 0) {
        snprintf(s->message, sizeof s->message, "no %s view at r = 0: press 1..9 to repeat the sentence", view->name);
        return EXPLORER_REDRAW;
    }
    if (view->layers == VIEW_REPO_LAYERS && s->layer < s->repo_from) s->layer = s->n_layers - 1; /* z: RePo layers */
    if (view->one_head && s->head < 0) s->head = s->last_head;                              /* and one head */
    s->view = v;
    s->hover_query = s->hover_key = -1;
    return EXPLORER_REDRAW;
}

/* A key that shows a view: the first view that answers it; pressed on a
 * view that answers it, the view its `again` names, when that one can be
 * shown now. -1 when no view answers the key. */
static int view_key(ExplorerState *s, int key)
{
    int first = -1;
    for (int v = 0; v < s->n_views && first < 0; v++)
        if (figure_view(v)->key == key) first = v;
    if (first < 0) return -1;
    const FigureView *on = figure_view(s->view);
    int again = on->key == key && on->again ? explorer_view_named(on->again) : -1;
    return set_view(s, again >= 0 && showable(s, again) ? again : first);
}

/* R: head roles on the overview on / off; from another view, the overview
 * with roles on. */
static int toggle_roles(ExplorerState *s)
{
    if (s->view != grid_view()) {
        s->show_roles = 1;
        set_view(s, grid_view());
    } else {
        s->show_roles = !s->show_roles;
    }
    if (!s->show_roles)
        snprintf(s->message, sizeof s->message, "head roles off");
    else if (s->r == 0)
        snprintf(s->message, sizeof s->message, "head roles need r >= 1: press 1..9 to repeat the sentence");
    else
        snprintf(s->message, sizeof s->message,
                 "head roles: outlined where copy, induction, previous or sink reaches %.2f", EXPLORER_ROLE_THRESHOLD);
    return EXPLORER_REDRAW;
}

/* The stop of the guided walk after the view on screen: the views after it
 * that are stops of their own, or result plots that are loaded; else -1. */
static int next_stop(const ExplorerState *s)
{
    for (int v = s->view + 1; v < s->n_views; v++) {
        ViewTour tour = figure_view(v)->tour;
        if (tour == TOUR_STOP || (tour == TOUR_RESULT && showable(s, v))) return v;
    }
    return -1;
}

/* The next stop of the guided walk: mask -> attention of every layer (mean
 * over heads) -> overview -> the result plots that are loaded -> mask. */
static int tour_next(ExplorerState *s)
{
    const FigureView *on = figure_view(s->view);
    if (on->tour == TOUR_START) {
        int to = tour_view(TOUR_LAYERS);
        s->layer = 0;
        s->head = -1;
        int bits = set_view(s, to);
        snprintf(s->message, sizeof s->message, "%s", figure_view(to)->tour_text);
        return bits;
    }
    if (on->tour == TOUR_LAYERS && s->layer + 1 < s->n_layers) {
        s->layer++;
        snprintf(s->message, sizeof s->message, "tour: layer %d of %d", s->layer, s->n_layers - 1);
        return EXPLORER_REDRAW;
    }
    int to = next_stop(s);
    if (to >= 0) {
        int bits = set_view(s, to);
        if (figure_view(to)->tour == TOUR_STOP) snprintf(s->message, sizeof s->message, "%s", figure_view(to)->tour_text);
        else snprintf(s->message, sizeof s->message, "tour: the %s plot of the loaded results", figure_view(to)->name);
        return bits;
    }
    to = tour_view(TOUR_START);
    int bits = set_view(s, to);
    snprintf(s->message, sizeof s->message, figure_view(to)->tour_text, s->r + 1); /* its %d: the copies */
    return bits;
}

/* <left> / <right>: the layer one down (step -1) or up (+1), within the
 * RePo layers in the z views; other views than the maps go to attention. */
static int step_layer(ExplorerState *s, int step)
{
    const FigureView *on = figure_view(s->view);
    int layer = s->layer + step;
    int lowest = on->layers == VIEW_REPO_LAYERS ? s->repo_from : 0;
    if (layer < lowest || layer >= s->n_layers) {
        if (lowest > 0) snprintf(s->message, sizeof s->message, "RePo layers are %d..%d", lowest, s->n_layers - 1);
        else snprintf(s->message, sizeof s->message, "layers are 0..%d", s->n_layers - 1);
        return EXPLORER_REDRAW;
    }
    s->layer = layer;
    if (on->layers == VIEW_NO_LAYER) s->view = explorer_home_view();
    return EXPLORER_REDRAW;
}

/* <up> / <down>: the head one down (step -1) or up (+1), or back from the
 * mean to the last head; views without heads go to attention. */
static int step_head(ExplorerState *s, int step)
{
    const FigureView *on = figure_view(s->view);
    if (on->one_head && s->head < 0) s->head = s->last_head;
    int from = s->head >= 0 ? s->head : s->last_head;
    int head = s->head < 0 ? from : from + step;
    if (head < 0 || head >= s->n_heads) {
        snprintf(s->message, sizeof s->message, "heads are 0..%d (a: mean over heads)", s->n_heads - 1);
        return EXPLORER_REDRAW;
    }
    s->head = s->last_head = head;
    if (!on->heads) s->view = explorer_home_view();
    return EXPLORER_REDRAW;
}

/* [ / ]: the snapshot before (step -1) or after (+1) in the series. */
static int step_snapshot(ExplorerState *s, int step)
{
    if (s->n_snapshots == 0) {
        snprintf(s->message, sizeof s->message, "no series to step through (explore --series DIR)");
        return EXPLORER_REDRAW;
    }
    int to = s->snapshot + step;
    if (to < 0 || to >= s->n_snapshots) {
        snprintf(s->message, sizeof s->message, "snapshots are 1..%d of the series", s->n_snapshots);
        return EXPLORER_REDRAW;
    }
    s->snapshot = to;
    return EXPLORER_RELOAD | EXPLORER_REDRAW;
}

/* a: the mean over heads on / off (a view of one head says why not). */
static int toggle_mean(ExplorerState *s)
{
    if (figure_view(s->view)->one_head) {
        snprintf(s->message, sizeof s->message, "%s: no mean (up/down: head)", figure_view(s->view)->one_head);
        return EXPLORER_REDRAW;
    }
    if (s->head >= 0) {
        s->last_head = s->head;
        s->head = -1;
    } else {
        s->head = s->last_head;
    }
    return EXPLORER_REDRAW;
}

/* b, l, t: the `b` filter, the log scale (back to the linear scale it left)
 * and the theme, each on / off. */
static int toggle_look(ExplorerState *s, int key)
{
    if (key == 'b') {
        s->last_copy_only = !s->last_copy_only;
        snprintf(s->message, sizeof s->message, "%s",
                 s->last_copy_only ? "only attention from the last copy into earlier copies" : "all attention");
    } else if (key == 'l' && s->scale == SCALE_LOG) {
        s->scale = s->linear_scale;
    } else if (key == 'l') {
        s->linear_scale = s->scale;
        s->scale = SCALE_LOG;
    } else {
        s->theme = s->theme == THEME_DARK ? THEME_LIGHT : THEME_DARK;
    }
    return EXPLORER_REDRAW;
}

int explorer_apply_key(ExplorerState *s, int key)
{
    s->message[0] = 0;
    if (key >= '0' && key <= '9') return set_r(s, key - '0');
    if (key == '[' || key == ']') return step_snapshot(s, key == ']' ? 1 : -1);
    switch (key) {
    case EXPLORER_KEY_LEFT: return step_layer(s, -1);
    case EXPLORER_KEY_RIGHT: return step_layer(s, 1);
    case EXPLORER_KEY_UP: return step_head(s, -1);
    case EXPLORER_KEY_DOWN: return step_head(s, 1);
    case 'a': return toggle_mean(s);
    case '+':
    case '=':
        return set_r(s, s->r + 1);
    case '-':
    case '_':
        return set_r(s, s->r - 1);
    case EXPLORER_KEY_PGUP: return set_sentence(s, s->sentence - 1);
    case EXPLORER_KEY_PGDN: return set_sentence(s, s->sentence + 1);
    case EXPLORER_KEY_HOME: return set_sentence(s, 0);
    case EXPLORER_KEY_END: return set_sentence(s, s->n_sentences - 1);
    case 'R': return toggle_roles(s);
    case 'b':
    case 'l':
    case 't':
        return toggle_look(s, key);
    case 's': return EXPLORER_SAVE_PNG;
    case 'v': return EXPLORER_SAVE_SVG;
    case 'c': return EXPLORER_PRINT_COMMAND;
    case ' ': return tour_next(s);
    case '?':
    case 'h':
        s->show_help = !s->show_help;
        return EXPLORER_REDRAW;
    case 'q':
    case EXPLORER_KEY_ESC:
        if (key == EXPLORER_KEY_ESC && s->show_help) {
            s->show_help = 0;
            return EXPLORER_REDRAW;
        }
        return EXPLORER_QUIT;
    default: { /* a key of a view of the table, or none */
        int bits = view_key(s, key);
        if (bits >= 0) return bits;
        snprintf(s->message, sizeof s->message, "no such key (? lists the keys)");
        return EXPLORER_REDRAW;
    }
    }
}

/* The explorer's own key list; the views of the table that it does not
 * name add their lines after it (explorer_help_text). */
static const char KEY_HELP[] = "<- ->   layer            up/down   head\n"
                               "a       mean over heads  0-9 + -   repetitions r\n"
                               "PgUp/PgDn  sentence      m         mask / attention\n"
                               "o       layer x head overview\n"
                               "R       head roles on the overview (copy, induction, ...)\n"
                               "p e f   probe / exit / flow plot (with their CSV)\n"
                               "z       RePo z per token; again: per copy (RePo model)\n"
                               "g n     RePo z range / needle attention (with their CSV)\n"
                               "b       last copy -> earlier copies only\n"
                               "[ ]     snapshot before / after (explore --series)\n"
                               "l       log scale        t         light / dark\n"
                               "s v     save PNG / SVG   c         print the plot command\n"
                               "space   guided walk      mouse     hover: values, click: pin a token\n"
                               "?       this help        q Esc     quit";

const char *explorer_help_text(void)
{
    static char text[sizeof KEY_HELP + 16 * 96];
    size_t used = (size_t)snprintf(text, sizeof text, "%s", KEY_HELP);
    for (int v = 0; v < figure_view_count() && used < sizeof text; v++) {
        const FigureView *view = figure_view(v);
        if (view->key && view->help)
            used += (size_t)snprintf(text + used, sizeof text - used, "\n%c       %.80s", view->key, view->help);
    }
    return text;
}
