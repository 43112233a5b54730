/* readout.h — from labelled sentences to model inputs, and from hidden states
 * back to one feature vector per word.
 *
 *   words --tokenizer_word_pieces_at--> pieces (first piece carries the label;
 *           word w is cut in context, see tokenizer.h)
 *         --repeat.h, pieces as "words"--> k = r+1 copies, positions 0..T-1
 *         --batch--> (B, T) ids, right padding, lengths, positions
 *   model_forward, then for any layer 0..n_run:
 *         word w's feature = hidden row of its FIRST piece in the LAST copy
 *                            (or in the first copy, for contrast)
 *
 * Example, bos per copy, r = 1, words "Ann" "McKay" with pieces
 * [Ann] [Mc][Kay]:   row 0 <bos>, 1 Ann, 2 Mc, 3 Kay, 4 <bos>, 5 Ann, 6 Mc, 7 Kay
 *   last-copy rows of the words: 5, 6;  first-copy rows: 1, 2.
 *
 * Long sentences: a sentence whose repeated input does not fit in the model's
 * max_seq_len is an ERROR naming the file and the sentence's line (no silent
 * truncation, which would drop words from the evaluation). */
#ifndef SEQREP_READOUT_H
#define SEQREP_READOUT_H

#include "base/status.h"
#include "data/dataset.h"
#include "engine/model.h"
#include "repeat/repeat.h"
#include "text/tokenizer.h"

/* One sentence cut into the model's tokens. */
typedef struct {
    int n_words;       /* words of the sentence */
    int n_pieces;      /* tokens of the whole sentence */
    int *pieces;       /* (n_pieces) token ids, the words' pieces in order */
    int *first_piece;  /* (n_words) index in pieces of each word's first piece */
    int line;          /* line of the file where the sentence starts (0 = none) */
} PiecedSentence;

/* A data set cut into tokens. Per-word arrays of a whole data set (labels,
 * features, predictions) run sentence after sentence; sentence s's words start
 * at word_start[s]. */
typedef struct {
    PiecedSentence *sents;  /* (n_sents) */
    int n_sents;
    long n_words;           /* words of all sentences */
    long *word_start;       /* (n_sents) */
    int max_pieces;         /* most tokens in one sentence */
    char *source;           /* file name for messages (owned) */
    RepeatIds ids;          /* the tokenizer's <bos> and <sep> ids (readout_repeat_ids) */
    int pad_id;             /* the tokenizer's filler id after a row's end */
} PiecedData;

/* How a sentence is laid out: k = r + 1 copies, <bos> and <sep> as repeat.h. */
typedef struct {
    int r;
    RepeatBos bos;  /* paper: REPEAT_BOS_PER_COPY */
    RepeatSep sep;  /* paper: REPEAT_SEP_NONE */
    RepeatPositions copy_positions; /* paper: REPEAT_POSITIONS_RUN (0, the default) */
} ReadoutLayout;

/* The paper's layout for r repetitions: <bos> per copy, no separator. */
ReadoutLayout readout_layout_paper(int r);

/* The <bos> and <sep> ids repetition puts for tok: its own specials
 * (tokenizer_specials; TOK_BOS and TOK_SEP for the house tokenizers). */
RepeatIds readout_repeat_ids(const Tokenizer *tok);

/* The bos mode of a run on tok: bos_text ("none" | "once" | "per-copy")
 * when given (NULL = not given), else `fallback` (the command's default)
 * when tok puts a BOS first and none when it puts none (a Qwen tokenizer:
 * the paper's code repeats the tokenized sentence, which then has no BOS).
 * Fails naming --bos or --sep (repeat_check_ids) when the mode, or sep,
 * needs a special token tok lacks, and on a bad bos_text. */
int readout_choose_bos(const Tokenizer *tok, const char *bos_text, RepeatBos fallback,
                       RepeatSep sep, RepeatBos *bos, SrError *err);

/* Which copy the features are read from. */
typedef enum { READ_LAST_COPY = 0, READ_FIRST_COPY = 1 } ReadCopy;

/* Name of a copy ("last", "first") and its parser ("last" | "first"; 0 or -1). */
const char *read_copy_name(ReadCopy copy);
int read_copy_parse(const char *text, ReadCopy *out);

