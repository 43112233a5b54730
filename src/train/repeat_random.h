/* repeat_random.h — training windows of repeated random piece sequences
 * (`train-lm --repeat-random P`), the synthetic data on which small
 * transformers are studied growing induction heads (Olsson et al., 2022).
 *
 * Each window of a batch is, with probability P (one draw of the run's rng
 * per window), a random window instead of one of the stream: a sequence x of
 * m pieces, m uniform in REPEAT_RANDOM_MIN_PIECES..REPEAT_RANDOM_MAX_PIECES
 * (at most (T - 1) / 2, so that two copies fit a window of T + 1 tokens),
 * each piece uniform over the ids that are not special, laid out
 *
 *     <bos> x1 .. xm <bos> x1 .. xm <bos> x1 ..      (T + 1 tokens, cut there)
 *
 * with ids the first T tokens and targets the T after them, as a stream
 * window has. The random pieces of the first copy cannot be predicted, so
 * their targets (and that of the <bos> closing the first copy) are -1,
 * ignored by the loss: only the copies are learnt, the first target that
 * counts being x1 after the second <bos>. Every choice is a draw of the
 * batch source's rng, so a run stays bit-reproducible and resumable. */
#ifndef SEQREP_REPEAT_RANDOM_H
#define SEQREP_REPEAT_RANDOM_H

#include "base/rng.h"
#include "train/pretrain.h"

enum {
    REPEAT_RANDOM_MIN_PIECES = 8,  /* the shortest random sequence */
    REPEAT_RANDOM_MAX_PIECES = 32, /* the longest, when the window holds two copies of it */
    REPEAT_RANDOM_MIN_WINDOW = 2 * REPEAT_RANDOM_MIN_PIECES + 1 /* T that holds two copies */
};

/* The batch source of a run with random windows: stream windows, and with
 * probability share random ones over the vocabulary of vocab_size ids. */
typedef struct {
    PretrainStream stream;
    float share;    /* P in [0, 1) */
    int vocab_size; /* > TOK_N_SPECIAL */
} RepeatRandomSource;

/* One random window (T >= REPEAT_RANDOM_MIN_WINDOW): the sequence length,
 * then its pieces, drawn from rng; ids and targets (T) laid out as above.
 * Returns m, the pieces of the sequence. */
int repeat_random_window(Rng *rng, int vocab_size, int T, int *ids, int *targets);

/* PretrainBatchFn of a RepeatRandomSource: B windows (B, T), each random
 * with probability share, else pretrain_stream_window of the stream. */
void repeat_random_batch(void *source, Rng *rng, int step, int B, int T, int *ids, int *targets);

#endif
