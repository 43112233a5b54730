/* paint_repo.c — data loaders and painters of the RePo figures: z per token,
 * z per copy of a repeated sentence, z range against length, and attention
 * on a needle. */
#include "paint_repo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "legend.h"
#include "results_csv.h"

/* ---- shared ------------------------------------------------------------------- */

/* qsort comparison of doubles, ascending. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void repo_quartiles(const double *v, int n, double *q1, double *q3)
{
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s) {
        *q1 = *q3 = v[0];
        return;
    }
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    double at[2] = {0.25 * (n - 1), 0.75 * (n - 1)}, *out[2] = {q1, q3};
    for (int k = 0; k < 2; k++) {
        int i = (int)floor(at[k]);
        double f = at[k] - i;
        *out[k] = i + 1 < n ? s[i] * (1.0 - f) + s[i + 1] * f : s[i];
    }
    free(s);
}

/* Smallest and largest of v[0..n) (NaN skipped) into lo, hi; 0 if none. */
static int min_max(const double *v, int n, double *lo, double *hi)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(v[i])) continue;
        if (!any || v[i] < *lo) *lo = v[i];
        if (!any || v[i] > *hi) *hi = v[i];
        any = 1;
    }
    return any;
}

/* Pad [lo, hi] by 6% on both sides (or to +-1 when empty). */
static void pad_range(double *lo, double *hi)
{
    double span = *hi - *lo;
    if (!(span > 0.0)) span = fabs(*hi) > 0.0 ? fabs(*hi) : 1.0;
    *lo -= 0.06 * span;
    *hi += 0.06 * span;
}

/* Draw a one-line notice in the middle of the content area (empty data). */
static void notice(cairo_t *cr, const FigureStyle *s, double u, const FigureRect *c, const char *text)
{
    rgb_set(cr, figure_foreground(s));
    figure_font(cr, s, figure_font_size(TEXT_LABEL, u), 0);
    figure_text(cr, text, c->x + c->w / 2, c->y + c->h / 2, 0.5, 0.5);
}

/* ---- z per token ------------------------------------------------------------------ */

void repo_z_data_free(RepoZData *d)
{
    if (d->token)
        for (int i = 0; i < d->n; i++) free(d->token[i]);
    free(d->token);
    free(d->index);
    free(d->z);
    free(d->shown);
    free(d->copy);
    free(d->word);
    memset(d, 0, sizeof *d);
}

int repo_z_data_alloc(RepoZData *d, int n, int layer, int head)
{
    d->n = n;
    d->layer = layer;
    d->head = head;
    d->index = malloc(sizeof(int) * (size_t)n);
    d->copy = malloc(sizeof(int) * (size_t)n);
    d->word = malloc(sizeof(int) * (size_t)n);
    d->z = malloc(sizeof(double) * (size_t)n);
    d->shown = malloc(sizeof(double) * (size_t)n);
    d->token = calloc((size_t)n, sizeof(char *));
    return d->index && d->copy && d->word && d->z && d->shown && d->token ? 0 : -1;
}

/* One kept row of the z CSV, for sorting by index. */
typedef struct {
    int index, copy, word, row;
    double z;
} ZRow;

