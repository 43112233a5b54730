/* png_write.h — PNG encoding of an RGBA image (draw/png_write.c, the one
 * user of stb_image_write). */
#ifndef SEQREP_VIZ_PNG_WRITE_H
#define SEQREP_VIZ_PNG_WRITE_H

#include <stdio.h>

/* Write a w x h RGBA image (stride = w * 4 bytes) to the open FILE as PNG;
 * 0 or -1. */
int png_write_rgba(FILE *f, const unsigned char *rgba, int w, int h);

/* Write a w x h image of 3 (RGB) or 4 (RGBA) bytes a pixel (stride = w *
 * channels) to the open FILE as PNG, every row with PNG filter `filter`
 * (0..4), or -1: stb's choice per row (as png_write_rgba); 0 or -1. Not
 * thread-safe (stb's filter setting is a global). */
int png_write_pixels(FILE *f, const unsigned char *pixels, int w, int h, int channels, int filter);

#endif
