/* head_roles.c — head scores and the in-context learning loss over a list of
 * repeated sentences (see head_roles.h). */
#include "theory/head_roles.h"

#include <stdlib.h>
#include <string.h>

/* The copy index of IclCopy c in a layout of k copies. */
static int copy_of(const RepeatLayout *lay, IclCopy c)
{
    return c == ICL_FIRST_COPY ? 0 : lay->k - 1;
}

void icl_targets(const RepeatLayout *lay, int *targets)
{
    for (int t = 0; t < lay->T; t++) targets[t] = -1;
    for (int c = ICL_FIRST_COPY; c <= ICL_LAST_COPY; c++) {
        int start = lay->copy_start[copy_of(lay, (IclCopy)c)];
        for (int j = 1; j < lay->n; j++) targets[start + j - 1] = lay->ids[start + j];
    }
}

void icl_add(IclLoss *icl, const RepeatLayout *lay, const float *losses)
{
    for (int c = ICL_FIRST_COPY; c <= ICL_LAST_COPY; c++) {
        int start = lay->copy_start[copy_of(lay, (IclCopy)c)];
        for (int j = 1; j < lay->n; j++) icl->sum[c] += losses[start + j - 1];
        icl->count[c] += lay->n - 1;
    }
}

double icl_mean(const IclLoss *icl, IclCopy c)
{
    return icl->count[c] ? icl->sum[c] / (double)icl->count[c] : 0.0;
}

int head_roles_init(HeadRoles *roles, int n_layers, int n_heads, int with_icl, SrError *err)
{
    memset(roles, 0, sizeof *roles);
    roles->with_icl = with_icl;
    if (head_scores_init(&roles->scores, n_layers, n_heads, err)) return -1;
    if (head_scores_chance_init(&roles->chance, n_layers, err)) {
        head_scores_free(&roles->scores);
        return -1;
    }
    return 0;
}

void head_roles_free(HeadRoles *roles)
{
    head_scores_free(&roles->scores);
    head_scores_free(&roles->chance);
    memset(roles, 0, sizeof *roles);
}

/* A uniform head of one layer into the chance levels (a ChanceAdd; ctx is
 * the HeadRoles). */
static void add_chance(void *ctx, int layer, const float *att, int stride, const RepeatLayout *lay)
{
    HeadRoles *roles = ctx;
    head_scores_add_layer(&roles->chance, layer, att, stride, lay);
}

/* After one forward (a RepeatedConsumer): every layer's attention into the
 * scores and a uniform head's into the chance levels; with the ICL loss,
 * the losses of the two copies. */
static int add_forward(void *ctx, Model *m, const RepeatLayout *lay, const PieceSentence *one,
                       SrError *err)
{
    (void)one;
    HeadRoles *roles = ctx;
    for (int l = 0; l < roles->scores.n_layers; l++)
        head_scores_add_layer(&roles->scores, l, model_attention(m, l), lay->T, lay);
    if (chance_add_layers(&m->cfg, roles->plan, lay, add_chance, roles, err)) return -1;
    if (!roles->with_icl) return 0;
    int *targets = malloc(sizeof(int) * (size_t)lay->T);
    if (!targets) return sr_fail(err, "out of memory");
    icl_targets(lay, targets);
    model_lm_loss(m, targets, -1);
    icl_add(&roles->icl, lay, model_position_losses(m));
    free(targets);
    return 0;
}

int head_roles_measure(Model *m, const RepeatedForward *run, const PieceSentences *s, int max_n,
                       const char *source, HeadRoles *roles, SrError *err)
{
    RepeatedForward setup = *run;
    setup.want_logits = roles->with_icl;
    roles->plan = run->plan;
    return repeated_forward_all(m, &setup, s, max_n, source, add_forward, roles, err);
}
