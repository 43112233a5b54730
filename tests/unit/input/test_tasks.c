/* test_tasks.c — the generated tasks: determinism by seed, well-formed IOB2
 * sentences of 8-20 words with multi-word entities, and the property each
 * task is built on (right-cue: the deciding cue is 1-6 words to the right and
 * the left says nothing; left-cue: the mirror; last-word: the final word
 * decides every entity), plus the four files task_write makes. */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/conll.h"
#include "data/tasks.h"

/* 1 if two datasets hold the same words and tags. */
static int same_data(const Dataset *a, const Dataset *b)
{
    if (a->n_sents != b->n_sents) return 0;
    for (int s = 0; s < a->n_sents; s++) {
        if (a->sents[s].n_words != b->sents[s].n_words) return 0;
        for (int w = 0; w < a->sents[s].n_words; w++)
            if (strcmp(a->sents[s].words[w], b->sents[s].words[w]) != 0 ||
                strcmp(a->sents[s].tags[w], b->sents[s].tags[w]) != 0)
                return 0;
    }
    return 1;
}

/* Generate n sentences or fail the test. */
static void generate(TaskKind kind, int n, uint64_t seed, Dataset *d)
{
    SrError err = {{0}};
    if (task_generate(kind, n, seed, d, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

/* Check lengths and IOB2 form; count entities and multi-word entities. */
static void check_well_formed(const Dataset *d, int *n_entities, int *n_multi)
{
    *n_entities = *n_multi = 0;
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *st = &d->sents[s];
        assert_in_range(st->n_words, 8, 20);
        for (int w = 0; w < st->n_words; w++) {
            const char *tag = st->tags[w];
            if (tag[0] == 'B') (*n_entities)++;
            if (tag[0] == 'I') {
                assert_true(w > 0);
                assert_string_equal(st->tags[w - 1] + 2, tag + 2); /* continues its span */
                if (st->tags[w - 1][0] == 'B') (*n_multi)++;
            }
        }
    }
}

/* The type (after "B-") of the entity starting at word w, and its last word. */
static const char *entity_at(const Sentence *st, int w, int *last)
{
    int k = w;
    while (k + 1 < st->n_words && st->tags[k + 1][0] == 'I') k++;
    *last = k;
    return st->tags[w] + 2;
}

/* 1 if every word of the entity [first, last] is an ambiguous word. */
static int entity_is_ambiguous(const Sentence *st, int first, int last)
{
    for (int k = first; k <= last; k++)
        if (!task_word_is_ambiguous(st->words[k])) return 0;
    return 1;
}

/* ---- determinism --------------------------------------------------------------------- */

static void test_deterministic_by_seed(void **state)
{
    (void)state;
    for (int k = 0; k < TASK_N_KINDS; k++) {
        Dataset a, b, c;
        generate((TaskKind)k, 200, 42, &a);
        generate((TaskKind)k, 200, 42, &b);
        generate((TaskKind)k, 200, 43, &c);
        assert_true(same_data(&a, &b));
        assert_false(same_data(&a, &c));
        assert_string_equal(a.source, task_name((TaskKind)k));
        dataset_free(&a);
        dataset_free(&b);
        dataset_free(&c);
    }
}

static void test_names_and_errors(void **state)
{
    (void)state;
    TaskKind kind;
    SrError err = {{0}};
    assert_int_equal(task_from_name("left-cue", &kind, &err), 0);
    assert_int_equal(kind, TASK_LEFT_CUE);
    assert_int_equal(task_from_name("middle-cue", &kind, &err), -1);
    assert_string_equal(err.msg, "unknown task 'middle-cue' (tasks: right-cue, last-word, left-cue)");
    Dataset d;
    assert_int_equal(task_generate(TASK_RIGHT_CUE, 0, 1, &d, &err), -1);
    assert_string_equal(err.msg, "right-cue: number of sentences must be >= 1 (got 0)");
    assert_string_equal(task_cue_type(TASK_RIGHT_CUE, "river"), "LOC");
    assert_string_equal(task_cue_type(TASK_LEFT_CUE, "said"), "PER");
    assert_string_equal(task_cue_type(TASK_LAST_WORD, "market"), "ORG");
    assert_null(task_cue_type(TASK_LAST_WORD, "river"));
    assert_null(task_cue_type(TASK_RIGHT_CUE, "jordan"));
    assert_true(task_word_is_ambiguous("jordan"));
    assert_false(task_word_is_ambiguous("alice"));
}

/* ---- the properties -------------------------------------------------------------------- */

/* For right-cue (right = 1) or left-cue (right = 0): every ambiguous entity
 * has a cue 1-6 words away on that side with only O filler words between,
 * and the cue's type is the entity's. Every unambiguous word always has the
 * same type. The nearest cue on the OTHER side agrees with the entity only
 * by chance (about a third of the time). */
static void check_cue_task(TaskKind kind, int right)
{
    Dataset d;
    generate(kind, 1500, 7, &d);
    int n_entities, n_multi;
    check_well_formed(&d, &n_entities, &n_multi);
    assert_true(n_multi > n_entities / 5);

    int distance_seen[7] = {0}, n_ambiguous = 0, n_unambiguous = 0;
    int other_side_agree = 0, other_side_total = 0;
    for (int s = 0; s < d.n_sents; s++) {
        const Sentence *st = &d.sents[s];
        for (int w = 0; w < st->n_words; w++) {
            if (st->tags[w][0] != 'B') continue;
            int last;
            const char *type = entity_at(st, w, &last);
            if (!entity_is_ambiguous(st, w, last)) {
                for (int k = w; k <= last; k++) assert_false(task_word_is_ambiguous(st->words[k]));
                n_unambiguous++;
                continue;
            }
            n_ambiguous++;
            /* walk away from the entity on the cue side */
            int from = right ? last : w, step = right ? 1 : -1, found = 0;
            for (int dist = 1; dist <= 6; dist++) {
                int k = from + step * dist;
                assert_true(k >= 0 && k < st->n_words);
                assert_string_equal(st->tags[k], "O");
                const char *cue = task_cue_type(kind, st->words[k]);
                if (cue) {
                    assert_string_equal(cue, type);
                    distance_seen[dist]++;
                    found = 1;
                    break;
                }
            }
            assert_true(found);
            /* the nearest cue on the other side, if any */
            for (int k = right ? w - 1 : last + 1; k >= 0 && k < st->n_words; k += right ? -1 : 1) {
                const char *cue = task_cue_type(kind, st->words[k]);
                if (cue) {
                    other_side_total++;
                    other_side_agree += strcmp(cue, type) == 0;
                    break;
                }
            }
        }
    }
    for (int dist = 1; dist <= 6; dist++) assert_true(distance_seen[dist] > n_ambiguous / 12);
    assert_true(n_ambiguous > 1500 && n_unambiguous > 300);
    assert_true(other_side_total > 300);
    double rate = (double)other_side_agree / other_side_total;
    assert_in_range((int)(100 * rate), 25, 42);
    dataset_free(&d);
}

static void test_right_cue_property(void **state)
{
    (void)state;
    check_cue_task(TASK_RIGHT_CUE, 1);
}

static void test_left_cue_property(void **state)
{
    (void)state;
    check_cue_task(TASK_LEFT_CUE, 0);
}

/* The entity types of a sentence, in order, as a string of letters. */
static void entity_types(const Sentence *st, char *out)
{
    int k = 0;
    for (int w = 0; w < st->n_words; w++)
        if (st->tags[w][0] == 'B') out[k++] = st->tags[w][2];
    out[k] = '\0';
}

static void test_left_cue_mirrors_right_cue(void **state)
{
    (void)state;
    /* Same seed: same sentence lengths and the same entities (types, in
     * order), the cue on the other side. */
    Dataset r, l;
    generate(TASK_RIGHT_CUE, 300, 9, &r);
    generate(TASK_LEFT_CUE, 300, 9, &l);
    assert_false(same_data(&r, &l));
    for (int s = 0; s < r.n_sents; s++) {
        assert_int_equal(r.sents[s].n_words, l.sents[s].n_words);
        char tr[32], tl[32];
        entity_types(&r.sents[s], tr);
        entity_types(&l.sents[s], tl);
        assert_string_equal(tr, tl);
    }
    dataset_free(&r);
    dataset_free(&l);
}

static void test_last_word_property(void **state)
{
    (void)state;
    Dataset d;
    generate(TASK_LAST_WORD, 1500, 11, &d);
    int n_entities, n_multi;
    check_well_formed(&d, &n_entities, &n_multi);
    assert_true(n_entities >= 1500);
    assert_true(n_multi > n_entities / 5);
    int type_count[3] = {0};
    for (int s = 0; s < d.n_sents; s++) {
        const Sentence *st = &d.sents[s];
        const char *type = task_cue_type(TASK_LAST_WORD, st->words[st->n_words - 1]);
        assert_non_null(type);
        assert_string_equal(st->tags[st->n_words - 1], "O");
        type_count[strcmp(type, "PER") == 0 ? 0 : strcmp(type, "LOC") == 0 ? 1 : 2]++;
        int entities = 0;
        for (int w = 0; w < st->n_words; w++) {
            if (strcmp(st->tags[w], "O") == 0) {
                /* a final word appears nowhere else */
                if (w + 1 < st->n_words) assert_null(task_cue_type(TASK_LAST_WORD, st->words[w]));
                continue;
            }
            assert_string_equal(st->tags[w] + 2, type);
            assert_true(task_word_is_ambiguous(st->words[w]));
            entities += st->tags[w][0] == 'B';
        }
        assert_in_range(entities, 1, 3);
    }
    for (int t = 0; t < 3; t++) assert_in_range(type_count[t], 400, 600);
    dataset_free(&d);
}

/* ---- the files ------------------------------------------------------------------------ */

/* Read a whole file into a new string. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void test_task_write_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_test_tasks_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out1[128], out2[128], path[256], path2[256];
    snprintf(out1, sizeof out1, "%s/a/b", dir); /* created with its parent */
    snprintf(out2, sizeof out2, "%s/c", dir);
    TaskSizes sizes = {50, 20, 30, 100};
    SrError err = {{0}};
    assert_int_equal(task_write(TASK_RIGHT_CUE, out1, 5, &sizes, &err), 0);
    assert_int_equal(task_write(TASK_RIGHT_CUE, out2, 5, &sizes, &err), 0);

    const char *files[] = {"train.conll", "dev.conll", "test.conll", "corpus.txt"};
    const int counts[] = {50, 20, 30, 100};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", out1, files[k]);
        snprintf(path2, sizeof path2, "%s/%s", out2, files[k]);
        size_t n1, n2;
        char *a = slurp(path, &n1), *b = slurp(path2, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1); /* same seed, same bytes */
        if (k < 3) {
            Dataset d;
            ConllScheme scheme;
            assert_int_equal(conll_read_scheme(path, &d, &scheme, NULL, &err), 0);
            assert_int_equal(d.n_sents, counts[k]);
            assert_int_equal(scheme, CONLL_IOB2);
            dataset_free(&d);
        } else {
            int lines = 0;
            for (size_t i = 0; i < n1; i++) lines += a[i] == '\n';
            assert_int_equal(lines, 100);
            assert_null(strchr(a, '-')); /* no tags in the unlabelled text */
        }
        free(a);
        free(b);
        remove(path);
        remove(path2);
    }
    /* the splits are different streams */
    Dataset train, dev;
    TaskSizes one = {1, 1, 1, 1};
    assert_int_equal(task_write(TASK_LAST_WORD, out2, 5, &one, &err), 0);
    snprintf(path, sizeof path, "%s/train.conll", out2);
    snprintf(path2, sizeof path2, "%s/dev.conll", out2);
    assert_int_equal(conll_read_scheme(path, &train, NULL, NULL, &err), 0);
    assert_int_equal(conll_read_scheme(path2, &dev, NULL, NULL, &err), 0);
    assert_false(same_data(&train, &dev));
    dataset_free(&train);
    dataset_free(&dev);
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", out2, files[k]);
        remove(path);
    }

    /* a file where the directory should be: error naming it */
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(task_write(TASK_LEFT_CUE, path, 1, &sizes, &err), -1);
    assert_non_null(strstr(err.msg, "file: exists and is not a directory"));
    remove(path);
    rmdir(out1);
    snprintf(path, sizeof path, "%s/a", dir);
    rmdir(path);
    rmdir(out2);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic_by_seed),
        cmocka_unit_test(test_names_and_errors),
        cmocka_unit_test(test_right_cue_property),
        cmocka_unit_test(test_left_cue_property),
        cmocka_unit_test(test_left_cue_mirrors_right_cue),
        cmocka_unit_test(test_last_word_property),
        cmocka_unit_test(test_task_write_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
