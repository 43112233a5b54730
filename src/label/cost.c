/* cost.c — analytic FLOPs and measured forward time (see cost.h). */
#include "label/cost.h"

#include <stdlib.h>

#include "base/job/progress.h"
#include "text/words.h"

double cost_attention_pairs(MaskKind kind, int window, int T)
{
    double t = (double)T;
    if (window <= 0) return kind == MASK_BIDIRECTIONAL ? t * t : t * (t + 1.0) / 2.0;
    double pairs = 0.0; /* a window: the mask's own rule, row by row */
    for (int q = 0; q < T; q++) {
        int start, end;
        mask_key_range(kind, window, q, T, &start, &end);
        pairs += end - start;
    }
    return pairs;
}

double cost_projection_flops_per_token(const ModelConfig *cfg)
{
    double C = cfg->d_model, F = cfg->d_ff, Q = model_q_dim(cfg), K = model_kv_dim(cfg);
    return 2.0 * C * (Q + 2.0 * K) + 2.0 * Q * C + 2.0 * 2.0 * F * C + 2.0 * F * C;
}

double cost_forward_flops(const ModelConfig *cfg, int T, int n_layers, const MaskKind *plan)
{
    double per_token = cost_projection_flops_per_token(cfg), total = 0.0;
    for (int l = 0; l < n_layers; l++) {
        MaskKind kind = plan ? plan[l] : MASK_CAUSAL;
        int window = model_layer_window(cfg, l);
        total += (double)T * per_token + 4.0 * model_q_dim(cfg) * cost_attention_pairs(kind, window, T);
    }
    return total;
}

double cost_sentence_flops(const ModelConfig *cfg, int n, ReadoutLayout lay, int n_layers,
                           const MaskKind *plan)
{
    int64_t T = repeat_length(n, lay.r, lay.bos, lay.sep);
    if (T < 1) return 0.0;
    return cost_forward_flops(cfg, (int)T, n_layers, plan);
}

double cost_data_flops(const ModelConfig *cfg, const PiecedData *pd, ReadoutLayout lay,
                       int n_layers, const MaskKind *plan)
{
    double total = 0.0;
    for (int s = 0; s < pd->n_sents; s++)
        total += cost_sentence_flops(cfg, pd->sents[s].n_pieces, lay, n_layers, plan);
    return total;
}

/* qsort order of doubles, ascending. */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cost_time_forward(Model *m, int T, const MaskKind *plan, int n_run, int repeats,
                         SrError *err)
{
    if (repeats < 1) repeats = 1;
    int *ids = malloc(sizeof(int) * (size_t)T);
    double *times = malloc(sizeof(double) * (size_t)repeats);
    if (!ids || !times) {
        free(ids);
        free(times);
        sr_fail(err, "out of memory");
        return -1.0;
    }
    for (int t = 0; t < T; t++) ids[t] = TOK_UNK;
    ModelInput in = {0};
    in.B = 1;
    in.T = T;
    in.ids = ids;
    in.mask = plan;
    in.n_run = n_run;
    double result = -1.0;
    if (model_forward(m, &in, err) == 0) { /* warm-up */
        int ok = 1;
        for (int i = 0; i < repeats && ok; i++) {
            double start = progress_now();
            ok = model_forward(m, &in, err) == 0;
            times[i] = progress_now() - start;
        }
        if (ok) {
            qsort(times, (size_t)repeats, sizeof *times, compare_doubles);
            result = times[repeats / 2];
        }
    }
    free(ids);
    free(times);
    return result;
}
