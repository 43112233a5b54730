/* explorer_hover.c — what is under the mouse in the explorer: the cell of
 * the attention or mask map, the point of the z figure, the panel of the
 * overview. */
#include "explorer/explorer_hover.h"

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"
#include "explorer/explorer_views.h"
#include "mask/paint_mask.h"
#include "repo/paint_repo_z.h"

int explorer_overview_panel_at(cairo_t *cr, const AttentionData *d, AttentionOverviewRoom room, double w,
                               double h, double x, double y, int *layer, int *head)
{
    AttentionOverviewLayout L;
    attention_overview_layout_room(cr, d, w, h, room, &L);
    for (int l = 0; l < d->n_layers; l++)
        for (int col = 0; col < L.n_cols; col++) {
            FigureRect r = attention_overview_panel(&L, d, l, col);
            if (!figure_rect_contains(&r, x, y)) continue;
            *layer = l;
            *head = col < d->n_heads && d->n_heads > 1 ? col : (d->n_heads == 1 ? 0 : -1);
            return 1;
        }
    return 0;
}

void explorer_update_hover(Explorer *e, cairo_t *cr)
{
    int q = -1, k = -1, fh = explorer_figure_height(&e->st, e->width, e->height);
    int fw = explorer_figure_width(&e->st, e->width, e->height);
    if (e->mouse_in && explorer_prepare_figure(e) == 0) {
        if (e->st.view == VIEW_ATTENTION) {
            AttentionLayout L;
            attention_layout(cr, &e->fig.attention, fw, fh, &L);
            if (!attention_cell_at(&L, &e->fig.attention, e->mouse_x, e->mouse_y, &q, &k)) q = k = -1;
        } else if (e->st.view == VIEW_MASK) {
            MaskLayout L;
            mask_layout(cr, &e->fig.mask, fw, fh, &L);
            if (!mask_cell_at(&L, &e->fig.mask, e->mouse_x, e->mouse_y, &q, &k)) q = k = -1;
        } else if (e->st.view == VIEW_REPO_Z) { /* a point: the token, as query and key */
            q = k = repo_z_point_at(cr, &e->fig.repo_z, fw, fh, e->mouse_x, e->mouse_y);
        }
    }
    explorer_set_hover(&e->st, q, k);
}
