/* explorer.h — `seqrep explore`: the interactive window over the figures.
 *
 * The window draws with the same painters as `seqrep plot` (figures.h), one
 * painter call per frame on a cairo image surface the size of the window.
 * Saving a frame (PNG or SVG) calls the same painter on an export target
 * (export.h) of the window's size, so a saved frame is exactly the figure on
 * screen, without the transient overlays (tooltip, key help, "computing",
 * the status line).
 *
 * The file is read in three parts:
 *   - the view state (ExplorerState) and the keys: pure functions, no SDL
 *     and no model, so they are unit-tested (explorer_state.c);
 *   - the background recompute of the attention maps when the sentence or r
 *     changes: a worker thread with the model loaded once (explorer_worker.c);
 *   - the window: events, painting, hover, saving (explorer.c).
 *
 * Keys (the `?` overlay lists them):
 *   <left> <right>   layer - / +            <up> <down>   head - / +
 *   a                mean over heads on / off
 *   0..9             r = that digit         + -           r + 1 / r - 1
 *   <pgup> <pgdn>    previous / next sentence
 *   m                mask view / attention view
 *   o                layer x head overview
 *   p  e  f          probe F1 per layer, exit plot, attention flow (with
 *                    --layers, --exit, --flow: result CSVs of other commands)
 *   z                RePo positions z of the sentence (a RePo model); again:
 *                    z per copy of the repeated sentence
 *   g  n             RePo z range against length, attention on the needle
 *                    (with --repo-range, --repo-needle: repo-eval CSVs)
 *   b                only attention from the last copy into earlier copies
 *   l                log colour scale on / off
 *   t                light / dark theme
 *   s  v             save the frame as PNG / SVG into the save directory
 *   c                print the `seqrep plot` command that renders this frame
 *   <space>          guided walk: the next stop of the tour
 *   ?                key help on / off
 *   q  <esc>         quit */
#ifndef SEQREP_VIZ_EXPLORER_H
#define SEQREP_VIZ_EXPLORER_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "figure.h"
#include "formats/checkpoint.h"
#include "paint_attention.h"
#include "paint_repo_z.h"
#include "repeat/repeat.h"
#include "text/tokenizer.h"

/* ---- keys ------------------------------------------------------------------ */

/* A key is its ASCII character (32..126) or one of these. */
enum {
    EXPLORER_KEY_LEFT = 256,
    EXPLORER_KEY_RIGHT,
    EXPLORER_KEY_UP,
    EXPLORER_KEY_DOWN,
    EXPLORER_KEY_PGUP,
    EXPLORER_KEY_PGDN,
    EXPLORER_KEY_HOME,
    EXPLORER_KEY_END,
    EXPLORER_KEY_ESC
};

/* The views: which figure the window shows. */
typedef enum {
    VIEW_MASK = 0,       /* paint_mask: the causal mask over the repeated sentence */
    VIEW_ATTENTION = 1,  /* paint_attention: one layer, one head or the mean       */
    VIEW_OVERVIEW = 2,   /* paint_attention_overview: layer x head grid            */
    VIEW_LAYERS = 3,     /* paint_layers: probe F1 per layer (needs --layers)      */
    VIEW_EXIT = 4,       /* paint_exit: F1 against cost (needs --exit)             */
    VIEW_FLOW = 5,       /* paint_flow: attention flow per layer (needs --flow)    */
    VIEW_REPO_Z = 6,     /* paint_repo_z: z per token (needs a RePo model)         */
    VIEW_REPO_REPEAT = 7,/* paint_repo_repeat: z per copy (RePo model, r >= 1)     */
    VIEW_REPO_RANGE = 8, /* paint_repo_range: z range per layer (--repo-range)     */
    VIEW_REPO_NEEDLE = 9,/* paint_repo_needle: attention on the needle (--repo-needle) */
    VIEW_COUNT = 10
} ExplorerView;

