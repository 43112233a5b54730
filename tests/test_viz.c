/* test_viz.c — the figures, headless: every figure renders to PNG, SVG and
 * PDF at two sizes; the files have the right size and magic; the images are
 * not blank; colours sit where they belong (a masked cell is the masked grey,
 * a full block the full colour, the colour bar's ends viridis' ends); bad
 * input fails with a clear message, never a blank image.
 *
 * The CSV files written here are TEST FIXTURES with made-up numbers, in the
 * formats that seqrep probe, finetune and attnflow write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#include "colormap.h"
#include "explorer_overlays.h"
#include "export.h"
#include "figures.h"
#include "results_csv.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_image.h>
#pragma GCC diagnostic pop

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
static const char *in_work(const char *name)
{
    static char paths[8][512];
    static int next = 0;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", work_dir, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ---- fixtures --------------------------------------------------------- */

static const char *FLOW_CSV =
    "layer,head,own_copy,earlier_left,same_word,earlier_right,sink\n"
    "0,0,0.30,0.20,0.10,0.15,0.25\n0,1,0.50,0.10,0.10,0.10,0.20\n"
    "1,0,0.20,0.20,0.20,0.30,0.10\n1,1,0.25,0.15,0.25,0.25,0.10\n"
    "2,0,0.10,0.10,0.50,0.20,0.10\n2,1,0.15,0.05,0.40,0.30,0.10\n";

static const char *PROBE_SEED1 =
    "r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold\n"
    "0,0,last,test,40,40,40,1,1,1\n0,1,last,test,50,50,50,1,1,1\n0,2,last,test,55,55,55,1,1,1\n"
    "1,0,last,test,44,44,44,1,1,1\n1,1,last,test,58,58,58,1,1,1\n1,2,last,test,62,62,62,1,1,1\n"
    "1,0,first,test,40,40,40,1,1,1\n1,1,first,test,49,49,49,1,1,1\n1,2,first,test,54,54,54,1,1,1\n"
    "1,2,last,dev,99,99,99,1,1,1\n";
static const char *PROBE_SEED2 =
    "r,layer,copy,split,precision,recall,f1,tp,n_pred,n_gold\n"
    "0,0,last,test,42,42,42,1,1,1\n0,1,last,test,52,52,52,1,1,1\n0,2,last,test,57,57,57,1,1,1\n"
    "1,0,last,test,46,46,46,1,1,1\n1,1,last,test,60,60,60,1,1,1\n1,2,last,test,64,64,64,1,1,1\n"
    "1,0,first,test,41,41,41,1,1,1\n1,1,first,test,50,50,50,1,1,1\n1,2,first,test,55,55,55,1,1,1\n";

static const char *FINETUNE_CSV =
    "method,r,exit,seed,split,precision,recall,f1,seconds,flops\n"
    "causal,0,1,1,test,40,40,40,1.0,100\ncausal,0,2,1,test,50,50,50,2.0,200\n"
    "causal,0,2,2,test,52,52,52,2.2,200\n"
    "sr,1,1,1,test,45,45,45,2.1,210\nsr,1,2,1,test,60,60,60,4.1,420\n"
    "sr,1,2,1,dev,70,70,70,4.1,420\n";

/* RePo fixtures in the formats of repo-positions and repo-eval --figures:
 * z of one layer and head over "<bos> a b", with an outlier at index 2. */
static const char REPO_Z_CSV[] =
    "layer,head,index,token,copy,word,z\n"
    "1,0,0,<bos>,-1,-1,0.0\n1,0,1,a,0,0,0.5\n1,0,2,b,0,1,40.0\n1,0,3,c,0,2,1.0\n1,0,4,d,0,3,1.5\n"
    "1,1,0,<bos>,-1,-1,0.0\n1,1,1,a,0,0,-0.5\n1,1,2,b,0,1,-1.0\n1,1,3,c,0,2,-1.5\n1,1,4,d,0,3,-2.0\n";
static const char REPO_RANGE_CSV[] =
    "task,method,layer,length,z_range_mean,z_range_max,index_range\n"
    "kv,repo,1,16,2.0,3.0,15\nkv,repo,1,32,2.5,4.0,31\nkv,repo,2,16,1.0,1.5,15\nkv,repo,2,32,1.2,2.0,31\n";
static const char REPO_NEEDLE_CSV[] =
    "task,method,layer,length,needle_mass,near_mass,needle_tokens,near_tokens\n"
    "needle,rope,0,32,0.2,0.1,2,4\nneedle,rope,1,32,0.3,0.1,2,4\n"
    "needle,repo,0,32,0.25,0.05,2,4\nneedle,repo,1,32,0.5,0.02,2,4\n";

