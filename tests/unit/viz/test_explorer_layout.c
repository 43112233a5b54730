/* test_explorer_layout.c — a window that never covers itself: every frame of
 * the explorer, drawn headless on a cairo image surface with a box recorder
 * attached (draw/layout_boxes.h), over every view (those of the model and
 * those of result files: layers, exit, flow, RePo range and needle, heads), both
 * themes, three window sizes, a short and a long sentence, with the pinned
 * token, the `b` filter, the hover box at several places and the help, has
 * no overlap nobody meant and nothing outside the window. Also: the box
 * check itself, and hover naming every token when labels are thinned. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attention/paint_attention.h"
#include "draw/layout_boxes.h"
#include "explorer/explorer_overlays.h"
#include "explorer/explorer_setup.h"
#include "explorer/explorer_views.h"
#include "explorer/explorer_window.h"
#include "explorer_state/explorer_keys.h"
#include "formats/checkpoint.h"
#include "viz_fixtures.h"

#define N_WORDS 20

static const char *WORDS[N_WORDS] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "the", "miller",
                                     "hurries", "to", "mill", "bank", "called", "me", "twice", "about",
                                     "my", "card", "river", "."};

static const char *SHORT_TEXT = "the miller hurries to the mill";
static const char *LONG_TEXT =
    "the miller hurries to the mill . the bank called me twice about my card . the river called the miller "
    "to the bank . my card hurries to the mill twice . the bank called me about the river";

/* Save a tiny random model over WORDS to path (RePo layers from 1 if repo). */
static void save_model(const char *path, int repo)
{
    ModelConfig c = {.vocab_size = N_WORDS, .d_model = 16, .n_layers = 2, .n_heads = 2, .d_ff = 24,
                     .max_seq_len = 128, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1,
                     .repo = repo, .repo_from = 1};
    Model m;
    SrError err;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), 0);
    model_init_weights(&m, 7);
    assert_int_equal(checkpoint_save(path, &m, WORDS, N_WORDS, "{\"seed\": 7}", &err), 0);
    model_free(&m);
}

/* The worker's wake-up: nothing to wake in a test. */
static void no_wake(void *arg)
{
    (void)arg;
}

/* The result files of every results view (write_result_fixtures), kept
 * here: in_work's paths are reused after a few calls. */
static char probe_path[512], finetune_path[512], flow_path[512], range_path[512], needle_path[512], heads_path[512];

/* Open e on the model at path and text as seqrep explore would (no window),
 * with the result files of every results view, and wait for the attention
 * maps of r = 1. */
static void open_explorer(Explorer *e, ExplorerOptions *o, const char *path, const char *text)
{
    memset(o, 0, sizeof *o);
    o->src.model = path;
    o->src.text = text;
    o->src.layers = probe_path;
    o->src.exit = finetune_path;
    o->src.flow = flow_path;
    o->src.repo_range = range_path;
    o->src.repo_needle = needle_path;
    o->src.heads = heads_path;
    o->width = 1400;
    o->height = 900;
    o->r = 1;
    o->layer = o->head = -1;
    o->scale = SCALE_FIXED;
    o->view = explorer_view_named("attention");
    memset(e, 0, sizeof *e);
    layout_boxes_init(&e->figure_boxes);
    SrError err;
    if (explorer_open(e, o, &err)) fail_msg("%s", err.msg);
    static const char *const files[6] = {"layers", "exit", "flow", "repo-range", "repo-needle", "heads"};
    for (int i = 0; i < 6; i++) assert_true(e->st.available[explorer_view_named(files[i])]);
    assert_int_equal(explorer_worker_start(&e->worker, path, NULL, &e->in.tok, NULL, e->st.bos, o->sep,
                                           e->src.copy_positions, explorer_max_T(e), 0, no_wake, e, &err),
                     0);
    explorer_request_maps(e);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 20000 && !e->has_forward; i++) {
        explorer_take_maps(e);
        if (!e->has_forward) nanosleep(&ms, NULL);
    }
    assert_true(e->has_forward);
}

/* Release what open_explorer and the frames set up. */
static void close_explorer(Explorer *e)
{
    explorer_close(e);
    layout_boxes_free(&e->figure_boxes);
}

/* Wait until the data of e's view is ready (the maps' thread computes the
 * layers it shows); returns what explorer_prepare_figure returns then. */
