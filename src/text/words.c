/* words.c — the names of the special tokens and the word splitter shared by
 * the tokenizer and byte-pair learning (rules in words.h). */
#include "text/words.h"

static const char *const SPECIAL_NAMES[TOK_N_SPECIAL] = {
    "<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
};

const char *tokenizer_special_name(int id)
{
    return (id >= 0 && id < TOK_N_SPECIAL) ? SPECIAL_NAMES[id] : NULL;
}

/* ---- byte classes ---------------------------------------------------------- */

int text_is_separator_byte(unsigned char c)
{
    return c <= 0x20 || c == 0x7F;
}

/* 1 for ASCII punctuation, exactly the C locale's ispunct(). */
static int is_punct_byte(unsigned char c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
}


int text_next_token(const char *text, size_t len, size_t *pos, size_t *start, size_t *n)
{
    size_t i = *pos;
    while (i < len && text_is_separator_byte((unsigned char)text[i])) i++;
    if (i >= len) {
        *pos = len;
        return 0;
    }
    size_t j = i + 1;
    if (!is_punct_byte((unsigned char)text[i])) {
        while (j < len && !text_is_separator_byte((unsigned char)text[j]) &&
               !is_punct_byte((unsigned char)text[j]))
            j++;
    }
    *start = i;
    *n = j - i;
    *pos = j;
    return 1;
}
