/* hf_encode.c — text -> ids through a Hugging Face tokenizer: added tokens,
 * normalizer, pre-tokenizer, BPE model, post-processor (tokenizer_json.h). */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/utf8.h"
#include "text/hf/tokenizer_json_parts.h"

/* A growing array of ids. */
typedef struct {
    int *v;
    long n, cap;
    int oom;
} IdBuf;

/* Append id (sets b->oom when out of memory). */
static void push_id(IdBuf *b, int id)
{
    if (b->n == b->cap) {
        long cap = b->cap ? 2 * b->cap : 64;
        int *grown = realloc(b->v, sizeof(int) * (size_t)cap);
        if (!grown) {
            b->oom = 1;
            return;
        }
        b->v = grown, b->cap = cap;
    }
    b->v[b->n++] = id;
}

/* Code point at s[*i..n) (valid UTF-8), advancing *i. */
static int next_cp(const char *s, size_t n, size_t *i)
{
    utf8proc_int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + *i, (utf8proc_ssize_t)(n - *i), &c);
    if (k <= 0) k = 1, c = 0xFFFD;
    *i += (size_t)k;
    return c;
}

/* 1 if code point c is a word character for single_word added tokens. */
static int is_word_cp(int c)
{
    utf8proc_category_t k = utf8proc_category(c);
    return c == '_' || (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO) ||
           (k >= UTF8PROC_CATEGORY_ND && k <= UTF8PROC_CATEGORY_NO);
}

/* The code point that ends s[0..end) (end > 0, valid UTF-8). */
static int cp_before(const char *s, size_t end)
{
    size_t i = end - 1;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
    return next_cp(s, end, &i);
}

/* The leftmost-longest added token (normalized flag == want, found in its
 * trie) in s[pos..n):
 * 1 with [*start, *end) its span (widened by lstrip / rstrip white space,
 * not before pos) and *id, else 0. */
static int find_added(const HfTokenizer *t, const char *s, size_t n, size_t pos, int want,
                      size_t *start, size_t *end, int *id)
{
    const HfTrie *trie = &t->added_trie[want];
    for (size_t i = pos; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) == 0x80) continue;
        int best = -1, node = -1; /* the longest token the text starts with here (a
                                     single_word one standing alone) */
        for (size_t k = i; k < n && (node = hf_trie_next(trie, node, (unsigned char)s[k])) >= 0; k++) {
            int a = trie->token[node];
            if (a < 0) continue;
            if (t->added[a].single_word) {
                size_t j = i + t->added[a].len;
                if ((i > 0 && is_word_cp(cp_before(s, i))) || (j < n && is_word_cp(next_cp(s, n, &j)))) continue;
            }
            best = a;
        }
        if (best < 0) continue;
        const HfAdded *ad = &t->added[best];
        *start = i, *end = i + ad->len, *id = ad->id;
        if (ad->lstrip)
            while (*start > pos) {
                size_t k = *start - 1;
                while (k > pos && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
                size_t j = k;
                if (!hf_is_space(next_cp(s, n, &j))) break;
                *start = k;
            }
        if (ad->rstrip)
            while (*end < n) {
                size_t j = *end;
                if (!hf_is_space(next_cp(s, n, &j))) break;
                *end = j;
            }
        return 1;
    }
    return 0;
}

/* A new string: s[0..n) with every occurrence of pat replaced by rep (when
 * pat is non-NULL), or rep put first (pat NULL). *out_n its length. */
static char *replace_all(const char *s, size_t n, const char *pat, const char *rep, size_t *out_n)
{
    size_t np = pat ? strlen(pat) : 0, nr = strlen(rep), count = 0;
    for (size_t i = 0; pat && i + np <= n;)
        if (memcmp(s + i, pat, np) == 0) count++, i += np;
        else i++;
    char *out = malloc(n + (pat ? count : 1) * nr + 1), *o = out;
    if (!out) return NULL;
    if (!pat) memcpy(o, rep, nr), o += nr;
    for (size_t i = 0; i < n;)
        if (pat && i + np <= n && memcmp(s + i, pat, np) == 0) memcpy(o, rep, nr), o += nr, i += np;
        else *o++ = s[i++];
    *o = '\0';
    *out_n = (size_t)(o - out);
    return out;
}

