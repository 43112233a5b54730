/* hf_decode.c — ids -> text through the decoder of a Hugging Face
 * tokenizer: each step maps a list of token strings to a new list, and the
 * result is their concatenation (tokenizer_json.h). */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/utf8.h"
#include "text/hf/tokenizer_json_parts.h"

/* A list of owned token strings (byte lengths kept beside them). */
typedef struct {
    char **s;
    size_t *len;
    long n, cap;
    int oom;
} Toks;

/* Append an owned string (takes s; on failure frees it and sets oom). */
static void toks_push(Toks *t, char *s, size_t len)
{
    if (!s) {
        t->oom = 1;
        return;
    }
    if (t->n == t->cap) {
        long cap = t->cap ? 2 * t->cap : 16;
        char **gs = realloc(t->s, sizeof *gs * (size_t)cap);
        if (gs) t->s = gs;
        size_t *gl = gs ? realloc(t->len, sizeof *gl * (size_t)cap) : NULL;
        if (!gs || !gl) {
            free(s);
            t->oom = 1;
            return;
        }
        t->len = gl, t->cap = cap;
    }
    t->s[t->n] = s;
    t->len[t->n++] = len;
}

/* Release the strings and arrays; *t becomes empty. */
static void toks_free(Toks *t)
{
    for (long i = 0; i < t->n; i++) free(t->s[i]);
    free(t->s), free(t->len);
    memset(t, 0, sizeof *t);
}

/* A copy of s[0..n) with a NUL. */
static char *copy_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) memcpy(d, s, n), d[n] = '\0';
    return d;
}

/* All tokens joined with sep between them (sep may be ""), as one token. */
static void join(Toks *in, Toks *out, const char *sep)
{
    size_t total = 0, ns = strlen(sep);
    for (long i = 0; i < in->n; i++) total += in->len[i] + ns;
    char *s = malloc(total + 1), *o = s;
    if (s) {
        for (long i = 0; i < in->n; i++) {
            if (i > 0) memcpy(o, sep, ns), o += ns;
            memcpy(o, in->s[i], in->len[i]), o += in->len[i];
        }
        *o = '\0';
    }
    toks_push(out, s, (size_t)(o - s));
}

/* Byte-level: each token's characters back to bytes (a token with a
 * character outside the map keeps its own bytes), all joined, made valid. */
static void bytelevel(Toks *in, Toks *out)
{
    size_t total = 0;
    for (long i = 0; i < in->n; i++) total += in->len[i];
    char *bytes = malloc(total + 1);
    if (!bytes) {
        out->oom = 1;
        return;
    }
    size_t o = 0;
    for (long i = 0; i < in->n; i++) {
        size_t start = o, j = 0;
        int ok = 1;
        while (j < in->len[i] && ok) {
            utf8proc_int32_t c;
            utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)in->s[i] + j, (utf8proc_ssize_t)(in->len[i] - j), &c);
            int b = k > 0 ? hf_char_byte(c) : -1;
            if (b < 0) ok = 0;
            else bytes[o++] = (char)b, j += (size_t)k;
        }
        if (!ok) memcpy(bytes + start, in->s[i], in->len[i]), o = start + in->len[i];
    }
    size_t n;
    char *s = utf8_lossy(bytes, o, &n);
    free(bytes);
    toks_push(out, s, n);
}

