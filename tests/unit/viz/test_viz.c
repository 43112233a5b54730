/* test_viz.c — the figures, headless: every figure renders to PNG, SVG and
 * PDF at two sizes; the files have the right size and magic; the images are
 * not blank; text is large enough to read; the numbers the figures are
 * drawn from; bad input fails with a clear message, never a blank image.
 * Colours at known places are tests/unit/viz/test_viz_colours.c's.
 *
 * The CSV files written here are TEST FIXTURES with made-up numbers, in the
 * formats that seqrep probe, finetune, attnflow and heads write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "viz_fixtures.h"

#include "explorer/explorer_overlays.h"
#include "repo/repo_z_attention.h"
#include "results/results_csv.h"

static int setup(void **state)
{
    (void)state;
    if (viz_work_setup("test_viz")) return -1;
    write_result_fixtures();
    write_series_fixture(in_work("series"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return viz_work_teardown();
}

/* The figures made from the fixtures, loaded from plot's options where they
 * read result files. proportion: counted for 5 tokens, r = 0..4. */
static void make_proportion(Figure *f)
{
    load_figure(f, "proportion", 4, (const char *[]){"--n", "5", "--r", "0..4"});
}

/* The attention fixture as one map. */
static void make_attention_map(Figure *f)
{
    make_attention_figure(f, 0);
}

/* The attention fixture as the layer x head overview. */
static void make_overview(Figure *f)
{
    make_attention_figure(f, 1);
}

/* layers: the two probe CSVs, the fine-tune CSV as references. */
static void make_layers(Figure *f)
{
    char probes[1100];
    snprintf(probes, sizeof probes, "%s,%s", in_work("probe1.csv"), in_work("probe2.csv"));
    load_figure(f, "layers", 4, (const char *[]){"--results", probes, "--baselines", in_work("finetune.csv")});
}

/* exit: the fine-tune CSV. */
static void make_exit(Figure *f)
{
    load_figure(f, "exit", 2, (const char *[]){"--results", in_work("finetune.csv")});
}

/* flow: the attnflow CSV, mean over heads. */
static void make_flow(Figure *f)
{
    load_figure(f, "flow", 2, (const char *[]){"--results", in_work("flow.csv")});
}

/* repo-z: the z CSV, layer 1, head 0. */
static void make_repo_z(Figure *f)
{
    load_figure(f, "repo-z", 6, (const char *[]){"--results", in_work("z.csv"), "--layer", "1", "--head", "0"});
}

/* repo-repeat straight from a forward: "a b c" twice, z = 10 c + w per head. */
static void make_repo_repeat(Figure *f)
{
    SrError err;
    AttentionData a;
    make_attention(&a);
    a.repo_z = malloc(sizeof(float) * (size_t)a.n_layers * a.T * a.n_heads);
    for (int l = 0; l < a.n_layers; l++)
        for (int t = 0; t < a.T; t++)
            for (int h = 0; h < a.n_heads; h++)
                a.repo_z[((size_t)l * a.T + t) * a.n_heads + h] = l == 0 ? NAN : (float)(10 * a.copy[t] + t % 4 + h);
    new_figure(f, "repo-repeat");
    assert_int_equal(repo_z_data_from_attention(f->data, &a, 1, 1, "TEST FIXTURE", &err), 0);
    attention_data_free(&a);
}

/* repo-range: the repo-eval range CSV. */
static void make_repo_range(Figure *f)
{
    load_figure(f, "repo-range", 2, (const char *[]){"--results", in_work("range.csv")});
}

/* repo-needle: the repo-eval needle CSV. */
static void make_repo_needle(Figure *f)
{
    load_figure(f, "repo-needle", 2, (const char *[]){"--results", in_work("needle.csv")});
}

/* heads: the CSV of seqrep heads. */
static void make_heads(Figure *f)
{
    load_figure(f, "heads", 2, (const char *[]){"--results", in_work("heads.csv")});
}

/* timeline: the series fixture, its defaults. */
static void make_timeline(Figure *f)
{
    load_figure(f, "timeline", 2, (const char *[]){"--series", in_work("series")});
}