/* Lower-case every code point of s[0..n) (utf8proc's simple mapping). */
static char *lowercase(const char *s, size_t n, size_t *out_n)
{
    char *out = malloc(4 * n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;)
        o += (size_t)utf8proc_encode_char(utf8proc_tolower(next_cp(s, n, &i)), (utf8proc_uint8_t *)out + o);
    out[o] = '\0';
    *out_n = o;
    return out;
}

/* The normalizer applied to s[0..n): a new string (*out_n its length). */
static char *normalize(const HfTokenizer *t, const char *s, size_t n, size_t *out_n)
{
    char *cur = malloc(n + 1);
    if (!cur) return NULL;
    memcpy(cur, s, n), cur[n] = '\0';
    size_t len = n;
    for (int k = 0; k < t->n_norm && cur; k++) {
        const HfStep *st = &t->norm[k];
        char *next = NULL;
        size_t next_len = 0;
        if (st->kind <= HF_NORM_NFKD) {
            static const int OPT[4] = {UTF8PROC_STABLE | UTF8PROC_COMPOSE, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE,
                                       UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT,
                                       UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT};
            utf8proc_uint8_t *dst = NULL;
            utf8proc_ssize_t r = utf8proc_map((const utf8proc_uint8_t *)cur, (utf8proc_ssize_t)len, &dst,
                                              (utf8proc_option_t)OPT[st->kind - HF_NORM_NFC]);
            if (r >= 0) next = (char *)dst, next_len = (size_t)r;
        } else if (st->kind == HF_NORM_LOWER) {
            next = lowercase(cur, len, &next_len);
        } else if (st->kind == HF_NORM_PREPEND) {
            if (len == 0) continue;
            next = replace_all(cur, len, NULL, st->prepend.text, &next_len);
        } else {
            next = replace_all(cur, len, st->replace.pattern, st->replace.content, &next_len);
        }
        free(cur);
        cur = next, len = next_len;
    }
    *out_n = len;
    return cur;
}

/* A list of pieces: spans of one owned buffer. */
typedef struct {
    char *buf;
    size_t *start, *len;
    long n;
} Pieces;

/* Release the buffer and spans; *p becomes empty. */
static void pieces_free(Pieces *p)
{
    free(p->buf), free(p->start), free(p->len);
    memset(p, 0, sizeof *p);
}

