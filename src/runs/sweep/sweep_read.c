/* sweep_read.c — results read back into a sweep table: a sweep CSV, or one
 * finished `seqrep finetune` run (its CSV and manifest); see sweep_read.h. */
#include "runs/sweep/sweep_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/csv.h"
#include "base/text_file.h"
#include "runs/manifest.h"

/* Copy src into dst (capacity n); -1 if it does not fit. */
static int copy_text(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n) return -1;
    memcpy(dst, src, len + 1);
    return 0;
}

/* Read a whole CSV file with a header (fields kept as written). */
static int csv_load(const char *path, CsvFile *c, SrError *err)
{
    if (csv_file_read(path, NULL, c, err)) return -1;
    if (c->n_cols == 0) {
        csv_file_free(c);
        return sr_fail(err, "%s: empty file (no header)", path);
    }
    return 0;
}

/* The columns of SWEEP_CSV_HEADER, in order. */
enum {
    COL_DATASET, COL_MODEL, COL_METHOD, COL_R, COL_EXIT, COL_SEED, COL_DEV_P, COL_DEV_R, COL_DEV_F1,
    COL_TEST_P, COL_TEST_R, COL_TEST_F1, COL_EPOCHS, COL_BEST_EPOCH, COL_TOKENS, COL_SECONDS,
    COL_TRAIN_SENTS, COL_TEST_SENTS, COL_FLOPS, COL_MS, COL_COMMAND, N_SWEEP_COLS
};
static const char *const SWEEP_COLUMNS[N_SWEEP_COLS] = {
    "dataset", "model", "method", "r", "exit", "seed", "dev_precision", "dev_recall", "dev_f1",
    "test_precision", "test_recall", "test_f1", "epochs", "best_epoch", "tokens", "seconds",
    "train_sentences", "test_sentences", "flops", "ms_per_sentence", "command"};

/* Check that a key's method, r and positions go together. */
static int check_key(const SweepRun *k, const char *where, SrError *err)
{
    SrError e;
    if (method_plan(k->method, k->r, NULL, 0, &e))
        return sr_fail(err, "%s: %s", where, e.msg);
    if (k->exit_layer < 1) return sr_fail(err, "%s: exit %d is not a layer >= 1", where, k->exit_layer);
    if (k->positions != REPEAT_POSITIONS_RUN && k->method != METHOD_SR)
        return sr_fail(err, "%s: positions %s with method %s (only sr has copies to renumber)",
                       where, repeat_positions_name(k->positions), method_name(k->method));
    return 0;
}

/* Fill row from data row r of a sweep CSV (idx: the SWEEP_COLUMNS' columns;
 * recipe_col, positions_col: those columns, or -1 in files written before
 * them). */
