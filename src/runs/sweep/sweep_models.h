/* sweep_models.h — the models of a sweep's runs, checked before any run
 * starts: each checkpoint's layer count (read once, for the exits of the
 * grid, sweep_resolve_exits) and whether every sentence of each run's data,
 * repeated as the run asks, fits in its model's context. */
#ifndef SEQREP_SWEEP_MODELS_H
#define SEQREP_SWEEP_MODELS_H

#include "base/status.h"
#include "runs/sweep/sweep_grid.h"

/* The layer counts of the checkpoints read so far. */
typedef struct {
    int n;
    char model[64][1024];
    int n_layers[64];
} SweepLayerCache;

/* A SweepLayerCount (sweep_grid.h) whose ctx is a SweepLayerCache: the
 * checkpoint's configuration read once per path. 0, or -1 with err. */
int sweep_count_layers(const char *model, void *ctx, int *n_layers, SrError *err);

/* For every (data, model) pair among runs[todo[0..n_todo)]: load the task
 * and check that every sentence of the three splits, repeated as each of
 * the pair's runs asks, fits in the model's max_seq_len. 0, or -1 with err
 * ("... (r = R, model M)"). */
int sweep_check_fits(const SweepRun *runs, const int *todo, int n_todo, SrError *err);

#endif