/* A fixture of a figure of the table: its row's name and how it is made. */
typedef struct {
    const char *name;
    void (*make)(Figure *f);
} FigureFixture;

static const FigureFixture FIXTURES[] = {
    {"mask", make_mask_figure},     {"proportion", make_proportion},   {"attention", make_attention_map},
    {"attention", make_overview},   {"layers", make_layers},           {"exit", make_exit},
    {"flow", make_flow},            {"repo-z", make_repo_z},           {"repo-repeat", make_repo_repeat},
    {"repo-range", make_repo_range}, {"repo-needle", make_repo_needle}, {"heads", make_heads},
    {"timeline", make_timeline},
};
enum { N_FIXTURES = sizeof FIXTURES / sizeof FIXTURES[0] };

/* Figure i of the fixtures, with the caption "TEST FIXTURE caption for NAME". */
static void make_fixture(Figure *f, int i)
{
    FIXTURES[i].make(f);
    assert_string_equal(f->row->name, FIXTURES[i].name);
    fixture_caption(f);
}

/* The first fixture of the row called name, made into f. */
static void make_figure(Figure *f, const char *name)
{
    for (int i = 0; i < N_FIXTURES; i++)
        if (strcmp(FIXTURES[i].name, name) == 0) {
            make_fixture(f, i);
            return;
        }
    fail_msg("no fixture of figure %s", name);
}

/* Not blank: many pixels differ from the corner's background and there are
 * many distinct colours. */
static void assert_not_blank(cairo_surface_t *s)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    unsigned char bg[3], c[3];
    pixel(s, 0, 0, bg);
    long differ = 0;
    int distinct = 0;
    unsigned char seen[64][3];
    for (int y = 0; y < h; y += 2)
        for (int x = 0; x < w; x += 2) {
            pixel(s, x, y, c);
            if (memcmp(c, bg, 3) != 0) differ++;
            int known = 0;
            for (int i = 0; i < distinct && !known; i++) known = memcmp(seen[i], c, 3) == 0;
            if (!known && distinct < 64) memcpy(seen[distinct++], c, 3);
        }
    assert_true(differ > (long)(w / 2) * (h / 2) / 70); /* over 1.4% of the pixels */
    assert_true(distinct >= 8);
}

/* Width and height from a PNG file's IHDR chunk; 0 or -1. */
static int png_size(const char *path, int *w, int *h)
{
    unsigned char head[24];
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    static const unsigned char magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n != sizeof head || memcmp(head, magic, 8) != 0 || memcmp(head + 12, "IHDR", 4) != 0) return -1;
    *w = head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
    *h = head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
    return 0;
}

/* 1 if the file starts with magic (and is bigger than 200 bytes). */
static int file_starts_with(const char *path, const char *magic)
{
    char head[64] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof head - 1, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    return n > 0 && size > 200 && strncmp(head, magic, strlen(magic)) == 0;
}

/* ---- every figure, every format, two sizes ------------------------------ */

/* Every figure of the table has a fixture. */
static void test_every_figure_has_a_fixture(void **state)
{
    (void)state;
    for (int r = 0; r < figure_count(); r++) {
        int found = 0;
        for (int i = 0; i < N_FIXTURES; i++) found += strcmp(FIXTURES[i].name, figure_at(r)->name) == 0;
        if (!found) fail_msg("figure %s has no fixture in test_viz.c", figure_at(r)->name);
    }
}

