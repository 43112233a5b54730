/* sweep.c — the grid of fine-tuning runs, the table of their results, its CSV
 * and its markdown summary. */
#include "runs/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "base/text_file.h"
#include "runs/manifest.h"

/* ---- small text helpers ---------------------------------------------------- */

/* Copy src into dst (capacity n); -1 if it does not fit. */
static int copy_text(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n) return -1;
    memcpy(dst, src, len + 1);
    return 0;
}

/* Parse a whole decimal integer in [lo, hi]; 0 or -1. */
static int parse_long(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Parse a whole finite number; 0 or -1. */
static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int sweep_parse_int_list(const char *text, int min_value, int **values, int *n_values,
                         SrError *err)
{
    *values = NULL;
    *n_values = 0;
    size_t len = strlen(text);
    int cap = 1;
    for (size_t i = 0; i < len; i++) cap += text[i] == ',';
    char *buf = malloc(len + 1);
    int *v = malloc(sizeof(int) * (size_t)cap);
    if (!buf || !v) {
        free(buf);
        free(v);
        return sr_fail(err, "out of memory");
    }
    memcpy(buf, text, len + 1);
    int n = 0, rc = 0;
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = 0;
        long x;
        if (parse_long(item, min_value, 2147483647L, &x)) {
            rc = sr_fail(err, "'%s' is not an integer >= %d (in the list '%s')", item, min_value, text);
            break;
        }
        for (int k = 0; k < n; k++)
            if (v[k] == (int)x) rc = sr_fail(err, "%ld appears twice in the list '%s'", x, text);
        if (rc) break;
        v[n++] = (int)x;
        if (!comma) break;
        item = comma + 1;
    }
    free(buf);
    if (rc) {
        free(v);
        return -1;
    }
    *values = v;
    *n_values = n;
    return 0;
}

int sweep_parse_methods(const char *text, Method *methods, int *n_methods, SrError *err)
{
    *n_methods = 0;
    char buf[256];
    if (copy_text(buf, sizeof buf, text)) return sr_fail(err, "method list too long: '%s'", text);
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = 0;
        Method m;
        if (method_parse(item, &m))
            return sr_fail(err, "unknown method '%s' (methods: causal, sr, unmask-full, "
                                "unmask-middle, encoder)", item);
        for (int k = 0; k < *n_methods; k++)
            if (methods[k] == m) return sr_fail(err, "method '%s' appears twice", item);
        methods[(*n_methods)++] = m;
        if (!comma) break;
        item = comma + 1;
    }
    return 0;
}