static int cmp_zrow(const void *a, const void *b)
{
    const ZRow *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

int repo_z_data_load(RepoZData *d, const char *path, int layer, int head, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"layer", "head", "index", "token", "copy", "word", "z"};
    int c[7];
    ZRow *rows = malloc(sizeof(ZRow) * (size_t)t.n_rows);
    int rc = rows ? csv_require(&t, cols, 7, c, err) : sr_fail(err, "%s: out of memory", path);
    int lmin = 0, lmax = -1, hmin = 0, hmax = -1, n = 0;
    for (int i = 0; i < t.n_rows && rc == 0; i++) { /* ranges first, for -1 and messages */
        int l, h;
        if (csv_int(&t, i, c[0], &l, err) || csv_int(&t, i, c[1], &h, err)) rc = -1;
        else {
            if (lmax < 0 || l < lmin) lmin = l;
            if (l > lmax) lmax = l;
            if (hmax < 0 || h < hmin) hmin = h;
            if (h > hmax) hmax = h;
        }
    }
    if (rc == 0 && layer < 0) layer = lmax;
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        int l, h;
        ZRow r = {.row = i};
        if (csv_int(&t, i, c[0], &l, err) || csv_int(&t, i, c[1], &h, err)) rc = -1;
        else if (l != layer || h != head) continue;
        else if (csv_int(&t, i, c[2], &r.index, err) || csv_int(&t, i, c[4], &r.copy, err) ||
                 csv_int(&t, i, c[5], &r.word, err) || csv_number(&t, i, c[6], &r.z, err))
            rc = -1;
        else rows[n++] = r;
    }
    if (rc == 0 && n == 0)
        rc = sr_fail(err, "%s: no rows for layer %d, head %d (layers %d..%d, heads %d..%d)", path,
                     layer, head, lmin, lmax, hmin, hmax);
    if (rc == 0) {
        qsort(rows, (size_t)n, sizeof(ZRow), cmp_zrow);
        if (repo_z_data_alloc(d, n, layer, head)) rc = sr_fail(err, "%s: out of memory", path);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        d->index[i] = rows[i].index;
        d->copy[i] = rows[i].copy;
        d->word[i] = rows[i].word;
        d->z[i] = rows[i].z;
        d->token[i] = strdup(csv_cell(&t, rows[i].row, c[3]));
        if (!d->token[i]) rc = sr_fail(err, "%s: out of memory", path);
        if (rows[i].copy + 1 > d->n_copies) d->n_copies = rows[i].copy + 1;
    }
    free(rows);
    csv_free(&t);
    if (rc) {
        repo_z_data_free(d);
        return -1;
    }
    repo_z_data_finish(d, path);
    return 0;
}

void repo_z_data_finish(RepoZData *d, const char *source)
{
    int n = d->n;
    d->n_clipped = 0;
    repo_quartiles(d->z, n, &d->q1, &d->q3);
    double iqr = d->q3 - d->q1;
    d->lo_fence = d->q1 - 1.5 * iqr;
    d->hi_fence = d->q3 + 1.5 * iqr;
    for (int i = 0; i < n; i++) {
        double v = d->z[i];
        d->shown[i] = v < d->lo_fence ? d->lo_fence : v > d->hi_fence ? d->hi_fence : v;
        d->n_clipped += d->shown[i] != v;
    }
    snprintf(d->meta.title, sizeof d->meta.title, "RePo positions z, layer %d, head %d", d->layer, d->head);
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "z of each of the %d tokens of %s%s. Values beyond 1.5 IQR of the quartiles "
             "(fences %.3g and %.3g) are clipped to the fence: %d point%s, drawn as hollow "
             "triangles.", n, source, d->n_copies >= 2 ? " (an input repeated, coloured by copy)" : "",
             d->lo_fence, d->hi_fence, d->n_clipped, d->n_clipped == 1 ? "" : "s");
}

void repo_z_data_write_csv(const RepoZData *d, FILE *out)
{
    fprintf(out, "index,token,copy,word,z,shown,clipped\n");
    for (int i = 0; i < d->n; i++) {
        const char *tok = d->token[i];
        fprintf(out, "%d,", d->index[i]);
        if (strpbrk(tok, ",\"")) {
            fputc('"', out);
            for (const char *p = tok; *p; p++) {
                if (*p == '"') fputc('"', out);
                fputc(*p, out);
            }
            fputc('"', out);
        } else {
            fputs(tok, out);
        }
        fprintf(out, ",%d,%d,%.6g,%.6g,%d\n", d->copy[i], d->word[i], d->z[i], d->shown[i],
                d->shown[i] != d->z[i]);
    }
}

/* Colour of point i of a z figure: its copy's, or muted for specials. */
static Rgb z_point_colour(const RepoZData *d, int i, const FigureStyle *s)
{
    if (d->n_copies >= 2) return d->copy[i] >= 0 ? palette_series(d->copy[i]) : figure_muted(s);
    return palette_series(0);
}

