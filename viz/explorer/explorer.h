/* explorer.h — `seqrep explore`: the interactive window over the figures.
 *
 * Its views are those of the rows of the table of figures (figures.h): each
 * figure that applies to the model and the files it was started on is a
 * view, with the keys its row gives it. The window draws with the same
 * painters as `seqrep plot`, one painter call per frame on a cairo image
 * surface the size of the window, on the data `seqrep plot` would load for
 * the frame's plot command (or, for the views of the model's forward, on
 * the maps the worker computed).
 * Saving a frame (PNG or SVG) calls the same painter on an export target
 * (export.h) of the window's size, so a saved frame is exactly the figure on
 * screen, without the transient overlays (tooltip, key help, "computing",
 * the status line).
 *
 * The parts, each with its own header:
 *   - pure functions, no SDL and no model, so they are unit-tested: the view
 *     state (explorer_state.h), the keys (explorer_keys.h), the --script
 *     parser (explorer_script.h), save names (explorer_names.h) and the `c`
 *     command line (explorer_command.h);
 *   - what is read before the window opens (explorer_input.h);
 *   - the background recompute of the forward when the sentence or r
 *     changes: a worker thread with the model loaded once (explorer_worker.h;
 *     the maps' own thread computes the layers a view shows);
 *   - the window, opened on ExplorerOptions (explorer_options.h): events and
 *     rendering (explorer.c, sharing explorer_window.h with its parts), the
 *     data behind the views (explorer_views.c), the explorer opened without
 *     a window on the options (explorer_setup.c), what is under the mouse
 *     and the overlays (explorer_overlays.c) and saving (explorer_save.c).
 *
 * Keys (the `?` overlay lists them):
 *   <left> <right>   layer - / +            <up> <down>   head - / +
 *   a                mean over heads on / off
 *   0..9             r = that digit         + -           r + 1 / r - 1
 *   <pgup> <pgdn>    previous / next sentence
 *   m                mask view / attention view
 *   o                layer x head overview
 *   R                head roles on the overview (copy, induction, previous,
 *                    sink: the strongest per head, the best head per score)
 *   p  e  f          probe F1 per layer, exit plot, attention flow (with
 *                    --layers, --exit, --flow: result CSVs of other commands)
 *   z                RePo positions z of the sentence (a RePo model); again:
 *                    z per copy of the repeated sentence
 *   g  n             RePo z range against length, attention on the needle
 *                    (with --repo-range, --repo-needle: repo-eval CSVs)
 *   and the keys of the other views of the table of figures, each with the
 *   line its row gives it (after these in ? and in explore --help)
 *   b                only attention from the last copy into earlier copies
 *   l                log colour scale on / off
 *   t                light / dark theme
 *   s  v             save the frame as PNG / SVG into the save directory
 *   c                print the `seqrep plot` command that renders this frame
 *   <space>          guided walk: the next stop of the tour
 *   ?                key help on / off
 *   q  <esc>         quit */
#ifndef SEQREP_VIZ_EXPLORER_H
#define SEQREP_VIZ_EXPLORER_H

#include "base/status.h"
#include "explorer/explorer_options.h"

/* Open the window and run until q / Esc / the window is closed / the end of
 * the script. The `c` command lines go to stdout, "wrote FILE" lines to
 * stderr. 0 on success; -1 with err when the inputs cannot be read, the
 * window cannot be opened, or (with a script) a save fails. */
int explorer_run(const ExplorerOptions *o, SrError *err);

#endif
