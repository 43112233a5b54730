/* piece_sentences.h — the sentences of a data file as the model reads them:
 * plain text, then the pieces of a tokenizer.
 *
 * Reading (piece_sentences_read): a CoNLL file gives the word in the first
 * column of each line, a blank line between sentences, -DOCSTART- lines
 * skipped; with as_text, every non-blank line is one sentence. The words of a
 * sentence are joined with single spaces and the line where it starts is
 * kept for messages. Tags are not read: these are the sentences of
 * `attnflow` and `heads`, which look at attention, not labels.
 *
 * Pieces (piece_sentences_tokenize): the joined text encoded with the
 * checkpoint's tokenizer, no <bos> (the repetition layout puts the specials).
 * A list can also be filled with ids made elsewhere (piece_sentences_add:
 * the random sequences of `heads --random`). */
#ifndef SEQREP_PIECE_SENTENCES_H
#define SEQREP_PIECE_SENTENCES_H

#include "base/status.h"
#include "text/tokenizer.h"

/* One sentence: its text, where it starts, its pieces. */
typedef struct {
    char *text; /* owned; the words joined by spaces; NULL for ids added directly */
    int line;   /* line of the file where it starts (1-based); the number of an added one */
    int *ids;   /* (n) owned piece ids; NULL until tokenized */
    int n;      /* pieces (0 when the text has no token) */
} PieceSentence;

typedef struct {
    PieceSentence *items; /* (n) in file order */
    int n, cap;
} PieceSentences;

/* Read the first max_sentences sentences of path (all when max_sentences
 * <= 0) into *out (which it initialises), CoNLL or one per line (as_text).
 * Errors name the file: it cannot be read, or holds no sentence. On failure
 * *out is empty. */
int piece_sentences_read(const char *path, int as_text, int max_sentences, PieceSentences *out,
                         SrError *err);

/* Encode every sentence's text with tok into its ids (no <bos>). -1 with err
 * when out of memory, or naming source:line when a sentence spells out a
 * token the model has no embedding row for (tokenizer_check_embedded). */
int piece_sentences_tokenize(PieceSentences *s, const Tokenizer *tok, const char *source,
                             SrError *err);

/* Append a sentence of the n ids (copied) numbered line, without text. 0 or
 * -1 when out of memory. */
int piece_sentences_add(PieceSentences *s, const int *ids, int n, int line, SrError *err);

/* Release every sentence and the list; *s becomes empty. */
void piece_sentences_free(PieceSentences *s);

#endif
