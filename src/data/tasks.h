/* tasks.h — built-in generated sequence-labelling tasks (see docs/tasks.md).
 *
 * Every task makes English-looking sentences of 8-20 words from a small
 * vocabulary (65 words): neutral filler words, entity words and cue
 * words, with IOB2 tags of three types, PER, LOC and ORG. Entities are one
 * or two words long. The twelve "ambiguous" words (jordan, austin, ...) can
 * be any type; only a cue elsewhere in the sentence says which:
 *
 *   right-cue  each ambiguous entity is followed, 1-6 words to the right of
 *              its last word, by a cue word (said/smiled/laughed -> PER,
 *              river/valley/harbour -> LOC, shares/profits/merger -> ORG);
 *              only filler words lie between. Unambiguous entities (alice,
 *              cairo, acme, ...) appear too.
 *   left-cue   the mirror image: the cue is 1-6 words to the LEFT of the
 *              entity's first word (a control: a causal model sees it).
 *   last-word  every entity is ambiguous and the type of all of them is set
 *              by the sentence's final word (biography/interview -> PER,
 *              geography/travel -> LOC, business/market -> ORG).
 *
 * Types are drawn independently for every entity (for the whole sentence in
 * last-word), so words to the left of an entity say nothing about it in
 * right-cue and last-word. Generation uses only rng.h integers, so a seed
 * gives the same data on every machine. */
#ifndef SEQREP_TASKS_H
#define SEQREP_TASKS_H

#include <stdint.h>

#include "base/status.h"
#include "data/dataset.h"

typedef enum { TASK_RIGHT_CUE = 0, TASK_LAST_WORD = 1, TASK_LEFT_CUE = 2, TASK_N_KINDS = 3 } TaskKind;

/* Name of a task: "right-cue", "last-word", "left-cue". */
const char *task_name(TaskKind kind);

/* The task called `name`; an unknown name is an error listing the tasks. */
int task_from_name(const char *name, TaskKind *kind, SrError *err);

/* The entity type ("PER", "LOC", "ORG") that `word` decides as a cue of this
 * task (a cue word for right-cue and left-cue, a final word for last-word),
 * or NULL if the word is not one. */
const char *task_cue_type(TaskKind kind, const char *word);

/* 1 if the word is one of the ambiguous entity words. */
int task_word_is_ambiguous(const char *word);

/* Generate n_sentences labelled sentences into *out (initialised here;
 * out->source = the task name). Sentence i depends only on (kind, seed)
 * and the sentences before it. */
int task_generate(TaskKind kind, int n_sentences, uint64_t seed, Dataset *out, SrError *err);

/* How many sentences each file of task_write gets. */
typedef struct {
    int train, dev, test;  /* labelled sentences */
    int corpus;            /* unlabelled lines of corpus.txt */
} TaskSizes;

/* The default sizes: 2000 / 500 / 500 and 20000 corpus lines. */
TaskSizes task_default_sizes(void);

/* Write DIR/train.conll, dev.conll, test.conll and corpus.txt (one sentence
 * per line, words separated by single spaces), each atomically; DIR is
 * created if needed. The four files use four independent streams derived
 * from seed, so changing one size leaves the other files unchanged. */
int task_write(TaskKind kind, const char *out_dir, uint64_t seed, const TaskSizes *sizes,
               SrError *err);

#endif
