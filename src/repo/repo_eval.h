/* repo_eval.h — the RePo experiments: position methods, training tiny
 * models on the tasks of repo_tasks.h, their accuracy, and measurements of
 * what learned positions do (z per token, its range, attention on a needle,
 * z over a repeated sentence).
 *
 * Position methods (one PosKind per layer, model.h):
 *   rope    integer positions 0..T-1 in every layer (RoPE)
 *   nope    no rotation in any layer (NoPE)
 *   const   every token at position 0 in every layer. A rotation by angle 0
 *           is the identity, so this computes exactly what nope computes
 *           (bit for bit: cos 0 = 1 and sin 0 = 0); the paper's framing of
 *           NoPE as "a constant position". It is kept as a control that goes
 *           through the rotation code and must reproduce nope.
 *   hybrid  RoPE and NoPE layers interleaved: even layers RoPE, odd NoPE
 *   repo    integer RoPE below layer repo_from, learned positions z from
 *           repo_from on (default ceil(N/3), the paper's choice) */
#ifndef SEQREP_REPO_EVAL_H
#define SEQREP_REPO_EVAL_H

#include <stdint.h>
#include <stdio.h>

#include "base/status.h"
#include "engine/model.h"
#include "repeat/repeat.h"
#include "repo/repo_tasks.h"
#include "text/tokenizer.h"

typedef enum {
    REPO_METHOD_ROPE = 0,
    REPO_METHOD_NOPE = 1,
    REPO_METHOD_CONST = 2,
    REPO_METHOD_HYBRID = 3,
    REPO_METHOD_REPO = 4
} RepoMethod;

#define REPO_N_METHODS 5
#define REPO_MAX_LAYERS 64

/* "rope", "nope", "const", "hybrid", "repo". */
const char *repo_method_name(RepoMethod m);
int repo_method_parse(const char *text, RepoMethod *out);

/* Parse a comma list of distinct method names into out (at most
 * REPO_N_METHODS); errors name the bad item. */
int repo_method_list_parse(const char *text, RepoMethod *out, int *n, SrError *err);

/* The default first RePo layer: ceil(N/3) (0 for a one-layer model). */
int repo_default_from(int n_layers);

/* Set cfg->repo and cfg->repo_from for method m: RePo layers from repo_from
 * (< 0: the default) for repo, none otherwise; and cfg->nope_layers, the
 * layers a checkpoint of the method leaves unrotated when it is run without
 * a plan (every layer for nope and const, the odd ones for hybrid). Fails when repo_from is
 * outside 0..N-1 or the model has more than REPO_MAX_LAYERS layers. */
int repo_method_config(RepoMethod m, int repo_from, ModelConfig *cfg, SrError *err);

/* The position plan of method m for a model of config cfg (N entries). */
void repo_method_plan(RepoMethod m, const ModelConfig *cfg, PosKind *plan);

/* 1 if method m rotates by position 0 everywhere (ModelInput.positions = 0). */
int repo_method_zero_positions(RepoMethod m);

/* The plan and positions of one method, ready to put in a ModelInput. */
typedef struct {
    RepoMethod method;
    PosKind plan[REPO_MAX_LAYERS];
    int *zeros;          /* (max_batch * max_T) zero positions for const, else NULL; owned */
} RepoRun;

/* Prepare a run of method m on model m (allocates the zeros for const). */
int repo_run_init(RepoRun *run, RepoMethod method, const Model *m, SrError *err);
void repo_run_free(RepoRun *run);

/* Put the run's plan and positions into in. */
void repo_run_apply(const RepoRun *run, ModelInput *in);

/* ---- models --------------------------------------------------------------------- */

/* Copy the weights dst and src share: every parameter of the plain model
 * (embedding, layers, norms, head), and the RePo weights too when both have
 * them from the same layer. The two must agree in every size. dst's other
 * RePo weights keep their values (initialise them first). */
int repo_copy_shared_weights(Model *dst, const Model *src, SrError *err);

/* A new model dst with src's config and weights, sized for batches of
 * max_batch x max_T (max_seq_len raised to max_T if needed: RoPE has no
 * table of positions, so running longer than trained is only a question of
 * memory). */
int repo_model_resize(const Model *src, int max_batch, int max_T, Model *dst, SrError *err);

/* Load checkpoint `path` to run method m at lengths up to max_T with
 * batches of max_batch, with the tokenizer of its vocabulary (subword when
 * its manifest says "tokenizer": "bpe", lower-casing when it says
 * "lowercase": true). *trained_len (may be NULL) gets the checkpoint's own
 * max_seq_len. Asking method repo of a checkpoint without RePo weights fails
 * with "PATH has no RePo weights (...)". */
int repo_load_model(const char *path, RepoMethod m, int max_batch, int max_T, Model *model,
                    Tokenizer *tok, int *trained_len, SrError *err);