/* Name of a view: "mask", "attention", "overview", "layers", "exit", "flow",
 * "repo-z", "repo-repeat", "repo-range", "repo-needle" (the names of the
 * `seqrep plot` figures they draw, except the two attention views). */
const char *explorer_view_name(ExplorerView v);

/* What the caller must do after a key (bits, combined with |). */
enum {
    EXPLORER_REDRAW = 1,         /* the frame changed                          */
    EXPLORER_RECOMPUTE = 2,      /* sentence or r changed: run the model again */
    EXPLORER_SAVE_PNG = 4,
    EXPLORER_SAVE_SVG = 8,
    EXPLORER_PRINT_COMMAND = 16,
    EXPLORER_QUIT = 32
};

/* ---- the view state ----------------------------------------------------------- */

typedef struct {
    /* what is loaded; set once by the caller */
    int n_layers, n_heads;     /* of the model                                 */
    int repo_from;             /* its first RePo layer, -1 when it has none     */
    int n_sentences;           /* sentences to page through (1 for --text)     */
    const int *n_tokens;       /* (n_sentences) tokens of each sentence        */
    int max_T;                 /* longest repeated input allowed (model, figure) */
    RepeatBos bos;
    RepeatSep sep;
    int has_results[VIEW_COUNT]; /* 1 where the view's data is loaded           */

    /* the view */
    ExplorerView view;
    int sentence;              /* 0 .. n_sentences-1                           */
    int r;                     /* repetitions, 0 .. explorer_r_max()           */
    int layer;                 /* 0 .. n_layers-1                              */
    int head;                  /* 0 .. n_heads-1, or -1 for the mean           */
    int last_head;             /* head to return to when the mean is left      */
    AttentionScale scale;      /* SCALE_FIXED or SCALE_LOG (l), or per-head    */
    AttentionScale linear_scale; /* the non-log scale l returns to             */
    int last_copy_only;        /* b: only last copy -> earlier copies          */
    FigureTheme theme;
    int pinned;                /* pinned token (query row), -1 = none          */
    int hover_query, hover_key;/* cell under the mouse, -1 = none              */
    int show_help;
    char message[600];         /* status line after the last key ("" = none)   */
} ExplorerState;

/* A state for a model of n_layers x n_heads and sentences of n_tokens[0..n):
 * attention view of the last layer, mean over heads, r = 1 when it fits
 * (else 0), fixed scale, light theme, no RePo layers (set repo_from and
 * has_results[VIEW_REPO_Z], [VIEW_REPO_REPEAT] for a RePo model). */
void explorer_state_init(ExplorerState *s, int n_layers, int n_heads, int n_sentences,
                         const int *n_tokens, int max_T, RepeatBos bos, RepeatSep sep);

/* Largest r whose repeated input of the current sentence fits max_T. */
int explorer_r_max(const ExplorerState *s);

/* Apply one key: returns the EXPLORER_* bits for the caller and writes a
 * message into s->message when the key was refused or needs explaining. */
int explorer_apply_key(ExplorerState *s, int key);

/* Move hover to cell (query, key), -1 for none; returns EXPLORER_REDRAW if
 * it changed. */
int explorer_set_hover(ExplorerState *s, int query, int key);

/* A click on query row `query`: pin it, or unpin when it is already pinned
 * (query -1 unpins). Returns EXPLORER_REDRAW. */
int explorer_click(ExplorerState *s, int query);

/* The key-help text (lines separated by '\n'). */
const char *explorer_help_text(void);

/* ---- --script --------------------------------------------------------------- */

typedef enum {
    SCRIPT_KEY = 0,     /* a key press                                      */
    SCRIPT_HOVER = 1,   /* <hover X Y>: move the mouse to pixel (X, Y)      */
    SCRIPT_CLICK = 2,   /* <click X Y>: click at pixel (X, Y)               */
    SCRIPT_SHOT = 3,    /* <shot>: save the window as seen, overlays included */
    SCRIPT_RESIZE = 4   /* <resize WxH>: resize the window                  */
} ScriptEventKind;

