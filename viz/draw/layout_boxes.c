/* layout_boxes.c — recording the boxes a drawing is made of and listing the
 * overlaps nobody meant. */
#include "draw/layout_boxes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key the recorder is attached to a cairo context under. */
static const cairo_user_data_key_t recorder_key;

/* Overlaps and overhangs up to this many device units each way are not counted
 * (antialiasing, rounding to whole pixels). */
#define BOX_SLACK 1.0

void layout_boxes_init(LayoutBoxes *b)
{
    *b = (LayoutBoxes){.box = NULL, .n = 0, .cap = 0, .open = -1, .text_kind = BOX_TEXT};
}

void layout_boxes_free(LayoutBoxes *b)
{
    free(b->box);
    layout_boxes_init(b);
}

void layout_boxes_clear(LayoutBoxes *b)
{
    b->n = 0;
    b->open = -1;
    b->text_kind = BOX_TEXT;
}

void layout_boxes_attach(cairo_t *cr, LayoutBoxes *b)
{
    cairo_set_user_data(cr, &recorder_key, b, NULL);
}

LayoutBoxes *layout_boxes_of(cairo_t *cr)
{
    return cairo_get_user_data(cr, &recorder_key);
}

const char *layout_box_kind_name(BoxKind kind)
{
    static const char *names[BOX_KIND_COUNT] = {"text", "title", "caption", "heatmap", "plot", "colour bar",
                                                "legend", "panel", "hover box", "banner", "help"};
    return kind >= 0 && kind < BOX_KIND_COUNT ? names[kind] : "?";
}

/* The device bounding box of the user rectangle (x, y, w, h) of cr. */
static BoxRect device_box(cairo_t *cr, double x, double y, double w, double h)
{
    double xs[4] = {x, x + w, x, x + w}, ys[4] = {y, y, y + h, y + h};
    double x0 = HUGE_VAL, y0 = HUGE_VAL, x1 = -HUGE_VAL, y1 = -HUGE_VAL;
    for (int i = 0; i < 4; i++) {
        cairo_user_to_device(cr, &xs[i], &ys[i]);
        x0 = fmin(x0, xs[i]);
        y0 = fmin(y0, ys[i]);
        x1 = fmax(x1, xs[i]);
        y1 = fmax(y1, ys[i]);
    }
    return (BoxRect){.x = x0, .y = y0, .w = x1 - x0, .h = y1 - y0};
}

int layout_boxes_push(LayoutBoxes *b, BoxKind kind, BoxRect r, const char *what)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 256;
        LayoutBox *grown = realloc(b->box, (size_t)cap * sizeof *grown);
        if (!grown) return -1;
        b->box = grown;
        b->cap = cap;
    }
    LayoutBox *box = &b->box[b->n];
    *box = (LayoutBox){.kind = kind, .r = r, .parent = b->open, .grows = 0};
    snprintf(box->what, sizeof box->what, "%s", what ? what : layout_box_kind_name(kind));
    return b->n++;
}

int layout_boxes_append(LayoutBoxes *dst, const LayoutBoxes *src)
{
    int first = dst->n;
    for (int i = 0; i < src->n; i++) {
        int at = layout_boxes_push(dst, src->box[i].kind, src->box[i].r, src->box[i].what);
        if (at < 0) return -1;
        dst->box[at].grows = src->box[i].grows;
        dst->box[at].parent = src->box[i].parent >= 0 ? first + src->box[i].parent : dst->open;
    }
    return 0;
}

int layout_boxes_add(cairo_t *cr, BoxKind kind, double x, double y, double w, double h, const char *what)
{
    LayoutBoxes *b = layout_boxes_of(cr);
    if (!b) return -1;
    return layout_boxes_push(b, kind, device_box(cr, x, y, w, h), what);
}

int layout_boxes_open(cairo_t *cr, BoxKind kind, double x, double y, double w, double h, const char *what)
{
    int i = layout_boxes_add(cr, kind, x, y, w, h, what);
    if (i >= 0) layout_boxes_of(cr)->open = i;
    return i;
}

void layout_boxes_close(cairo_t *cr, int grow)
{
    LayoutBoxes *b = layout_boxes_of(cr);
    if (!b || b->open < 0) return;
    int c = b->open;
    LayoutBox *box = &b->box[c];
    if (grow) {
        box->grows = 1;
        for (int i = c + 1; i < b->n; i++) {
            BoxRect r = b->box[i].r, *u = &box->r;
            double x1 = fmax(u->x + u->w, r.x + r.w), y1 = fmax(u->y + u->h, r.y + r.h);
            u->x = fmin(u->x, r.x);
            u->y = fmin(u->y, r.y);
            u->w = x1 - u->x;
            u->h = y1 - u->y;
        }
    }
    b->open = box->parent;
}

