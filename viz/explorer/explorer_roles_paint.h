/* explorer_roles_paint.h — the head roles drawn on the explorer's overview
 * (the `R` key; the numbers are explorer_state/explorer_roles.h). No SDL:
 * it paints on any cairo surface, so a headless test checks it.
 *
 * The overview painter leaves room (AttentionOverviewRoom): a strip under
 * every panel and a column right of the colour bar. A head whose strongest
 * role reaches the threshold gets a ring in the role's colour just outside
 * its panel (outside the selected map's frame too) and a label in the strip
 * under it ("ind .37", dropped when the panel is narrower than it); the
 * column lists "heads by role": an outlined swatch per role (the legend),
 * the best head of each of the five scores and its value, and the
 * threshold. At r = 0 the column says "roles need r >= 1" and no head is
 * marked. Nothing is drawn outside the room and the rings, so the colour
 * bar, the title and the other panels stay as they are. */
#ifndef SEQREP_VIZ_EXPLORER_ROLES_PAINT_H
#define SEQREP_VIZ_EXPLORER_ROLES_PAINT_H

#include <cairo.h>

#include "attention/paint_attention_overview.h"
#include "explorer_state/explorer_roles.h"
#include "figures/figures.h"

/* The room the overview of d leaves for the roles in a w x h figure: the
 * label strip under each panel and the width of the list (measured in the
 * figure's fonts). */
AttentionOverviewRoom explorer_roles_room(cairo_t *cr, const AttentionData *d, const ExplorerRoles *roles,
                                          double w, double h);

/* The width of a role ring at scale unit u; it lies outside the panel, from
 * its edge (the selected map: from the outer edge of its 5-unit frame). */
double explorer_role_ring_width(double u);

/* The overview of d with room for the roles (roles: d's layers and heads),
 * and the roles over it, on a w x h figure. 0 or -1. */
int explorer_paint_roles(cairo_t *cr, const AttentionData *d, const ExplorerRoles *roles, double w, double h);

/* What the explorer paints for fig: with roles (not NULL: fig is a view of
 * the layer x head grid of maps, fig's data), the grid with room for the
 * roles and the roles over it, else exactly figure_paint. 0 or -1. */
int explorer_paint_figure(cairo_t *cr, const Figure *fig, const AttentionData *maps, const ExplorerRoles *roles,
                          double w, double h);

#endif
