/* explorer_options.h — what `seqrep explore` was started with: the sources,
 * the window and the first view (cmd_explore.c reads them from the command
 * line; explorer_run opens the window on them). */
#ifndef SEQREP_VIZ_EXPLORER_OPTIONS_H
#define SEQREP_VIZ_EXPLORER_OPTIONS_H

#include "attention/attention_data.h"
#include "draw/figure.h"
#include "figure_row/explorer_sources.h"
#include "explorer_state/explorer_state.h"
#include "repeat/repeat.h"

typedef struct {
    ExplorerSources src;
    RepeatBos bos;               /* --bos, or per-copy when not given            */
    int bos_given;               /* 0: the tokenizer settles bos (readout_choose_bos) */
    RepeatSep sep;
    const char *save_dir;        /* where s, v and <shot> write ("." by default)   */
    const char *script;          /* --script, or NULL (interactive)               */
    const char *script_file;     /* --script-file: the same kept in a file, or NULL */
    const char *frame_times;     /* --frame-times: CSV of draw times, or NULL     */
    int width, height;           /* window size in pixels (--size)                */
    int sentence, r, layer, head;/* the first view: r -1 = 1 when it fits, layer -1
                                    = the last, head -1 = mean                     */
    AttentionScale scale;
    FigureTheme theme;
    int view;                    /* the first view: a view of the table of figures */
    /* --html: the page instead of the window (explorer_page.h) */
    const char *html;            /* its path, or NULL                             */
    int html_r[16], n_html_r;    /* --html-r: the r it holds (n 0: the first r)    */
    const char *html_views;      /* --html-views: a comma list of views, NULL = all */
} ExplorerOptions;

#endif
