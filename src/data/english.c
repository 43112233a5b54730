/* english.c — Brown, nlp-corpus and plain-text files to sentences (rules in
 * english.h). */
#include "data/english.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/text_file.h"
#include "base/utf8.h"

/* ---- Brown ------------------------------------------------------------------ */

/* 1 when name is a Brown file name: 'c', a letter a..r, two digits. */
static int is_brown_name(const char *name)
{
    return strlen(name) == 4 && name[0] == 'c' && name[1] >= 'a' && name[1] <= 'r' &&
           name[2] >= '0' && name[2] <= '9' && name[3] >= '0' && name[3] <= '9';
}

/* strcmp for qsort over an array of char *. */
static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The Brown file names of dir, sorted (*names owned, each entry owned). */
static int brown_names(const char *dir, char ***names, int *n, SrError *err)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return sr_fail(err, "%s: cannot open the folder (%s)", dir, strerror(errno));
    int cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_brown_name(e->d_name)) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 512;
            char **bigger = realloc(*names, sizeof(char *) * (size_t)cap);
            if (!bigger) break;
            *names = bigger;
        }
        if (!((*names)[*n] = strdup(e->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(*names, (size_t)*n, sizeof(char *), compare_names);
    return 0;
}

/* Turn one line of `word/TAG` tokens into words joined by spaces, in place
 * in out (at least len + 1 bytes); returns the length written. */
static size_t strip_tags(const char *line, size_t len, char *out)
{
    size_t n = 0, i = 0;
    while (i < len) {
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
        size_t start = i;
        while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') i++;
        if (i == start) break;
        size_t end = i;
        for (size_t k = i; k > start; k--)
            if (line[k - 1] == '/') {
                end = k - 1;
                break;
            }
        size_t wlen = end - start;
        if (wlen == 0) continue;
        if (wlen == 2 && (memcmp(line + start, "``", 2) == 0 || memcmp(line + start, "''", 2) == 0))
            continue;
        if (n) out[n++] = ' ';
        memcpy(out + n, line + start, wlen);
        n += wlen;
    }
    out[n] = 0;
    return n;
}

/* Add the sentences (lines) of one Brown file. */
static int read_brown_file(SentenceSet *s, const char *path, SentenceCounts *c, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    char *words = malloc(len + 1);
    if (!words) {
        free(text);
        return sr_fail(err, "%s: out of memory", path);
    }
    int rc = 0;
    for (size_t i = 0; i < len && rc == 0;) {
        size_t end = i;
        while (end < len && text[end] != '\n') end++;
        size_t n = strip_tags(text + i, end - i, words);
        if (n) rc = sentence_set_add(s, words, n, c, err);
        i = end + 1;
    }
    free(words);
    free(text);
    return rc;
}

int english_read_brown(SentenceSet *s, const char *dir, SentenceCounts *c, SrError *err)
{
    char **names;
    int n;
    if (brown_names(dir, &names, &n, err)) return -1;
    int rc = n ? 0 : sr_fail(err, "%s: no Brown Corpus files (named c[a-r]NN) in this folder", dir);
    for (int i = 0; i < n && rc == 0; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        rc = read_brown_file(s, path, c, err);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
}

/* ---- nlp-corpus ------------------------------------------------------------- */

/* Add the sentences of one doc-N.json (a JSON array of strings). */
static int read_json_sentences(SentenceSet *s, const char *path, SentenceCounts *c, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsArray(doc)) {
        cJSON_Delete(doc);
        return sr_fail(err, "%s: expected a JSON array of sentences", path);
    }
    int rc = 0, index = 0;
    for (const cJSON *item = doc->child; item && rc == 0; item = item->next, index++) {
        if (!cJSON_IsString(item)) {
            rc = sr_fail(err, "%s: entry %d is not a string", path, index);
            break;
        }
        rc = sentence_set_add(s, item->valuestring, strlen(item->valuestring), c, err);
    }
    cJSON_Delete(doc);
    return rc;
}

int english_read_nlp_corpus(SentenceSet *s, const char *dir, SentenceCounts *c, SrError *err)
{
    for (int n = 0;; n++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/builds/doc-%d.json", dir, n);
        FILE *f = fopen(path, "rb");
        if (!f) {
            if (n == 0) return sr_fail(err, "%s: cannot open (%s)", path, strerror(errno));
            return 0;
        }
        fclose(f);
        if (read_json_sentences(s, path, c, err)) return -1;
    }
}

/* ---- plain text ------------------------------------------------------------- */

/* The line number (from 1) of byte offset `at` in text. */
static long line_of(const char *text, size_t at)
{
    long line = 1;
    for (size_t i = 0; i < at; i++) line += text[i] == '\n';
    return line;
}

int english_read_text(SentenceSet *s, const char *path, SentenceCounts *c, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = 0;
    const char *nul = memchr(text, 0, len);
    size_t valid = utf8_valid_prefix(text, len);
    if (len == 0) rc = sr_fail(err, "%s: empty corpus", path);
    else if (nul) rc = sr_fail(err, "%s:%ld: a NUL byte (a binary file, not text)", path,
                               line_of(text, (size_t)(nul - text)));
    else if (valid < len) rc = sr_fail(err, "%s:%ld: not UTF-8 (byte 0x%02X)", path,
                                       line_of(text, valid), (unsigned char)text[valid]);
    for (size_t i = 0; i < len && rc == 0;) {
        size_t end = i;
        while (end < len && text[end] != '\n') end++;
        rc = sentence_set_add(s, text + i, end - i, c, err);
        i = end + 1;
    }
    free(text);
    return rc;
}
