/* rows.c — the shared option rows and their parsing (see rows.h). */
#include "options/rows.h"

ArgSpec option_threads(int *value)
{
    return (ArgSpec){.name = "threads", .type = ARG_INT, .value = value,
                     .help = "threads, 0 = all cores (default 0)"};
}

ArgSpec option_seed(int *value, const char *help)
{
    return (ArgSpec){.name = "seed", .type = ARG_INT, .value = value, .help = help};
}

ArgSpec option_recipe(const char **text, const char *help)
{
    return (ArgSpec){.name = "recipe", .type = ARG_STRING, .value = text, .help = help};
}

ArgSpec option_adapter(const char **text, const char *help)
{
    return (ArgSpec){.name = "adapter", .type = ARG_STRING, .value = text, .help = help};
}

ArgSpec option_lora_rank(int *value, const char *help)
{
    return (ArgSpec){.name = "lora-rank", .type = ARG_INT, .value = value, .min_int = 1,
                     .help = help};
}

ArgSpec option_lora_alpha(float *value, const char *help)
{
    return (ArgSpec){.name = "lora-alpha", .type = ARG_FLOAT, .value = value, .help = help};
}

ArgSpec option_lora_dropout(float *value, const char *help)
{
    return (ArgSpec){.name = "lora-dropout", .type = ARG_FLOAT, .value = value, .help = help};
}

ArgSpec option_lora_targets(const char **text, const char *help)
{
    return (ArgSpec){.name = "lora-targets", .type = ARG_STRING, .value = text, .help = help};
}

ArgSpec option_grad_accum(int *value, const char *help)
{
    return (ArgSpec){.name = "grad-accum", .type = ARG_INT, .value = value, .min_int = 1,
                     .help = help};
}

ArgSpec option_quiet(int *value, const char *help)
{
    return (ArgSpec){.name = "quiet", .type = ARG_FLAG, .value = value, .help = help};
}

ArgSpec option_bos(const char **text, const char *help)
{
    return (ArgSpec){.name = "bos", .type = ARG_STRING, .value = text, .help = help};
}

ArgSpec option_sep(const char **text, const char *help)
{
    return (ArgSpec){.name = "sep", .type = ARG_STRING, .value = text, .help = help};
}

ArgSpec option_mask(const char **text, const char *help)
{
    return (ArgSpec){.name = "mask", .type = ARG_STRING, .value = text, .help = help};
}

ArgSpec option_copy_positions(const char **text)
{
    return (ArgSpec){.name = "copy-positions", .type = ARG_STRING, .value = text,
                     .help = "run | restart | induction: positions run on across copies, restart "
                             "at 0 in each, or put a later copy's piece i where the first copy's "
                             "piece i + 1 is (default run)"};
}

ArgSpec option_adapter_file(const char **path, const char *help)
{
    return (ArgSpec){.name = "adapter", .type = ARG_STRING, .value = path,
                     .help = help ? help
                                  : "file of finetune --save: run --model with its LoRA adapters "
                                    "merged in (its head is not used)"};
}

ArgSpec option_lr(float *value, const char *help)
{
    return (ArgSpec){.name = "lr", .type = ARG_FLOAT, .value = value, .help = help};
}

ArgSpec option_min_lr(float *value)
{
    return (ArgSpec){.name = "min-lr", .type = ARG_FLOAT, .value = value,
                     .help = "final learning rate (default lr/10)"};
}

ArgSpec option_warmup(int *value)
{
    return (ArgSpec){.name = "warmup", .type = ARG_INT, .value = value,
                     .help = "warm-up steps (default steps/20)"};
}

int option_settle_schedule(const char *command, float lr, int steps, float *min_lr, int *warmup)
{
    if (!(lr > 0.0f)) return args_error(command, "--lr must be positive");
    if (*min_lr < 0.0f) *min_lr = lr / 10.0f;
    if (*warmup < 0) *warmup = steps / 20;
    if (*warmup > steps) return args_error(command, "--warmup %d exceeds --steps %d", *warmup, steps);
    return 0;
}

int option_parse_copy_positions(const char *command, const char *text, RepeatPositions *out)
{
    if (repeat_parse_positions(text, out) == 0) return 0;
    return args_error(command, "--copy-positions must be run, restart or induction, got '%s'", text);
}

int option_parse_bos(const char *command, const char *text, RepeatBos *out)
{
    if (repeat_parse_bos(text, out) == 0) return 0;
    return args_error(command, "--bos must be none, once or per-copy, got '%s'", text);
}

int option_parse_sep(const char *command, const char *text, RepeatSep *out)
{
    if (repeat_parse_sep(text, out) == 0) return 0;
    return args_error(command, "--sep must be none or token, got '%s'", text);
}

int option_parse_mask(const char *command, const char *text, MaskKind *plan, int n_layers)
{
    if (mask_plan_parse(text, plan, n_layers) == 0) return 0;
    return args_error(command, "--mask must be causal, middle, full or layer indices 0..%d; got '%s'",
                      n_layers - 1, text);
}

int option_parse_r_list(const char *command, const char *text, int **values, int *n)
{
    SrError err;
    if (repeat_parse_r_list(text, values, n, &err) == 0) return 0;
    return args_error(command, "--r: %s", err.msg);
}
