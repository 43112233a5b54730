/* test_sweep.c — the sweep grid, its keys, resuming, the CSV round trip,
 * reading finetune results, the summary statistics and the run commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#include "runs/sweep/sweep.h"

/* A fresh temporary directory (caller removes it with remove_dir). */
static char *make_temp_dir(void)
{
    char *dir = strdup("/tmp/test_sweep.XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

/* Remove the files of dir and dir itself, and free the name. */
static void remove_dir(char *dir)
{
    test_remove_dir(dir);
    free(dir);
}

/* A row with the given key and scores derived from test_f1. */
static SweepRow make_row(const char *dataset, const char *model, Method method, int r, int exit_layer,
                         int seed, double test_f1)
{
    SweepRow w;
    memset(&w, 0, sizeof w);
    snprintf(w.key.dataset, sizeof w.key.dataset, "%s", dataset);
    snprintf(w.key.model, sizeof w.key.model, "%s", model);
    w.key.method = method;
    w.key.r = r;
    w.key.exit_layer = exit_layer;
    w.key.seed = seed;
    w.dev_precision = test_f1 + 1;
    w.dev_recall = test_f1 + 2;
    w.dev_f1 = test_f1 + 1.5;
    w.test_precision = test_f1 - 1;
    w.test_recall = test_f1 + 1;
    w.test_f1 = test_f1;
    w.epochs = 3;
    w.best_epoch = 2;
    w.tokens = 1000 * (r + 1);
    w.seconds = 1.5;
    w.train_sentences = 100;
    w.test_sentences = 40;
    w.flops = 1e6 * (r + 1) * exit_layer;
    w.ms_per_sentence = 5;
    snprintf(w.command, sizeof w.command, "seqrep finetune --model %s --seed %d", model, seed);
    snprintf(w.source, sizeof w.source, "made-up:%d", seed);
    return w;
}

static void add_row(SweepTable *t, SweepRow w)
{
    int added = -1;
    SrError err;
    assert_int_equal(sweep_table_add(t, &w, &added, &err), 0);
    assert_int_equal(added, 1);
}

/* ---- lists and names ---- */

static void test_parse_int_list(void **state)
{
    (void)state;
    int *v = NULL, n = 0;
    SrError err;
    assert_int_equal(sweep_parse_int_list("5,29,42,81,123", 0, &v, &n, &err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(v[0], 5);
    assert_int_equal(v[4], 123);
    free(v);
    assert_int_equal(sweep_parse_int_list("7", 1, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(v[0], 7);
    free(v);
    assert_int_equal(sweep_parse_int_list("1,,2", 0, &v, &n, &err), -1);
    assert_null(v);
    assert_int_equal(sweep_parse_int_list("1,2,1", 0, &v, &n, &err), -1);
    assert_non_null(strstr(err.msg, "twice"));
    assert_int_equal(sweep_parse_int_list("0,1", 1, &v, &n, &err), -1);
    assert_non_null(strstr(err.msg, "'0'"));
    assert_int_equal(sweep_parse_int_list("2x", 0, &v, &n, &err), -1);
    assert_int_equal(sweep_parse_int_list("", 0, &v, &n, &err), -1);
}

static void test_parse_methods(void **state)
{
    (void)state;
    Method m[METHOD_COUNT];
    int n = 0;
    SrError err;
    assert_int_equal(sweep_parse_methods("causal,sr,unmask-full,unmask-middle,encoder", m, &n, &err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(m[1], METHOD_SR);
    assert_int_equal(m[4], METHOD_ENCODER);
    assert_int_equal(sweep_parse_methods("causal,bogus", m, &n, &err), -1);
    assert_non_null(strstr(err.msg, "bogus"));
    assert_int_equal(sweep_parse_methods("sr,sr", m, &n, &err), -1);
}

static void test_dataset_name(void **state)
{
    (void)state;
    char name[64];
    SrError err;
    assert_int_equal(sweep_dataset_name("out/right-cue/", name, sizeof name, &err), 0);
    assert_string_equal(name, "right-cue");
    assert_int_equal(sweep_dataset_name("nlupp", name, sizeof name, &err), 0);
    assert_string_equal(name, "nlupp");
    assert_int_equal(sweep_dataset_name("/a/b//c//", name, sizeof name, &err), 0);
    assert_string_equal(name, "c");
    assert_int_equal(sweep_dataset_name(".", name, sizeof name, &err), -1);
    assert_int_equal(sweep_dataset_name("x/..", name, sizeof name, &err), -1);
    assert_int_equal(sweep_dataset_name("/", name, sizeof name, &err), -1);
}

/* ---- the grid ---- */

static int four_layers(const char *model, void *ctx, int *n_layers, SrError *err)
{
    (void)ctx;
    if (strstr(model, "missing")) return sr_fail(err, "%s: cannot open", model);
    *n_layers = strstr(model, "mlm") ? 2 : 4;
    return 0;
}

static void test_grid_expand(void **state)
{
    (void)state;
    const char *dirs[] = {"d/right-cue", "d/last-word/"};
    Method methods[] = {METHOD_CAUSAL, METHOD_SR, METHOD_ENCODER};
    int r[] = {1, 2}, exits[] = {0, 2}, seeds[] = {5, 29};
    SweepGrid g = {.data_dirs = dirs, .n_data = 2, .model = "m/{data}/lm.safetensors",
                   .encoder_model = "m/{data}/mlm.safetensors", .methods = methods, .n_methods = 3,
                   .r_values = r, .n_r = 2, .exits = exits, .n_exits = 2, .seeds = seeds, .n_seeds = 2};
    SweepRun *runs = NULL;
    int n = 0;
    SrError err;
    assert_int_equal(sweep_grid_expand(&g, &runs, &n, &err), 0);
    /* 2 data x 2 seeds x (causal 1 + sr 2 + encoder 1) x 2 exits */
    assert_int_equal(n, 32);
    /* order: data, seed, method, r, exit */
    assert_string_equal(runs[0].dataset, "right-cue");
    assert_string_equal(runs[0].model, "m/right-cue/lm.safetensors");
    assert_int_equal(runs[0].method, METHOD_CAUSAL);
    assert_int_equal(runs[0].r, 0);
    assert_int_equal(runs[0].exit_layer, 0);
    assert_int_equal(runs[0].seed, 5);
    assert_int_equal(runs[1].exit_layer, 2);
    assert_int_equal(runs[2].method, METHOD_SR);
    assert_int_equal(runs[2].r, 1);
    assert_int_equal(runs[4].r, 2);
    assert_int_equal(runs[6].method, METHOD_ENCODER);
    assert_string_equal(runs[6].model, "m/right-cue/mlm.safetensors");
    assert_int_equal(runs[8].seed, 29);
    assert_string_equal(runs[16].dataset, "last-word");
    assert_string_equal(runs[16].data_dir, "d/last-word/");
    assert_string_equal(runs[16].model, "m/last-word/lm.safetensors");
    /* every key differs */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) assert_false(sweep_same_key(&runs[i], &runs[j]));

    /* exits: 0 becomes the depth (4 for lm, 2 for mlm); the mlm's "0" and "2"
     * are then the same run and one of them goes */
    assert_int_equal(sweep_resolve_exits(runs, &n, four_layers, NULL, &err), 0);
    assert_int_equal(n, 32 - 4);
    assert_int_equal(runs[0].exit_layer, 4);
    assert_int_equal(runs[1].exit_layer, 2);
    assert_int_equal(runs[6].method, METHOD_ENCODER);
    assert_int_equal(runs[6].exit_layer, 2);
    assert_int_equal(runs[7].method, METHOD_CAUSAL);
    assert_int_equal(runs[7].seed, 29);
    free(runs);
}

static void test_grid_errors(void **state)
{
    (void)state;
    const char *dirs[] = {"a/task", "b/task"};
    Method methods[] = {METHOD_CAUSAL, METHOD_ENCODER};
    int r[] = {1}, exits[] = {0}, seeds[] = {1};
    SweepGrid g = {.data_dirs = dirs, .n_data = 1, .model = "lm", .encoder_model = NULL,
                   .methods = methods, .n_methods = 2, .r_values = r, .n_r = 1, .exits = exits,
                   .n_exits = 1, .seeds = seeds, .n_seeds = 1};
    SweepRun *runs = NULL;
    int n = 0;
    SrError err;
    assert_int_equal(sweep_grid_expand(&g, &runs, &n, &err), -1);
    assert_non_null(strstr(err.msg, "encoder model"));
    g.encoder_model = "mlm";
    g.n_data = 2;
    assert_int_equal(sweep_grid_expand(&g, &runs, &n, &err), -1);
    assert_non_null(strstr(err.msg, "same name 'task'"));
    g.n_data = 1;
    int r0[] = {0};
    Method sr[] = {METHOD_SR};
    g.methods = sr;
    g.n_methods = 1;
    g.r_values = r0;
    assert_int_equal(sweep_grid_expand(&g, &runs, &n, &err), -1);
    assert_non_null(strstr(err.msg, "r >= 1"));

    /* an exit deeper than the model, and a checkpoint that cannot be read */
    SweepRun bad[1];
    memset(bad, 0, sizeof bad);
    strcpy(bad[0].model, "lm");
    bad[0].exit_layer = 5;
    n = 1;
    assert_int_equal(sweep_resolve_exits(bad, &n, four_layers, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "outside 1..4"));
    strcpy(bad[0].model, "missing.safetensors");
    assert_int_equal(sweep_resolve_exits(bad, &n, four_layers, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "missing.safetensors"));
}

/* ---- keys, duplicates, resuming ---- */

static void test_table_dedupe(void **state)
{
    (void)state;
    SweepTable t = {0};
    SrError err;
    int added = -1;
    add_row(&t, make_row("rc", "lm", METHOD_SR, 1, 4, 5, 80.0));
    add_row(&t, make_row("rc", "lm", METHOD_SR, 1, 4, 29, 81.0));
    add_row(&t, make_row("rc", "lm", METHOD_SR, 2, 4, 5, 82.0));
    add_row(&t, make_row("lw", "lm", METHOD_SR, 1, 4, 5, 83.0));
    add_row(&t, make_row("rc", "lm2", METHOD_SR, 1, 4, 5, 84.0));
    add_row(&t, make_row("rc", "lm", METHOD_SR, 1, 3, 5, 85.0));
    assert_int_equal(t.n, 6);
    /* the same run again with the same scores (say from another file): dropped */
    SweepRow again = make_row("rc", "lm", METHOD_SR, 1, 4, 29, 81.0);
    again.seconds = 99; /* timing may differ */
    snprintf(again.command, sizeof again.command, "elsewhere");
    assert_int_equal(sweep_table_add(&t, &again, &added, &err), 0);
    assert_int_equal(added, 0);
    assert_int_equal(t.n, 6);
    assert_int_equal(sweep_table_find(&t, &again.key), 1);
    /* the same run with another score: an error naming both files */
    SweepRow other = make_row("rc", "lm", METHOD_SR, 1, 4, 29, 70.0);
    snprintf(other.source, sizeof other.source, "runs-b/x.csv");
    assert_int_equal(sweep_table_add(&t, &other, &added, &err), -1);
    assert_int_equal(added, 0);
    assert_non_null(strstr(err.msg, "made-up:29"));
    assert_non_null(strstr(err.msg, "runs-b/x.csv"));
    assert_int_equal(t.n, 6);
    sweep_table_free(&t);
    assert_int_equal(t.n, 0);
    assert_null(t.rows);
}

static void test_remaining(void **state)
{
    (void)state;
    SweepRun runs[8];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < 8; i++) {
        strcpy(runs[i].dataset, "rc");
        strcpy(runs[i].model, "lm");
        runs[i].method = i % 2 ? METHOD_SR : METHOD_CAUSAL;
        runs[i].r = i % 2;
        runs[i].exit_layer = 4;
        runs[i].seed = i / 2;
    }
    SweepTable t = {0};
    /* runs 1, 4 and 6 are done, and one run that is not in this grid */
    int done[] = {1, 4, 6};
    for (int k = 0; k < 3; k++) {
        const SweepRun *d = &runs[done[k]];
        add_row(&t, make_row(d->dataset, d->model, d->method, d->r, d->exit_layer, d->seed, 50 + k));
    }
    add_row(&t, make_row("rc", "lm", METHOD_UNMASK_FULL, 0, 4, 0, 60));
    int todo[8];
    int n = sweep_remaining(runs, 8, &t, todo);
    assert_int_equal(n, 5);
    int want[] = {0, 2, 3, 5, 7};
    for (int k = 0; k < 5; k++) assert_int_equal(todo[k], want[k]);
    /* a row removed: its run is to do again, the others keep their order */
    sweep_table_remove(&t, 1);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.rows[0].key.seed, runs[1].seed);
    assert_int_equal(t.rows[1].key.seed, runs[6].seed);
    assert_int_equal(t.rows[2].key.method, METHOD_UNMASK_FULL);
    assert_int_equal(sweep_remaining(runs, 8, &t, todo), 6);
    assert_int_equal(todo[2], 3);
    assert_int_equal(todo[3], 4);
    sweep_table_free(&t);
    SweepTable empty = {0};
    assert_int_equal(sweep_remaining(runs, 8, &empty, todo), 8);
}

/* ---- CSV ---- */

static void test_csv_round_trip_and_atomic(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    SweepTable t = {0};
    SweepRow w = make_row("right-cue", "dir with, comma/lm.safetensors", METHOD_UNMASK_MIDDLE, 0, 3, 42, 71.25);
    snprintf(w.command, sizeof w.command, "seqrep finetune --model 'a \"b\", c' --seed 42");
    add_row(&t, w);
    add_row(&t, make_row("right-cue", "lm", METHOD_SR, 8, 4, 5, 99.5));
    SrError err;
    test_write_text(path, "old contents that must disappear\n");
    assert_int_equal(sweep_table_write(path, &t, &err), 0);
    assert_int_equal(test_count_entries(dir), 1); /* no temporary file left */
    SweepTable back = {0};
    int added = 0;
    assert_int_equal(sweep_table_read(path, &back, &added, &err), 0);
    assert_int_equal(added, 2);
    assert_int_equal(back.n, 2);
    const SweepRow *b = &back.rows[0];
    assert_true(sweep_same_key(&b->key, &w.key));
    assert_string_equal(b->key.model, "dir with, comma/lm.safetensors");
    assert_string_equal(b->command, w.command);
    assert_true(fabs(b->test_f1 - 71.25) < 1e-9);
    assert_true(fabs(b->dev_recall - w.dev_recall) < 1e-9);
    assert_int_equal(b->epochs, 3);
    assert_int_equal(b->best_epoch, 2);
    assert_int_equal(b->tokens, 1000);
    assert_int_equal(b->test_sentences, 40);
    assert_true(test_rel_diff(b->flops, w.flops, 1) < 1e-5);
    assert_int_equal(back.rows[1].key.r, 8);
    /* reading the same file again adds nothing (same scores) */
    assert_int_equal(sweep_table_read(path, &back, &added, &err), 0);
    assert_int_equal(added, 0);
    assert_int_equal(back.n, 2);
    /* the text itself: header, quoting */
    char *text = sweep_table_csv(&t);
    assert_non_null(text);
    assert_int_equal(strncmp(text, SWEEP_CSV_HEADER "\n", strlen(SWEEP_CSV_HEADER) + 1), 0);
    assert_non_null(strstr(text, "right-cue,\"dir with, comma/lm.safetensors\",unmask-middle,0,3,42,"));
    assert_non_null(strstr(text, "\"seqrep finetune --model 'a \"\"b\"\", c' --seed 42\""));
    free(text);
    /* a write into a directory that does not exist fails and names it */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/no/such/sweep.csv", dir);
    assert_int_equal(sweep_table_write(bad, &t, &err), -1);
    assert_non_null(strstr(err.msg, "no/such"));
    sweep_table_free(&back);
    sweep_table_free(&t);
    remove_dir(dir);
}

static void test_csv_errors(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    SweepTable t = {0};
    SrError err;
    test_write_text(path, "dataset,model\nrc,lm\n");
    assert_int_equal(sweep_table_read(path, &t, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "missing column 'method'"));
    char text[2048];
    snprintf(text, sizeof text, "%s\nrc,lm,sr,1,4,5,1,2,3,4,5,6,3,2,100,1.5,10,10,1e6,2,full,run,cmd\n"
                                "rc,lm,sr,1,4\n", SWEEP_CSV_HEADER);
    test_write_text(path, text);
    assert_int_equal(sweep_table_read(path, &t, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "bad.csv:3: 5 fields"));
    snprintf(text, sizeof text, "%s\n\nrc,lm,sr,0,4,5,1,2,3,4,5,6,3,2,100,1.5,10,10,1e6,2,full,run,cmd\n",
             SWEEP_CSV_HEADER);
    test_write_text(path, text);
    assert_int_equal(sweep_table_read(path, &t, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "bad.csv:3"));
    snprintf(text, sizeof text, "%s\nrc,lm,sr,1,4,5,1,2,x3,4,5,6,3,2,100,1.5,10,10,1e6,2,full,run,cmd\n",
             SWEEP_CSV_HEADER);
    test_write_text(path, text);
    assert_int_equal(sweep_table_read(path, &t, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "column 'dev_f1': 'x3'"));
    snprintf(text, sizeof text, "%s\nrc,lm,sr,1,4,5,1,2,3,4,5,6,3,2,100,1.5,10,10,1e6,2,\"cmd\n",
             SWEEP_CSV_HEADER);
    test_write_text(path, text);
    assert_int_equal(sweep_table_read(path, &t, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "not closed"));
    assert_int_equal(t.n, 0);
    sweep_table_free(&t);
    remove_dir(dir);
}

/* ---- reading a finetune result ---- */

static void write_run(const char *dir, const char *name, double test_f1, const char *train)
{
    char path[1200], text[2048];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    snprintf(text, sizeof text,
             "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,tokens,seconds,flops\n"
             "sr,2,3,29,dev,80.0000,70.0000,74.6667,7,9,10,4,3,12000,8.000,2e+06\n"
             "sr,2,3,29,test,60.0000,50.0000,%.4f,5,8,10,4,3,12000,8.000,5e+06\n", test_f1);
    test_write_text(path, text);
    snprintf(path, sizeof path, "%s/%s.manifest.json", dir, name);
    snprintf(text, sizeof text,
             "{\"command\": \"seqrep finetune --model lm.safetensors --method sr --r 2\", \"seed\": 29,"
             " \"model\": \"models/lm.safetensors\", \"train\": \"%s\", \"dev\": \"x/dev.conll\","
             " \"test\": \"x/test.conll\", \"train_sentences\": 200, \"dev_sentences\": 50,"
             " \"test_sentences\": 100, \"method\": \"sr\", \"r\": 2, \"exit\": 3}", train);
    test_write_text(path, text);
}

/* A run's CSV and manifest read back as a sweep row (its key, scores,
 * sizes and costs, command); merged with a sweep CSV holding the same run,
 * one row; the same run with another score in another file, a conflict
 * naming both. */
static void check_row_of_run(const char *dir)
{
    char path[512];
    write_run(dir, "one", 54.5455, "data/right-cue/train.conll");
    snprintf(path, sizeof path, "%s/one.csv", dir);
    SweepRow w;
    SrError err;
    assert_int_equal(sweep_row_from_run(path, &w, &err), 0);
    assert_string_equal(w.key.dataset, "right-cue");
    assert_string_equal(w.key.model, "models/lm.safetensors");
    assert_int_equal(w.key.method, METHOD_SR);
    assert_int_equal(w.key.r, 2);
    assert_int_equal(w.key.exit_layer, 3);
    assert_int_equal(w.key.seed, 29);
    assert_true(fabs(w.dev_f1 - 74.6667) < 1e-9);
    assert_true(fabs(w.test_f1 - 54.5455) < 1e-9);
    assert_true(fabs(w.test_precision - 60) < 1e-9);
    assert_int_equal(w.epochs, 4);
    assert_int_equal(w.best_epoch, 3);
    assert_int_equal(w.tokens, 12000);
    assert_int_equal(w.train_sentences, 200);
    assert_int_equal(w.test_sentences, 100);
    assert_true(fabs(w.flops - 5e4) < 1e-6);              /* 5e6 FLOPs / 100 test sentences */
    assert_true(fabs(w.ms_per_sentence - 10.0) < 1e-9);   /* 8 s / (4 epochs x 200) */
    assert_string_equal(w.command, "seqrep finetune --model lm.safetensors --method sr --r 2");

    /* merging: a run file and a sweep CSV holding the same run */
    SweepTable t = {0};
    int rows = 0, added = 0;
    assert_int_equal(sweep_table_merge_file(&t, path, &rows, &added, &err), 0);
    assert_int_equal(rows, 1);
    assert_int_equal(added, 1);
    char sweep_path[512];
    snprintf(sweep_path, sizeof sweep_path, "%s/sweep.csv", dir);
    assert_int_equal(sweep_table_write(sweep_path, &t, &err), 0);
    assert_int_equal(sweep_table_merge_file(&t, sweep_path, &rows, &added, &err), 0);
    assert_int_equal(rows, 1);
    assert_int_equal(added, 0);
    /* the same run with another score in another file: conflict naming both */
    write_run(dir, "two", 40.0, "elsewhere/right-cue/train.conll");
    snprintf(path, sizeof path, "%s/two.csv", dir);
    assert_int_equal(sweep_table_merge_file(&t, path, &rows, &added, &err), -1);
    assert_non_null(strstr(err.msg, "one.csv"));
    assert_non_null(strstr(err.msg, "two.csv"));
    sweep_table_free(&t);
}

/* Refused: a run whose manifest is missing (dir/two, left by
 * check_row_of_run), a run CSV without its test row, an unknown file, sizes
 * that are no whole numbers, an infinite time per sentence. */
static void check_bad_runs(const char *dir)
{
    char path[512];
    SweepRow w;
    SrError err;
    SweepTable t = {0};
    int rows = 0, added = 0;
    snprintf(path, sizeof path, "%s/two.manifest.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/two.csv", dir);
    assert_int_equal(sweep_row_from_run(path, &w, &err), -1);
    assert_non_null(strstr(err.msg, "two.manifest.json"));
    test_write_text(path, "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,tokens,seconds,flops\n"
                     "sr,2,3,29,dev,80.0000,70.0000,74.6667,7,9,10,4,3,12000,8.000,2e+06\n");
    assert_int_equal(sweep_row_from_run(path, &w, &err), -1);
    assert_non_null(strstr(err.msg, "'test' row"));
    test_write_text(path, "r,layer,copy\n1,2,last\n");
    assert_int_equal(sweep_table_merge_file(&t, path, &rows, &added, &err), -1);
    assert_non_null(strstr(err.msg, "neither"));
    sweep_table_free(&t);

    /* sizes that are no whole numbers, and a time per sentence that would be
     * infinite, are refused (fuzz_sweep inputs: (long)1e300 is undefined, and
     * "inf" written to a sweep CSV never read back) */
    write_run(dir, "three", 50.0, "data/right-cue/train.conll");
    snprintf(path, sizeof path, "%s/three.manifest.json", dir);
    test_write_text(path, "{\"command\": \"c\", \"model\": \"m\", \"train\": \"d/x/train.conll\","
                     " \"train_sentences\": 1e300, \"test_sentences\": 100}");
    snprintf(path, sizeof path, "%s/three.csv", dir);
    assert_int_equal(sweep_row_from_run(path, &w, &err), -1);
    assert_non_null(strstr(err.msg, "three.manifest.json: needs model"));
    write_run(dir, "three", 50.0, "data/right-cue/train.conll");
    test_write_text(path, "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,tokens,seconds,flops\n"
                     "sr,2,3,29,dev,80.0000,70.0000,74.6667,7,9,10,4,3,12000,1e306,2e+06\n"
                     "sr,2,3,29,test,60.0000,50.0000,50.0000,5,8,10,4,3,12000,1e306,5e+06\n");
    assert_int_equal(sweep_row_from_run(path, &w, &err), -1);
    assert_non_null(strstr(err.msg, "three.csv: seconds or flops too large"));
}

static void test_row_from_run(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    check_row_of_run(dir);
    check_bad_runs(dir);
    remove_dir(dir);
}

/* ---- statistics and summary ---- */

static void test_mean_std(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 4}, mean, std;
    sweep_mean_std(x, 4, &mean, &std);
    assert_true(fabs(mean - 2.5) < 1e-12);
    /* squares of deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, over n - 1 = 3 */
    assert_true(fabs(std - sqrt(5.0 / 3.0)) < 1e-12);
    double one[] = {7};
    sweep_mean_std(one, 1, &mean, &std);
    assert_true(fabs(mean - 7) < 1e-12);
    assert_true(std == 0);
    double y[] = {80.0, 82.0, 87.0};
    sweep_mean_std(y, 3, &mean, &std);
    assert_true(fabs(mean - 83.0) < 1e-12);
    assert_true(fabs(std - sqrt((9.0 + 1.0 + 16.0) / 2.0)) < 1e-12); /* 3.6056 */
}

static void test_summary(void **state)
{
    (void)state;
    SweepTable t = {0};
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_SR, 1, 4, 5, 80.0));
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_CAUSAL, 0, 4, 5, 50.0));
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_SR, 1, 4, 29, 82.0));
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_CAUSAL, 0, 4, 29, 52.0));
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_SR, 1, 4, 42, 87.0));
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_CAUSAL, 0, 4, 42, 54.0));
    add_row(&t, make_row("right-cue", "out/lm.safetensors", METHOD_SR, 1, 2, 5, 70.0));
    add_row(&t, make_row("nlupp", "out/lm.safetensors", METHOD_CAUSAL, 0, 4, 5, 30.0));
    char *md = sweep_summary_markdown(&t);
    assert_non_null(md);
    /* datasets in order of first appearance */
    char *rc = strstr(md, "### right-cue"), *nl = strstr(md, "### nlupp");
    assert_non_null(rc);
    assert_non_null(nl);
    assert_true(rc < nl);
    /* causal first; mean 52 +- 2 over 3 seeds; FLOPs x causal 1.00 */
    char *causal = strstr(md, "| lm | causal | 0 | 4 | 3 | 52.00 ± 2.00 | 53.50 ± 2.00 | – | 4e+06 | 1.00 |");
    assert_non_null(causal);
    /* sr r=1 at full depth: 83 +- 3.61, 31 points above causal, twice the FLOPs */
    char *sr4 = strstr(md, "| lm | sr | 1 | 4 | 3 | 83.00 ± 3.61 | 84.50 ± 3.61 | +31.00 | 8e+06 | 2.00 |");
    assert_non_null(sr4);
    /* sr r=1 exiting at layer 2: one seed, no causal at that exit, half the FLOPs of r=1 full depth */
    char *sr2 = strstr(md, "| lm | sr | 1 | 2 | 1 | 70.00 ± 0.00 | 71.50 ± 0.00 | – | 4e+06 | 1.00 |");
    assert_non_null(sr2);
    assert_true(causal < sr2 && sr2 < sr4);
    /* the NLU++ table credits its source, the other does not */
    char *credit = strstr(md, "PolyAI");
    assert_non_null(credit);
    assert_true(credit > nl);
    free(md);
    sweep_table_free(&t);
    SweepTable empty = {0};
    md = sweep_summary_markdown(&empty);
    assert_non_null(strstr(md, "no runs"));
    free(md);
}

