/* fuzz_conll.c — conll_read_scheme (lines, columns, byte checks, IOB1 and
 * IOBES detection and conversion to IOB2) on any bytes. Properties of a
 * file it accepts: every tag is O, B-X or I-X, and every I-X continues a
 * span of type X (that is what IOB2 means); written with conll_write it
 * reads back the same, as IOB2 with nothing to convert. */
#include <stdint.h>
#include <string.h>

#include "data/conll.h"
#include "fuzz_dataset.h"
#include "fuzz_util.h"

/* Every tag of d is strict IOB2. */
static void check_iob2(const Dataset *d)
{
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *st = &d->sents[s];
        FUZZ_CHECK(st->n_words >= 1);
        for (int w = 0; w < st->n_words; w++) {
            const char *tag = st->tags[w];
            FUZZ_CHECK(strcmp(tag, "O") == 0 ||
                       ((tag[0] == 'B' || tag[0] == 'I') && tag[1] == '-' && tag[2]));
            if (tag[0] == 'I') {
                const char *prev = w > 0 ? st->tags[w - 1] : "O";
                FUZZ_CHECK((prev[0] == 'B' || prev[0] == 'I') && strcmp(prev + 2, tag + 2) == 0);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    fuzz_file(path, sizeof path, "in.conll", data, size);
    Dataset d;
    ConllScheme scheme;
    int changed;
    SrError err;
    if (conll_read_scheme(path, &d, &scheme, &changed, &err)) {
        FUZZ_CHECK(d.n_sents == 0 && d.sents == NULL);
        return 0;
    }
    FUZZ_CHECK(d.n_sents >= 1 && changed >= 0 && (scheme != CONLL_IOB2 || changed == 0));
    check_iob2(&d);
    fuzz_conll_round_trip(&d, "again.conll");
    dataset_free(&d);
    return 0;
}
