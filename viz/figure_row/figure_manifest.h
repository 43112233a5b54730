/* figure_manifest.h — what a figure's manifest records of its inputs: each
 * file with its checksum and, when the file has a manifest of its own, that
 * manifest (the chain back to model, data and seed), and the sentence run
 * through a model with its repetition. */
#ifndef SEQREP_VIZ_FIGURE_MANIFEST_H
#define SEQREP_VIZ_FIGURE_MANIFEST_H

#include <cJSON.h>

#include "figure_row/figure_request.h"
#include "repeat/repeat.h"

/* Add "key": path and "key_checksum" to the manifest, and, when the input
 * has a manifest of its own beside it (results of seqrep commands do),
 * that manifest as "key_manifest". */
void figure_manifest_input(cJSON *manifest, const char *key, const char *path);

/* Add {"file", "file_checksum"} objects for paths[0..n) to manifest[key]. */
void figure_manifest_inputs(cJSON *manifest, const char *key, const char *const *paths, int n);

/* Add "head": the head number, or "mean" for -1. */
void figure_manifest_head(cJSON *manifest, int head);

/* Record what a figure run through a model ran: the model, adapter and data
 * files of run, the sentence, r, bos, sep, the mask plan and how the copies
 * were numbered. */
void figure_manifest_model_run(cJSON *manifest, const FigureModelRun *run, const char *text, int r, RepeatBos bos,
                               RepeatSep sep, RepeatPositions positions);

#endif
