/* test_viz_timeline.c — the timeline figure, headless: the numbers read from
 * a snapshot series (steps, every head's score per step, the coloured heads,
 * the ICL numbers, the losses) and written back, the layout (two panels on
 * one x axis, one without the heads-random measure), the pixels (the
 * coloured heads' and the ICL score's markers where their numbers put
 * them), the table of figures, an epoch series' F1 (finetune
 * --save-epochs), and one clear message for every bad input.
 *
 * The series written here are TEST FIXTURES with made-up numbers
 * (viz_fixtures.h's write_series_fixture), in the formats of train-lm
 * --snapshots and seqrep heads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "viz_fixtures.h"

#include "series/paint_timeline.h"
#include "series/series_read.h"

static int setup(void **state)
{
    (void)state;
    if (viz_work_setup("test_viz_timeline")) return -1;
    write_series_fixture(in_work("series"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return viz_work_teardown();
}

/* The request of the heads timeline of folder dir. */
static TimelineRequest heads_request(const char *dir, const char *measure, int top)
{
    return (TimelineRequest){.dir = dir, .what = TIMELINE_HEADS, .measure = measure, .score = HEAD_INDUCTION,
                             .top = top};
}

/* The numbers d writes, in a new string (caller frees). */
static char *numbers_of(const TimelineData *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    timeline_data_write_csv(d, mem);
    fclose(mem);
    return text;
}

/* ---- the numbers -------------------------------------------------------- */

static void test_timeline_heads_numbers(void **state)
{
    (void)state;
    TimelineData d;
    SrError err;
    TimelineRequest q = heads_request(in_work("series"), "heads-random", 3);
    if (timeline_data_load(&d, &q, &err)) fail_msg("%s", err.msg);
    assert_int_equal(d.n_steps, 3);
    assert_int_equal(d.step[0], 0);
    assert_int_equal(d.step[2], 100);
    assert_int_equal(d.n_layers, 2);
    assert_int_equal(d.n_heads, 2);
    assert_true(timeline_value(&d, 1, 1, 1) == 0.1);
    assert_true(timeline_value(&d, 2, 1, 1) == 0.8);
    assert_true(timeline_value(&d, 2, 1, 0) == 0.3);
    assert_true(timeline_value(&d, 0, 1, 1) == 0.02);
    /* the largest at step 100: L1H1, L1H0, then the first of the ties, L0H0 */
    assert_int_equal(d.n_top, 3);
    assert_true(d.top_layer[0] == 1 && d.top_head[0] == 1);
    assert_true(d.top_layer[1] == 1 && d.top_head[1] == 0);
    assert_true(d.top_layer[2] == 0 && d.top_head[2] == 0);
    assert_true(d.has_icl);
    assert_true(d.icl[0] == 0 && d.icl[1] == 0.5 && d.icl[2] == 3);
    assert_true(d.loss_first[1] == 8 && d.loss_last[2] == 4);
    assert_true(isnan(d.train_loss[0]) && d.train_loss[1] == 6);
    char *text = numbers_of(&d);
    assert_non_null(strstr(text, "step,series,layer,head,value\n0,heads-random/induction,0,0,0.020000\n"));
    assert_non_null(strstr(text, "\n100,heads-random/induction,1,1,0.800000\n0,icl_score,,,0.000000\n"));
    assert_non_null(strstr(text, "\n100,icl_score,,,3.000000\n"));
    int rows = 0;
    for (const char *p = text; *p; p++) rows += *p == '\n';
    assert_int_equal(rows, 1 + 3 * 4 + 3);
    free(text);
    assert_non_null(strstr(d.meta.caption, "the 3 largest at step 100 (L1H1 0.800, L1H0 0.300, L0H0 0.020)"));
    assert_non_null(strstr(d.meta.caption, "(3.000 at step 100)"));
    char label[32];
    timeline_head_label(2, 3, label, sizeof label);
    assert_string_equal(label, "L2H3");
    timeline_data_free(&d);
}