typedef struct {
    ScriptEventKind kind;
    int key;      /* SCRIPT_KEY */
    int x, y;     /* HOVER, CLICK: pixel; RESIZE: width, height */
} ScriptEvent;

/* Parse a --script string. Characters are keys; spaces between them are
 * ignored (the space bar is <space>); names in angle brackets are special
 * keys and events: <left> <right> <up> <down> <pgup> <pgdn> <home> <end>
 * <esc> <space> <lt> (the '<' key), <hover X Y>, <click X Y>, <shot>,
 * <resize WxH>. *events is malloc'd (caller frees). Errors name the
 * position: "--script: unknown key name '<foo>' at character 5". */
int explorer_script_parse(const char *text, ScriptEvent **events, int *n_events, SrError *err);

/* ---- saving and the command line -------------------------------------------------- */

/* The first free name DIR/explore-NNNN.EXT (NNNN from 0001) such that no
 * explore-NNNN.png, .svg or -window.png exists in dir, so a save never
 * overwrites an earlier one. ext is "png" or "svg"; suffix is "" or "-window".
 * 0, or -1 when no number up to 9999 is free or the name does not fit. */
int explorer_save_path(const char *dir, const char *suffix, const char *ext, char *out,
                       size_t cap, SrError *err);

/* How the data was given on the command line, for the `c` command. */
typedef struct {
    const char *model;           /* --model                                    */
    const char *data;            /* --data FILE (CoNLL), or NULL               */
    const char *text;            /* --text "sentence", or NULL                 */
    const char *mask;            /* --mask plan, or NULL (causal)              */
    const char *layers;          /* --layers probe CSV(s), comma-separated     */
    const char *baselines;       /* --baselines for the layers view, or NULL   */
    const char *exit;            /* --exit fine-tune or sweep CSV              */
    const char *cost;            /* --cost flops|seconds, or NULL              */
    const char *flow;            /* --flow attnflow CSV                        */
    const char *repo_range;      /* --repo-range repo-eval TASK-range.csv      */
    const char *repo_needle;     /* --repo-needle repo-eval TASK-attention.csv */
    const char *split;           /* --split for layers/exit, or NULL           */
    const char *dataset;         /* --dataset of a sweep CSV for exit, or NULL */
    const char *font;            /* --font, or NULL                            */
} ExplorerSources;

/* Quote one shell word: as is when it is made only of safe characters
 * (letters, digits, and _-./=:,+@%), otherwise in single quotes with each '
 * written as '\''. Returns the length the quoted word needs (like snprintf). */
size_t explorer_shell_quote(const char *word, char *out, size_t cap);

/* The `seqrep plot ...` command that renders the frame of state s at
 * width x height into out_path. `sentence` and `r` are those of the
 * attention data on screen (they lag the state while the model recomputes).
 * Writes at most cap bytes (NUL-terminated); returns 0, or -1 when the view
 * has no plot command or the text does not fit. */
int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r,
                          int width, int height, const char *out_path, char *out, size_t cap,
                          SrError *err);

/* ---- what is read before the window opens (explorer_input.c) -------------------------- */

typedef struct {
    CheckpointInfo info;      /* config, vocabulary, manifest of --model       */
    Tokenizer tok;            /* its vocabulary                               */
    char checksum[17];        /* of the checkpoint file, for the caption       */
    long long seed;           /* training seed from the manifest, -1 if none   */
    int n_sentences;
    char **texts;             /* (n) the sentence, words joined by spaces       */
    char **sources;           /* (n) "given with --text" or "sentence I of F (line L)" */
    int **ids;                /* (n) token ids of each sentence                */
    int *n_tokens;            /* (n) their counts                              */
} ExplorerInput;

