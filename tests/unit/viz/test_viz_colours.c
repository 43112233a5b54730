/* test_viz_colours.c — colours where they belong, headless: a masked cell is
 * the masked grey with its hatch, a full block the full colour, a cell the
 * `b` filter hides plain grey, the colour bar's ends viridis' ends; the map
 * has no seams; the PNG on disk keeps the colours drawn; the colour tables and
 * the light theme's order in grayscale. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz_fixtures.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_image.h>
#pragma GCC diagnostic pop

static int setup(void **state)
{
    (void)state;
    return viz_work_setup("test_viz_colours");
}

static int teardown(void **state)
{
    (void)state;
    return viz_work_teardown();
}

/* ---- colours at known places ------------------------------------------- */

static void test_mask_colours(void **state)
{
    (void)state;
    Figure f;
    make_mask_figure(&f);
    MaskData *d = f.data;
    assert_int_equal(d->k, 3);
    assert_int_equal(d->n_full, 3);
    assert_int_equal(d->n_causal, 3);
    assert_int_equal(d->n_masked, 3);
    for (int s = 0; s < 2; s++) {
        int w = s ? 700 : 1500, h = s ? 540 : 1150;
        d->meta.style.theme = s ? THEME_DARK : THEME_LIGHT;
        cairo_surface_t *img = render(&f, w, h);
        cairo_t *cr = cairo_create(img);
        MaskLayout L;
        mask_layout(cr, d, w, h, &L);
        cairo_destroy(cr);
        double cs = L.cell;
        /* (query, key) cell centres: a word of copy 2 looking at copy 0 (full),
         * copy 0 at copy 2 (masked), the diagonal of copy 1 (causal), a <bos> key */
        int full_q = d->copy_start[2] + 1, full_k = d->copy_start[0] + 2;
        int masked_q = d->copy_start[0] + 1, masked_k = d->copy_start[2] + 2;
        int causal_q = d->copy_start[1] + 2, causal_k = d->copy_start[1] + 1;
        int bos_q = d->copy_start[1] + 1, bos_k = 0;
        assert_colour(img, L.grid.x + (full_k + 0.5) * cs, L.grid.y + (full_q + 0.5) * cs, mask_block_colour(BLOCK_FULL));
        assert_masked(img, L.grid.x + (masked_k + 0.5) * cs, L.grid.y + (masked_q + 0.5) * cs, &d->meta.style);
        assert_colour(img, L.grid.x + (causal_k + 0.5) * cs, L.grid.y + (causal_q + 0.5) * cs, mask_block_colour(BLOCK_CAUSAL));
        assert_colour(img, L.grid.x + (bos_k + 0.5) * cs, L.grid.y + (bos_q + 0.5) * cs, mask_special_colour());
        /* cell lookup agrees with the layout */
        /* the whole masked block (copy 0 looking at copy 2) is hatched */
        assert_hatched(img, (int)(L.grid.x + d->copy_start[2] * cs) + 2, (int)(L.grid.y + d->copy_start[0] * cs) + 2,
                       (int)(L.grid.x + (d->copy_start[2] + d->n) * cs) - 2,
                       (int)(L.grid.y + (d->copy_start[0] + d->n) * cs) - 2, &d->meta.style);
        int q, k;
        assert_int_equal(mask_cell_at(&L, d, L.grid.x + (full_k + 0.5) * cs, L.grid.y + (full_q + 0.5) * cs, &q, &k), 1);
        assert_int_equal(q, full_q);
        assert_int_equal(k, full_k);
        assert_int_equal(mask_cell_at(&L, d, L.grid.x - 5, L.grid.y, &q, &k), 0);
        cairo_surface_destroy(img);
    }
    figure_free(&f);
}

static void test_mask_png_round_trip(void **state)
{
    (void)state;
    /* the PNG on disk (straight RGBA from stb_image_write) has the colours drawn */
    Figure f;
    make_mask_figure(&f);
    MaskData *m = f.data;
    m->meta.style.theme = THEME_DARK;
    const char *path = in_work("mask_dark.png");
    export_figure(&f, path, 1200, 900);
    int w, h, channels;
    unsigned char *img = stbi_load(path, &w, &h, &channels, 4);
    assert_non_null(img);
    assert_int_equal(w, 1200);
    assert_int_equal(h, 900);
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1200, 900);
    cairo_t *cr = cairo_create(scratch);
    MaskLayout L;
    mask_layout(cr, m, 1200, 900, &L);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    int mq = m->copy_start[0], mk = m->copy_start[2] + 1;
    int x = (int)(L.grid.x + (mk + 0.5) * L.cell), y = (int)(L.grid.y + (mq + 0.5) * L.cell);
    unsigned char want[3], hatch[3];
    rgb_to_bytes(figure_masked(&m->meta.style), want);
    rgb_to_bytes(figure_hatch(&m->meta.style), hatch);
    const unsigned char *got = img + ((size_t)y * w + x) * 4;
    assert_true(memcmp(got, want, 3) == 0 || memcmp(got, hatch, 3) == 0);
    assert_int_equal(got[3], 255);
    rgb_to_bytes(figure_background(&m->meta.style), want);
    assert_memory_equal(img, want, 3); /* the corner is the dark background */
    stbi_image_free(img);
    figure_free(&f);
}

