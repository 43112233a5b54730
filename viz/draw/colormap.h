/* colormap.h — the colours of every figure.
 *
 *  - viridis (256 entries, generated from matplotlib into colormap_data.h by
 *    viz/colormaps/make_colormaps.py) for continuous values such as attention
 *    probabilities: value 0 is the first entry (dark purple), 1 the last
 *    (yellow). Lookup is nearest-entry, so a value maps to exactly one table
 *    colour and tests can compare pixels with the table.
 *  - Okabe-Ito (8 colour-blind-safe colours) for categories; series use them
 *    in a fixed order together with a marker and a dash pattern (legend.h),
 *    so a figure still reads in grey print.
 *  - The masked-cell grey: its own colour, outside viridis and the palette.
 * Colours are sRGB in 0..1, the way cairo takes them. */
#ifndef SEQREP_VIZ_COLORMAP_H
#define SEQREP_VIZ_COLORMAP_H

#include <cairo.h>

typedef struct {
    double r, g, b;
} Rgb;

/* Number of entries of the viridis table. */
#define VIRIDIS_N 256

/* Viridis at t (clamped to [0, 1]; NaN counts as 0): entry round(t * 255). */
Rgb colormap_viridis(double t);

/* Entry i (clamped to 0..255) of the viridis table. */
Rgb colormap_viridis_entry(int i);

/* The Okabe-Ito palette entry i (0 black, 1 orange, 2 sky blue, 3 bluish
 * green, 4 yellow, 5 blue, 6 vermillion, 7 reddish purple), i taken mod 8. */
Rgb palette_okabe_ito(int i);

/* The colour of the i-th data series (any i >= 0): Okabe-Ito in the order
 * blue, vermillion, bluish green, orange, reddish purple, sky blue, black,
 * yellow, repeating. Series past 8 differ by marker and dash (legend.h). */
Rgb palette_series(int i);

/* Okabe-Ito names for the block kinds and categories of the figures. */
enum {
    OKABE_BLACK = 0, OKABE_ORANGE = 1, OKABE_SKY_BLUE = 2, OKABE_GREEN = 3,
    OKABE_YELLOW = 4, OKABE_BLUE = 5, OKABE_VERMILLION = 6, OKABE_PURPLE = 7
};

/* A colour from bytes 0..255. */
Rgb rgb_bytes(int r, int g, int b);

/* The colour as bytes (rounded), for comparing pixels. */
void rgb_to_bytes(Rgb c, unsigned char out[3]);

/* Set c as cairo's source colour (opaque). */
void rgb_set(cairo_t *cr, Rgb c);

/* Black or white, whichever reads better as text on background c (its
 * luminance with sRGB weights above or below 0.5). */
Rgb rgb_text_on(Rgb c);

/* Mix a and b: (1 - t) a + t b. */
Rgb rgb_mix(Rgb a, Rgb b, double t);

/* A diagonal-hatch pattern: lines of `line` colour over `fill`, spacing and
 * line width in device units. The caller destroys it (cairo_pattern_destroy). */
cairo_pattern_t *pattern_hatch(Rgb fill, Rgb line, double spacing, double width);

#endif
