/* tokenizer.c — a vocabulary and its ids: making one (from a word list or a
 * vocabulary file; counted or learned from a corpus in tokenizer_build.c),
 * storing it, looking words up in a hash table, encoding (whole words or
 * greedy longest-match subword pieces) and decoding. Text is cut into tokens
 * by text/words.h. */
#include "text/tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/fnv1a.h"
#include "base/text_file.h"
#include "base/utf8.h"
#include "text/hf/tokenizer_json.h"

/* c with ASCII A-Z folded to a-z when fold is 1; every other byte unchanged. */
static unsigned char fold_byte(unsigned char c, int fold)
{
    return (fold && c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/* ---- hash table of words ------------------------------------------------------
 * Open addressing with linear probing. slots[i] holds an index into a words
 * array or -1; the table is kept at most half full so probes stay short and
 * always reach an empty slot. */

/* FNV-1a hash (base/fnv1a.h) of s[0..n), with ASCII letters folded first
 * when fold is 1. */
static uint64_t hash_word(const char *s, size_t n, int fold)
{
    if (!fold) return fnv1a_bytes(s, n);
    uint64_t h = FNV1A_START;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = fold_byte((unsigned char)s[i], fold);
        h = fnv1a(h, &c, 1);
    }
    return h;
}

/* 1 if the stored NUL-terminated word equals s[0..n) (folded if fold is 1). */
static int word_matches(const char *stored, const char *s, size_t n, int fold)
{
    for (size_t i = 0; i < n; i++) {
        if (stored[i] == '\0') return 0;
        if ((unsigned char)stored[i] != fold_byte((unsigned char)s[i], fold)) return 0;
    }
    return stored[n] == '\0';
}

/* Find s[0..n) in the table: returns its index into words, or -1. *slot gets
 * the slot holding it, or the empty slot where it would be inserted. */
static int table_probe(const int *slots, int n_slots, char *const *words, const char *s, size_t n,
                       int fold, int *slot)
{
    size_t mask = (size_t)n_slots - 1;
    size_t i = (size_t)hash_word(s, n, fold) & mask;
    for (;;) {
        int id = slots[i];
        if (id < 0 || word_matches(words[id], s, n, fold)) {
            *slot = (int)i;
            return id;
        }
        i = (i + 1) & mask;
    }
}

/* A new table of n_slots (a power of two) empty slots, or NULL. */
static int *table_new(int n_slots)
{
    int *slots = malloc((size_t)n_slots * sizeof *slots);
    if (slots)
        for (int i = 0; i < n_slots; i++) slots[i] = -1;
    return slots;
}

/* Smallest power of two that is at least 2 n and at least 16. */
static int table_size_for(int n)
{
    int size = 16;
    while (size < 2 * n) size *= 2;
    return size;
}

/* ---- messages ---------------------------------------------------------------- */

/* Copy a token into buf for an error message: at most 40 bytes, control
 * bytes shown as '?', "..." appended when cut. */
static void quote_token(char *buf, size_t cap, const char *s, size_t n)
{
    size_t limit = n < 40 ? n : 40, k = 0;
    for (size_t i = 0; i < limit && k + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[k++] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
    }
    buf[k] = '\0';
    if (n > limit && k + 4 < cap) strcat(buf, "...");
}

/* Where entry i of a vocabulary is, for messages: "path:LINE" (line i+1) for
 * a file, otherwise "[source: ]vocabulary entry i". */
static void entry_location(char *buf, size_t cap, const char *path, const char *source, int i)
{
    if (path)
        snprintf(buf, cap, "%s:%d", path, i + 1);
    else if (source)
        snprintf(buf, cap, "%s: vocabulary entry %d", source, i);
    else
        snprintf(buf, cap, "vocabulary entry %d", i);
}

/* Name of a vocabulary for messages without an entry: the file, the
 * source, or just "vocabulary". */
static const char *vocabulary_name(const char *path, const char *source)
{
    if (path) return path;
    return source ? source : "vocabulary";
}

/* ---- making a tokenizer ------------------------------------------------------ */

void tokenizer_free(Tokenizer *tok)
{
    hf_free(tok->hf);
    if (tok->words)
        for (int i = 0; i < tok->n_words; i++) free(tok->words[i]);
    free(tok->words);
    free(tok->slots);
    memset(tok, 0, sizeof *tok);
}

/* Check entry i of a vocabulary in id order, word (len bytes; NULL for a
 * missing one), against what a token may be: not empty, no white space or
 * control byte, UTF-8, the special token of its id below TOK_N_SPECIAL.
 * where names the entry (entry_location), shown the quoted token. 0, or -1
 * with err. */
static int check_entry(const char *word, size_t len, int i, const char *where, SrError *err)
{
    char shown[64];
    if (!word) return sr_fail(err, "%s: missing token (NULL)", where);
    quote_token(shown, sizeof shown, word, len);
    if (len == 0) return sr_fail(err, "%s: empty token", where);
    for (size_t k = 0; k < len; k++)
        if (text_is_separator_byte((unsigned char)word[k]))
            return sr_fail(err, "%s: token contains white space or a control byte: '%s'", where, shown);
    size_t valid = utf8_valid_prefix(word, len);
    if (valid < len) /* it could never match UTF-8 text, and checkpoints hold it as JSON */
        return sr_fail(err, "%s: token is not UTF-8 (byte 0x%02X)", where, (unsigned char)word[valid]);
    if (i < TOK_N_SPECIAL &&
        (len != strlen(tokenizer_special_name(i)) || memcmp(word, tokenizer_special_name(i), len) != 0))
        return sr_fail(err, "%s: expected special token '%s', found '%s'", where, tokenizer_special_name(i),
                       shown);
    return 0;
}

/* Add words[i] (len bytes), checked, to tok: a copy at id i, indexed in the
 * hash table (a token there already is an error naming its first entry:
 * its line in path, or its index). 0, or -1 with err. */
static int add_entry(Tokenizer *tok, const char *word, size_t len, int i, const char *path, const char *where,
                     SrError *err)
{
    int slot;
    int first = table_probe(tok->slots, tok->n_slots, tok->words, word, len, 0, &slot);
    if (first >= 0) {
        char shown[64];
        quote_token(shown, sizeof shown, word, len);
        if (path) return sr_fail(err, "%s: duplicate token '%s' (first on line %d)", where, shown, first + 1);
        return sr_fail(err, "%s: duplicate token '%s' (first at entry %d)", where, shown, first);
    }
    tok->words[i] = malloc(len + 1);
    if (!tok->words[i]) return sr_fail(err, "%s: out of memory", where);
    memcpy(tok->words[i], word, len);
    tok->words[i][len] = '\0';
    tok->n_words = i + 1;
    tok->slots[slot] = i;
    if ((int)len > tok->max_len) tok->max_len = (int)len;
    return 0;
}

/* Validate words[0..n) (lengths lens, or NULL for strlen) as a vocabulary in
 * id order and make *tok own copies of them, indexed in the hash table.
 * Messages locate entries with entry_location(path, source, i). */
static int tokenizer_init_checked(Tokenizer *tok, const char *const *words, const size_t *lens,
                                  int n, int lowercase, const char *path, const char *source,
                                  SrError *err)
{
    memset(tok, 0, sizeof *tok);
    if (n < 0)
        return sr_fail(err, "%s: negative vocabulary size %d", vocabulary_name(path, source), n);
    tok->lowercase = lowercase ? 1 : 0;
    tok->n_slots = table_size_for(n);
    tok->slots = table_new(tok->n_slots);
    tok->words = calloc(n > 0 ? (size_t)n : 1, sizeof *tok->words);
    if (!tok->slots || !tok->words) {
        tokenizer_free(tok);
        return sr_fail(err, "%s: out of memory", vocabulary_name(path, source));
    }
    char where[600];
    for (int i = 0; i < n; i++) {
        entry_location(where, sizeof where, path, source, i);
        size_t len = !words[i] ? 0 : lens ? lens[i] : strlen(words[i]);
        if (check_entry(words[i], len, i, where, err) || add_entry(tok, words[i], len, i, path, where, err)) {
            tokenizer_free(tok);
            return -1;
        }
    }
    if (n < TOK_N_SPECIAL) {
        entry_location(where, sizeof where, path, source, n);
        tokenizer_free(tok);
        return sr_fail(err, "%s: expected special token '%s', found end of %s", where,
                       tokenizer_special_name(n), path ? "file" : "list");
    }
    return 0;
}

int tokenizer_from_words(Tokenizer *tok, const char *const *words, int n, int lowercase,
                         SrError *err)
{
    return tokenizer_init_checked(tok, words, NULL, n, lowercase, NULL, NULL, err);
}

int tokenizer_from_words_in(Tokenizer *tok, const char *const *words, int n, int lowercase,
                            const char *source, SrError *err)
{
    return tokenizer_init_checked(tok, words, NULL, n, lowercase, NULL, source, err);
}

int tokenizer_load(Tokenizer *tok, const char *path, int lowercase, SrError *err)
{
    memset(tok, 0, sizeof *tok);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;

    /* Count lines: every '\n' ends one, plus a last line without one. */
    int n = 0;
    for (size_t i = 0; i < len; i++) n += text[i] == '\n';
    if (len > 0 && text[len - 1] != '\n') n++;

    const char **words = malloc((size_t)(n > 0 ? n : 1) * sizeof *words);
    size_t *lens = malloc((size_t)(n > 0 ? n : 1) * sizeof *lens);
    if (!words || !lens) {
        free(words);
        free(lens);
        free(text);
        return sr_fail(err, "%s: out of memory", path);
    }
    size_t begin = 0;
    for (int line = 0; line < n; line++) {
        size_t end = begin;
        while (end < len && text[end] != '\n') end++;
        size_t stop = end;
        if (stop > begin && text[stop - 1] == '\r') stop--; /* CRLF */
        words[line] = text + begin;
        lens[line] = stop - begin;
        begin = end + 1;
    }
    int rc = tokenizer_init_checked(tok, words, lens, n, lowercase, path, NULL, err);
    free(words);
    free(lens);
    free(text);
    return rc;
}

int tokenizer_save(const Tokenizer *tok, const char *path, SrError *err)
{
    AtomicFile af;
    if (atomic_file_open(&af, path, err)) return -1;
    for (int i = 0; i < tok->n_words; i++) {
        fputs(tok->words[i], af.f);
        fputc('\n', af.f);
    }
    return atomic_file_commit(&af, err);
}

void tokenizer_set_subword(Tokenizer *tok, int subword)
{
    tok->subword = subword ? 1 : 0;
}

/* ---- lookup -------------------------------------------------------------------- */

int tokenizer_lookup(const Tokenizer *tok, const char *word, size_t n)
{
    if (tok->hf) return hf_token_id(tok->hf, word, n);
    if (!tok->slots) return -1;
    int slot;
    return table_probe(tok->slots, tok->n_slots, tok->words, word, n, tok->lowercase, &slot);
}

int tokenizer_word_id(const Tokenizer *tok, const char *word)
{
    int id = tokenizer_lookup(tok, word, strlen(word));
    return id >= 0 ? id : TOK_UNK;
}

const char *tokenizer_word(const Tokenizer *tok, int id)
{
    return (id >= 0 && id < tok->n_words) ? tok->words[id] : NULL;
}

int tokenizer_is_unknown_label(const char *label)
{
    return label && (strcmp(label, "<unk>") == 0 || strcmp(label, "[UNK]") == 0);
}

/* ---- encoding ------------------------------------------------------------------ */

/* Longest continuation piece looked up, in bytes without the "##": longer
 * "##" entries of a vocabulary are never matched (plain entries of any
 * length are). */
enum { MAX_CONTINUATION_LEN = 254 };

/* Id of the piece s[0..n), as a continuation ("##" + s) if continuation is
 * 1, or -1 if the vocabulary has no such piece. */
static int lookup_piece(const Tokenizer *tok, const char *s, size_t n, int continuation)
{
    if (!continuation) return tokenizer_lookup(tok, s, n);
    if (n > MAX_CONTINUATION_LEN) return -1;
    char buf[MAX_CONTINUATION_LEN + 2];
    buf[0] = '#';
    buf[1] = '#';
    memcpy(buf + 2, s, n);
    return tokenizer_lookup(tok, buf, n + 2);
}

/* Length of the UTF-8 character starting at s[0..n): the lead byte and the
 * continuation bytes (10xxxxxx) after it, at least 1. */
static size_t utf8_char_span(const char *s, size_t n)
{
    size_t k = 1;
    while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80) k++;
    return k;
}

