/* test_explorer.c — the explorer without a window: key handling (the
 * scripts: test_explorer_script.c), save names that never overwrite, the `c` command line,
 * the `b` filter, hover text, and the background recompute against the
 * path `seqrep plot attention` takes. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "explorer/explorer_input.h"
#include "explorer/explorer_worker.h"
#include "explorer_state/explorer_command.h"
#include "explorer_state/explorer_keys.h"
#include "explorer_state/explorer_names.h"
#include "explorer_state/explorer_state.h"
#include "formats/checkpoint.h"
#include "label/readout.h"
#include "repo/repo_z_data.h"
#include "viz_model.h"

/* Token counts of three sentences: 7, 3 and 30 tokens. */
static const int N_TOKENS[3] = {7, 3, 30};

/* The number of the view of the table called name. */
static int view(const char *name)
{
    int v = explorer_view_named(name);
    if (v < 0) fail_msg("no view %s", name);
    return v;
}

/* A state for a 4-layer, 2-head model, 64 positions, <bos> per copy. */
static ExplorerState make_state(void)
{
    ExplorerState s;
    explorer_state_init(&s, 4, 2, 3, N_TOKENS, 64, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE);
    return s;
}

/* ---- the view state ------------------------------------------------------------- */

static void test_initial_state(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    assert_int_equal(s.view, view("attention"));
    assert_int_equal(s.layer, 3);
    assert_int_equal(s.head, -1);
    assert_int_equal(s.r, 1);
    assert_int_equal(s.scale, SCALE_FIXED);
    assert_int_equal(s.theme, THEME_LIGHT);
    assert_int_equal(s.pinned, -1);
    /* 7 tokens + <bos> per copy: T = 8k <= 64 -> k = 8, r = 7 */
    assert_int_equal(explorer_r_max(&s), 7);
    /* a sentence that only fits once starts at r = 0 */
    int long_one[1] = {40};
    ExplorerState t;
    explorer_state_init(&t, 2, 2, 1, long_one, 64, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE);
    assert_int_equal(explorer_r_max(&t), 0);
    assert_int_equal(t.r, 0);
}

static void test_layer_keys_stay_in_bounds(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    assert_int_equal(explorer_apply_key(&s, EXPLORER_KEY_RIGHT), EXPLORER_REDRAW);
    assert_int_equal(s.layer, 3);
    assert_non_null(strstr(s.message, "0..3"));
    for (int i = 0; i < 3; i++) explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    assert_int_equal(s.layer, 0);
    assert_string_equal(s.message, "");
    explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    assert_int_equal(s.layer, 0);
    explorer_apply_key(&s, EXPLORER_KEY_RIGHT);
    assert_int_equal(s.layer, 1);
    /* a layer key on the mask view goes back to the attention view */
    explorer_apply_key(&s, 'm');
    assert_int_equal(s.view, view("mask"));
    explorer_apply_key(&s, EXPLORER_KEY_RIGHT);
    assert_int_equal(s.view, view("attention"));
    assert_int_equal(s.layer, 2);
}

static void test_head_keys_and_mean(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    /* from the mean, down picks the remembered head (0) */
    explorer_apply_key(&s, EXPLORER_KEY_DOWN);
    assert_int_equal(s.head, 0);
    explorer_apply_key(&s, EXPLORER_KEY_DOWN);
    assert_int_equal(s.head, 1);
    explorer_apply_key(&s, EXPLORER_KEY_DOWN); /* only 2 heads */
    assert_int_equal(s.head, 1);
    assert_non_null(strstr(s.message, "heads are 0..1"));
    explorer_apply_key(&s, 'a');
    assert_int_equal(s.head, -1);
    explorer_apply_key(&s, 'a');
    assert_int_equal(s.head, 1); /* back to the head before the mean */
    explorer_apply_key(&s, EXPLORER_KEY_UP);
    assert_int_equal(s.head, 0);
    explorer_apply_key(&s, EXPLORER_KEY_UP);
    assert_int_equal(s.head, 0);
}

