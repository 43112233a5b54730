/* test_task_cues.c — finding the cue word of every ambiguous entity: hand
 * sentences of right-cue, left-cue and last-word (two-word entities, an
 * unambiguous one, the cue 6 words away), the errors that name the file,
 * line and word, and every sentence the generators make. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "data/task_cues.h"
#include "data/tasks.h"

/* A dataset of one sentence of n words from source "hand.conll", line 5. */
static void one_sentence(Dataset *d, const char *const *words, const char *const *tags, int n)
{
    SrError err;
    memset(d, 0, sizeof *d);
    d->source = strdup("hand.conll");
    assert_int_equal(dataset_add(d, words, tags, n, 5, &err), 0);
}

/* right-cue: a two-word ambiguous entity and its cue 2 words on, an
 * unambiguous name (no cue), and an ambiguous one whose cue is 6 words on. */
static void test_right_cue(void **state)
{
    (void)state;
    const char *w[] = {"the", "jordan", "austin", "old", "said", "alice", "madison", "a",
                       "a", "a", "a", "a", "harbour"};
    const char *t[] = {"O", "B-PER", "I-PER", "O", "O", "B-PER", "B-LOC", "O", "O", "O", "O", "O", "O"};
    Dataset d;
    one_sentence(&d, w, t, 13);
    int cue[13];
    SrError err;
    assert_int_equal(task_sentence_cues(TASK_RIGHT_CUE, &d, 0, cue, &err), 0);
    int expect[13] = {-1, 4, 4, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1};
    for (int i = 0; i < 13; i++) assert_int_equal(cue[i], expect[i]);
    dataset_free(&d);
}

/* left-cue and last-word: the mirror image, and the final word. */
static void test_left_cue_and_last_word(void **state)
{
    (void)state;
    SrError err;
    Dataset d;
    const char *w[] = {"shares", "then", "sydney", "the", "valley", "dakota"};
    const char *t[] = {"O", "O", "B-ORG", "O", "O", "B-LOC"};
    one_sentence(&d, w, t, 6);
    int cue[6];
    assert_int_equal(task_sentence_cues(TASK_LEFT_CUE, &d, 0, cue, &err), 0);
    int expect[6] = {-1, -1, 0, -1, -1, 4};
    for (int i = 0; i < 6; i++) assert_int_equal(cue[i], expect[i]);
    dataset_free(&d);
    const char *w2[] = {"chelsea", "and", "lincoln", "lincoln", "market"};
    const char *t2[] = {"B-ORG", "O", "B-ORG", "I-ORG", "O"};
    one_sentence(&d, w2, t2, 5);
    assert_int_equal(task_sentence_cues(TASK_LAST_WORD, &d, 0, cue, &err), 0);
    int expect2[5] = {4, -1, 4, 4, -1};
    for (int i = 0; i < 5; i++) assert_int_equal(cue[i], expect2[i]);
    dataset_free(&d);
}

/* A cue 7 words away, a cue of another type, or an entity in the way: an
 * error naming the file, the sentence's line and the word. */
static void test_errors(void **state)
{
    (void)state;
    SrError err;
    Dataset d;
    int cue[9];
    const char *far[] = {"jordan", "a", "a", "a", "a", "a", "a", "said"};
    const char *far_t[] = {"B-PER", "O", "O", "O", "O", "O", "O", "O"};
    one_sentence(&d, far, far_t, 8);
    assert_int_equal(task_sentence_cues(TASK_RIGHT_CUE, &d, 0, cue, &err), -1);
    assert_non_null(strstr(err.msg, "hand.conll:5: ambiguous entity 'jordan' (word 1)"));
    assert_non_null(strstr(err.msg, "within 6 words"));
    dataset_free(&d);
    const char *other[] = {"the", "jordan", "profits"};
    const char *other_t[] = {"O", "B-PER", "O"};
    one_sentence(&d, other, other_t, 3);
    assert_int_equal(task_sentence_cues(TASK_RIGHT_CUE, &d, 0, cue, &err), -1);
    assert_non_null(strstr(err.msg, "hand.conll:5: ambiguous entity 'jordan' (word 2) is PER"));
    assert_non_null(strstr(err.msg, "'profits' says ORG"));
    dataset_free(&d);
    const char *between[] = {"jordan", "cairo", "said"};
    const char *between_t[] = {"B-PER", "B-LOC", "O"};
    one_sentence(&d, between, between_t, 3);
    assert_int_equal(task_sentence_cues(TASK_RIGHT_CUE, &d, 0, cue, &err), -1);
    dataset_free(&d);
}

/* Every sentence of each generated task: each ambiguous entity word gets a
 * cue of its own type, on the task's side (right, left, the final word). */
static void test_generated(void **state)
{
    (void)state;
    for (int kind = 0; kind < TASK_N_KINDS; kind++) {
        Dataset d;
        SrError err;
        assert_int_equal(task_generate((TaskKind)kind, 300, 7, &d, &err), 0);
        long with_cue = 0;
        for (int s = 0; s < d.n_sents; s++) {
            int cue[32];
            assert_int_equal(task_sentence_cues((TaskKind)kind, &d, s, cue, &err), 0);
            for (int w = 0; w < d.sents[s].n_words; w++) {
                assert_int_equal(cue[w] >= 0, task_word_is_ambiguous(d.sents[s].words[w]));
                if (cue[w] < 0) continue;
                with_cue++;
                assert_string_equal(task_cue_type((TaskKind)kind, d.sents[s].words[cue[w]]),
                                    d.sents[s].tags[w] + 2);
                if (kind == TASK_RIGHT_CUE) assert_true(cue[w] > w && cue[w] - w <= 7);
                if (kind == TASK_LEFT_CUE) assert_true(cue[w] < w && w - cue[w] <= 7);
                if (kind == TASK_LAST_WORD) assert_int_equal(cue[w], d.sents[s].n_words - 1);
            }
        }
        assert_true(with_cue >= 300);
        dataset_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_right_cue),
        cmocka_unit_test(test_left_cue_and_last_word),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_generated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