/* No seams between the cells of the attention map at size w x h: along
 * every visible query row of the first copy block, left of the copy boundary,
 * every pixel is a viridis colour. */
static void check_no_seams(const Figure *f, int w, int h)
{
    const AttentionData *d = f->data;
    cairo_surface_t *img = render(f, w, h);
    cairo_t *cr = cairo_create(img);
    AttentionLayout L;
    attention_layout(cr, d, w, h, &L);
    cairo_destroy(cr);
    double cs = L.cell;
    for (int q = d->boundary[0]; q < d->T; q++) {
        double y = L.map.y + (q + 0.5) * cs;
        for (double x = L.map.x + 2; x < L.map.x + d->boundary[0] * cs - 4; x += 1) {
            unsigned char got[3], want[3];
            pixel(img, x, y, got);
            int found = 0;
            for (int i = 0; i < VIRIDIS_N && !found; i++) {
                rgb_to_bytes(colormap_viridis_entry(i), want);
                found = memcmp(got, want, 3) == 0;
            }
            if (!found)
                fail_msg("%dx%d: pixel (%.0f, %.0f) = %d,%d,%d is no viridis colour", w, h, x, y, got[0],
                         got[1], got[2]);
        }
    }
    cairo_surface_destroy(img);
}

static void test_attention_colours(void **state)
{
    (void)state;
    Figure f;
    make_attention_figure(&f, 0);
    AttentionData *d = f.data;
    SrError err;
    assert_int_equal(attention_select(d, 0, 0, &err), 0);
    static const int sizes[3][2] = {{1300, 1100}, {1237, 1091}, {901, 777}};
    for (int si = 0; si < 3; si++) {
        int w = sizes[si][0], h = sizes[si][1];
        cairo_surface_t *img = render(&f, w, h);
        cairo_t *cr = cairo_create(img);
        AttentionLayout L;
        attention_layout(cr, d, w, h, &L);
        cairo_destroy(cr);
        double cs = L.cell;
        /* p = 1 at (query 3, key 0) is viridis' top, p = 0 at (3, 2) its bottom,
         * (0, 5) is masked */
        assert_colour(img, L.map.x + 0.5 * cs, L.map.y + 3.5 * cs, colormap_viridis_entry(255));
        assert_colour(img, L.map.x + 2.5 * cs, L.map.y + 3.5 * cs, colormap_viridis_entry(0));
        assert_masked(img, L.map.x + 5.5 * cs, L.map.y + 0.5 * cs, &d->meta.style);
        /* the colour bar's ends are the colour map's ends */
        double cx = L.colourbar.x + L.colourbar.w / 2, band = L.colourbar.h / VIRIDIS_N;
        assert_true(band >= 1.5);
        assert_colour(img, cx, L.colourbar.y + band / 2, colormap_viridis_entry(VIRIDIS_N - 1));
        assert_colour(img, cx, L.colourbar.y + L.colourbar.h - band / 2, colormap_viridis_entry(0));
        assert_hatched(img, (int)L.masked_swatch.x + 3, (int)L.masked_swatch.y + 3,
                       (int)(L.masked_swatch.x + L.masked_swatch.w) - 3,
                       (int)(L.masked_swatch.y + L.masked_swatch.h) - 3, &d->meta.style);
        int q, k;
        assert_int_equal(attention_cell_at(&L, d, L.map.x + 2.5 * cs, L.map.y + 3.5 * cs, &q, &k), 1);
        assert_int_equal(q, 3);
        assert_int_equal(k, 2);
        cairo_surface_destroy(img);
    }

    /* many tokens, fractional cell sizes */
    Figure big;
    new_figure(&big, "attention");
    make_attention_sized(big.data, 17, 2);
    for (int w = 600; w <= 1400; w += 149) check_no_seams(&big, w, w * 5 / 6);
    figure_free(&big);

    /* the mean over heads of layer 0 at (3, 0): (1 + 1/4) / 2 */
    assert_true(fabs(attention_value(d, 0, -1, 3, 0) - 0.625) < 1e-6);
    /* per-head range of layer 1, head 1: 1/8 .. 1 over visible cells */
    d->scale = SCALE_PER_HEAD;
    double lo, hi;
    attention_range(d, 1, 1, &lo, &hi);
    assert_true(fabs(lo - 1.0 / 8) < 1e-6);
    assert_true(fabs(hi - 1.0) < 1e-6);
    assert_true(fabs(attention_colour_position(d, 1.0, lo, hi) - 1.0) < 1e-9);
    /* log scale: the floor maps to 0, 1 to 1, 0.1 two thirds up */
    d->scale = SCALE_LOG;
    attention_range(d, 0, 0, &lo, &hi);
    assert_true(fabs(attention_colour_position(d, 0.0, lo, hi)) < 1e-9);
    assert_true(fabs(attention_colour_position(d, 1.0, lo, hi) - 1) < 1e-9);
    assert_true(fabs(attention_colour_position(d, 0.1, lo, hi) - 2.0 / 3) < 1e-9);
    figure_free(&f);
}