static void test_every_figure_exports(void **state)
{
    (void)state;
    static const int sizes[2][2] = {{1200, 750}, {640, 480}};
    for (int i = 0; i < N_FIXTURES; i++) {
            Figure f;
            make_fixture(&f, i);
            for (int s = 0; s < 2; s++) {
                int w = sizes[s][0], h = sizes[s][1], pw, ph;
                char name[64];
                snprintf(name, sizeof name, "%s%d_%d.png", FIXTURES[i].name, i, s);
                export_figure(&f, in_work(name), w, h);
                assert_int_equal(png_size(in_work(name), &pw, &ph), 0);
                assert_int_equal(pw, w);
                assert_int_equal(ph, h);
                snprintf(name, sizeof name, "%s%d_%d.svg", FIXTURES[i].name, i, s);
                export_figure(&f, in_work(name), w, h);
                assert_true(file_starts_with(in_work(name), "<?xml"));
                snprintf(name, sizeof name, "%s%d_%d.pdf", FIXTURES[i].name, i, s);
                export_figure(&f, in_work(name), w, h);
                assert_true(file_starts_with(in_work(name), "%PDF-"));
                cairo_surface_t *img = render(&f, w, h);
                assert_not_blank(img);
                cairo_surface_destroy(img);
            }
            /* the numbers behind the figure: a header and at least one row */
            char *text = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&text, &len);
            figure_write_numbers(&f, mem);
            fclose(mem);
            assert_non_null(strchr(text, '\n'));
            assert_true(strchr(text, '\n')[1] != 0);
            free(text);
            figure_free(&f);
        }
}

/* ---- text large enough to read when projected ------------------------ */

/* Draw every figure of the fixtures (the attention overview among them) at
 * w x h and return the smallest font size any of them asked figure_font() for. */
static double smallest_text_of_every_figure(int w, int h)
{
    figure_font_smallest_reset();
    for (int i = 0; i < N_FIXTURES; i++) {
            Figure f;
            make_fixture(&f, i);
            cairo_surface_t *img = render(&f, w, h);
            cairo_surface_destroy(img);
            figure_free(&f);
        }
    return figure_font_smallest();
}

/* Every text of every figure is at least 18 px at 1280 x 720 and at least
 * FIGURE_SMALLEST_TEXT (25) px at 1600 x 1000, also with a long sentence
 * whose token labels must be thinned out; the explorer's overlays are at
 * least 18 px in a 1280 x 720 window. */
static void test_text_floor(void **state)
{
    (void)state;
    double at_lab = smallest_text_of_every_figure(1280, 720);
    print_message("smallest text at 1280x720: %.2f px\n", at_lab);
    if (at_lab < 18.0 - 1e-9) fail_msg("smallest text at 1280x720 is %.2f px", at_lab);
    double at_full = smallest_text_of_every_figure(1600, 1000);
    if (at_full < FIGURE_SMALLEST_TEXT - 1e-9) fail_msg("smallest text at 1600x1000 is %.2f px", at_full);
    /* a long sentence: thinned labels, not smaller ones */
    Figure f;
    new_figure(&f, "attention");
    make_attention_sized(f.data, 30, 3);
    figure_font_smallest_reset();
    cairo_surface_t *img = render(&f, 1280, 720);
    cairo_surface_destroy(img);
    assert_true(figure_font_smallest() >= 18.0 - 1e-9);
    AttentionLayout L;
    img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 720);
    cairo_t *cr = cairo_create(img);
    attention_layout(cr, f.data, 1280, 720, &L);
    cairo_destroy(cr);
    cairo_surface_destroy(img);
    assert_true(L.label_font >= 18.0 - 1e-9);
    assert_true(L.label_step > 1);
    assert_true(L.label_step * L.cell >= 1.1 * L.label_font - 1e-9); /* labels do not overlap */
    figure_free(&f);
    assert_true(explorer_overlay_text_size(1280, 720) >= 18.0 - 1e-9);
    assert_true(explorer_overlay_text_size(800, 600) >= 18.0 - 1e-9);
}

/* ---- the numbers the figures are drawn from ---------------------------- */

