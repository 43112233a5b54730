/* test_figure_table.c — the table of figures serves a figure it was never
 * told of. A figure that exists only in this test (its own data, painter,
 * CSV, option and view: a bar as high as --test-level) is added with
 * figures_register, and then `seqrep plot` (cmd_plot, as the CLI calls it),
 * the explorer's view list and keys, and the explorer's saves and its `c`
 * command all serve it, though no file of viz/ names it. Also: what every
 * row of the table promises (an option given a line once, a view of every
 * figure that has one, unique keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "viz_fixtures.h"
#include "viz_model.h"

#include "commands/viz_commands.h"
#include "explorer/explorer_save.h"
#include "explorer/explorer_setup.h"
#include "explorer_state/explorer_command.h"
#include "explorer_state/explorer_keys.h"
#include "figures/figure_options.h"

/* ---- the test's figure --------------------------------------------------- */

/* Its data: a bar `level` tenths of the plot high. */
typedef struct {
    FigureMeta meta;
    int level;
} BarData;

/* Its options: --test-level N. */
typedef struct {
    int level;
} BarOptions;

static const FigureOption BAR_OPTIONS[] = {
    {.name = "test-level", .type = ARG_INT, .offset = offsetof(BarOptions, level),
     .help = "test-bar: the height of the bar, 0..10 (TEST FIXTURE)"},
};

/* The bar of --test-level (0..10), its level in the manifest. */
static int bar_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const BarOptions *o = options;
    BarData *d = data;
    (void)seed;
    if (o->level > 10) return sr_fail(err, "--test-level must be 0..10, got %d", o->level);
    d->meta = figure_meta_default();
    d->level = o->level;
    snprintf(d->meta.title, sizeof d->meta.title, "A bar of %d", o->level);
    snprintf(d->meta.caption, sizeof d->meta.caption, "TEST FIXTURE: a figure of test_figure_table.c only.");
    cJSON_AddNumberToObject(manifest, "test_level", o->level);
    return 0;
}

/* Draw the bar (BarData). */
static int bar_paint(cairo_t *cr, const void *data, double w, double h)
{
    const BarData *d = data;
    FigureRect c;
    figure_begin(cr, &d->meta, w, h, &c);
    rgb_set(cr, palette_okabe_ito(OKABE_BLUE));
    cairo_rectangle(cr, c.x, c.y + c.h * (1 - d->level / 10.0), c.w / 4, c.h * d->level / 10.0);
    cairo_fill(cr);
    return figure_finish(cr);
}

/* The bar's number as CSV. */
static void bar_csv(const void *data, FILE *out)
{
    const BarData *d = data;
    fprintf(out, "level\n%d\n", d->level);
}

/* The bar holds nothing to release. */
static void bar_free(void *data)
{
    (void)data;
}

/* The view's plot options: a bar as high as r. */
static void bar_command(PlotWords *w, const ViewContext *c)
{
    plot_words_int(w, "--test-level", c->r);
}

static const FigureView BAR_VIEWS[] = {{
    .name = "test-bar",
    .key = 'Q',
    .help = "a bar as high as r (TEST FIXTURE)",
    .command = bar_command,
}};

static const FigureRow BAR_FIGURE = {
    .name = "test-bar",
    .options = BAR_OPTIONS,
    .n_options = ARGS_COUNT(BAR_OPTIONS),
    .options_size = sizeof(BarOptions),
    .data_size = sizeof(BarData),
    .meta_offset = offsetof(BarData, meta),
    .load = bar_load,
    .paint = bar_paint,
    .write_csv = bar_csv,
    .free = bar_free,
    .width = 800,
    .height = 600,
    .views = BAR_VIEWS,
    .n_views = ARGS_COUNT(BAR_VIEWS),
};

/* ---- the table ------------------------------------------------------------ */

/* The rows of the built-in figures, before the test's is added. */
static int n_built_in;

