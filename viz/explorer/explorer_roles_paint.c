/* explorer_roles_paint.c — the head roles on the explorer's overview: the
 * room they need, the ring and label of each marked head, and the list
 * "heads by role" right of the colour bar. */
#include "explorer/explorer_roles_paint.h"

#include <math.h>
#include <stdio.h>

#include "draw/layout_boxes.h"

/* The selected map's frame is this wide (paint_attention_overview.c), in units. */
#define SELECTED_FRAME 5.0
/* A ring is this wide, in units; with the frame's outer half it stays
 * within the 10-unit gap between two panels. */
#define RING 3.0
/* A label's top lies this far under its panel, in units: past the ring of
 * the selected map (2.5 + 3) and one more. */
#define LABEL_TOP (SELECTED_FRAME / 2 + RING + 1)

/* What the list measures in the figure's fonts at scale u. */
typedef struct {
    double font, line, swatch, gap;
    double name_w, where_w, value_w, chance_w;
    double width; /* the widest row or the title */
} RolesList;

static void measure_list(cairo_t *cr, const AttentionData *d, double u, RolesList *m)
{
    const FigureStyle *s = &d->meta.style;
    char where[32];
    cairo_save(cr);
    m->font = figure_font_size(TEXT_TICK, u);
    m->line = 1.4 * m->font;
    m->swatch = 0.8 * m->font;
    m->gap = 12 * u;
    figure_font(cr, s, m->font, 0);
    m->name_w = 0;
    for (int k = 0; k < HEAD_N_SCORES; k++)
        m->name_w = fmax(m->name_w, figure_text_width(cr, head_score_name((HeadScore)k)));
    snprintf(where, sizeof where, "L%d H%d", d->n_layers - 1, d->n_heads - 1);
    m->where_w = figure_text_width(cr, where);
    m->value_w = figure_text_width(cr, "1.00");
    m->chance_w = figure_text_width(cr, "chance 1.00");
    m->width = m->swatch + m->name_w + m->where_w + m->value_w + m->chance_w + 4 * m->gap;
    figure_font(cr, s, m->font, 1);
    m->width = fmax(m->width, figure_text_width(cr, "heads by role"));
    cairo_restore(cr);
}

AttentionOverviewRoom explorer_roles_room(cairo_t *cr, const AttentionData *d, const ExplorerRoles *roles,
                                          double w, double h)
{
    (void)roles; /* the room is the same for every sentence and r: frames do not jump */
    double u = figure_unit(w, h);
    RolesList m;
    measure_list(cr, d, u, &m);
    double label = 1.2 * figure_font_size(TEXT_SMALL, u);
    return (AttentionOverviewRoom){.below = LABEL_TOP * u + label, .side = 10 * u + m.width};
}

double explorer_role_ring_width(double u)
{
    return RING * u;
}

/* 1 when (layer, head) is the map the overview frames as selected. */
static int is_selected(const AttentionData *d, int layer, int head)
{
    return layer == d->layer && (head == d->head || (d->n_heads == 1 && d->head <= 0));
}

/* The ring and label of head (layer, head) in panel r, if it has a role. */
static void mark_head(cairo_t *cr, const AttentionData *d, const ExplorerRoles *roles, const AttentionOverviewLayout *L,
                      int layer, int head, double u)
{
    const double *score = explorer_roles_scores(roles, layer, head);
    int role = explorer_role_of(score, EXPLORER_ROLE_THRESHOLD);
    if (role == EXPLORER_ROLE_NONE) return;
    FigureRect r = attention_overview_panel(L, d, layer, head);
    double lw = RING * u, off = is_selected(d, layer, head) ? SELECTED_FRAME * u / 2 : 0;
    Rgb colour = explorer_role_colour((HeadScore)role);
    rgb_set(cr, colour);
    cairo_set_line_width(cr, lw);
    cairo_rectangle(cr, r.x - off - lw / 2, r.y - off - lw / 2, r.w + 2 * off + lw, r.h + 2 * off + lw);
    cairo_stroke(cr);
    char text[32];
    explorer_role_label((HeadScore)role, score[role], text, sizeof text);
    double font = figure_font_size(TEXT_SMALL, u), dot = 0.6 * font;
    figure_font(cr, &d->meta.style, font, 0);
    /* no wider than the panel, so labels never meet: "[dot] ind .37", else
     * "ind .37", else ".37" (the ring's colour names the role), else none */
    double tw = dot + 0.3 * font + figure_text_width(cr, text);
    if (tw > r.w) {
        dot = 0;
        tw = figure_text_width(cr, text);
    }
    if (tw > r.w) {
        explorer_role_value_text(score[role], text, sizeof text);
        tw = figure_text_width(cr, text);
    }
    if (tw > r.w) return;
    double x = r.x + (r.w - tw) / 2, mid = r.y + r.h + LABEL_TOP * u + 0.6 * font;
    if (dot > 0) {
        rgb_set(cr, colour);
        cairo_rectangle(cr, x, mid - dot / 2, dot, dot);
        cairo_fill(cr);
        x += dot + 0.3 * font;
    }
    rgb_set(cr, figure_foreground(&d->meta.style));
    figure_text(cr, text, x, mid, 0, 0.5);
}