int sweep_dataset_name(const char *data_dir, char *name, size_t n, SrError *err)
{
    size_t end = strlen(data_dir);
    while (end > 1 && data_dir[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && data_dir[start - 1] != '/') start--;
    size_t len = end - start;
    if (len == 0 || (len == 1 && data_dir[start] == '.') ||
        (len == 2 && data_dir[start] == '.' && data_dir[start + 1] == '.'))
        return sr_fail(err, "%s: cannot name the dataset after this directory; give its own "
                            "path (such as data/right-cue)", data_dir);
    if (len >= n) return sr_fail(err, "%s: directory name too long", data_dir);
    memcpy(name, data_dir + start, len);
    name[len] = 0;
    return 0;
}

/* pattern with every "{data}" replaced by dataset, into out (capacity n). */
static int substitute_data(const char *pattern, const char *dataset, char *out, size_t n,
                           SrError *err)
{
    size_t o = 0;
    for (const char *p = pattern; *p;) {
        const char *piece = p;
        size_t len = 1;
        if (strncmp(p, "{data}", 6) == 0) {
            piece = dataset;
            len = strlen(dataset);
            p += 6;
        } else {
            p++;
        }
        if (o + len >= n) return sr_fail(err, "model path too long: '%s'", pattern);
        memcpy(out + o, piece, len);
        o += len;
    }
    out[o] = 0;
    return 0;
}

/* ---- the grid --------------------------------------------------------------- */

int sweep_grid_expand(const SweepGrid *g, SweepRun **runs, int *n_runs, SrError *err)
{
    *runs = NULL;
    *n_runs = 0;
    int has_encoder = 0;
    for (int mi = 0; mi < g->n_methods; mi++) has_encoder |= g->methods[mi] == METHOD_ENCODER;
    if (has_encoder && !g->encoder_model)
        return sr_fail(err, "method encoder needs an encoder model (pre-trained with --objective mlm)");
    for (int i = 0; i < g->n_r; i++)
        if (g->r_values[i] < 1)
            return sr_fail(err, "r = %d: sequence repetition needs r >= 1 (r = 0 is the causal "
                                "method)", g->r_values[i]);
    if (g->n_data < 1 || g->n_methods < 1 || g->n_exits < 1 || g->n_seeds < 1)
        return sr_fail(err, "the grid is empty: it needs data, methods, exits and seeds");
    int per_seed = 0;
    for (int mi = 0; mi < g->n_methods; mi++)
        per_seed += g->methods[mi] == METHOD_SR ? g->n_r : 1;
    if (per_seed == 0) return sr_fail(err, "method sr needs at least one r");
    long total = (long)g->n_data * g->n_seeds * per_seed * g->n_exits;
    if (total > 1000000) return sr_fail(err, "the grid has %ld runs; at most 1000000", total);
    SweepRun *out = calloc((size_t)total, sizeof *out);
    if (!out) return sr_fail(err, "out of memory");
    int n = 0;
    for (int di = 0; di < g->n_data; di++) {
        SweepRun base = {0};
        if (sweep_dataset_name(g->data_dirs[di], base.dataset, sizeof base.dataset, err))
            goto fail;
        if (copy_text(base.data_dir, sizeof base.data_dir, g->data_dirs[di])) {
            sr_fail(err, "%s: path too long", g->data_dirs[di]);
            goto fail;
        }
        for (int dj = 0; dj < di; dj++) {
            char other[256];
            if (sweep_dataset_name(g->data_dirs[dj], other, sizeof other, err)) goto fail;
            if (strcmp(other, base.dataset) == 0) {
                sr_fail(err, "%s and %s have the same name '%s'; rename one", g->data_dirs[dj],
                        g->data_dirs[di], base.dataset);
                goto fail;
            }
        }
        char model[1024], encoder[1024];
        if (substitute_data(g->model, base.dataset, model, sizeof model, err)) goto fail;
        if (g->encoder_model &&
            substitute_data(g->encoder_model, base.dataset, encoder, sizeof encoder, err))
            goto fail;
        for (int si = 0; si < g->n_seeds; si++)
            for (int mi = 0; mi < g->n_methods; mi++) {
                Method method = g->methods[mi];
                int n_r = method == METHOD_SR ? g->n_r : 1;
                for (int ri = 0; ri < n_r; ri++)
                    for (int ei = 0; ei < g->n_exits; ei++) {
                        SweepRun *run = &out[n++];
                        *run = base;
                        strcpy(run->model, method == METHOD_ENCODER ? encoder : model);
                        run->method = method;
                        run->r = method == METHOD_SR ? g->r_values[ri] : 0;
                        run->exit_layer = g->exits[ei];
                        run->seed = g->seeds[si];
                    }
            }
    }
    *runs = out;
    *n_runs = n;
    return 0;
fail:
    free(out);
    return -1;
}

int sweep_same_key(const SweepRun *a, const SweepRun *b)
{
    return a->method == b->method && a->r == b->r && a->exit_layer == b->exit_layer &&
           a->seed == b->seed && strcmp(a->dataset, b->dataset) == 0 &&
           strcmp(a->model, b->model) == 0;
}

int sweep_resolve_exits(SweepRun *runs, int *n_runs, SweepLayerCount count, void *ctx,
                        SrError *err)
{
    int n = 0;
    for (int i = 0; i < *n_runs; i++) {
        SweepRun run = runs[i];
        int n_layers = 0;
        if (count(run.model, ctx, &n_layers, err)) return -1;
        if (run.exit_layer == 0) run.exit_layer = n_layers;
        if (run.exit_layer < 1 || run.exit_layer > n_layers)
            return sr_fail(err, "exit %d is outside 1..%d: %s has %d layers", run.exit_layer,
                           n_layers, run.model, n_layers);
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = sweep_same_key(&runs[j], &run);
        if (!seen) runs[n++] = run;
    }
    *n_runs = n;
    return 0;
}

/* ---- the table ---------------------------------------------------------------- */

int sweep_table_find(const SweepTable *t, const SweepRun *run)
{
    for (int i = 0; i < t->n; i++)
        if (sweep_same_key(&t->rows[i].key, run)) return i;
    return -1;
}

/* 1 if two rows of the same key report the same result. */
static int same_result(const SweepRow *a, const SweepRow *b)
{
    const double tol = 5e-5;
    return fabs(a->dev_precision - b->dev_precision) < tol &&
           fabs(a->dev_recall - b->dev_recall) < tol && fabs(a->dev_f1 - b->dev_f1) < tol &&
           fabs(a->test_precision - b->test_precision) < tol &&
           fabs(a->test_recall - b->test_recall) < tol && fabs(a->test_f1 - b->test_f1) < tol &&
           a->tokens == b->tokens && a->epochs == b->epochs;
}

int sweep_table_add(SweepTable *t, const SweepRow *row, int *added, SrError *err)
{
    *added = 0;
    int i = sweep_table_find(t, &row->key);
    if (i >= 0) {
        const SweepRow *old = &t->rows[i];
        if (same_result(old, row)) return 0;
        return sr_fail(err, "%s and %s disagree on the run %s %s %s r=%d exit=%d seed=%d "
                            "(test F1 %.2f vs %.2f)", old->source, row->source, row->key.dataset,
                       row->key.model, method_name(row->key.method), row->key.r,
                       row->key.exit_layer, row->key.seed, old->test_f1, row->test_f1);
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        SweepRow *rows = realloc(t->rows, sizeof *rows * (size_t)cap);
        if (!rows) return sr_fail(err, "out of memory");
        t->rows = rows;
        t->cap = cap;
    }
    t->rows[t->n++] = *row;
    *added = 1;
    return 0;
}

void sweep_table_free(SweepTable *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int sweep_remaining(const SweepRun *runs, int n_runs, const SweepTable *t, int *todo)
{
    int n = 0;
    for (int i = 0; i < n_runs; i++)
        if (sweep_table_find(t, &runs[i]) < 0) todo[n++] = i;
    return n;
}

/* ---- reading CSV ---------------------------------------------------------------- */

/* A parsed CSV file: record 0 is the header. */
typedef struct {
    int n_records;
    int *n_fields;   /* (n_records) */
    char ***fields;  /* (n_records) arrays of owned strings */
    int *line;       /* (n_records) 1-based line where the record starts */
} CsvRecords;

/* Release every field and record; zero c. */
static void csv_records_free(CsvRecords *c)
{
    for (int i = 0; i < c->n_records; i++) {
        for (int f = 0; f < c->n_fields[i]; f++) free(c->fields[i][f]);
        free(c->fields[i]);
    }
    free(c->n_fields);
    free(c->fields);
    free(c->line);
    memset(c, 0, sizeof *c);
}

/* Append one field (text[0..len)) to the record being built. */
static int push_field(char ***fields, int *n, int *cap, const char *text, size_t len)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        char **f = realloc(*fields, sizeof(char *) * (size_t)c);
        if (!f) return -1;
        *fields = f;
        *cap = c;
    }
    char *s = malloc(len + 1);
    if (!s) return -1;
    memcpy(s, text, len);
    s[len] = 0;
    (*fields)[(*n)++] = s;
    return 0;
}

