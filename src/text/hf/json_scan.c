/* json_scan.c — JSON read in place, a value at a time (json_scan.h). */
#include "text/hf/json_scan.h"

#include <stdlib.h>
#include <string.h>

void json_scan_init(JsonScan *j, const char *s, size_t n)
{
    j->s = s;
    j->n = n;
    j->pos = 0;
}

int json_peek(JsonScan *j)
{
    while (j->pos < j->n) {
        char c = j->s[j->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return (unsigned char)c;
        j->pos++;
    }
    return -1;
}

int json_buf_put(JsonBuf *b, const char *s, size_t k)
{
    if (b->len + k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + k + 1) cap *= 2;
        char *grown = realloc(b->s, cap);
        if (!grown) return -1;
        b->s = grown, b->cap = cap;
    }
    memcpy(b->s + b->len, s, k);
    b->len += k;
    b->s[b->len] = '\0';
    return 0;
}

/* The value of the 4 hex digits at s[0..4), or -1. */
static long hex4(const char *s)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Code point c as UTF-8 into out; its length (1..4). */
static int put_utf8(long c, char *out)
{
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12), out[1] = (char)(0x80 | (c >> 6 & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18), out[1] = (char)(0x80 | (c >> 12 & 0x3F));
    out[2] = (char)(0x80 | (c >> 6 & 0x3F)), out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* The escape at s[pos] (just after a backslash) decoded into out: its length
 * (0..4), and *used the bytes it took. -1 on a bad escape. */
static int unescape(const JsonScan *j, size_t pos, char *out, size_t *used)
{
    static const char FROM[] = "\"\\/bfnrt", TO[] = "\"\\/\b\f\n\r\t";
    if (pos >= j->n) return -1;
    const char *hit = strchr(FROM, j->s[pos]);
    if (hit && *hit) {
        *used = 1;
        out[0] = TO[hit - FROM];
        return 1;
    }
    if (j->s[pos] != 'u' || j->n - pos < 5) return -1;
    long c = hex4(j->s + pos + 1);
    *used = 5;
    if (c < 0 || (c >= 0xDC00 && c <= 0xDFFF)) return -1;
    if (c >= 0xD800 && c <= 0xDBFF) { /* a high surrogate: its low half must follow */
        if (j->n - pos < 11 || j->s[pos + 5] != '\\' || j->s[pos + 6] != 'u') return -1;
        long lo = hex4(j->s + pos + 7);
        if (lo < 0xDC00 || lo > 0xDFFF) return -1;
        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
        *used = 11;
    }
    return put_utf8(c, out);
}

/* The string that comes next, checked, decoded into b when b is not NULL
 * (json_scan.h). */
int json_string(JsonScan *j, JsonBuf *b)
{
    if (json_peek(j) != '"') return -1;
    size_t i = j->pos + 1;
    if (b) b->len = 0;
    if (b && json_buf_put(b, "", 0)) return -1;
    for (;;) {
        size_t run = i;
        while (i < j->n && j->s[i] != '"' && j->s[i] != '\\' && (unsigned char)j->s[i] >= 0x20) i++;
        if (b && i > run && json_buf_put(b, j->s + run, i - run)) return -1;
        if (i >= j->n || (unsigned char)j->s[i] < 0x20) return j->pos = i, -1;
        if (j->s[i] == '"') break;
        char out[4];
        size_t used;
        int k = unescape(j, i + 1, out, &used);
        if (k < 0) return j->pos = i, -1;
        if (b && json_buf_put(b, out, (size_t)k)) return -1;
        i += 1 + used;
    }
    j->pos = i + 1;
    return 0;
}


/* Skip the digits at j->pos; how many there were. */
static size_t digits(JsonScan *j)
{
    size_t from = j->pos;
    while (j->pos < j->n && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') j->pos++;
    return j->pos - from;
}

/* The number that comes next, checked; *integer is 1 when it has neither
 * fraction nor exponent. 0 or -1. */
static int number(JsonScan *j, int *integer)
{
    if (json_peek(j) < 0) return -1;
    if (j->s[j->pos] == '-') j->pos++;
    size_t at = j->pos, k = digits(j);
    if (k == 0 || (k > 1 && j->s[at] == '0')) return j->pos = at, -1;
    *integer = 1;
    if (j->pos < j->n && j->s[j->pos] == '.') {
        j->pos++, *integer = 0;
        if (digits(j) == 0) return -1;
    }
    if (j->pos < j->n && (j->s[j->pos] == 'e' || j->s[j->pos] == 'E')) {
        j->pos++, *integer = 0;
        if (j->pos < j->n && (j->s[j->pos] == '+' || j->s[j->pos] == '-')) j->pos++;
        if (digits(j) == 0) return -1;
    }
    return 0;
}

int json_integer(JsonScan *j, long lo, long hi, long *v)
{
    if (json_peek(j) < 0) return -1;
    size_t at = j->pos;
    int integer;
    if (number(j, &integer) || !integer || j->pos - at > 18) return j->pos = at, -1;
    *v = strtol(j->s + at, NULL, 10);
    if (*v < lo || *v > hi) return j->pos = at, -1;
    return 0;
}

int json_enter(JsonScan *j, char open)
{
    if (json_peek(j) != (unsigned char)open) return -1;
    j->pos++;
    return 0;
}

/* Before the next member or item of a container closed by `close`: 1 when
 * one follows (after its comma), 0 after the close, -1 on bad JSON. */
static int next_in(JsonScan *j, long *count, char close)
{
    int c = json_peek(j);
    if (c == close) return j->pos++, 0;
    if (*count > 0) {
        if (c != ',') return -1;
        j->pos++;
        c = json_peek(j);
        if (c == close) return -1; /* a trailing comma */
    }
    if (c < 0) return -1;
    (*count)++;
    return 1;
}

int json_next_member(JsonScan *j, long *count, JsonBuf *key)
{
    int r = next_in(j, count, '}');
    if (r <= 0) return r;
    if (json_string(j, key) || json_peek(j) != ':') return -1;
    j->pos++;
    return json_peek(j) < 0 ? -1 : 1;
}

int json_next_item(JsonScan *j, long *count) { return next_in(j, count, ']'); }

/* Skip the value that comes next, nested depth containers deep. */
static int skip_at(JsonScan *j, int depth)
{
    int c = json_peek(j), integer;
    long count = 0;
    if (c == '"') return json_string(j, NULL);
    if (c == '{' || c == '[') {
        if (depth >= JSON_MAX_DEPTH) return -1;
        j->pos++;
        int r;
        while ((r = c == '{' ? json_next_member(j, &count, NULL) : json_next_item(j, &count)) == 1)
            if (skip_at(j, depth + 1)) return -1;
        return r;
    }
    static const char *const WORDS[] = {"true", "false", "null"};
    for (int w = 0; w < 3; w++) {
        size_t k = strlen(WORDS[w]);
        if (j->n - j->pos >= k && memcmp(j->s + j->pos, WORDS[w], k) == 0) return j->pos += k, 0;
    }
    return number(j, &integer);
}

int json_skip(JsonScan *j) { return skip_at(j, 0); }