static void test_layers_mean_and_std(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, "layers");
    const LayersData *d = f.data;
    assert_int_equal(d->n_series, 3); /* r0 last, r1 last, r1 first */
    assert_int_equal(d->series[0].r, 0);
    assert_int_equal(d->series[1].copy, COPY_LAST);
    assert_int_equal(d->series[2].copy, COPY_FIRST);
    assert_int_equal(d->series[1].n, 3);
    assert_true(fabs(d->series[1].mean[2] - 63) < 1e-9);          /* (62 + 64) / 2; dev row ignored */
    assert_true(fabs(d->series[1].std[2] - sqrt(2.0)) < 1e-9);     /* sample std of 62, 64 */
    assert_int_equal(d->series[1].n_seeds[2], 2);
    assert_int_equal(d->n_baselines, 2);                           /* causal r=0, sr r=1 */
    assert_true(fabs(d->baselines[0].f1 - 51) < 1e-9);             /* deepest exit 2, seeds 50, 52 */
    assert_true(fabs(d->baselines[1].f1 - 60) < 1e-9);
    assert_int_equal(layers_colour_index(d, 0), 0);
    assert_int_equal(layers_colour_index(d, 1), 1);
    figure_free(&f);
}

static void test_exit_points_and_pareto(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, "exit");
    const ExitData *d = f.data;
    assert_int_equal(d->n_points, 4);
    assert_int_equal(d->n_series, 2);
    const ExitPoint *ref = &d->points[d->reference];
    assert_string_equal(ref->method, "causal");
    assert_int_equal(ref->exit, 2);
    assert_true(fabs(ref->f1 - 51) < 1e-9);
    assert_true(fabs(ref->rel_cost - 1) < 1e-12);
    /* causal exit 1 (cost 0.5, F1 40), causal exit 2 (1, 51), sr exit 2 (2.1, 60)
     * are on the front; sr exit 1 (1.05, 45) is beaten by causal exit 2 */
    for (int i = 0; i < d->n_points; i++) {
        const ExitPoint *p = &d->points[i];
        int expected = !(strcmp(p->method, "sr") == 0 && p->exit == 1);
        assert_int_equal(p->pareto, expected);
    }
    figure_free(&f);
}

/* z from a forward: copies, word indices and values come from the attention
 * data; layers without RePo, heads out of range and models without RePo
 * fail with a message; a z CSV clips its outlier at the fence. */
static void test_repo_z_from_forward(void **state)
{
    (void)state;
    SrError err;
    AttentionData a;
    RepoZData z;
    make_attention(&a); /* <bos> a b c <bos> a b c: T = 8, 2 layers, 2 heads */
    assert_int_equal(repo_z_data_from_attention(&z, &a, 1, 0, "x", &err), -1);
    assert_non_null(strstr(err.msg, "no RePo weights"));
    a.repo_z = malloc(sizeof(float) * (size_t)a.n_layers * a.T * a.n_heads);
    for (int l = 0; l < a.n_layers; l++)
        for (int t = 0; t < a.T; t++)
            for (int h = 0; h < a.n_heads; h++)
                a.repo_z[((size_t)l * a.T + t) * a.n_heads + h] = l == 0 ? NAN : (float)(100 * h + t);
    assert_int_equal(repo_z_data_from_attention(&z, &a, 0, 0, "x", &err), -1);
    assert_string_equal(err.msg, "layer 0 has no learned positions (RePo layers 1..1)");
    assert_int_equal(repo_z_data_from_attention(&z, &a, 1, 2, "x", &err), -1);
    assert_non_null(strstr(err.msg, "head 2 out of range 0..1"));
    assert_int_equal(repo_z_data_from_attention(&z, &a, -1, 1, "x", &err), 0);
    assert_int_equal(z.layer, 1);
    assert_int_equal(z.n, 8);
    assert_int_equal(z.n_copies, 2);
    static const int copy[8] = {-1, 0, 0, 0, -1, 1, 1, 1}, word[8] = {-1, 0, 1, 2, -1, 0, 1, 2};
    for (int t = 0; t < 8; t++) {
        assert_int_equal(z.index[t], t);
        assert_int_equal(z.copy[t], copy[t]);
        assert_int_equal(z.word[t], word[t]);
        assert_true(z.z[t] == 100 + t);
    }
    assert_string_equal(z.token[5], "a");
    assert_int_equal(z.n_clipped, 0);
    assert_non_null(strstr(z.meta.caption, "of x (an input repeated"));
    repo_z_data_free(&z);
    attention_data_free(&a);

    /* quartiles of 0, 0.5, 1, 1.5, 40 are 0.5 and 1.5: fences -1 and 3 */
    assert_int_equal(repo_z_data_load(&z, in_work("z.csv"), 1, 0, &err), 0);
    assert_int_equal(z.n_clipped, 1);
    assert_true(z.shown[2] == 3.0 && z.z[2] == 40.0);
    repo_z_data_free(&z);
}

