/* explorer_save.c — the explorer's saves: the figure of the current view as
 * PNG or SVG (s, v) and, with the head roles shown, their scores beside it
 * (NAME.roles.csv and its manifest), the window with its overlays (<shot>),
 * and the `seqrep plot` command of the frame on the terminal (c). */
#include "explorer/explorer_save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "draw/export.h"
#include "explorer/explorer_roles_paint.h"
#include "explorer/explorer_views.h"
#include "explorer_state/explorer_command.h"
#include "explorer_state/explorer_names.h"
#include "runs/manifest.h"

/* The manifest of a roles CSV: what the scores were computed on (model,
 * sentence, r, layout, mask), the frame they belong to and the threshold of
 * the marks. */
static cJSON *roles_manifest(Explorer *e, const char *frame)
{
    const ExplorerSources *src = &e->src;
    cJSON *m = manifest_begin(0, NULL, 0);
    cJSON_ReplaceItemInObject(m, "command", cJSON_CreateString("seqrep explore: key R (head roles), then s or v"));
    manifest_add_file(m, "model", src->model);
    if (src->adapter) manifest_add_file(m, "adapter", src->adapter);
    if (e->series.n) {
        cJSON_AddStringToObject(m, "series", src->series);
        cJSON_AddNumberToObject(m, e->series.epochs ? "epoch" : "step", e->series.e[e->st.snapshot].step);
    }
    if (src->data) manifest_add_file(m, "data", src->data);
    else cJSON_AddStringToObject(m, "text", e->in.texts[e->shown_sentence]);
    cJSON_AddNumberToObject(m, "sentence", e->shown_sentence);
    cJSON_AddStringToObject(m, "source", e->in.sources[e->shown_sentence]);
    cJSON_AddNumberToObject(m, "r", e->shown_r);
    cJSON_AddStringToObject(m, "bos", repeat_bos_name(e->st.bos));
    cJSON_AddStringToObject(m, "sep", repeat_sep_name(e->st.sep));
    cJSON_AddStringToObject(m, "copy_positions", repeat_positions_name(src->copy_positions));
    cJSON_AddStringToObject(m, "mask", src->mask ? src->mask : "causal");
    cJSON_AddNumberToObject(m, "role_threshold", EXPLORER_ROLE_THRESHOLD);
    cJSON_AddStringToObject(m, "frame", frame);
    return m;
}

/* Write the shown roles beside the frame saved at frame ("x.png" ->
 * "x.roles.csv" and "x.roles.manifest.json"). *csv_path receives the CSV's
 * name (caller frees), NULL when the roles are undefined (r = 0: nothing is
 * written). 0 or -1. */
static int save_roles(Explorer *e, const ExplorerRoles *roles, const char *frame, char **csv_path, SrError *err)
{
    *csv_path = NULL;
    if (!roles->defined) return 0;
    char *csv = explorer_roles_csv(roles), *path = path_with_suffix(frame, ".roles.csv");
    int rc = !csv || !path ? sr_fail(err, "out of memory") : write_file_atomic(path, csv, err);
    free(csv);
    if (rc == 0) {
        cJSON *manifest = roles_manifest(e, frame);
        rc = manifest_write(path, manifest, NULL, err);
        cJSON_Delete(manifest);
    }
    if (rc) {
        free(path);
        return -1;
    }
    *csv_path = path;
    return 0;
}

int explorer_save_view(Explorer *e, const char *ext, SrError *err)
{
    char path[4200];
    if (explorer_prepare_figure(e)) return sr_fail(err, "nothing to save yet: the maps are being computed");
    if (explorer_save_path(e->o->save_dir, "", ext, path, sizeof path, err)) return -1;
    ExportTarget t;
    if (export_open(&t, path, e->width, e->height, err)) return -1;
    if (explorer_paint_figure(export_context(&t), explorer_shown_figure(e), explorer_shown_maps(e),
                              explorer_shown_roles(e), t.width, t.height)) {
        export_abort(&t);
        return sr_fail(err, "%s: drawing failed", path);
    }
    if (export_close(&t, err)) return -1;
    fprintf(stderr, "wrote %s\n", path);
    snprintf(e->st.message, sizeof e->st.message, "saved %.580s", path);
    const ExplorerRoles *roles = explorer_shown_roles(e);
    char *csv_path = NULL;
    if (roles && save_roles(e, roles, path, &csv_path, err)) return -1;
    if (csv_path) {
        fprintf(stderr, "wrote %s\n", csv_path);
        snprintf(e->st.message, sizeof e->st.message, "saved %.280s and the head roles %.280s", path, csv_path);
    } else if (roles) {
        snprintf(e->st.message, sizeof e->st.message, "saved %.540s (no head roles at r = 0)", path);
    }
    free(csv_path);
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
    if (explorer_command_line(&e->st, &e->src, e->shown_sentence, e->shown_r, e->width, e->height,
                              out_path, line, sizeof line, &err)) {
        snprintf(e->st.message, sizeof e->st.message, "%s", err.msg);
        return;
    }
    printf("%s\n", line);
    fflush(stdout);
    if (explorer_shown_roles(e))
        snprintf(e->st.message, sizeof e->st.message,
                 "printed the plot command: it draws these maps without the head roles "
                 "(seqrep heads and seqrep plot heads give the roles' numbers)");
    else
        snprintf(e->st.message, sizeof e->st.message, "printed the plot command on the terminal");
}
