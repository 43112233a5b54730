/* repeated_forward.c — every sentence of a list repeated and run through the
 * model, one forward each (see repeated_forward.h). */
#include "theory/repeated_forward.h"

void repeated_forward_fit(const PieceSentences *s, const RepeatedForward *run, int max_seq_len,
                          RepeatedFit *fit)
{
    *fit = (RepeatedFit){.max_n = repeat_max_n(max_seq_len, run->r, run->bos, run->sep),
                         .first_too_long = -1};
    for (int i = 0; i < s->n; i++) {
        int n = s->items[i].n;
        if (n < 1) {
            fit->n_empty++;
        } else if (n > fit->max_n) {
            if (fit->n_too_long++ == 0) fit->first_too_long = i;
        } else {
            int T = (int)repeat_length(n, run->r, run->bos, run->sep);
            if (T > fit->max_T) fit->max_T = T;
            fit->n_fit++;
        }
    }
}

/* Lay out one sentence, run the forward and call the consumer. 0 or -1. */
static int run_one(Model *m, const RepeatedForward *run, const PieceSentence *one,
                   const char *source, RepeatedConsumer consume, void *ctx, SrError *err)
{
    RepeatLayout lay;
    SrError inner;
    if (repeat_build_ids(one->ids, one->n, run->r, run->bos, run->sep, run->ids, m->max_T, &lay,
                         &inner))
        return sr_fail(err, "%s:%d: %s", source, one->line, inner.msg);
    repeat_apply_positions(&lay, run->copy_positions);
    ModelInput in = {.B = 1, .T = lay.T, .ids = lay.ids, .positions = lay.positions,
                     .mask = run->plan, .head_scale = run->head_scale,
                     .want_logits = run->want_logits};
    int rc = model_forward(m, &in, &inner);
    if (rc) sr_fail(err, "%s:%d: %s", source, one->line, inner.msg);
    else rc = consume(ctx, m, &lay, one, err);
    repeat_free(&lay);
    return rc;
}

int repeated_forward_all(Model *m, const RepeatedForward *run, const PieceSentences *s, int max_n,
                         const char *source, RepeatedConsumer consume, void *ctx, SrError *err)
{
    for (int i = 0; i < s->n; i++) {
        const PieceSentence *one = &s->items[i];
        if (one->n < 1 || one->n > max_n) continue;
        if (run_one(m, run, one, source, consume, ctx, err)) return -1;
    }
    return 0;
}