BoxKind layout_boxes_text_kind(cairo_t *cr, BoxKind kind)
{
    LayoutBoxes *b = layout_boxes_of(cr);
    if (!b) return BOX_TEXT;
    BoxKind before = b->text_kind;
    b->text_kind = kind;
    return before;
}

int box_rects_overlap(BoxRect a, BoxRect b, double slack)
{
    double dx = fmin(a.x + a.w, b.x + b.w) - fmax(a.x, b.x);
    double dy = fmin(a.y + a.h, b.y + b.h) - fmax(a.y, b.y);
    return dx > slack && dy > slack;
}

/* 1 if inner lies in outer, up to BOX_SLACK. */
static int rect_inside(BoxRect inner, BoxRect outer)
{
    return inner.x >= outer.x - BOX_SLACK && inner.y >= outer.y - BOX_SLACK &&
           inner.x + inner.w <= outer.x + outer.w + BOX_SLACK && inner.y + inner.h <= outer.y + outer.h + BOX_SLACK;
}

/* 1 if box i lies inside container j (j is i's parent, or its parent's...). */
static int descends(const LayoutBoxes *b, int i, int j)
{
    for (int p = b->box[i].parent; p >= 0; p = b->box[p].parent)
        if (p == j) return 1;
    return 0;
}

/* The outermost container of box i (i itself when it has none). */
static int root_of(const LayoutBoxes *b, int i)
{
    while (b->box[i].parent >= 0) i = b->box[i].parent;
    return i;
}


/* 1 for what a hover box or pinned panel may float over: the data
 * (heatmap, plot area) and the plain labels around it. */
static int is_data(BoxKind k)
{
    return k == BOX_TEXT || k == BOX_HEATMAP || k == BOX_PLOT;
}

/* 1 if an overlay of kind `floating` may cover box j of b. */
static int may_cover(const LayoutBoxes *b, BoxKind floating, int j)
{
    BoxKind own = b->box[j].kind, outer = b->box[root_of(b, j)].kind;
    if (floating == BOX_HELP) return 1; /* modal: shown over everything until h closes it */
    if (floating == BOX_HOVER) return is_data(own) && is_data(outer);
    return 0;
}

/* 1 if box i is a text of no container lying wholly on heatmap or plot area
 * j (a label on the data). */
static int label_on_data(const LayoutBoxes *b, int i, int j)
{
    const LayoutBox *t = &b->box[i], *area = &b->box[j];
    return t->kind == BOX_TEXT && t->parent < 0 && (area->kind == BOX_HEATMAP || area->kind == BOX_PLOT) &&
           rect_inside(t->r, area->r);
}

int layout_boxes_intended(const LayoutBoxes *b, int i, int j)
{
    if (descends(b, i, j) || descends(b, j, i)) return 1;
    if (label_on_data(b, i, j) || label_on_data(b, j, i)) return 1;
    BoxKind ri = b->box[root_of(b, i)].kind, rj = b->box[root_of(b, j)].kind;
    if (root_of(b, i) != root_of(b, j)) {
        if (may_cover(b, ri, j)) return 1;
        if (may_cover(b, rj, i)) return 1;
    }
    return 0;
}

double layout_boxes_conflict(const LayoutBoxes *b, BoxRect r, BoxKind kind, int strict)
{
    double area = 0;
    for (int j = 0; j < b->n; j++) {
        BoxRect o = b->box[j].r;
        if (!box_rects_overlap(r, o, 0) || (!strict && may_cover(b, kind, j))) continue;
        if (b->box[j].parent >= 0 && !strict) continue; /* its container counts already */
        double dx = fmin(r.x + r.w, o.x + o.w) - fmax(r.x, o.x);
        double dy = fmin(r.y + r.h, o.y + o.h) - fmax(r.y, o.y);
        area += dx * dy;
    }
    return area;
}

/* The cost of the bw x bh box at (x, y): what it covers that it may not
 * (strict: anything), plus a large amount when it covers the point to avoid. */