/* Ids of one token s[0..n) (a product of text_next_token): in word mode its
 * id or TOK_UNK; in subword mode its greedy longest-match pieces, with one
 * TOK_UNK for each character no piece covers. Writes ids[0..max_ids) and
 * returns how many ids the token needs; *n_unk (may be NULL) is increased
 * by the number of TOK_UNK produced. */
static long encode_token(const Tokenizer *tok, const char *s, size_t n, int *ids, long max_ids,
                         long *n_unk)
{
    long count = 0, unk = 0;
    if (!tok->subword) {
        int id = tokenizer_lookup(tok, s, n);
        if (id < 0) {
            id = TOK_UNK;
            unk++;
        }
        if (max_ids > 0) ids[0] = id;
        count = 1;
    } else {
        size_t p = 0;
        while (p < n) {
            size_t longest = n - p;
            if (longest > (size_t)tok->max_len) longest = (size_t)tok->max_len;
            int id = -1;
            size_t len = longest;
            for (; len > 0; len--) {
                /* only cut between UTF-8 characters */
                if (p + len < n && ((unsigned char)s[p + len] & 0xC0) == 0x80) continue;
                id = lookup_piece(tok, s + p, len, p > 0);
                if (id >= 0) break;
            }
            if (id < 0) {
                id = TOK_UNK;
                unk++;
                len = utf8_char_span(s + p, n - p);
            }
            if (count < max_ids) ids[count] = id;
            count++;
            p += len;
        }
    }
    if (n_unk) *n_unk += unk;
    return count;
}

