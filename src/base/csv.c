/* csv.c — one CSV reader with file:line errors (see csv.h). */
#include "base/csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"

/* Every field of the file in reading order, and per record its field count
 * and first line. */
typedef struct {
    char **fields;
    long n_fields, cap_fields;
    int *record_width, *record_line;
    int n_records, cap_records;
} CsvParts;

/* The field being read. */
typedef struct {
    char *text;
    size_t len, cap;
} FieldBuffer;

/* Append ch to the field; 0 or -1 (out of memory). */
static int buffer_push(FieldBuffer *b, char ch)
{
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        char *grown = realloc(b->text, cap);
        if (!grown) return -1;
        b->text = grown;
        b->cap = cap;
    }
    b->text[b->len++] = ch;
    return 0;
}

/* Append a copy of the finished field (spaces and tabs around it dropped when
 * trim); 0 or -1 (out of memory). */
static int parts_push_field(CsvParts *parts, const FieldBuffer *b, int trim)
{
    size_t start = 0, end = b->len;
    if (trim) {
        while (start < end && (b->text[start] == ' ' || b->text[start] == '\t')) start++;
        while (end > start && (b->text[end - 1] == ' ' || b->text[end - 1] == '\t')) end--;
    }
    if (parts->n_fields == parts->cap_fields) {
        long cap = parts->cap_fields ? 2 * parts->cap_fields : 64;
        char **grown = realloc(parts->fields, sizeof *grown * (size_t)cap);
        if (!grown) return -1;
        parts->fields = grown;
        parts->cap_fields = cap;
    }
    char *s = malloc(end - start + 1);
    if (!s) return -1;
    if (end > start) memcpy(s, b->text + start, end - start);
    s[end - start] = 0;
    parts->fields[parts->n_fields++] = s;
    return 0;
}

/* Append a finished record of width fields starting on line; 0 or -1. */
static int parts_push_record(CsvParts *parts, int width, int line)
{
    if (parts->n_records == parts->cap_records) {
        int cap = parts->cap_records ? 2 * parts->cap_records : 64;
        int *widths = realloc(parts->record_width, sizeof *widths * (size_t)cap);
        if (widths) parts->record_width = widths;
        int *lines = realloc(parts->record_line, sizeof *lines * (size_t)cap);
        if (lines) parts->record_line = lines;
        if (!widths || !lines) return -1;
        parts->cap_records = cap;
    }
    parts->record_width[parts->n_records] = width;
    parts->record_line[parts->n_records] = line;
    parts->n_records++;
    return 0;
}

/* Release every field and record list; zero parts. */
static void parts_free(CsvParts *parts)
{
    for (long i = 0; i < parts->n_fields; i++) free(parts->fields[i]);
    free(parts->fields);
    free(parts->record_width);
    free(parts->record_line);
    memset(parts, 0, sizeof *parts);
}

/* Length of the line break at p: 1 for "\n" and for a "\r" that ends the
 * text, 2 for "\r\n", 0 when p is no line break. */
static int line_break(const char *p)
{
    if (p[0] == '\n') return 1;
    if (p[0] == '\r' && p[1] == '\n') return 2;
    if (p[0] == '\r' && p[1] == 0) return 1;
    return 0;
}

/* When the line at p is empty (or, with trim, only spaces and tabs): how many
 * characters it takes with its line break; else 0. */
static size_t empty_line(const char *p, int trim)
{
    const char *q = p;
    if (trim)
        while (*q == ' ' || *q == '\t') q++;
    int brk = line_break(q);
    if (brk) return (size_t)(q - p) + (size_t)brk;
    return trim && *q == 0 && q > p ? (size_t)(q - p) : 0;
}

/* Split text into parts: fields, record widths and lines. */
static int split_text(const char *path, const char *text, int trim, CsvParts *parts,
                      SrError *err)
{
    FieldBuffer b = {0};
    int line = 1, rc = 0;
    const char *p = text;
    while (*p && rc == 0) {
        size_t skip = empty_line(p, trim);
        if (skip) {
            p += skip;
            line++;
            continue;
        }
        int start_line = line, width = 0;
        for (;;) { /* one field */
            b.len = 0;
            int quoted = *p == '"';
            if (quoted) p++;
            for (;;) {
                char ch = *p;
                if (quoted) {
                    if (ch == 0) {
                        rc = sr_fail(err, "%s:%d: quoted field not closed", path, start_line);
                        break;
                    }
                    if (ch == '"' && p[1] != '"') { /* the closing quote */
                        p++;
                        quoted = 0;
                        continue;
                    }
                    p += ch == '"' ? 2 : 1; /* "" stands for one quote */
                    if (ch == '\n') line++;
                } else {
                    if (ch == 0 || ch == ',' || line_break(p)) break;
                    p++;
                }
                if (buffer_push(&b, ch)) {
                    rc = sr_fail(err, "%s: out of memory", path);
                    break;
                }
            }
            if (rc) break;
            if (parts_push_field(parts, &b, trim)) {
                rc = sr_fail(err, "%s: out of memory", path);
                break;
            }
            width++;
            if (*p != ',') break;
            p++;
        }
        if (rc) break;
        int brk = line_break(p);
        if (brk) {
            p += brk;
            line++;
        }
        if (parts_push_record(parts, width, start_line)) rc = sr_fail(err, "%s: out of memory", path);
    }
    free(b.text);
    return rc;
}

