/* fuzz_csv.c — the CSV reader of base/csv.h (csv_file_parse with each
 * combination of its options, csv_file_read on the file) and the figures'
 * csv_read (viz/results/results_csv.h) on any bytes. Properties of a file it
 * accepts: every row is as wide as the header, every field converts or
 * fails cleanly, and the fields written back with csv_write_field parse to
 * the same table (except a row of one empty field, which is an empty line
 * and skipped, by design). */
#include <stdint.h>
#include <string.h>

#include "base/csv.h"
#include "fuzz_util.h"
#include "results/results_csv.h"

/* Look at every field: as a string, a number and an integer. */
static void touch(const CsvFile *c)
{
    FUZZ_CHECK(c->n_cols >= 0 && c->n_rows >= 0 && (c->n_cols > 0 || c->n_rows == 0));
    for (int col = 0; col < c->n_cols; col++) FUZZ_CHECK(csv_file_column(c, c->header[col]) <= col);
    for (int r = 0; r < c->n_rows; r++) {
        FUZZ_CHECK(c->line[r] > c->header_line && (r == 0 || c->line[r] > c->line[r - 1]));
        for (int col = 0; col < c->n_cols; col++) {
            double x;
            long n;
            SrError err;
            FUZZ_CHECK(csv_file_cell(c, r, col) != NULL);
            (void)csv_file_number(c, r, col, &x, &err);
            (void)csv_file_long(c, r, col, -1000, 1000, &n, &err);
        }
    }
}

/* Write c with csv_write_field and parse it again: the same fields. */
static void round_trip(const CsvFile *c)
{
    if (c->n_cols == 1)
        for (int r = 0; r < c->n_rows; r++)
            if (!csv_file_cell(c, r, 0)[0]) return;
    if (c->n_cols == 1 && !c->header[0][0]) return;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL);
    for (int r = -1; r < c->n_rows; r++) {
        for (int col = 0; col < c->n_cols; col++) {
            if (col) fputc(',', f);
            csv_write_field(f, r < 0 ? c->header[col] : csv_file_cell(c, r, col));
        }
        fputc('\n', f);
    }
    FUZZ_CHECK(fclose(f) == 0);
    CsvFile back;
    SrError err;
    FUZZ_OK(csv_file_parse("again.csv", text, NULL, &back, &err), err);
    FUZZ_CHECK(back.n_cols == c->n_cols && back.n_rows == c->n_rows);
    for (int col = 0; col < c->n_cols; col++) FUZZ_CHECK(strcmp(back.header[col], c->header[col]) == 0);
    for (int r = 0; r < c->n_rows; r++)
        for (int col = 0; col < c->n_cols; col++)
            FUZZ_CHECK(strcmp(csv_file_cell(&back, r, col), csv_file_cell(c, r, col)) == 0);
    csv_file_free(&back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    for (int o = 0; o < 4; o++) {
        CsvOptions options = {.trim_blanks = o & 1, .refuse_empty_names = o >> 1};
        CsvFile c;
        SrError err;
        if (csv_file_parse("in.csv", text, &options, &c, &err) == 0) {
            touch(&c);
            if (o == 0) round_trip(&c);
            csv_file_free(&c);
        } else {
            FUZZ_CHECK(c.n_cols == 0 && c.header == NULL && c.cells == NULL);
        }
    }
    free(text);

    char path[600];
    fuzz_file(path, sizeof path, "in.csv", data, size);
    CsvFile c;
    SrError err;
    if (csv_file_read(path, NULL, &c, &err) == 0) csv_file_free(&c);
    CsvTable t;
    if (csv_read(path, &t, &err) == 0) {
        FUZZ_CHECK(t.n_cols > 0 && t.n_rows > 0);
        touch(&t);
        int i;
        (void)csv_int(&t, 0, 0, &i, &err);
        csv_free(&t);
    }
    return 0;
}
