/* results_csv.c — a small CSV reader with file:line errors. */
#include "results_csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"

/* A growable list of owned strings. */
typedef struct {
    char **items;
    int n, cap;
} StringList;

static int list_push(StringList *l, char *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **grown = realloc(l->items, sizeof *grown * (size_t)cap);
        if (!grown) return -1;
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->n++] = s;
    return 0;
}

/* Split line[0..len) into fields appended to out; returns the field count or
 * -1 (out of memory). Quoted fields may hold commas; "" is a quote. */
static int split_fields(const char *line, size_t len, StringList *out)
{
    int count = 0;
    size_t pos = 0;
    for (;;) {
        char *field = malloc(len - pos + 1);
        if (!field) return -1;
        size_t n = 0;
        if (pos < len && line[pos] == '"') {
            pos++;
            while (pos < len) {
                if (line[pos] == '"' && pos + 1 < len && line[pos + 1] == '"') {
                    field[n++] = '"';
                    pos += 2;
                } else if (line[pos] == '"') {
                    pos++;
                    break;
                } else {
                    field[n++] = line[pos++];
                }
            }
            while (pos < len && line[pos] != ',') pos++;
        } else {
            while (pos < len && line[pos] != ',') field[n++] = line[pos++];
        }
        /* trim surrounding blanks */
        size_t a = 0;
        while (a < n && (field[a] == ' ' || field[a] == '\t')) a++;
        while (n > a && (field[n - 1] == ' ' || field[n - 1] == '\t')) n--;
        memmove(field, field + a, n - a);
        field[n - a] = 0;
        if (list_push(out, field)) {
            free(field);
            return -1;
        }
        count++;
        if (pos >= len) break;
        pos++; /* the comma */
    }
    return count;
}

void csv_free(CsvTable *t)
{
    if (t->header)
        for (int i = 0; i < t->n_cols; i++) free(t->header[i]);
    if (t->cells)
        for (long i = 0; i < (long)t->n_rows * t->n_cols; i++) free(t->cells[i]);
    free(t->header);
    free(t->cells);
    free(t->line);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int csv_read(const char *path, CsvTable *t, SrError *err)
{
    memset(t, 0, sizeof *t);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    StringList header = {0}, cells = {0};
    int *lines = NULL, n_rows = 0, cap_rows = 0, line_no = 0, rc = 0;
    for (size_t pos = 0; pos < len && rc == 0;) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        size_t n = end - pos;
        if (n > 0 && text[pos + n - 1] == '\r') n--;
        line_no++;
        int blank = 1;
        for (size_t i = 0; i < n; i++)
            if (text[pos + i] != ' ' && text[pos + i] != '\t') blank = 0;
        if (!blank) {
            StringList *into = header.n == 0 ? &header : &cells;
            int before = into->n;
            int got = split_fields(text + pos, n, into);
            if (got < 0) {
                rc = sr_fail(err, "%s: out of memory", path);
            } else if (into == &cells && got != header.n) {
                rc = sr_fail(err, "%s:%d: %d fields, the header has %d", path, line_no, got, header.n);
            } else if (into == &cells) {
                if (n_rows == cap_rows) {
                    cap_rows = cap_rows ? 2 * cap_rows : 64;
                    int *grown = realloc(lines, sizeof *grown * (size_t)cap_rows);
                    if (!grown) rc = sr_fail(err, "%s: out of memory", path);
                    else lines = grown;
                }
                if (rc == 0) lines[n_rows++] = line_no;
            } else {
                for (int i = before; i < into->n && rc == 0; i++)
                    if (!into->items[i][0]) rc = sr_fail(err, "%s:%d: empty column name", path, line_no);
            }
        }
        pos = end + 1;
    }
    free(text);
    if (rc == 0 && header.n == 0) rc = sr_fail(err, "%s: empty file (no header line)", path);
    if (rc == 0 && n_rows == 0) rc = sr_fail(err, "%s: no data rows after the header", path);
    t->n_cols = header.n;
    t->header = header.items;
    t->n_rows = n_rows;
    t->cells = cells.items;
    t->line = lines;
    if (rc == 0) {
        t->path = malloc(strlen(path) + 1);
        if (!t->path) rc = sr_fail(err, "%s: out of memory", path);
        else memcpy(t->path, path, strlen(path) + 1);
    }
    if (rc) {
        /* cells of a partly read row may exceed n_rows * n_cols: free them all */
        for (int i = 0; i < cells.n; i++) free(cells.items[i]);
        free(cells.items);
        t->cells = NULL;
        t->n_rows = 0;
        csv_free(t);
    }
    return rc;
}

int csv_column(const CsvTable *t, const char *name)
{
    for (int i = 0; i < t->n_cols; i++)
        if (strcmp(t->header[i], name) == 0) return i;
    return -1;
}

int csv_require(const CsvTable *t, const char *const *names, int n, int *idx, SrError *err)
{
    for (int i = 0; i < n; i++) {
        idx[i] = csv_column(t, names[i]);
        if (idx[i] < 0) return sr_fail(err, "%s: missing column '%s'", t->path, names[i]);
    }
    return 0;
}

const char *csv_cell(const CsvTable *t, int row, int col)
{
    return t->cells[(size_t)row * t->n_cols + col];
}

int csv_number(const CsvTable *t, int row, int col, double *out, SrError *err)
{
    const char *s = csv_cell(t, row, col);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno == ERANGE || !isfinite(v))
        return sr_fail(err, "%s:%d: column '%s': '%s' is not a number", t->path, t->line[row],
                       t->header[col], s);
    *out = v;
    return 0;
}

int csv_int(const CsvTable *t, int row, int col, int *out, SrError *err)
{
    const char *s = csv_cell(t, row, col);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < -2147483647L || v > 2147483647L)
        return sr_fail(err, "%s:%d: column '%s': '%s' is not an integer", t->path, t->line[row],
                       t->header[col], s);
    *out = (int)v;
    return 0;
}
