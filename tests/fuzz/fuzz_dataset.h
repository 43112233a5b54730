/* fuzz_dataset.h — the property the CoNLL and NLU++ harnesses share: a
 * dataset either reader produced, written with conll_write, reads back with
 * conll_read_scheme unchanged (IOB2, nothing converted, the same words and
 * tags). */
#ifndef SEQREP_FUZZ_DATASET_H
#define SEQREP_FUZZ_DATASET_H

#include <string.h>

#include "data/conll.h"
#include "fuzz_util.h"

/* Write d to the scratch file `name` and read it back unchanged. */
static inline void fuzz_conll_round_trip(const Dataset *d, const char *name)
{
    char path[600];
    fuzz_path(path, sizeof path, name);
    SrError err;
    FUZZ_OK(conll_write(path, d, NULL, &err), err);
    Dataset back;
    ConllScheme scheme;
    int changed;
    FUZZ_OK(conll_read_scheme(path, &back, &scheme, &changed, &err), err);
    FUZZ_CHECK(scheme == CONLL_IOB2 && changed == 0 && back.n_sents == d->n_sents);
    for (int s = 0; s < d->n_sents; s++) {
        FUZZ_CHECK(back.sents[s].n_words == d->sents[s].n_words);
        for (int w = 0; w < d->sents[s].n_words; w++) {
            FUZZ_CHECK(strcmp(back.sents[s].words[w], d->sents[s].words[w]) == 0);
            FUZZ_CHECK(strcmp(back.sents[s].tags[w], d->sents[s].tags[w]) == 0);
        }
    }
    dataset_free(&back);
}

#endif
