/* train_state.h — the training state saved beside a checkpoint, so that an
 * interrupted optimiser run can continue exactly where it was saved.
 *
 * One safetensors file (train-lm writes MODEL.state.safetensors beside
 * MODEL.safetensors) holding
 *   params    (n_params) F32  the model's parameter buffer as it is in memory
 *   adamw.m1  (n_params) F32  AdamW first moments, same layout
 *   adamw.m2  (n_params) F32  AdamW second moments, same layout
 * and the metadata strings
 *   "format"          "seqrep-train-state"
 *   "seqrep.step"     optimiser steps done (decimal)
 *   "seqrep.rng"      the four xoshiro256** words of the run's Rng, 16 hex digits each
 *   "seqrep.loss"     the loss of that step (C99 hex float, exact)
 *   "seqrep.settings" a JSON object from the caller: what must not change on resuming
 *   "seqrep.checksum" FNV-1a 64 (16 hex digits) of the tensor bytes and the other values
 * The weights are in the state itself, so the state alone continues a run even
 * when the checkpoint beside it comes from another save (a run killed between
 * the two renames). Written atomically (temporary, fsync, rename). */
#ifndef SEQREP_TRAIN_STATE_H
#define SEQREP_TRAIN_STATE_H

#include <stddef.h>

#include "base/rng.h"
#include "base/status.h"
#include "engine/model.h"
#include "formats/safetensors.h"

/* A state read back: the scalars, the settings, and the tensors inside file. */
typedef struct {
    int step;
    Rng rng;
    float loss;
    char *settings_json;  /* owned JSON object text */
    size_t n_params;
    const float *params, *m1, *m2; /* (n_params) each, inside file */
    StFile file;
} TrainState;

/* Write m's params, m1 and m2 (adamw_create must have run) with step, rng,
 * loss and the settings (JSON object text) to path, atomically. 0 or -1. */
int train_state_save(const char *path, const Model *m, int step, const Rng *rng, float loss,
                     const char *settings_json, SrError *err);

/* Read and check a state: every tensor and value present and well formed,
 * the checksum matching ("PATH: damaged ..." when not). 0, or -1 with err
 * naming the file; st is then empty (train_state_free on it is harmless). */
int train_state_read(const char *path, TrainState *st, SrError *err);

/* Copy the state's params, m1 and m2 into m (created, same n_params; the
 * moments are allocated here when m has none). 0 or -1. */
int train_state_apply(const TrainState *st, Model *m, SrError *err);

/* Release what train_state_read put in st; zero it. */
void train_state_free(TrainState *st);

#endif
