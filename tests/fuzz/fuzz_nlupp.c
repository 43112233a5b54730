/* fuzz_nlupp.c — the NLU++ importer on any bytes: the file read as an
 * ontology.json (nlupp_read_ontology) and as a fold (nlupp_read_fold), once
 * with any slot name allowed and once limited to a few names. Properties of
 * a fold it accepts: the counts add up, every sentence is strict IOB2, and
 * the CoNLL file import-nlupp would write from it is one conll_read accepts
 * as it is (IOB2, the same words and tags). */
#include <stdint.h>
#include <string.h>

#include "data/conll.h"
#include "data/nlupp.h"
#include "fuzz_dataset.h"
#include "fuzz_util.h"

static char *const SOME_NAMES[] = {"date", "time", "amount_of_money", "people", "date_period"};

/* Read the fold at path with the names given (NULL = any). */
static void read_fold(const char *path, char *const *names, int n_names)
{
    Dataset d = {0};
    NluppCounts c = {0};
    SrError err;
    if (nlupp_read_fold(path, &d, &c, NULL, names, n_names, &err) == 0) {
        FUZZ_CHECK(c.examples == d.n_sents && c.tokens == dataset_n_words(&d));
        FUZZ_CHECK(c.misaligned <= c.spans && c.overlapping + c.empty_spans <= c.spans);
        for (int s = 0; s < d.n_sents; s++)
            for (int w = 0; w < d.sents[s].n_words; w++) {
                const char *tag = d.sents[s].tags[w];
                FUZZ_CHECK(strcmp(tag, "O") == 0 || (tag[0] == 'B' && tag[1] == '-') ||
                           (tag[0] == 'I' && tag[1] == '-' && w > 0 &&
                            strcmp(d.sents[s].tags[w - 1] + 1, tag + 1) == 0));
            }
        if (d.n_sents > 0) fuzz_conll_round_trip(&d, "fold.conll");
    }
    dataset_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    fuzz_file(path, sizeof path, "fold.json", data, size);
    char **names;
    int n_names;
    SrError err;
    if (nlupp_read_ontology(path, &names, &n_names, &err) == 0) {
        for (int i = 0; i < n_names; i++) FUZZ_CHECK(names[i] != NULL);
        dataset_labels_free(names, n_names);
    }
    read_fold(path, NULL, 0);
    read_fold(path, SOME_NAMES, (int)(sizeof SOME_NAMES / sizeof SOME_NAMES[0]));
    return 0;
}