static int prepare_ready(Explorer *e)
{
    struct timespec ms = {0, 1000000};
    int rc = explorer_prepare_figure(e);
    for (int i = 0; i < 20000 && rc != 0 && e->maps_computing; i++) {
        nanosleep(&ms, NULL);
        rc = explorer_prepare_figure(e);
    }
    return rc;
}

/* The w x h surface the frames of one size are drawn on, kept from one
 * frame to the next (the checks read the boxes drawn, not the pixels, and
 * a fresh 5 MB surface per frame cost most of this test's time under ASan:
 * new pages, zeroed). surface_release frees it. */
static cairo_surface_t *kept_surface;

static cairo_surface_t *surface_of_size(int w, int h)
{
    if (kept_surface && (cairo_image_surface_get_width(kept_surface) != w ||
                         cairo_image_surface_get_height(kept_surface) != h)) {
        cairo_surface_destroy(kept_surface);
        kept_surface = NULL;
    }
    if (!kept_surface) kept_surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    return kept_surface;
}

static void surface_release(void)
{
    if (kept_surface) cairo_surface_destroy(kept_surface);
    kept_surface = NULL;
}

/* Paint the figure of e's view in a w x h window, as the window does (its
 * boxes recorded into e->figure_boxes). */
static void paint_figure(Explorer *e, int w, int h)
{
    cairo_surface_t *s = surface_of_size(w, h);
    cairo_t *cr = cairo_create(s);
    e->width = w;
    e->height = h;
    assert_int_equal(prepare_ready(e), 0);
    assert_int_equal(explorer_paint_view(e, cr, explorer_figure_width(&e->st, w, h), explorer_figure_height(&e->st, w, h)),
                     0);
    assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    assert_true(e->figure_boxes.n > 0);
    cairo_destroy(cr);
}

/* Draw the overlays of one w x h frame over the figure paint_figure drew
 * (its boxes), with a recorder attached; return the problems of the whole
 * frame, listed into out. */
static int check_frame(Explorer *e, int w, int h, const char *context, char *out, size_t cap)
{
    cairo_surface_t *s = surface_of_size(w, h);
    cairo_t *cr = cairo_create(s);
    LayoutBoxes rec;
    layout_boxes_init(&rec);
    assert_int_equal(layout_boxes_append(&rec, &e->figure_boxes), 0);
    layout_boxes_attach(cr, &rec);
    explorer_update_hover(e, cr);
    explorer_draw_overlays(e, cr);
    assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    int problems = layout_boxes_overlaps(&rec, w, h, context, out, cap);
    layout_boxes_attach(cr, NULL);
    layout_boxes_free(&rec);
    cairo_destroy(cr);
    return problems;
}

/* The places the mouse is put on a view: cells of the attention map near its
 * corners and middle (the last row and column lie next to the colour bar),
 * else points spread over the window. Writes n points to xy; returns n. */
static int hover_points(Explorer *e, int w, int h, double xy[][2])
{
    if (!figure_view(e->st.view)->pins) {
        static const double at[4][2] = {{0.5, 0.5}, {0.75, 0.3}, {0.3, 0.8}, {0.7, 0.85}};
        for (int i = 0; i < 4; i++) xy[i][0] = at[i][0] * w, xy[i][1] = at[i][1] * h;
        return 4;
    }
    cairo_surface_t *s = surface_of_size(w, h);
    cairo_t *cr = cairo_create(s);
    assert_int_equal(prepare_ready(e), 0);
    AttentionLayout L;
    attention_layout(cr, explorer_shown_maps(e), explorer_figure_width(&e->st, w, h),
                     explorer_figure_height(&e->st, w, h), &L);
    cairo_destroy(cr);
    int T = explorer_shown_maps(e)->T, cells[5][2] = {{T - 1, T - 1}, {0, T - 1}, {T / 2, T / 2}, {T - 1, 0}, {1, 0}};
    for (int i = 0; i < 5; i++) {
        xy[i][0] = L.map.x + (cells[i][1] + 0.5) * L.cell;
        xy[i][1] = L.map.y + (cells[i][0] + 0.5) * L.cell;
    }
    return 5;
}

/* Check every overlay state of the current view at w x h (the figure
 * painted once); add the problems
 * to *problems and their lines to report (cap bytes, *used so far). */