long tokenizer_encode(const Tokenizer *tok, const char *text, int add_bos, int *ids, long max_ids)
{
    if (tok->hf) return hf_encode(tok->hf, text, strlen(text), add_bos, ids, max_ids);
    long count = 0;
    if (add_bos) {
        if (count < max_ids) ids[count] = TOK_BOS;
        count++;
    }
    size_t len = strlen(text), pos = 0, start, n;
    while (text_next_token(text, len, &pos, &start, &n)) {
        long room = max_ids > count ? max_ids - count : 0;
        count += encode_token(tok, text + start, n, room > 0 ? ids + count : NULL, room, NULL);
    }
    return count;
}

int tokenizer_word_pieces(const Tokenizer *tok, const char *word, int *ids, int max_ids)
{
    return tokenizer_word_pieces_at(tok, word, 0, ids, max_ids);
}

int tokenizer_word_pieces_at(const Tokenizer *tok, const char *word, int index, int *ids,
                             int max_ids)
{
    if (tok->hf) return hf_word_pieces(tok->hf, word, index, ids, max_ids);
    long count = 0;
    size_t len = strlen(word), pos = 0, start, n;
    while (text_next_token(word, len, &pos, &start, &n)) {
        long room = max_ids > count ? max_ids - count : 0;
        count += encode_token(tok, word + start, n, room > 0 ? ids + count : NULL, room, NULL);
    }
    if (count == 0) {
        if (max_ids > 0) ids[0] = TOK_UNK;
        count = 1;
    }
    return count > 2147483647L ? 2147483647 : (int)count;
}