static int row_from_record(const CsvFile *c, int r, const int *idx, int recipe_col,
                           int positions_col, SweepRow *row, SrError *err)
{
    memset(row, 0, sizeof *row);
    snprintf(row->source, sizeof row->source, "%s:%d", c->path, c->line[r]);
    if (copy_text(row->key.recipe, sizeof row->key.recipe,
                  recipe_col >= 0 ? csv_file_cell(c, r, recipe_col) : "full"))
        return sr_fail(err, "%s: recipe too long", row->source);
    const char *positions = positions_col >= 0 ? csv_file_cell(c, r, positions_col) : "run";
    if (repeat_parse_positions(positions, &row->key.positions))
        return sr_fail(err, "%s: column 'positions': '%s' is not run, restart or induction", row->source,
                       positions);
    if (copy_text(row->key.dataset, sizeof row->key.dataset, csv_file_cell(c, r, idx[COL_DATASET])) ||
        copy_text(row->key.model, sizeof row->key.model, csv_file_cell(c, r, idx[COL_MODEL])) ||
        copy_text(row->command, sizeof row->command, csv_file_cell(c, r, idx[COL_COMMAND])))
        return sr_fail(err, "%s: a field is too long", row->source);
    if (!row->key.dataset[0] || !row->key.model[0])
        return sr_fail(err, "%s: empty dataset or model", row->source);
    const char *method = csv_file_cell(c, r, idx[COL_METHOD]);
    if (method_parse(method, &row->key.method))
        return sr_fail(err, "%s: unknown method '%s'", row->source, method);
    long r_, exit_, seed, epochs, best, tokens, n_train, n_test;
    if (csv_file_long(c, r, idx[COL_R], 0, 1000000, &r_, err) ||
        csv_file_long(c, r, idx[COL_EXIT], 1, 1000000, &exit_, err) ||
        csv_file_long(c, r, idx[COL_SEED], -2147483647L, 2147483647L, &seed, err) ||
        csv_file_long(c, r, idx[COL_EPOCHS], 1, 1000000, &epochs, err) ||
        csv_file_long(c, r, idx[COL_BEST_EPOCH], 1, 1000000, &best, err) ||
        csv_file_long(c, r, idx[COL_TOKENS], 0, 0x7fffffffffffffffL, &tokens, err) ||
        csv_file_long(c, r, idx[COL_TRAIN_SENTS], 0, 0x7fffffffffffffffL, &n_train, err) ||
        csv_file_long(c, r, idx[COL_TEST_SENTS], 0, 0x7fffffffffffffffL, &n_test, err) ||
        csv_file_number(c, r, idx[COL_DEV_P], &row->dev_precision, err) ||
        csv_file_number(c, r, idx[COL_DEV_R], &row->dev_recall, err) ||
        csv_file_number(c, r, idx[COL_DEV_F1], &row->dev_f1, err) ||
        csv_file_number(c, r, idx[COL_TEST_P], &row->test_precision, err) ||
        csv_file_number(c, r, idx[COL_TEST_R], &row->test_recall, err) ||
        csv_file_number(c, r, idx[COL_TEST_F1], &row->test_f1, err) ||
        csv_file_number(c, r, idx[COL_SECONDS], &row->seconds, err) ||
        csv_file_number(c, r, idx[COL_FLOPS], &row->flops, err) ||
        csv_file_number(c, r, idx[COL_MS], &row->ms_per_sentence, err))
        return -1;
    row->key.r = (int)r_;
    row->key.exit_layer = (int)exit_;
    row->key.seed = (int)seed;
    row->epochs = (int)epochs;
    row->best_epoch = (int)best;
    row->tokens = tokens;
    row->train_sentences = n_train;
    row->test_sentences = n_test;
    return check_key(&row->key, row->source, err);
}

/* Add the data rows of an already-read sweep CSV to t. */
static int add_sweep_records(SweepTable *t, const CsvFile *c, int *n_added, SrError *err)
{
    int idx[N_SWEEP_COLS];
    if (csv_file_require(c, SWEEP_COLUMNS, N_SWEEP_COLS, idx, err)) return -1;
    SweepRow *row = malloc(sizeof *row);
    if (!row) return sr_fail(err, "out of memory");
    int rc = 0;
    for (int r = 0; r < c->n_rows && rc == 0; r++) {
        int added = 0;
        rc = row_from_record(c, r, idx, csv_file_column(c, "recipe"),
                             csv_file_column(c, "positions"), row, err);
        if (rc == 0) rc = sweep_table_add(t, row, &added, err);
        if (n_added) *n_added += added;
    }
    free(row);
    return rc;
}

int sweep_table_read(const char *path, SweepTable *t, int *n_added, SrError *err)
{
    if (n_added) *n_added = 0;
    CsvFile c;
    if (csv_load(path, &c, err)) return -1;
    int rc = add_sweep_records(t, &c, n_added, err);
    csv_file_free(&c);
    return rc;
}

/* The string member `name` of a JSON object, or NULL. */
static const char *json_string(const cJSON *obj, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The member `name` of a JSON object, a whole number in 0..2^53, into *out;
 * 0 or -1 (a cast of 1e300 to long is undefined: a fuzz_sweep input). */
static int json_count(const cJSON *obj, const char *name, long *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsNumber(item)) return -1;
    double d = item->valuedouble;
    if (!(d >= 0 && d <= 9007199254740992.0) || d != floor(d)) return -1;
    *out = (long)d;
    return 0;
}

