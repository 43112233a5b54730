/* sweep_command.h — one run of a sweep as a `seqrep finetune` command: its
 * result file's name, its argument vector, and that vector as a shell line. */
#ifndef SEQREP_SWEEP_COMMAND_H
#define SEQREP_SWEEP_COMMAND_H

#include <stddef.h>

#include "base/status.h"
#include "runs/sweep/sweep_grid.h"

/* Fine-tuning options passed to every run. */
typedef struct {
    int epochs;         /* > 0 */
    float lr;           /* passed only when lr_set */
    int lr_set;
    int batch;          /* passed only when batch_set */
    int batch_set;
    int threads;        /* passed only when threads_set */
    int threads_set;
    int grad_accum;     /* passed only when grad_accum_set */
    int grad_accum_set;
    /* passed only to runs whose adapter is lora, each only when set: */
    int lora_rank, lora_rank_set;
    float lora_alpha;
    int lora_alpha_set;
    float lora_dropout;
    int lora_dropout_set;
    const char *lora_targets;  /* NULL = not set */
    int save_models;    /* 1: each run saves its model (--save, sweep_saved_model_path) */
    const char *ablate_heads; /* --ablate-heads of every run (finetune checks it); NULL = not set */
    int recompute;      /* 1: each run recomputes its layers in the backward (--recompute) */
} SweepFinetuneOptions;

/* The checkpoint's file name without directory and ".safetensors", into out
 * (capacity n; cut short to fit): "out/lm.safetensors" -> "lm". */
void sweep_model_label(const char *model, char *out, size_t n);

/* File name of a run's result inside runs_dir:
 *   RUNS_DIR/DATASET.MODEL.METHOD.rR.exitL.seedS[.RECIPE][.POSITIONS].csv
 * where MODEL is the checkpoint's file name without ".safetensors", .RECIPE
 * the recipe label, left out for "full", and .POSITIONS (.restart,
 * .induction) there for positions other than run only (so the files of runs
 * made before positions keep their names). */
int sweep_run_path(const SweepRun *run, const char *runs_dir, char *out, size_t n, SrError *err);

/* path with its file name's extension replaced by suffix (manifest.h's
 * path_with_suffix) into out (capacity n): ("a/run.csv", ".log") -> "a/run.log". */
int sweep_named_beside(const char *path, const char *suffix, char *out, size_t n, SrError *err);

/* The test predictions beside a run's result file (CoNLL: word, gold,
 * predicted): "DIR/RUN.csv" -> "DIR/RUN.predictions.conll", into out
 * (capacity n). */
int sweep_predictions_path(const char *run_csv, char *out, size_t n, SrError *err);

/* The fine-tuned model beside a run's result file, as `seqrep finetune
 * --save` writes it (the head, and the LoRA adapters of a LoRA run):
 * "DIR/RUN.csv" -> "DIR/RUN.model.safetensors", into out (capacity n). */
int sweep_saved_model_path(const char *run_csv, char *out, size_t n, SrError *err);

/* The runs directory of a sweep CSV when none is given: the CSV's path with
 * its extension replaced by ".runs" ("out/sweep.csv" -> "out/sweep.runs"). */
int sweep_default_runs_dir(const char *sweep_csv, char *out, size_t n, SrError *err);

/* The argument vector of the run: exe finetune --model M --train DIR/train.conll
 * --dev DIR/dev.conll --test DIR/test.conll --method X --r R --exit L --seed S
 * --epochs E [--lr --batch --threads] [--recipe NAME (not for full)] [--adapter
 * A (when the label says "+A")] [--grad-accum --lora-*] [--copy-positions
 * restart | induction (runs of those positions only)] [--ablate-heads
 * (when set)] --out out_csv --predictions
 * (sweep_predictions_path of out_csv) [--save (sweep_saved_model_path of
 * out_csv) when o->save_models] --quiet, NULL-terminated.
 * New array of new strings (sweep_argv_free). */
int sweep_run_argv(const SweepRun *run, const SweepFinetuneOptions *o, const char *exe,
                   const char *out_csv, char ***argv, int *argc, SrError *err);
void sweep_argv_free(char **argv, int argc);

/* The argument vector as one shell command line (words quoted where
 * needed). New string or NULL. */
char *sweep_command_line(char *const *argv, int argc);

#endif
