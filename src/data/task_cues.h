/* task_cues.h — which word of a generated task's sentence decides the type
 * of each entity (docs/tasks.md).
 *
 * The generators of tasks.h do not write the cue down, but the data say it
 * unambiguously: cue words form a fixed vocabulary (task_cue_type), and
 *
 *   right-cue  the cue of an ambiguous entity is the first word after its
 *              last word that is a cue word, 1-6 words on, only words
 *              tagged O between;
 *   left-cue   the mirror image: the first cue word before its first word;
 *   last-word  the sentence's final word.
 *
 * The cue's type must be the entity's tag type. Unambiguous entities (alice,
 * cairo, ...) and words outside entities have no cue. A sentence where an
 * ambiguous entity has no such cue is not data of that task: an error naming
 * the file, the sentence's line and the word. */
#ifndef SEQREP_TASK_CUES_H
#define SEQREP_TASK_CUES_H

#include "base/status.h"
#include "data/dataset.h"
#include "data/tasks.h"

/* The farthest a right-cue or left-cue cue lies from its entity, in words. */
enum { TASK_CUE_MAX_DISTANCE = 6 };

/* For sentence s of d: cue[w] (n_words of the sentence) = index of the
 * word that decides the type of word w's entity, or -1 when w is not a word
 * of an ambiguous entity. 0, or -1 with err ("dev.conll:41: ambiguous
 * entity 'jordan' (word 3) has no right-cue cue word to its right within 6
 * words"). */
int task_sentence_cues(TaskKind kind, const Dataset *d, int s, int *cue, SrError *err);

#endif