/* A clipped point: a hollow triangle pointing the way it was cut off. */
static void draw_clipped(cairo_t *cr, const RepoZData *d, int i, double x, double y, double r,
                         Rgb c, Rgb bg, double lw)
{
    MarkerKind kind = d->z[i] > d->hi_fence ? MARKER_TRIANGLE : MARKER_TRIANGLE_DOWN;
    marker_draw(cr, kind, x, y, r * 1.3, bg, c, lw);
}

/* The legend of a z figure into e (labels hold their text); returns the count. */
static int z_legend(const RepoZData *d, const FigureStyle *s, LegendEntry *e, char (*labels)[32])
{
    Rgb muted = figure_muted(s);
    int n_e = 0;
    if (d->n_copies >= 2) {
        for (int c = 0; c < d->n_copies && n_e < REPO_FIGURE_MAX_METHODS; c++) {
            snprintf(labels[n_e], sizeof labels[n_e], "copy %d", c + 1);
            e[n_e] = (LegendEntry){labels[n_e], LEGEND_MARKER, palette_series(c), MARKER_CIRCLE,
                                   DASH_SOLID, 0};
            n_e++;
        }
        e[n_e++] = (LegendEntry){"<bos> / <sep>", LEGEND_MARKER, muted, MARKER_CIRCLE, DASH_SOLID, 0};
    } else {
        e[n_e++] = (LegendEntry){"z per token", LEGEND_LINE, palette_series(0), MARKER_CIRCLE,
                                 DASH_SOLID, 0};
    }
    e[n_e++] = (LegendEntry){"clipped at 1.5 IQR", LEGEND_MARKER, figure_foreground(s),
                             MARKER_TRIANGLE, DASH_SOLID, 0};
    return n_e;
}

/* The axes of a z figure inside `content`, right of which its legend e
 * takes its room; *plot is the rest, *r the marker radius. */
static void z_axes(cairo_t *cr, const RepoZData *d, double u, FigureRect content, const LegendEntry *e,
                   int n_e, Axes *a, FigureRect *plot, double *r)
{
    const FigureStyle *s = &d->meta.style;
    *plot = legend_room(cr, s, u, e, n_e, content);
    double lo = 0.0, hi = 0.0;
    min_max(d->shown, d->n, &lo, &hi);
    pad_range(&lo, &hi);
    axes_init(a, d->index[0] - 0.5, d->index[d->n - 1] + 0.5, lo, hi, 1, 0, "token index", "position z");
    axes_fit(a, cr, s, u, *plot);
    *r = fmax(2.5 * u, fmin(8.0 * u, a->area.w / (d->n + 1) / 2.2));
}

int repo_z_point_at(cairo_t *cr, const RepoZData *d, double w, double h, double x, double y)
{
    if (d->n < 1) return -1;
    cairo_save(cr);
    double u = figure_unit(w, h);
    FigureRect content, plot;
    figure_content_rect(cr, &d->meta, w, h, &content);
    LegendEntry e[REPO_FIGURE_MAX_METHODS + 4];
    char labels[REPO_FIGURE_MAX_METHODS + 4][32];
    int n_e = z_legend(d, &d->meta.style, e, labels);
    Axes a;
    double r;
    z_axes(cr, d, u, content, e, n_e, &a, &plot, &r);
    cairo_restore(cr);
    int best = -1;
    double reach = fmax(1.5 * r, 6.0), best_d2 = reach * reach;
    for (int i = 0; i < d->n; i++) {
        double dx = axes_x(&a, d->index[i]) - x, dy = axes_y(&a, d->shown[i]) - y;
        if (dx * dx + dy * dy <= best_d2) {
            best_d2 = dx * dx + dy * dy;
            best = i;
        }
    }
    return best;
}

