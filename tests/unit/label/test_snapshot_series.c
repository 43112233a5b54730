/* test_snapshot_series.c — the snapshots of a pre-training run
 * (runs/snapshot_series.h): the steps from a list or from the save
 * interval, the file names, and series.json: entries in the order of their
 * steps, a step written again replaced, an entry whose file is gone
 * dropped, the run's manifest at the top, and a series.json that is not one
 * refused (also by the check before a run) and left as it was. The one
 * reader of series.json (runs/series_file.h): every field, every message;
 * an epoch series' entries written back as they were; the list of what to
 * load for each snapshot. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"
#include "runs/series_file.h"
#include "runs/snapshot_series.h"

static void test_steps_from_a_list_or_the_interval(void **state)
{
    (void)state;
    int *steps = NULL, n = 0;
    SrError err;
    assert_int_equal(snapshot_steps_plan("30,0,5..7", 10, 30, &steps, &n, &err), 0);
    int want[] = {0, 5, 6, 7, 30};
    assert_int_equal(n, 5);
    assert_memory_equal(steps, want, sizeof want);
    assert_true(snapshot_steps_has(steps, n, 6) && snapshot_steps_has(steps, n, 30));
    assert_false(snapshot_steps_has(steps, n, 8) || snapshot_steps_has(steps, n, 1));
    free(steps);
    assert_int_equal(snapshot_steps_plan(NULL, 10, 25, &steps, &n, &err), 0);
    int every[] = {10, 20, 25}; /* and the last */
    assert_int_equal(n, 3);
    assert_memory_equal(steps, every, sizeof every);
    free(steps);
    assert_int_equal(snapshot_steps_plan(NULL, 5, 20, &steps, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(steps[3], 20);
    free(steps);
    assert_int_equal(snapshot_steps_plan("0,31", 10, 30, &steps, &n, &err), -1);
    assert_null(steps);
    assert_non_null(strstr(err.msg, "(the run has 30 steps)"));
    assert_int_equal(snapshot_steps_plan("5,5", 10, 30, &steps, &n, &err), -1);
    assert_int_equal(snapshot_steps_plan("x", 10, 30, &steps, &n, &err), -1);
}

/* Make an empty snapshot file of step in dir. */
static void touch_snapshot(const char *dir, int step)
{
    char *path = snapshot_path(dir, step);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    free(path);
}

/* dir/series.json parsed (caller frees). */
static cJSON *read_series(const char *dir)
{
    char path[512], *text = NULL;
    size_t len;
    SrError err;
    snprintf(path, sizeof path, "%s/series.json", dir);
    assert_int_equal(text_read_file(path, &text, &len, &err), 0);
    cJSON *series = cJSON_Parse(text);
    free(text);
    assert_non_null(series);
    return series;
}

/* The step of entry i of the series' snapshots. */
static int step_at(const cJSON *series, int i)
{
    const cJSON *list = cJSON_GetObjectItem(series, "snapshots");
    return cJSON_GetObjectItem(cJSON_GetArrayItem(list, i), "step")->valueint;
}

static void test_series_json_keeps_the_snapshots_in_order(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_snapshots_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = snapshot_path(dir, 250);
    char want[256];
    snprintf(want, sizeof want, "%s/step-000250.safetensors", dir);
    assert_string_equal(path, want);
    free(path);
    cJSON *head = cJSON_CreateObject();
    cJSON_AddStringToObject(head, "command", "seqrep train-lm --snapshots d");
    SrError err;
    assert_int_equal(snapshot_series_check(dir, &err), 0); /* no series yet */
    int order[] = {10, 0, 30, 20};
    for (int i = 0; i < 4; i++) {
        touch_snapshot(dir, order[i]);
        assert_int_equal(snapshot_series_add(dir, head, 30, order[i], order[i] > 0,
                                             1.5 * order[i], &err), 0);
    }
    assert_int_equal(snapshot_series_add(dir, head, 30, 20, 1, 9.0, &err), 0); /* again */
    cJSON *series = read_series(dir);
    assert_string_equal(cJSON_GetObjectItem(series, "command")->valuestring,
                        "seqrep train-lm --snapshots d");
    assert_int_equal(cJSON_GetObjectItem(series, "steps")->valueint, 30);
    const cJSON *list = cJSON_GetObjectItem(series, "snapshots");
    assert_int_equal(cJSON_GetArraySize(list), 4);
    for (int i = 0; i < 4; i++) assert_int_equal(step_at(series, i), 10 * i);
    const cJSON *first = cJSON_GetArrayItem(list, 0), *last = cJSON_GetArrayItem(list, 2);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(first, "train_loss")));
    assert_string_equal(cJSON_GetObjectItem(first, "file")->valuestring, "step-000000.safetensors");
    assert_true(cJSON_GetObjectItem(last, "train_loss")->valuedouble == 9.0); /* replaced */
    cJSON_Delete(series);
    /* a snapshot whose file is gone leaves the series at the next write */
    path = snapshot_path(dir, 10);
    unlink(path);
    free(path);
    assert_false(snapshot_exists(dir, 10));
    assert_int_equal(snapshot_series_add(dir, head, 30, 30, 1, 1.0, &err), 0);
    series = read_series(dir);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(series, "snapshots")), 3);
    assert_int_equal(step_at(series, 1), 20);
    cJSON_Delete(series);
    /* a series.json that is not one is named and left as it was */
    char json[512];
    snprintf(json, sizeof json, "%s/series.json", dir);
    FILE *f = fopen(json, "w");
    assert_non_null(f);
    fputs("{\"other\": 1}", f);
    fclose(f);
    assert_int_equal(snapshot_series_check(dir, &err), -1);
    assert_non_null(strstr(err.msg, "not a snapshot series"));
    assert_int_equal(snapshot_series_add(dir, head, 30, 30, 1, 1.0, &err), -1);
    assert_non_null(strstr(err.msg, "not a snapshot series"));
    assert_non_null(strstr(err.msg, json));
    char *text = NULL;
    size_t len;
    assert_int_equal(text_read_file(json, &text, &len, &err), 0);
    assert_string_equal(text, "{\"other\": 1}");
    free(text);
    cJSON_Delete(head);
    test_remove_dir(dir);
}