/* Fill the row's key and sizes from the manifest of a finetune run. */
static int row_from_manifest(const char *mpath, SweepRow *row, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(mpath, &text, &len, err)) return -1;
    cJSON *m = cJSON_Parse(text);
    free(text);
    if (!m) return sr_fail(err, "%s: not valid JSON", mpath);
    int rc = 0;
    const char *model = json_string(m, "model"), *train = json_string(m, "train");
    const char *command = json_string(m, "command");
    long n_train = 0, n_test = 0;
    if (!model || !train || !command || json_count(m, "train_sentences", &n_train) ||
        json_count(m, "test_sentences", &n_test)) {
        rc = sr_fail(err, "%s: needs model, train, command, train_sentences and test_sentences "
                          "(whole numbers; a manifest of `seqrep finetune`)", mpath);
    } else {
        char dir[1024];
        if (copy_text(dir, sizeof dir, train)) {
            rc = sr_fail(err, "%s: training path too long", mpath);
        } else {
            char *slash = strrchr(dir, '/');
            if (slash) *slash = 0;
            else strcpy(dir, ".");
            SrError e;
            if (strcmp(dir, ".") == 0 || sweep_dataset_name(dir, row->key.dataset,
                                                            sizeof row->key.dataset, &e))
                rc = sr_fail(err, "%s: cannot name the dataset: the training file %s is not in "
                                  "a directory of its own", mpath, train);
        }
        const char *recipe = json_string(m, "recipe");
        const char *positions = json_string(m, "copy_positions"); /* absent before it existed */
        if (rc == 0 && positions && repeat_parse_positions(positions, &row->key.positions))
            rc = sr_fail(err, "%s: copy_positions '%s' is not run, restart or induction", mpath, positions);
        if (rc == 0 && (copy_text(row->key.model, sizeof row->key.model, model) ||
                        copy_text(row->command, sizeof row->command, command) ||
                        copy_text(row->key.recipe, sizeof row->key.recipe,
                                  recipe ? recipe : "full")))
            rc = sr_fail(err, "%s: model path or command too long", mpath);
        row->train_sentences = n_train;
        row->test_sentences = n_test;
    }
    cJSON_Delete(m);
    return rc;
}

/* The columns a `seqrep finetune` CSV must have (in any order). */
enum {
    RUN_METHOD, RUN_R, RUN_EXIT, RUN_SEED, RUN_SPLIT, RUN_PRECISION, RUN_RECALL, RUN_F1,
    RUN_EPOCHS, RUN_BEST_EPOCH, RUN_TOKENS, RUN_SECONDS, RUN_FLOPS, N_RUN_COLUMNS
};
static const char *const RUN_COLUMNS[N_RUN_COLUMNS] = {
    "method", "r", "exit", "seed", "split", "precision", "recall", "f1", "epochs", "best_epoch",
    "tokens", "seconds", "flops"};

/* Row r of a run's CSV c (its columns at idx) into row: the key's method, r,
 * exit and seed (which must be those of the row read before, when
 * `second`), the epochs, tokens and seconds, and the precision, recall and
 * F1 of its split (dev when is_dev, else test, whose flops go to
 * *test_flops). 0 or -1 with "PATH:LINE: ..." in err. */
static int read_run_row(const CsvFile *c, int r, const int *idx, const char *csv_path, int second,
                        int is_dev, SweepRow *row, double *test_flops, SrError *err)
{
    Method method;
    long rr, exit_, seed, epochs, best, tokens;
    double p, rec, f1, seconds, flops;
    const char *method_text = csv_file_cell(c, r, idx[RUN_METHOD]);
    if (method_parse(method_text, &method))
        return sr_fail(err, "%s:%d: unknown method '%s'", csv_path, c->line[r], method_text);
    if (csv_file_long(c, r, idx[RUN_R], 0, 1000000, &rr, err) ||
        csv_file_long(c, r, idx[RUN_EXIT], 1, 1000000, &exit_, err) ||
        csv_file_long(c, r, idx[RUN_SEED], -2147483647L, 2147483647L, &seed, err) ||
        csv_file_long(c, r, idx[RUN_EPOCHS], 1, 1000000, &epochs, err) ||
        csv_file_long(c, r, idx[RUN_BEST_EPOCH], 1, 1000000, &best, err) ||
        csv_file_long(c, r, idx[RUN_TOKENS], 0, 0x7fffffffffffffffL, &tokens, err) ||
        csv_file_number(c, r, idx[RUN_PRECISION], &p, err) ||
        csv_file_number(c, r, idx[RUN_RECALL], &rec, err) ||
        csv_file_number(c, r, idx[RUN_F1], &f1, err) ||
        csv_file_number(c, r, idx[RUN_SECONDS], &seconds, err) ||
        csv_file_number(c, r, idx[RUN_FLOPS], &flops, err))
        return -1;
    if (second && (method != row->key.method || rr != row->key.r || exit_ != row->key.exit_layer ||
                   seed != row->key.seed))
        return sr_fail(err, "%s:%d: the dev and test rows are of different runs", csv_path,
                       c->line[r]);
    row->key.method = method;
    row->key.r = (int)rr;
    row->key.exit_layer = (int)exit_;
    row->key.seed = (int)seed;
    row->epochs = (int)epochs;
    row->best_epoch = (int)best;
    row->tokens = tokens;
    row->seconds = seconds;
    if (is_dev) {
        row->dev_precision = p;
        row->dev_recall = rec;
        row->dev_f1 = f1;
    } else {
        row->test_precision = p;
        row->test_recall = rec;
        row->test_f1 = f1;
        *test_flops = flops;
    }
    return 0;
}