static void check_view(Explorer *e, int w, int h, const char *base, char *report, size_t cap, size_t *used,
                       int *problems)
{
    char context[256], lines[8192];
    double xy[5][2];
    int n = hover_points(e, w, h, xy);
    paint_figure(e, w, h); /* once: the overlays below change nothing of it */
    for (int state = 0; state < n + 2; state++) {
        e->mouse_in = state < n;
        if (e->mouse_in) e->mouse_x = (int)xy[state][0], e->mouse_y = (int)xy[state][1];
        e->st.show_help = state == n + 1;
        if (state < n) snprintf(context, sizeof context, "%s, hover (%d,%d)", base, e->mouse_x, e->mouse_y);
        else snprintf(context, sizeof context, "%s, %s", base, state == n ? "no hover" : "help");
        int found = check_frame(e, w, h, context, lines, sizeof lines);
        *problems += found;
        if (found && *used + strlen(lines) + 1 < cap) {
            memcpy(report + *used, lines, strlen(lines) + 1);
            *used += strlen(lines);
        }
    }
    e->st.show_help = 0;
}

/* Every view of e's model that it can show, and the grid once more with the
 * head roles on, x both themes x three sizes, with a pinned token and the
 * `b` filter; returns the problems. */
static int check_all_views(Explorer *e, const char *sentence, char *report, size_t cap, size_t *used)
{
    static const int sizes[3][2] = {{1400, 900}, {1024, 700}, {800, 600}};
    int problems = 0;
    for (int theme = 0; theme < 2; theme++)
        for (int size = 0; size < 3; size++)
            for (int v = 0; v < e->st.n_views; v++)
                for (int roles = 0; roles <= figure_view(v)->panels; roles++) {
                    if (!e->st.available[v] || (figure_view(v)->needs_copies && e->st.r == 0)) continue;
                    e->st.view = v;
                    e->st.show_roles = roles;
                    e->st.theme = theme ? THEME_DARK : THEME_LIGHT;
                    for (int filter = 0; filter < 2; filter++) {
                        e->st.message[0] = 0;
                        if (filter) { /* the b filter's banner and a pinned token */
                            explorer_apply_key(&e->st, 'b');
                            e->st.pinned = e->forward.attention.T - 2;
                        }
                        char base[160];
                        snprintf(base, sizeof base, "%s sentence, view %s%s, %s, %dx%d%s", sentence,
                                 explorer_view_name(e->st.view), e->st.show_roles ? " with roles" : "",
                                 theme ? "dark" : "light", sizes[size][0], sizes[size][1],
                                 filter ? ", b filter, pinned" : "");
                        check_view(e, sizes[size][0], sizes[size][1], base, report, cap, used, &problems);
                        if (filter) explorer_apply_key(&e->st, 'b');
                        e->st.pinned = -1;
                    }
                    e->st.message[0] = 0;
                }
    return problems;
}

static void test_frames_never_cover_themselves(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/test_explorer_layout_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));

    size_t cap = 1 << 20, used = 0;
    char *report = calloc(cap, 1);
    int problems = 0;
    for (int repo = 0; repo < 2; repo++) {
        snprintf(path, sizeof path, "%s/m%d.safetensors", dir, repo);
        save_model(path, repo);
        for (int t = 0; t < 2; t++) {
            Explorer *e = calloc(1, sizeof *e);
            ExplorerOptions o;
            open_explorer(e, &o, path, t ? LONG_TEXT : SHORT_TEXT);
            problems += check_all_views(e, t ? "long" : "short", report, cap, &used);
            close_explorer(e);
            free(e);
        }
        unlink(path);
    }
    surface_release();
    rmdir(dir);
    if (problems) fprintf(stderr, "%d overlaps or boxes outside the window:\n%s", problems, report);
    free(report);
    assert_int_equal(problems, 0);
}

/* The check can fail: a text over the colour bar, a hover box over the
 * title, a box outside the window; and it leaves alone what is meant. */
