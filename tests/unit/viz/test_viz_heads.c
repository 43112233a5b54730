/* test_viz_heads.c — the heads figure, headless: the numbers read from a
 * heads CSV (every layer and head in place, the best head of each score,
 * the numbers written back), the caption from the manifest of `seqrep
 * heads`, the pixels (a 1 is viridis' top colour, a 0 its bottom one, the
 * best head outlined, values printed readable, layer 0 on top, the colour
 * bar's ends) in both themes, `--scores`, and one clear message for every
 * bad file.
 *
 * The CSV files written here are TEST FIXTURES with made-up numbers, in the
 * format that `seqrep heads` writes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz_fixtures.h"

#include "results/paint_heads.h"

static const char *HEADS_HEADER = "layer,head,copy,induction,previous,sink,own_copy\n";

/* 2 layers x 3 heads, rows out of order. copy: 1 at (1, 2), 0 at (0, 0);
 * induction ties 0.5 at (0, 1) and (1, 0), the first wins; previous is 0
 * everywhere (the best is (0, 0)). */
static const char *HEADS_ROWS =
    "1,2,1.000000,0.100000,0.000000,0.200000,0.300000\n"
    "0,0,0.000000,0.100000,0.000000,0.900000,0.400000\n"
    "0,1,0.250000,0.500000,0.000000,0.100000,0.500000\n"
    "0,2,0.300000,0.200000,0.000000,0.100000,0.600000\n"
    "1,0,0.400000,0.500000,0.000000,0.100000,0.700000\n"
    "1,1,0.500000,0.300000,0.000000,0.100000,0.800000\n";

static int setup(void **state)
{
    (void)state;
    if (viz_work_setup("test_viz_heads")) return -1;
    char text[1024];
    snprintf(text, sizeof text, "%s%s", HEADS_HEADER, HEADS_ROWS);
    write_text(in_work("heads.csv"), text);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return viz_work_teardown();
}

static const HeadScore ALL_SCORES[HEAD_N_SCORES] = {HEAD_COPY, HEAD_INDUCTION, HEAD_PREVIOUS, HEAD_SINK,
                                                   HEAD_OWN_COPY};

/* Load the fixture as the figure `seqrep plot heads` draws (all scores). */
static void load_heads(Figure *f, const cJSON *manifest)
{
    SrError err;
    new_figure(f, "heads");
    if (heads_data_load(f->data, in_work("heads.csv"), ALL_SCORES, HEAD_N_SCORES, manifest, &err))
        fail_msg("%s", err.msg);
}

/* ---- the numbers -------------------------------------------------------- */

static void test_heads_numbers(void **state)
{
    (void)state;
    Figure f;
    load_heads(&f, NULL);
    HeadsData *d = f.data;
    assert_int_equal(d->n_layers, 2);
    assert_int_equal(d->n_heads, 3);
    assert_int_equal(d->n_scores, 5);
    assert_true(heads_value(d, HEAD_COPY, 1, 2) == 1.0);
    assert_true(heads_value(d, HEAD_COPY, 0, 1) == 0.25);
    assert_true(heads_value(d, HEAD_SINK, 0, 0) == 0.9);
    assert_true(heads_value(d, HEAD_OWN_COPY, 1, 1) == 0.8);
    /* the best heads: copy (1, 2); induction's tie goes to (0, 1); previous
     * all 0: (0, 0); sink (0, 0); own copy (1, 1) */
    static const int best[HEAD_N_SCORES][2] = {{1, 2}, {0, 1}, {0, 0}, {0, 0}, {1, 1}};
    for (int p = 0; p < HEAD_N_SCORES; p++) {
        assert_int_equal(d->best_layer[p], best[p][0]);
        assert_int_equal(d->best_head[p], best[p][1]);
    }
    /* the numbers written back: one row per score, layer and head */
    char *text = figure_numbers_text(&f);
    assert_non_null(strstr(text, "score,layer,head,value,best\ncopy,0,0,0.000000,0\ncopy,0,1,0.250000,0\n"));
    assert_non_null(strstr(text, "\ncopy,1,2,1.000000,1\ninduction,0,0,0.100000,0\ninduction,0,1,0.500000,1\n"));
    assert_non_null(strstr(text, "\nown_copy,1,2,0.300000,0\n"));
    int rows = 0;
    for (const char *p = text; *p; p++) rows += *p == '\n';
    assert_int_equal(rows, 1 + 5 * 6);
    free(text);
    assert_string_equal(d->meta.title, "Head roles: where each attention head looks");
    assert_non_null(strstr(d->meta.caption, "copy layer 1 head 2, 1.00; induction layer 0 head 1, 0.50"));
    figure_free(&f);
}

