/* viz_fixtures.h — what the headless figure tests share (tests/unit/viz/test_viz.c,
 * tests/unit/viz/test_viz_colours.c): a temporary work directory, the attention and
 * mask fixtures, rendering to an image surface and the pixel checks. Each
 * test binary is one translation unit, so the definitions live here. */
#ifndef SEQREP_TEST_VIZ_FIXTURES_H
#define SEQREP_TEST_VIZ_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"
#include "draw/colormap.h"
#include "draw/export.h"
#include "figures/figures.h"
#include "mask/paint_mask.h"
#include "mask/paint_proportion.h"
#include "repo/paint_repo_needle.h"
#include "repo/paint_repo_range.h"
#include "repo/paint_repo_z.h"
#include "results/paint_exit.h"
#include "results/paint_flow.h"
#include "results/paint_layers.h"

/* fontconfig (under cairo's text) keeps allocations it never frees, even
 * after cairo_debug_reset_static_data; tell LeakSanitizer (ASan builds) that
 * they are not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

/* ... and not to print the table of suppressions used. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

static char work_dir[256];

/* A path inside the test's temporary directory. */
static inline const char *in_work(const char *name)
{
    static char paths[8][512];
    static int next = 0;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", work_dir, name);
    return p;
}

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Synthetic attention for 2 layers x 2 heads over n words ("a b c a ...")
 * repeated r + 1 times, bos per copy: row q's probabilities are spread
 * uniformly over its visible keys, except that head 0 of layer 0 puts
 * everything on key 0. */
