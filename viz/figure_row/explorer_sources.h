/* explorer_sources.h — the files and texts the explorer was started on, as
 * given on the command line: read by explorer_input.c, and by the views of
 * the table of figures (figure_view.h) that write them back into the
 * `seqrep plot` command of a frame. */
#ifndef SEQREP_VIZ_EXPLORER_SOURCES_H
#define SEQREP_VIZ_EXPLORER_SOURCES_H

#include "repeat/repeat.h"

/* How the data was given on the command line, for the `c` command. */
typedef struct {
    const char *model;           /* --model                                    */
    const char *adapter;         /* --adapter FILE (finetune --save), or NULL  */
    const char *series;          /* --series DIR: model (and adapter) are its snapshot's */
    const char *data;            /* --data FILE (CoNLL), or NULL               */
    const char *text;            /* --text "sentence", or NULL                 */
    const char *mask;            /* --mask plan, or NULL (causal)              */
    RepeatPositions copy_positions; /* --copy-positions (run unless restart)   */
    const char *layers;          /* --layers probe CSV(s), comma-separated     */
    const char *baselines;       /* --baselines for the layers view, or NULL   */
    const char *exit;            /* --exit fine-tune or sweep CSV              */
    const char *cost;            /* --cost flops|seconds, or NULL              */
    const char *flow;            /* --flow attnflow CSV                        */
    const char *repo_range;      /* --repo-range repo-eval TASK-range.csv      */
    const char *repo_needle;     /* --repo-needle repo-eval TASK-attention.csv */
    const char *heads;           /* --heads CSV of seqrep heads                */
    const char *split;           /* --split for layers/exit, or NULL           */
    const char *dataset;         /* --dataset of a sweep CSV for exit, or NULL */
    const char *font;            /* --font, or NULL                            */
} ExplorerSources;

/* The file given to the explore option `option` (without "--": "layers",
 * "exit", "flow", "repo-range", "repo-needle", "heads", "series"), or NULL
 * when it was not given or is no such option. */
const char *explorer_source(const ExplorerSources *src, const char *option);

#endif