int paint_repo_z(cairo_t *cr, const RepoZData *d, double w, double h)
{
    cairo_save(cr);
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    FigureRect content, plot;
    figure_frame(cr, &d->meta, w, h, &content);
    Rgb bg = figure_background(s);
    if (d->n < 1) {
        notice(cr, s, u, &content, "no positions to draw");
        return figure_finish(cr);
    }
    LegendEntry e[REPO_FIGURE_MAX_METHODS + 4];
    char labels[REPO_FIGURE_MAX_METHODS + 4][32];
    int n_e = z_legend(d, s, e, labels);
    Axes a;
    double r;
    z_axes(cr, d, u, content, e, n_e, &a, &plot, &r);
    axes_draw(&a, cr, s, u);
    axes_clip(&a, cr);
    if (d->n_copies < 2) { /* one input: join the points in reading order */
        rgb_set(cr, palette_series(0));
        cairo_set_line_width(cr, 2.0 * u);
        for (int i = 0; i < d->n; i++) cairo_line_to(cr, axes_x(&a, d->index[i]), axes_y(&a, d->shown[i]));
        cairo_stroke(cr);
    }
    for (int i = 0; i < d->n; i++) {
        double x = axes_x(&a, d->index[i]), y = axes_y(&a, d->shown[i]);
        Rgb c = z_point_colour(d, i, s);
        if (d->shown[i] != d->z[i]) draw_clipped(cr, d, i, x, y, r, c, bg, 2.0 * u);
        else marker_draw(cr, MARKER_CIRCLE, x, y, r, c, bg, 1.0 * u);
    }
    cairo_restore(cr);
    cairo_save(cr);
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    cairo_restore(cr);
    return figure_finish(cr);
}

int paint_repo_repeat(cairo_t *cr, const RepoZData *d, double w, double h)
{
    cairo_save(cr);
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    FigureRect content;
    figure_frame(cr, &d->meta, w, h, &content);
    Rgb bg = figure_background(s);
    if (d->n_copies < 2 || d->n < 1) {
        notice(cr, s, u, &content, "the input was not repeated (run repo-positions with --r 1 or more)");
        return figure_finish(cr);
    }
    LegendEntry e[REPO_FIGURE_MAX_METHODS + 1];
    char labels[REPO_FIGURE_MAX_METHODS][32];
    int n_e = 0;
    for (int c = 0; c < d->n_copies && n_e < REPO_FIGURE_MAX_METHODS; c++) {
        snprintf(labels[n_e], sizeof labels[n_e], "copy %d", c + 1);
        e[n_e] = (LegendEntry){labels[n_e], LEGEND_LINE, palette_series(c), c % MARKER_COUNT,
                               (DashKind)(c % DASH_COUNT), 0};
        n_e++;
    }
    e[n_e++] = (LegendEntry){"clipped at 1.5 IQR", LEGEND_MARKER, figure_foreground(s),
                             MARKER_TRIANGLE, DASH_SOLID, 0};
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);
    int n_words = 0;
    double lo = 0.0, hi = 0.0;
    for (int i = 0; i < d->n; i++)
        if (d->word[i] + 1 > n_words) n_words = d->word[i] + 1;
    min_max(d->shown, d->n, &lo, &hi);
    pad_range(&lo, &hi);
    Axes a;
    axes_init(&a, -0.5, n_words - 0.5, lo, hi, 1, 0, "word index within the copy", "position z");
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);
    double r = fmax(3.0 * u, fmin(9.0 * u, a.area.w / (n_words + 1) / 3.0));
    axes_clip(&a, cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int c = 0; c < d->n_copies; c++) {
        rgb_set(cr, palette_series(c));
        cairo_set_line_width(cr, 3.0 * u);
        dash_set(cr, (DashKind)(c % DASH_COUNT), 3.0 * u);
        for (int i = 0; i < d->n; i++)
            if (d->copy[i] == c) cairo_line_to(cr, axes_x(&a, d->word[i]), axes_y(&a, d->shown[i]));
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    for (int i = 0; i < d->n; i++) {
        if (d->copy[i] < 0) continue;
        double x = axes_x(&a, d->word[i]), y = axes_y(&a, d->shown[i]);
        Rgb c = palette_series(d->copy[i]);
        if (d->shown[i] != d->z[i]) draw_clipped(cr, d, i, x, y, r, c, bg, 2.0 * u);
        else marker_draw(cr, d->copy[i] % MARKER_COUNT, x, y, r, c, bg, 1.0 * u);
    }
    cairo_restore(cr);
    cairo_save(cr);
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    cairo_restore(cr);
    return figure_finish(cr);
}

/* ---- range of z ------------------------------------------------------------------- */

