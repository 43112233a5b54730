/* png_write.h — PNG encoding of an RGBA image (draw/png_write.c, the one
 * user of stb_image_write). */
#ifndef SEQREP_VIZ_PNG_WRITE_H
#define SEQREP_VIZ_PNG_WRITE_H

#include <stdio.h>

/* Write a w x h RGBA image (stride = w * 4 bytes) to the open FILE as PNG;
 * 0 or -1. */
int png_write_rgba(FILE *f, const unsigned char *rgba, int w, int h);

#endif
