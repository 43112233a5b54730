/* explorer_input.h — what the explorer reads before the window opens: the
 * checkpoint's vocabulary and provenance and the sentences to page through
 * (explorer_input.c). */
#ifndef SEQREP_VIZ_EXPLORER_INPUT_H
#define SEQREP_VIZ_EXPLORER_INPUT_H

#include "base/status.h"
#include "figure_row/explorer_sources.h"
#include "formats/checkpoint.h"
#include "text/tokenizer.h"

typedef struct {
    CheckpointInfo info;      /* config, vocabulary, manifest of --model       */
    Tokenizer tok;            /* its vocabulary                               */
    char checksum[17];        /* of the checkpoint file, for the caption       */
    long long seed;           /* training seed from the manifest, -1 if none   */
    int n_sentences;
    char **texts;             /* (n) the sentence, words joined by spaces       */
    char **sources;           /* (n) "given with --text" or "sentence I of F (line L)" */
    int **ids;                /* (n) token ids of each sentence                */
    int *n_tokens;            /* (n) their counts                              */
    int *n_unknown;           /* (n) how many of them are <unk> (tokenizer_is_unknown_label) */
} ExplorerInput;

/* Read the checkpoint's vocabulary and the sentences of src (--text, or
 * every sentence of the CoNLL file --data). 0 or -1 with err. */
int explorer_input_load(ExplorerInput *in, const ExplorerSources *src, SrError *err);
void explorer_input_free(ExplorerInput *in);

#endif
