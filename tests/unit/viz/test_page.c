/* test_page.c — the page of explore --html without a browser: its pictures
 * as base64 data: URIs (the three lengths of a last group), the template
 * with the page's data in place of its mark, once, and no text of the data
 * able to end the script block it sits in. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "page/page_template.h"
#include "page/page_write.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_uri),
        cmocka_unit_test(test_page_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