/* The work directory, and the test's figure added to the table. */
static int setup(void **state)
{
    (void)state;
    SrError err;
    if (viz_work_setup("test_figure_table")) return -1;
    n_built_in = figure_count();
    return figures_register(&BAR_FIGURE, &err);
}

/* The work directory removed. */
static int teardown(void **state)
{
    (void)state;
    return viz_work_teardown();
}

/* The row is in the table after the others, once; its option is one of
 * plot's, with its line; no other figure takes it. */
static void test_registered(void **state)
{
    (void)state;
    SrError err;
    assert_int_equal(figure_count(), n_built_in + 1);
    assert_ptr_equal(figure_at(n_built_in), &BAR_FIGURE);
    assert_ptr_equal(figure_find("test-bar"), &BAR_FIGURE);
    assert_int_equal(figures_register(&BAR_FIGURE, &err), -1);
    assert_string_equal(err.msg, "a figure called 'test-bar' is in the table");
    char names[512];
    figure_names(names, sizeof names);
    assert_non_null(strstr(names, ", timeline, test-bar"));
    FigureOptionTable t;
    assert_int_equal(figure_options_gather(&t, NULL, 0, &err), 0);
    assert_string_equal(t.spec[t.n - 1].name, "test-level");
    assert_string_equal(t.spec[t.n - 1].help, BAR_OPTIONS[0].help);
    assert_true(figure_takes_option(&BAR_FIGURE, "test-level"));
    assert_false(figure_takes_option(figure_find("mask"), "test-level"));
}

/* What every row promises: each option a row takes has a line of its type
 * (figure_options_gather checks it), views have unique names and keys, and
 * a view that is off without a file says what to give. */
static void test_rows_keep_their_promises(void **state)
{
    (void)state;
    SrError err;
    FigureOptionTable t;
    assert_int_equal(figure_options_gather(&t, NULL, 0, &err), 0);
    for (int v = 0; v < figure_view_count(); v++) {
        const FigureView *view = figure_view(v);
        assert_non_null(view->command);
        assert_true(figure_view_find(view->name) == v);
        if (view->source) assert_non_null(view->needs);
        for (int u = 0; u < v; u++)
            if (view->key && figure_view(u)->key == view->key) /* shared only by the views of one key's cycle */
                assert_non_null(figure_view(u)->again);
    }
}

/* Run `seqrep plot` on args (NULL-terminated, after "plot") as the CLI does;
 * its exit status. */
static int plot(const char *const *args)
{
    char *argv[16] = {"plot"};
    int argc = 1;
    while (args[argc - 1]) argv[argc] = (char *)args[argc - 1], argc++;
    return cmd_plot(argc, argv);
}

/* The first cap - 1 bytes of a file as a string in text; the file's length. */
static long file_text(const char *path, char *text, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(text, 1, cap - 1, f);
    text[n] = 0;
    long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    return len;
}

/* 1 if the files at a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca = 0, cb = 0;
    while (same && ca != EOF) {
        ca = fgetc(fa);
        cb = fgetc(fb);
        same = ca == cb;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* `seqrep plot test-bar` writes the figure, its numbers and its manifest;
 * the options of one figure are refused by the other. */
