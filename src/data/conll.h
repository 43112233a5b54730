/* conll.h — reading and writing CoNLL files of labelled sentences.
 *
 * Format. One token per line; columns separated by spaces or tabs; the word
 * is the FIRST column and the tag the LAST (columns in between are ignored).
 * A blank line (or one of only spaces/tabs) ends a sentence. A line whose
 * first column is "-DOCSTART-" is skipped and also ends a sentence. CRLF line
 * ends and a UTF-8 byte-order mark are accepted; invalid UTF-8, NUL and other
 * control bytes are errors naming the file and line.
 *
 * Tags. Every tag must be "O", "B-X", "I-X", "E-X" or "S-X" (X not empty).
 * The scheme is decided over the whole file, and the result is always IOB2:
 *   - A file with any E-/S- tag is IOBES: S-X becomes B-X, E-X becomes I-X.
 *     An I-X or E-X that does not continue a span of type X is an error
 *     ("mixed schemes" for I-X: an IOB1-style start in an IOBES file).
 *   - Otherwise, if some I-X opens a span (at the start of a sentence, after
 *     O, or after a tag of another type), the file is IOB1 (or IOB2 with
 *     IOB1-style starts): every such I-X becomes B-X. B-X keeps its meaning
 *     (a new span) in both readings, so this one rewrite is the whole
 *     conversion, whichever reading was intended.
 *   - Otherwise the file is IOB2 and nothing changes.
 * conll_read prints one notice line to stderr when it converts a file;
 * conll_read_scheme does not print and reports what it did instead. */
#ifndef SEQREP_CONLL_H
#define SEQREP_CONLL_H

#include "base/status.h"
#include "data/dataset.h"

/* What a file's tags were before conversion. */
typedef enum {
    CONLL_IOB2 = 0,   /* already IOB2 (or only O tags) */
    CONLL_IOB1 = 1,   /* some I-X opened a span; rewritten to B-X */
    CONLL_IOBES = 2   /* E-/S- tags; rewritten to I-/B- */
} ConllScheme;

/* Name of a scheme: "IOB2", "IOB1", "IOBES". */
const char *conll_scheme_name(ConllScheme scheme);

/* Read a CoNLL file into *out (which it initialises; out->source = path),
 * converting the tags to IOB2. *scheme (may be NULL) gets the detected
 * scheme and *n_changed (may be NULL) the number of tags rewritten. Errors
 * name the file and line ("train.conll:12: tag 'FOO' is not in the
 * IOB/IOBES scheme"); an empty file, or one with no sentence (only blank
 * lines and -DOCSTART-), is an error. On failure *out is empty. */
int conll_read_scheme(const char *path, Dataset *out, ConllScheme *scheme, int *n_changed,
                      SrError *err);

/* conll_read_scheme that prints, when tags were converted, one line to
 * stderr: "notice: PATH: IOB1 tags converted to IOB2 (N tags rewritten)". */
int conll_read(const char *path, Dataset *out, SrError *err);

/* Write d as CoNLL, atomically (to "path.tmp.<pid>", then rename): one line
 * "word gold" per word, or "word gold predicted" when pred is not NULL
 * (pred[s][w] is the predicted tag of word w of sentence s), and a blank line
 * after every sentence. Words and tags must be non-empty and free of white
 * space and control bytes; the error names the sentence and word. */
int conll_write(const char *path, const Dataset *d, char *const *const *pred, SrError *err);

#endif