static void test_box_check_finds_overlaps(void **unused)
{
    (void)unused;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 200, 100);
    cairo_t *cr = cairo_create(s);
    LayoutBoxes b;
    layout_boxes_init(&b);
    assert_int_equal(layout_boxes_add(cr, BOX_TEXT, 0, 0, 10, 10, "off"), -1); /* no recorder: nothing */
    layout_boxes_attach(cr, &b);
    char out[4096];
    layout_boxes_add(cr, BOX_TITLE, 50, 0, 100, 20, "title");
    layout_boxes_open(cr, BOX_HEATMAP, 20, 30, 60, 60, "map");
    layout_boxes_add(cr, BOX_TEXT, 30, 40, 10, 10, "cell label");
    layout_boxes_close(cr, 0);
    layout_boxes_open(cr, BOX_COLOURBAR, 100, 30, 10, 60, "bar");
    layout_boxes_add(cr, BOX_TEXT, 112, 30, 20, 10, "1");
    layout_boxes_close(cr, 1);
    assert_int_equal(b.box[3].r.w, 32); /* the bar grew over its tick label */
    assert_int_equal(layout_boxes_overlaps(&b, 200, 100, "ok", out, sizeof out), 0);
    layout_boxes_open(cr, BOX_HOVER, 60, 50, 30, 20, "hover over the map");
    layout_boxes_close(cr, 0);
    assert_int_equal(layout_boxes_overlaps(&b, 200, 100, "ok", out, sizeof out), 0);
    layout_boxes_open(cr, BOX_HOVER, 95, 10, 30, 30, "hover");
    layout_boxes_close(cr, 0);
    layout_boxes_add(cr, BOX_TEXT, 105, 60, 20, 10, "label on the bar");
    layout_boxes_add(cr, BOX_BANNER, 190, 90, 20, 20, "outside");
    int n = layout_boxes_overlaps(&b, 200, 100, "frame", out, sizeof out);
    assert_non_null(strstr(out, "frame: title 'title' [50,0 100x20] overlaps hover box 'hover' [95,10 30x30]\n"));
    assert_non_null(strstr(out, "frame: colour bar 'bar' [100,30 32x60] overlaps hover box 'hover'"));
    assert_non_null(strstr(out, "frame: text '1' [112,30 20x10] overlaps hover box 'hover'"));
    assert_non_null(strstr(out, "frame: colour bar 'bar' [100,30 32x60] overlaps text 'label on the bar'"));
    assert_non_null(strstr(out, "frame: banner 'outside' [190,90 20x20] leaves the 200x100 window\n"));
    assert_int_equal(n, 5); /* the hover box over title, bar and tick; the label on the bar; the banner */
    layout_boxes_free(&b);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* With labels thinned on a long sentence, hovering each row still names its
 * token: the tooltip of every query row holds that row's word. */
static void test_hover_names_every_word(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/test_explorer_hover_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    save_model(path, 0);
    Explorer *e = calloc(1, sizeof *e);
    ExplorerOptions o;
    open_explorer(e, &o, path, LONG_TEXT);
    int w = 800, h = 600;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    e->width = w;
    e->height = h;
    assert_int_equal(prepare_ready(e), 0);
    AttentionLayout L;
    const AttentionData *d = explorer_shown_maps(e);
    attention_layout(cr, d, w, h, &L);
    assert_true(L.label_step > 1); /* the labels are thinned here */
    e->mouse_in = 1;
    char text[512], want[80];
    for (int q = 0; q < d->T; q++) {
        e->mouse_x = (int)(L.map.x + 0.5 * L.cell);
        e->mouse_y = (int)(L.map.y + (q + 0.5) * L.cell);
        explorer_update_hover(e, cr);
        assert_int_equal(e->st.hover_query, q);
        attention_tooltip(d, d->layer, d->head, e->st.hover_query, e->st.hover_key, text, sizeof text);
        snprintf(want, sizeof want, "query %d '%s'", q, d->tokens[q]);
        assert_non_null(strstr(text, want));
    }
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    close_explorer(e);
    free(e);
    unlink(path);
    rmdir(dir);
}

/* The result files every test opens the explorer with, in a work directory. */
static int setup(void **state)
{
    (void)state;
    if (viz_work_setup("test_explorer_layout")) return -1;
    write_result_fixtures();
    snprintf(probe_path, sizeof probe_path, "%s", in_work("probe1.csv"));
    snprintf(finetune_path, sizeof finetune_path, "%s", in_work("finetune.csv"));
    snprintf(flow_path, sizeof flow_path, "%s", in_work("flow.csv"));
    snprintf(range_path, sizeof range_path, "%s", in_work("range.csv"));
    snprintf(needle_path, sizeof needle_path, "%s", in_work("needle.csv"));
    snprintf(heads_path, sizeof heads_path, "%s", in_work("heads.csv"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return viz_work_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_check_finds_overlaps),
        cmocka_unit_test(test_hover_names_every_word),
        cmocka_unit_test(test_frames_never_cover_themselves),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