static void test_plot_serves_it(void **state)
{
    (void)state;
    char png[512];
    snprintf(png, sizeof png, "%s", in_work("bar.png"));
    assert_int_equal(plot((const char *[]){"test-bar", "--test-level", "3", "--out", png, NULL}), 0);
    char csv[64], manifest[8192];
    unsigned char head[32];
    assert_true(file_text(png, (char *)head, sizeof head) > 24); /* the row's default size: IHDR says 800 x 600 */
    assert_true(memcmp(head + 12, "IHDR", 4) == 0);
    assert_true(head[18] == 800 >> 8 && head[19] == (800 & 255) && head[22] == 600 >> 8 && head[23] == (600 & 255));
    file_text(in_work("bar.csv"), csv, sizeof csv);
    file_text(in_work("bar.manifest.json"), manifest, sizeof manifest);
    assert_string_equal(csv, "level\n3\n");
    assert_non_null(strstr(manifest, "\"figure\":\t\"test-bar\""));
    assert_non_null(strstr(manifest, "\"test_level\":\t3"));
    assert_non_null(strstr(manifest, "\"title\":\t\"A bar of 3\""));
    assert_int_equal(plot((const char *[]){"test-bar", "--test-level", "11", "--out", png, NULL}), 2);
    assert_int_equal(plot((const char *[]){"test-bar", "--n", "3", "--out", png, NULL}), 2);
    assert_int_equal(plot((const char *[]){"mask", "--n", "3", "--r", "1", "--test-level", "2", "--out", png, NULL}), 2);
}

/* The explorer's views hold the test's view, on without any file; its key
 * shows it, and the key lists name it. */
static void test_explorer_view_list(void **state)
{
    (void)state;
    static const int n_tokens[1] = {3};
    ExplorerState s;
    explorer_state_init(&s, 2, 2, 1, n_tokens, 32, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE);
    int v = explorer_view_named("test-bar");
    assert_int_equal(v, s.n_views - 1);
    assert_ptr_equal(figure_view_row(v), &BAR_FIGURE);
    assert_true(s.available[v]);
    assert_int_equal(explorer_apply_key(&s, 'Q'), EXPLORER_REDRAW);
    assert_int_equal(s.view, v);
    assert_string_equal(explorer_view_name(s.view), "test-bar");
    assert_non_null(strstr(explorer_help_text(), "\nQ       a bar as high as r (TEST FIXTURE)"));
    explorer_apply_key(&s, EXPLORER_KEY_LEFT); /* a view without layers: the keys of layers go home */
    assert_int_equal(s.view, explorer_home_view());
}

/* The explorer opened without a window on a tiny model: Q then s saves the
 * test's figure, and the plot command of `c`, run, draws the same PNG. */
static void test_explorer_saves_it(void **state)
{
    (void)state;
    char model[512], out[600];
    const char *dir = work_dir; /* the saves go there */
    snprintf(model, sizeof model, "%s", in_work("m.safetensors"));
    save_tiny_model(model);
    ExplorerOptions o = {.src = {.model = model, .text = "the red fox"}, .save_dir = dir, .width = 640,
                         .height = 480, .r = 2, .layer = -1, .head = -1, .view = explorer_view_named("attention")};
    Explorer *e = calloc(1, sizeof *e);
    SrError err;
    if (explorer_open(e, &o, &err)) fail_msg("%s", err.msg);
    e->width = o.width;
    e->height = o.height;
    explorer_apply_key(&e->st, 'Q');
    assert_int_equal(explorer_save_view(e, "png", &err), 0);
    snprintf(out, sizeof out, "%s/view.png", dir);
    PlotWords w;
    assert_int_equal(explorer_command_words(&e->st, &e->src, e->shown_sentence, e->shown_r, e->width, e->height, out,
                                            &w),
                     0);
    char line[1024];
    assert_int_equal(plot_words_line(&w, line, sizeof line), 0);
    assert_non_null(strstr(line, "seqrep plot test-bar --test-level 2 --size 640x480 --theme light --out "));
    assert_int_equal(cmd_plot(w.n - 1, w.word + 1), 0); /* after "seqrep" */
    char saved[600];
    snprintf(saved, sizeof saved, "%s/explore-0001.png", dir);
    assert_true(same_bytes(saved, out)); /* the frame is the printed command's figure */
    plot_words_free(&w);
    explorer_close(e);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered),
        cmocka_unit_test(test_rows_keep_their_promises),
        cmocka_unit_test(test_plot_serves_it),
        cmocka_unit_test(test_explorer_view_list),
        cmocka_unit_test(test_explorer_saves_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