/* Hover on the z figure: every token's point can be found under the mouse,
 * where the figure shows its filled marker (not the background), and an
 * empty corner finds none. */
static void test_repo_z_point_at(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, "repo-z"); /* 5 tokens, the third clipped */
    const int w = 900, h = 600;
    cairo_surface_t *img = render(&f, w, h);
    cairo_t *cr = cairo_create(img);
    double sx[5] = {0}, sy[5] = {0};
    int hits[5] = {0};
    for (int y = 0; y < h; y += 2)
        for (int x = 0; x < w; x += 2) {
            int i = repo_z_point_at(cr, f.data, w, h, x, y);
            assert_true(i >= -1 && i < 5);
            if (i < 0) continue;
            sx[i] += x;
            sy[i] += y;
            hits[i]++;
        }
    for (int i = 0; i < 5; i++) {
        assert_true(hits[i] > 0);
        if (i == 2) continue; /* the clipped point is a hollow triangle */
        unsigned char got[3];
        pixel(img, sx[i] / hits[i], sy[i] / hits[i], got);
        assert_false(got[0] == 255 && got[1] == 255 && got[2] == 255); /* not the background */
    }
    assert_int_equal(repo_z_point_at(cr, f.data, w, h, 2, 2), -1);
    cairo_destroy(cr);
    cairo_surface_destroy(img);
    figure_free(&f);
}

static void test_flow_mean_and_head(void **state)
{
    (void)state;
    FlowData d;
    SrError err;
    assert_int_equal(flow_data_load(&d, in_work("flow.csv"), -1, &err), 0);
    assert_int_equal(d.n_layers, 3);
    assert_int_equal(d.n_heads, 2);
    assert_true(fabs(d.share[0 * FLOW_N_CATEGORIES + FLOW_OWN_COPY] - 0.40) < 1e-9);
    flow_data_free(&d);
    assert_int_equal(flow_data_load(&d, in_work("flow.csv"), 1, &err), 0);
    assert_true(fabs(d.share[2 * FLOW_N_CATEGORIES + FLOW_SAME_WORD] - 0.40) < 1e-9);
    flow_data_free(&d);
    assert_int_equal(flow_data_load(&d, in_work("flow.csv"), 2, &err), -1);
    assert_non_null(strstr(err.msg, "head 2 out of range 0..1"));
}

/* Runs of colour c along row y of s: how many separate stretches hold it. */
static int colour_runs(cairo_surface_t *s, int y, Rgb c)
{
    unsigned char want[3], got[3];
    rgb_to_bytes(c, want);
    int runs = 0, inside = 0;
    for (int x = 0; x < cairo_image_surface_get_width(s); x++) {
        pixel(s, x, y, got);
        int hit = memcmp(got, want, 3) == 0;
        runs += hit && !inside;
        inside = hit;
    }
    return runs;
}

/* An attnflow CSV with chance levels: they are read per layer (the mean
 * over heads, each the same), written in the figure's CSV, named in the
 * caption, and drawn as a thin bar beside each layer's: a row through the
 * own-copy segments (the bottom of every bar) crosses the own-copy colour
 * twice per layer, once without the chance levels. */
