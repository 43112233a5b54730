/* fuzz_corpus.c — the corpus import of `seqrep import-corpus` on any bytes:
 * the first byte picks the source kind (0 a plain-text file, 1 a Brown
 * Corpus file, 2 an nlp-corpus builds/doc-0.json; byte % 3), the rest is
 * the file. Properties: the UTF-8 check (utf8_valid_prefix) agrees with an
 * independent decoder written here; the text reader refuses exactly the
 * empty, NUL-holding and non-UTF-8 files; every kept sentence is
 * normalised (single spaces, no separator bytes, none at either end), has
 * at least min_words words and appears once; and the counts add up. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "base/utf8.h"
#include "data/english.h"
#include "fuzz_util.h"
#include "text/words.h"

/* The valid UTF-8 prefix by decoding code points (RFC 3629, table 3-7). */
static size_t reference_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > n) return i;
        unsigned long cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return n;
}

/* The set holds normalised, long enough, distinct sentences. */
static void check_set(const SentenceSet *s, const SentenceCounts *c)
{
    FUZZ_CHECK(c->kept == (long)s->n);
    FUZZ_CHECK(c->offered == c->kept + c->duplicates + c->too_short);
    long words = 0;
    for (size_t i = 0; i < s->n; i++) {
        const char *line = s->lines[i];
        size_t len = strlen(line);
        FUZZ_CHECK(len > 0 && line[0] != ' ' && line[len - 1] != ' ');
        long w = 1;
        for (size_t k = 0; k < len; k++) {
            unsigned char b = (unsigned char)line[k];
            FUZZ_CHECK(b == ' ' || !text_is_separator_byte(b));
            FUZZ_CHECK(!(b == ' ' && line[k + 1] == ' '));
            w += b == ' ';
        }
        FUZZ_CHECK(w >= s->min_words);
        words += w;
        for (size_t j = 0; j < i && s->n < 64; j++) FUZZ_CHECK(strcmp(s->lines[j], line) != 0);
    }
    FUZZ_CHECK(words == c->words);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    FUZZ_CHECK(utf8_valid_prefix(text, len) == reference_valid_prefix(data + 1, len));

    char dir[600], path[700];
    SentenceSet set;
    SentenceCounts counts = {0};
    SrError err;
    sentence_set_init(&set, 2);
    int rc, kind = data[0] % 3;
    if (kind == 0) {
        fuzz_file(path, sizeof path, "corpus.txt", text, len);
        rc = english_read_text(&set, path, &counts, &err);
        size_t body = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* BOM dropped */
        int bad = len - body == 0 || memchr(text + body, 0, len - body) ||
                  utf8_valid_prefix(text + body, len - body) < len - body;
        FUZZ_CHECK((rc != 0) == bad);
    } else if (kind == 1) {
        fuzz_path(dir, sizeof dir, "brown");
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/ca01", dir);
        fuzz_write(path, text, len);
        rc = english_read_brown(&set, dir, &counts, &err);
        FUZZ_CHECK(rc == 0);
    } else {
        fuzz_path(dir, sizeof dir, "nlp");
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/builds", dir);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/builds/doc-0.json", dir);
        fuzz_write(path, text, len);
        rc = english_read_nlp_corpus(&set, dir, &counts, &err);
    }
    if (rc == 0) check_set(&set, &counts);
    sentence_set_free(&set);
    return 0;
}
