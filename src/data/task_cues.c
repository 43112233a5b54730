/* task_cues.c — finding the cue word of every ambiguous entity of a
 * generated task's sentence (see task_cues.h). */
#include "data/task_cues.h"

#include <string.h>

/* The type part of an IOB2 tag ("B-PER" -> "PER"), or NULL for "O". */
static const char *tag_type(const char *tag)
{
    return (tag[0] == 'B' || tag[0] == 'I') && tag[1] == '-' ? tag + 2 : NULL;
}

/* Word index of the cue of the entity at words [first, last] of sentence
 * st, or -1 when it has none: the nearest cue word on the task's side with
 * only O words between (right-cue, left-cue), or the final word (last-word). */
static int find_cue(TaskKind kind, const Sentence *st, int first, int last)
{
    if (kind == TASK_LAST_WORD) return st->n_words - 1 > last ? st->n_words - 1 : -1;
    int step = kind == TASK_RIGHT_CUE ? 1 : -1;
    int from = kind == TASK_RIGHT_CUE ? last : first;
    for (int d = 1; d <= TASK_CUE_MAX_DISTANCE; d++) {
        int j = from + step * d;
        if (j < 0 || j >= st->n_words || tag_type(st->tags[j])) return -1;
        if (task_cue_type(kind, st->words[j])) return j;
    }
    return -1;
}

int task_sentence_cues(TaskKind kind, const Dataset *d, int s, int *cue, SrError *err)
{
    const Sentence *st = &d->sents[s];
    for (int w = 0; w < st->n_words; w++) cue[w] = -1;
    for (int first = 0; first < st->n_words; first++) {
        const char *type = tag_type(st->tags[first]);
        if (!type || !task_word_is_ambiguous(st->words[first])) continue;
        int last = first;
        while (last + 1 < st->n_words && st->tags[last + 1][0] == 'I' && tag_type(st->tags[last + 1]) &&
               strcmp(tag_type(st->tags[last + 1]), type) == 0)
            last++;
        int c = find_cue(kind, st, first, last);
        const char *cue_type = c >= 0 ? task_cue_type(kind, st->words[c]) : NULL;
        if (!cue_type)
            return sr_fail(err, "%s:%d: ambiguous entity '%s' (word %d) has no %s cue word %s", d->source,
                           st->line, st->words[first], first + 1, task_name(kind),
                           kind == TASK_LAST_WORD ? "as the final word"
                           : kind == TASK_RIGHT_CUE ? "to its right within 6 words, only O words between"
                                                    : "to its left within 6 words, only O words between");
        if (strcmp(cue_type, type) != 0)
            return sr_fail(err, "%s:%d: ambiguous entity '%s' (word %d) is %s but its %s cue '%s' says %s",
                           d->source, st->line, st->words[first], first + 1, type, task_name(kind),
                           st->words[c], cue_type);
        for (int w = first; w <= last; w++) cue[w] = c;
        first = last;
    }
    return 0;
}