/* Cut every sentence of d into pieces with tok (and keep tok's special ids
 * for batches: ids, pad_id). Fails on an empty sentence
 * (naming file and line) or when out of memory; on failure *out is empty. */
int readout_prepare(PiecedData *out, const Dataset *d, const Tokenizer *tok, SrError *err);
/* Release a PiecedData; *pd becomes empty. */
void pieced_data_free(PiecedData *pd);

/* Tokens of sentence s laid out by lay (repeat_length of its pieces). */
int readout_sentence_length(const PiecedData *pd, int s, ReadoutLayout lay);

/* Longest laid-out sentence of pd. */
int readout_max_length(const PiecedData *pd, ReadoutLayout lay);

/* Sort the sentence indices idx[0..n) of pd by laid-out length, shortest
 * first (ties: smaller index first), so that batches cut from them carry
 * little padding. */
int readout_sort_by_length(const PiecedData *pd, ReadoutLayout lay, int *idx, int n, SrError *err);

/* Fail if some sentence laid out by lay exceeds max_seq_len tokens:
 * "dev.conll:41: sentence of 12 words (15 tokens) repeated k = 5 times is 80
 * tokens, more than the model's max_seq_len 64". */
int readout_check_fits(const PiecedData *pd, ReadoutLayout lay, int max_seq_len, SrError *err);

/* A batch of laid-out sentences, right-padded to the longest. Row b is
 * sentence sent[b]; its words are batch words word_start[b] ..
 * word_start[b] + n_words(b), in order. Read-out rows are FLAT indices
 * b * T + t into (B, T, C) hidden states. Buffers grow as needed and are
 * reused by the next readout_batch_build. */
typedef struct {
    int B, T;
    int *ids;         /* (B, T) token ids; <pad> after each row's length */
    int *positions;   /* (B, T) 0 .. length-1, then 0 on padding */
    int *lengths;     /* (B) valid tokens of each row */
    int *sent;        /* (B) sentence index in the PiecedData */
    int *word_start;  /* (B) first batch word of each row */
    int n_words;      /* words in the batch */
    int *last_rows;   /* (n_words) flat row of each word's first piece, last copy */
    int *first_rows;  /* (n_words) the same in the first copy */
    long tokens;      /* sum of lengths (valid tokens, padding excluded) */
    int cap_rows, cap_tokens, cap_words; /* allocated sizes; internal */
} ReadoutBatch;

/* Lay out sentences sent[0..n) of pd into b (n >= 1). Fails (naming file and
 * line) if a sentence exceeds max_T tokens (0 = no limit). */
int readout_batch_build(ReadoutBatch *b, const PiecedData *pd, const int *sent, int n,
                        ReadoutLayout lay, int max_T, SrError *err);
/* Release a batch's buffers; *b becomes empty (reusable). */
void readout_batch_free(ReadoutBatch *b);

/* The forward call for a batch: ids, lengths, positions, the mask plan
 * (N entries; NULL = causal), the head plan (N x H weights, engine/input.h;
 * NULL = every head) and the exit layer n_run (1..N; 0 = all). */
ModelInput readout_model_input(const ReadoutBatch *b, const MaskKind *mask, const float *head_scale,
                               int n_run);

/* Gather the features of the batch's words from hidden states (B, T, C) of
 * one layer (model_hidden(m, layer) after model_forward on this batch):
 * out (n_words, C), row w = hidden row of word w's first piece in the chosen copy. */
void readout_gather(const ReadoutBatch *b, const float *hidden, int C, ReadCopy copy, float *out);

/* Run the model over the whole of pd in batches of up to batch_size
 * sentences of similar length (readout_sort_by_length; mask and head plans as
 * readout_model_input, all layers) and store the
 * features of every layer l = 0..N of every word w:
 *   last[(l * pd->n_words + w) * C + c]  (last copy), likewise first (first copy;
 *   may be NULL). The model must be sized for batch_size x readout_max_length. */
int readout_collect(Model *m, const PiecedData *pd, ReadoutLayout lay, const MaskKind *mask,
                    const float *head_scale, int batch_size, float *last, float *first, SrError *err);

#endif
