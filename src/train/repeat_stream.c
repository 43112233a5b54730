/* repeat_stream.c — a share of the training sentences of a token stream
 * repeated K times in a row, the held-out part untouched. */
#include "train/repeat_stream.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

/* The training sentences of text: the lines wholly inside ids[0, n_train)
 * (lines are in stream order, so they are the first ones). */
static long training_lines(const EncodedText *text, long n_train)
{
    long n = 0;
    while (n < text->n_lines && text->line_start[n + 1] <= n_train) n++;
    return n;
}

/* The tokens of line i, its <bos> included. */
static long line_length(const EncodedText *text, long i)
{
    return text->line_start[i + 1] - text->line_start[i];
}

int repeat_stream_max_copies(const EncodedText *text, long n_train, int window, long *longest)
{
    long n = training_lines(text, n_train), need = n - n / 100, max_len = 0;
    if (longest) *longest = 0;
    if (n == 0 || window < 1) return 0;
    for (long i = 0; i < n; i++)
        if (line_length(text, i) > max_len) max_len = line_length(text, i);
    long *count = calloc((size_t)max_len + 1, sizeof *count); /* count[len]: lines of len tokens */
    if (!count) return 0;
    for (long i = 0; i < n; i++) count[line_length(text, i)]++;
    long len = 0, covered = 0; /* the shortest len with `need` lines no longer than it */
    while (covered < need) covered += count[++len];
    free(count);
    if (longest) *longest = len;
    return (int)(window / len);
}

void repeat_stream_choose(const EncodedText *text, long n_train, const RepeatSettings *s,
                          unsigned char *chosen, RepeatCounts *counts)
{
    long n = training_lines(text, n_train), candidates = 0;
    for (long i = 0; i < text->n_lines; i++) chosen[i] = 0;
    for (long i = 0; i < n; i++) candidates += (long)s->copies * line_length(text, i) <= s->window;
    long needed = (long)((double)s->share * (double)candidates + 0.5), left = candidates;
    *counts = (RepeatCounts){.sentences = n, .candidates = candidates, .repeated = needed};
    Rng rng;
    rng_seed(&rng, s->seed * 0x9E3779B97F4A7C15ULL + 29); /* a stream of its own */
    for (long i = 0; i < n && needed > 0; i++) {
        if ((long)s->copies * line_length(text, i) > s->window) continue;
        if ((long)rng_below(&rng, (uint32_t)left) < needed) {
            chosen[i] = 1;
            needed--;
        }
        left--;
    }
}

int repeat_stream_build(const EncodedText *text, long n_train, int copies,
                        const unsigned char *chosen, RepeatedStream *out, SrError *err)
{
    *out = (RepeatedStream){0};
    long n = training_lines(text, n_train), added = 0;
    for (long i = 0; i < n; i++)
        if (chosen[i]) added += (long)(copies - 1) * line_length(text, i);
    out->ids = malloc((size_t)(text->n_ids + added) * sizeof *out->ids);
    if (!out->ids) return sr_fail(err, "out of memory for the repeated stream (%ld tokens)",
                                  text->n_ids + added);
    long at = 0;
    for (long i = 0; i < n; i++) {
        const int *line = text->ids + text->line_start[i];
        long len = line_length(text, i);
        for (int c = 0; c < (chosen[i] ? copies : 1); c++, at += len)
            memcpy(out->ids + at, line, (size_t)len * sizeof *line);
    }
    long rest = text->line_start[n]; /* the line crossing the split, then the held-out part */
    memcpy(out->ids + at, text->ids + rest, (size_t)(text->n_ids - rest) * sizeof *out->ids);
    out->n_ids = text->n_ids + added;
    out->n_train = n_train + added;
    return 0;
}

int repeat_stream_make(const EncodedText *text, long n_train, const RepeatSettings *s,
                       RepeatedStream *out, RepeatCounts *counts, SrError *err)
{
    *out = (RepeatedStream){0};
    unsigned char *chosen = malloc(text->n_lines > 0 ? (size_t)text->n_lines : 1);
    if (!chosen) return sr_fail(err, "out of memory");
    repeat_stream_choose(text, n_train, s, chosen, counts);
    int rc = repeat_stream_build(text, n_train, s->copies, chosen, out, err);
    free(chosen);
    return rc;
}

void repeated_stream_free(RepeatedStream *r)
{
    free(r->ids);
    *r = (RepeatedStream){0};
}
