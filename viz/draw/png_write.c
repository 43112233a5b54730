/* png_write.c — PNG encoding through stb_image_write (Debian libstb-dev).
 * The one file that holds the stb_image_write implementation. */
#include "draw/png_write.h"

#include <stdio.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

/* What the stb callback writes into: the file and whether a write failed. */
typedef struct {
    FILE *f;
    int failed;
} PngSink;

/* stb_image_write's output callback: append size bytes to the sink's file. */
static void sink_write(void *context, void *data, int size)
{
    PngSink *s = context;
    if (size > 0 && fwrite(data, 1, (size_t)size, s->f) != (size_t)size) s->failed = 1;
}

int png_write_pixels(FILE *f, const unsigned char *pixels, int w, int h, int channels, int filter)
{
    PngSink sink = {.f = f, .failed = 0};
    stbi_write_force_png_filter = filter;
    int ok = stbi_write_png_to_func(sink_write, &sink, w, h, channels, pixels, w * channels);
    stbi_write_force_png_filter = -1;
    return ok && !sink.failed ? 0 : -1;
}

int png_write_rgba(FILE *f, const unsigned char *rgba, int w, int h)
{
    return png_write_pixels(f, rgba, w, h, 4, -1);
}