void encoded_text_free(EncodedText *e)
{
    free(e->ids);
    free(e->line_start);
    memset(e, 0, sizeof *e);
}

/* Append one id to out->ids (capacity *cap, doubled when full).
 * Returns 0 or -1 (out of memory). */
static int push_id(EncodedText *out, long *cap, int id)
{
    if (out->n_ids == *cap) {
        long new_cap = *cap ? 2 * *cap : 4096;
        int *bigger = realloc(out->ids, (size_t)new_cap * sizeof *bigger);
        if (!bigger) return -1;
        out->ids = bigger;
        *cap = new_cap;
    }
    out->ids[out->n_ids++] = id;
    return 0;
}

/* Close the current line: append out->n_ids as the start of the next line
 * (out->line_start has capacity *cap). Returns 0 or -1 (out of memory). */
static int push_line_end(EncodedText *out, long *cap)
{
    if (out->n_lines + 2 > *cap) {
        long new_cap = 2 * *cap;
        long *bigger = realloc(out->line_start, (size_t)new_cap * sizeof *bigger);
        if (!bigger) return -1;
        out->line_start = bigger;
        *cap = new_cap;
    }
    out->line_start[++out->n_lines] = out->n_ids;
    return 0;
}

int tokenizer_encode_lines(const Tokenizer *tok, const char *text, size_t len, const char *source,
                           int separator, EncodedText *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    if (!source) source = "text";
    if (tok->hf) return sr_fail(err, "%s: encoding a corpus with a Hugging Face tokenizer is not supported", source);
    if (separator != TOK_BOS && separator != TOK_EOS && separator != TOK_SEP)
        return sr_fail(err, "%s: line separator must be <bos>, <eos> or <sep> (got id %d)", source,
                       separator);

    long ids_cap = 0, lines_cap = 1024;
    out->line_start = malloc((size_t)lines_cap * sizeof *out->line_start);
    if (!out->line_start) goto out_of_memory;
    out->line_start[0] = 0;

    size_t begin = 0;
    while (begin < len) {
        size_t end = begin;
        while (end < len && text[end] != '\n') end++;

        long line_begin = out->n_ids;
        if (separator == TOK_BOS && push_id(out, &ids_cap, TOK_BOS)) goto out_of_memory;
        size_t pos = begin, start, n;
        long words = 0;
        while (text_next_token(text, end, &pos, &start, &n)) {
            int piece_ids[64];
            long n_pieces = encode_token(tok, text + start, n, piece_ids, 64, &out->n_unk);
            if (n_pieces > 64) { /* a very long token: encode it again into the heap */
                int *many = malloc((size_t)n_pieces * sizeof *many);
                if (!many) goto out_of_memory;
                encode_token(tok, text + start, n, many, n_pieces, NULL);
                for (long k = 0; k < n_pieces; k++) {
                    if (push_id(out, &ids_cap, many[k])) {
                        free(many);
                        goto out_of_memory;
                    }
                }
                free(many);
            } else {
                for (long k = 0; k < n_pieces; k++)
                    if (push_id(out, &ids_cap, piece_ids[k])) goto out_of_memory;
            }
            words++;
        }
        if (words == 0) {
            out->n_ids = line_begin; /* blank line: drop its <bos> */
        } else {
            if (separator != TOK_BOS && push_id(out, &ids_cap, separator)) goto out_of_memory;
            if (push_line_end(out, &lines_cap)) goto out_of_memory;
        }
        begin = end + 1;
    }
    if (out->n_lines == 0) {
        encoded_text_free(out);
        return sr_fail(err, "%s: empty corpus (no tokens)", source);
    }
    return 0;

out_of_memory:
    encoded_text_free(out);
    return sr_fail(err, "%s: out of memory", source);
}

