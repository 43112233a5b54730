/* fuzz_predictions.c — predictions_read (a `finetune --predictions` CoNLL
 * file of "word gold predicted" lines, read back as span counts) on any
 * bytes. Properties of a file it accepts: at least one sentence; per
 * sentence tp <= predicted and tp <= gold spans, and none more than words. */
#include <stdint.h>

#include "fuzz_util.h"
#include "label/predictions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    fuzz_file(path, sizeof path, "in.predictions.conll", data, size);
    PredictionCounts p;
    SrError err;
    if (predictions_read(path, &p, &err) == 0) {
        FUZZ_CHECK(p.n_sents >= 1 && p.n_words >= p.n_sents);
        long spans = 0;
        for (int s = 0; s < p.n_sents; s++) {
            const SpanCounts *c = &p.counts[s];
            FUZZ_CHECK(c->tp >= 0 && c->tp <= c->n_pred && c->tp <= c->n_gold);
            spans += c->n_pred > c->n_gold ? c->n_pred : c->n_gold;
        }
        FUZZ_CHECK(spans <= p.n_words);
        SpanCounts total = {0};
        for (int s = 0; s < p.n_sents; s++) {
            total.tp += p.counts[s].tp;
            total.n_pred += p.counts[s].n_pred;
            total.n_gold += p.counts[s].n_gold;
        }
        SpanScores sc = span_scores(total);
        FUZZ_CHECK(sc.f1 >= 0 && sc.f1 <= 100.0 + 1e-9);
    } else {
        FUZZ_CHECK(p.counts == NULL && p.n_sents == 0);
    }
    predictions_free(&p);
    return 0;
}
