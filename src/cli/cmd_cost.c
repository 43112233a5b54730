/* cmd_cost.c — `seqrep cost`: what labelling one sentence of n tokens costs
 * with k = r + 1 copies and an exit after L layers: analytic forward FLOPs
 * (cost.h), the speed-up of the early exit over full depth, the cost relative
 * to a single causal pass at full depth, and the measured time of the forward
 * on this machine (median of --repeats runs). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "engine/mask.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "label/cost.h"
#include "label/readout.h"
#include "options/args.h"
#include "repeat/repeat.h"

static const char *CMD = "cost";

int cmd_cost(int argc, char **argv)
{
    const char *model_path = NULL, *r_text = "0,1,2,4,8", *mask_text = "causal";
    const char *bos_text = "per-copy", *sep_text = "none";
    int n = 20, exit_layer = 0, repeats = 20, n_threads = 0;
    ArgSpec specs[] = {
        {"model", ARG_STRING, &model_path, "checkpoint (.safetensors): its configuration and weights", 1, 0, 0},
        {"n", ARG_INT, &n, "tokens in the sentence (default 20)", 0, 1, 0},
        {"r", ARG_STRING, &r_text, "repetitions: list such as 0,1,2,4,8 (default)", 0, 0, 0},
        {"exit", ARG_INT, &exit_layer, "exit layer L = 1..N (default N)", 0, 1, 0},
        {"mask", ARG_STRING, &mask_text, "mask plan: causal | middle | full | layer list (default causal)", 0, 0, 0},
        {"bos", ARG_STRING, &bos_text, "none | once | per-copy (default per-copy)", 0, 0, 0},
        {"sep", ARG_STRING, &sep_text, "none | token (default none)", 0, 0, 0},
        {"repeats", ARG_INT, &repeats, "timed forward passes per row; 0 = no timing (default 20)", 0, 0, 0},
        {"threads", ARG_INT, &n_threads, "threads, 0 = all cores (default 0)", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--model M [--n N] [--r 0,1,2,4,8] [--exit L] [--mask PLAN]", specs,
                        (int)(sizeof specs / sizeof specs[0]), argc, argv, NULL, 0, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    RepeatBos bos;
    RepeatSep sep;
    if (repeat_parse_bos(bos_text, &bos))
        return args_error(CMD, "--bos must be none, once or per-copy, got '%s'", bos_text);
    if (repeat_parse_sep(sep_text, &sep))
        return args_error(CMD, "--sep must be none or token, got '%s'", sep_text);
    SrError err;
    int *r_values = NULL, n_r = 0;
    if (repeat_parse_r_list(r_text, &r_values, &n_r, &err)) return args_error(CMD, "--r: %s", err.msg);
    threads_set(n_threads);

    CheckpointInfo info = {0};
    Model m = {0};
    MaskKind *plan = NULL;
    rc = 2;
    if (checkpoint_read_info(model_path, &info, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    const ModelConfig cfg = info.cfg;
    const int N = cfg.n_layers;
    if (exit_layer > N) {
        args_error(CMD, "--exit %d is outside 1..%d", exit_layer, N);
        goto done;
    }
    int L = exit_layer ? exit_layer : N;
    plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!plan) {
        args_error(CMD, "out of memory");
        goto done;
    }
    if (mask_plan_parse(mask_text, plan, N)) {
        args_error(CMD, "--mask must be causal, middle, full or layer indices 0..%d; got '%s'",
                   N - 1, mask_text);
        goto done;
    }
    int max_T = 1;
    for (int i = 0; i < n_r; i++) {
        int64_t T = repeat_length(n, r_values[i], bos, sep);
        if (T <= cfg.max_seq_len && T > max_T) max_T = (int)T;
    }
    if (repeats > 0 && checkpoint_load(model_path, &m, 1, max_T, NULL, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    double base = cost_forward_flops(&cfg, (int)repeat_length(n, 0, bos, sep), N, plan);
    printf("seqrep cost: %s (C %d, F %d, N %d), n = %d tokens, mask %s, exit L = %d\n", model_path,
           cfg.d_model, cfg.d_ff, N, n, mask_text, L);
    printf("FLOPs: matrix products only (projections 8C^2+6FC per token and layer, attention 4C per\n"
           "visible query-key pair: T(T+1)/2 causal, T^2 bidirectional); no LM head.\n\n");
    printf("%4s %4s %6s %14s %14s %9s %12s %12s %12s\n", "r", "k", "T", "MFLOPs(N)", "MFLOPs(L)",
           "speed-up", "L vs r=0,N", "ms(N)", "ms(L)");
    for (int i = 0; i < n_r; i++) {
        int64_t T64 = repeat_length(n, r_values[i], bos, sep);
        int T = T64 > 0x7fffffff ? 0x7fffffff : (int)T64;
        double full = cost_forward_flops(&cfg, T, N, plan), cut = cost_forward_flops(&cfg, T, L, plan);
        printf("%4d %4d %6d %14.3f %14.3f %8.2fx %11.2fx", r_values[i], r_values[i] + 1, T,
               full / 1e6, cut / 1e6, full / cut, cut / base);
        if (repeats > 0 && T <= cfg.max_seq_len) {
            double t_full = cost_time_forward(&m, T, plan, N, repeats, &err);
            double t_cut = cost_time_forward(&m, T, plan, L, repeats, &err);
            if (t_full < 0 || t_cut < 0) {
                printf("\n");
                args_error(CMD, "%s", err.msg);
                goto done;
            }
            printf(" %12.3f %12.3f\n", 1e3 * t_full, 1e3 * t_cut);
        } else {
            printf(" %12s %12s\n", "-", "-");
        }
    }
    printf("\nspeed-up = MFLOPs(N) / MFLOPs(L); L vs r=0,N = MFLOPs(L) / FLOPs of one copy at full depth\n");
    if (repeats > 0) printf("ms: median wall time of one forward (batch 1), %d threads; "
                            "'-' = longer than max_seq_len %d\n", threads_count(), cfg.max_seq_len);
    rc = 0;
done:
    free(plan);
    free(r_values);
    model_free(&m);
    checkpoint_info_free(&info);
    return rc;
}