int tokenizer_encode_file(const Tokenizer *tok, const char *path, int separator,
                          EncodedText *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = tokenizer_encode_lines(tok, text, len, path, separator, out, err);
    free(text);
    return rc;
}

/* ---- decoding ------------------------------------------------------------------ */

/* 1 if the token is one character from `set`. */
static int is_single_char_of(const char *token, const char *set)
{
    return token[0] != '\0' && token[1] == '\0' && strchr(set, token[0]) != NULL;
}

/* Pretty joining: tokens written without a space before them ... */
static int glues_to_previous(const char *token)
{
    return is_single_char_of(token, ".,!?;:)]}%'-");
}

/* ... and tokens written without a space after them. */
static int glues_to_next(const char *token)
{
    return is_single_char_of(token, "([{$'-");
}

/* 1 if the piece is a continuation ("##" followed by at least one byte). */
static int is_continuation_piece(const char *piece)
{
    return piece[0] == '#' && piece[1] == '#' && piece[2] != '\0';
}

/* 1 if decoding with these flags leaves the id out. */
static int decode_skips(int id, int flags)
{
    if (id == TOK_PAD) return 1;
    if (flags & TOKENIZER_DECODE_SKIP_SPECIAL)
        return id == TOK_BOS || id == TOK_EOS || id == TOK_SEP || id == TOK_MASK;
    return 0;
}

char *tokenizer_decode(const Tokenizer *tok, const int *ids, long n, int flags)
{
    if (tok->hf) return hf_decode(tok->hf, ids, n, (flags & TOKENIZER_DECODE_SKIP_SPECIAL) != 0);
    int pretty = (flags & TOKENIZER_DECODE_PRETTY) != 0;

    /* First pass: the length, so the string is allocated once. */
    size_t size = 1;
    for (long i = 0; i < n; i++) {
        if (decode_skips(ids[i], flags)) continue;
        const char *word = tokenizer_word(tok, ids[i]);
        size += strlen(word ? word : tokenizer_special_name(TOK_UNK)) + 1;
    }
    char *out = malloc(size);
    if (!out) return NULL;

    size_t len = 0;
    int first = 1, previous_glues = 0;
    for (long i = 0; i < n; i++) {
        if (decode_skips(ids[i], flags)) continue;
        const char *word = tokenizer_word(tok, ids[i]);
        if (!word) word = tokenizer_special_name(TOK_UNK);
        if (tok->subword && !first && is_continuation_piece(word)) {
            size_t plen = strlen(word) - 2;
            memcpy(out + len, word + 2, plen);
            len += plen;
            previous_glues = 0;
            continue;
        }
        int space = !first && !(pretty && (previous_glues || glues_to_previous(word)));
        if (space) out[len++] = ' ';
        size_t wlen = strlen(word);
        memcpy(out + len, word, wlen);
        len += wlen;
        first = 0;
        previous_glues = pretty && glues_to_next(word);
    }
    out[len] = '\0';
    return out;
}
