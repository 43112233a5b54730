/* viz_fixtures.h — what the headless figure tests share (tests/unit/viz/test_viz.c,
 * tests/unit/viz/test_viz_colours.c, test_explorer_layout.c): a temporary work directory, the attention and
 * mask fixtures, the result files of the figures, rendering to an image surface and the pixel checks. Each
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
#include "figures/figure_options.h"
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
/* The numbers behind figure f (figure_write_numbers), in a new string
 * (caller frees). */
static inline char *figure_numbers_text(const Figure *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    figure_write_numbers(f, mem);
    fclose(mem);
    return text;
}

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

/* The result files of the figure tests, in the formats of the commands that
 * write them, into the work directory: flow.csv (attnflow, 3 layers x 2
 * heads), heads.csv (seqrep heads, 2 x 2), probe1.csv and probe2.csv (probe,
 * two seeds), finetune.csv (finetune with exits), z.csv (repo-positions),
 * range.csv and needle.csv (repo-eval --figures). */
static inline void write_result_fixtures(void)
{
    const char *flow =
        "layer,head,own_copy,earlier_left,same_word,earlier_right,sink\n"
        "0,0,0.30,0.20,0.10,0.15,0.25\n0,1,0.50,0.10,0.10,0.10,0.20\n"
        "1,0,0.20,0.20,0.20,0.30,0.10\n1,1,0.25,0.15,0.25,0.25,0.10\n"
        "2,0,0.10,0.10,0.50,0.20,0.10\n2,1,0.15,0.05,0.40,0.30,0.10\n";

    /* In the format of seqrep heads: 2 layers x 2 heads. */
    const char *heads =
        "layer,head,copy,induction,previous,sink,own_copy\n"
        "0,0,0.050000,0.020000,0.610000,0.300000,0.500000\n0,1,0.100000,0.050000,0.200000,0.700000,0.200000\n"
        "1,0,0.450000,0.380000,0.100000,0.200000,0.300000\n1,1,0.020000,0.900000,0.050000,0.050000,0.650000\n";

    const char *probe_seed1 =
        "r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold\n"
        "0,0,last,test,40,40,40,1,1,1\n0,1,last,test,50,50,50,1,1,1\n0,2,last,test,55,55,55,1,1,1\n"
        "1,0,last,test,44,44,44,1,1,1\n1,1,last,test,58,58,58,1,1,1\n1,2,last,test,62,62,62,1,1,1\n"
        "1,0,first,test,40,40,40,1,1,1\n1,1,first,test,49,49,49,1,1,1\n1,2,first,test,54,54,54,1,1,1\n"
        "1,2,last,dev,99,99,99,1,1,1\n";
    const char *probe_seed2 =
        "r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold\n"
        "0,0,last,test,42,42,42,1,1,1\n0,1,last,test,52,52,52,1,1,1\n0,2,last,test,57,57,57,1,1,1\n"
        "1,0,last,test,46,46,46,1,1,1\n1,1,last,test,60,60,60,1,1,1\n1,2,last,test,64,64,64,1,1,1\n"
        "1,0,first,test,41,41,41,1,1,1\n1,1,first,test,50,50,50,1,1,1\n1,2,first,test,55,55,55,1,1,1\n";

    const char *finetune =
        "method,r,exit,seed,split,precision,recall,f1,seconds,flops\n"
        "causal,0,1,1,test,40,40,40,1.0,100\ncausal,0,2,1,test,50,50,50,2.0,200\n"
        "causal,0,2,2,test,52,52,52,2.2,200\n"
        "sr,1,1,1,test,45,45,45,2.1,210\nsr,1,2,1,test,60,60,60,4.1,420\n"
        "sr,1,2,1,dev,70,70,70,4.1,420\n";

    /* RePo fixtures in the formats of repo-positions and repo-eval --figures:
     * z of one layer and head over "<bos> a b", with an outlier at index 2. */
    const char *repo_z =
        "layer,head,index,token,copy,word,z\n"
        "1,0,0,<bos>,-1,-1,0.0\n1,0,1,a,0,0,0.5\n1,0,2,b,0,1,40.0\n1,0,3,c,0,2,1.0\n1,0,4,d,0,3,1.5\n"
        "1,1,0,<bos>,-1,-1,0.0\n1,1,1,a,0,0,-0.5\n1,1,2,b,0,1,-1.0\n1,1,3,c,0,2,-1.5\n1,1,4,d,0,3,-2.0\n";
    const char *repo_range =
        "task,method,layer,length,z_range_mean,z_range_max,index_range\n"
        "kv,repo,1,16,2.0,3.0,15\nkv,repo,1,32,2.5,4.0,31\nkv,repo,2,16,1.0,1.5,15\nkv,repo,2,32,1.2,2.0,31\n";
    const char *repo_needle =
        "task,method,layer,length,needle_mass,near_mass,needle_tokens,near_tokens\n"
        "needle,rope,0,32,0.2,0.1,2,4\nneedle,rope,1,32,0.3,0.1,2,4\n"
        "needle,repo,0,32,0.25,0.05,2,4\nneedle,repo,1,32,0.5,0.02,2,4\n";

    write_text(in_work("flow.csv"), flow);
    write_text(in_work("probe1.csv"), probe_seed1);
    write_text(in_work("probe2.csv"), probe_seed2);
    write_text(in_work("finetune.csv"), finetune);
    write_text(in_work("z.csv"), repo_z);
    write_text(in_work("range.csv"), repo_range);
    write_text(in_work("needle.csv"), repo_needle);
    write_text(in_work("heads.csv"), heads);
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

/* A new figure of the row of the table called name, its data zeroed. */
static inline void new_figure(Figure *f, const char *name)
{
    SrError err;
    const FigureRow *row = figure_find(name);
    assert_non_null(row);
    assert_int_equal(figure_new(f, row, &err), 0);
}

/* Try to load the figure of the row called name from the options
 * words[0..n) (after `seqrep plot NAME`), as plot loads it, its inputs
 * recorded in manifest (may be NULL). 0 or -1 with err. */
static inline int try_load_figure(Figure *f, const char *name, int n, const char *const *words, cJSON *manifest,
                                  SrError *err)
{
    PlotWords w;
    plot_words_init(&w);
    for (int i = 0; i < n; i++) plot_words_add(&w, words[i]);
    const FigureRow *row = figure_find(name);
    assert_non_null(row);
    int rc = figure_load_words(f, row, &w, manifest, err);
    plot_words_free(&w);
    return rc;
}

/* The figure of the row called name loaded from the options words[0..n). */
static inline void load_figure(Figure *f, const char *name, int n, const char *const *words)
{
    SrError err;
    if (try_load_figure(f, name, n, words, NULL, &err)) fail_msg("%s: %s", name, err.msg);
}

/* The caption "TEST FIXTURE caption for NAME" on f. */
static inline void fixture_caption(Figure *f)
{
    snprintf(figure_meta(f)->caption, sizeof figure_meta(f)->caption, "TEST FIXTURE caption for %s", f->row->name);
}

/* The mask fixture as a figure: "a b c d" three times, bos per copy. */
static inline void make_mask_figure(Figure *f)
{
    SrError err;
    new_figure(f, "mask");
    assert_int_equal(mask_data_build(f->data, 4, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &err), 0);
    fixture_caption(f);
}

/* The attention fixture as a figure: "a b c" twice, one map or the overview. */
static inline void make_attention_figure(Figure *f, int overview)
{
    new_figure(f, "attention");
    AttentionData *d = f->data;
    make_attention(d);
    d->overview = overview;
    fixture_caption(f);
}

#endif
