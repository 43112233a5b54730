/* colormap.c — colour lookup over the generated tables of colormap_data.h. */
#include "draw/colormap.h"

#include <math.h>

#include "draw/colormap_data.h"

Rgb rgb_bytes(int r, int g, int b)
{
    return (Rgb){.r = r / 255.0, .g = g / 255.0, .b = b / 255.0};
}

void rgb_to_bytes(Rgb c, unsigned char out[3])
{
    double v[3] = {c.r, c.g, c.b};
    for (int i = 0; i < 3; i++) {
        double x = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i];
        out[i] = (unsigned char)lround(x * 255.0);
    }
}

Rgb colormap_viridis_entry(int i)
{
    if (i < 0) i = 0;
    if (i > VIRIDIS_N - 1) i = VIRIDIS_N - 1;
    return rgb_bytes(VIRIDIS_RGB[i][0], VIRIDIS_RGB[i][1], VIRIDIS_RGB[i][2]);
}

Rgb colormap_viridis(double t)
{
    if (!(t > 0)) t = 0; /* also NaN */
    if (t > 1) t = 1;
    return colormap_viridis_entry((int)lround(t * (VIRIDIS_N - 1)));
}

Rgb palette_okabe_ito(int i)
{
    i = ((i % 8) + 8) % 8;
    return rgb_bytes(OKABE_ITO_RGB[i][0], OKABE_ITO_RGB[i][1], OKABE_ITO_RGB[i][2]);
}

Rgb palette_series(int i)
{
    static const int order[8] = {OKABE_BLUE, OKABE_VERMILLION, OKABE_GREEN, OKABE_ORANGE,
                                 OKABE_PURPLE, OKABE_SKY_BLUE, OKABE_BLACK, OKABE_YELLOW};
    if (i < 0) i = 0;
    return palette_okabe_ito(order[i % 8]);
}

void rgb_set(cairo_t *cr, Rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

Rgb rgb_text_on(Rgb c)
{
    double luma = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    return luma > 0.5 ? rgb_bytes(0, 0, 0) : rgb_bytes(255, 255, 255);
}

Rgb rgb_mix(Rgb a, Rgb b, double t)
{
    return (Rgb){.r = a.r + t * (b.r - a.r), .g = a.g + t * (b.g - a.g), .b = a.b + t * (b.b - a.b)};
}

cairo_pattern_t *pattern_hatch(Rgb fill, Rgb line, double spacing, double width)
{
    if (spacing < 2) spacing = 2;
    int size = (int)ceil(spacing);
    cairo_surface_t *tile = cairo_image_surface_create(CAIRO_FORMAT_RGB24, size, size);
    cairo_t *cr = cairo_create(tile);
    rgb_set(cr, fill);
    cairo_paint(cr);
    rgb_set(cr, line);
    cairo_set_line_width(cr, width);
    /* one diagonal and its two wrapped neighbours, so the tile repeats seamlessly */
    for (int k = -1; k <= 1; k++) {
        cairo_move_to(cr, k * size, size);
        cairo_line_to(cr, k * size + size, 0);
    }
    cairo_stroke(cr);
    cairo_destroy(cr);
    cairo_pattern_t *p = cairo_pattern_create_for_surface(tile);
    cairo_surface_destroy(tile);
    cairo_pattern_set_extend(p, CAIRO_EXTEND_REPEAT);
    return p;
}
