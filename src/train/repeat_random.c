/* repeat_random.c — windows of a random piece sequence and its copies, mixed
 * among the windows of a token stream. */
#include "train/repeat_random.h"

#include "text/words.h"

int repeat_random_window(Rng *rng, int vocab_size, int T, int *ids, int *targets)
{
    int longest = (T - 1) / 2 < REPEAT_RANDOM_MAX_PIECES ? (T - 1) / 2 : REPEAT_RANDOM_MAX_PIECES;
    int m = REPEAT_RANDOM_MIN_PIECES +
            (int)rng_below(rng, (uint32_t)(longest - REPEAT_RANDOM_MIN_PIECES + 1));
    int x[REPEAT_RANDOM_MAX_PIECES];
    for (int j = 0; j < m; j++)
        x[j] = TOK_N_SPECIAL + (int)rng_below(rng, (uint32_t)(vocab_size - TOK_N_SPECIAL));
    /* token j of the layout: <bos> at every multiple of m + 1, else a piece of x */
    for (int j = 0; j < T; j++) {
        ids[j] = j % (m + 1) == 0 ? TOK_BOS : x[j % (m + 1) - 1];
        int next = (j + 1) % (m + 1);
        targets[j] = j + 1 <= m + 1 ? -1 : next == 0 ? TOK_BOS : x[next - 1];
    }
    return m;
}

void repeat_random_batch(void *source, Rng *rng, int step, int B, int T, int *ids, int *targets)
{
    (void)step;
    const RepeatRandomSource *s = source;
    for (int b = 0; b < B; b++) {
        int *row_ids = ids + (size_t)b * T, *row_targets = targets + (size_t)b * T;
        if (rng_uniform(rng) < s->share)
            repeat_random_window(rng, s->vocab_size, T, row_ids, row_targets);
        else
            pretrain_stream_window(&s->stream, rng, T, row_ids, row_targets);
    }
}