/* The byte of a "<0xNN>" token, or -1. */
static int fallback_byte(const char *s, size_t n)
{
    static const char HEX[] = "0123456789ABCDEF";
    if (n != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>') return -1;
    const char *h = strchr(HEX, s[3]), *l = strchr(HEX, s[4]);
    if (!h || !l || !s[3] || !s[4]) return -1;
    return (int)((h - HEX) * 16 + (l - HEX));
}

/* Byte fallback: runs of "<0xNN>" become their UTF-8 text, or one U+FFFD
 * per token when the bytes are not valid UTF-8. */
static void bytefallback(Toks *in, Toks *out)
{
    char *run = malloc((size_t)in->n + 1);
    if (!run) {
        out->oom = 1;
        return;
    }
    long n_run = 0;
    for (long i = 0; i <= in->n; i++) {
        int b = i < in->n ? fallback_byte(in->s[i], in->len[i]) : -1;
        if (b >= 0) {
            run[n_run++] = (char)b;
            continue;
        }
        if (n_run > 0) {
            size_t n;
            char *fixed = utf8_lossy(run, (size_t)n_run, &n);
            if (fixed && n == (size_t)n_run && memcmp(fixed, run, n) == 0) toks_push(out, fixed, n);
            else {
                free(fixed);
                for (long k = 0; k < n_run; k++) toks_push(out, copy_n("\xEF\xBF\xBD", 3), 3);
            }
            n_run = 0;
        }
        if (i < in->n) toks_push(out, copy_n(in->s[i], in->len[i]), in->len[i]);
    }
    free(run);
}

/* Strip: up to `start` leading and `stop` trailing copies of content. */
static void strip(const HfStep *st, Toks *in, Toks *out)
{
    const char *content = st->strip.content;
    size_t nc = strlen(content);
    for (long i = 0; i < in->n; i++) {
        size_t from = 0, to = in->len[i];
        for (int k = 0; k < st->strip.start && nc && from + nc <= to && memcmp(in->s[i] + from, content, nc) == 0; k++) from += nc;
        for (int k = 0; k < st->strip.stop && nc && to >= from + nc && memcmp(in->s[i] + to - nc, content, nc) == 0; k++) to -= nc;
        toks_push(out, copy_n(in->s[i] + from, to - from), to - from);
    }
}

/* Replace (pattern -> content) in every token; Metaspace: replacement ->
 * space, and the first token loses a leading space unless the scheme is
 * "never". */
static void replace(const HfStep *st, Toks *in, Toks *out)
{
    int meta = st->kind == HF_DEC_METASPACE;
    const char *pat = meta ? st->metaspace.replacement : st->replace.pattern;
    const char *rep = meta ? " " : st->replace.content;
    size_t np = strlen(pat), nr = strlen(rep);
    for (long i = 0; i < in->n; i++) {
        const char *s = in->s[i];
        size_t n = in->len[i], o = 0;
        char *d = malloc(n * (nr + 1) + 1);
        if (!d) {
            out->oom = 1;
            return;
        }
        for (size_t j = 0; j < n;)
            if (np && j + np <= n && memcmp(s + j, pat, np) == 0) memcpy(d + o, rep, nr), o += nr, j += np;
            else d[o++] = s[j++];
        d[o] = '\0';
        if (meta && i == 0 && st->metaspace.prepend_scheme != HF_PREPEND_NEVER && o > 0 && d[0] == ' ')
            memmove(d, d + 1, o--);
        toks_push(out, d, o);
    }
}

char *hf_decode(const HfTokenizer *t, const int *ids, long n, int skip_special)
{
    Toks cur = {0};
    for (long i = 0; i < n; i++) {
        int id = ids[i];
        if (id < 0 || id >= t->n_ids || !t->text[id] || (skip_special && t->is_special[id])) continue;
        toks_push(&cur, copy_n(t->text[id], t->text_len[id]), t->text_len[id]);
    }
    for (int k = 0; k < t->n_dec && !cur.oom; k++) {
        const HfStep *st = &t->dec[k];
        Toks next = {0};
        switch (st->kind) {
        case HF_DEC_BYTELEVEL: bytelevel(&cur, &next); break;
        case HF_DEC_BYTEFALLBACK: bytefallback(&cur, &next); break;
        case HF_DEC_FUSE: join(&cur, &next, ""); break;
        case HF_DEC_STRIP: strip(st, &cur, &next); break;
        default: replace(st, &cur, &next); break;
        }
        if (next.oom) cur.oom = 1;
        int oom = cur.oom;
        toks_free(&cur);
        cur = next;
        cur.oom = oom;
    }
    Toks all = {0};
    if (!cur.oom) join(&cur, &all, t->n_dec ? "" : " ");
    char *text = !cur.oom && !all.oom && all.n == 1 ? all.s[0] : NULL;
    if (text) all.n = 0;
    toks_free(&cur);
    toks_free(&all);
    return text;
}
