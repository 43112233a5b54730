/* hf_split.c — the Split pre-tokenizer's regex alternatives, each matched by
 * a small function exactly as the backtracking regex engine would (see
 * hf_split.h). */
#include "text/hf/hf_split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

enum { A_LIT, A_CONTR_CI, A_SP_L, A_SP_N, A_SP_OTHER, A_SP_OTHER_NL, A_PFX_L, A_N, A_WS_NL,
       A_WS_LOOK, A_WS };
enum { C_L = 1, C_N = 2, C_S = 4, C_NL = 8 };

/* the contractions after the apostrophe, in the patterns' order */
static const char *const CONTRACTIONS[] = {"s", "t", "re", "ve", "m", "ll", "d"};
#define N_CONTRACTIONS 7

/* The alternatives understood, spelled as in tokenizer.json. */
static const struct { const char *text; int kind; } KNOWN[] = {
    {"(?i:'s|'t|'re|'ve|'m|'ll|'d)", A_CONTR_CI},
    {" ?\\p{L}+", A_SP_L},
    {" ?\\p{N}+", A_SP_N},
    {" ?[^\\s\\p{L}\\p{N}]+", A_SP_OTHER},
    {" ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*", A_SP_OTHER_NL},
    {"[^\\r\\n\\p{L}\\p{N}]?\\p{L}+", A_PFX_L},
    {"\\s*[\\r\\n]+", A_WS_NL},
    {"\\s+(?!\\S)", A_WS_LOOK},
    {"\\s+", A_WS},
};

int hf_is_space(int c)
{
    if ((c >= 9 && c <= 13) || c == 32 || c == 0x85) return 1;
    utf8proc_category_t cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
           cat == UTF8PROC_CATEGORY_ZP;
}

/* The class bits (C_L, C_N, C_S, C_NL) of code point c. */
static int classify(int c)
{
    int bits = 0;
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: bits |= C_L; break;
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
        bits |= C_N; break;
    default: break;
    }
    if (hf_is_space(c)) bits |= C_S;
    if (c == '\r' || c == '\n') bits |= C_NL;
    return bits;
}

/* One alternative alt[0..n) against the table; fills kind/arg. 0 or -1. */
static int parse_alt(const char *alt, size_t n, int *kind, int *arg)
{
    for (size_t k = 0; k < sizeof KNOWN / sizeof KNOWN[0]; k++)
        if (strlen(KNOWN[k].text) == n && memcmp(KNOWN[k].text, alt, n) == 0) {
            *kind = KNOWN[k].kind;
            *arg = 0;
            return 0;
        }
    if (n >= 2 && alt[0] == '\'')
        for (int k = 0; k < N_CONTRACTIONS; k++)
            if (strlen(CONTRACTIONS[k]) == n - 1 && memcmp(CONTRACTIONS[k], alt + 1, n - 1) == 0) {
                *kind = A_LIT;
                *arg = k;
                return 0;
            }
    if (n == 5 && memcmp(alt, "\\p{N}", 5) == 0) {
        *kind = A_N;
        *arg = 1;
        return 0;
    }
    int bound = 0, used = 0;
    if (n > 9 && memcmp(alt, "\\p{N}{1,", 8) == 0 && sscanf(alt + 8, "%d}%n", &bound, &used) == 1 &&
        8 + (size_t)used == n && bound >= 1) {
        *kind = A_N;
        *arg = bound;
        return 0;
    }
    return -1;
}

int hf_pattern_parse(HfPattern *p, const char *regex, char *bad, size_t bad_cap)
{
    memset(p, 0, sizeof *p);
    size_t start = 0, len = strlen(regex);
    int depth = 0, in_class = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = regex[i];
        if (i < len && c == '\\') {
            i++;
            continue;
        }
        if (i < len && in_class) {
            if (c == ']') in_class = 0;
            continue;
        }
        if (i < len && c == '[') in_class = 1;
        else if (i < len && c == '(') depth++;
        else if (i < len && c == ')') depth--;
        if (i == len || (c == '|' && depth == 0)) {
            size_t n = i - start;
            if (p->n_alts == HF_MAX_ALTS ||
                parse_alt(regex + start, n, &p->kind[p->n_alts], &p->arg[p->n_alts])) {
                snprintf(bad, bad_cap, "%.*s", (int)n, regex + start);
                return -1;
            }
            p->n_alts++;
            start = i + 1;
        }
    }
    return 0;
}

