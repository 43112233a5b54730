/* export.h — a painter's figure written to a file exactly as it is drawn.
 *
 * The format follows the file name's extension: .png (cairo image surface,
 * converted from cairo's premultiplied native-endian ARGB32 to straight RGBA
 * and written with stb_image_write), .svg and .pdf (cairo's own vector
 * surfaces). Sizes are pixels for PNG and points for SVG and PDF.
 *
 *     ExportTarget t;
 *     if (export_open(&t, "fig.png", 1600, 1000, &err)) ...
 *     paint_mask(export_context(&t), &data, t.width, t.height);
 *     if (export_close(&t, &err)) ...      // writes, or fails with a message
 *
 * Writing is atomic (base/atomic_file.h): everything goes to "PATH.tmp.<pid>"
 * and is renamed to PATH only when complete; on failure the temporary file is
 * removed and PATH is left as it was. An unwritable path fails in export_open,
 * before any drawing ("out/x.png: cannot write (No such file or directory)");
 * a failed write says "PATH: write failed (reason)". */
#ifndef SEQREP_VIZ_EXPORT_H
#define SEQREP_VIZ_EXPORT_H

#include <stdio.h>

#include <cairo.h>

#include "base/atomic_file.h"
#include "base/status.h"

typedef enum { EXPORT_PNG = 0, EXPORT_SVG = 1, EXPORT_PDF = 2 } ExportFormat;

/* The largest PNG side accepted, in pixels. */
#define EXPORT_MAX_PIXELS 16384

typedef struct {
    ExportFormat format;
    double width, height;      /* figure size: pixels (PNG) or points (SVG, PDF) */
    AtomicFile file;           /* the temporary the figure is written into */
    int write_errno;           /* errno of a short write in the stream callback, else 0 */
    cairo_surface_t *surface;
    cairo_t *cr;
} ExportTarget;

/* The format of path's extension (.png, .svg, .pdf; case-insensitive), or
 * -1 with "PATH: unknown figure format '.ext' (use .png, .svg or .pdf)". */
int export_format_of(const char *path, ExportFormat *out, SrError *err);

/* Open a w x h target for path (sizes 16 .. EXPORT_MAX_PIXELS); 0 or -1. */
int export_open(ExportTarget *t, const char *path, double w, double h, SrError *err);

/* The drawing context of an open target. */
cairo_t *export_context(ExportTarget *t);

/* Finish the drawing, write the file and rename it into place; releases t
 * in every case. 0 or -1. */
int export_close(ExportTarget *t, SrError *err);

/* Release t without writing anything (removes the temporary file). */
void export_abort(ExportTarget *t);

/* Encode a cairo ARGB32 image surface as PNG into f, as a .png target
 * writes it (compact 0); with compact 1, the same pixels in fewer bytes (the
 * page of explore --html holds such): RGB when every pixel is opaque, and
 * no PNG filter (stb's deflate packs the figures' flat colours better
 * unfiltered: 6.86 to 6.36 MB on the lab's page at 800x540). 0 or -1. */
int export_png_stream(FILE *f, cairo_surface_t *image, int compact);

/* Convert n pixels of cairo ARGB32 (premultiplied, native-endian 32-bit
 * words) to straight-alpha RGBA bytes. */
void export_argb32_to_rgba(const unsigned char *argb, unsigned char *rgba, long n);

#endif