/* ---- copy positions: a grid dimension for sr, a key column, a summary label ---- */

/* --copy-positions parsed (twice or unknown refused), and the grid: restart
 * runs for sr only. */
static void check_positions_grid(void)
{
    RepeatPositions pos[2];
    int n_pos = 0;
    SrError err;
    assert_int_equal(sweep_parse_positions("run,restart", pos, &n_pos, &err), 0);
    assert_int_equal(n_pos, 2);
    assert_int_equal(pos[1], REPEAT_POSITIONS_RESTART);
    assert_int_equal(sweep_parse_positions("restart,restart", pos, &n_pos, &err), -1);
    assert_non_null(strstr(err.msg, "twice"));
    assert_int_equal(sweep_parse_positions("run,again", pos, &n_pos, &err), -1);
    assert_non_null(strstr(err.msg, "'again'"));
    assert_int_equal(sweep_parse_positions("run,restart", pos, &n_pos, &err), 0);

    /* restart runs for sr only: causal and unmask have one copy, nothing to restart */
    const char *dirs[] = {"d/rc"};
    Method methods[] = {METHOD_CAUSAL, METHOD_SR, METHOD_UNMASK_FULL};
    int r[] = {1, 4}, exits[] = {2}, seeds[] = {5, 29};
    SweepGrid g = {.data_dirs = dirs, .n_data = 1, .model = "lm", .methods = methods,
                   .n_methods = 3, .r_values = r, .n_r = 2, .exits = exits, .n_exits = 1,
                   .seeds = seeds, .n_seeds = 2, .positions = pos, .n_positions = 2};
    SweepRun *runs = NULL;
    int n = 0, n_restart = 0;
    assert_int_equal(sweep_grid_expand(&g, &runs, &n, &err), 0);
    assert_int_equal(n, 2 * (1 + 2 * 2 + 1));
    for (int i = 0; i < n; i++) {
        n_restart += runs[i].positions == REPEAT_POSITIONS_RESTART;
        if (runs[i].method != METHOD_SR) assert_int_equal(runs[i].positions, REPEAT_POSITIONS_RUN);
        for (int j = i + 1; j < n; j++) assert_false(sweep_same_key(&runs[i], &runs[j]));
    }
    assert_int_equal(n_restart, 4);
    assert_int_equal(runs[1].r, 1);
    assert_int_equal(runs[1].positions, REPEAT_POSITIONS_RUN);
    assert_int_equal(runs[2].r, 1);
    assert_int_equal(runs[2].positions, REPEAT_POSITIONS_RESTART);
    free(runs);
    g.positions = pos + 1; /* restart only: sr restarts, the others still run once */
    g.n_positions = 1;
    assert_int_equal(sweep_grid_expand(&g, &runs, &n, &err), 0);
    assert_int_equal(n, 2 * (1 + 2 + 1));
    assert_int_equal(runs[1].positions, REPEAT_POSITIONS_RESTART);
    assert_int_equal(runs[0].positions, REPEAT_POSITIONS_RUN);
    free(runs);
}

