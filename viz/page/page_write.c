/* page_write.c — the page of `seqrep explore --html`: the template with its
 * data, written atomically; and the base64 data: URIs its images are. */
#include "page/page_write.h"

#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "page/page_template.h"

char *page_png_uri(const unsigned char *png, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char head[] = "data:image/png;base64,";
    size_t used = sizeof head - 1;
    char *out = malloc(used + (n + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    memcpy(out, head, used);
    for (size_t i = 0; i < n; i += 3) {
        unsigned long b = (unsigned long)png[i] << 16;
        if (i + 1 < n) b |= (unsigned long)png[i + 1] << 8;
        if (i + 2 < n) b |= png[i + 2];
        out[used++] = digits[(b >> 18) & 63];
        out[used++] = digits[(b >> 12) & 63];
        out[used++] = i + 1 < n ? digits[(b >> 6) & 63] : '=';
        out[used++] = i + 2 < n ? digits[b & 63] : '=';
    }
    out[used] = 0;
    return out;
}

/* Copy json into out with every "</" written "<\/" (the same JSON); returns
 * the bytes written. out holds at least 3/2 of json's length. */
static size_t escape_script_end(const char *json, char *out)
{
    size_t used = 0;
    for (const char *p = json; *p; p++) {
        out[used++] = *p;
        if (p[0] == '<' && p[1] == '/') out[used++] = '\\';
    }
    return used;
}

char *page_html(const cJSON *data, SrError *err)
{
    const char *mark = strstr(page_template, PAGE_DATA_MARK);
    if (!mark) {
        sr_fail(err, "the page template has no data mark (viz/page/page.html)");
        return NULL;
    }
    char *json = cJSON_PrintUnformatted(data);
    size_t before = (size_t)(mark - page_template), json_len = json ? strlen(json) : 0;
    const char *after = mark + strlen(PAGE_DATA_MARK);
    char *html = json ? malloc(before + json_len * 3 / 2 + 2 + strlen(after) + 1) : NULL;
    if (!html) {
        free(json);
        sr_fail(err, "out of memory writing the page");
        return NULL;
    }
    memcpy(html, page_template, before);
    size_t used = before + escape_script_end(json, html + before);
    strcpy(html + used, after);
    free(json);
    return html;
}

int page_write(const char *path, const cJSON *data, SrError *err)
{
    SrError why;
    char *html = page_html(data, &why);
    if (!html) return sr_fail(err, "%s: %s", path, why.msg);
    int rc = write_file_atomic(path, html, err);
    free(html);
    return rc;
}
