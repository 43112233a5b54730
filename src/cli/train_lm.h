/* train_lm.h — `seqrep train-lm` in three files, sharing what this header
 * holds: the command (cmd_train_lm.c: the corpus, the model, the loop), its
 * options (train_lm_options.c: the table, the defaults --help states, the
 * checks) and what it writes while it runs (train_lm_saving.c: the
 * checkpoint and its manifest, the training state a run resumes from, the
 * snapshots). */
#ifndef SEQREP_TRAIN_LM_H
#define SEQREP_TRAIN_LM_H

#include <signal.h>

#include "engine/model.h"
#include "repo/repo_eval.h"
#include "text/tokenizer.h"
#include "train/pretrain.h"
#include "train/repeat_stream.h"

/* The options of `seqrep train-lm`, as given and as parsed. */
typedef struct {
    const char *corpus, *out, *objective, *positions, *init, *tokenizer, *vocab;
    const char *snapshots, *snapshot_steps; /* NULL: no snapshots; default steps */
    int layers, d_model, heads, d_ff, seq_len, batch, steps, warmup, seed, threads, repo_from;
    int min_count, max_vocab, lowercase, untied, quiet, vocab_size;
    int save_every, resume, warmup_default; /* warmup_default: --warmup not given */
    int recompute;      /* keep each layer's input only (model_set_recompute) */
    float lr, min_lr, weight_decay, clip, rope_theta;
    float repeat_share, repeat_random; /* P of the repeated sentences, of the random windows */
    int repeat_copies;                 /* K */
    RepoMethod method;  /* --positions, parsed */
} TrainOptions;

/* What one run holds: the vocabulary and the encoded corpus, the --init
 * checkpoint, the model being trained and its positions. */
typedef struct {
    Tokenizer tok;
    EncodedText text;
    RepeatedStream repeated; /* with --repeat-share: the stream with repeated sentences */
    RepeatCounts counts;     /* with --repeat-share: the sentences repeated */
    const int *ids;          /* the stream trained on: text.ids, or repeated.ids */
    long n_ids;
    long n_train;       /* tokens of the training part (the first 95% of text, its
                           repeated sentences added) */
    int *snapshot_steps; /* (n_snapshots) ascending, with --snapshots */
    int n_snapshots;
    Model base;         /* the --init checkpoint */
    Model m;
    RepoRun positions;
    PretrainResult result;
    float val_loss;     /* -1: none */
    double process;     /* bytes held before the model (the memory floor's) */
    char *state_path;   /* OUT.state.safetensors, with --save-every or --resume */
    char *settings;     /* the settings of this run (JSON object text) */
    PretrainState from; /* with --resume: where the saved run stands */
} TrainRun;

/* Parse argv into o and check every value that needs no file: 0, 1 after
 * --help, 2 after the error line. */
int train_lm_parse_options(int argc, char **argv, TrainOptions *o);

/* What a save during the run needs, and the step of the last save. */
typedef struct {
    int argc;
    char **argv;
    const TrainOptions *o;
    const TrainRun *run;
    int saved_at; /* 0: none yet (with --resume: the saved step resumed from) */
} SaveContext;

/* Write the checkpoint of m to path with its vocabulary and manifest (the
 * command, the corpus and what the run did; saved_at > 0 marks a
 * checkpoint saved at that step of a run still going, snapshot >= 0 the
 * snapshot of that step). 0 or -1 with err filled. */
int train_lm_write_checkpoint(int argc, char **argv, const TrainOptions *o, const TrainRun *run, const Model *m,
                              const char *path, int saved_at, int snapshot, SrError *err);

/* With --save-every or --resume: the state's name beside --out, and the
 * saved state (--resume: its weights, moments, step and Rng into run, its
 * settings checked against the options) or this run's settings. 0, or 2
 * after the error line. */
int train_lm_prepare_saving(TrainOptions *o, TrainRun *run);

/* The steps of the snapshots (run->snapshot_steps, ascending): --snapshot-steps,
 * or every --save-every step and the last. 0, or 2 after the error line. */
int train_lm_plan_snapshots(const TrainOptions *o, TrainRun *run);

/* Before the loop: the snapshot folder, the snapshot of step 0 in a new run,
 * and a note for each snapshot a resumed run is past and did not find.
 * 0, or 2 after the error line. */
int train_lm_start_snapshots(const SaveContext *sc);

/* How the loop saves (train/pretrain.h): the state and checkpoint every
 * --save-every steps (from the saved step with --resume), the snapshots
 * after their steps, a stop after the step once *stop is set; through sc. */
PretrainSaving train_lm_saving(SaveContext *sc, volatile sig_atomic_t *stop);

#endif