static void test_flow_chance_bars(void **state)
{
    (void)state;
    write_text(in_work("flow-chance.csv"),
               "layer,head,own_copy,earlier_left,same_word,earlier_right,sink,own_copy_chance,earlier_left_chance,"
               "same_word_chance,earlier_right_chance,sink_chance\n"
               "0,0,0.30,0.20,0.10,0.15,0.25,0.40,0.20,0.10,0.20,0.10\n0,1,0.50,0.10,0.10,0.10,0.20,0.40,0.20,0.10,0.20,0.10\n"
               "1,0,0.20,0.20,0.20,0.30,0.10,0.30,0.30,0.10,0.20,0.10\n1,1,0.25,0.15,0.25,0.25,0.10,0.30,0.30,0.10,0.20,0.10\n");
    Figure f;
    load_figure(&f, "flow", 2, (const char *[]){"--results", in_work("flow-chance.csv")});
    FlowData *d = f.data;
    assert_int_equal(d->has_chance, 1);
    assert_true(fabs(d->chance[1 * FLOW_N_CATEGORIES + FLOW_EARLIER_LEFT] - 0.30) < 1e-9);
    assert_non_null(strstr(d->meta.caption, "Thin outlined bar: the shares of a uniform head"));
    char *csv = figure_numbers_text(&f);
    assert_non_null(strstr(csv, ",sink,own_copy_chance,") );
    assert_non_null(strstr(csv, "\n1,mean,0.225000,0.175000,0.225000,0.275000,0.100000,0.300000,0.300000,"));
    free(csv);
    const int w = 1600, h = 1000;
    Rgb own = flow_category_colour(FLOW_OWN_COPY);
    cairo_surface_t *img = render(&f, w, h);
    int y = 0; /* the lowest row of the own-copy colour: the bottom of the bars */
    for (int row = h - 1; row > 0 && !y; row--)
        if (colour_runs(img, row, own) > 0) y = row - 3;
    assert_int_equal(colour_runs(img, y, own), 2 * d->n_layers);
    cairo_surface_destroy(img);
    d->has_chance = 0;
    img = render(&f, w, h);
    assert_int_equal(colour_runs(img, y, own), d->n_layers);
    cairo_surface_destroy(img);
    d->has_chance = 1;
    figure_free(&f);
}

static void test_proportion_counts(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, "proportion");
    const ProportionData *d = f.data;
    assert_int_equal(d->n_points, 5);
    for (int i = 0; i < d->n_points; i++)
        assert_true(fabs(d->counted[i] - proportion_closed_form(d->r[i])) < 1e-12);
    assert_true(fabs(d->curve_share[PROPORTION_CURVE_SAMPLES - 1] - 4.0 / 6) < 1e-12);
    figure_free(&f);

    /* the same from a `seqrep blocks --format csv` style file */
    write_text(in_work("blocks.csv"), "n,r,k,T,bos,sep,full_blocks,causal_blocks\n5,0,1,5,none,none,0,1\n"
                                      "5,2,3,15,none,none,3,3\n5,1,2,10,none,none,1,2\n");
    ProportionData p;
    SrError err;
    assert_int_equal(proportion_data_load(&p, in_work("blocks.csv"), &err), 0);
    assert_int_equal(p.n_points, 3);
    assert_int_equal(p.r[1], 1); /* sorted by r */
    assert_true(fabs(p.counted[2] - 0.5) < 1e-12);
    proportion_data_free(&p);
}

/* ---- bad input ------------------------------------------------------- */

