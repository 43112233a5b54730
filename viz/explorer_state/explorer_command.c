/* explorer_command.c — the `c` key: the `seqrep plot` command that renders
 * the frame on screen: the plot options the view writes (figure_view.h)
 * after its figure's name, then the size, theme and font of the window.
 * Pure. */
#include "explorer_state/explorer_command.h"

#include <stdio.h>

#include "figures/figures.h"

int explorer_command_words(const ExplorerState *s, const ExplorerSources *src, int sentence, int r, int width,
                           int height, const char *out_path, PlotWords *w)
{
    ViewContext c;
    explorer_view_context(&c, s, src, sentence, r);
    char size[48];
    snprintf(size, sizeof size, "%dx%d", width, height);
    plot_words_init(w);
    plot_words_add(w, "seqrep");
    plot_words_add(w, "plot");
    plot_words_add(w, figure_view_row(s->view)->name);
    figure_view(s->view)->command(w, &c);
    plot_words_option(w, "--size", size);
    plot_words_option(w, "--theme", s->theme == THEME_DARK ? "dark" : "light");
    if (src->font) plot_words_option(w, "--font", src->font);
    plot_words_option(w, "--out", out_path);
    return w->failed ? -1 : 0;
}

int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r, int width,
                          int height, const char *out_path, char *out, size_t cap, SrError *err)
{
    if (cap == 0) return sr_fail(err, "command line: no room");
    out[0] = 0;
    PlotWords w;
    int rc = explorer_command_words(s, src, sentence, r, width, height, out_path, &w);
    if (rc == 0 && plot_words_line(&w, out, cap)) rc = sr_fail(err, "command line: longer than %zu bytes", cap);
    else if (rc) sr_fail(err, "command line: out of memory");
    plot_words_free(&w);
    return rc;
}
