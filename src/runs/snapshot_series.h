/* snapshot_series.h — checkpoints kept at fixed steps of a pre-training
 * (`train-lm --snapshots DIR`), for studying what the model learns when:
 *
 *   DIR/step-000000.safetensors   the initial weights (step 0)
 *   DIR/step-000150.safetensors   the weights after 150 optimiser steps
 *   DIR/series.json               the manifest of the series
 *
 * series.json is the manifest of the run that wrote it last (command, seed,
 * commit, time) with "steps" (the run's total) and "snapshots": one object a
 * snapshot, by step, {"step": 150, "file": "step-000150.safetensors",
 * "train_loss": 5.93} (the loss of that step's batch, measured before its
 * update, as the progress lines show it; null at step 0). Every write is
 * atomic, and an entry is kept only while its file is there, so a resumed
 * run adds its snapshots to the ones already made.
 *
 * A fine-tuning's series (`finetune --save-epochs DIR`) is the same with
 * "unit": "epoch": DIR/epoch-0000.safetensors (before training),
 * epoch-0001 ..., "steps" the run's epochs, and each entry's "step" its
 * epoch, with "epoch", "dev_f1" and "test_f1" (%) beside "train_loss" (the
 * epoch's mean; null at epoch 0). With LoRA ("epoch_files": "adapter") the
 * files hold the head and adapters (formats/adapter.h) of the base model
 * "model" names; a full fine-tuning's ("epoch_files": "model") are whole
 * checkpoints. */
#ifndef SEQREP_SNAPSHOT_SERIES_H
#define SEQREP_SNAPSHOT_SERIES_H

#include <cJSON.h>

#include "base/status.h"

/* "DIR/step-NNNNNN.safetensors" (six digits or more): a new string (caller
 * frees), NULL when out of memory. */
char *snapshot_path(const char *dir, int step);

/* The steps of a series, ascending, into *out (a new array of *n, caller
 * frees): those of list (int_list syntax, "0,50,100..120", each in
 * 0..steps, none twice) or, when list is NULL, every `every`-th step and
 * the last (every >= 1). 0, or -1 with err filled (the int_list message and
 * the number of steps). */
int snapshot_steps_plan(const char *list, int every, int steps, int **out, int *n, SrError *err);

/* Whether step is one of the n ascending steps. */
int snapshot_steps_has(const int *steps, int n, int step);

/* Whether the snapshot of step is in dir. */
int snapshot_exists(const char *dir, int step);

/* Create dir when it is not there (its parent must be). 0, or -1 with err
 * naming it. */
int snapshot_dir_make(const char *dir, SrError *err);

/* 0 when dir/series.json is absent or a series, else -1 with err naming it
 * (checked before a run writes its first snapshot). */
int snapshot_series_check(const char *dir, SrError *err);

/* Record the snapshot of step (its file already written) in dir/series.json:
 * head (the run's manifest, copied) with "steps": total and the snapshots of
 * the series there before whose files remain, this one added or replaced,
 * in the order of their steps. has_loss 0 writes train_loss null. 0, or -1
 * with err filled (a series.json that is not one is named, never replaced). */
int snapshot_series_add(const char *dir, const cJSON *head, int total, int step, int has_loss,
                        double train_loss, SrError *err);

/* One snapshot of a series: its step (or epoch) and what to load: the
 * checkpoint (model) alone, or for a LoRA fine-tuning's epochs the base model
 * with the epoch's adapter file. */
typedef struct {
    int step;
    char *model;   /* a path (owned)                                  */
    char *adapter; /* a path (owned), NULL in a pre-training's series */
} SnapshotEntry;

typedef struct {
    int n;              /* at least one                         */
    SnapshotEntry *e;   /* (n) in the order of their steps       */
    int epochs;         /* "unit": "epoch"                        */
} SnapshotList;

/* The snapshots of dir/series.json (read by runs/series_file.h), each with
 * its file there (and, for an epoch series, the base model its "model"
 * names). 0, or -1 with err naming the file (series_file.h's messages, and
 * "runs/series.json: no snapshots", "runs/step-000150.safetensors (step 150
 * of runs/series.json) not found"). */
int snapshot_series_list(const char *dir, SnapshotList *out, SrError *err);
void snapshot_list_free(SnapshotList *l);

/* "DIR/epoch-NNNN.safetensors" (four digits or more): a new string (caller
 * frees), NULL when out of memory. */
char *snapshot_epoch_path(const char *dir, int epoch);

/* Record the adapter file of epoch (already written) in dir/series.json as
 * snapshot_series_add does, with "unit": "epoch", epochs the run's total and
 * the epoch's scores; train_loss NAN writes null. 0, or -1 with err. */
int snapshot_series_add_epoch(const char *dir, const cJSON *head, int epochs, int epoch, double train_loss,
                              double dev_f1, double test_f1, SrError *err);

#endif
