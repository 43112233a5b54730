/* explorer_keys.c — what each key of the explorer does to the view state:
 * layer, head, r, sentence, view, scale, theme, the guided walk, and the
 * bits that tell the window to redraw, recompute, save or quit. Pure: no
 * SDL, no model. */
#include "explorer_state/explorer_keys.h"

#include <stdio.h>

#include "explorer_state/explorer_roles.h"

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
    if (value == 0 && s->view == VIEW_REPO_REPEAT) s->view = VIEW_REPO_Z; /* one copy: nothing to compare */
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

/* 1 for the views of the model's RePo positions (z per token, per copy). */
static int is_z_view(ExplorerView v)
{
    return v == VIEW_REPO_Z || v == VIEW_REPO_REPEAT;
}

/* Show view v if its data is loaded; otherwise say which option loads it. */
static int set_view(ExplorerState *s, ExplorerView v)
{
    static const char *const needs[VIEW_COUNT] = {
        "", "", "", "start the explorer with --layers FILE.csv", "start the explorer with --exit FILE.csv",
        "start the explorer with --flow FILE.csv", "the model has no RePo weights (train-lm --positions repo)",
        "the model has no RePo weights (train-lm --positions repo)",
        "start the explorer with --repo-range FILE.csv", "start the explorer with --repo-needle FILE.csv"};
    if (!s->has_results[v]) {
        snprintf(s->message, sizeof s->message, "no %s view: %s", explorer_view_name(v), needs[v]);
        return EXPLORER_REDRAW;
    }
    if (v == VIEW_REPO_REPEAT && s->r == 0) {
        snprintf(s->message, sizeof s->message, "no repo-repeat view at r = 0: press 1..9 to repeat the sentence");
        return EXPLORER_REDRAW;
    }
    if (is_z_view(v)) { /* z exists in RePo layers only, and per head */
        if (s->layer < s->repo_from) s->layer = s->n_layers - 1;
        if (s->head < 0) s->head = s->last_head;
    }
    s->view = v;
    s->hover_query = s->hover_key = -1;
    return EXPLORER_REDRAW;
}

/* R: head roles on the overview on / off; from another view, the overview
 * with roles on. */