void repo_range_data_free(RepoRangeData *d)
{
    free(d->layer);
    free(d->length);
    free(d->range);
    free(d->range_max);
    free(d->index_range);
    memset(d, 0, sizeof *d);
}

/* Insert v into the sorted set list[0..*n) (capacity cap); its index or -1. */
static int sorted_insert(int *list, int *n, int cap, int v)
{
    int i = 0;
    while (i < *n && list[i] < v) i++;
    if (i < *n && list[i] == v) return i;
    if (*n == cap) return -1;
    memmove(list + i + 1, list + i, sizeof(int) * (size_t)(*n - i));
    list[i] = v;
    (*n)++;
    return i;
}

/* Index of v in the sorted list[0..n), or -1. */
static int sorted_find(const int *list, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (list[i] == v) return i;
    return -1;
}

int repo_range_data_load(RepoRangeData *d, const char *path, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"method", "layer", "length", "z_range_mean", "z_range_max",
                                       "index_range"};
    int c[6];
    int rc = csv_require(&t, cols, 6, c, err);
    d->layer = malloc(sizeof(int) * (size_t)t.n_rows);
    d->length = malloc(sizeof(int) * (size_t)t.n_rows);
    if (rc == 0 && (!d->layer || !d->length)) rc = sr_fail(err, "%s: out of memory", path);
    for (int i = 0; i < t.n_rows && rc == 0; i++) { /* the layers and lengths present */
        int l, len;
        if (strcmp(csv_cell(&t, i, c[0]), "repo") != 0) continue;
        if (csv_int(&t, i, c[1], &l, err) || csv_int(&t, i, c[2], &len, err)) rc = -1;
        else {
            sorted_insert(d->layer, &d->n_layers, t.n_rows, l);
            sorted_insert(d->length, &d->n_lengths, t.n_rows, len);
        }
    }
    if (rc == 0 && d->n_layers == 0) rc = sr_fail(err, "%s: no rows of method repo", path);
    size_t cells = (size_t)d->n_layers * d->n_lengths;
    if (rc == 0) {
        d->range = malloc(sizeof(double) * cells);
        d->range_max = malloc(sizeof(double) * cells);
        d->index_range = malloc(sizeof(int) * (size_t)d->n_lengths);
        if (!d->range || !d->range_max || !d->index_range) rc = sr_fail(err, "%s: out of memory", path);
    }
    for (size_t k = 0; k < cells && rc == 0; k++) d->range[k] = d->range_max[k] = NAN;
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        int l, len, index_range;
        double mean, most;
        if (strcmp(csv_cell(&t, i, c[0]), "repo") != 0) continue;
        if (csv_int(&t, i, c[1], &l, err) || csv_int(&t, i, c[2], &len, err) ||
            csv_number(&t, i, c[3], &mean, err) || csv_number(&t, i, c[4], &most, err) ||
            csv_int(&t, i, c[5], &index_range, err)) {
            rc = -1;
            break;
        }
        int li = sorted_find(d->layer, d->n_layers, l), ti = sorted_find(d->length, d->n_lengths, len);
        size_t k = (size_t)li * d->n_lengths + ti;
        if (!isnan(d->range[k])) {
            rc = sr_fail(err, "%s:%d: layer %d at length %d appears twice", path, t.line[i], l, len);
            break;
        }
        d->range[k] = mean;
        d->range_max[k] = most;
        d->index_range[ti] = index_range;
    }
    csv_free(&t);
    if (rc) {
        repo_range_data_free(d);
        return -1;
    }
    snprintf(d->meta.title, sizeof d->meta.title, "Range of the RePo positions against context length");
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "max z - min z over the tokens of one input, mean over inputs and heads (solid) and "
             "the largest head (dotted), per RePo layer, from %s. RoPE spreads the same tokens "
             "over the token index, a range of length - 1.", path);
    return 0;
}

void repo_range_data_write_csv(const RepoRangeData *d, FILE *out)
{
    fprintf(out, "layer,length,z_range_mean,z_range_max,index_range\n");
    for (int l = 0; l < d->n_layers; l++)
        for (int t = 0; t < d->n_lengths; t++) {
            size_t k = (size_t)l * d->n_lengths + t;
            fprintf(out, "%d,%d,%.6g,%.6g,%d\n", d->layer[l], d->length[t], d->range[k],
                    d->range_max[k], d->index_range[t]);
        }
}