/* Append a finished record. */
static int push_record(CsvRecords *c, int *cap, char **fields, int n_fields, int line)
{
    if (c->n_records == *cap) {
        int k = *cap ? 2 * *cap : 64;
        int *nf = realloc(c->n_fields, sizeof(int) * (size_t)k);
        if (nf) c->n_fields = nf;
        char ***fs = realloc(c->fields, sizeof(char **) * (size_t)k);
        if (fs) c->fields = fs;
        int *ln = realloc(c->line, sizeof(int) * (size_t)k);
        if (ln) c->line = ln;
        if (!nf || !fs || !ln) return -1;
        *cap = k;
    }
    c->n_fields[c->n_records] = n_fields;
    c->fields[c->n_records] = fields;
    c->line[c->n_records] = line;
    c->n_records++;
    return 0;
}

/* Split text into records of fields: commas separate fields, a field may be
 * double-quoted ("" inside is a quote, commas and newlines are kept), blank
 * lines are skipped, "\r\n" counts as "\n". */
static int csv_parse(const char *path, const char *text, CsvRecords *c, SrError *err)
{
    memset(c, 0, sizeof *c);
    int rec_cap = 0, line = 1;
    size_t buf_cap = 256, buf_len = 0;
    char *buf = malloc(buf_cap);
    if (!buf) return sr_fail(err, "%s: out of memory", path);
    const char *p = text;
    while (*p) {
        if (*p == '\n' || (*p == '\r' && p[1] == '\n')) { /* blank line */
            p += *p == '\r' ? 2 : 1;
            line++;
            continue;
        }
        int start_line = line, n_fields = 0, f_cap = 0;
        char **fields = NULL;
        for (;;) { /* one field */
            buf_len = 0;
            int quoted = *p == '"';
            if (quoted) p++;
            for (;;) {
                char ch = *p;
                if (quoted) {
                    if (ch == 0) {
                        for (int f = 0; f < n_fields; f++) free(fields[f]);
                        free(fields);
                        free(buf);
                        csv_records_free(c);
                        return sr_fail(err, "%s:%d: quoted field not closed", path, start_line);
                    }
                    if (ch == '"' && p[1] != '"') { /* the closing quote */
                        p++;
                        quoted = 0;
                        continue;
                    }
                    p += ch == '"' ? 2 : 1; /* "" stands for one quote */
                    if (ch == '\n') line++;
                } else {
                    if (ch == 0 || ch == ',' || ch == '\n' || (ch == '\r' && p[1] == '\n')) break;
                    p++;
                }
                if (buf_len + 1 >= buf_cap) {
                    char *b = realloc(buf, buf_cap * 2);
                    if (!b) goto oom;
                    buf = b;
                    buf_cap *= 2;
                }
                buf[buf_len++] = ch;
            }
            if (push_field(&fields, &n_fields, &f_cap, buf, buf_len)) goto oom;
            if (*p == ',') {
                p++;
                continue;
            }
            break;
        }
        if (*p == '\r') p++;
        if (*p == '\n') {
            p++;
            line++;
        }
        if (push_record(c, &rec_cap, fields, n_fields, start_line)) {
            for (int f = 0; f < n_fields; f++) free(fields[f]);
            free(fields);
            goto oom;
        }
        continue;
    oom:
        free(buf);
        csv_records_free(c);
        return sr_fail(err, "%s: out of memory", path);
    }
    free(buf);
    return 0;
}

/* Index of column name in the header record, or -1. */
static int header_index(const CsvRecords *c, const char *name)
{
    for (int f = 0; f < c->n_fields[0]; f++)
        if (strcmp(c->fields[0][f], name) == 0) return f;
    return -1;
}