static int toggle_roles(ExplorerState *s)
{
    if (s->view != VIEW_OVERVIEW) {
        s->show_roles = 1;
        set_view(s, VIEW_OVERVIEW);
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

/* The next stop of the guided walk: mask -> attention of every layer (mean
 * over heads) -> overview -> the result plots that are loaded -> mask. */
static int tour_next(ExplorerState *s)
{
    int bits;
    switch (s->view) {
    case VIEW_MASK:
        s->layer = 0;
        s->head = -1;
        bits = set_view(s, VIEW_ATTENTION);
        snprintf(s->message, sizeof s->message,
                 "tour: what layer 0 attends to, mean over heads; <space> goes deeper");
        return bits;
    case VIEW_ATTENTION:
        if (s->layer + 1 < s->n_layers) {
            s->layer++;
            snprintf(s->message, sizeof s->message, "tour: layer %d of %d", s->layer, s->n_layers - 1);
            return EXPLORER_REDRAW;
        }
        bits = set_view(s, VIEW_OVERVIEW);
        snprintf(s->message, sizeof s->message, "tour: every layer and head at once");
        return bits;
    default:
        for (int v = (s->view == VIEW_OVERVIEW ? VIEW_LAYERS : (int)s->view + 1); v < VIEW_COUNT; v++)
            if (s->has_results[v] && !(v == VIEW_REPO_REPEAT && s->r == 0)) {
                bits = set_view(s, (ExplorerView)v);
                snprintf(s->message, sizeof s->message, "tour: the %s plot of the loaded results",
                         explorer_view_name((ExplorerView)v));
                return bits;
            }
        bits = set_view(s, VIEW_MASK);
        snprintf(s->message, sizeof s->message,
                 "tour: the causal mask over k = %d copies; full blocks let the last copy see everything",
                 s->r + 1);
        return bits;
    }
}

/* <left> / <right>: the layer one down (step -1) or up (+1), within the
 * RePo layers in the z views; other views than the maps go to attention. */
static int step_layer(ExplorerState *s, int step)
{
    int layer = s->layer + step;
    int lowest = is_z_view(s->view) ? s->repo_from : 0;
    if (layer < lowest || layer >= s->n_layers) {
        if (lowest > 0) snprintf(s->message, sizeof s->message, "RePo layers are %d..%d", lowest, s->n_layers - 1);
        else snprintf(s->message, sizeof s->message, "layers are 0..%d", s->n_layers - 1);
        return EXPLORER_REDRAW;
    }
    s->layer = layer;
    if (s->view != VIEW_ATTENTION && s->view != VIEW_OVERVIEW && !is_z_view(s->view)) s->view = VIEW_ATTENTION;
    return EXPLORER_REDRAW;
}

/* <up> / <down>: the head one down (step -1) or up (+1), or back from the
 * mean to the last head; views without heads go to attention. */
static int step_head(ExplorerState *s, int step)
{
    if (is_z_view(s->view) && s->head < 0) s->head = s->last_head;
    int from = s->head >= 0 ? s->head : s->last_head;
    int head = s->head < 0 ? from : from + step;
    if (head < 0 || head >= s->n_heads) {
        snprintf(s->message, sizeof s->message, "heads are 0..%d (a: mean over heads)", s->n_heads - 1);
        return EXPLORER_REDRAW;
    }
    s->head = s->last_head = head;
    if (s->view != VIEW_ATTENTION && s->view != VIEW_OVERVIEW && s->view != VIEW_FLOW && !is_z_view(s->view))
        s->view = VIEW_ATTENTION;
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
    case 'a':
        if (is_z_view(s->view)) {
            snprintf(s->message, sizeof s->message, "z is one position per head: no mean (up/down: head)");
            return EXPLORER_REDRAW;
        }
        if (s->head >= 0) {
            s->last_head = s->head;
            s->head = -1;
        } else {
            s->head = s->last_head;
        }
        return EXPLORER_REDRAW;
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
    case 'm': return set_view(s, s->view == VIEW_MASK ? VIEW_ATTENTION : VIEW_MASK);
    case 'o': return set_view(s, s->view == VIEW_OVERVIEW ? VIEW_ATTENTION : VIEW_OVERVIEW);
    case 'p': return set_view(s, VIEW_LAYERS);
    case 'e': return set_view(s, VIEW_EXIT);
    case 'f': return set_view(s, VIEW_FLOW);
    case 'z':
        if (s->view == VIEW_REPO_Z && s->r >= 1) return set_view(s, VIEW_REPO_REPEAT);
        return set_view(s, VIEW_REPO_Z);
    case 'g': return set_view(s, VIEW_REPO_RANGE);
    case 'n': return set_view(s, VIEW_REPO_NEEDLE);
    case 'R': return toggle_roles(s);
    case 'b':
        s->last_copy_only = !s->last_copy_only;
        snprintf(s->message, sizeof s->message, "%s",
                 s->last_copy_only ? "only attention from the last copy into earlier copies"
                                   : "all attention");
        return EXPLORER_REDRAW;
    case 'l':
        if (s->scale == SCALE_LOG) {
            s->scale = s->linear_scale;
        } else {
            s->linear_scale = s->scale;
            s->scale = SCALE_LOG;
        }
        return EXPLORER_REDRAW;
    case 't':
        s->theme = s->theme == THEME_DARK ? THEME_LIGHT : THEME_DARK;
        return EXPLORER_REDRAW;
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
    default:
        snprintf(s->message, sizeof s->message, "no such key (? lists the keys)");
        return EXPLORER_REDRAW;
    }
}

const char *explorer_help_text(void)
{
    return "<- ->   layer            up/down   head\n"
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
}