static int setup(void **state)
{
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/seqrep_test_viz_XXXXXX");
    if (!mkdtemp(work_dir)) return -1;
    write_text(in_work("flow.csv"), FLOW_CSV);
    write_text(in_work("probe1.csv"), PROBE_SEED1);
    write_text(in_work("probe2.csv"), PROBE_SEED2);
    write_text(in_work("finetune.csv"), FINETUNE_CSV);
    write_text(in_work("z.csv"), REPO_Z_CSV);
    write_text(in_work("range.csv"), REPO_RANGE_CSV);
    write_text(in_work("needle.csv"), REPO_NEEDLE_CSV);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work_dir);
    int rc = system(cmd);
    cairo_debug_reset_static_data();
    return rc == 0 ? 0 : -1;
}

/* Synthetic attention for 2 layers x 2 heads over n words ("a b c a ...")
 * repeated r + 1 times, bos per copy: row q's probabilities are spread
 * uniformly over its visible keys, except that head 0 of layer 0 puts
 * everything on key 0. */
static void make_attention_sized(AttentionData *d, int n, int r)
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
static void make_attention(AttentionData *d)
{
    make_attention_sized(d, 3, 1);
}

/* Build figure `kind` from fixtures into f. */
static void make_figure(Figure *f, FigureKind kind, int overview)
{
    SrError err;
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->overview = overview;
    const char *probes[2] = {in_work("probe1.csv"), in_work("probe2.csv")};
    const char *finetune[1] = {in_work("finetune.csv")};
    int rs[5] = {0, 1, 2, 3, 4};
    switch (kind) {
    case FIGURE_MASK:
        assert_int_equal(mask_data_build(&f->mask, 4, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, &err), 0);
        break;
    case FIGURE_PROPORTION:
        assert_int_equal(proportion_data_count(&f->proportion, 5, rs, 5, REPEAT_BOS_NONE, REPEAT_SEP_NONE, &err), 0);
        break;
    case FIGURE_ATTENTION: make_attention(&f->attention); break;
    case FIGURE_LAYERS:
        assert_int_equal(layers_data_load(&f->layers, probes, 2, "test", finetune, 1, &err), 0);
        break;
    case FIGURE_EXIT:
        assert_int_equal(exit_data_load(&f->exit, finetune, 1, "flops", "test", NULL, &err), 0);
        break;
    case FIGURE_REPO_Z:
        assert_int_equal(repo_z_data_load(&f->repo_z, in_work("z.csv"), 1, 0, &err), 0);
        break;
    case FIGURE_REPO_REPEAT: { /* straight from a forward: "a b c" twice, z = 10 c + w per head */
        AttentionData a;
        make_attention(&a);
        a.repo_z = malloc(sizeof(float) * (size_t)a.n_layers * a.T * a.n_heads);
        for (int l = 0; l < a.n_layers; l++)
            for (int t = 0; t < a.T; t++)
                for (int h = 0; h < a.n_heads; h++)
                    a.repo_z[((size_t)l * a.T + t) * a.n_heads + h] = l == 0 ? NAN : (float)(10 * a.copy[t] + t % 4 + h);
        assert_int_equal(repo_z_data_from_attention(&f->repo_z, &a, 1, 1, "TEST FIXTURE", &err), 0);
        attention_data_free(&a);
        break;
    }
    case FIGURE_REPO_RANGE:
        assert_int_equal(repo_range_data_load(&f->repo_range, in_work("range.csv"), &err), 0);
        break;
    case FIGURE_REPO_NEEDLE:
        assert_int_equal(repo_needle_data_load(&f->repo_needle, in_work("needle.csv"), 0, &err), 0);
        break;
    default: assert_int_equal(flow_data_load(&f->flow, in_work("flow.csv"), -1, &err), 0); break;
    }
    snprintf(figure_meta(f)->caption, sizeof figure_meta(f)->caption, "TEST FIXTURE caption for %s",
             figure_kind_name(kind));
}

