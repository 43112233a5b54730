/* explorer_state.c — the explorer's view state and its keys, the --script
 * parser, save names and the `c` command line. Pure: no SDL, no model. */
#include "explorer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const VIEW_NAMES[VIEW_COUNT] = {"mask", "attention", "overview", "layers",
                                                   "exit", "flow", "repo-z", "repo-repeat",
                                                   "repo-range", "repo-needle"};

const char *explorer_view_name(ExplorerView v)
{
    return v >= 0 && v < VIEW_COUNT ? VIEW_NAMES[v] : "?";
}

/* Largest r whose input of n tokens fits max_T (0 if even r = 0 does not). */
static int r_max_for(int n, int max_T, RepeatBos bos, RepeatSep sep)
{
    int r = 0;
    while (repeat_length(n, r + 1, bos, sep) <= max_T && r < 1000) r++;
    return r;
}

int explorer_r_max(const ExplorerState *s)
{
    int n = s->n_tokens ? s->n_tokens[s->sentence] : 1;
    return r_max_for(n, s->max_T, s->bos, s->sep);
}

void explorer_state_init(ExplorerState *s, int n_layers, int n_heads, int n_sentences,
                         const int *n_tokens, int max_T, RepeatBos bos, RepeatSep sep)
{
    memset(s, 0, sizeof *s);
    s->n_layers = n_layers;
    s->n_heads = n_heads;
    s->repo_from = -1;
    s->n_sentences = n_sentences;
    s->n_tokens = n_tokens;
    s->max_T = max_T;
    s->bos = bos;
    s->sep = sep;
    s->has_results[VIEW_MASK] = s->has_results[VIEW_ATTENTION] = s->has_results[VIEW_OVERVIEW] = 1;
    s->view = VIEW_ATTENTION;
    s->layer = n_layers - 1;
    s->head = -1;
    s->last_head = 0;
    s->r = explorer_r_max(s) >= 1 ? 1 : 0;
    s->scale = s->linear_scale = SCALE_FIXED;
    s->theme = THEME_LIGHT;
    s->pinned = -1;
    s->hover_query = s->hover_key = -1;
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

int explorer_apply_key(ExplorerState *s, int key)
{
    s->message[0] = 0;
    if (key >= '0' && key <= '9') return set_r(s, key - '0');
    switch (key) {
    case EXPLORER_KEY_LEFT:
    case EXPLORER_KEY_RIGHT: {
        int layer = s->layer + (key == EXPLORER_KEY_RIGHT ? 1 : -1);
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
    case EXPLORER_KEY_UP:
    case EXPLORER_KEY_DOWN: {
        if (is_z_view(s->view) && s->head < 0) s->head = s->last_head;
        int from = s->head >= 0 ? s->head : s->last_head;
        int head = s->head < 0 ? from : from + (key == EXPLORER_KEY_DOWN ? 1 : -1);
        if (head < 0 || head >= s->n_heads) {
            snprintf(s->message, sizeof s->message, "heads are 0..%d (a: mean over heads)", s->n_heads - 1);
            return EXPLORER_REDRAW;
        }
        s->head = s->last_head = head;
        if (s->view != VIEW_ATTENTION && s->view != VIEW_OVERVIEW && s->view != VIEW_FLOW && !is_z_view(s->view))
            s->view = VIEW_ATTENTION;
        return EXPLORER_REDRAW;
    }
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

int explorer_set_hover(ExplorerState *s, int query, int key)
{
    if (query < 0 || key < 0) query = key = -1;
    if (query == s->hover_query && key == s->hover_key) return 0;
    s->hover_query = query;
    s->hover_key = key;
    return EXPLORER_REDRAW;
}

int explorer_click(ExplorerState *s, int query)
{
    s->pinned = (query < 0 || query == s->pinned) ? -1 : query;
    return EXPLORER_REDRAW;
}

const char *explorer_help_text(void)
{
    return "<- ->   layer            up/down   head\n"
           "a       mean over heads  0-9 + -   repetitions r\n"
           "PgUp/PgDn  sentence      m         mask / attention\n"
           "o       layer x head overview\n"
           "p e f   probe / exit / flow plot (with their CSV)\n"
           "z       RePo z per token; again: per copy (RePo model)\n"
           "g n     RePo z range / needle attention (with their CSV)\n"
           "b       last copy -> earlier copies only\n"
           "l       log scale        t         light / dark\n"
           "s v     save PNG / SVG   c         print the plot command\n"
           "space   guided walk      mouse     hover: values, click: pin a token\n"
           "?       this help        q Esc     quit";
}

/* ---- --script ----------------------------------------------------------------- */

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

/* Parse the name inside <...> (without the brackets) into an event; 0 or -1. */
static int parse_named(const char *name, ScriptEvent *e)
{
    static const struct {
        const char *name;
        int key;
    } KEYS[] = {{"left", EXPLORER_KEY_LEFT}, {"right", EXPLORER_KEY_RIGHT}, {"up", EXPLORER_KEY_UP},
                {"down", EXPLORER_KEY_DOWN}, {"pgup", EXPLORER_KEY_PGUP}, {"pgdn", EXPLORER_KEY_PGDN},
                {"home", EXPLORER_KEY_HOME}, {"end", EXPLORER_KEY_END}, {"esc", EXPLORER_KEY_ESC},
                {"space", ' '}, {"lt", '<'}, {"gt", '>'}};
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(name, KEYS[i].name) == 0) {
            e->kind = SCRIPT_KEY;
            e->key = KEYS[i].key;
            return 0;
        }
    char extra;
    if (strcmp(name, "shot") == 0) {
        e->kind = SCRIPT_SHOT;
        return 0;
    }
    if (sscanf(name, "hover %d %d %c", &e->x, &e->y, &extra) == 2 && e->x >= 0 && e->y >= 0) {
        e->kind = SCRIPT_HOVER;
        return 0;
    }
    if (sscanf(name, "click %d %d %c", &e->x, &e->y, &extra) == 2 && e->x >= 0 && e->y >= 0) {
        e->kind = SCRIPT_CLICK;
        return 0;
    }
    if (sscanf(name, "resize %dx%d %c", &e->x, &e->y, &extra) == 2 && e->x >= 16 && e->y >= 16 &&
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
        ScriptEvent e = {SCRIPT_KEY, c, 0, 0};
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

/* ---- saving ---------------------------------------------------------------------- */

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

/* ---- the command line --------------------------------------------------------------- */

/* Write ch at out[*n] if it fits before the NUL, and count it either way. */
static void put_char(char *out, size_t cap, size_t *n, char ch)
{
    if (*n + 1 < cap) out[*n] = ch;
    (*n)++;
}

size_t explorer_shell_quote(const char *word, char *out, size_t cap)
{
    int safe = *word != 0;
    for (const char *p = word; *p && safe; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-./=:,+@%", *p)) safe = 0;
    size_t n = 0;
    if (!safe) put_char(out, cap, &n, '\'');
    for (const char *p = word; *p; p++) {
        if (!safe && *p == '\'') {  /* close the quote, an escaped ', open again */
            put_char(out, cap, &n, '\'');
            put_char(out, cap, &n, '\\');
            put_char(out, cap, &n, '\'');
        }
        put_char(out, cap, &n, *p);
    }
    if (!safe) put_char(out, cap, &n, '\'');
    if (cap) out[n < cap ? n : cap - 1] = 0;
    return n;
}

/* A command being written into out[0..cap): words are appended quoted. */
typedef struct {
    char *out;
    size_t cap, len;
    int overflow;
} CommandText;

/* Append " word" (quoted; no space before the first word). */
static void add_word(CommandText *c, const char *word)
{
    if (c->len > 0) {
        if (c->len + 1 >= c->cap) {
            c->overflow = 1;
            return;
        }
        c->out[c->len++] = ' ';
        c->out[c->len] = 0;
    }
    size_t need = explorer_shell_quote(word, c->out + c->len, c->cap - c->len);
    if (c->len + need >= c->cap) {
        c->overflow = 1;
        c->len = c->cap - 1;
        return;
    }
    c->len += need;
}

/* Append "--name value". */
static void add_option(CommandText *c, const char *name, const char *value)
{
    add_word(c, name);
    add_word(c, value);
}

/* Append "--name N". */
static void add_int_option(CommandText *c, const char *name, int value)
{
    char text[24];
    snprintf(text, sizeof text, "%d", value);
    add_option(c, name, text);
}

/* Append what the model runs on: --model, the sentence (--text, or --data
 * and --sentence), --r, --bos, --sep and --mask when one was given. */
static void add_model_run(CommandText *c, const ExplorerState *s, const ExplorerSources *src, int sentence, int r)
{
    add_option(c, "--model", src->model);
    if (src->text) {
        add_option(c, "--text", src->text);
    } else {
        add_option(c, "--data", src->data);
        add_int_option(c, "--sentence", sentence);
    }
    add_int_option(c, "--r", r);
    add_option(c, "--bos", repeat_bos_name(s->bos));
    add_option(c, "--sep", repeat_sep_name(s->sep));
    if (src->mask) add_option(c, "--mask", src->mask);
}

int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r,
                          int width, int height, const char *out_path, char *out, size_t cap,
                          SrError *err)
{
    if (cap == 0) return sr_fail(err, "command line: no room");
    CommandText c = {out, cap, 0, 0};
    out[0] = 0;
    char size[48];
    snprintf(size, sizeof size, "%dx%d", width, height);
    add_word(&c, "seqrep");
    add_word(&c, "plot");
    switch (s->view) {
    case VIEW_MASK:
        add_word(&c, "mask");
        add_int_option(&c, "--n", s->n_tokens ? s->n_tokens[s->sentence] : 1);
        add_int_option(&c, "--r", s->r);
        add_option(&c, "--bos", repeat_bos_name(s->bos));
        add_option(&c, "--sep", repeat_sep_name(s->sep));
        break;
    case VIEW_ATTENTION:
    case VIEW_OVERVIEW:
        add_word(&c, "attention");
        if (s->view == VIEW_OVERVIEW) add_word(&c, "--overview");
        add_model_run(&c, s, src, sentence, r);
        add_int_option(&c, "--layer", s->layer); /* the overview frames this map */
        if (s->head >= 0) add_int_option(&c, "--head", s->head);
        else add_option(&c, "--head", "mean");
        add_option(&c, "--scale", attention_scale_name(s->scale));
        if (s->last_copy_only) add_word(&c, "--last-copy-only");
        break;
    case VIEW_LAYERS:
        add_word(&c, "layers");
        add_option(&c, "--results", src->layers);
        if (src->baselines) add_option(&c, "--baselines", src->baselines);
        if (src->split) add_option(&c, "--split", src->split);
        break;
    case VIEW_EXIT:
        add_word(&c, "exit");
        add_option(&c, "--results", src->exit);
        if (src->dataset) add_option(&c, "--dataset", src->dataset);
        if (src->cost) add_option(&c, "--cost", src->cost);
        if (src->split) add_option(&c, "--split", src->split);
        break;
    case VIEW_FLOW:
        add_word(&c, "flow");
        add_option(&c, "--results", src->flow);
        if (s->head >= 0) add_int_option(&c, "--head", s->head);
        else add_option(&c, "--head", "mean");
        break;
    case VIEW_REPO_Z:
    case VIEW_REPO_REPEAT:
        add_word(&c, explorer_view_name(s->view));
        add_model_run(&c, s, src, sentence, r);
        add_int_option(&c, "--layer", s->layer);
        add_int_option(&c, "--head", s->head >= 0 ? s->head : s->last_head);
        break;
    case VIEW_REPO_RANGE:
        add_word(&c, "repo-range");
        add_option(&c, "--results", src->repo_range);
        break;
    case VIEW_REPO_NEEDLE:
        add_word(&c, "repo-needle");
        add_option(&c, "--results", src->repo_needle);
        break;
    default:
        return sr_fail(err, "command line: unknown view");
    }
    add_option(&c, "--size", size);
    add_option(&c, "--theme", s->theme == THEME_DARK ? "dark" : "light");
    if (src->font) add_option(&c, "--font", src->font);
    add_option(&c, "--out", out_path);
    if (c.overflow) return sr_fail(err, "command line: longer than %zu bytes", cap);
    return 0;
}
