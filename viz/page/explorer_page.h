/* explorer_page.h — `seqrep explore ... --html OUT.html`: the explorer as
 * one self-contained web page (explorer_page.c, explorer_page_walk.c).
 *
 * The page holds every frame the window's keys reach from the first view,
 * within what was asked to be exported (the r of --html-r, the views of
 * --html-views, every snapshot of --series; one sentence, one theme and
 * scale), each drawn by the painter of its row of the table of figures at
 * --size exactly as `seqrep plot` draws it and kept as a PNG in the page;
 * with each frame its `seqrep plot` command, and for a view drawn as a grid
 * of cells (the attention map, the mask) the grid and the hover text of
 * every cell. The keys are the window's: which state a key leads to, and
 * the message it leaves, are those of explorer_apply_key (explorer_keys.h)
 * walked here once and written as a table; a key whose result was not
 * exported leads nowhere and says why. The page's script only looks up that
 * table and draws the pinned token's row and column over the image
 * (viz/page/page.html). */
#ifndef SEQREP_VIZ_EXPLORER_PAGE_H
#define SEQREP_VIZ_EXPLORER_PAGE_H

#include "base/status.h"
#include "explorer/explorer_options.h"

/* Write the page of the options o (o->html, its path). Progress on stderr.
 * 0, or -1 with err. */
int explorer_write_page(const ExplorerOptions *o, SrError *err);

#endif
