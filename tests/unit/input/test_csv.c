/* test_csv.c — the shared readers of base/: the CSV reader (base/csv.h) and
 * the parser of number lists and ranges (base/int_list.h); and its one
 * writer of text into a fixed buffer (base/text_append.h). */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csv.h"
#include "base/int_list.h"
#include "base/text_append.h"

/* Fail unless err holds what. */
static void assert_message(const SrError *err, const char *what)
{
    if (!strstr(err->msg, what)) fail_msg("message '%s' lacks '%s'", err->msg, what);
}

static void test_csv_fields(void **state)
{
    (void)state;
    CsvFile c;
    SrError err;
    const char *text = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\n1,,3";
    assert_int_equal(csv_file_parse("t.csv", text, NULL, &c, &err), 0);
    assert_string_equal(c.path, "t.csv");
    assert_int_equal(c.n_cols, 3);
    assert_int_equal(c.n_rows, 2);
    assert_int_equal(c.header_line, 1);
    assert_string_equal(c.header[2], "c");
    assert_string_equal(csv_file_cell(&c, 0, 0), "x, y");
    assert_string_equal(csv_file_cell(&c, 0, 1), "say \"hi\"");
    assert_string_equal(csv_file_cell(&c, 0, 2), "two\nlines");
    assert_string_equal(csv_file_cell(&c, 1, 1), "");
    assert_string_equal(csv_file_cell(&c, 1, 2), "3");
    assert_int_equal(c.line[0], 2);
    assert_int_equal(c.line[1], 5); /* the quoted line break and the empty line count */
    assert_int_equal(csv_file_column(&c, "b"), 1);
    assert_int_equal(csv_file_column(&c, "d"), -1);
    csv_file_free(&c);
    assert_null(c.cells);
    /* blanks are kept unless asked; a line of blanks is then a record */
    assert_int_equal(csv_file_parse("t.csv", "a,b\n 1 , 2\n", NULL, &c, &err), 0);
    assert_string_equal(csv_file_cell(&c, 0, 0), " 1 ");
    csv_file_free(&c);
    assert_int_equal(csv_file_parse("t.csv", "a\n  \n", NULL, &c, &err), 0);
    assert_int_equal(c.n_rows, 1);
    csv_file_free(&c);
    const CsvOptions trim = {.trim_blanks = 1};
    assert_int_equal(csv_file_parse("t.csv", "a,b\n 1 ,\" 2\"\t\n \t\n3,4\r", &trim, &c, &err), 0);
    assert_int_equal(c.n_rows, 2);
    assert_string_equal(csv_file_cell(&c, 0, 0), "1");
    assert_string_equal(csv_file_cell(&c, 0, 1), "2");
    assert_string_equal(csv_file_cell(&c, 1, 1), "4"); /* a last "\r" ends the line */
    assert_int_equal(c.line[1], 4);
    csv_file_free(&c);
    /* an empty text has no header and is no error */
    assert_int_equal(csv_file_parse("t.csv", "", NULL, &c, &err), 0);
    assert_int_equal(c.n_cols, 0);
    assert_int_equal(c.n_rows, 0);
    csv_file_free(&c);
}

static void test_csv_errors(void **state)
{
    (void)state;
    CsvFile c;
    SrError err;
    assert_int_equal(csv_file_parse("t.csv", "a,b\n1,2\n3\n", NULL, &c, &err), -1);
    assert_message(&err, "t.csv:3: 1 fields, the header has 2");
    assert_null(c.path);
    assert_int_equal(csv_file_parse("t.csv", "a,b\n1,2\n\"3,4\n", NULL, &c, &err), -1);
    assert_message(&err, "t.csv:3: quoted field not closed");
    const CsvOptions names = {.refuse_empty_names = 1};
    assert_int_equal(csv_file_parse("t.csv", "\na,,c\n1,2,3\n", &names, &c, &err), -1);
    assert_message(&err, "t.csv:2: empty column name");
    assert_int_equal(csv_file_parse("t.csv", "a,,c\n1,2,3\n", NULL, &c, &err), 0);
    csv_file_free(&c);
    assert_int_equal(csv_file_read("/no/such/dir/t.csv", NULL, &c, &err), -1);
    assert_message(&err, "/no/such/dir/t.csv: cannot open");
}

static void test_csv_values(void **state)
{
    (void)state;
    CsvFile c;
    SrError err;
    assert_int_equal(csv_file_parse("v.csv", "n,x\n7,2.5\nseven,inf\n-3,1e-2\n", NULL, &c, &err), 0);
    static const char *const cols[] = {"x", "n"};
    int idx[2];
    assert_int_equal(csv_file_require(&c, cols, 2, idx, &err), 0);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 0);
    static const char *const missing[] = {"n", "f1"};
    assert_int_equal(csv_file_require(&c, missing, 2, idx, &err), -1);
    assert_message(&err, "v.csv: missing column 'f1'");
    long n;
    double x;
    assert_int_equal(csv_file_long(&c, 0, 0, 0, 10, &n, &err), 0);
    assert_int_equal(n, 7);
    assert_int_equal(csv_file_number(&c, 0, 1, &x, &err), 0);
    assert_true(x == 2.5);
    assert_int_equal(csv_file_long(&c, 1, 0, 0, 10, &n, &err), -1);
    assert_message(&err, "v.csv:3: column 'n': 'seven' is not an integer in 0..10");
    assert_int_equal(csv_file_number(&c, 1, 1, &x, &err), -1);
    assert_message(&err, "v.csv:3: column 'x': 'inf' is not a number");
    assert_int_equal(csv_file_long(&c, 2, 0, 0, 10, &n, &err), -1);
    assert_message(&err, "'-3' is not an integer in 0..10");
    assert_int_equal(csv_file_number(&c, 2, 1, &x, &err), 0);
    assert_true(x == 1e-2);
    csv_file_free(&c);
}