int paint_repo_range(cairo_t *cr, const RepoRangeData *d, double w, double h)
{
    cairo_save(cr);
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    FigureRect content;
    figure_frame(cr, &d->meta, w, h, &content);
    Rgb bg = figure_background(s), fg = figure_foreground(s);
    if (d->n_layers < 1 || d->n_lengths < 1) {
        notice(cr, s, u, &content, "no ranges to draw");
        return figure_finish(cr);
    }

    double lo = 0.0, hi = 0.0, lo2 = 0.0, hi2 = 0.0;
    size_t cells = (size_t)d->n_layers * d->n_lengths;
    min_max(d->range, (int)cells, &lo, &hi);
    if (min_max(d->range_max, (int)cells, &lo2, &hi2) && hi2 > hi) hi = hi2;
    /* the token index range joins the plot when it does not flatten the RePo lines */
    int max_index = 0;
    for (int t = 0; t < d->n_lengths; t++)
        if (d->index_range[t] > max_index) max_index = d->index_range[t];
    int show_index = max_index <= 4.0 * hi;
    if (show_index) hi = max_index;
    lo = 0.0;
    pad_range(&lo, &hi);
    lo = 0.0;

    LegendEntry e[REPO_FIGURE_MAX_METHODS + 3];
    char labels[REPO_FIGURE_MAX_METHODS][32], note[96];
    int n_e = 0;
    for (int l = 0; l < d->n_layers && n_e < REPO_FIGURE_MAX_METHODS; l++) {
        snprintf(labels[n_e], sizeof labels[n_e], "layer %d", d->layer[l]);
        e[n_e] = (LegendEntry){labels[n_e], LEGEND_LINE, palette_series(l), l % MARKER_COUNT,
                               DASH_SOLID, 0};
        n_e++;
    }
    e[n_e++] = (LegendEntry){"largest head", LEGEND_LINE, fg, MARKER_NONE, DASH_DOTTED, 0};
    if (show_index)
        snprintf(note, sizeof note, "token index (RoPE)");
    else
        snprintf(note, sizeof note, "token index (RoPE): %d..%d, off scale", d->index_range[0],
                 max_index);
    e[n_e++] = (LegendEntry){note, LEGEND_LINE, figure_muted(s), MARKER_NONE, DASH_DASHED, 0};
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);
    double xlo = d->length[0], xhi = d->length[d->n_lengths - 1];
    if (xhi <= xlo) xlo -= 1.0, xhi += 1.0;
    double xpad = 0.05 * (xhi - xlo);
    Axes a;
    axes_init(&a, xlo - xpad, xhi + xpad, lo, hi, 1, 0, "context length (tokens)",
              "range of z (max - min)");
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);
    axes_clip(&a, cr);
    double lw4 = 4.0 * u;
    if (show_index) {
        rgb_set(cr, figure_muted(s));
        cairo_set_line_width(cr, lw4);
        dash_set(cr, DASH_DASHED, lw4);
        for (int t = 0; t < d->n_lengths; t++)
            cairo_line_to(cr, axes_x(&a, d->length[t]), axes_y(&a, d->index_range[t]));
        cairo_stroke(cr);
    }
    for (int l = 0; l < d->n_layers; l++)
        for (int pass = 0; pass < 2; pass++) {
            const double *v = pass == 0 ? d->range : d->range_max;
            rgb_set(cr, palette_series(l));
            cairo_set_line_width(cr, pass == 0 ? lw4 : 0.6 * lw4);
            dash_set(cr, pass == 0 ? DASH_SOLID : DASH_DOTTED, lw4);
            for (int t = 0; t < d->n_lengths; t++) {
                double y = v[(size_t)l * d->n_lengths + t];
                if (isnan(y)) {
                    cairo_new_sub_path(cr);
                    continue;
                }
                cairo_line_to(cr, axes_x(&a, d->length[t]), axes_y(&a, y));
            }
            cairo_stroke(cr);
        }
    cairo_restore(cr);
    cairo_save(cr);
    for (int l = 0; l < d->n_layers; l++)
        for (int t = 0; t < d->n_lengths; t++) {
            double y = d->range[(size_t)l * d->n_lengths + t];
            if (!isnan(y))
                marker_draw(cr, l % MARKER_COUNT, axes_x(&a, d->length[t]), axes_y(&a, y), 9 * u,
                            palette_series(l), bg, 2 * u);
        }
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    cairo_restore(cr);
    return figure_finish(cr);
}