/* ASCII lower case of c (other code points unchanged). */
static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Length of the literal "'" + word at i (case-folded when fold), else 0. */
static int match_literal(const int *cp, int n, int i, const char *word, int fold)
{
    int k = (int)strlen(word);
    if (i + 1 + k > n || cp[i] != '\'') return 0;
    for (int j = 0; j < k; j++) {
        int c = fold ? ascii_lower(cp[i + 1 + j]) : cp[i + 1 + j];
        if (c != word[j]) return 0;
    }
    return 1 + k;
}

/* Length of the run from i of code points whose class has any of `want`
 * bits and none of `not` bits. */
static int run(const unsigned char *cls, int n, int i, int want, int not)
{
    int j = i;
    while (j < n && (want == 0 || (cls[j] & want)) && !(cls[j] & not)) j++;
    return j - i;
}

/* " ?X+" where X is (want, not): with the space if X follows it, else X+. */
static int match_space_run(const int *cp, const unsigned char *cls, int n, int i, int want,
                           int not)
{
    if (cp[i] == ' ' && i + 1 < n) {
        int r = run(cls, n, i + 1, want, not);
        if (r > 0) return 1 + r;
    }
    return run(cls, n, i, want, not);
}

/* Length of alternative a matched at i (0 = no match; no alternative matches
 * the empty string). */
static int match_alt(int kind, int arg, const int *cp, const unsigned char *cls, int n, int i)
{
    int w, r;
    switch (kind) {
    case A_LIT: return match_literal(cp, n, i, CONTRACTIONS[arg], 0);
    case A_CONTR_CI:
        for (int k = 0; k < N_CONTRACTIONS; k++)
            if ((r = match_literal(cp, n, i, CONTRACTIONS[k], 1)) > 0) return r;
        return 0;
    case A_SP_L: return match_space_run(cp, cls, n, i, C_L, 0);
    case A_SP_N: return match_space_run(cp, cls, n, i, C_N, 0);
    case A_SP_OTHER: return match_space_run(cp, cls, n, i, 0, C_S | C_L | C_N);
    case A_SP_OTHER_NL:
        r = match_space_run(cp, cls, n, i, 0, C_S | C_L | C_N);
        return r > 0 ? r + run(cls, n, i + r, C_NL, 0) : 0;
    case A_PFX_L:
        if (!(cls[i] & (C_NL | C_L | C_N)) && i + 1 < n && (r = run(cls, n, i + 1, C_L, 0)) > 0)
            return 1 + r;
        return run(cls, n, i, C_L, 0);
    case A_N:
        r = run(cls, n, i, C_N, 0);
        return r < arg ? r : arg;
    case A_WS_NL:
        /* \s* backs off to the last newline of the white-space run */
        w = run(cls, n, i, C_S, 0);
        for (int k = w - 1; k >= 0; k--)
            if (cls[i + k] & C_NL) return k + 1;
        return 0;
    case A_WS_LOOK:
        /* \s+ backs off one so that no non-space follows, unless at the end */
        w = run(cls, n, i, C_S, 0);
        if (w > 0 && i + w == n) return w;
        return w >= 2 ? w - 1 : 0;
    case A_WS: return run(cls, n, i, C_S, 0);
    default: return 0;
    }
}

long hf_pattern_matches(const HfPattern *p, const char *s, size_t n, size_t **spans)
{
    *spans = NULL;
    int *cp = malloc(sizeof(int) * (n + 1));
    size_t *off = malloc(sizeof(size_t) * (n + 1));
    unsigned char *cls = malloc(n + 1);
    size_t *out = malloc(sizeof(size_t) * (2 * n + 1));
    if (!cp || !off || !cls || !out) {
        free(cp), free(off), free(cls), free(out);
        return -1;
    }
    int m = 0;
    for (size_t b = 0; b < n;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + b, (utf8proc_ssize_t)(n - b), &c);
        if (k <= 0) k = 1, c = 0xFFFD; /* the caller passes valid UTF-8 */
        cp[m] = c;
        cls[m] = (unsigned char)classify(c);
        off[m++] = b;
        b += (size_t)k;
    }
    off[m] = n;
    long n_matches = 0;
    for (int i = 0; i < m;) {
        int len = 0;
        for (int a = 0; a < p->n_alts && len == 0; a++) len = match_alt(p->kind[a], p->arg[a], cp, cls, m, i);
        if (len == 0) {
            i++;
            continue;
        }
        out[2 * n_matches] = off[i];
        i += len;
        out[2 * n_matches++ + 1] = off[i];
    }
    free(cp), free(off), free(cls);
    *spans = out;
    return n_matches;
}