/* Read the checkpoint's vocabulary and the sentences of src (--text, or
 * every sentence of the CoNLL file --data). 0 or -1 with err. */
int explorer_input_load(ExplorerInput *in, const ExplorerSources *src, SrError *err);
void explorer_input_free(ExplorerInput *in);

/* ---- what a frame shows (explorer_frame.c) --------------------------------------------- */

/* Set d's title and caption exactly as `seqrep plot attention` does for the
 * same options: the model path as given, the sentence text and its source,
 * r, bos, sep, mask plan (NULL = causal) and d's layer, head and scale. */
void explorer_describe_attention(AttentionData *d, int overview, const char *model_path,
                                 const ExplorerInput *in, int sentence, int r, RepeatBos bos,
                                 RepeatSep sep, const char *mask_plan);

/* The hover text of attention cell (query, key) of the map (layer, head):
 * "query 7 'cat' (copy 2)\nkey 3 'dog' (copy 1)\np = 0.1234". */
void explorer_attention_tooltip(const AttentionData *d, int layer, int head, int query, int key,
                                char *out, size_t cap);

/* The hover text of point i of a z figure: "token 7 'cat' (copy 2, word 3)\n
 * z = 0.1234", plus "(drawn at the fence 0.5)" when it is clipped. */
void explorer_z_tooltip(const RepoZData *d, int i, char *out, size_t cap);

/* ---- the background recompute (explorer_worker.c) ----------------------------------- */

typedef struct ExplorerWorker ExplorerWorker;

/* Load the model once (for inputs up to min(max_T, its max_seq_len) tokens)
 * and start the worker thread. tok (the checkpoint's vocabulary, shared and
 * read-only) labels the tokens; mask_plan NULL = causal. notify(notify_arg)
 * is called from the worker thread after each result (e.g. to wake the
 * window's event loop). 0 or -1. */
int explorer_worker_start(ExplorerWorker **w, const char *model_path, const Tokenizer *tok,
                          const char *mask_plan, RepeatBos bos, RepeatSep sep, int max_T,
                          int n_threads, void (*notify)(void *), void *notify_arg, SrError *err);

/* Longest input the loaded model accepts. */
int explorer_worker_max_T(const ExplorerWorker *w);

/* Ask for the maps of sentence ids[0..n) repeated r times (copied); a
 * request still waiting is replaced. 0 or -1 (out of memory). */
int explorer_worker_request(ExplorerWorker *w, const int *ids, int n, int sentence, int r);

/* 1 while a request waits or runs. */
int explorer_worker_pending(ExplorerWorker *w);

/* Take the newest finished result: 1 and *d (now the caller's), *sentence
 * and *r it was computed for; -1 with err when that run failed; 0 if none. */
int explorer_worker_take(ExplorerWorker *w, AttentionData *d, int *sentence, int *r, SrError *err);

/* Stop the thread (after the run in progress) and free everything. */
void explorer_worker_stop(ExplorerWorker *w);

/* ---- the window ------------------------------------------------------------------- */

typedef struct {
    ExplorerSources src;
    RepeatBos bos;
    RepeatSep sep;
    const char *save_dir;        /* where s, v and <shot> write ("." by default)   */
    const char *script;          /* --script, or NULL (interactive)               */
    int width, height;           /* window size in pixels (--size)                */
    int sentence, r, layer, head;/* the first view: r -1 = 1 when it fits, layer -1
                                    = the last, head -1 = mean                     */
    AttentionScale scale;
    FigureTheme theme;
    ExplorerView view;
} ExplorerOptions;

/* Open the window and run until q / Esc / the window is closed / the end of
 * the script. The `c` command lines go to stdout, "wrote FILE" lines to
 * stderr. 0 on success; -1 with err when the inputs cannot be read, the
 * window cannot be opened, or (with a script) a save fails. */
int explorer_run(const ExplorerOptions *o, SrError *err);

#endif
