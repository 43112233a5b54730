/* test_explorer_script.c — the explorer's scripts without a window: the
 * --script parser (keys, named keys, events, <wait MS>, numbers that do not
 * fit), script files (LF, CRLF, a byte-order mark, errors naming file and
 * line), a key's script name, and the --frame-times CSV naming the key each
 * frame answers. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explorer_state/explorer_frame_times.h"
#include "explorer_state/explorer_keys.h"
#include "explorer_state/explorer_script.h"
#include "explorer_state/explorer_script_file.h"

/* A script file: LF, CRLF and a byte-order mark replay the events of the
 * same string; an error names the file and the line. */
static void test_script_file(void **unused)
{
    (void)unused;
    char path[] = "/tmp/seqrep-script-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "\xef\xbb\xbf<right>a s\r\n<resize 700x500> 2\n\r\n<hover 3 4>q";
    assert_int_equal(write(fd, text, sizeof text - 1), (long)(sizeof text - 1));
    close(fd);
    ScriptEvent *got, *want;
    int n_got, n_want;
    SrError err;
    assert_int_equal(explorer_script_read_file(path, &got, &n_got, &err), 0);
    assert_int_equal(explorer_script_parse("<right>a s <resize 700x500> 2 <hover 3 4>q", &want, &n_want, &err), 0);
    assert_int_equal(n_got, n_want);
    assert_memory_equal(got, want, sizeof *got * (size_t)n_want);
    free(got);
    free(want);

    FILE *f = fopen(path, "wb");
    fputs("ab\r\ncd\r\n<fly>\r\n", f);
    fclose(f);
    assert_int_equal(explorer_script_read_file(path, &got, &n_got, &err), -1);
    char expect[128];
    snprintf(expect, sizeof expect, "%s:3: unknown key name '<fly>' at character 1", path);
    assert_string_equal(err.msg, expect);
    assert_int_equal(explorer_script_read_file("/nonexistent/keys.txt", &got, &n_got, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/keys.txt"));
    remove(path);
}

static void test_script_parse(void **unused)
{
    (void)unused;
    ScriptEvent *ev;
    int n;
    SrError err;
    assert_int_equal(explorer_script_parse("<right>ac s q", &ev, &n, &err), 0);
    assert_int_equal(n, 5);
    int keys[5] = {EXPLORER_KEY_RIGHT, 'a', 'c', 's', 'q'};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ev[i].kind, SCRIPT_KEY);
        assert_int_equal(ev[i].key, keys[i]);
    }
    free(ev);
    assert_int_equal(explorer_script_parse("<pgdn><space><lt><hover 12 34><click 5 6><shot><resize 640x480><esc>",
                                           &ev, &n, &err),
                     0);
    assert_int_equal(n, 8);
    assert_int_equal(ev[0].key, EXPLORER_KEY_PGDN);
    assert_int_equal(ev[1].key, ' ');
    assert_int_equal(ev[2].key, '<');
    assert_int_equal(ev[3].kind, SCRIPT_HOVER);
    assert_int_equal(ev[3].x, 12);
    assert_int_equal(ev[3].y, 34);
    assert_int_equal(ev[4].kind, SCRIPT_CLICK);
    assert_int_equal(ev[5].kind, SCRIPT_SHOT);
    assert_int_equal(ev[6].kind, SCRIPT_RESIZE);
    assert_int_equal(ev[6].x, 640);
    assert_int_equal(ev[6].y, 480);
    assert_int_equal(ev[7].key, EXPLORER_KEY_ESC);
    free(ev);
    assert_int_equal(explorer_script_parse("", &ev, &n, &err), 0);
    assert_int_equal(n, 0);
    free(ev);
}

/* Scripts that are refused name where; numbers that do not fit are refused,
 * a wait takes 0..60000 ms, and a key's script name parses back to it. */