/* --scores: a subset in the order given, from a file with only those
 * columns; unknown, repeated and empty names fail naming the option. */
static void test_heads_scores(void **state)
{
    (void)state;
    HeadScore scores[HEAD_N_SCORES];
    int n;
    SrError err;
    assert_int_equal(head_scores_parse("sink,copy", scores, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(scores[0], HEAD_SINK);
    assert_int_equal(scores[1], HEAD_COPY);
    assert_int_equal(head_scores_parse("own_copy", scores, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(scores[0], HEAD_OWN_COPY);
    assert_int_equal(head_scores_parse("copy,echo", scores, &n, &err), -1);
    assert_string_equal(err.msg, "--scores: unknown score 'echo' (scores: copy, induction, previous, sink, own_copy)");
    assert_int_equal(head_scores_parse("copy,copy", scores, &n, &err), -1);
    assert_string_equal(err.msg, "--scores: 'copy' given twice");
    assert_int_equal(head_scores_parse("copy,", scores, &n, &err), -1);
    assert_non_null(strstr(err.msg, "--scores: an empty name in 'copy,'"));
    assert_int_equal(head_scores_parse("", scores, &n, &err), -1);

    write_text(in_work("two.csv"), "head,layer,sink,copy\n0,0,0.5,0.25\n0,1,0.75,1\n");
    HeadsData d;
    assert_int_equal(head_scores_parse("sink,copy", scores, &n, &err), 0);
    assert_int_equal(heads_data_load(&d, in_work("two.csv"), scores, n, NULL, &err), 0);
    assert_int_equal(d.n_layers, 2);
    assert_int_equal(d.n_heads, 1);
    assert_true(heads_value(&d, 0, 1, 0) == 0.75); /* panel 0 is sink */
    assert_true(heads_value(&d, 1, 1, 0) == 1.0);
    assert_non_null(strstr(d.meta.caption, "sink = to the first position; copy = "));
    heads_data_free(&d);
    /* the same file lacks the other scores */
    assert_int_equal(heads_data_load(&d, in_work("two.csv"), ALL_SCORES, HEAD_N_SCORES, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "two.csv: missing column 'induction'"));
}

/* The caption names model, r and input from the manifest of seqrep heads. */
static void test_heads_caption(void **state)
{
    (void)state;
    Figure f;
    cJSON *m = cJSON_Parse("{\"command\": \"seqrep heads\", \"model\": \"lm.safetensors\", \"r\": 1, "
                           "\"data\": \"test.conll\"}");
    load_heads(&f, m);
    assert_non_null(strstr(figure_meta(&f)->caption, "Model lm.safetensors, r = 1, input: the sentences of test.conll."));
    figure_free(&f);
    cJSON_Delete(m);
    m = cJSON_Parse("{\"command\": \"seqrep heads\", \"model\": \"hf/smol\", \"adapter\": \"sr.bin\", \"r\": 2, "
                    "\"random_pieces\": 32, \"loss_first_copy\": 6.5, \"loss_last_copy\": 1.25, \"icl_score\": 5.25}");
    load_heads(&f, m);
    assert_non_null(strstr(figure_meta(&f)->caption,
                           "Model hf/smol with the adapter sr.bin, r = 2, input: random sequences of 32 pieces "
                           "(in-context learning score 5.250: loss 6.500 on the first copy, 1.250 on the last)."));
    figure_free(&f);
    cJSON_Delete(m);
    load_heads(&f, NULL);
    assert_non_null(strstr(figure_meta(&f)->caption, "No manifest beside the file: model, r and input unknown."));
    assert_non_null(strstr(figure_meta(&f)->caption, "heads.csv (seqrep heads)."));
    figure_free(&f);
}

/* ---- pixels ------------------------------------------------------------- */

/* Count the pixels of r (inset by a quarter) with colour c. */
static long count_colour(cairo_surface_t *s, FigureRect r, Rgb c)
{
    unsigned char want[3], got[3];
    rgb_to_bytes(c, want);
    long n = 0;
    for (int y = (int)(r.y + r.h / 4); y < (int)(r.y + 3 * r.h / 4); y++)
        for (int x = (int)(r.x + r.w / 4); x < (int)(r.x + 3 * r.w / 4); x++) {
            pixel(s, x, y, got);
            n += memcmp(got, want, 3) == 0;
        }
    return n;
}

/* In both themes: the cell of copy 1 is viridis' top colour, of copy 0 its
 * bottom one (away from the printed value), its value is printed in the
 * readable colour, the best head of copy is outlined and (0, 0) is not, and
 * layer 0 lies above layer 1. */
static void test_heads_pixels(void **state)
{
    (void)state;
    Figure f;
    load_heads(&f, NULL);
    HeadsData *d = f.data;
    const int w = 2400, h = 1000;
    for (int theme = 0; theme < 2; theme++) {
        d->meta.style.theme = theme ? THEME_DARK : THEME_LIGHT;
        cairo_surface_t *img = render(&f, w, h);
        cairo_t *cr = cairo_create(img);
        HeadsLayout L;
        heads_layout(cr, d, w, h, &L);
        cairo_destroy(cr);
        assert_true(L.value_font >= FIGURE_SMALLEST_TEXT * figure_unit(w, h) - 1e-9);
        FigureRect one = heads_cell(&L, HEAD_COPY, 1, 2), zero = heads_cell(&L, HEAD_COPY, 0, 0);
        assert_true(one.y > zero.y + L.cell / 2); /* layer 1 below layer 0 */
        assert_true(one.x > zero.x + L.cell);     /* head 2 right of head 0 */
        /* colours a fifth into the cell: past the outline, above the value */
        assert_colour(img, one.x + one.w / 2, one.y + one.h / 5, colormap_viridis_entry(VIRIDIS_N - 1));
        assert_colour(img, zero.x + zero.w / 2, zero.y + zero.h / 5, colormap_viridis_entry(0));
        /* the values: dark text on yellow, light text on dark purple */
        assert_true(count_colour(img, one, rgb_bytes(0, 0, 0)) > 20);
        assert_true(count_colour(img, zero, rgb_bytes(255, 255, 255)) > 20);
        /* the outline of copy's best head, inside its cell; none around (0, 0) */
        assert_colour(img, one.x + 1, one.y + one.h / 2, heads_best_colour());
        assert_colour(img, one.x + one.w / 2, one.y + one.h - 2, heads_best_colour());
        assert_colour(img, zero.x + 1, zero.y + zero.h / 2, colormap_viridis_entry(0));
        /* the best head of sink is (0, 0) in its own panel */
        FigureRect sink = heads_cell(&L, HEAD_SINK, 0, 0);
        assert_colour(img, sink.x + 1, sink.y + sink.h / 2, heads_best_colour());
        /* the colour bar's ends */
        double cx = L.colourbar.x + L.colourbar.w / 2, band = L.colourbar.h / VIRIDIS_N;
        assert_colour(img, cx, L.colourbar.y + band / 2, colormap_viridis_entry(VIRIDIS_N - 1));
        assert_colour(img, cx, L.colourbar.y + L.colourbar.h - band / 2, colormap_viridis_entry(0));
        /* panels side by side, in the order of the scores */
        for (int p = 1; p < HEAD_N_SCORES; p++) assert_true(L.panel[p].x > L.panel[p - 1].x + L.panel[p - 1].w);
        assert_true(L.colourbar.x > L.panel[HEAD_N_SCORES - 1].x + L.panel[HEAD_N_SCORES - 1].w);
        cairo_surface_destroy(img);
    }
    figure_free(&f);
}

/* With chance levels (copy_chance 0.3 in layer 0, 0.45 in layer 1, the
 * others 0.05): the cells at or below their layer's level are flagged,
 * written with at_chance 1 and get a dot in their top left corner in the
 * colour that reads on them; a cell above it has none. */
static void test_heads_chance_dots(void **state)
{
    (void)state;
    char text[2048];
    int used = snprintf(text, sizeof text, "layer,head,copy,induction,previous,sink,own_copy,copy_chance,"
                                           "induction_chance,previous_chance,sink_chance,own_copy_chance\n");
    const char *row = HEADS_ROWS;
    for (int i = 0; i < 6; i++) {
        const char *end = strchr(row, '\n');
        double level = row[0] == '0' ? 0.30 : 0.45;
        used += snprintf(text + used, sizeof text - (size_t)used, "%.*s,%.2f,0.05,0.05,0.05,0.05\n", (int)(end - row),
                         row, level);
        row = end + 1;
    }
    write_text(in_work("heads-chance.csv"), text);
    Figure f;
    SrError err;
    new_figure(&f, "heads");
    if (heads_data_load(f.data, in_work("heads-chance.csv"), ALL_SCORES, HEAD_N_SCORES, NULL, &err))
        fail_msg("%s", err.msg);
    HeadsData *d = f.data;
    assert_int_equal(d->has_chance, 1);
    /* copy: (0, 0) 0 and (0, 2) 0.30 at or below 0.30; (0, 1) 0.25 too; (1, 0) 0.40 below 0.45; (1, 1) 0.5 above */
    assert_true(heads_at_chance(d, HEAD_COPY, 0, 0) && heads_at_chance(d, HEAD_COPY, 0, 2));
    assert_true(heads_at_chance(d, HEAD_COPY, 1, 0));
    assert_false(heads_at_chance(d, HEAD_COPY, 1, 1) || heads_at_chance(d, HEAD_COPY, 1, 2));
    assert_non_null(strstr(d->meta.caption, "A dot in a cell's corner: at or below chance"));
    char *csv = figure_numbers_text(&f);
    assert_non_null(strstr(csv, "score,layer,head,value,best,chance,at_chance\n"));
    assert_non_null(strstr(csv, "\ncopy,1,1,0.500000,0,0.450000,0\n"));
    assert_non_null(strstr(csv, "\ncopy,1,0,0.400000,0,0.450000,1\n"));
    free(csv);
    const int w = 2400, h = 1000;
    cairo_surface_t *img = render(&f, w, h);
    cairo_t *cr = cairo_create(img);
    HeadsLayout L;
    heads_layout(cr, d, w, h, &L);
    cairo_destroy(cr);
    double u = figure_unit(w, h);
    FigureRect at = heads_cell(&L, HEAD_COPY, 0, 0), above = heads_cell(&L, HEAD_COPY, 1, 1);
    double radius = fmax(1.5, fmin(6 * u, fmin(at.w, at.h) / 8));
    assert_colour(img, at.x + 2.2 * radius, at.y + 2.2 * radius, rgb_text_on(colormap_viridis(0)));
    assert_colour(img, above.x + 2.2 * radius, above.y + 2.2 * radius, colormap_viridis(0.5));
    cairo_surface_destroy(img);
    figure_free(&f);
}

/* Cells too small for their value draw none, and text never goes under the
 * floor: 30 layers x 9 heads at 1280 x 720. */
static void test_heads_small_cells(void **state)
{
    (void)state;
    FILE *out = fopen(in_work("deep.csv"), "w");
    assert_non_null(out);
    fputs(HEADS_HEADER, out);
    for (int l = 0; l < 30; l++)
        for (int hd = 0; hd < 9; hd++) fprintf(out, "%d,%d,%.6f,0.1,0.2,0.3,0.4\n", l, hd, (l * 9 + hd) / 269.0);
    fclose(out);
    Figure f;
    SrError err;
    new_figure(&f, "heads");
    HeadsData *d = f.data;
    assert_int_equal(heads_data_load(d, in_work("deep.csv"), ALL_SCORES, HEAD_N_SCORES, NULL, &err), 0);
    assert_int_equal(d->best_layer[0], 29);
    assert_int_equal(d->best_head[0], 8);
    figure_font_smallest_reset();
    cairo_surface_t *img = render(&f, 1280, 720);
    assert_true(figure_font_smallest() >= 18.0 - 1e-9);
    cairo_t *cr = cairo_create(img);
    HeadsLayout L;
    heads_layout(cr, d, 1280, 720, &L);
    cairo_destroy(cr);
    assert_true(L.value_font == 0);
    assert_true(L.panel[0].h <= 720);
    FigureRect last = heads_cell(&L, 0, 29, 8);
    assert_colour(img, last.x + last.w / 2, last.y + last.h / 2, colormap_viridis_entry(VIRIDIS_N - 1));
    cairo_surface_destroy(img);
    figure_free(&f);
}

/* ---- through the table of figures -------------------------------------- */

static void test_heads_figure_load(void **state)
{
    (void)state;
    write_text(in_work("heads.manifest.json"), "{\"command\": \"seqrep heads\", \"model\": \"m.safetensors\", "
                                               "\"r\": 1, \"data\": \"dev.conll\"}");
    const FigureRow *row = figure_find("heads");
    assert_non_null(row);
    assert_true(figure_takes_option(row, "scores"));
    assert_true(figure_takes_option(row, "results"));
    assert_false(figure_takes_option(row, "model"));
    assert_false(figure_takes_option(figure_find("flow"), "scores"));
    Figure f;
    cJSON *manifest = cJSON_CreateObject();
    SrError err;
    assert_int_equal(try_load_figure(&f, "heads", 4, (const char *[]){"--results", in_work("heads.csv"), "--scores",
                                                                      "induction,copy"}, manifest, &err), 0);
    const HeadsData *d = f.data;
    assert_int_equal(d->n_scores, 2);
    assert_int_equal(d->scores[0], HEAD_INDUCTION);
    assert_non_null(strstr(d->meta.caption, "Model m.safetensors, r = 1, input: the sentences of dev.conll."));
    char *text = cJSON_PrintUnformatted(manifest);
    assert_non_null(strstr(text, "\"scores\":[\"induction\",\"copy\"]"));
    assert_non_null(strstr(text, "\"results_manifest\":{\"command\":\"seqrep heads\""));
    assert_non_null(strstr(text, "\"results_checksum\""));
    free(text);
    double w, h;
    figure_default_size(&f, &w, &h);
    assert_true(w == 2400 && h == 1000);
    figure_free(&f);
    cJSON_Delete(manifest);
    remove(in_work("heads.manifest.json"));

    assert_int_equal(try_load_figure(&f, "heads", 0, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "heads needs --results FILE (from seqrep heads --out)");
    figure_free(&f);
    assert_int_equal(try_load_figure(&f, "heads", 4, (const char *[]){"--results", in_work("heads.csv"), "--scores",
                                                                      "copy,previous,copy"}, NULL, &err), -1);
    assert_string_equal(err.msg, "--scores: 'copy' given twice");
    figure_free(&f);
}

/* ---- bad files ---------------------------------------------------------- */

/* Load `rows` under the heads header (or `text` as it is when header is 0)
 * from NAME and expect the error `want` (a substring of the message). */
static void expect_load_error(const char *name, int header, const char *text, const char *want)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%s", header ? HEADS_HEADER : "", text);
    write_text(in_work(name), buf);
    HeadsData d;
    SrError err;
    assert_int_equal(heads_data_load(&d, in_work(name), ALL_SCORES, HEAD_N_SCORES, NULL, &err), -1);
    if (!strstr(err.msg, want)) fail_msg("%s: got '%s', wanted '%s'", name, err.msg, want);
    assert_null(d.value);
    heads_data_free(&d); /* safe after a failure */
}

static void test_heads_bad_files(void **state)
{
    (void)state;
    expect_load_error("nocol.csv", 0, "layer,head,copy,previous,sink,own_copy\n0,0,0,0,0,0\n",
                      "nocol.csv: missing column 'induction'");
    expect_load_error("nohead.csv", 0, "layer,copy,induction,previous,sink,own_copy\n0,0,0,0,0,0\n",
                      "nohead.csv: missing column 'head'");
    expect_load_error("word.csv", 1, "0,0,0.1,0.1,0.1,0.1,0.1\n0,1,abc,0.1,0.1,0.1,0.1\n",
                      "word.csv:3: column 'copy': 'abc' is not a number");
    expect_load_error("nan.csv", 1, "0,0,0.1,nan,0.1,0.1,0.1\n", "nan.csv:2: column 'induction': 'nan' is not a number");
    expect_load_error("empty_field.csv", 1, "0,0,0.1,0.1,,0.1,0.1\n",
                      "empty_field.csv:2: column 'previous': '' is not a number");
    expect_load_error("big.csv", 1, "0,0,0.1,0.1,0.1,1.5,0.1\n", "big.csv:2: column 'sink': 1.5 is outside 0..1");
    expect_load_error("neg.csv", 1, "0,0,0.1,0.1,0.1,0.1,-0.01\n",
                      "neg.csv:2: column 'own_copy': -0.01 is outside 0..1");
    expect_load_error("layer.csv", 1, "0,0,0,0,0,0,0\n1.5,0,0,0,0,0,0\n",
                      "layer.csv:3: column 'layer': '1.5' is not an integer in 0..1023");
    expect_load_error("neghead.csv", 1, "0,-1,0,0,0,0,0\n", "neghead.csv:2: column 'head': '-1' is not an integer");
    expect_load_error("twice.csv", 1, "0,0,0,0,0,0,0\n0,1,0,0,0,0,0\n\n0,1,1,1,1,1,1\n",
                      "twice.csv:5: layer 0, head 1 appears twice (first on line 3)");
    expect_load_error("gap.csv", 1, "0,0,0,0,0,0,0\n0,1,0,0,0,0,0\n1,1,0,0,0,0,0\n",
                      "gap.csv: layer 1, head 0 is missing (2 layers x 2 heads in the file)");
    expect_load_error("short.csv", 1, "0,0,0,0,0,0\n", "short.csv:2: 6 fields, the header has 7");
    expect_load_error("empty.csv", 0, "", "empty.csv: empty file");
    expect_load_error("header_only.csv", 1, "", "header_only.csv: no data rows after the header");
    HeadsData d;
    SrError err;
    assert_int_equal(heads_data_load(&d, in_work("absent.csv"), ALL_SCORES, HEAD_N_SCORES, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "absent.csv: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads_numbers),
        cmocka_unit_test(test_heads_scores),
        cmocka_unit_test(test_heads_caption),
        cmocka_unit_test(test_heads_pixels),
        cmocka_unit_test(test_heads_small_cells),
        cmocka_unit_test(test_heads_chance_dots),
        cmocka_unit_test(test_heads_figure_load),
        cmocka_unit_test(test_heads_bad_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
