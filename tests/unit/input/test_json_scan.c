/* test_json_scan.c — JSON read in place (text/hf/json_scan.h): members and
 * items in order, strings with every escape (surrogate pairs joined),
 * integers within bounds, values skipped whole, and each kind of bad JSON
 * refused where it goes wrong. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "text/hf/json_scan.h"

/* Members of an object: keys decoded, values read or skipped in order. */
static void test_members(void **state)
{
    (void)state;
    const char *text = " {\"a\\\"b\": 12, \"\\u00e9\\ud83d\\ude00\": [1, {\"x\": null}, \"s\"],"
                       " \"tab\\t\\n\\/\\\\\": -0.5e+3, \"t\": true, \"e\": {}} ";
    JsonScan j;
    JsonBuf key = {0}, s = {0};
    long count = 0, v;
    json_scan_init(&j, text, strlen(text));
    assert_int_equal(json_enter(&j, '{'), 0);
    assert_int_equal(json_next_member(&j, &count, &key), 1);
    assert_string_equal(key.s, "a\"b");
    assert_int_equal(json_integer(&j, 0, 100, &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(json_next_member(&j, &count, &key), 1);
    assert_string_equal(key.s, "\xc3\xa9\xf0\x9f\x98\x80"); /* é and U+1F600 from a surrogate pair */
    long items = 0;
    assert_int_equal(json_enter(&j, '['), 0);
    assert_int_equal(json_next_item(&j, &items), 1);
    assert_int_equal(json_skip(&j), 0);
    assert_int_equal(json_next_item(&j, &items), 1);
    assert_int_equal(json_skip(&j), 0);
    assert_int_equal(json_next_item(&j, &items), 1);
    assert_int_equal(json_string(&j, &s), 0);
    assert_string_equal(s.s, "s");
    assert_int_equal(json_next_item(&j, &items), 0);
    assert_int_equal(items, 3);
    assert_int_equal(json_next_member(&j, &count, &key), 1);
    assert_string_equal(key.s, "tab\t\n/\\");
    assert_int_equal(json_integer(&j, -1000, 1000, &v), -1); /* not an integer */
    assert_int_equal(json_skip(&j), 0);
    while (json_next_member(&j, &count, &key) == 1) assert_int_equal(json_skip(&j), 0);
    assert_int_equal(count, 5);
    assert_int_equal(json_peek(&j), -1);
    free(key.s), free(s.s);
}

/* Integers: bounds, and what is not one. */
static void test_integers(void **state)
{
    (void)state;
    static const struct { const char *text; long lo, hi, want; int ok; } CASES[] = {
        {"0", 0, 10, 0, 1}, {"262143", 0, 1 << 22, 262143, 1}, {"-3", -5, 5, -3, 1},
        {"-3", 0, 5, 0, 0}, {"11", 0, 10, 0, 0}, {"5.0", 0, 10, 0, 0}, {"1e3", 0, 5000, 0, 0},
        {"01", 0, 10, 0, 0}, {"\"5\"", 0, 10, 0, 0}, {"-", 0, 10, 0, 0},
        {"99999999999999999999", 0, 10, 0, 0},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        JsonScan j;
        long v = -99;
        json_scan_init(&j, CASES[k].text, strlen(CASES[k].text));
        int rc = json_integer(&j, CASES[k].lo, CASES[k].hi, &v);
        if ((rc == 0) != CASES[k].ok) fail_msg("'%s': got %d", CASES[k].text, rc);
        if (CASES[k].ok) assert_int_equal(v, CASES[k].want);
        else assert_int_equal(j.pos, 0); /* left standing at the value */
    }
}

/* Bad JSON: refused by json_skip, with the scanner where it went wrong. */
static void test_bad_json(void **state)
{
    (void)state;
    static const struct { const char *text; size_t at; } BAD[] = {
        {"{\"a\": 1,}", 8},        /* a trailing comma */
        {"[1, 2,]", 6},
        {"{\"a\" 1}", 5},          /* no colon */
        {"\"\\ud800\"", 1},        /* a lone high surrogate */
        {"\"\\udc00x\"", 1},       /* a lone low surrogate */
        {"\"a\tb\"", 2},           /* an unescaped control character */
        {"\"\\x\"", 1},            /* an unknown escape */
        {"\"abc", 4},              /* no closing quote */
        {"tru", 0},
        {"[1 2]", 3},
        {"{1: 2}", 1},             /* a key that is not a string */
        {"-01", 1},
        {"1.", 2},
    };
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
        JsonScan j;
        json_scan_init(&j, BAD[k].text, strlen(BAD[k].text));
        if (json_skip(&j) == 0) fail_msg("accepted '%s'", BAD[k].text);
        if (j.pos != BAD[k].at) fail_msg("'%s': stopped at %zu, want %zu", BAD[k].text, j.pos, BAD[k].at);
    }
}

/* Nesting: JSON_MAX_DEPTH levels are fine, one more is refused. */
static void test_depth(void **state)
{
    (void)state;
    for (int depth = JSON_MAX_DEPTH; depth <= JSON_MAX_DEPTH + 1; depth++) {
        char *text = malloc(2 * (size_t)depth + 1);
        assert_non_null(text);
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        text[2 * depth] = '\0';
        JsonScan j;
        json_scan_init(&j, text, strlen(text));
        assert_int_equal(json_skip(&j), depth <= JSON_MAX_DEPTH ? 0 : -1);
        free(text);
    }
}

/* json_buf_put appends and keeps a NUL after the bytes. */
static void test_buf(void **state)
{
    (void)state;
    JsonBuf b = {0};
    for (int i = 0; i < 100; i++) assert_int_equal(json_buf_put(&b, "abc", 3), 0);
    assert_int_equal(b.len, 300);
    assert_int_equal(b.s[300], '\0');
    assert_memory_equal(b.s + 297, "abc", 3);
    free(b.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_bad_json),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_buf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
