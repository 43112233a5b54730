/* cmd_cost.c — `seqrep cost`: what labelling one sentence of n tokens costs
 * with k = r + 1 copies and an exit after L layers: analytic forward FLOPs
 * (cost.h), the speed-up of the early exit over full depth, the cost relative
 * to a single causal pass at full depth, and the measured time of the forward
 * on this machine (median of --repeats runs). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/common/cli_common.h"
#include "cli/label/label_commands.h"
#include "engine/ops/mask.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/cost.h"
#include "label/readout.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"

static const char *CMD = "cost";

/* The options of `seqrep cost`, as given and as parsed. */
typedef struct {
    const char *model, *r_text, *mask_text, *bos_text, *sep_text;
    int n, exit_layer, repeats, threads;
    RepeatBos bos;
    RepeatSep sep;
    int *r_values, n_r; /* the list of --r (owned) */
} CostOptions;

/* The checkpoint's description, the model (loaded only when timing), the
 * mask plan and the exit layer L. */
typedef struct {
    CheckpointInfo info;
    Model model;
    MaskKind *plan; /* (n_layers) */
    int L;
} CostRun;

/* Parse argv into o: 0, 1 after --help, 2 after the error line. */
static int parse_options(int argc, char **argv, CostOptions *o)
{
    *o = (CostOptions){.r_text = "0,1,2,4,8", .mask_text = "causal",
                       .sep_text = "none", .n = 20, .repeats = 20};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "checkpoint (.safetensors) or Hugging Face model folder: its configuration and "
                 "weights"},
        {.name = "n", .type = ARG_INT, .value = &o->n, .min_int = 1,
         .help = help_text(&h, "tokens in the sentence (default %d)", o->n)},
        {.name = "r", .type = ARG_STRING, .value = &o->r_text,
         .help = help_text(&h, "repetitions: list such as %s (default)", o->r_text)},
        {.name = "exit", .type = ARG_INT, .value = &o->exit_layer, .min_int = 1,
         .help = "exit layer L = 1..N (default N)"},
        option_mask(&o->mask_text, help_text(&h, "mask plan: causal | middle | full | layer list "
                                             "(default %s)", o->mask_text)),
        option_bos(&o->bos_text, "none | once | per-copy (default per-copy; none for a folder whose "
                                 "tokenizer adds no BOS)"),
        option_sep(&o->sep_text, help_text(&h, "none | token (default %s)", o->sep_text)),
        {.name = "repeats", .type = ARG_INT, .value = &o->repeats,
         .help = help_text(&h, "timed forward passes per row; 0 = no timing (default %d)",
                           o->repeats)},
        option_threads(&o->threads),
    };
    const char *usage = help_text(&h, "--model M [--n N] [--r %s] [--exit L] [--mask PLAN]",
                                  o->r_text);
    int rc = args_parse(CMD, usage, specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (o->bos_text && option_parse_bos(CMD, o->bos_text, &o->bos)) return 2;
    if (option_parse_sep(CMD, o->sep_text, &o->sep)) return 2;
    return option_parse_r_list(CMD, o->r_text, &o->r_values, &o->n_r);
}

/* Read the checkpoint's configuration, the bos mode (cli_default_bos), the
 * exit layer and the mask plan;
 * load the weights when the rows are timed, sized for the longest input that
 * fits. 0 or 2 after the error line. */