/* The CSV keeps positions (and the summary labels them); a CSV written
 * before the column reads as run; positions neither run nor restart, and
 * restart for a method without copies, are refused; a finetune run's
 * manifest tells its copy positions. */
static void check_positions_files(const char *dir)
{
    char path[512];
    SrError err;
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    SweepTable t = {0};
    SweepRow w = make_row("rc", "lm", METHOD_SR, 4, 2, 5, 90.0);
    add_row(&t, w);
    w.key.positions = REPEAT_POSITIONS_RESTART;
    w.test_f1 = 70.0;
    add_row(&t, w); /* another key: added, not a conflict */
    add_row(&t, make_row("rc", "lm", METHOD_CAUSAL, 0, 2, 5, 50.0));
    assert_int_equal(sweep_table_write(path, &t, &err), 0);
    SweepTable back = {0};
    assert_int_equal(sweep_table_read(path, &back, NULL, &err), 0);
    assert_int_equal(back.n, 3);
    assert_int_equal(back.rows[1].key.positions, REPEAT_POSITIONS_RESTART);
    assert_true(sweep_same_key(&back.rows[1].key, &w.key));
    sweep_table_free(&back);
    char *md = sweep_summary_markdown(&t);
    assert_non_null(strstr(md, "| lm | sr | 4 | 2 | 1 | 90.00 ± 0.00 |"));
    assert_non_null(strstr(md, "| lm | sr restart | 4 | 2 | 1 | 70.00 ± 0.00 |"));
    free(md);
    sweep_table_free(&t);
    test_write_text(path, "dataset,model,method,r,exit,seed,dev_precision,dev_recall,dev_f1,test_precision,"
                     "test_recall,test_f1,epochs,best_epoch,tokens,seconds,train_sentences,"
                     "test_sentences,flops,ms_per_sentence,command\n"
                     "rc,lm,sr,4,2,5,1,2,3,4,5,6,3,2,100,1.5,10,10,1e6,2,cmd\n");
    assert_int_equal(sweep_table_read(path, &back, NULL, &err), 0);
    assert_int_equal(back.n, 1);
    assert_int_equal(back.rows[0].key.positions, REPEAT_POSITIONS_RUN);
    assert_string_equal(sweep_recipe(&back.rows[0].key), "full");
    sweep_table_free(&back);
    /* positions neither run nor restart; restart for a method without copies */
    const char *bad[2][2] = {
        {"rc,lm,sr,4,2,5,1,2,3,4,5,6,3,2,100,1.5,10,10,1e6,2,full,again,cmd", "sweep.csv:2: column 'positions': 'again'"},
        {"rc,lm,causal,0,2,5,1,2,3,4,5,6,3,2,100,1.5,10,10,1e6,2,full,restart,cmd", "only sr"}};
    for (int k = 0; k < 2; k++) {
        char text[2048];
        snprintf(text, sizeof text, "%s\n%s\n", SWEEP_CSV_HEADER, bad[k][0]);
        test_write_text(path, text);
        assert_int_equal(sweep_table_read(path, &back, NULL, &err), -1);
        assert_non_null(strstr(err.msg, bad[k][1]));
    }
    sweep_table_free(&back);

    /* a finetune run's manifest tells its copy positions */
    write_run(dir, "run", 50.0, "data/right-cue/train.conll");
    snprintf(path, sizeof path, "%s/run.manifest.json", dir);
    test_write_text(path, "{\"command\": \"c\", \"model\": \"lm\", \"train\": \"data/rc/train.conll\","
                     " \"train_sentences\": 20, \"test_sentences\": 10, \"copy_positions\": \"restart\"}");
    snprintf(path, sizeof path, "%s/run.csv", dir);
    assert_int_equal(sweep_row_from_run(path, &w, &err), 0);
    assert_int_equal(w.key.positions, REPEAT_POSITIONS_RESTART);
}