static void test_csv_read_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/seqrep-test-csv-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/bom.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("\xEF\xBB\xBFname,value\nalpha,1\n", f);
    fclose(f);
    CsvFile c;
    SrError err;
    assert_int_equal(csv_file_read(path, NULL, &c, &err), 0);
    assert_string_equal(c.header[0], "name"); /* the byte-order mark is dropped */
    assert_string_equal(csv_file_cell(&c, 0, 0), "alpha");
    assert_string_equal(c.path, path);
    csv_file_free(&c);
    unlink(path);
    rmdir(dir);
}

/* Parse text under rules; expect the values expect[0..n). */
static void check_list(const char *text, const IntListRules *rules, const int *expect, int n)
{
    int *values, count;
    SrError err;
    if (int_list_parse(text, rules, &values, &count, NULL, &err))
        fail_msg("'%s': %s", text, err.msg);
    assert_int_equal(count, n);
    for (int i = 0; i < n; i++) assert_int_equal(values[i], expect[i]);
    free(values);
}

/* Parse text under rules; expect failure of kind on item, with what in the message. */
static void check_list_error(const char *text, const IntListRules *rules, IntListFaultKind kind,
                             const char *item, const char *what)
{
    int *values, count;
    IntListFault fault;
    SrError err;
    assert_int_equal(int_list_parse(text, rules, &values, &count, &fault, &err), -1);
    assert_null(values);
    assert_int_equal(count, 0);
    assert_int_equal(fault.kind, kind);
    assert_int_equal(fault.item_len, (int)strlen(item));
    assert_memory_equal(text + fault.item_start, item, strlen(item));
    assert_message(&err, what);
}

static void test_int_list_ranges(void **state)
{
    (void)state;
    const IntListRules r = {.word = "r", .min_value = 0, .max_value = 1000, .allow_ranges = 1,
                            .max_values = 8};
    check_list("4", &r, (int[]){4}, 1);
    check_list("0..3,7,2..2", &r, (int[]){0, 1, 2, 3, 7, 2}, 6);
    check_list("1,1", &r, (int[]){1, 1}, 2); /* repeats allowed unless refused */
    check_list_error("0..8", &r, INT_LIST_TOO_MANY, "0..8", "more than 8 values of r");
    check_list_error("1,5..2", &r, INT_LIST_BACKWARDS, "5..2", "'5..2' is a backwards range; write 2..5");
    check_list_error("1,-2", &r, INT_LIST_BELOW_MIN, "-2", "r must be >= 0, got -2 in '-2'");
    check_list_error("1001", &r, INT_LIST_TOO_LARGE, "1001", "r is too large in '1001'");
    check_list_error("1, 2", &r, INT_LIST_NOT_A_NUMBER, " 2",
                     "expected R, A..B or a comma list such as 0,1,2,4; got ' 2'");
    check_list_error("1,", &r, INT_LIST_NOT_A_NUMBER, "", "got ''");
    check_list_error("1..", &r, INT_LIST_NOT_A_NUMBER, "1..", "got '1..'");
    check_list_error("", &r, INT_LIST_NOT_A_NUMBER, "", "expected R");
}

static void test_int_list_plain(void **state)
{
    (void)state;
    const IntListRules seeds = {.word = "seed", .min_value = 1, .max_value = 2147483647L,
                                .refuse_duplicates = 1, .allow_leading_space = 1};
    check_list("5,29, 42", &seeds, (int[]){5, 29, 42}, 3);
    check_list_error("5,29,5", &seeds, INT_LIST_DUPLICATE, "5", "5 appears twice in the list '5,29,5'");
    check_list_error("1..3", &seeds, INT_LIST_NOT_A_NUMBER, "1..3",
                     "expected SEED or a comma list such as 0,1,2,4; got '1..3'");
    check_list_error("0", &seeds, INT_LIST_BELOW_MIN, "0", "seed must be >= 1, got 0");
    check_list_error("2x,3", &seeds, INT_LIST_NOT_A_NUMBER, "2x", "got '2x'");
    check_list_error("99999999999999999999", &seeds, INT_LIST_TOO_LARGE, "99999999999999999999",
                     "seed is too large");
    /* a range that repeats a value is refused when repeats are */
    const IntListRules exits = {.word = "exit", .min_value = 0, .max_value = 64, .allow_ranges = 1,
                                .refuse_duplicates = 1, .max_values = 64};
    check_list("0..2,5", &exits, (int[]){0, 1, 2, 5}, 4);
    check_list_error("0..2,1", &exits, INT_LIST_DUPLICATE, "1", "1 appears twice");
}

/* text_append: pieces in order, cut at the buffer's end, nothing after. */
static void test_text_append(void **state)
{
    (void)state;
    char buf[12];
    size_t used = 0;
    text_append(buf, sizeof buf, &used, "%s", "");
    assert_int_equal(used, 0);
    text_append(buf, sizeof buf, &used, "r=%d", 4);
    text_append(buf, sizeof buf, &used, " %s", "exit");
    assert_string_equal(buf, "r=4 exit");
    assert_int_equal(used, 8);
    text_append(buf, sizeof buf, &used, "=%d", 12345); /* cut: 3 bytes and the NUL fit */
    assert_string_equal(buf, "r=4 exit=12");
    assert_true(used >= sizeof buf);
    text_append(buf, sizeof buf, &used, "more");
    assert_string_equal(buf, "r=4 exit=12");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_fields),
        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_csv_values),
        cmocka_unit_test(test_csv_read_file),
        cmocka_unit_test(test_int_list_ranges),
        cmocka_unit_test(test_int_list_plain),
        cmocka_unit_test(test_text_append),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