/* Indices of the columns names[0..n); fails naming the first missing one. */
static int require_columns(const CsvRecords *c, const char *path, const char *const *names, int n,
                           int *idx, SrError *err)
{
    for (int i = 0; i < n; i++) {
        idx[i] = header_index(c, names[i]);
        if (idx[i] < 0) return sr_fail(err, "%s: missing column '%s'", path, names[i]);
    }
    return 0;
}

/* Field col of record r as an integer in [lo, hi] / as a finite number; errors
 * name the file, line and column. */
static int field_long(const CsvRecords *c, const char *path, int r, int col, long lo, long hi,
                      long *out, SrError *err)
{
    if (parse_long(c->fields[r][col], lo, hi, out))
        return sr_fail(err, "%s:%d: column '%s': '%s' is not an integer in %ld..%ld", path,
                       c->line[r], c->fields[0][col], c->fields[r][col], lo, hi);
    return 0;
}

static int field_double(const CsvRecords *c, const char *path, int r, int col, double *out,
                        SrError *err)
{
    if (parse_double(c->fields[r][col], out))
        return sr_fail(err, "%s:%d: column '%s': '%s' is not a number", path, c->line[r],
                       c->fields[0][col], c->fields[r][col]);
    return 0;
}

/* Read and parse a whole CSV file; every record must have the header's width. */
static int csv_load(const char *path, CsvRecords *c, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = csv_parse(path, text, c, err);
    free(text);
    if (rc) return -1;
    if (c->n_records == 0) {
        csv_records_free(c);
        return sr_fail(err, "%s: empty file (no header)", path);
    }
    for (int r = 1; r < c->n_records; r++)
        if (c->n_fields[r] != c->n_fields[0]) {
            int line = c->line[r], n = c->n_fields[r], h = c->n_fields[0];
            csv_records_free(c);
            return sr_fail(err, "%s:%d: %d fields, the header has %d", path, line, n, h);
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

/* Check that a key's method and r go together. */
static int check_key(const SweepRun *k, const char *where, SrError *err)
{
    SrError e;
    if (method_plan(k->method, k->r, NULL, 0, &e))
        return sr_fail(err, "%s: %s", where, e.msg);
    if (k->exit_layer < 1) return sr_fail(err, "%s: exit %d is not a layer >= 1", where, k->exit_layer);
    return 0;
}

/* Fill row from record r of a sweep CSV. */
static int row_from_record(const CsvRecords *c, const char *path, int r, const int *idx,
                           SweepRow *row, SrError *err)
{
    memset(row, 0, sizeof *row);
    char *const *f = c->fields[r];
    snprintf(row->source, sizeof row->source, "%s:%d", path, c->line[r]);
    if (copy_text(row->key.dataset, sizeof row->key.dataset, f[idx[COL_DATASET]]) ||
        copy_text(row->key.model, sizeof row->key.model, f[idx[COL_MODEL]]) ||
        copy_text(row->command, sizeof row->command, f[idx[COL_COMMAND]]))
        return sr_fail(err, "%s: a field is too long", row->source);
    if (!row->key.dataset[0] || !row->key.model[0])
        return sr_fail(err, "%s: empty dataset or model", row->source);
    if (method_parse(f[idx[COL_METHOD]], &row->key.method))
        return sr_fail(err, "%s: unknown method '%s'", row->source, f[idx[COL_METHOD]]);
    long r_, exit_, seed, epochs, best, tokens, n_train, n_test;
    if (field_long(c, path, r, idx[COL_R], 0, 1000000, &r_, err) ||
        field_long(c, path, r, idx[COL_EXIT], 1, 1000000, &exit_, err) ||
        field_long(c, path, r, idx[COL_SEED], -2147483647L, 2147483647L, &seed, err) ||
        field_long(c, path, r, idx[COL_EPOCHS], 1, 1000000, &epochs, err) ||
        field_long(c, path, r, idx[COL_BEST_EPOCH], 1, 1000000, &best, err) ||
        field_long(c, path, r, idx[COL_TOKENS], 0, 0x7fffffffffffffffL, &tokens, err) ||
        field_long(c, path, r, idx[COL_TRAIN_SENTS], 0, 0x7fffffffffffffffL, &n_train, err) ||
        field_long(c, path, r, idx[COL_TEST_SENTS], 0, 0x7fffffffffffffffL, &n_test, err) ||
        field_double(c, path, r, idx[COL_DEV_P], &row->dev_precision, err) ||
        field_double(c, path, r, idx[COL_DEV_R], &row->dev_recall, err) ||
        field_double(c, path, r, idx[COL_DEV_F1], &row->dev_f1, err) ||
        field_double(c, path, r, idx[COL_TEST_P], &row->test_precision, err) ||
        field_double(c, path, r, idx[COL_TEST_R], &row->test_recall, err) ||
        field_double(c, path, r, idx[COL_TEST_F1], &row->test_f1, err) ||
        field_double(c, path, r, idx[COL_SECONDS], &row->seconds, err) ||
        field_double(c, path, r, idx[COL_FLOPS], &row->flops, err) ||
        field_double(c, path, r, idx[COL_MS], &row->ms_per_sentence, err))
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

/* Add the data records of an already-parsed sweep CSV to t. */
static int add_sweep_records(SweepTable *t, const CsvRecords *c, const char *path, int *n_added,
                             SrError *err)
{
    int idx[N_SWEEP_COLS];
    if (require_columns(c, path, SWEEP_COLUMNS, N_SWEEP_COLS, idx, err)) return -1;
    SweepRow *row = malloc(sizeof *row);
    if (!row) return sr_fail(err, "out of memory");
    int rc = 0;
    for (int r = 1; r < c->n_records && rc == 0; r++) {
        int added = 0;
        rc = row_from_record(c, path, r, idx, row, err);
        if (rc == 0) rc = sweep_table_add(t, row, &added, err);
        if (n_added) *n_added += added;
    }
    free(row);
    return rc;
}

int sweep_table_read(const char *path, SweepTable *t, int *n_added, SrError *err)
{
    if (n_added) *n_added = 0;
    CsvRecords c;
    if (csv_load(path, &c, err)) return -1;
    int rc = add_sweep_records(t, &c, path, n_added, err);
    csv_records_free(&c);
    return rc;
}

/* The string member `name` of a JSON object, or NULL. */
static const char *json_string(const cJSON *obj, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The number member `name` of a JSON object into *out; 0 or -1. */
static int json_number(const cJSON *obj, const char *name, double *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsNumber(item)) return -1;
    *out = item->valuedouble;
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
    double n_train = 0, n_test = 0;
    if (!model || !train || !command || json_number(m, "train_sentences", &n_train) ||
        json_number(m, "test_sentences", &n_test)) {
        rc = sr_fail(err, "%s: needs model, train, command, train_sentences and test_sentences "
                          "(a manifest of `seqrep finetune`)", mpath);
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
        if (rc == 0 && (copy_text(row->key.model, sizeof row->key.model, model) ||
                        copy_text(row->command, sizeof row->command, command)))
            rc = sr_fail(err, "%s: model path or command too long", mpath);
        row->train_sentences = (long)n_train;
        row->test_sentences = (long)n_test;
    }
    cJSON_Delete(m);
    return rc;
}

int sweep_row_from_run(const char *csv_path, SweepRow *row, SrError *err)
{
    memset(row, 0, sizeof *row);
    snprintf(row->source, sizeof row->source, "%s", csv_path);
    CsvRecords c;
    if (csv_load(csv_path, &c, err)) return -1;
    static const char *const cols[] = {"method", "r", "exit", "seed", "split", "precision",
                                       "recall", "f1", "epochs", "best_epoch", "tokens",
                                       "seconds", "flops"};
    enum { M, R, EXIT, SEED, SPLIT, P, REC, F1, EPOCHS, BEST, TOKENS, SECONDS, FLOPS, N_COLS };
    int idx[N_COLS], rc = require_columns(&c, csv_path, cols, N_COLS, idx, err);
    int have_dev = 0, have_test = 0;
    double test_flops = 0;
    for (int r = 1; r < c.n_records && rc == 0; r++) {
        char *const *f = c.fields[r];
        const char *split = f[idx[SPLIT]];
        int is_dev = strcmp(split, "dev") == 0, is_test = strcmp(split, "test") == 0;
        if (!is_dev && !is_test) continue;
        if ((is_dev && have_dev) || (is_test && have_test)) {
            rc = sr_fail(err, "%s:%d: a second '%s' row", csv_path, c.line[r], split);
            break;
        }
        Method method;
        long rr, exit_, seed, epochs, best, tokens;
        double p, rec, f1, seconds, flops;
        if (method_parse(f[idx[M]], &method)) {
            rc = sr_fail(err, "%s:%d: unknown method '%s'", csv_path, c.line[r], f[idx[M]]);
            break;
        }
        if (field_long(&c, csv_path, r, idx[R], 0, 1000000, &rr, err) ||
            field_long(&c, csv_path, r, idx[EXIT], 1, 1000000, &exit_, err) ||
            field_long(&c, csv_path, r, idx[SEED], -2147483647L, 2147483647L, &seed, err) ||
            field_long(&c, csv_path, r, idx[EPOCHS], 1, 1000000, &epochs, err) ||
            field_long(&c, csv_path, r, idx[BEST], 1, 1000000, &best, err) ||
            field_long(&c, csv_path, r, idx[TOKENS], 0, 0x7fffffffffffffffL, &tokens, err) ||
            field_double(&c, csv_path, r, idx[P], &p, err) ||
            field_double(&c, csv_path, r, idx[REC], &rec, err) ||
            field_double(&c, csv_path, r, idx[F1], &f1, err) ||
            field_double(&c, csv_path, r, idx[SECONDS], &seconds, err) ||
            field_double(&c, csv_path, r, idx[FLOPS], &flops, err)) {
            rc = -1;
            break;
        }
        if ((have_dev || have_test) &&
            (method != row->key.method || rr != row->key.r || exit_ != row->key.exit_layer ||
             seed != row->key.seed)) {
            rc = sr_fail(err, "%s:%d: the dev and test rows are of different runs", csv_path, c.line[r]);
            break;
        }
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
            have_dev = 1;
        } else {
            row->test_precision = p;
            row->test_recall = rec;
            row->test_f1 = f1;
            test_flops = flops;
            have_test = 1;
        }
    }
    csv_records_free(&c);
    if (rc) return -1;
    if (!have_dev || !have_test) return sr_fail(err, "%s: needs a 'dev' and a 'test' row", csv_path);
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
    row->flops = row->test_sentences > 0 ? test_flops / (double)row->test_sentences : 0;
    row->ms_per_sentence = row->train_sentences > 0
                               ? 1e3 * row->seconds / ((double)row->epochs * (double)row->train_sentences)
                               : 0;
    return check_key(&row->key, csv_path, err);
}

int sweep_table_merge_file(SweepTable *t, const char *path, int *n_rows, int *n_added,
                           SrError *err)
{
    if (n_added) *n_added = 0;
    if (n_rows) *n_rows = 0;
    CsvRecords c;
    if (csv_load(path, &c, err)) return -1;
    int is_sweep = header_index(&c, "dataset") >= 0 && header_index(&c, "test_f1") >= 0;
    int is_run = header_index(&c, "split") >= 0 && header_index(&c, "f1") >= 0;
    int rc;
    if (is_sweep) {
        rc = add_sweep_records(t, &c, path, n_added, err);
        if (n_rows) *n_rows = c.n_records - 1;
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
    csv_records_free(&c);
    return rc;
}

/* ---- writing CSV ------------------------------------------------------------------ */

/* Write one CSV field, double-quoted when it holds a comma, quote or newline. */
static void write_csv_field(FILE *f, const char *text)
{
    if (!strpbrk(text, ",\"\n\r")) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

char *sweep_table_csv(const SweepTable *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "%s\n", SWEEP_CSV_HEADER);
    for (int i = 0; i < t->n; i++) {
        const SweepRow *w = &t->rows[i];
        write_csv_field(f, w->key.dataset);
        fputc(',', f);
        write_csv_field(f, w->key.model);
        fprintf(f, ",%s,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%ld,%.3f,%ld,%ld,%.6g,%.4g,",
                method_name(w->key.method), w->key.r, w->key.exit_layer, w->key.seed,
                w->dev_precision, w->dev_recall, w->dev_f1, w->test_precision, w->test_recall,
                w->test_f1, w->epochs, w->best_epoch, w->tokens, w->seconds, w->train_sentences,
                w->test_sentences, w->flops, w->ms_per_sentence);
        write_csv_field(f, w->command);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int sweep_table_write(const char *path, const SweepTable *t, SrError *err)
{
    char *text = sweep_table_csv(t);
    if (!text) return sr_fail(err, "%s: out of memory", path);
    int rc = write_file_atomic(path, text, err);
    free(text);
    return rc;
}

/* ---- the summary ------------------------------------------------------------------- */

void sweep_mean_std(const double *x, int n, double *mean, double *std)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    double m = n > 0 ? s / n : 0, q = 0;
    for (int i = 0; i < n; i++) q += (x[i] - m) * (x[i] - m);
    *mean = m;
    *std = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* Rows that differ only in seed, summarised. */
typedef struct {
    const SweepRow *first;  /* its key (seed aside) */
    int n;
    double test_mean, test_std, dev_mean, dev_std, flops, seconds;
} SummaryGroup;

/* Order of rows in the summary: dataset (first appearance), model, method, r,
 * exit, seed. The dataset rank is kept in dataset_rank. */
typedef struct {
    const SweepRow *row;
    int dataset_rank;
} RankedRow;

/* qsort order of RankedRow: the summary's order above. */
static int compare_ranked(const void *pa, const void *pb)
{
    const RankedRow *a = pa, *b = pb;
    if (a->dataset_rank != b->dataset_rank) return a->dataset_rank < b->dataset_rank ? -1 : 1;
    const SweepRun *x = &a->row->key, *y = &b->row->key;
    int c = strcmp(x->model, y->model);
    if (c) return c;
    if (x->method != y->method) return x->method < y->method ? -1 : 1;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    if (x->exit_layer != y->exit_layer) return x->exit_layer < y->exit_layer ? -1 : 1;
    if (x->seed != y->seed) return x->seed < y->seed ? -1 : 1;
    return 0;
}

/* 1 if two rows belong to one group (same key but for the seed). */
static int same_group(const SweepRow *a, const SweepRow *b)
{
    return strcmp(a->key.dataset, b->key.dataset) == 0 && strcmp(a->key.model, b->key.model) == 0 &&
           a->key.method == b->key.method && a->key.r == b->key.r &&
           a->key.exit_layer == b->key.exit_layer;
}

/* The checkpoint's file name without directory and ".safetensors". */
static void model_label(const char *model, char *out, size_t n)
{
    const char *slash = strrchr(model, '/');
    snprintf(out, n, "%s", slash ? slash + 1 : model);
    size_t len = strlen(out), ext = strlen(".safetensors");
    if (len > ext && strcmp(out + len - ext, ".safetensors") == 0) out[len - ext] = 0;
}

/* 1 if the dataset name looks like NLU++ (its tables must credit the source). */
static int is_nlupp(const char *dataset)
{
    for (const char *p = dataset; *p; p++)
        if ((p[0] == 'n' || p[0] == 'N') && (p[1] == 'l' || p[1] == 'L') && (p[2] == 'u' || p[2] == 'U'))
            return 1;
    return 0;
}

/* Write the table of groups g[0..n) of one dataset. */
static void write_dataset_table(FILE *f, const SummaryGroup *g, int n)
{
    /* reference: causal (r = 0) at its deepest exit, first model that has one */
    const SummaryGroup *ref = NULL;
    for (int i = 0; i < n; i++)
        if (g[i].first->key.method == METHOD_CAUSAL &&
            (!ref || (strcmp(ref->first->key.model, g[i].first->key.model) == 0 &&
                      g[i].first->key.exit_layer > ref->first->key.exit_layer)))
            ref = &g[i];
    fprintf(f, "### %s\n\n", g[0].first->key.dataset);
    fprintf(f, "| model | method | r | exit | seeds | test F1 | dev F1 | test F1 − causal | "
               "FLOPs / sentence | × causal | train s |\n");
    fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; i++) {
        const SweepRun *k = &g[i].first->key;
        char label[1024], delta[32] = "–", rel[32] = "–";
        model_label(k->model, label, sizeof label);
        /* causal of the same model and exit, for the F1 difference */
        for (int j = 0; j < n; j++) {
            const SweepRun *c = &g[j].first->key;
            if (c->method == METHOD_CAUSAL && c->exit_layer == k->exit_layer &&
                strcmp(c->model, k->model) == 0 && j != i)
                snprintf(delta, sizeof delta, "%+.2f", g[i].test_mean - g[j].test_mean);
        }
        if (ref && ref->flops > 0) snprintf(rel, sizeof rel, "%.2f", g[i].flops / ref->flops);
        fprintf(f, "| %s | %s | %d | %d | %d | %.2f ± %.2f | %.2f ± %.2f | %s | %.3g | %s | %.1f |\n",
                label, method_name(k->method), k->r, k->exit_layer, g[i].n, g[i].test_mean,
                g[i].test_std, g[i].dev_mean, g[i].dev_std, delta, g[i].flops, rel, g[i].seconds);
    }
    fprintf(f, "\n");
    if (is_nlupp(g[0].first->key.dataset))
        fprintf(f, "Data: NLU++ by PolyAI (Casanueva et al., *NLU++: A Multi-Label, Slot-Rich, "
                   "Generalisable Dataset for Natural Language Understanding in Task-Oriented "
                   "Dialogue*, Findings of NAACL 2022), CC BY 4.0.\n\n");
}

char *sweep_summary_markdown(const SweepTable *t)
{
    char *text = NULL;
    size_t len = 0;
    RankedRow *ranked = malloc(sizeof *ranked * (size_t)(t->n ? t->n : 1));
    SummaryGroup *groups = malloc(sizeof *groups * (size_t)(t->n ? t->n : 1));
    double *test = malloc(sizeof(double) * (size_t)(t->n ? t->n : 1));
    double *dev = malloc(sizeof(double) * (size_t)(t->n ? t->n : 1));
    FILE *f = ranked && groups && test && dev ? open_memstream(&text, &len) : NULL;
    if (!f) {
        free(ranked);
        free(groups);
        free(test);
        free(dev);
        return NULL;
    }
    for (int i = 0; i < t->n; i++) {
        ranked[i].row = &t->rows[i];
        ranked[i].dataset_rank = i;
        for (int j = 0; j < i; j++)
            if (strcmp(t->rows[j].key.dataset, t->rows[i].key.dataset) == 0) {
                ranked[i].dataset_rank = ranked[j].dataset_rank;
                break;
            }
    }
    qsort(ranked, (size_t)t->n, sizeof *ranked, compare_ranked);
    int n_groups = 0;
    for (int i = 0; i < t->n;) {
        int j = i;
        SummaryGroup *g = &groups[n_groups++];
        g->first = ranked[i].row;
        g->flops = g->seconds = 0;
        while (j < t->n && same_group(ranked[i].row, ranked[j].row)) {
            test[j - i] = ranked[j].row->test_f1;
            dev[j - i] = ranked[j].row->dev_f1;
            g->flops += ranked[j].row->flops;
            g->seconds += ranked[j].row->seconds;
            j++;
        }
        g->n = j - i;
        sweep_mean_std(test, g->n, &g->test_mean, &g->test_std);
        sweep_mean_std(dev, g->n, &g->dev_mean, &g->dev_std);
        g->flops /= g->n;
        g->seconds /= g->n;
        i = j;
    }
    fprintf(f, "Strict IOB2 span micro-F1 (%%), mean ± sample std over seeds; the test score is "
               "the one at the epoch with the best dev F1. \"test F1 − causal\": difference of "
               "the means from causal (r = 0) with the same model and exit. FLOPs: analytic "
               "forward FLOPs per test sentence at this exit (matrix products only); × causal: "
               "relative to causal at full depth. train s: fine-tuning wall clock per run.\n\n");
    for (int i = 0; i < n_groups;) {
        int j = i;
        while (j < n_groups && strcmp(groups[j].first->key.dataset, groups[i].first->key.dataset) == 0) j++;
        write_dataset_table(f, &groups[i], j - i);
        i = j;
    }
    if (n_groups == 0) fprintf(f, "(no runs yet)\n");
    free(ranked);
    free(groups);
    free(test);
    free(dev);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int sweep_summary_write(const char *path, const SweepTable *t, SrError *err)
{
    char *text = sweep_summary_markdown(t);
    if (!text) return sr_fail(err, "%s: out of memory", path);
    int rc = write_file_atomic(path, text, err);
    free(text);
    return rc;
}

/* ---- one run as a command ------------------------------------------------------------ */

int sweep_run_path(const SweepRun *run, const char *runs_dir, char *out, size_t n, SrError *err)
{
    char label[1024];
    model_label(run->model, label, sizeof label);
    int len = snprintf(out, n, "%s/%s.%s.%s.r%d.exit%d.seed%d.csv", runs_dir, run->dataset, label,
                       method_name(run->method), run->r, run->exit_layer, run->seed);
    if (len < 0 || (size_t)len >= n) return sr_fail(err, "%s: path of a run file too long", runs_dir);
    return 0;
}

/* Append a copy of text to argv (capacity cap); -1 when out of memory or full. */
static int push_arg(char **argv, int *argc, int cap, const char *text)
{
    if (*argc + 1 >= cap) return -1;
    char *s = strdup(text);
    if (!s) return -1;
    argv[(*argc)++] = s;
    argv[*argc] = NULL;
    return 0;
}

/* Append "--name value" with an integer value. */
static int push_int_option(char **argv, int *argc, int cap, const char *name, int value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", value);
    return push_arg(argv, argc, cap, name) || push_arg(argv, argc, cap, buf) ? -1 : 0;
}

int sweep_run_argv(const SweepRun *run, const SweepFinetuneOptions *o, const char *exe,
                   const char *out_csv, char ***argv_out, int *argc_out, SrError *err)
{
    enum { CAP = 40 };
    char **argv = calloc(CAP, sizeof(char *));
    int argc = 0;
    if (!argv) return sr_fail(err, "out of memory");
    char path[1100], lr[32];
    int bad = push_arg(argv, &argc, CAP, exe) || push_arg(argv, &argc, CAP, "finetune") ||
              push_arg(argv, &argc, CAP, "--model") || push_arg(argv, &argc, CAP, run->model);
    const char *splits[3] = {"train", "dev", "test"};
    for (int s = 0; s < 3 && !bad; s++) {
        char option[16];
        snprintf(option, sizeof option, "--%s", splits[s]);
        if (snprintf(path, sizeof path, "%s/%s.conll", run->data_dir, splits[s]) >= (int)sizeof path) {
            sweep_argv_free(argv, argc);
            return sr_fail(err, "%s: path too long", run->data_dir);
        }
        bad = push_arg(argv, &argc, CAP, option) || push_arg(argv, &argc, CAP, path);
    }
    bad = bad || push_arg(argv, &argc, CAP, "--method") ||
          push_arg(argv, &argc, CAP, method_name(run->method)) ||
          push_int_option(argv, &argc, CAP, "--r", run->r) ||
          push_int_option(argv, &argc, CAP, "--exit", run->exit_layer) ||
          push_int_option(argv, &argc, CAP, "--seed", run->seed) ||
          push_int_option(argv, &argc, CAP, "--epochs", o->epochs);
    if (!bad && o->lr_set) {
        snprintf(lr, sizeof lr, "%g", (double)o->lr);
        bad = push_arg(argv, &argc, CAP, "--lr") || push_arg(argv, &argc, CAP, lr);
    }
    if (!bad && o->batch_set) bad = push_int_option(argv, &argc, CAP, "--batch", o->batch);
    if (!bad && o->threads_set) bad = push_int_option(argv, &argc, CAP, "--threads", o->threads);
    bad = bad || push_arg(argv, &argc, CAP, "--out") || push_arg(argv, &argc, CAP, out_csv) ||
          push_arg(argv, &argc, CAP, "--quiet");
    if (bad) {
        sweep_argv_free(argv, argc);
        return sr_fail(err, "out of memory");
    }
    *argv_out = argv;
    *argc_out = argc;
    return 0;
}

void sweep_argv_free(char **argv, int argc)
{
    if (!argv) return;
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

/* Write word to f, single-quoted unless it is made of plain characters only. */
static void write_shell_word(FILE *f, const char *word)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%";
    if (*word && strspn(word, plain) == strlen(word)) {
        fputs(word, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = word; *p; p++) {
        if (*p == '\'') fputs("'\\''", f);
        else fputc(*p, f);
    }
    fputc('\'', f);
}

char *sweep_command_line(char *const *argv, int argc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    for (int i = 0; i < argc; i++) {
        if (i) fputc(' ', f);
        write_shell_word(f, argv[i]);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