/* One row of the list at top y: swatch (the four marked roles), score name,
 * best head, its value and the chance level of its layer. */
static void list_row(cairo_t *cr, const AttentionData *d, const RolesList *m, const ExplorerRoleBest *b,
                     double chance, double x, double y, double u)
{
    const FigureStyle *s = &d->meta.style;
    double mid = y + m->line / 2;
    if (b->score < EXPLORER_N_ROLES) {
        double lw = RING * u;
        rgb_set(cr, explorer_role_colour(b->score));
        cairo_set_line_width(cr, lw);
        cairo_rectangle(cr, x + lw / 2, mid - m->swatch / 2 + lw / 2, m->swatch - lw, m->swatch - lw);
        cairo_stroke(cr);
    }
    char where[32], value[16];
    snprintf(where, sizeof where, "L%d H%d", b->layer, b->head);
    explorer_role_value_text(b->value, value, sizeof value);
    rgb_set(cr, figure_foreground(s));
    double at = x + m->swatch + m->gap;
    figure_text(cr, head_score_name(b->score), at, mid, 0, 0.5);
    at += m->name_w + m->gap;
    figure_text(cr, where, at, mid, 0, 0.5);
    at += m->where_w + m->gap + m->value_w;
    figure_text(cr, value, at, mid, 1, 0.5);
    char level[32];
    explorer_role_value_text(chance, value, sizeof value);
    snprintf(level, sizeof level, "chance %s", value);
    rgb_set(cr, figure_muted(s));
    figure_text(cr, level, at + m->gap, mid, 0, 0.5);
}

/* The list "heads by role" in the side column of L (clipped to it). */
static void draw_list(cairo_t *cr, const AttentionData *d, const ExplorerRoles *roles, const AttentionOverviewLayout *L,
                      double u)
{
    const FigureStyle *s = &d->meta.style;
    RolesList m;
    measure_list(cr, d, u, &m);
    cairo_save(cr);
    cairo_rectangle(cr, L->side.x, L->side.y, L->side.w, L->side.h);
    cairo_clip(cr);
    layout_boxes_open(cr, BOX_LEGEND, L->side.x, L->side.y, L->side.w, L->side.h, "heads by role");
    double x = L->side.x + 10 * u, y = L->side.y;
    rgb_set(cr, figure_foreground(s));
    figure_font(cr, s, m.font, 1);
    figure_text(cr, "heads by role", x, y + m.line / 2, 0, 0.5);
    y += 1.2 * m.line;
    figure_font(cr, s, m.font, 0);
    if (!roles->defined) {
        figure_text_wrapped(cr, "roles need r >= 1: copy and induction read the copy before", x, y, m.width,
                            m.line, 1);
        layout_boxes_close(cr, 0);
        cairo_restore(cr);
        return;
    }
    ExplorerRoleBest best[HEAD_N_SCORES];
    explorer_roles_best(roles, best);
    for (int k = 0; k < HEAD_N_SCORES; k++, y += m.line)
        list_row(cr, d, &m, &best[k], explorer_roles_chance(roles, best[k].layer)[k], x, y, u);
    char note[96], v[16];
    explorer_role_value_text(EXPLORER_ROLE_THRESHOLD, v, sizeof v);
    snprintf(note, sizeof note, "ring: a head's strongest of the four coloured roles, if >= %s", v);
    rgb_set(cr, figure_muted(s));
    figure_text_wrapped(cr, note, x, y + 0.4 * m.line, m.width, m.line, 1);
    layout_boxes_close(cr, 0);
    cairo_restore(cr);
}

int explorer_paint_roles(cairo_t *cr, const AttentionData *d, const ExplorerRoles *roles, double w, double h)
{
    AttentionOverviewRoom room = explorer_roles_room(cr, d, roles, w, h);
    if (paint_attention_overview_room(cr, d, w, h, room)) return -1;
    AttentionOverviewLayout L;
    attention_overview_layout_room(cr, d, w, h, room, &L);
    double u = figure_unit(w, h);
    cairo_save(cr);
    for (int l = 0; roles->defined && l < d->n_layers && l < roles->n_layers; l++)
        for (int head = 0; head < d->n_heads && head < roles->n_heads; head++) mark_head(cr, d, roles, &L, l, head, u);
    draw_list(cr, d, roles, &L, u);
    cairo_restore(cr);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

int explorer_paint_figure(cairo_t *cr, const Figure *fig, const AttentionData *maps, const ExplorerRoles *roles,
                          double w, double h)
{
    if (roles && maps) return explorer_paint_roles(cr, maps, roles, w, h);
    return figure_paint(cr, fig, w, h);
}