static double place_cost(const LayoutBoxes *b, BoxKind kind, BoxRect r, double ax, double ay, int strict)
{
    double cost = layout_boxes_conflict(b, r, kind, strict);
    if (ax >= 0 && ax >= r.x - 8 && ax <= r.x + r.w + 8 && ay >= r.y - 8 && ay <= r.y + r.h + 8) cost += 1e12;
    return cost;
}

/* The box r moved inside the w x h window, 4 units from its edges where it fits. */
static BoxRect keep_inside(BoxRect r, double w, double h)
{
    if (r.x + r.w > w - 4) r.x = w - 4 - r.w;
    if (r.y + r.h > h - 4) r.y = h - 4 - r.h;
    if (r.x < 4) r.x = 4;
    if (r.y < 4) r.y = 4;
    return r;
}

BoxRect layout_boxes_place(const LayoutBoxes *b, BoxKind kind, double bw, double bh, double w, double h,
                           const BoxRect *wish, int n, double avoid_x, double avoid_y, int floats_first)
{
    double step = fmax(8, fmin(w, h) / 40);
    BoxRect best = keep_inside(wish[0], w, h);
    double best_cost = HUGE_VAL;
    for (int strict = floats_first ? 0 : 1; strict >= 0; strict--) {
        for (int i = 0; i < n; i++) { /* the wishes, in order */
            BoxRect r = keep_inside((BoxRect){.x = wish[i].x, .y = wish[i].y, .w = bw, .h = bh}, w, h);
            double cost = place_cost(b, kind, r, avoid_x, avoid_y, strict);
            if (cost <= 0) return r;
            if (!strict && cost < best_cost) best = r, best_cost = cost;
        }
        double nearest = HUGE_VAL; /* the grid: the free place nearest the first wish */
        BoxRect found = best;
        for (double y = 4; y + bh <= h - 4; y += step)
            for (double x = 4; x + bw <= w - 4; x += step) {
                BoxRect r = {.x = x, .y = y, .w = bw, .h = bh};
                double dist = hypot(x - wish[0].x, y - wish[0].y);
                if (dist >= nearest) continue;
                double cost = place_cost(b, kind, r, avoid_x, avoid_y, strict);
                if (cost <= 0) nearest = dist, found = r;
                else if (!strict && cost < best_cost) best = r, best_cost = cost;
            }
        if (nearest < HUGE_VAL) return found;
    }
    return best;
}

/* Append "context: message" and a newline to out (cap bytes, *used so far). */
static void report(char *out, size_t cap, size_t *used, const char *context, const char *message)
{
    if (!out || *used + 1 >= cap) return;
    int n = snprintf(out + *used, cap - *used, "%s: %s\n", context, message);
    if (n > 0) *used = *used + (size_t)n < cap ? *used + (size_t)n : cap - 1;
}

/* "kind 'what' [x,y wxh]" of box i. */
static void describe(const LayoutBoxes *b, int i, char *out, size_t cap)
{
    const LayoutBox *x = &b->box[i];
    snprintf(out, cap, "%s '%.40s' [%.0f,%.0f %.0fx%.0f]", layout_box_kind_name(x->kind), x->what, x->r.x, x->r.y,
             x->r.w, x->r.h);
}

int layout_boxes_overlaps(const LayoutBoxes *b, double w, double h, const char *context, char *out, size_t cap)
{
    size_t used = 0;
    if (out && cap) out[0] = 0;
    int problems = 0;
    char one[160], two[160], line[400];
    BoxRect page = {.x = 0, .y = 0, .w = w, .h = h};
    for (int i = 0; i < b->n; i++) {
        describe(b, i, one, sizeof one);
        if (!rect_inside(b->box[i].r, page)) {
            snprintf(line, sizeof line, "%s leaves the %.0fx%.0f window", one, w, h);
            report(out, cap, &used, context, line);
            problems++;
        }
        int p = b->box[i].parent;
        if (p >= 0 && !b->box[p].grows && !rect_inside(b->box[i].r, b->box[p].r)) {
            describe(b, p, two, sizeof two);
            snprintf(line, sizeof line, "%s sticks out of its %s", one, two);
            report(out, cap, &used, context, line);
            problems++;
        }
        for (int j = i + 1; j < b->n; j++) {
            if (!box_rects_overlap(b->box[i].r, b->box[j].r, BOX_SLACK) || layout_boxes_intended(b, i, j)) continue;
            describe(b, j, two, sizeof two);
            snprintf(line, sizeof line, "%s overlaps %s", one, two);
            report(out, cap, &used, context, line);
            problems++;
        }
    }
    return problems;
}