static inline void make_attention_sized(AttentionData *d, int n, int r)
{
    RepeatLayout lay;
    SrError err;
    int words[32];
    for (int i = 0; i < n; i++) words[i] = 6 + i % 3;
    assert_int_equal(repeat_build(words, n, r, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    int T = lay.T, L = 2, H = 2;
    float *att = calloc((size_t)L * H * T * T, sizeof *att);
    const char *tokens[128];
    const char *names[3] = {"a", "b", "c"};
    for (int t = 0; t < T; t++) tokens[t] = lay.kind[t] == REPEAT_BOS ? "<bos>" : names[lay.word[t] % 3];
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            for (int q = 0; q < T; q++)
                for (int k = 0; k <= q; k++)
                    att[(((size_t)l * H + h) * T + q) * T + k] =
                        (l == 0 && h == 0) ? (k == 0 ? 1.0f : 0.0f) : 1.0f / (q + 1);
    MaskKind plan[2] = {MASK_CAUSAL, MASK_CAUSAL};
    assert_int_equal(attention_data_init(d, L, H, &lay, tokens, att, plan, &err), 0);
    free(att);
    repeat_free(&lay);
}

/* The small attention fixture: "a b c" twice. */
static inline void make_attention(AttentionData *d)
{
    make_attention_sized(d, 3, 1);
}

/* Render f into a new w x h image surface (caller destroys). */
static inline cairo_surface_t *render(const Figure *f, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    assert_int_equal(figure_paint(cr, f, w, h), 0);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* The colour of pixel (x, y) of an image surface as bytes. */
static inline void pixel(cairo_surface_t *s, double x, double y, unsigned char rgb[3])
{
    int ix = (int)x, iy = (int)y;
    const unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    uint32_t px;
    memcpy(&px, data + (size_t)iy * stride + 4 * (size_t)ix, 4);
    rgb[0] = (px >> 16) & 255;
    rgb[1] = (px >> 8) & 255;
    rgb[2] = px & 255;
}

/* Assert pixel (x, y) has colour c exactly. */
static inline void assert_colour(cairo_surface_t *s, double x, double y, Rgb c)
{
    unsigned char got[3], want[3];
    pixel(s, x, y, got);
    rgb_to_bytes(c, want);
    if (memcmp(got, want, 3) != 0)
        fail_msg("pixel (%.0f, %.0f) is %d,%d,%d, expected %d,%d,%d", x, y, got[0], got[1], got[2], want[0],
                 want[1], want[2]);
}

/* Pixel (x, y) is a masked cell's: the masked grey or its hatch lines. */
static inline void assert_masked(cairo_surface_t *s, double x, double y, const FigureStyle *style)
{
    unsigned char got[3], base[3], hatch[3];
    pixel(s, x, y, got);
    rgb_to_bytes(figure_masked(style), base);
    rgb_to_bytes(figure_hatch(style), hatch);
    if (memcmp(got, base, 3) != 0 && memcmp(got, hatch, 3) != 0)
        fail_msg("pixel (%.0f, %.0f) is %d,%d,%d, expected masked %d,%d,%d or hatch %d,%d,%d", x, y, got[0],
                 got[1], got[2], base[0], base[1], base[2], hatch[0], hatch[1], hatch[2]);
}

/* The pixels of [x0, x1) x [y0, y1) read as masked: at least a quarter the
 * masked grey, at least a tenth its hatch lines, and those two together at
 * least three quarters (cell separators may take the rest). */
static inline void assert_hatched(cairo_surface_t *s, int x0, int y0, int x1, int y1, const FigureStyle *style)
{
    unsigned char got[3], base[3], hatch[3];
    rgb_to_bytes(figure_masked(style), base);
    rgb_to_bytes(figure_hatch(style), hatch);
    long n = 0, n_base = 0, n_hatch = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            pixel(s, x, y, got);
            n++;
            n_base += memcmp(got, base, 3) == 0;
            n_hatch += memcmp(got, hatch, 3) == 0;
        }
    assert_true(n > 100);
    if (4 * n_base < n || 10 * n_hatch < n || 4 * (n_base + n_hatch) < 3 * n)
        fail_msg("region (%d, %d)-(%d, %d): %ld pixels, %ld masked grey, %ld hatch", x0, y0, x1, y1, n, n_base,
                 n_hatch);
}

/* Export f to path at w x h through export.h. */
static inline void export_figure(const Figure *f, const char *path, int w, int h)
{
    ExportTarget t;
    SrError err;
    if (export_open(&t, path, w, h, &err)) fail_msg("%s", err.msg);
    assert_int_equal(figure_paint(export_context(&t), f, t.width, t.height), 0);
    if (export_close(&t, &err)) fail_msg("%s", err.msg);
}

/* Make a temporary work directory (/tmp/seqrep_NAME_XXXXXX) for in_work(); 0 or -1. */
static inline int viz_work_setup(const char *name)
{
    snprintf(work_dir, sizeof work_dir, "/tmp/seqrep_%s_XXXXXX", name);
    return mkdtemp(work_dir) ? 0 : -1;
}

/* Remove the work directory and cairo's static data; 0 or -1. */
static inline int viz_work_teardown(void)
{
    test_remove_dir(work_dir);
    cairo_debug_reset_static_data();
    return 0;
}

/* A TEST FIXTURE snapshot series in folder dir (created, under the work
 * directory): series.json with steps 0, 50 and 100 (train_loss null, 6, 5)
 * and the heads-random measure of each, 2 layers x 2 heads, in the formats
 * of train-lm --snapshots and seqrep heads. induction: 0.02 everywhere at
 * step 0, L1H1 0.1 then 0.8, L1H0 0.3 at step 100; the manifests' ICL
 * score 0, 0.5, 3 (first copy 9, 8, 7; last copy 9, 7.5, 4). */
static inline void write_series_fixture(const char *dir)
{
    static const int steps[3] = {0, 50, 100};
    static const double l1h0[3] = {0.02, 0.02, 0.3}, l1h1[3] = {0.02, 0.1, 0.8};
    static const double first[3] = {9, 8, 7}, last[3] = {9, 7.5, 4};
    char path[600], text[1024];
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/series.json", dir);
    write_text(path, "{\"command\": \"seqrep train-lm TEST FIXTURE\", \"steps\": 100, \"snapshots\": ["
                     "{\"step\": 0, \"file\": \"step-000000.safetensors\", \"train_loss\": null},"
                     "{\"step\": 50, \"file\": \"step-000050.safetensors\", \"train_loss\": 6.0},"
                     "{\"step\": 100, \"file\": \"step-000100.safetensors\", \"train_loss\": 5.0}]}\n");
    snprintf(path, sizeof path, "%s/measures", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/measures/heads-random", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/measures/heads-random/step-%06d.csv", dir, steps[i]);
        snprintf(text, sizeof text, "layer,head,copy,induction,previous,sink,own_copy\n"
                 "0,0,0.1,0.020000,0.5,0.2,0.3\n0,1,0.1,0.020000,0.2,0.6,0.3\n"
                 "1,0,0.1,%.6f,0.1,0.2,0.4\n1,1,0.1,%.6f,0.1,0.1,0.5\n", l1h0[i], l1h1[i]);
        write_text(path, text);
        snprintf(path, sizeof path, "%s/measures/heads-random/step-%06d.manifest.json", dir, steps[i]);
        snprintf(text, sizeof text, "{\"command\": \"seqrep heads TEST FIXTURE\", \"random_pieces\": 30, \"r\": 1, "
                 "\"loss_first_copy\": %g, \"loss_last_copy\": %g, \"icl_score\": %g}\n", first[i], last[i],
                 first[i] - last[i]);
        write_text(path, text);
    }
}

/* The mask and attention fixtures as figures: the mask of "a b c d" three
 * times (bos per copy), the attention of "a b c" twice (overview or one map). */
static inline void make_basic_figure(Figure *f, FigureKind kind, int overview)
{
    SrError err;
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->overview = overview;
    if (kind == FIGURE_MASK)
        assert_int_equal(mask_data_build(&f->mask, 4, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &err), 0);
    else
        make_attention(&f->attention);
    snprintf(figure_meta(f)->caption, sizeof figure_meta(f)->caption, "TEST FIXTURE caption for %s",
             figure_kind_name(kind));
}

#endif
