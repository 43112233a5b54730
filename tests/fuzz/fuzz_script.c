/* fuzz_script.c — the explorer's --script parser (explorer_script_parse) on
 * any text. Properties of a script it accepts: every event is a key of
 * explorer_keys.h or an event with coordinates in its documented range, and
 * the coordinates are the numbers written in the script (read again here
 * with strtoll, walking the text the way the parser does). */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "explorer_state/explorer_script.h"
#include "fuzz_util.h"

/* The numbers after the event's word in the name "hover X Y" or "resize WxH"
 * equal the event's coordinates. */
static void check_numbers(const char *name, const ScriptEvent *e)
{
    const char *p = name;
    while (*p && !isdigit((unsigned char)*p) && *p != '-' && *p != '+') p++;
    char *end;
    long long x = strtoll(p, &end, 10);
    p = end;
    while (*p && !isdigit((unsigned char)*p) && *p != '-' && *p != '+') p++;
    long long y = strtoll(p, &end, 10);
    FUZZ_CHECK(x == e->x && y == e->y);
}

/* Walk text as the parser does: event k is the k-th key or <name>. */
static void check_against_text(const char *text, const ScriptEvent *ev, int n)
{
    int k = 0;
    for (size_t i = 0; text[i]; i++) {
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') continue;
        FUZZ_CHECK(k < n);
        if (text[i] == '<') {
            const char *close = strchr(text + i, '>');
            FUZZ_CHECK(close != NULL);
            char name[64];
            size_t len = (size_t)(close - (text + i) - 1);
            FUZZ_CHECK(len > 0 && len < sizeof name);
            memcpy(name, text + i + 1, len);
            name[len] = 0;
            if (ev[k].kind != SCRIPT_KEY && ev[k].kind != SCRIPT_SHOT) check_numbers(name, &ev[k]);
            i += len + 1;
        } else {
            FUZZ_CHECK(ev[k].kind == SCRIPT_KEY && ev[k].key == (unsigned char)text[i]);
        }
        k++;
    }
    FUZZ_CHECK(k == n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    ScriptEvent *ev;
    int n;
    SrError err;
    if (explorer_script_parse(text, &ev, &n, &err) == 0) {
        FUZZ_CHECK(n >= 0 && (n == 0 || ev != NULL));
        for (int i = 0; i < n; i++) {
            const ScriptEvent *e = &ev[i];
            switch (e->kind) {
            case SCRIPT_KEY:
                FUZZ_CHECK((e->key >= 32 && e->key <= 126) ||
                           (e->key >= EXPLORER_KEY_LEFT && e->key <= EXPLORER_KEY_ESC));
                break;
            case SCRIPT_HOVER:
            case SCRIPT_CLICK: FUZZ_CHECK(e->x >= 0 && e->y >= 0); break;
            case SCRIPT_RESIZE:
                FUZZ_CHECK(e->x >= 16 && e->y >= 16 && e->x <= 8192 && e->y <= 8192);
                break;
            case SCRIPT_SHOT: break;
            default: FUZZ_CHECK(0);
            }
        }
        check_against_text(text, ev, n);
        free(ev);
    } else {
        FUZZ_CHECK(ev == NULL && n == 0);
    }
    free(text);
    return 0;
}
