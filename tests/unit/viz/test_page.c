/* test_page.c — the page of explore --html without a browser: its pictures
 * as base64 data: URIs (the three lengths of a last group), the template
 * with the page's data in place of its mark, once, and no text of the data
 * able to end the script block it sits in; and the walk of its states on a
 * tiny model: the window's keys, the states kept, the frames they share,
 * and what a key whose result is not in the page says. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explorer/explorer_setup.h"
#include "explorer_state/explorer_keys.h"
#include "page/explorer_page_walk.h"
#include "page/page_template.h"
#include "page/page_write.h"
#include "viz_model.h"

/* Base64 of one, two and three bytes, and of bytes above 127. */
static void test_png_uri(void **unused)
{
    (void)unused;
    const char *want[] = {"data:image/png;base64,TQ==", "data:image/png;base64,TWE=",
                          "data:image/png;base64,TWFu"};
    for (int n = 1; n <= 3; n++) {
        char *uri = page_png_uri((const unsigned char *)"Man", (size_t)n);
        assert_string_equal(uri, want[n - 1]);
        free(uri);
    }
    const unsigned char png[] = {0x89, 'P', 'N', 'G', 0xff, 0xfe};
    char *uri = page_png_uri(png, sizeof png);
    assert_string_equal(uri, "data:image/png;base64,iVBOR//+");
    free(uri);
}

/* The template holds its mark once; the page holds the data there, the
 * template's text around it, and "</" of the data written "<\/". */
static void test_page_html(void **unused)
{
    (void)unused;
    const char *mark = strstr(page_template, PAGE_DATA_MARK);
    assert_non_null(mark);
    assert_null(strstr(mark + 1, PAGE_DATA_MARK));
    cJSON *data = cJSON_CreateObject();
    cJSON_AddStringToObject(data, "text", "a </script><b> c");
    SrError err;
    char *html = page_html(data, &err);
    cJSON_Delete(data);
    assert_non_null(html);
    assert_null(strstr(html, PAGE_DATA_MARK));
    assert_non_null(strstr(html, "const PAGE = {\"text\":\"a <\\/script><b> c\"};"));
    assert_int_equal(strncmp(html, page_template, (size_t)(mark - page_template)), 0);
    assert_string_equal(html + strlen(html) - strlen(mark + strlen(PAGE_DATA_MARK)), mark + strlen(PAGE_DATA_MARK));
    free(html);
}

/* The state key k leads to from state i, and the message it leaves ("" none). */
static int walk_to(const PageWalk *w, int i, int key, const char **said)
{
    for (int k = 0; k < w->n_keys; k++)
        if (w->keys[k].key == key) {
            int m = w->message[(size_t)i * PAGE_MAX_KEYS + k];
            *said = m >= 0 ? w->messages.strings[m] : "";
            return w->next[(size_t)i * PAGE_MAX_KEYS + k];
        }
    fail_msg("key %d is not a key of the page", key);
    return -2;
}

/* The walk on the tiny model at r = 1 (r = 2 exported too): <left> goes to
 * layer 0 on another frame, <right> back to the first state; m the mask; a
 * key to r = 0 or 3 or the log scale leads nowhere and says why; + says what
 * the window says; every state is one of the page's. */
static void test_walk(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/test_page_model_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    save_tiny_model(path);
    ExplorerOptions o;
    memset(&o, 0, sizeof o);
    o.src.model = path;
    o.src.text = "the red fox";
    o.width = 640;
    o.height = 480;
    o.r = 1;
    o.layer = o.head = -1;
    o.view = explorer_view_named("attention");
    o.n_html_r = 2;
    o.html_r[0] = 1;
    o.html_r[1] = 2;
    Explorer *e = calloc(1, sizeof *e);
    SrError err;
    if (explorer_open(e, &o, &err)) fail_msg("%s", err.msg);
    PageWalk w;
    if (page_walk(&w, e, &err)) fail_msg("%s", err.msg);
    assert_int_equal(w.states[0].layer, 1);
    const char *said = NULL;
    int left = walk_to(&w, 0, EXPLORER_KEY_LEFT, &said);
    assert_true(left > 0);
    assert_int_equal(w.states[left].layer, 0);
    assert_int_not_equal(w.frame[left], w.frame[0]);
    assert_int_equal(walk_to(&w, left, EXPLORER_KEY_RIGHT, &said), 0);
    int mask = walk_to(&w, 0, 'm', &said);
    assert_string_equal(explorer_view_name(w.states[mask].view), "mask");
    assert_int_equal(walk_to(&w, 0, '2', &said) >= 0, 1);
    assert_int_equal(walk_to(&w, 0, '3', &said), -1);
    assert_non_null(strstr(said, "r = 3 is not in this page"));
    assert_int_equal(walk_to(&w, 0, 'l', &said), -1);
    assert_non_null(strstr(said, "one colour scale"));
    assert_int_equal(walk_to(&w, 0, '-', &said), -1);
    assert_non_null(strstr(said, "r = 0 is not in this page"));
    int r2 = walk_to(&w, 0, '+', &said);
    assert_int_equal(w.states[r2].r, 2);
    assert_string_equal(said, "r = 2: k = 3 copies"); /* the window's message */
    for (int i = 0; i < w.n; i++) {
        assert_true(w.frame[i] >= 0 && w.frame[i] < w.frame_names.n);
        assert_true(w.states[i].r == 1 || w.states[i].r == 2);
        if (figure_view(w.states[i].view)->home) /* a map's frame is of its r (the share of full blocks' is of all) */
            assert_int_equal(w.states[w.frame_state[w.frame[i]]].r, w.states[i].r);
    }
    page_walk_free(&w);
    explorer_close(e);
    free(e);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_uri),
        cmocka_unit_test(test_page_html),
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
