/* export.c — PNG, SVG and PDF files from one cairo drawing, written atomically. */
#include "draw/export.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "draw/png_write.h"

int export_format_of(const char *path, ExportFormat *out, SrError *err)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return sr_fail(err, "%s: no figure format (end the name in .png, .svg or .pdf)", path);
    if (strcasecmp(dot, ".png") == 0) *out = EXPORT_PNG;
    else if (strcasecmp(dot, ".svg") == 0) *out = EXPORT_SVG;
    else if (strcasecmp(dot, ".pdf") == 0) *out = EXPORT_PDF;
    else return sr_fail(err, "%s: unknown figure format '%s' (use .png, .svg or .pdf)", path, dot);
    return 0;
}

/* cairo's stream callback for the vector surfaces: append to the temp file. */
static cairo_status_t stream_write(void *closure, const unsigned char *data, unsigned int length)
{
    ExportTarget *t = closure;
    if (fwrite(data, 1, length, t->file.f) != length) {
        t->write_errno = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

/* Free the drawing of t (surface and context), leaving its file alone. */
static void release_drawing(ExportTarget *t)
{
    if (t->cr) cairo_destroy(t->cr);
    if (t->surface) cairo_surface_destroy(t->surface);
    t->cr = NULL;
    t->surface = NULL;
}

/* Free everything t holds and remove the temporary file. */
static void release(ExportTarget *t)
{
    release_drawing(t);
    if (t->file.f) atomic_file_abort(&t->file);
    memset(t, 0, sizeof *t);
}

int export_open(ExportTarget *t, const char *path, double w, double h, SrError *err)
{
    memset(t, 0, sizeof *t);
    if (export_format_of(path, &t->format, err)) return -1;
    if (!(w >= 16 && h >= 16 && w <= EXPORT_MAX_PIXELS && h <= EXPORT_MAX_PIXELS))
        return sr_fail(err, "%s: figure size %gx%g is outside 16..%d", path, w, h, EXPORT_MAX_PIXELS);
    t->width = t->format == EXPORT_PNG ? (double)(int)w : w;
    t->height = t->format == EXPORT_PNG ? (double)(int)h : h;
    if (atomic_file_open(&t->file, path, err)) return -1;
    switch (t->format) {
    case EXPORT_PNG:
        t->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)t->width, (int)t->height);
        break;
    case EXPORT_SVG:
        t->surface = cairo_svg_surface_create_for_stream(stream_write, t, t->width, t->height);
        break;
    case EXPORT_PDF:
        t->surface = cairo_pdf_surface_create_for_stream(stream_write, t, t->width, t->height);
        break;
    }
    cairo_status_t st = cairo_surface_status(t->surface);
    if (st == CAIRO_STATUS_SUCCESS) {
        t->cr = cairo_create(t->surface);
        st = cairo_status(t->cr);
    }
    if (st != CAIRO_STATUS_SUCCESS) {
        release(t);
        return sr_fail(err, "%s: cannot create the drawing surface (%s)", path,
                       cairo_status_to_string(st));
    }
    return 0;
}

cairo_t *export_context(ExportTarget *t)
{
    return t->cr;
}

void export_argb32_to_rgba(const unsigned char *argb, unsigned char *rgba, long n)
{
    for (long i = 0; i < n; i++) {
        uint32_t px;
        memcpy(&px, argb + 4 * i, 4);
        unsigned a = px >> 24, r = (px >> 16) & 255, g = (px >> 8) & 255, b = px & 255;
        if (a != 0 && a != 255) {  /* undo the premultiplication, rounding */
            r = (r * 255 + a / 2) / a;
            g = (g * 255 + a / 2) / a;
            b = (b * 255 + a / 2) / a;
        }
        rgba[4 * i + 0] = (unsigned char)(r > 255 ? 255 : r);
        rgba[4 * i + 1] = (unsigned char)(g > 255 ? 255 : g);
        rgba[4 * i + 2] = (unsigned char)(b > 255 ? 255 : b);
        rgba[4 * i + 3] = (unsigned char)a;
    }
}

/* Drop the alpha byte of n RGBA pixels in place when every one is opaque:
 * the number of bytes a pixel keeps, 3 or 4. */
static int opaque_to_rgb(unsigned char *rgba, long n)
{
    for (long i = 0; i < n; i++)
        if (rgba[4 * i + 3] != 255) return 4;
    for (long i = 0; i < n; i++) memmove(rgba + 3 * i, rgba + 4 * i, 3);
    return 3;
}

int export_png_stream(FILE *f, cairo_surface_t *image, int compact)
{
    cairo_surface_flush(image);
    int w = cairo_image_surface_get_width(image), h = cairo_image_surface_get_height(image);
    int stride = cairo_image_surface_get_stride(image);
    const unsigned char *data = cairo_image_surface_get_data(image);
    unsigned char *rgba = malloc((size_t)w * (size_t)h * 4);
    if (!rgba || !data) {
        free(rgba);
        return -1;
    }
    for (int y = 0; y < h; y++)
        export_argb32_to_rgba(data + (size_t)y * (size_t)stride, rgba + (size_t)y * (size_t)w * 4, w);
    int channels = compact ? opaque_to_rgb(rgba, (long)w * h) : 4;
    int rc = png_write_pixels(f, rgba, w, h, channels, compact ? 0 : -1);
    free(rgba);
    return rc;
}

/* Encode the image surface of t as PNG into t's temporary; 0 or -1. */
static int write_png(ExportTarget *t)
{
    return export_png_stream(t->file.f, t->surface, 0);
}

int export_close(ExportTarget *t, SrError *err)
{
    cairo_status_t st = cairo_status(t->cr);
    if (st != CAIRO_STATUS_SUCCESS) {
        sr_fail(err, "%s: drawing failed (%s)", t->file.path, cairo_status_to_string(st));
        release(t);
        return -1;
    }
    const char *failure = NULL;
    if (t->format == EXPORT_PNG) {
        errno = 0;
        if (write_png(t) != 0) failure = errno ? strerror(errno) : "PNG encoding failed";
    } else {
        cairo_destroy(t->cr);
        t->cr = NULL;
        cairo_surface_finish(t->surface);
        st = cairo_surface_status(t->surface);
        if (t->write_errno) failure = strerror(t->write_errno);
        else if (st != CAIRO_STATUS_SUCCESS) failure = cairo_status_to_string(st);
    }
    int rc = failure ? atomic_file_fail(&t->file, failure, err) : atomic_file_commit(&t->file, err);
    release_drawing(t);
    memset(t, 0, sizeof *t);
    return rc;
}

void export_abort(ExportTarget *t)
{
    release(t);
}