/* With the `b` filter, a cell the mask lets through but the filter hides is
 * plain grey, a masked cell hatched, a kept cell its viridis colour; the
 * caption says what plain grey means. */
static void test_attention_filtered_plain(void **state)
{
    (void)state;
    Figure f;
    make_attention_figure(&f, 0);
    AttentionData *d = f.data;
    attention_last_copy_visible(d, d->visible);
    attention_data_describe(d, 0, "m.safetensors", NULL, "0", 1, "a b c", "test", 1, REPEAT_BOS_PER_COPY,
                            REPEAT_SEP_NONE, NULL);
    assert_non_null(strstr(d->meta.caption, "plain grey cells are visible but hidden"));
    cairo_surface_t *img = render(&f, 1280, 720);
    cairo_t *cr = cairo_create(img);
    AttentionLayout L;
    attention_layout(cr, d, 1280, 720, &L);
    cairo_destroy(cr);
    double cs = L.cell;
    /* (query 3, key 0): copy 1 looking at its <bos>, hidden; (0, 5) masked;
     * (6, 1): the last copy's 'b' at copy 1's 'a', kept */
    assert_true(attention_filtered(d, d->layer, 3, 0));
    unsigned char hatch[3], got[3];
    rgb_to_bytes(figure_hatch(&d->meta.style), hatch);
    for (int y = (int)(L.map.y + 3 * cs) + 2; y < (int)(L.map.y + 4 * cs) - 2; y++)
        for (int x = (int)L.map.x + 2; x < (int)(L.map.x + cs) - 2; x++) {
            assert_colour(img, x, y, figure_masked(&d->meta.style));
            pixel(img, x, y, got);
            assert_memory_not_equal(got, hatch, 3);
        }
    assert_hatched(img, (int)(L.map.x + 5 * cs) + 2, (int)L.map.y + 2, (int)(L.map.x + 6 * cs) - 2,
                   (int)(L.map.y + cs) - 2, &d->meta.style);
    assert_true(attention_visible(d, d->layer, 6, 1));
    pixel(img, L.map.x + 1.5 * cs, L.map.y + 6.5 * cs, got);
    unsigned char grey[3];
    rgb_to_bytes(figure_masked(&d->meta.style), grey);
    assert_memory_not_equal(got, grey, 3);
    cairo_surface_destroy(img);
    figure_free(&f);
}

static void test_overview_colours(void **state)
{
    (void)state;
    Figure f;
    make_attention_figure(&f, 1);
    const AttentionData *d = f.data;
    int w = 1500, h = 1200;
    cairo_surface_t *img = render(&f, w, h);
    cairo_t *cr = cairo_create(img);
    AttentionOverviewLayout L;
    attention_overview_layout(cr, d, w, h, &L);
    cairo_destroy(cr);
    assert_int_equal(L.n_cols, 3);
    double cs = L.panel / d->T;
    /* panel (layer 0, head 0): key 0 of query 2 is 1, key 5 of query 0 masked */
    assert_colour(img, L.grid.x + 0.5 * cs, L.grid.y + 2.5 * cs, colormap_viridis_entry(255));
    assert_masked(img, L.grid.x + 5.5 * cs, L.grid.y + 0.5 * cs, &d->meta.style);
    double cx = L.colourbar.x + L.colourbar.w / 2, band = L.colourbar.h / VIRIDIS_N;
    assert_true(band >= 1.5);
    assert_colour(img, cx, L.colourbar.y + band / 2, colormap_viridis_entry(VIRIDIS_N - 1));
    assert_colour(img, cx, L.colourbar.y + L.colourbar.h - band / 2, colormap_viridis_entry(0));
    cairo_surface_destroy(img);
    figure_free(&f);
}

