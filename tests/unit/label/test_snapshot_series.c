/* test_snapshot_series.c — the snapshots of a pre-training run
 * (runs/snapshot_series.h): the steps from a list or from the save
 * interval, the file names, and series.json: entries in the order of their
 * steps, a step written again replaced, an entry whose file is gone
 * dropped, the run's manifest at the top, and a series.json that is not one
 * refused (also by the check before a run) and left as it was. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_from_a_list_or_the_interval),
        cmocka_unit_test(test_series_json_keeps_the_snapshots_in_order),
        cmocka_unit_test(test_the_folder_is_made_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