static void test_positions(void **state)
{
    (void)state;
    check_positions_grid();
    char *dir = make_temp_dir();
    check_positions_files(dir);
    remove_dir(dir);
}

/* ---- one run as a command ---- */

static void test_run_command(void **state)
{
    (void)state;
    SweepRun run;
    memset(&run, 0, sizeof run);
    strcpy(run.dataset, "right-cue");
    strcpy(run.data_dir, "data/right-cue");
    strcpy(run.model, "my models/lm.safetensors");
    run.method = METHOD_SR;
    run.r = 4;
    run.exit_layer = 3;
    run.seed = 81;
    char path[256];
    SrError err;
    assert_int_equal(sweep_run_path(&run, "out.runs", path, sizeof path, &err), 0);
    assert_string_equal(path, "out.runs/right-cue.lm.sr.r4.exit3.seed81.csv");
    char small[20];
    assert_int_equal(sweep_run_path(&run, "out.runs", small, sizeof small, &err), -1);
    assert_non_null(strstr(err.msg, "too long"));
    SweepFinetuneOptions o = {.epochs = 2, .lr = 5e-4f, .lr_set = 1, .threads = 1, .threads_set = 1};
    char **argv = NULL;
    int argc = 0;
    assert_int_equal(sweep_run_argv(&run, &o, "/bin/seqrep", path, &argv, &argc, &err), 0);
    assert_null(argv[argc]);
    char *line = sweep_command_line(argv, argc);
    assert_non_null(line);
    assert_string_equal(line, "/bin/seqrep finetune --model 'my models/lm.safetensors' "
                              "--train data/right-cue/train.conll --dev data/right-cue/dev.conll "
                              "--test data/right-cue/test.conll --method sr --r 4 --exit 3 --seed 81 "
                              "--epochs 2 --lr 0.0005 --threads 1 "
                              "--out out.runs/right-cue.lm.sr.r4.exit3.seed81.csv "
                              "--predictions out.runs/right-cue.lm.sr.r4.exit3.seed81.predictions.conll "
                              "--quiet");
    free(line);
    sweep_argv_free(argv, argc);
    /* restarted copy positions: in the file name and on the command line */
    run.positions = REPEAT_POSITIONS_RESTART;
    strcpy(run.recipe, "paper");
    assert_int_equal(sweep_run_path(&run, "out.runs", path, sizeof path, &err), 0);
    assert_string_equal(path, "out.runs/right-cue.lm.sr.r4.exit3.seed81.paper.restart.csv");
    assert_int_equal(sweep_run_argv(&run, &o, "/bin/seqrep", path, &argv, &argc, &err), 0);
    line = sweep_command_line(argv, argc);
    assert_non_null(strstr(line, " --recipe paper --copy-positions restart --out out.runs/right-cue.lm"
                                 ".sr.r4.exit3.seed81.paper.restart.csv --predictions out.runs/"
                                 "right-cue.lm.sr.r4.exit3.seed81.paper.restart.predictions.conll --quiet"));
    free(line);
    sweep_argv_free(argv, argc);
    /* --save-models: --save with the model beside the run's files, before --quiet */
    o.save_models = 1;
    assert_int_equal(sweep_run_argv(&run, &o, "/bin/seqrep", path, &argv, &argc, &err), 0);
    line = sweep_command_line(argv, argc);
    assert_non_null(strstr(line, ".paper.restart.predictions.conll --save out.runs/right-cue.lm.sr.r4"
                                 ".exit3.seed81.paper.restart.model.safetensors --quiet"));
    free(line);
    sweep_argv_free(argv, argc);
    char saved[128];
    assert_int_equal(sweep_saved_model_path("a/run.csv", saved, sizeof saved, &err), 0);
    assert_string_equal(saved, "a/run.model.safetensors");
    assert_int_equal(sweep_saved_model_path("a/run.csv", saved, 10, &err), -1);
    char dir[64];
    assert_int_equal(sweep_default_runs_dir("results/x-sweep.csv", dir, sizeof dir, &err), 0);
    assert_string_equal(dir, "results/x-sweep.runs");
    char *quote[] = {"it's", ""};
    line = sweep_command_line(quote, 2);
    assert_string_equal(line, "'it'\\''s' ''");
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_int_list),
        cmocka_unit_test(test_parse_methods),
        cmocka_unit_test(test_dataset_name),
        cmocka_unit_test(test_grid_expand),
        cmocka_unit_test(test_grid_errors),
        cmocka_unit_test(test_table_dedupe),
        cmocka_unit_test(test_remaining),
        cmocka_unit_test(test_csv_round_trip_and_atomic),
        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_row_from_run),
        cmocka_unit_test(test_mean_std),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_run_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