static void test_r_keys(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    assert_int_equal(explorer_apply_key(&s, '3'), EXPLORER_REDRAW | EXPLORER_RECOMPUTE);
    assert_int_equal(s.r, 3);
    assert_int_equal(explorer_apply_key(&s, '3'), 0); /* no change, no recompute */
    assert_int_equal(explorer_apply_key(&s, '+'), EXPLORER_REDRAW | EXPLORER_RECOMPUTE);
    assert_int_equal(s.r, 4);
    assert_int_equal(explorer_apply_key(&s, '9'), EXPLORER_REDRAW); /* 9 > r_max 7: refused */
    assert_int_equal(s.r, 4);
    assert_non_null(strstr(s.message, "r = 9 does not fit"));
    explorer_apply_key(&s, '7');
    assert_int_equal(explorer_apply_key(&s, '+'), EXPLORER_REDRAW);
    assert_int_equal(s.r, 7);
    explorer_apply_key(&s, '0');
    assert_int_equal(explorer_apply_key(&s, '-'), EXPLORER_REDRAW);
    assert_int_equal(s.r, 0);
    assert_non_null(strstr(s.message, "at least 0"));
    /* changing r drops a pinned token: its position means another word now */
    s.pinned = 4;
    explorer_apply_key(&s, '2');
    assert_int_equal(s.pinned, -1);
}

static void test_sentence_keys_clamp_r(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    explorer_apply_key(&s, '5');
    assert_int_equal(explorer_apply_key(&s, EXPLORER_KEY_PGUP), EXPLORER_REDRAW); /* already first */
    assert_int_equal(s.sentence, 0);
    assert_int_equal(explorer_apply_key(&s, EXPLORER_KEY_PGDN), EXPLORER_REDRAW | EXPLORER_RECOMPUTE);
    assert_int_equal(s.sentence, 1);
    assert_int_equal(s.r, 5); /* 3 tokens: r_max = 15 */
    explorer_apply_key(&s, EXPLORER_KEY_PGDN);
    assert_int_equal(s.sentence, 2);
    assert_int_equal(s.r, 1); /* 30 tokens: 31 k <= 64 -> r_max = 1 */
    explorer_apply_key(&s, EXPLORER_KEY_PGDN);
    assert_int_equal(s.sentence, 2);
    explorer_apply_key(&s, EXPLORER_KEY_HOME);
    assert_int_equal(s.sentence, 0);
    explorer_apply_key(&s, EXPLORER_KEY_END);
    assert_int_equal(s.sentence, 2);
}

static void test_view_and_style_keys(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    explorer_apply_key(&s, 'm');
    assert_int_equal(s.view, view("mask"));
    explorer_apply_key(&s, 'm');
    assert_int_equal(s.view, view("attention"));
    explorer_apply_key(&s, 'o');
    assert_int_equal(s.view, view("overview"));
    /* no probe results loaded: the view stays and the message says why */
    explorer_apply_key(&s, 'p');
    assert_int_equal(s.view, view("overview"));
    assert_non_null(strstr(s.message, "--layers"));
    s.available[view("layers")] = 1;
    explorer_apply_key(&s, 'p');
    assert_int_equal(s.view, view("layers"));
    /* head keys on the flow view pick the flow's head and stay there */
    s.available[view("flow")] = 1;
    explorer_apply_key(&s, 'f');
    explorer_apply_key(&s, EXPLORER_KEY_DOWN);
    assert_int_equal(s.view, view("flow"));
    assert_int_equal(s.head, 0);
    /* a layer key leaves it for the attention view */
    explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    assert_int_equal(s.view, view("attention"));

    s.scale = s.linear_scale = SCALE_PER_HEAD;
    explorer_apply_key(&s, 'l');
    assert_int_equal(s.scale, SCALE_LOG);
    explorer_apply_key(&s, 'l');
    assert_int_equal(s.scale, SCALE_PER_HEAD);
    explorer_apply_key(&s, 't');
    assert_int_equal(s.theme, THEME_DARK);
    explorer_apply_key(&s, 't');
    assert_int_equal(s.theme, THEME_LIGHT);
    explorer_apply_key(&s, 'b');
    assert_int_equal(s.last_copy_only, 1);
    explorer_apply_key(&s, 'b');
    assert_int_equal(s.last_copy_only, 0);
}

/* The RePo views: z needs a RePo model, stays on RePo layers and on one
 * head, z again shows the copies (not at r = 0), and going to r = 0 there
 * falls back to z per token; g and n need their CSVs. */