static void test_bad_input(void **state)
{
    (void)state;
    SrError err;
    /* a results file missing a column */
    write_text(in_work("noflops.csv"), "method,r,exit,seed,split,precision,recall,f1\ncausal,0,1,1,test,1,1,1\n");
    ExitData e;
    const char *noflops[1] = {in_work("noflops.csv")};
    assert_int_equal(exit_data_load(&e, noflops, 1, "flops", "test", NULL, &err), -1);
    assert_non_null(strstr(err.msg, "noflops.csv: missing column 'flops'"));
    /* a malformed row names file and line */
    write_text(in_work("short.csv"), "r,layer,copy,split,f1\n0,0,last,test,50\n0,1,last\n");
    LayersData l;
    const char *shortp[1] = {in_work("short.csv")};
    assert_int_equal(layers_data_load(&l, shortp, 1, "test", NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "short.csv:3: 3 fields, the header has 5"));
    write_text(in_work("nan.csv"), "r,layer,copy,split,f1\n0,0,last,test,abc\n");
    const char *nanp[1] = {in_work("nan.csv")};
    assert_int_equal(layers_data_load(&l, nanp, 1, "test", NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "nan.csv:2: column 'f1': 'abc' is not a number"));
    /* a split with no rows */
    const char *probe[1] = {in_work("probe1.csv")};
    assert_int_equal(layers_data_load(&l, probe, 1, "validation", NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "no rows with split 'validation'"));
    /* layer and head out of range */
    AttentionData a;
    make_attention(&a);
    assert_int_equal(attention_select(&a, 2, -1, &err), -1);
    assert_non_null(strstr(err.msg, "layer 2 out of range 0..1"));
    assert_int_equal(attention_select(&a, 0, 5, &err), -1);
    assert_non_null(strstr(err.msg, "head 5 out of range 0..1"));
    attention_data_free(&a);
    /* an unwritable output path fails before drawing and leaves nothing */
    ExportTarget t;
    assert_int_equal(export_open(&t, "/nonexistent-dir/fig.png", 800, 600, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/fig.png: cannot write"));
    assert_int_equal(export_open(&t, in_work("fig.gif"), 800, 600, &err), -1);
    assert_non_null(strstr(err.msg, "unknown figure format '.gif'"));
    assert_int_equal(export_open(&t, in_work("tiny.png"), 2, 600, &err), -1);
    /* an aborted export leaves neither the file nor its temporary */
    assert_int_equal(export_open(&t, in_work("aborted.png"), 100, 100, &err), 0);
    export_abort(&t);
    assert_int_equal(access(in_work("aborted.png"), F_OK), -1);
    /* a missing font */
    assert_int_equal(figure_check_font(FIGURE_DEFAULT_FONT, &err), 0);
    assert_int_equal(figure_check_font("No Such Font Family Seqrep", &err), -1);
    assert_non_null(strstr(err.msg, "font 'No Such Font Family Seqrep' is not installed"));
    /* a mask too large to draw */
    MaskData m;
    assert_int_equal(mask_data_build(&m, 100, 9, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0, &err), -1);
    assert_non_null(strstr(err.msg, "too many to draw"));
}

static void test_csv_reader(void **state)
{
    (void)state;
    write_text(in_work("quoted.csv"), "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\", 3 \r\n\r\n1,2,3\n");
    CsvTable t;
    SrError err;
    assert_int_equal(csv_read(in_work("quoted.csv"), &t, &err), 0);
    assert_int_equal(t.n_cols, 3);
    assert_int_equal(t.n_rows, 2);
    assert_string_equal(csv_cell(&t, 0, 0), "x, y");
    assert_string_equal(csv_cell(&t, 0, 1), "say \"hi\"");
    assert_string_equal(csv_cell(&t, 0, 2), "3");
    assert_int_equal(t.line[1], 4);
    int v;
    assert_int_equal(csv_int(&t, 1, 2, &v, &err), 0);
    assert_int_equal(v, 3);
    assert_int_equal(csv_column(&t, "c"), 2);
    assert_int_equal(csv_column(&t, "d"), -1);
    csv_free(&t);
    write_text(in_work("empty.csv"), "");
    assert_int_equal(csv_read(in_work("empty.csv"), &t, &err), -1);
    assert_non_null(strstr(err.msg, "empty file"));
    assert_int_equal(csv_read(in_work("missing.csv"), &t, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_reader),
        cmocka_unit_test(test_every_figure_has_a_fixture),
        cmocka_unit_test(test_every_figure_exports),
        cmocka_unit_test(test_text_floor),
        cmocka_unit_test(test_layers_mean_and_std),
        cmocka_unit_test(test_exit_points_and_pareto),
        cmocka_unit_test(test_flow_mean_and_head),
        cmocka_unit_test(test_flow_chance_bars),
        cmocka_unit_test(test_repo_z_from_forward),
        cmocka_unit_test(test_repo_z_point_at),
        cmocka_unit_test(test_proportion_counts),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