/* Check the split parts (header names, row widths) and move them into c. */
static int assemble(const char *path, CsvParts *parts, const CsvOptions *o, CsvFile *c,
                    SrError *err)
{
    if (parts->n_records == 0) return 0;
    int h = parts->record_width[0];
    if (o->refuse_empty_names)
        for (int f = 0; f < h; f++)
            if (!parts->fields[f][0])
                return sr_fail(err, "%s:%d: empty column name", path, parts->record_line[0]);
    for (int r = 1; r < parts->n_records; r++)
        if (parts->record_width[r] != h)
            return sr_fail(err, "%s:%d: %d fields, the header has %d", path,
                           parts->record_line[r], parts->record_width[r], h);
    int n_rows = parts->n_records - 1;
    c->header = malloc(sizeof(char *) * (size_t)h);
    c->cells = malloc(sizeof(char *) * ((size_t)n_rows * (size_t)h + 1));
    c->line = malloc(sizeof(int) * ((size_t)n_rows + 1));
    if (!c->header || !c->cells || !c->line) return sr_fail(err, "%s: out of memory", path);
    memcpy(c->header, parts->fields, sizeof(char *) * (size_t)h);
    memcpy(c->cells, parts->fields + h, sizeof(char *) * (size_t)n_rows * (size_t)h);
    memcpy(c->line, parts->record_line + 1, sizeof(int) * (size_t)n_rows);
    c->n_cols = h;
    c->n_rows = n_rows;
    c->header_line = parts->record_line[0];
    free(parts->fields); /* the strings now belong to c */
    parts->fields = NULL;
    parts->n_fields = 0;
    return 0;
}

int csv_file_parse(const char *path, const char *text, const CsvOptions *options, CsvFile *c,
                   SrError *err)
{
    const CsvOptions none = {0};
    const CsvOptions *o = options ? options : &none;
    memset(c, 0, sizeof *c);
    c->path = malloc(strlen(path) + 1);
    if (!c->path) return sr_fail(err, "%s: out of memory", path);
    memcpy(c->path, path, strlen(path) + 1);
    CsvParts parts = {0};
    int rc = split_text(path, text, o->trim_blanks, &parts, err);
    if (rc == 0) rc = assemble(path, &parts, o, c, err);
    parts_free(&parts);
    if (rc) csv_file_free(c);
    return rc;
}

int csv_file_read(const char *path, const CsvOptions *options, CsvFile *c, SrError *err)
{
    memset(c, 0, sizeof *c);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = csv_file_parse(path, text, options, c, err);
    free(text);
    return rc;
}

void csv_file_free(CsvFile *c)
{
    if (c->header)
        for (int i = 0; i < c->n_cols; i++) free(c->header[i]);
    if (c->cells)
        for (long i = 0; i < (long)c->n_rows * c->n_cols; i++) free(c->cells[i]);
    free(c->header);
    free(c->cells);
    free(c->line);
    free(c->path);
    memset(c, 0, sizeof *c);
}

int csv_file_column(const CsvFile *c, const char *name)
{
    for (int i = 0; i < c->n_cols; i++)
        if (strcmp(c->header[i], name) == 0) return i;
    return -1;
}

int csv_file_require(const CsvFile *c, const char *const *names, int n, int *idx, SrError *err)
{
    for (int i = 0; i < n; i++) {
        idx[i] = csv_file_column(c, names[i]);
        if (idx[i] < 0) return sr_fail(err, "%s: missing column '%s'", c->path, names[i]);
    }
    return 0;
}

const char *csv_file_cell(const CsvFile *c, int row, int col)
{
    return c->cells[(size_t)row * (size_t)c->n_cols + (size_t)col];
}

int csv_file_number(const CsvFile *c, int row, int col, double *out, SrError *err)
{
    const char *s = csv_file_cell(c, row, col);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return sr_fail(err, "%s:%d: column '%s': '%s' is not a number", c->path, c->line[row],
                       c->header[col], s);
    *out = v;
    return 0;
}

int csv_file_long(const CsvFile *c, int row, int col, long lo, long hi, long *out, SrError *err)
{
    const char *s = csv_file_cell(c, row, col);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return sr_fail(err, "%s:%d: column '%s': '%s' is not an integer in %ld..%ld", c->path,
                       c->line[row], c->header[col], s, lo, hi);
    *out = v;
    return 0;
}

void csv_write_field(FILE *f, const char *text)
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