/* ---- attention on the needle --------------------------------------------------------- */

void repo_needle_data_free(RepoNeedleData *d)
{
    free(d->needle);
    free(d->near);
    memset(d, 0, sizeof *d);
}

int repo_needle_data_load(RepoNeedleData *d, const char *path, int length, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"method", "layer", "length", "needle_mass", "near_mass",
                                       "needle_tokens", "near_tokens"};
    int c[7], rc = csv_require(&t, cols, 7, c, err);
    int longest = 0;
    for (int i = 0; i < t.n_rows && rc == 0; i++) { /* the length, methods and layers */
        int len, l;
        if (csv_int(&t, i, c[2], &len, err) || csv_int(&t, i, c[1], &l, err)) rc = -1;
        else if (len > longest) longest = len;
    }
    if (rc == 0) d->length = length > 0 ? length : longest;
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        int len, l;
        csv_int(&t, i, c[2], &len, err);
        csv_int(&t, i, c[1], &l, err);
        if (len != d->length) continue;
        if (l < 0 || l > 1000)
            rc = sr_fail(err, "%s:%d: layer %d is out of range", path, t.line[i], l);
        else if (l + 1 > d->n_layers) d->n_layers = l + 1;
        const char *m = csv_cell(&t, i, c[0]);
        int found = 0;
        for (int k = 0; k < d->n_methods; k++) found |= strcmp(d->method[k], m) == 0;
        if (rc == 0 && !found) {
            if (d->n_methods == REPO_FIGURE_MAX_METHODS)
                rc = sr_fail(err, "%s: more than %d methods", path, REPO_FIGURE_MAX_METHODS);
            else snprintf(d->method[d->n_methods++], sizeof d->method[0], "%s", m);
        }
    }
    if (rc == 0 && d->n_methods == 0)
        rc = sr_fail(err, "%s: no rows at length %d", path, d->length);
    size_t cells = (size_t)d->n_methods * d->n_layers;
    if (rc == 0) {
        d->needle = malloc(sizeof(double) * cells);
        d->near = malloc(sizeof(double) * cells);
        if (!d->needle || !d->near) rc = sr_fail(err, "%s: out of memory", path);
    }
    for (size_t k = 0; k < cells && rc == 0; k++) d->needle[k] = d->near[k] = NAN;
    int counted = 0;
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        int len, l;
        double on, near, on_tokens, near_tokens;
        csv_int(&t, i, c[2], &len, err);
        if (len != d->length) continue;
        if (csv_int(&t, i, c[1], &l, err) || csv_number(&t, i, c[3], &on, err) ||
            csv_number(&t, i, c[4], &near, err) || csv_number(&t, i, c[5], &on_tokens, err) ||
            csv_number(&t, i, c[6], &near_tokens, err)) {
            rc = -1;
            break;
        }
        int m = 0;
        while (strcmp(d->method[m], csv_cell(&t, i, c[0])) != 0) m++;
        size_t k = (size_t)m * d->n_layers + l;
        if (!isnan(d->needle[k])) {
            rc = sr_fail(err, "%s:%d: method %s, layer %d at length %d appears twice", path,
                         t.line[i], d->method[m], l, len);
            break;
        }
        d->needle[k] = on_tokens > 0 ? on / on_tokens : 0.0;
        d->near[k] = near_tokens > 0 ? near / near_tokens : 0.0;
        d->needle_tokens = on_tokens;
        d->near_tokens = near_tokens;
        counted++;
    }
    if (rc == 0 && (size_t)counted != cells)
        rc = sr_fail(err, "%s: %d of the %zu (method, layer) pairs at length %d are missing", path,
                     (int)(cells - counted), cells, d->length);
    csv_free(&t);
    if (rc) {
        repo_needle_data_free(d);
        return -1;
    }
    snprintf(d->meta.title, sizeof d->meta.title,
             "Attention on the needle and next to it, context of %d tokens", d->length);
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Attention probability per token that the query's last token pays to the needle "
             "(%.0f tokens, solid) and to the tokens next to it (%.1f on average, hatched), mean "
             "over heads and inputs, per layer, from %s.", d->needle_tokens, d->near_tokens, path);
    return 0;
}