static void test_repo_keys(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    explorer_apply_key(&s, 'z');
    assert_int_equal(s.view, view("attention"));
    assert_non_null(strstr(s.message, "no RePo weights"));
    s.available[view("repo-z")] = s.available[view("repo-repeat")] = 1;
    s.repo_from = 2;
    explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    explorer_apply_key(&s, EXPLORER_KEY_LEFT); /* attention at layer 0, mean over heads */
    assert_int_equal(s.layer, 0);
    explorer_apply_key(&s, 'z');
    assert_int_equal(s.view, view("repo-z"));
    assert_int_equal(s.layer, 3);  /* layer 0 has no z: the last layer */
    assert_int_equal(s.head, 0);   /* no mean of z: the last head used */
    explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    assert_int_equal(s.layer, 2);
    explorer_apply_key(&s, EXPLORER_KEY_LEFT);
    assert_int_equal(s.layer, 2);
    assert_string_equal(s.message, "RePo layers are 2..3");
    assert_int_equal(s.view, view("repo-z"));
    explorer_apply_key(&s, EXPLORER_KEY_DOWN);
    assert_int_equal(s.head, 1);
    assert_int_equal(s.view, view("repo-z"));
    explorer_apply_key(&s, 'a');
    assert_int_equal(s.head, 1);
    assert_non_null(strstr(s.message, "no mean"));
    explorer_apply_key(&s, 'z');
    assert_int_equal(s.view, view("repo-repeat"));
    explorer_apply_key(&s, 'z');
    assert_int_equal(s.view, view("repo-z"));
    explorer_apply_key(&s, 'z');
    explorer_apply_key(&s, '0'); /* one copy: nothing to compare */
    assert_int_equal(s.view, view("repo-z"));
    explorer_apply_key(&s, 'z');
    assert_int_equal(s.view, view("repo-z"));
    explorer_apply_key(&s, 'g');
    assert_int_equal(s.view, view("repo-z"));
    assert_non_null(strstr(s.message, "--repo-range"));
    s.available[view("repo-range")] = s.available[view("repo-needle")] = 1;
    explorer_apply_key(&s, 'g');
    assert_int_equal(s.view, view("repo-range"));
    explorer_apply_key(&s, 'n');
    assert_int_equal(s.view, view("repo-needle"));

    /* the command lines */
    ExplorerSources src = {0};
    src.model = "repo.safetensors";
    src.data = "d.conll";
    src.repo_needle = "needle-attention.csv";
    char line[1024];
    SrError err;
    assert_int_equal(explorer_command_line(&s, &src, 0, 0, 800, 600, "v.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot repo-needle --results needle-attention.csv --size 800x600 "
                              "--theme light --out v.png");
    explorer_apply_key(&s, '2');
    explorer_apply_key(&s, 'z');
    explorer_apply_key(&s, 'z');
    assert_int_equal(s.view, view("repo-repeat"));
    assert_int_equal(explorer_command_line(&s, &src, 1, 2, 800, 600, "v.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot repo-repeat --model repo.safetensors --data d.conll --sentence 1 "
                              "--r 2 --bos per-copy --sep none --layer 2 --head 1 --size 800x600 "
                              "--theme light --out v.png");
}

/* The hover text of a z point names token, copy, word and z, and the fence
 * a clipped point is drawn at. */
static void test_z_tooltip(void **unused)
{
    (void)unused;
    RepoZData d;
    memset(&d, 0, sizeof d);
    assert_int_equal(repo_z_data_alloc(&d, 2, 3, 0), 0);
    d.index[0] = 0, d.copy[0] = -1, d.word[0] = -1, d.z[0] = d.shown[0] = 0.25;
    d.index[1] = 1, d.copy[1] = 1, d.word[1] = 3, d.z[1] = 40.0, d.shown[1] = 2.5;
    d.token[0] = strdup("<bos>");
    d.token[1] = strdup("cat");
    char text[200];
    repo_z_tooltip(&d, 0, text, sizeof text);
    assert_string_equal(text, "token 0 '<bos>' (no copy)\nz = 0.25");
    repo_z_tooltip(&d, 1, text, sizeof text);
    assert_string_equal(text, "token 1 'cat' (copy 2, word 3)\nz = 40 (drawn at the fence 2.5)");
    repo_z_tooltip(&d, 7, text, sizeof text);
    assert_string_equal(text, "");
    repo_z_data_free(&d);
}

static void test_action_keys(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    assert_int_equal(explorer_apply_key(&s, 's'), EXPLORER_SAVE_PNG);
    assert_int_equal(explorer_apply_key(&s, 'v'), EXPLORER_SAVE_SVG);
    assert_int_equal(explorer_apply_key(&s, 'c'), EXPLORER_PRINT_COMMAND);
    assert_int_equal(explorer_apply_key(&s, 'q'), EXPLORER_QUIT);
    explorer_apply_key(&s, '?');
    assert_int_equal(s.show_help, 1);
    /* Esc closes the help first, then quits */
    assert_int_equal(explorer_apply_key(&s, EXPLORER_KEY_ESC), EXPLORER_REDRAW);
    assert_int_equal(s.show_help, 0);
    assert_int_equal(explorer_apply_key(&s, EXPLORER_KEY_ESC), EXPLORER_QUIT);
    assert_int_equal(explorer_apply_key(&s, 'Z'), EXPLORER_REDRAW);
    assert_non_null(strstr(s.message, "no such key"));
}

/* [ and ]: without a series a message; with one, the snapshot before or
 * after (RELOAD), clamped at both ends with a message. */
static void test_snapshot_keys(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    assert_int_equal(explorer_apply_key(&s, ']'), EXPLORER_REDRAW);
    assert_non_null(strstr(s.message, "no series"));
    s.n_snapshots = 3;
    s.snapshot = 2;
    s.layer = 1;
    assert_int_equal(explorer_apply_key(&s, ']'), EXPLORER_REDRAW);
    assert_int_equal(s.snapshot, 2);
    assert_non_null(strstr(s.message, "snapshots are 1..3"));
    assert_int_equal(explorer_apply_key(&s, '['), EXPLORER_RELOAD | EXPLORER_REDRAW);
    assert_int_equal(explorer_apply_key(&s, '['), EXPLORER_RELOAD | EXPLORER_REDRAW);
    assert_int_equal(s.snapshot, 0);
    assert_int_equal(explorer_apply_key(&s, '['), EXPLORER_REDRAW);
    assert_int_equal(s.snapshot, 0);
    assert_int_equal(s.layer, 1); /* the view stays */
}

static void test_hover_and_pin(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    assert_int_equal(explorer_set_hover(&s, 3, 2), EXPLORER_REDRAW);
    assert_int_equal(explorer_set_hover(&s, 3, 2), 0);
    assert_int_equal(explorer_set_hover(&s, -1, 5), EXPLORER_REDRAW);
    assert_int_equal(s.hover_query, -1);
    assert_int_equal(s.hover_key, -1);
    explorer_click(&s, 5);
    assert_int_equal(s.pinned, 5);
    explorer_click(&s, 6);
    assert_int_equal(s.pinned, 6);
    explorer_click(&s, 6); /* a second click on the pinned token unpins it */
    assert_int_equal(s.pinned, -1);
}

static void test_guided_walk(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    s.view = view("mask");
    explorer_apply_key(&s, ' ');
    assert_int_equal(s.view, view("attention"));
    assert_int_equal(s.layer, 0);
    assert_int_equal(s.head, -1);
    for (int l = 1; l < 4; l++) {
        explorer_apply_key(&s, ' ');
        assert_int_equal(s.view, view("attention"));
        assert_int_equal(s.layer, l);
    }
    explorer_apply_key(&s, ' ');
    assert_int_equal(s.view, view("overview"));
    s.available[view("exit")] = 1; /* only the exit results are loaded */
    explorer_apply_key(&s, ' ');
    assert_int_equal(s.view, view("exit"));
    explorer_apply_key(&s, ' ');
    assert_int_equal(s.view, view("mask"));
    assert_non_null(strstr(s.message, "tour"));
}

/* ---- save names --------------------------------------------------------------------- */

/* Create an empty file dir/name. */
static void touch(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void test_save_names_never_overwrite(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/test_explorer_XXXXXX", path[512];
    SrError err;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(explorer_save_path(dir, "", "png", path, sizeof path, &err), 0);
    char want[512];
    snprintf(want, sizeof want, "%s/explore-0001.png", dir);
    assert_string_equal(path, want);
    touch(dir, "explore-0001.png");
    /* an SVG after a PNG takes the next number, not 0001 */
    assert_int_equal(explorer_save_path(dir, "", "svg", path, sizeof path, &err), 0);
    snprintf(want, sizeof want, "%s/explore-0002.svg", dir);
    assert_string_equal(path, want);
    touch(dir, "explore-0002.svg");
    touch(dir, "explore-0003-window.png");
    assert_int_equal(explorer_save_path(dir, "-window", "png", path, sizeof path, &err), 0);
    snprintf(want, sizeof want, "%s/explore-0004-window.png", dir);
    assert_string_equal(path, want);
    /* a gap left by a removed file is reused: nothing there to overwrite */
    snprintf(want, sizeof want, "%s/explore-0001.png", dir);
    unlink(want);
    assert_int_equal(explorer_save_path(dir, "", "png", path, sizeof path, &err), 0);
    assert_string_equal(path, want);
    assert_int_equal(explorer_save_path(dir, "", "png", path, 10, &err), -1);
    const char *names[] = {"explore-0002.svg", "explore-0003-window.png"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- the command line ---------------------------------------------------------------- */

static void test_shell_quote(void **unused)
{
    (void)unused;
    char out[64];
    assert_int_equal(plot_words_quote("m.safetensors", out, sizeof out), 13);
    assert_string_equal(out, "m.safetensors");
    plot_words_quote("the cat", out, sizeof out);
    assert_string_equal(out, "'the cat'");
    plot_words_quote("don't", out, sizeof out);
    assert_string_equal(out, "'don'\\''t'");
    plot_words_quote("", out, sizeof out);
    assert_string_equal(out, "''");
    plot_words_quote("$HOME", out, sizeof out);
    assert_string_equal(out, "'$HOME'");
    /* too small: truncated but NUL-terminated, and the needed length returned */
    assert_int_equal(plot_words_quote("the cat", out, 4), 9);
    assert_string_equal(out, "'th");
}

static void test_command_line(void **unused)
{
    (void)unused;
    ExplorerState s = make_state();
    ExplorerSources src = {0};
    src.model = "m.safetensors";
    src.text = "it's here";
    char line[1024];
    SrError err;
    explorer_apply_key(&s, EXPLORER_KEY_DOWN); /* head 0 */
    explorer_apply_key(&s, 't');
    explorer_apply_key(&s, 'l');
    assert_int_equal(explorer_command_line(&s, &src, 0, 2, 900, 700, "view.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot attention --model m.safetensors --text 'it'\\''s here' --r 2 "
                              "--bos per-copy --sep none --layer 3 --head 0 --scale log --size 900x700 "
                              "--theme dark --out view.png");
    /* the overview, from a CoNLL file, with a mask plan and the b filter */
    src.text = NULL;
    src.data = "d.conll";
    src.mask = "middle";
    explorer_apply_key(&s, 'o');
    explorer_apply_key(&s, 'a');
    explorer_apply_key(&s, 'b');
    assert_int_equal(explorer_command_line(&s, &src, 4, 1, 800, 600, "out/view.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot attention --overview --model m.safetensors --data d.conll --sentence 4 "
                              "--r 1 --bos per-copy --sep none --mask middle --layer 3 --head mean --scale log "
                              "--last-copy-only --size 800x600 --theme dark --out out/view.png");
    /* the mask view uses the state's sentence length and r */
    explorer_apply_key(&s, 'm');
    explorer_apply_key(&s, '5');
    explorer_apply_key(&s, 't');
    assert_int_equal(explorer_command_line(&s, &src, 0, 1, 800, 600, "v.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot mask --n 7 --r 5 --bos per-copy --sep none --size 800x600 "
                              "--theme light --out v.png");
    /* result plots name their files */
    src.layers = "a.csv,b.csv";
    src.split = "dev";
    s.available[view("layers")] = 1;
    explorer_apply_key(&s, 'p');
    assert_int_equal(explorer_command_line(&s, &src, 0, 1, 800, 600, "v.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot layers --results a.csv,b.csv --split dev --size 800x600 "
                              "--theme light --out v.png");
    /* an exit view of one dataset of a sweep CSV */
    src.exit = "sweep.csv";
    src.dataset = "right-cue";
    s.available[view("exit")] = 1;
    explorer_apply_key(&s, 'e');
    assert_int_equal(explorer_command_line(&s, &src, 0, 1, 800, 600, "v.png", line, sizeof line, &err), 0);
    assert_string_equal(line, "seqrep plot exit --results sweep.csv --dataset right-cue --split dev --size 800x600 "
                              "--theme light --out v.png");
    assert_int_equal(explorer_command_line(&s, &src, 0, 1, 800, 600, "v.png", line, 40, &err), -1);
    assert_non_null(strstr(err.msg, "longer than"));
}

/* ---- the frame: b filter, hover text ---------------------------------------------------- */

/* Attention data of 2 words repeated twice with <bos> per copy (T = 6), one
 * layer, one head, p(q, k) = (q * 10 + k) / 100 where visible. */
static void make_attention(AttentionData *d)
{
    RepeatLayout lay;
    SrError err;
    int words[2] = {7, 8};
    assert_int_equal(repeat_build(words, 2, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    assert_int_equal(lay.T, 6);
    const char *tokens[6] = {"<bos>", "red", "fox", "<bos>", "red", "fox"};
    float att[36];
    for (int q = 0; q < 6; q++)
        for (int k = 0; k < 6; k++) att[q * 6 + k] = k <= q ? (float)(q * 10 + k) / 100.0f : 0.0f;
    MaskKind plan[1] = {MASK_CAUSAL};
    assert_int_equal(attention_data_init(d, 1, 1, &lay, tokens, att, plan, &err), 0);
    repeat_free(&lay);
}

/* A plan of mixed masks keeps one visibility map per kind, each layer
 * reading its own; the b filter treats both. */
static void test_visible_per_mask_kind(void **unused)
{
    (void)unused;
    RepeatLayout lay;
    SrError err;
    int words[2] = {7, 8};
    assert_int_equal(repeat_build(words, 2, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    const char *tokens[6] = {"<bos>", "red", "fox", "<bos>", "red", "fox"};
    MaskKind plan[3] = {MASK_CAUSAL, MASK_BIDIRECTIONAL, MASK_CAUSAL};
    AttentionData d;
    assert_int_equal(attention_data_init(&d, 3, 1, &lay, tokens, NULL, plan, &err), 0);
    repeat_free(&lay);
    assert_int_equal(d.n_visible, 2);
    assert_int_equal(d.visible_of[0], d.visible_of[2]);
    assert_true(d.visible_of[0] != d.visible_of[1]);
    for (int l = 0; l < 3; l++)
        for (int q = 0; q < 6; q++)
            for (int k = 0; k < 6; k++)
                assert_int_equal(attention_visible(&d, l, q, k), l == 1 || k <= q);
    uint8_t out[2 * 36];
    attention_last_copy_visible(&d, out);
    memcpy(d.visible, out, sizeof out);
    /* the last copy's row 4 sees key 2 (copy 1) in every layer; key 5 (its
     * own copy) is hidden in the bidirectional layer, masked in the causal */
    for (int l = 0; l < 3; l++) assert_true(attention_visible(&d, l, 4, 2));
    assert_true(attention_filtered(&d, 1, 4, 5));
    assert_false(attention_filtered(&d, 0, 4, 5));
    assert_false(attention_visible(&d, 0, 4, 5));
    attention_data_free(&d);
}

static void test_last_copy_filter(void **unused)
{
    (void)unused;
    AttentionData d;
    make_attention(&d);
    uint8_t out[36];
    attention_last_copy_visible(&d, out);
    /* rows 4, 5 (words of the last copy) see keys 1, 2 (words of copy 1);
     * nothing else survives: not the <bos> keys, not the own copy. The
     * cells the causal mask lets through but the filter hides are marked
     * so, the masked ones stay masked */
    for (int q = 0; q < 6; q++)
        for (int k = 0; k < 6; k++) {
            int want = (q == 4 || q == 5) && (k == 1 || k == 2) ? ATTENTION_SHOWN
                       : k <= q                                 ? ATTENTION_FILTERED
                                                                : ATTENTION_MASKED;
            assert_int_equal(out[q * 6 + k], want);
        }
    /* in place, the same; the tooltip tells a hidden cell from a masked one */
    attention_last_copy_visible(&d, d.visible);
    assert_memory_equal(d.visible, out, sizeof out);
    char text[256];
    attention_tooltip(&d, 0, 0, 4, 4, text, sizeof text);
    assert_string_equal(text, "query 4 'red' (copy 2)\nkey 4 'red' (copy 2)\nhidden by the b filter");
    attention_tooltip(&d, 0, 0, 4, 5, text, sizeof text);
    assert_string_equal(text, "query 4 'red' (copy 2)\nkey 5 'fox' (copy 2)\nmasked");
    attention_data_free(&d);
}

static void test_tooltip(void **unused)
{
    (void)unused;
    AttentionData d;
    make_attention(&d);
    char text[256];
    attention_tooltip(&d, 0, 0, 5, 1, text, sizeof text);
    assert_string_equal(text, "query 5 'fox' (copy 2)\nkey 1 'red' (copy 1)\np = 0.5100");
    attention_tooltip(&d, 0, -1, 3, 0, text, sizeof text);
    assert_string_equal(text, "query 3 '<bos>' (no copy)\nkey 0 '<bos>' (no copy)\np = 0.3000");
    attention_tooltip(&d, 0, 0, 1, 4, text, sizeof text);
    assert_string_equal(text, "query 1 'red' (copy 1)\nkey 4 'red' (copy 2)\nmasked");
    attention_data_free(&d);
}

static void test_describe_attention(void **unused)
{
    (void)unused;
    AttentionData d;
    make_attention(&d);
    char *texts[1] = {"red fox"}, *sources[1] = {"given with --text"};
    ExplorerInput in;
    memset(&in, 0, sizeof in);
    in.n_sentences = 1;
    in.texts = texts;
    in.sources = sources;
    in.seed = 5;
    snprintf(in.checksum, sizeof in.checksum, "0123456789abcdef");
    d.layer = 0;
    d.head = 0;
    d.scale = SCALE_LOG;
    attention_data_describe(&d, 0, "m.st", NULL, in.checksum, in.seed, in.texts[0], in.sources[0], 1,
                            REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, NULL);
    assert_string_equal(d.meta.title, "Attention of layer 0, head 0, r = 1");
    assert_non_null(strstr(d.meta.caption, "of model m.st (1 layers, 1 heads; checksum 0123456789abcdef; "
                                           "training seed 5) on \"red fox\" (given with --text)"));
    assert_non_null(strstr(d.meta.caption, "bos per-copy, sep none, mask causal; colour log10, floor 0.001."));
    attention_data_describe(&d, 1, "m.st", NULL, in.checksum, in.seed, in.texts[0], in.sources[0], 1,
                            REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, "middle");
    assert_string_equal(d.meta.title, "Attention of every layer and head, r = 1");
    assert_non_null(strstr(d.meta.caption, "mask middle"));
    attention_data_free(&d);
}

/* ---- the background recompute -------------------------------------------------------------- */

/* Sleep for one millisecond. */
static void sleep_1ms(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* Worker callback for the test: count the results. */
static void count_result(void *arg)
{
    (*(int *)arg)++;
}

/* Take the worker's results until the one of r = 2 is there (that of r = 1
 * may come first: it is freed); its sentence into *sentence. */
static void take_r2(ExplorerWorker *w, AttentionData *d, int *sentence)
{
    SrError err;
    int r = -1, got = 0;
    for (int i = 0; i < 5000 && (explorer_worker_pending(w) || got == 0); i++) {
        int take = explorer_worker_take(w, d, sentence, &r, &err);
        assert_true(take >= 0);
        if (take == 1 && r == 1) attention_data_free(d);
        if (take == 1 && r == 2) got = 1;
        if (!got) sleep_1ms();
    }
    assert_int_equal(got, 1);
}

/* The maps of d (the sentence ids[0..3) at r = 2 through the model at
 * path, layers made ready here) are those the whole forward of a
 * training-sized model keeps. */
static void assert_maps_of_whole_forward(AttentionData *d, const char *path, const ExplorerInput *in)
{
    SrError err;
    Model full;
    assert_int_equal(checkpoint_load(path, &full, 1, 12, NULL, &err), 0);
    RepeatLayout lay;
    assert_int_equal(repeat_build_ids(in->ids[0], 3, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE,
                                      readout_repeat_ids(&in->tok), 32, &lay, &err), 0);
    ModelInput fin = {.B = 1, .T = lay.T, .ids = lay.ids, .positions = lay.positions};
    assert_int_equal(model_forward(&full, &fin, &err), 0);
    for (int l = 0; l < 2; l++) {
        assert_int_equal(attention_maps_compute(d->maps, l, &err), 0);
        assert_memory_equal(attention_maps_layer(d->maps, l), model_attention(&full, l), sizeof(float) * 2 * 12 * 12);
    }
    repeat_free(&lay);
    model_free(&full);
}

static void test_worker_matches_plot_path(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/test_explorer_model_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    save_tiny_model(path);
    ExplorerSources src = {0};
    src.model = path;
    src.text = "the red fox";
    ExplorerInput in;
    SrError err;
    assert_int_equal(explorer_input_load(&in, &src, &err), 0);
    assert_int_equal(in.n_sentences, 1);
    assert_int_equal(in.n_tokens[0], 3);
    assert_int_equal(in.seed, 7);
    assert_string_equal(in.sources[0], "given with --text");

    ExplorerWorker *w;
    int results = 0, sentence = -1, r = -1;
    assert_int_equal(explorer_worker_start(&w, path, NULL, &in.tok, NULL, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE,
                                           REPEAT_POSITIONS_RUN, ATTENTION_MAX_T, 0, count_result, &results, &err),
                     0);
    assert_int_equal(explorer_worker_max_T(w), 32);
    /* two requests in a row: the worker may skip the first, never the last */
    assert_int_equal(explorer_worker_request(w, in.ids[0], 3, 0, 1), 0);
    assert_int_equal(explorer_worker_request(w, in.ids[0], 3, 0, 2), 0);
    AttentionData d, want;
    take_r2(w, &d, &sentence);
    assert_int_equal(sentence, 0);
    assert_true(results >= 1);
    /* exactly the maps `seqrep plot attention` computes for the same input */
    RepeatBos bos = REPEAT_BOS_PER_COPY;
    assert_int_equal(attention_data_from_model(&want, path, NULL, "the red fox", 2, &bos, 1,
                                               REPEAT_SEP_NONE, REPEAT_POSITIONS_RUN, NULL, NULL, NULL, &err),
                     0);
    assert_int_equal(d.T, 12);
    assert_int_equal(want.T, d.T);
    for (int l = 1; l >= 0; l--) { /* computed on demand, in any order */
        assert_int_equal(attention_maps_compute(d.maps, l, &err), 0);
        assert_int_equal(attention_maps_compute(want.maps, l, &err), 0);
        assert_memory_equal(attention_maps_layer(d.maps, l), attention_maps_layer(want.maps, l),
                            sizeof(float) * 2 * 12 * 12);
    }
    assert_maps_of_whole_forward(&d, path, &in);
    for (int l = 0; l < 2; l++)
        assert_memory_equal(attention_visible_map(&d, l), attention_visible_map(&want, l), 12 * 12);
    assert_int_equal(d.n_visible, 1); /* both layers causal: one map */
    for (int t = 0; t < d.T; t++) assert_string_equal(d.tokens[t], want.tokens[t]);
    attention_data_free(&want);
    attention_data_free(&d);

    /* an input longer than the model takes fails with a message, and the worker goes on */
    assert_int_equal(explorer_worker_request(w, in.ids[0], 3, 0, 9), 0);
    int take = 0;
    for (int i = 0; i < 5000 && take == 0; i++) {
        take = explorer_worker_take(w, &d, &sentence, &r, &err);
        if (take == 0) sleep_1ms();
    }
    assert_int_equal(take, -1);
    assert_int_equal(r, 9);
    assert_true(strlen(err.msg) > 0);
    explorer_worker_stop(w);
    explorer_input_free(&in);
    unlink(path);
    rmdir(dir);
}

static void test_input_errors(void **unused)
{
    (void)unused;
    ExplorerSources src = {0};
    ExplorerInput in;
    SrError err;
    src.model = "no-such-model.safetensors";
    src.text = "the";
    assert_int_equal(explorer_input_load(&in, &src, &err), -1);
    assert_non_null(strstr(err.msg, "no-such-model.safetensors"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_state),
        cmocka_unit_test(test_layer_keys_stay_in_bounds),
        cmocka_unit_test(test_head_keys_and_mean),
        cmocka_unit_test(test_r_keys),
        cmocka_unit_test(test_sentence_keys_clamp_r),
        cmocka_unit_test(test_view_and_style_keys),
        cmocka_unit_test(test_repo_keys),
        cmocka_unit_test(test_z_tooltip),
        cmocka_unit_test(test_action_keys),
        cmocka_unit_test(test_snapshot_keys),
        cmocka_unit_test(test_hover_and_pin),
        cmocka_unit_test(test_guided_walk),
        cmocka_unit_test(test_save_names_never_overwrite),
        cmocka_unit_test(test_shell_quote),
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_visible_per_mask_kind),
        cmocka_unit_test(test_last_copy_filter),
        cmocka_unit_test(test_tooltip),
        cmocka_unit_test(test_describe_attention),
        cmocka_unit_test(test_worker_matches_plot_path),
        cmocka_unit_test(test_input_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
