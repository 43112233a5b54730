/* tokenizer_label.c — a readable label of one token for figures and tables
 * (tokenizer.h tokenizer_piece_label). */
#include "text/tokenizer.h"

#include <stdlib.h>
#include <string.h>

#include "text/hf/tokenizer_json.h"

/* Copy text[0..n) into buf (cap >= 1 bytes), cut at a UTF-8 character
 * boundary when it does not fit. */
static void copy_label(char *buf, size_t cap, const char *text, size_t n)
{
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
}

const char *tokenizer_piece_label(const Tokenizer *tok, int id, char *buf, size_t cap)
{
    if (cap == 0) return buf;
    const char *word = tokenizer_word(tok, id);
    if (!word) {
        copy_label(buf, cap, "?", 1);
        return buf;
    }
    char *decoded = tok->hf ? hf_decode(tok->hf, &id, 1, 0) : NULL;
    const char *text = decoded ? decoded : word;
    size_t start = 0, end = strlen(text);
    if (decoded) {
        while (start < end && text_is_separator_byte((unsigned char)text[start])) start++;
        while (end > start && text_is_separator_byte((unsigned char)text[end - 1])) end--;
        /* nothing readable left, or a lone U+FFFD (a byte of a longer character) */
        if (end == start || (end - start == 3 && memcmp(text + start, "\xEF\xBF\xBD", 3) == 0)) {
            text = word;
            start = 0;
            end = strlen(word);
        }
    }
    copy_label(buf, cap, text + start, end - start);
    free(decoded);
    return buf;
}