/* ---- colour tables and conversions ----------------------------------- */

static void test_colour_tables(void **state)
{
    (void)state;
    unsigned char b[3];
    rgb_to_bytes(colormap_viridis(0), b);
    assert_int_equal(b[0], 68);
    assert_int_equal(b[1], 1);
    assert_int_equal(b[2], 84);
    rgb_to_bytes(colormap_viridis(1), b);
    assert_int_equal(b[0], 253);
    assert_int_equal(b[1], 231);
    assert_int_equal(b[2], 37);
    rgb_to_bytes(colormap_viridis(-3), b);
    assert_int_equal(b[0], 68);
    rgb_to_bytes(palette_okabe_ito(OKABE_BLUE), b);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 114);
    assert_int_equal(b[2], 178);
    /* the masked grey is far from every viridis entry, in both themes */
    for (int theme = 0; theme < 2; theme++) {
        FigureStyle s = {theme, FIGURE_DEFAULT_FONT};
        Rgb m = figure_masked(&s);
        for (int i = 0; i < VIRIDIS_N; i++) {
            Rgb v = colormap_viridis_entry(i);
            double dist = fabs(v.r - m.r) + fabs(v.g - m.g) + fabs(v.b - m.b);
            assert_true(dist > 0.15);
        }
    }
}

/* Luminance of an sRGB colour with the Rec. 709 weights on the encoded
 * values (what a grayscale print or conversion does, roughly). */
static double luminance(Rgb c)
{
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

/* The light theme is the print theme: the heat map rises in luminance from
 * low to high, so a black-and-white print keeps its order; neighbouring parts
 * of the flow bars differ in luminance; the text is dark on white. */
static void test_light_theme_grayscale(void **state)
{
    (void)state;
    /* entry by entry within the 8-bit rounding of the table (dips of at most
     * 0.001), and strictly over every 4 entries */
    for (int i = 1; i < VIRIDIS_N; i++)
        assert_true(luminance(colormap_viridis_entry(i)) > luminance(colormap_viridis_entry(i - 1)) - 0.001);
    for (int i = 4; i < VIRIDIS_N; i++)
        assert_true(luminance(colormap_viridis_entry(i)) > luminance(colormap_viridis_entry(i - 4)) + 0.005);
    assert_true(luminance(colormap_viridis(1)) - luminance(colormap_viridis(0)) > 0.7);
    for (int c = 1; c < FLOW_N_CATEGORIES; c++) {
        double gap = fabs(luminance(flow_category_colour((FlowCategory)c)) -
                          luminance(flow_category_colour((FlowCategory)(c - 1))));
        assert_true(gap >= 0.2);
    }
    FigureStyle light = {THEME_LIGHT, FIGURE_DEFAULT_FONT};
    assert_true(luminance(figure_background(&light)) - luminance(figure_foreground(&light)) > 0.8);
    /* masked cells keep their hatch in gray, in both themes */
    for (int theme = 0; theme < 2; theme++) {
        FigureStyle s = {theme, FIGURE_DEFAULT_FONT};
        assert_true(fabs(luminance(figure_hatch(&s)) - luminance(figure_masked(&s))) >= 0.2);
    }
    assert_true(luminance(figure_background(&light)) - luminance(figure_muted(&light)) > 0.5);
}

static void test_argb_to_rgba(void **state)
{
    (void)state;
    /* opaque red, half-transparent premultiplied white, fully transparent */
    uint32_t px[3] = {0xffff0000u, 0x80808080u, 0x00000000u};
    unsigned char rgba[12];
    export_argb32_to_rgba((const unsigned char *)px, rgba, 3);
    unsigned char want[12] = {255, 0, 0, 255, 255, 255, 255, 128, 0, 0, 0, 0};
    assert_memory_equal(rgba, want, 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colour_tables),
        cmocka_unit_test(test_argb_to_rgba),
        cmocka_unit_test(test_light_theme_grayscale),
        cmocka_unit_test(test_mask_colours),
        cmocka_unit_test(test_mask_png_round_trip),
        cmocka_unit_test(test_attention_colours),
        cmocka_unit_test(test_attention_filtered_plain),
        cmocka_unit_test(test_overview_colours),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