/* Pieces of one pre-tokenizer step applied to every piece of in. 0 or -1. */
static int pre_step(const HfStep *st, const Pieces *in, int first, Pieces *out)
{
    size_t total = 0;
    for (long i = 0; i < in->n; i++) total += in->len[i];
    /* a byte grows to at most 3 (byte-level) or rep bytes (a space -> the
     * Metaspace replacement, which may be longer than "\u2581") */
    const char *meta = st->kind == HF_PRE_METASPACE ? st->metaspace.replacement : NULL;
    size_t rep = meta ? strlen(meta) : 0, grow = rep > 3 ? rep : 3;
    size_t cap = grow * total + (size_t)(in->n + 1) * (rep + 2) + 1;
    long max_pieces = (long)total + in->n + 1;
    memset(out, 0, sizeof *out);
    out->buf = malloc(cap);
    out->start = malloc(sizeof(size_t) * (size_t)max_pieces);
    out->len = malloc(sizeof(size_t) * (size_t)max_pieces);
    if (!out->buf || !out->start || !out->len) return -1;
    size_t o = 0;
    for (long i = 0; i < in->n; i++) {
        const char *s = in->buf + in->start[i];
        size_t n = in->len[i];
        if (st->kind == HF_PRE_SPLIT || (st->kind == HF_PRE_BYTELEVEL && st->byte_level.use_regex)) {
            char *tmp = NULL;
            if (st->kind == HF_PRE_BYTELEVEL && st->byte_level.add_prefix_space && (n == 0 || s[0] != ' ')) {
                size_t tn;
                tmp = replace_all(s, n, NULL, " ", &tn);
                if (!tmp) return -1;
                s = tmp, n = tn;
            }
            size_t *spans;
            long k = hf_cut(&st->cut, s, n, &spans);
            if (k < 0) return free(tmp), -1;
            for (long j = 0; j < k; j++) {
                size_t from = spans[2 * j], to = spans[2 * j + 1];
                out->start[out->n] = o;
                if (st->kind == HF_PRE_SPLIT) {
                    memcpy(out->buf + o, s + from, to - from);
                    o += to - from;
                } else {
                    for (size_t b = from; b < to; b++)
                        o += (size_t)utf8proc_encode_char(hf_byte_char((unsigned char)s[b]), (utf8proc_uint8_t *)out->buf + o);
                }
                out->len[out->n] = o - out->start[out->n];
                out->n++;
            }
            free(spans), free(tmp);
        } else if (st->kind == HF_PRE_BYTELEVEL) {
            out->start[out->n] = o;
            if (st->byte_level.add_prefix_space && (n == 0 || s[0] != ' ')) o += (size_t)utf8proc_encode_char(hf_byte_char(' '), (utf8proc_uint8_t *)out->buf + o);
            for (size_t b = 0; b < n; b++)
                o += (size_t)utf8proc_encode_char(hf_byte_char((unsigned char)s[b]), (utf8proc_uint8_t *)out->buf + o);
            out->len[out->n] = o - out->start[out->n];
            out->n++;
        } else { /* Metaspace */
            size_t m;
            char *r = replace_all(s, n, " ", meta, &m);
            if (!r) return -1;
            size_t begin = o;
            int scheme = st->metaspace.prepend_scheme;
            int prepend = scheme == HF_PREPEND_ALWAYS || (scheme == HF_PREPEND_FIRST && first && i == 0);
            if (prepend && (m < rep || memcmp(r, meta, rep) != 0)) memcpy(out->buf + o, meta, rep), o += rep;
            memcpy(out->buf + o, r, m), o += m;
            free(r);
            out->start[out->n] = begin;
            for (size_t b = begin + 1; st->metaspace.split && b + rep <= o; b++)
                if (memcmp(out->buf + b, meta, rep) == 0) {
                    out->len[out->n] = b - out->start[out->n];
                    out->start[++out->n] = b;
                }
            out->len[out->n] = o - out->start[out->n];
            out->n++;
        }
    }
    return 0;
}

/* BPE of one piece s[0..n) (model-vocabulary spelling) appended to out. */
static void bpe_piece(const HfTokenizer *t, const char *s, size_t n, IdBuf *out)
{
    if (n == 0) return;
    int whole = t->ignore_merges ? hf_table_find(&t->vocab, t, s, n) : -1;
    if (whole >= 0) {
        push_id(out, whole);
        return;
    }
    int *sym = malloc(sizeof(int) * 4 * n);
    if (!sym) {
        out->oom = 1;
        return;
    }
    long m = 0;
    for (size_t i = 0; i < n;) {
        size_t from = i;
        next_cp(s, n, &i);
        int id = hf_table_find(&t->vocab, t, s + from, i - from);
        if (id >= 0) {
            sym[m++] = id;
            continue;
        }
        int bytes_ok = t->byte_fallback;
        for (size_t b = from; b < i && bytes_ok; b++) bytes_ok = t->byte_ids[(unsigned char)s[b]] >= 0;
        if (bytes_ok) {
            for (size_t b = from; b < i; b++) sym[m++] = t->byte_ids[(unsigned char)s[b]];
        } else if (t->unk_id >= 0 && !(t->fuse_unk && m > 0 && sym[m - 1] == t->unk_id)) {
            sym[m++] = t->unk_id;
        }
    }
    m = hf_bpe_merge(&t->merges, sym, m);
    if (m < 0) out->oom = 1;
    for (long k = 0; k < m; k++) push_id(out, sym[k]);
    free(sym);
}

/* Normalized text s[0..n) (no added tokens left to match) -> pieces -> ids. */
static void model_text(const HfTokenizer *t, const char *s, size_t n, int first, IdBuf *out)
{
    Pieces cur = {0};
    cur.buf = malloc(n + 1);
    cur.start = malloc(sizeof(size_t));
    cur.len = malloc(sizeof(size_t));
    if (!cur.buf || !cur.start || !cur.len) {
        pieces_free(&cur);
        out->oom = 1;
        return;
    }
    memcpy(cur.buf, s, n);
    cur.start[0] = 0, cur.len[0] = n, cur.n = 1;
    for (int k = 0; k < t->n_pre; k++) {
        Pieces next;
        int rc = pre_step(&t->pre[k], &cur, first, &next);
        pieces_free(&cur);
        cur = next;
        if (rc) {
            pieces_free(&cur);
            out->oom = 1;
            return;
        }
    }
    for (long i = 0; i < cur.n; i++) bpe_piece(t, cur.buf + cur.start[i], cur.len[i], out);
    pieces_free(&cur);
}