static void test_script_refused_and_waits(void **unused)
{
    (void)unused;
    ScriptEvent *ev;
    int n;
    SrError err;
    assert_int_equal(explorer_script_parse("ab<foo>", &ev, &n, &err), -1);
    assert_string_equal(err.msg, "--script: unknown key name '<foo>' at character 3");
    assert_int_equal(explorer_script_parse("a<left", &ev, &n, &err), -1);
    assert_non_null(strstr(err.msg, "character 2"));
    assert_int_equal(explorer_script_parse("<hover 1>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<resize 5x5>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("a\x01", &ev, &n, &err), -1);
    /* numbers that do not fit an int are refused, not wrapped or split
     * (found by fuzzing: "<hover 1 4294967297>" hovered at y = 1, and a
     * width-limited %9d read "<click1234567890>" as (123456789, 0)) */
    assert_int_equal(explorer_script_parse("<hover 1 4294967297>", &ev, &n, &err), -1);
    assert_string_equal(err.msg, "--script: unknown key name '<hover 1 4294967297>' at character 1");
    assert_int_equal(explorer_script_parse("<click 2147483648 0>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<click 1234567890>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<click1234567890>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<resize 4294968096x600>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<hover -1 5>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<click 2147483647 0><resize 640x480>", &ev, &n, &err),
                     0);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].x, 2147483647);
    assert_true(ev[1].kind == SCRIPT_RESIZE && ev[1].x == 640 && ev[1].y == 480);
    free(ev);
    /* a person's pause: 0..60000 ms, nothing after the number */
    assert_int_equal(explorer_script_parse("<wait 300>a<wait 0><wait 60000>", &ev, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_true(ev[0].kind == SCRIPT_WAIT && ev[0].x == 300);
    assert_true(ev[2].kind == SCRIPT_WAIT && ev[2].x == 0 && ev[3].x == 60000);
    free(ev);
    assert_int_equal(explorer_script_parse("<wait 60001>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<wait>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<wait 3 4>", &ev, &n, &err), -1);
    assert_int_equal(explorer_script_parse("<wait3>", &ev, &n, &err), -1);
    /* a key's script name parses back to the key */
    char name[16];
    int names[6] = {EXPLORER_KEY_LEFT, EXPLORER_KEY_ESC, ' ', '<', 'a', '?'};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(explorer_script_parse(explorer_script_key_name(names[i], name, sizeof name), &ev, &n, &err),
                         0);
        assert_true(n == 1 && ev[0].kind == SCRIPT_KEY && ev[0].key == names[i]);
        free(ev);
    }
    assert_string_equal(explorer_script_key_name(EXPLORER_KEY_LEFT, name, sizeof name), "<left>");
}

/* --frame-times: each frame with the key it answers, by its script name */
static void test_frame_times_keys(void **unused)
{
    (void)unused;
    char path[] = "/tmp/test_frame_times_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    FrameTimes ft;
    frame_times_start(&ft);
    int keys[4] = {-1, EXPLORER_KEY_LEFT, -1, 'a'};
    for (int i = 0; i < 4; i++) assert_int_equal(frame_times_add(&ft, frame_times_now(), keys[i]), 0);
    SrError err;
    assert_int_equal(frame_times_write(&ft, path, &err), 0);
    frame_times_free(&ft);
    FILE *f = fopen(path, "r");
    char line[128], key[16];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "frame,t_s,ms,rss_kb,key\n");
    const char *want[4] = {"", "<left>", "", "a"};
    for (int i = 0; i < 4; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        line[strcspn(line, "\n")] = 0;
        const char *last = strrchr(line, ',');
        assert_non_null(last);
        snprintf(key, sizeof key, "%s", last + 1);
        assert_string_equal(key, want[i]);
    }
    fclose(f);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_file),
        cmocka_unit_test(test_script_parse),
        cmocka_unit_test(test_script_refused_and_waits),
        cmocka_unit_test(test_frame_times_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
