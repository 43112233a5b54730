/* layout_boxes.h — the boxes a drawing is made of, and the check that none
 * covers another by accident.
 *
 * A recorder is attached to a cairo context (layout_boxes_attach); while it
 * is, every painter that draws on that context registers the rectangle of
 * each thing it draws, in device (surface) coordinates: every text (through
 * figure_text), the heatmaps, plot areas, colour bars and legends, and the
 * explorer's overlays. Without a recorder (the default) the calls below
 * return at once and draw nothing, so painters call them unconditionally.
 *
 * Containers (a heatmap, a colour bar with its ticks, a legend, a panel of
 * text) are opened and closed around what is drawn inside them; the boxes
 * drawn in between are their children. layout_boxes_overlaps then lists
 * every pair of boxes that overlap without being meant to, and every box
 * that leaves the drawing: see layout_boxes_overlaps for the rules. */
#ifndef SEQREP_VIZ_LAYOUT_BOXES_H
#define SEQREP_VIZ_LAYOUT_BOXES_H

#include <stddef.h>

#include <cairo.h>

typedef enum {
    BOX_TEXT = 0,      /* a label, tick label, legend entry, cell text        */
    BOX_TITLE = 1,     /* the figure's title                                  */
    BOX_CAPTION = 2,   /* the figure's caption                                */
    BOX_HEATMAP = 3,   /* a grid of coloured cells                            */
    BOX_PLOT = 4,      /* the data rectangle of 2-D axes                      */
    BOX_COLOURBAR = 5, /* a colour bar with its ticks and title               */
    BOX_LEGEND = 6,    /* a legend box                                        */
    BOX_PANEL = 7,     /* an overlay panel kept on screen (the pinned token)  */
    BOX_HOVER = 8,     /* the hover box under the mouse                       */
    BOX_BANNER = 9,    /* a status line, "computing", an error                */
    BOX_HELP = 10,     /* the key help, drawn over the whole figure           */
    BOX_KIND_COUNT = 11
} BoxKind;

typedef struct {
    double x, y, w, h; /* device units, y downwards */
} BoxRect;

typedef struct {
    BoxKind kind;
    BoxRect r;
    int parent;        /* index of the container drawn around it, -1: none  */
    int grows;         /* a container that widens to cover its children      */
    char what[48];     /* the text, or a name for the thing                */
} LayoutBox;

typedef struct {
    LayoutBox *box;    /* (n) in drawing order                              */
    int n, cap;
    int open;          /* the innermost open container, -1: none           */
    BoxKind text_kind; /* the kind texts get (BOX_TEXT unless set)          */
} LayoutBoxes;

/* An empty recorder; free with layout_boxes_free. */
void layout_boxes_init(LayoutBoxes *b);
void layout_boxes_free(LayoutBoxes *b);

/* Forget the boxes (keeps the memory) and close every container. */
void layout_boxes_clear(LayoutBoxes *b);

/* Record on cr into b from now on (b NULL: stop recording). */
void layout_boxes_attach(cairo_t *cr, LayoutBoxes *b);

/* The recorder attached to cr, or NULL. */
LayoutBoxes *layout_boxes_of(cairo_t *cr);

/* Record the device rectangle r as a box of `kind` named `what` (may be
 * NULL) in b, a child of b's open container. Returns its index, or -1 when
 * out of memory. */
int layout_boxes_push(LayoutBoxes *b, BoxKind kind, BoxRect r, const char *what);

/* Append the boxes of src to dst (their containers with them). 0 or -1. */
int layout_boxes_append(LayoutBoxes *dst, const LayoutBoxes *src);

/* Record the user-space rectangle (x, y, w, h) of cr as a box of `kind`
 * named `what` (may be NULL), as a child of the open container; its device
 * box is the bounding box of the four transformed corners. Returns its
 * index, or -1 without a recorder. */
int layout_boxes_add(cairo_t *cr, BoxKind kind, double x, double y, double w, double h, const char *what);

/* Record a container and make it the open one: what is recorded until
 * layout_boxes_close is its children. With grow, closing widens it to cover
 * its children (a colour bar with its tick labels). Returns its index or -1. */
int layout_boxes_open(cairo_t *cr, BoxKind kind, double x, double y, double w, double h, const char *what);
void layout_boxes_close(cairo_t *cr, int grow);

/* The kind texts recorded from now on get (BOX_TEXT, BOX_TITLE, BOX_CAPTION);
 * returns the kind before. */
BoxKind layout_boxes_text_kind(cairo_t *cr, BoxKind kind);

/* The name of a kind: "text", "title", "heatmap", ... */
const char *layout_box_kind_name(BoxKind kind);

/* 1 if a and b share an area of more than `slack` device units each way. */
int box_rects_overlap(BoxRect a, BoxRect b, double slack);

/* 1 if overlapping boxes i and j of b are meant to overlap: a box and its
 * own container (or a container's container), a hover box over a heatmap or
 * plot area or the labels around them, a label lying wholly on a heatmap or
 * plot area, and the key help (modal) over anything. A pinned panel covers
 * nothing (the explorer gives it a strip of its own). */
int layout_boxes_intended(const LayoutBoxes *b, int i, int j);

/* The area of the rectangle r that a box of `kind` placed there would
 * cover without being meant to (strict: every recorded box counts). The
 * explorer places its overlays where this is least. */
double layout_boxes_conflict(const LayoutBoxes *b, BoxRect r, BoxKind kind, int strict);

/* Where to put a bw x bh box of `kind` in the w x h window, kept 4 units
 * inside it, so that it covers nothing of b (not even what it may cover)
 * and not the point (avoid_x, avoid_y) (negative: none): the first of the n
 * top-left corners `wish` that does, else the free place nearest wish[0] on
 * a grid over the window; with none free, the same for covering only what
 * it may cover, and else the place that covers least. With floats_first
 * (a hover box) covering what it may is as good as covering nothing. */
BoxRect layout_boxes_place(const LayoutBoxes *b, BoxKind kind, double bw, double bh, double w, double h,
                           const BoxRect *wish, int n, double avoid_x, double avoid_y, int floats_first);

/* Write one line per problem of b on a w x h drawing into out (cap bytes,
 * each line prefixed by `context`): pairs that overlap without being
 * intended, children that stick out of their (not grown) container, boxes
 * that leave the drawing. Returns the number of problems. */
int layout_boxes_overlaps(const LayoutBoxes *b, double w, double h, const char *context, char *out, size_t cap);

#endif
