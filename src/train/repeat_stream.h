/* repeat_stream.h — pre-training on repeated text (`train-lm --repeat-share P
 * --repeat-copies K`): a share of the corpus sentences is followed in the
 * token stream by K - 1 more copies of itself, each led by <bos> as sequence
 * repetition's input is:
 *
 *     stream today      <bos> a a a <bos> b b <bos> c c c c <bos> d d | held-out
 *     b repeated, K = 2 <bos> a a a <bos> b b <bos> b b <bos> c c c c <bos> d d | held-out
 *
 * Only the training part changes. The caller splits the stream of the
 * corpus as it always did (the training part ids[0, n_train), the held-out
 * part after it); a training sentence is a line wholly inside the training
 * part, and only training sentences are repeated. The line that crosses the
 * split and the held-out part follow unchanged, so a held-out loss measured
 * after the transform is measured on the same tokens as before it.
 *
 * Which sentences: the ones whose K copies fit in the training window
 * (K x its tokens, <bos> included, <= window) are candidates; of them
 * round(P x candidates) are chosen uniformly at random with a generator of
 * their own seeded from the run's seed (selection sampling: each candidate
 * in turn is taken with probability still-needed / still-left), so the same
 * seed repeats the same sentences and the window draws of training are
 * untouched. K itself is refused when more than 1% of the training
 * sentences are not candidates (repeat_stream_max_copies): repetition then
 * leaves out at most 1% of the sentences, the longest ones. */
#ifndef SEQREP_REPEAT_STREAM_H
#define SEQREP_REPEAT_STREAM_H

#include <stdint.h>

#include "base/status.h"
#include "text/tokenizer.h"

typedef struct {
    float share;   /* P in [0, 1): of the candidates, the share repeated */
    int copies;    /* K >= 2: copies of a repeated sentence in all */
    int window;    /* the training window, in tokens (train-lm --seq-len) */
    uint64_t seed; /* the run's seed */
} RepeatSettings;

/* What the choice found, for the run's manifest and messages. */
typedef struct {
    long sentences;  /* training sentences (lines wholly inside ids[0, n_train)) */
    long candidates; /* of them, those whose K copies fit the window */
    long repeated;   /* of them, chosen to be repeated */
} RepeatCounts;

/* The token stream of a run with repeated sentences. */
typedef struct {
    int *ids;       /* (n_ids) owned */
    long n_ids;
    long n_train;   /* the training part is ids[0, n_train); the held-out part follows */
} RepeatedStream;

/* The largest K for which all but at most 1% (rounded down) of the training
 * sentences of text (lines wholly inside ids[0, n_train)) fit K times in
 * window tokens; 0 when there is no training sentence or that many do not
 * fit even once. *longest (may be NULL) gets the length, <bos> included, of
 * the longest sentence that must fit (the 99th percentile). */
int repeat_stream_max_copies(const EncodedText *text, long n_train, int window, long *longest);

/* Choose the sentences to repeat under s: chosen (text->n_lines) gets 1 for
 * a chosen line, 0 otherwise (the line crossing n_train and those after it
 * are never chosen); *counts what was found. */
void repeat_stream_choose(const EncodedText *text, long n_train, const RepeatSettings *s,
                          unsigned char *chosen, RepeatCounts *counts);

/* The stream of text with every chosen training line written `copies` times
 * in a row, the rest as it is: out->n_train = n_train plus the added tokens,
 * and out->ids[out->n_train, out->n_ids) equal to text->ids[n_train,
 * text->n_ids). 0, or -1 with err filled (out of memory; out is then empty). */
int repeat_stream_build(const EncodedText *text, long n_train, int copies,
                        const unsigned char *chosen, RepeatedStream *out, SrError *err);

/* repeat_stream_choose, then repeat_stream_build with s->copies. 0, or -1
 * with err filled. */
int repeat_stream_make(const EncodedText *text, long n_train, const RepeatSettings *s,
                       RepeatedStream *out, RepeatCounts *counts, SrError *err);

/* Release a RepeatedStream (safe on a zeroed or already freed one). */
void repeated_stream_free(RepeatedStream *r);

#endif