/* The dev and the test row of a run's CSV into row (read_run_row), each
 * exactly once; other splits are skipped. 0 or -1. */
static int read_run_csv(const char *csv_path, SweepRow *row, double *test_flops, SrError *err)
{
    CsvFile c;
    if (csv_load(csv_path, &c, err)) return -1;
    int idx[N_RUN_COLUMNS], rc = csv_file_require(&c, RUN_COLUMNS, N_RUN_COLUMNS, idx, err);
    int have_dev = 0, have_test = 0;
    for (int r = 0; r < c.n_rows && rc == 0; r++) {
        const char *split = csv_file_cell(&c, r, idx[RUN_SPLIT]);
        int is_dev = strcmp(split, "dev") == 0, is_test = strcmp(split, "test") == 0;
        if (!is_dev && !is_test) continue;
        if ((is_dev && have_dev) || (is_test && have_test))
            rc = sr_fail(err, "%s:%d: a second '%s' row", csv_path, c.line[r], split);
        else
            rc = read_run_row(&c, r, idx, csv_path, have_dev || have_test, is_dev, row, test_flops,
                              err);
        if (is_dev) have_dev = 1;
        else have_test = 1;
    }
    csv_file_free(&c);
    if (rc) return -1;
    if (!have_dev || !have_test) return sr_fail(err, "%s: needs a 'dev' and a 'test' row", csv_path);
    return 0;
}

int sweep_row_from_run(const char *csv_path, SweepRow *row, SrError *err)
{
    memset(row, 0, sizeof *row);
    snprintf(row->source, sizeof row->source, "%s", csv_path);
    double test_flops = 0;
    if (read_run_csv(csv_path, row, &test_flops, err)) return -1;
    /* the key's method, r, exit and seed come from the CSV; the rest from the manifest */
    SweepRun k = row->key;
    char *mpath = path_with_suffix(csv_path, ".manifest.json"); /* as `seqrep finetune` names it */
    if (!mpath) return sr_fail(err, "out of memory");
    int from_manifest = row_from_manifest(mpath, row, err);
    free(mpath);
    if (from_manifest) return -1;
    row->key.method = k.method;
    row->key.r = k.r;
    row->key.exit_layer = k.exit_layer;
    row->key.seed = k.seed;
    /* a method without copies numbers them the same way either way */
    if (row->key.method != METHOD_SR) row->key.positions = REPEAT_POSITIONS_RUN;
    row->flops = row->test_sentences > 0 ? test_flops / (double)row->test_sentences : 0;
    row->ms_per_sentence = row->train_sentences > 0
                               ? 1e3 * row->seconds / ((double)row->epochs * (double)row->train_sentences)
                               : 0;
    /* an infinite value would be written as "inf", which no reader takes
     * back (a fuzz_sweep input: seconds 1e306) */
    if (!isfinite(row->ms_per_sentence) || !isfinite(row->flops))
        return sr_fail(err, "%s: seconds or flops too large for a time or cost per sentence",
                       csv_path);
    return check_key(&row->key, csv_path, err);
}

int sweep_table_merge_file(SweepTable *t, const char *path, int *n_rows, int *n_added,
                           SrError *err)
{
    if (n_added) *n_added = 0;
    if (n_rows) *n_rows = 0;
    CsvFile c;
    if (csv_load(path, &c, err)) return -1;
    int is_sweep = csv_file_column(&c, "dataset") >= 0 && csv_file_column(&c, "test_f1") >= 0;
    int is_run = csv_file_column(&c, "split") >= 0 && csv_file_column(&c, "f1") >= 0;
    int rc;
    if (is_sweep) {
        rc = add_sweep_records(t, &c, n_added, err);
        if (n_rows) *n_rows = c.n_rows;
    } else if (is_run) {
        SweepRow *row = malloc(sizeof *row);
        int added = 0;
        rc = row ? sweep_row_from_run(path, row, err) : sr_fail(err, "out of memory");
        if (rc == 0) rc = sweep_table_add(t, row, &added, err);
        if (n_added) *n_added = added;
        if (n_rows) *n_rows = 1;
        free(row);
    } else {
        rc = sr_fail(err, "%s: neither a sweep CSV (dataset, ..., test_f1) nor a `seqrep finetune` "
                          "CSV (split, f1, ...)", path);
    }
    csv_file_free(&c);
    return rc;
}
