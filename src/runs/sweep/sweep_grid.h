/* sweep_grid.h — the grid of a sweep: data x seeds x methods x r x exit
 * layers x recipes x copy positions, expanded into the runs it is made of.
 *
 * A run is identified by its key (dataset, model, method, r, exit, seed,
 * recipe, positions), where dataset is the last component of the data directory (the
 * directory holding train.conll, dev.conll, test.conll), model is the
 * checkpoint path as given, exit is the resolved layer L = 1..N (never 0)
 * and recipe is the fine-tuning recipe's label (train/recipe.h: "full",
 * "paper", "full+lora", ...; an empty recipe counts as "full", as in sweep
 * files written before recipes). positions is how the copies are numbered
 * (repeat.h: run, restart at 0 in every copy, or induction-aligned); only
 * sr has copies to renumber, so every other method's runs are positions run (as are the rows of
 * sweep files written before positions). */
#ifndef SEQREP_SWEEP_GRID_H
#define SEQREP_SWEEP_GRID_H

#include <stddef.h>

#include "base/status.h"
#include "label/methods.h"
#include "repeat/repeat.h"

/* The key of one run, and where its data lives. */
typedef struct {
    char dataset[256];    /* last component of data_dir */
    char data_dir[1024];  /* as given (empty for rows read back from a file) */
    char model[1024];     /* checkpoint path as given */
    Method method;
    int r;                /* sr: >= 1; every other method: 0 */
    int exit_layer;       /* 1..N once resolved; 0 = full depth before that */
    int seed;
    char recipe[48];      /* recipe label; "" = "full" */
    RepeatPositions positions; /* run (0, the default), restart or induction: sr only */
} SweepRun;

/* What the grid is made of. Lists are used in the order given. */
typedef struct {
    const char *const *data_dirs;  /* (n_data) directories with the three splits */
    int n_data;
    const char *model;             /* checkpoint; "{data}" is replaced by the dataset name */
    const char *encoder_model;     /* checkpoint for method encoder (same rule); may be NULL */
    const Method *methods;         /* (n_methods) */
    int n_methods;
    const int *r_values;           /* (n_r) repetitions, each >= 1: used by sr only */
    int n_r;
    const int *exits;              /* (n_exits) exit layers, 0 = full depth */
    int n_exits;
    const int *seeds;              /* (n_seeds) */
    int n_seeds;
    const char *const *recipes;    /* (n_recipes) recipe labels; NULL or 0 = "full" only */
    int n_recipes;
    const RepeatPositions *positions; /* (n_positions) copy positions of sr; NULL or 0 = run only */
    int n_positions;
} SweepGrid;

/* Parse a comma-separated list of integers, each >= min_value ("5,29,42").
 * *values is a new array (caller frees). Duplicates are an error. */
int sweep_parse_int_list(const char *text, int min_value, int **values, int *n_values,
                         SrError *err);

/* Parse a comma-separated list of method names (methods.h) into methods
 * (capacity METHOD_COUNT). Duplicates are an error. */
int sweep_parse_methods(const char *text, Method *methods, int *n_methods, SrError *err);

/* What a line about a run says of its positions: "" for run, else
 * " positions=NAME" (" positions=restart"). */
const char *sweep_positions_words(RepeatPositions positions);

/* Parse a comma-separated list of copy positions, each run, restart or
 * induction ("run,restart"), into positions (capacity 3). Duplicates are an
 * error. */
int sweep_parse_positions(const char *text, RepeatPositions *positions, int *n_positions,
                          SrError *err);

/* The dataset name of a data directory: its last path component, trailing
 * slashes ignored ("out/right-cue/" -> "right-cue"). */
int sweep_dataset_name(const char *data_dir, char *name, size_t n, SrError *err);

/* Expand the grid into *runs (new array, caller frees), in the order data,
 * seed, method, r (sr only; the others have r = 0), exit, recipe, positions
 * (sr only; the others have one run, positions run). Exits stay as
 * given (0 = full depth) until sweep_resolve_exits. Method encoder needs an
 * encoder model; two data directories with the same name are an error. */
int sweep_grid_expand(const SweepGrid *g, SweepRun **runs, int *n_runs, SrError *err);

/* How many layers the checkpoint at `model` has (ctx is the caller's). */
typedef int (*SweepLayerCount)(const char *model, void *ctx, int *n_layers, SrError *err);

/* Replace exit 0 by each run's model depth N, check 1 <= exit <= N, and drop
 * the runs this makes duplicates (the first is kept); *n_runs shrinks. */
int sweep_resolve_exits(SweepRun *runs, int *n_runs, SweepLayerCount count, void *ctx,
                        SrError *err);

/* The recipe label of a run: its recipe, or "full" when that is empty. */
const char *sweep_recipe(const SweepRun *run);

/* 1 if a and b have the same key (dataset, model, method, r, exit, seed,
 * recipe, positions). */
int sweep_same_key(const SweepRun *a, const SweepRun *b);

#endif