/* A stretch of raw text between non-normalized added tokens: normalize it,
 * match the normalized added tokens, and model the rest. */
static void encode_stretch(const HfTokenizer *t, const char *s, size_t n, int first, IdBuf *out)
{
    if (n == 0) return;
    size_t len, pos = 0, start, end;
    char *norm = normalize(t, s, n, &len);
    if (!norm) {
        out->oom = 1;
        return;
    }
    int id;
    while (find_added(t, norm, len, pos, 1, &start, &end, &id)) {
        model_text(t, norm + pos, start - pos, first && pos == 0, out);
        push_id(out, id);
        pos = end;
    }
    model_text(t, norm + pos, len - pos, first && pos == 0, out);
    free(norm);
}

/* All ids of text[0..len) (no post-processor) into out. */
static void encode_all(const HfTokenizer *t, const char *text, size_t len, IdBuf *out)
{
    size_t n, pos = 0, start, end;
    char *s = utf8_lossy(text, len, &n);
    if (!s) {
        out->oom = 1;
        return;
    }
    int id;
    while (find_added(t, s, n, pos, 0, &start, &end, &id)) {
        encode_stretch(t, s + pos, start - pos, pos == 0, out);
        push_id(out, id);
        pos = end;
    }
    encode_stretch(t, s + pos, n - pos, pos == 0, out);
    free(s);
}

long hf_encode(const HfTokenizer *t, const char *text, size_t len, int with_specials, int *ids,
               long max_ids)
{
    IdBuf b = {0};
    if (with_specials)
        for (int i = 0; i < t->n_prefix; i++) push_id(&b, t->prefix[i]);
    encode_all(t, text, len, &b);
    if (with_specials)
        for (int i = 0; i < t->n_suffix; i++) push_id(&b, t->suffix[i]);
    if (b.oom) {
        free(b.v);
        return -1;
    }
    for (long i = 0; i < b.n && i < max_ids; i++) ids[i] = b.v[i];
    free(b.v);
    return b.n;
}

int hf_word_pieces(const HfTokenizer *t, const char *word, int index, int *ids, int max_ids)
{
    size_t n = strlen(word);
    int space = index > 0 && t->words_take_space;
    char *text = malloc(n + 2);
    if (!text) return -1;
    if (space) text[0] = ' ';
    memcpy(text + space, word, n + 1);
    long k = hf_encode(t, text, n + (size_t)space, 0, ids, max_ids);
    if (k == 0 && t->unk_id >= 0) {
        if (max_ids > 0) ids[0] = t->unk_id;
        k = 1;
    } else if (k == 0) {
        k = hf_encode(t, " ", 1, 0, ids, max_ids);
    }
    if (k == 0) { /* not even " " has a piece: id 0 stands in, so every word has one */
        if (max_ids > 0) ids[0] = 0;
        k = 1;
    }
    free(text);
    return k < 0 || k > 0x7fffffff ? -1 : (int)k;
}

int hf_encode_words(const HfTokenizer *t, const char *const *words, int n_words, int **pieces,
                    int *n_pieces, int *first_piece)
{
    IdBuf b = {0};
    *pieces = NULL;
    *n_pieces = 0;
    for (int w = 0; w < n_words; w++) {
        int need = hf_word_pieces(t, words[w], w, NULL, 0);
        if (need < 0) return free(b.v), -1;
        if (b.cap - b.n < need) {
            long cap = 2 * (b.n + need);
            int *grown = realloc(b.v, sizeof(int) * (size_t)cap);
            if (!grown) return free(b.v), -1;
            b.v = grown, b.cap = cap;
        }
        first_piece[w] = (int)b.n;
        hf_word_pieces(t, words[w], w, b.v + b.n, need);
        b.n += need;
    }
    *pieces = b.v;
    *n_pieces = (int)b.n;
    return 0;
}