static void test_the_folder_is_made_once(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_snapfolder_XXXXXX", sub[600];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/series", dir);
    SrError err;
    assert_int_equal(snapshot_dir_make(sub, &err), 0);
    assert_int_equal(snapshot_dir_make(sub, &err), 0); /* already there */
    touch_snapshot(sub, 0);
    char *file = snapshot_path(sub, 0);
    assert_int_equal(snapshot_dir_make(file, &err), -1); /* a file, not a folder */
    assert_non_null(strstr(err.msg, "not a folder"));
    free(file);
    test_remove_dir(sub);
    rmdir(dir);
}

/* Write text into dir/name. */
static void write_text(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Parsing text as series.json fails with a message that holds what. */
static void expect_parse_error(const char *text, const char *what)
{
    SeriesFile s;
    SrError err;
    assert_int_equal(series_file_parse("d/series.json", text, &s, &err), -1);
    if (!strstr(err.msg, what)) fail_msg("message '%s' lacks '%s'", err.msg, what);
    assert_null(s.e);
    assert_null(s.path);
}

static void test_series_file_reads_every_field(void **state)
{
    (void)state;
    SeriesFile s;
    SrError err;
    assert_int_equal(series_file_parse("d/series.json",
                                       "{\"steps\": 3, \"unit\": \"epoch\", \"model\": \"base.st\", \"snapshots\": ["
                                       "{\"step\": 0, \"file\": \"epoch-0000.safetensors\", \"train_loss\": null},"
                                       "{\"step\": 2, \"file\": \"a/b\", \"train_loss\": 1.5, \"dev_f1\": 40,"
                                       " \"test_f1\": 35.5}]}",
                                       &s, &err),
                     0);
    assert_string_equal(s.path, "d/series.json");
    assert_int_equal(s.n, 2);
    assert_int_equal(s.total, 3);
    assert_true(s.epochs && s.adapters); /* no "epoch_files": adapters */
    assert_string_equal(s.model, "base.st");
    assert_int_equal(s.e[0].step, 0);
    assert_string_equal(s.e[0].file, "epoch-0000.safetensors");
    assert_true(isnan(s.e[0].train_loss) && isnan(s.e[0].dev_f1) && isnan(s.e[0].test_f1));
    assert_int_equal(s.e[1].step, 2);
    assert_null(s.e[1].file); /* a name with a folder is none */
    assert_true(s.e[1].train_loss == 1.5 && s.e[1].dev_f1 == 40.0 && s.e[1].test_f1 == 35.5);
    series_file_free(&s);
    /* a full fine-tuning's epochs are checkpoints; a pre-training's steps too */
    assert_int_equal(series_file_parse("d/series.json", "{\"unit\": \"epoch\", \"epoch_files\": \"model\", "
                                                        "\"snapshots\": [{\"step\": 0}]}", &s, &err), 0);
    assert_true(s.epochs && !s.adapters && s.total == 0 && !s.model && !s.e[0].file);
    series_file_free(&s);
    /* an empty list is read: the writer adds to it */
    assert_int_equal(series_file_parse("d/series.json", "{\"snapshots\": []}", &s, &err), 0);
    assert_int_equal(s.n, 0);
    series_file_free(&s);
}

static void test_series_file_names_what_is_wrong(void **state)
{
    (void)state;
    expect_parse_error("[1]", "d/series.json: not a snapshot series (not a JSON object)");
    expect_parse_error("{\"other\": 1", "d/series.json: not a snapshot series (not a JSON object)");
    expect_parse_error("{\"other\": 1}", "d/series.json: not a snapshot series (no \"snapshots\" list)");
    expect_parse_error("{\"unit\": \"hour\", \"snapshots\": [{\"step\": 0}]}",
                       "d/series.json: \"unit\" must be \"step\" or \"epoch\"");
    expect_parse_error("{\"snapshots\": [{\"step\": 0.5}]}",
                       "d/series.json: snapshot 0: no step (a whole number 0..1000000000)");
    expect_parse_error("{\"snapshots\": [{\"step\": 5}, {\"step\": 5}]}",
                       "d/series.json: snapshot 1: step 5 after step 5 (steps must rise)");
    expect_parse_error("{\"snapshots\": [{\"step\": 5, \"train_loss\": \"x\"}]}",
                       "d/series.json: snapshot 0: train_loss is neither a number nor null");
    expect_parse_error("{\"snapshots\": [{\"step\": 5, \"test_f1\": 101}]}",
                       "d/series.json: snapshot 0: test_f1 is not a number 0..100");
    SeriesFile s;
    SrError err;
    assert_int_equal(series_file_read("/nonexistent-seqrep", &s, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-seqrep/series.json: cannot open"));
}

/* An epoch series written twice over: its first entry reads back the same. */
static void test_epoch_entries_are_kept_as_written(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_epochs_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cJSON *head = cJSON_CreateObject();
    SrError err;
    write_text(dir, "epoch-0000.safetensors", "");
    assert_int_equal(snapshot_series_add_epoch(dir, head, 2, 0, NAN, 12.5, 11.25, &err), 0);
    cJSON *series = read_series(dir);
    char *before = cJSON_PrintUnformatted(cJSON_GetArrayItem(cJSON_GetObjectItem(series, "snapshots"), 0));
    cJSON_Delete(series);
    write_text(dir, "epoch-0001.safetensors", "");
    assert_int_equal(snapshot_series_add_epoch(dir, head, 2, 1, 0.75, 50.0, 49.5, &err), 0);
    series = read_series(dir);
    char *after = cJSON_PrintUnformatted(cJSON_GetArrayItem(cJSON_GetObjectItem(series, "snapshots"), 0));
    assert_string_equal(before, after);
    assert_string_equal(after, "{\"step\":0,\"file\":\"epoch-0000.safetensors\",\"train_loss\":null,"
                               "\"epoch\":0,\"dev_f1\":12.5,\"test_f1\":11.25}");
    free(before);
    free(after);
    cJSON_Delete(series);
    cJSON_Delete(head);
    test_remove_dir(dir);
}

static void test_list_names_what_to_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep_list_XXXXXX", base[600];
    assert_non_null(mkdtemp(dir));
    SnapshotList l;
    SrError err;
    write_text(dir, "series.json", "{\"snapshots\": []}");
    assert_int_equal(snapshot_series_list(dir, &l, &err), -1);
    assert_non_null(strstr(err.msg, "/series.json: no snapshots"));
    write_text(dir, "series.json", "{\"snapshots\": [{\"step\": 0, \"file\": \"a.st\"}, {\"step\": 4}]}");
    write_text(dir, "a.st", "");
    assert_int_equal(snapshot_series_list(dir, &l, &err), -1);
    assert_non_null(strstr(err.msg, "/series.json: snapshot 1: no step and file"));
    write_text(dir, "series.json", "{\"snapshots\": [{\"step\": 0, \"file\": \"a.st\"}, {\"step\": 4, \"file\": \"b.st\"}]}");
    assert_int_equal(snapshot_series_list(dir, &l, &err), -1);
    assert_non_null(strstr(err.msg, "/b.st (step 4 of "));
    write_text(dir, "b.st", "");
    assert_int_equal(snapshot_series_list(dir, &l, &err), 0);
    assert_true(l.n == 2 && !l.epochs && l.e[1].step == 4 && !l.e[1].adapter);
    assert_non_null(strstr(l.e[1].model, "/b.st"));
    snapshot_list_free(&l);
    /* a LoRA fine-tuning's epochs: the base model with each epoch's adapters */
    snprintf(base, sizeof base, "{\"unit\": \"epoch\", \"model\": \"%s/a.st\", \"snapshots\": "
                                "[{\"step\": 1, \"file\": \"b.st\"}]}", dir);
    write_text(dir, "series.json", base);
    assert_int_equal(snapshot_series_list(dir, &l, &err), 0);
    assert_true(l.n == 1 && l.epochs && strstr(l.e[0].model, "/a.st") && strstr(l.e[0].adapter, "/b.st"));
    snapshot_list_free(&l);
    write_text(dir, "series.json", "{\"unit\": \"epoch\", \"model\": \"gone.st\", \"snapshots\": [{\"step\": 1, \"file\": \"b.st\"}]}");
    assert_int_equal(snapshot_series_list(dir, &l, &err), -1);
    assert_non_null(strstr(err.msg, "/series.json: its base model (\"model\": gone.st) is not there"));
    test_remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_from_a_list_or_the_interval),
        cmocka_unit_test(test_series_json_keeps_the_snapshots_in_order),
        cmocka_unit_test(test_the_folder_is_made_once),
        cmocka_unit_test(test_series_file_reads_every_field),
        cmocka_unit_test(test_series_file_names_what_is_wrong),
        cmocka_unit_test(test_epoch_entries_are_kept_as_written),
        cmocka_unit_test(test_list_names_what_to_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