static void test_timeline_loss_numbers(void **state)
{
    (void)state;
    TimelineData d;
    SrError err;
    TimelineRequest q = {.dir = in_work("series"), .what = TIMELINE_LOSS, .measure = "heads-random", .top = 1};
    if (timeline_data_load(&d, &q, &err)) fail_msg("%s", err.msg);
    assert_null(d.value);
    char *text = numbers_of(&d);
    /* no train_loss row at step 0 (null in series.json) */
    assert_string_equal(text, "step,series,layer,head,value\n50,train_loss,,,6.000000\n100,train_loss,,,5.000000\n"
                              "0,loss_first_copy,,,9.000000\n50,loss_first_copy,,,8.000000\n"
                              "100,loss_first_copy,,,7.000000\n0,loss_last_copy,,,9.000000\n"
                              "50,loss_last_copy,,,7.500000\n100,loss_last_copy,,,4.000000\n");
    free(text);
    timeline_data_free(&d);
}

/* ---- layout and pixels ------------------------------------------------ */

/* In both themes: two panels sharing their left and right edges, the ICL
 * panel below; the marker of L1H1 (colour 0) at (100, 0.8), of L1H0
 * (colour 1) at (100, 0.3), the ICL marker at (100, 3) and (50, 0.5). */
static void test_timeline_pixels(void **state)
{
    (void)state;
    Figure f;
    SrError err;
    new_figure(&f, "timeline");
    TimelineData *d = f.data;
    TimelineRequest q = heads_request(in_work("series"), "heads-random", 2);
    if (timeline_data_load(d, &q, &err)) fail_msg("%s", err.msg);
    const int w = 1600, h = 1100;
    for (int theme = 0; theme < 2; theme++) {
        d->meta.style.theme = theme ? THEME_DARK : THEME_LIGHT;
        cairo_surface_t *img = render(&f, w, h);
        cairo_t *cr = cairo_create(img);
        TimelineLayout L;
        timeline_layout(cr, d, w, h, &L);
        cairo_destroy(cr);
        assert_int_equal(L.n_panels, 2);
        assert_true(L.upper.area.x == L.lower.area.x && L.upper.area.w == L.lower.area.w);
        assert_true(L.lower.area.y > L.upper.area.y + L.upper.area.h);
        assert_true(L.upper.area.h > L.lower.area.h);
        assert_true(L.legend_x > L.upper.area.x + L.upper.area.w);
        assert_colour(img, axes_x(&L.upper, 100), axes_y(&L.upper, 0.8), palette_series(0));
        assert_colour(img, axes_x(&L.upper, 100), axes_y(&L.upper, 0.3), palette_series(1));
        Rgb fg = figure_foreground(&d->meta.style);
        assert_colour(img, axes_x(&L.lower, 100), axes_y(&L.lower, 3), fg);
        assert_colour(img, axes_x(&L.lower, 50), axes_y(&L.lower, 0.5), fg);
        cairo_surface_destroy(img);
    }
    figure_free(&f);
}

/* Without the heads-random measure: one panel, no ICL, the caption says so. */
static void test_timeline_without_icl(void **state)
{
    (void)state;
    write_series_fixture(in_work("data_only"));
    char from[600], to[600];
    snprintf(from, sizeof from, "%s", in_work("data_only/measures/heads-random"));
    snprintf(to, sizeof to, "%s", in_work("data_only/measures/heads-data"));
    assert_int_equal(rename(from, to), 0);
    Figure f;
    SrError err;
    new_figure(&f, "timeline");
    TimelineData *d = f.data;
    TimelineRequest q = heads_request(in_work("data_only"), "heads-data", 6);
    if (timeline_data_load(d, &q, &err)) fail_msg("%s", err.msg);
    assert_false(d->has_icl);
    assert_int_equal(d->n_top, 4); /* all four heads, fewer than 6 */
    assert_non_null(strstr(d->meta.caption, "No heads-random measure: no in-context learning score."));
    cairo_surface_t *img = render(&f, 1280, 720);
    cairo_t *cr = cairo_create(img);
    TimelineLayout L;
    timeline_layout(cr, d, 1280, 720, &L);
    cairo_destroy(cr);
    assert_int_equal(L.n_panels, 1);
    assert_colour(img, axes_x(&L.upper, 100), axes_y(&L.upper, 0.8), palette_series(0));
    cairo_surface_destroy(img);
    char *text = numbers_of(d);
    assert_null(strstr(text, "icl_score"));
    assert_non_null(strstr(text, "\n50,heads-data/induction,1,1,0.100000\n"));
    free(text);
    figure_free(&f);
}