/* ---- training and accuracy ---------------------------------------------------- */

typedef struct {
    int steps, batch, warmup;
    float lr, min_lr, weight_decay, clip;
    uint64_t seed;       /* the training examples' stream */
} RepoTrainOptions;

/* Steps 1000, batch 16, warm-up 50, lr 3e-3 -> 3e-4, decay 0.1, clip 1. */
RepoTrainOptions repo_train_defaults(void);

/* Train model m (initialised; AdamW moments are created here) under method
 * `method` on examples 0, 1, 2, ... of spec with seed o->seed, loss only on
 * the answers (every other target ignored), with the causal loop of
 * train/pretrain.h. spec->length must fit m->max_T and o->batch
 * m->max_batch. Progress lines go to log (NULL: quiet); the last step's loss
 * to *final_loss (may be NULL). */
int repo_train(Model *m, RepoMethod method, const RepoTaskSpec *spec, const RepoTrainOptions *o,
               FILE *log, float *final_loss, SrError *err);

/* Count rows b of logits (B, T, V) whose argmax at position answer_pos[b]
 * equals answers[b] (the first maximum wins a tie); answers < 0 never count. */
int repo_count_correct(const float *logits, int B, int T, int V, const int *answer_pos,
                       const int *answers);

/* Accuracy of model m under `method` on examples 0..n-1 of spec with seed:
 * the argmax of the logits at the first query's last token against the
 * answer. map (REPO_VOCAB_SIZE, from repo_task_map_vocab) turns task ids into
 * the model's ids (NULL: the model uses task ids); an answer the model's
 * vocabulary lacks is never correct. *correct gets the count. */
int repo_evaluate(Model *m, RepoMethod method, const RepoTaskSpec *spec, uint64_t seed, int n,
                  const int *map, long *correct, SrError *err);

/* One line of the accuracy CSV. */
typedef struct {
    const char *task, *method;
    int train_length, length;
    double depth;
    long n, correct;
} RepoAccRow;

/* The accuracy CSV header and one line. */
void repo_acc_write_header(FILE *out);
void repo_acc_write_row(FILE *out, const RepoAccRow *row);

/* ---- what the positions do ------------------------------------------------------- */

/* Write z of every RePo layer and head of row b of the last forward of m
 * (T tokens ids, B rows) as CSV lines "layer,head,index,token,copy,word,z".
 * Tokens are spelled with tok and quoted as CSV needs; copy and word come
 * from lay (NULL: -1). With header, the header line first. */
void repo_write_z_csv(FILE *out, const Model *m, int b, const int *ids, int T,
                      const Tokenizer *tok, const RepeatLayout *lay, int header);

/* Spread of z in the last forward of m (B rows of T tokens): for each
 * layer l, range[l] = mean over rows and heads of max_t z - min_t z, and
 * range_max[l] the largest of them; NAN for layers without RePo. */
void repo_z_range(const Model *m, double *range, double *range_max);

/* Attention paid by the first query's last token to its evidence (the
 * needle) and to the `window` tokens on each side of it in the context, per
 * layer (N), as total probability mass averaged over heads and examples
 * 0..n-1 of spec (run under `method`, mapped by map as in repo_evaluate).
 * near_tokens gets the mean number of neighbours counted. */
int repo_needle_attention(Model *m, RepoMethod method, const RepoTaskSpec *spec, uint64_t seed,
                          int n, int window, const int *map, double *needle_mass,
                          double *near_mass, double *near_tokens, SrError *err);

/* What RePo does with the copies of a repeated sentence, for one layer and
 * head, from the last forward of m on lay->ids (row 0). */
typedef struct {
    double same_word_gap;  /* mean |z_a(i) - z_b(i)| over words i and copies a < b */
    double first_gap;      /* the same over the pairs (first copy, a later copy) */
    double later_gap;      /* the same over pairs of later copies (0 when k < 3) */
    double z_spread;       /* standard deviation of z over all word tokens */
    double copy_shift;     /* mean over words i and copies c of z_{c+1}(i) - z_c(i) */
    double copy_extent;    /* mean over copies of max - min of z within the copy */
    double overlap;        /* mean over consecutive copies of |I_c cap I_c+1| / |I_c cup I_c+1|,
                              I_c = [min, max] of z in copy c */
} RepoRepeatStats;

/* Fill st for layer l (a RePo layer) and head h; needs lay->k >= 2. */
void repo_repeat_stats(const Model *m, int layer, int head, const RepeatLayout *lay,
                       RepoRepeatStats *st);

/* The same numbers for integer positions (what RoPE does), as a reference. */
void repo_repeat_stats_index(const RepeatLayout *lay, RepoRepeatStats *st);

#endif