void repo_needle_data_write_csv(const RepoNeedleData *d, FILE *out)
{
    fprintf(out, "method,layer,needle_per_token,near_per_token\n");
    for (int m = 0; m < d->n_methods; m++)
        for (int l = 0; l < d->n_layers; l++) {
            size_t k = (size_t)m * d->n_layers + l;
            fprintf(out, "%s,%d,%.6g,%.6g\n", d->method[m], l, d->needle[k], d->near[k]);
        }
}

int paint_repo_needle(cairo_t *cr, const RepoNeedleData *d, double w, double h)
{
    cairo_save(cr);
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    FigureRect content;
    figure_frame(cr, &d->meta, w, h, &content);
    Rgb bg = figure_background(s), fg = figure_foreground(s);
    if (d->n_methods < 1 || d->n_layers < 1) {
        notice(cr, s, u, &content, "no attention to draw");
        return figure_finish(cr);
    }

    LegendEntry e[REPO_FIGURE_MAX_METHODS + 2];
    int n_e = 0;
    for (int m = 0; m < d->n_methods; m++)
        e[n_e++] = (LegendEntry){d->method[m], LEGEND_PATCH, palette_series(m), MARKER_NONE,
                                 DASH_SOLID, 0};
    e[n_e++] = (LegendEntry){"on the needle", LEGEND_PATCH, fg, MARKER_NONE, DASH_SOLID, 1};
    e[n_e++] = (LegendEntry){"next to it (hatched)", LEGEND_PATCH, bg, MARKER_NONE, DASH_SOLID, 1};
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);

    double lo = 0.0, hi = 0.0, lo2 = 0.0, hi2 = 0.0;
    size_t cells = (size_t)d->n_methods * d->n_layers;
    min_max(d->needle, (int)cells, &lo, &hi);
    if (min_max(d->near, (int)cells, &lo2, &hi2) && hi2 > hi) hi = hi2;
    lo = 0.0;
    if (!(hi > 0.0)) hi = 1.0;
    hi *= 1.08;
    Axes a;
    axes_init(&a, -0.5, d->n_layers - 0.5, lo, hi, 1, 0, "layer", "attention per token");
    a.n_xticks = 0;
    for (int l = 0; l < d->n_layers && l < AXES_MAX_TICKS; l++) a.xticks[a.n_xticks++] = l;
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);
    double group = axes_x(&a, 1.0) - axes_x(&a, 0.0);
    double bar = 0.8 * group / (2 * d->n_methods);
    for (int l = 0; l < d->n_layers; l++)
        for (int m = 0; m < d->n_methods; m++)
            for (int kind = 0; kind < 2; kind++) {
                size_t k = (size_t)m * d->n_layers + l;
                double v = kind == 0 ? d->needle[k] : d->near[k];
                double x = axes_x(&a, l) - 0.4 * group + (2 * m + kind) * bar;
                double y0 = axes_y(&a, 0.0), y1 = axes_y(&a, v);
                Rgb c = palette_series(m);
                cairo_rectangle(cr, x, y1, bar, y0 - y1);
                if (kind == 0) {
                    rgb_set(cr, c);
                    cairo_fill_preserve(cr);
                } else {
                    cairo_pattern_t *p = pattern_hatch(rgb_mix(bg, c, 0.15), c, 9 * u, 2.5 * u);
                    cairo_set_source(cr, p);
                    cairo_fill_preserve(cr);
                    cairo_pattern_destroy(p);
                }
                rgb_set(cr, fg);
                cairo_set_line_width(cr, 1.2 * u);
                cairo_stroke(cr);
            }
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    return figure_finish(cr);
}