/* Render f into a new w x h image surface (caller destroys). */
static cairo_surface_t *render(const Figure *f, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    assert_int_equal(figure_paint(cr, f, w, h), 0);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* The colour of pixel (x, y) of an image surface as bytes. */
static void pixel(cairo_surface_t *s, double x, double y, unsigned char rgb[3])
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
static void assert_colour(cairo_surface_t *s, double x, double y, Rgb c)
{
    unsigned char got[3], want[3];
    pixel(s, x, y, got);
    rgb_to_bytes(c, want);
    if (memcmp(got, want, 3) != 0)
        fail_msg("pixel (%.0f, %.0f) is %d,%d,%d, expected %d,%d,%d", x, y, got[0], got[1], got[2], want[0],
                 want[1], want[2]);
}

/* Pixel (x, y) is a masked cell's: the masked grey or its hatch lines. */
static void assert_masked(cairo_surface_t *s, double x, double y, const FigureStyle *style)
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
static void assert_hatched(cairo_surface_t *s, int x0, int y0, int x1, int y1, const FigureStyle *style)
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

/* Export f to path at w x h through export.h. */
static void export_figure(const Figure *f, const char *path, int w, int h)
{
    ExportTarget t;
    SrError err;
    if (export_open(&t, path, w, h, &err)) fail_msg("%s", err.msg);
    assert_int_equal(figure_paint(export_context(&t), f, t.width, t.height), 0);
    if (export_close(&t, &err)) fail_msg("%s", err.msg);
}

/* ---- every figure, every format, two sizes ------------------------------ */

static void test_every_figure_exports(void **state)
{
    (void)state;
    static const int sizes[2][2] = {{1200, 750}, {640, 480}};
    for (int kind = 0; kind < FIGURE_COUNT; kind++)
        for (int overview = 0; overview <= (kind == FIGURE_ATTENTION); overview++) {
            Figure f;
            make_figure(&f, kind, overview);
            for (int s = 0; s < 2; s++) {
                int w = sizes[s][0], h = sizes[s][1], pw, ph;
                char name[64];
                snprintf(name, sizeof name, "%s%d_%d.png", figure_kind_name(kind), overview, s);
                export_figure(&f, in_work(name), w, h);
                assert_int_equal(png_size(in_work(name), &pw, &ph), 0);
                assert_int_equal(pw, w);
                assert_int_equal(ph, h);
                snprintf(name, sizeof name, "%s%d_%d.svg", figure_kind_name(kind), overview, s);
                export_figure(&f, in_work(name), w, h);
                assert_true(file_starts_with(in_work(name), "<?xml"));
                snprintf(name, sizeof name, "%s%d_%d.pdf", figure_kind_name(kind), overview, s);
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

/* Draw every figure kind (and the attention overview) at w x h and return
 * the smallest font size any of them asked figure_font() for. */
static double smallest_text_of_every_figure(int w, int h)
{
    figure_font_smallest_reset();
    for (int kind = 0; kind < FIGURE_COUNT; kind++)
        for (int overview = 0; overview <= (kind == FIGURE_ATTENTION); overview++) {
            Figure f;
            make_figure(&f, kind, overview);
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
    memset(&f, 0, sizeof f);
    f.kind = FIGURE_ATTENTION;
    make_attention_sized(&f.attention, 30, 3);
    figure_font_smallest_reset();
    cairo_surface_t *img = render(&f, 1280, 720);
    cairo_surface_destroy(img);
    assert_true(figure_font_smallest() >= 18.0 - 1e-9);
    AttentionLayout L;
    img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 720);
    cairo_t *cr = cairo_create(img);
    attention_layout(cr, &f.attention, 1280, 720, &L);
    cairo_destroy(cr);
    cairo_surface_destroy(img);
    assert_true(L.label_font >= 18.0 - 1e-9);
    assert_true(L.label_step > 1);
    assert_true(L.label_step * L.cell >= 1.1 * L.label_font - 1e-9); /* labels do not overlap */
    figure_free(&f);
    assert_true(explorer_overlay_text_size(1280, 720) >= 18.0 - 1e-9);
    assert_true(explorer_overlay_text_size(800, 600) >= 18.0 - 1e-9);
}

/* ---- colours at known places ------------------------------------------- */

static void test_mask_colours(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, FIGURE_MASK, 0);
    const MaskData *d = &f.mask;
    assert_int_equal(d->k, 3);
    assert_int_equal(d->n_full, 3);
    assert_int_equal(d->n_causal, 3);
    assert_int_equal(d->n_masked, 3);
    for (int s = 0; s < 2; s++) {
        int w = s ? 700 : 1500, h = s ? 540 : 1150;
        f.mask.meta.style.theme = s ? THEME_DARK : THEME_LIGHT;
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
    make_figure(&f, FIGURE_MASK, 0);
    f.mask.meta.style.theme = THEME_DARK;
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
    mask_layout(cr, &f.mask, 1200, 900, &L);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    int mq = f.mask.copy_start[0], mk = f.mask.copy_start[2] + 1;
    int x = (int)(L.grid.x + (mk + 0.5) * L.cell), y = (int)(L.grid.y + (mq + 0.5) * L.cell);
    unsigned char want[3], hatch[3];
    rgb_to_bytes(figure_masked(&f.mask.meta.style), want);
    rgb_to_bytes(figure_hatch(&f.mask.meta.style), hatch);
    const unsigned char *got = img + ((size_t)y * w + x) * 4;
    assert_true(memcmp(got, want, 3) == 0 || memcmp(got, hatch, 3) == 0);
    assert_int_equal(got[3], 255);
    rgb_to_bytes(figure_background(&f.mask.meta.style), want);
    assert_memory_equal(img, want, 3); /* the corner is the dark background */
    stbi_image_free(img);
    figure_free(&f);
}

/* No seams between the cells of the attention map at size w x h: along
 * every visible query row of the first copy block, left of the copy boundary,
 * every pixel is a viridis colour. */
static void check_no_seams(const Figure *f, int w, int h)
{
    const AttentionData *d = &f->attention;
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
    make_figure(&f, FIGURE_ATTENTION, 0);
    AttentionData *d = &f.attention;
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
    memset(&big, 0, sizeof big);
    big.kind = FIGURE_ATTENTION;
    make_attention_sized(&big.attention, 17, 2);
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
    make_figure(&f, FIGURE_ATTENTION, 0);
    AttentionData *d = &f.attention;
    size_t n = (size_t)d->n_layers * d->T * d->T;
    uint8_t *kept = malloc(n);
    assert_non_null(kept);
    attention_last_copy_visible(d, kept);
    memcpy(d->visible, kept, n);
    free(kept);
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
    make_figure(&f, FIGURE_ATTENTION, 1);
    int w = 1500, h = 1200;
    cairo_surface_t *img = render(&f, w, h);
    cairo_t *cr = cairo_create(img);
    AttentionOverviewLayout L;
    attention_overview_layout(cr, &f.attention, w, h, &L);
    cairo_destroy(cr);
    assert_int_equal(L.n_cols, 3);
    double cs = L.panel / f.attention.T;
    /* panel (layer 0, head 0): key 0 of query 2 is 1, key 5 of query 0 masked */
    assert_colour(img, L.grid.x + 0.5 * cs, L.grid.y + 2.5 * cs, colormap_viridis_entry(255));
    assert_masked(img, L.grid.x + 5.5 * cs, L.grid.y + 0.5 * cs, &f.attention.meta.style);
    double cx = L.colourbar.x + L.colourbar.w / 2, band = L.colourbar.h / VIRIDIS_N;
    assert_true(band >= 1.5);
    assert_colour(img, cx, L.colourbar.y + band / 2, colormap_viridis_entry(VIRIDIS_N - 1));
    assert_colour(img, cx, L.colourbar.y + L.colourbar.h - band / 2, colormap_viridis_entry(0));
    cairo_surface_destroy(img);
    figure_free(&f);
}

/* ---- the numbers the figures are drawn from ---------------------------- */

static void test_layers_mean_and_std(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, FIGURE_LAYERS, 0);
    const LayersData *d = &f.layers;
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
    make_figure(&f, FIGURE_EXIT, 0);
    const ExitData *d = &f.exit;
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
    make_figure(&f, FIGURE_REPO_Z, 0); /* 5 tokens, the third clipped */
    const int w = 900, h = 600;
    cairo_surface_t *img = render(&f, w, h);
    cairo_t *cr = cairo_create(img);
    double sx[5] = {0}, sy[5] = {0};
    int hits[5] = {0};
    for (int y = 0; y < h; y += 2)
        for (int x = 0; x < w; x += 2) {
            int i = repo_z_point_at(cr, &f.repo_z, w, h, x, y);
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
    assert_int_equal(repo_z_point_at(cr, &f.repo_z, w, h, 2, 2), -1);
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

static void test_proportion_counts(void **state)
{
    (void)state;
    Figure f;
    make_figure(&f, FIGURE_PROPORTION, 0);
    const ProportionData *d = &f.proportion;
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
    assert_int_equal(mask_data_build(&m, 100, 9, REPEAT_BOS_NONE, REPEAT_SEP_NONE, &err), -1);
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
        cmocka_unit_test(test_colour_tables),
        cmocka_unit_test(test_argb_to_rgba),
        cmocka_unit_test(test_light_theme_grayscale),
        cmocka_unit_test(test_csv_reader),
        cmocka_unit_test(test_every_figure_exports),
        cmocka_unit_test(test_text_floor),
        cmocka_unit_test(test_mask_colours),
        cmocka_unit_test(test_mask_png_round_trip),
        cmocka_unit_test(test_attention_colours),
        cmocka_unit_test(test_attention_filtered_plain),
        cmocka_unit_test(test_overview_colours),
        cmocka_unit_test(test_layers_mean_and_std),
        cmocka_unit_test(test_exit_points_and_pareto),
        cmocka_unit_test(test_flow_mean_and_head),
        cmocka_unit_test(test_repo_z_from_forward),
        cmocka_unit_test(test_repo_z_point_at),
        cmocka_unit_test(test_proportion_counts),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