/* ---- through the table of figures -------------------------------------- */

static void test_timeline_figure_load(void **state)
{
    (void)state;
    const FigureRow *row = figure_find("timeline");
    assert_non_null(row);
    assert_true(figure_takes_option(row, "series"));
    assert_true(figure_takes_option(row, "top"));
    assert_false(figure_takes_option(row, "results"));
    assert_false(figure_takes_option(figure_find("heads"), "series"));
    Figure f;
    cJSON *manifest = cJSON_CreateObject();
    SrError err;
    if (try_load_figure(&f, "timeline", 4, (const char *[]){"--series", in_work("series"), "--score", "induction"},
                        manifest, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(((const TimelineData *)f.data)->n_top, 3); /* the default of --top */
    char *text = cJSON_PrintUnformatted(manifest);
    assert_non_null(strstr(text, "\"what\":\"heads\",\"measure\":\"heads-random\",\"score\":\"induction\","
                                 "\"top\":[\"L1H1\",\"L1H0\",\"L0H0\"],\"icl\":true"));
    assert_non_null(strstr(text, "\"series_checksum\""));
    assert_non_null(strstr(text, "step-000100.csv\",\"measure_checksum\""));
    free(text);
    double w, h;
    figure_default_size(&f, &w, &h);
    assert_true(w == 1600 && h == 1100);
    figure_free(&f);
    cJSON_Delete(manifest);
    /* the options' checks */
    static const struct {
        int n;
        const char *words[6];
        const char *want;
    } bad[] = {
        {0, {NULL}, "timeline needs --series DIR"},
        {4, {"--series", "x", "--what", "both"}, "--what must be heads, loss, f1, flow or probe, got 'both'"},
        {4, {"--series", "x", "--measure", "heads-other"}, "--measure must be heads-random or heads-data"},
        {4, {"--series", "x", "--score", "echo"}, "--score: unknown score 'echo' (scores: copy, induction"},
        {6, {"--series", "x", "--what", "loss", "--score", "copy"}, "apply to --what heads and flow only"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(try_load_figure(&f, "timeline", bad[i].n, bad[i].words, NULL, &err), -1);
        if (!strstr(err.msg, bad[i].want)) fail_msg("got '%s', wanted '%s'", err.msg, bad[i].want);
        figure_free(&f);
    }
}

/* ---- bad input ---------------------------------------------------------- */

/* Load the heads timeline of dir (heads-random, top top) and expect the error want. */
static void expect_error(const char *dir, int top, const char *want)
{
    TimelineData d;
    SrError err;
    TimelineRequest q = heads_request(dir, "heads-random", top);
    assert_int_equal(timeline_data_load(&d, &q, &err), -1);
    if (!strstr(err.msg, want)) fail_msg("%s: got '%s', wanted '%s'", dir, err.msg, want);
    assert_null(d.step);
    assert_null(d.value);
    timeline_data_free(&d); /* safe after a failure */
}

/* A fresh copy of the fixture in work folder name; returns its path. */
static const char *fresh_series(const char *name)
{
    write_series_fixture(in_work(name));
    return in_work(name);
}

static void test_timeline_bad_input(void **state)
{
    (void)state;
    char path[700], dir[600];
    expect_error(in_work("absent"), 3, "absent/series.json: cannot open");
    expect_error(in_work("series"), 7, "--top must be 1..6");
    snprintf(dir, sizeof dir, "%s", fresh_series("empty"));
    snprintf(path, sizeof path, "%s/series.json", dir);
    write_text(path, "{\"steps\": 10, \"snapshots\": []}\n");
    expect_error(dir, 3, "empty/series.json: no snapshots");
    write_text(path, "{\"other\": 1}\n");
    expect_error(dir, 3, "empty/series.json: not a snapshot series (no \"snapshots\" list)");
    write_text(path, "{\"snapshots\": [{\"step\": 50}, {\"step\": 0}]}\n");
    expect_error(dir, 3, "empty/series.json: snapshot 1: step 0 after step 50 (steps must rise)");
    snprintf(dir, sizeof dir, "%s", fresh_series("gap"));
    snprintf(path, sizeof path, "%s/measures/heads-random/step-000050.csv", dir);
    assert_int_equal(unlink(path), 0);
    expect_error(dir, 3, "gap/measures/heads-random/step-000050.csv: missing (no heads-random measure of step 50 of ");
    snprintf(dir, sizeof dir, "%s", fresh_series("shape"));
    snprintf(path, sizeof path, "%s/measures/heads-random/step-000100.csv", dir);
    write_text(path, "layer,head,copy,induction,previous,sink,own_copy\n0,0,0,0,0,0,0\n1,0,0,0,0,0,0\n"
                     "2,0,0,0,0,0,0\n");
    expect_error(dir, 3, "shape/measures/heads-random/step-000100.csv: 3 layers x 1 heads, but step-000000.csv "
                         "has 2 x 2 (another model?)");
    snprintf(dir, sizeof dir, "%s", fresh_series("noicl"));
    snprintf(path, sizeof path, "%s/measures/heads-random/step-000050.manifest.json", dir);
    write_text(path, "{\"command\": \"seqrep heads\", \"loss_first_copy\": 1, \"loss_last_copy\": 1}\n");
    expect_error(dir, 3, "noicl/measures/heads-random/step-000050.manifest.json: no number 'icl_score'");
    assert_int_equal(unlink(path), 0);
    expect_error(dir, 3, "noicl/measures/heads-random/step-000050.manifest.json: missing");
}

/* An epoch series (finetune --save-epochs): --what f1 draws its dev and test
 * F1 by epoch; a bad unit or F1, or --what f1 on a series without F1, is an
 * error naming series.json. */
static void test_timeline_epoch_series(void **state)
{
    (void)state;
    char path[700], dir[600];
    snprintf(dir, sizeof dir, "%s", in_work("epochs"));
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/series.json", dir);
    write_text(path, "{\"unit\": \"epoch\", \"steps\": 2, \"snapshots\": ["
                     "{\"step\": 0, \"train_loss\": null, \"dev_f1\": 5, \"test_f1\": 4.5},"
                     "{\"step\": 1, \"train_loss\": 1.5, \"dev_f1\": 40, \"test_f1\": 38},"
                     "{\"step\": 2, \"train_loss\": 1.25, \"dev_f1\": 55.5, \"test_f1\": 50}]}\n");
    TimelineRequest q = {.dir = dir, .what = TIMELINE_F1, .top = 3};
    TimelineData d;
    SrError err;
    assert_int_equal(timeline_data_load(&d, &q, &err), 0);
    assert_true(d.epochs);
    char *text = numbers_of(&d);
    assert_string_equal(text, "step,series,layer,head,value\n0,dev_f1,,,5.000000\n1,dev_f1,,,40.000000\n"
                              "2,dev_f1,,,55.500000\n0,test_f1,,,4.500000\n1,test_f1,,,38.000000\n"
                              "2,test_f1,,,50.000000\n");
    free(text);
    assert_non_null(strstr(d.meta.caption, "55.50 and 50.00 at epoch 2"));
    timeline_data_free(&d);
    write_text(path, "{\"unit\": \"hour\", \"snapshots\": [{\"step\": 0}]}\n");
    assert_int_equal(timeline_data_load(&d, &q, &err), -1);
    assert_non_null(strstr(err.msg, "epochs/series.json: \"unit\" must be \"step\" or \"epoch\""));
    write_text(path, "{\"snapshots\": [{\"step\": 0, \"dev_f1\": 101}]}\n");
    assert_int_equal(timeline_data_load(&d, &q, &err), -1);
    assert_non_null(strstr(err.msg, "epochs/series.json: snapshot 0: dev_f1 is not a number 0..100"));
    write_text(path, "{\"snapshots\": [{\"step\": 0}]}\n");
    assert_int_equal(timeline_data_load(&d, &q, &err), -1);
    assert_non_null(strstr(err.msg, "epochs/series.json: no dev_f1 at the last snapshot"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_heads_numbers),
        cmocka_unit_test(test_timeline_loss_numbers),
        cmocka_unit_test(test_timeline_pixels),
        cmocka_unit_test(test_timeline_without_icl),
        cmocka_unit_test(test_timeline_figure_load),
        cmocka_unit_test(test_timeline_bad_input),
        cmocka_unit_test(test_timeline_epoch_series),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