static int load(CostOptions *o, CostRun *run)
{
    SrError err;
    if (checkpoint_read_info(o->model, &run->info, &err)) return args_error(CMD, "%s", err.msg);
    if (cli_default_bos(CMD, &run->info, o->model, o->bos_text, o->sep, &o->bos)) return 2;
    const ModelConfig cfg = run->info.cfg;
    const int N = cfg.n_layers;
    if (o->exit_layer > N) return args_error(CMD, "--exit %d is outside 1..%d", o->exit_layer, N);
    run->L = o->exit_layer ? o->exit_layer : N;
    if (cli_mask_plan(CMD, o->mask_text, N, &run->plan)) return 2;
    int max_T = 1;
    for (int i = 0; i < o->n_r; i++) {
        int64_t T = repeat_length(o->n, o->r_values[i], o->bos, o->sep);
        if (T <= cfg.max_seq_len && T > max_T) max_T = (int)T;
    }
    if (o->repeats > 0 && checkpoint_load(o->model, &run->model, 1, max_T, NULL, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* Print the table: one row per r with FLOPs at full depth and at L, the
 * speed-up, the cost against one copy, and (when timed) the median times.
 * 0 or 2 after the error line. */
static int print_rows(const CostOptions *o, CostRun *run)
{
    const ModelConfig cfg = run->info.cfg;
    const int N = cfg.n_layers, L = run->L;
    SrError err;
    double base = cost_forward_flops(&cfg, (int)repeat_length(o->n, 0, o->bos, o->sep), N, run->plan);
    printf("seqrep cost: %s (C %d, F %d, N %d), n = %d tokens, mask %s, exit L = %d\n", o->model,
           cfg.d_model, cfg.d_ff, N, o->n, o->mask_text, L);
    if (model_q_dim(&cfg) == cfg.d_model && model_kv_dim(&cfg) == cfg.d_model)
        printf("FLOPs: matrix products only (projections 8C^2+6FC per token and layer, attention 4C per\n"
               "visible query-key pair: T(T+1)/2 causal, T^2 bidirectional); no LM head.\n\n");
    else /* grouped-query attention or a head size apart from C / H */
        printf("FLOPs: matrix products only (projections 2C(2Q+2K)+6FC per token and layer, Q = %d and\n"
               "K = %d the query and key/value widths; attention 4Q per visible query-key pair:\n"
               "T(T+1)/2 causal, T^2 bidirectional); no LM head.\n\n",
               model_q_dim(&cfg), model_kv_dim(&cfg));
    printf("%4s %4s %6s %14s %14s %9s %12s %12s %12s\n", "r", "k", "T", "MFLOPs(N)", "MFLOPs(L)",
           "speed-up", "L vs r=0,N", "ms(N)", "ms(L)");
    for (int i = 0; i < o->n_r; i++) {
        int64_t T64 = repeat_length(o->n, o->r_values[i], o->bos, o->sep);
        int T = T64 > 0x7fffffff ? 0x7fffffff : (int)T64;
        double full = cost_forward_flops(&cfg, T, N, run->plan);
        double cut = cost_forward_flops(&cfg, T, L, run->plan);
        printf("%4d %4d %6d %14.3f %14.3f %8.2fx %11.2fx", o->r_values[i], o->r_values[i] + 1, T,
               full / 1e6, cut / 1e6, full / cut, cut / base);
        if (o->repeats > 0 && T <= cfg.max_seq_len) {
            double t_full = cost_time_forward(&run->model, T, run->plan, N, o->repeats, &err);
            double t_cut = cost_time_forward(&run->model, T, run->plan, L, o->repeats, &err);
            if (t_full < 0 || t_cut < 0) {
                printf("\n");
                return args_error(CMD, "%s", err.msg);
            }
            printf(" %12.3f %12.3f\n", 1e3 * t_full, 1e3 * t_cut);
        } else {
            printf(" %12s %12s\n", "-", "-");
        }
    }
    printf("\nspeed-up = MFLOPs(N) / MFLOPs(L); L vs r=0,N = MFLOPs(L) / FLOPs of one copy at full depth\n");
    if (o->repeats > 0) printf("ms: median wall time of one forward (batch 1), %d threads; "
                               "'-' = longer than max_seq_len %d\n", threads_count(), cfg.max_seq_len);
    return 0;
}

/* `seqrep cost`: options, checkpoint, then the table. */
int cmd_cost(int argc, char **argv)
{
    CostOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    CostRun run = {0};
    rc = load(&o, &run);
    if (rc == 0) rc = print_rows(&o, &run);
    free(run.plan);
    free(o.r_values);
    model_free(&run.model);
    checkpoint_info_free(&run.info);
    return rc;
}
