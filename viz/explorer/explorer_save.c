/* explorer_save.c — the explorer's saves: the figure of the current view as
 * PNG or SVG (s, v), the window with its overlays (<shot>), and the `seqrep
 * plot` command of the frame on the terminal (c). */
#include "explorer/explorer_save.h"

#include <stdio.h>
#include <string.h>

#include "draw/export.h"
#include "explorer/explorer_views.h"
#include "explorer_state/explorer_command.h"
#include "explorer_state/explorer_names.h"

int explorer_save_view(Explorer *e, const char *ext, SrError *err)
{
    char path[4200];
    if (explorer_prepare_figure(e)) return sr_fail(err, "nothing to save yet: the maps are being computed");
    if (explorer_save_path(e->o->save_dir, "", ext, path, sizeof path, err)) return -1;
    ExportTarget t;
    if (export_open(&t, path, e->width, e->height, err)) return -1;
    if (figure_paint(export_context(&t), &e->fig, t.width, t.height)) {
        export_abort(&t);
        return sr_fail(err, "%s: drawing failed", path);
    }
    if (export_close(&t, err)) return -1;
    fprintf(stderr, "wrote %s\n", path);
    snprintf(e->st.message, sizeof e->st.message, "saved %.580s", path);
    return 0;
}

int explorer_save_window(Explorer *e, SrError *err)
{
    char path[4200];
    if (explorer_save_path(e->o->save_dir, "-window", "png", path, sizeof path, err)) return -1;
    ExportTarget t;
    if (export_open(&t, path, e->width, e->height, err)) return -1;
    cairo_t *cr = export_context(&t);
    cairo_set_source_surface(cr, e->frame, 0, 0);
    cairo_paint(cr);
    if (export_close(&t, err)) return -1;
    fprintf(stderr, "wrote %s\n", path);
    return 0;
}

void explorer_print_command(Explorer *e)
{
    char line[8192], out_path[4200];
    SrError err;
    const char *dir = e->o->save_dir;
    if (strcmp(dir, ".") == 0) snprintf(out_path, sizeof out_path, "view.png");
    else snprintf(out_path, sizeof out_path, "%s/view.png", dir);
    if (explorer_command_line(&e->st, &e->o->src, e->shown_sentence, e->shown_r, e->width, e->height,
                              out_path, line, sizeof line, &err)) {
        snprintf(e->st.message, sizeof e->st.message, "%s", err.msg);
        return;
    }
    printf("%s\n", line);
    fflush(stdout);
    snprintf(e->st.message, sizeof e->st.message, "printed the plot command on the terminal");
}
