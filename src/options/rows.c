/* rows.c — the shared option rows and their parsing (see rows.h). */
#include "options/rows.h"

ArgSpec option_threads(int *value)
{
    return (ArgSpec){"threads", ARG_INT, value, "threads, 0 = all cores (default 0)", 0, 0, 0};
}

ArgSpec option_seed(int *value, const char *help)
{
    return (ArgSpec){"seed", ARG_INT, value, help, 0, 0, 0};
}

ArgSpec option_recipe(const char **text, const char *help)
{
    return (ArgSpec){"recipe", ARG_STRING, text, help, 0, 0, 0};
}

ArgSpec option_adapter(const char **text, const char *help)
{
    return (ArgSpec){"adapter", ARG_STRING, text, help, 0, 0, 0};
}

ArgSpec option_lora_rank(int *value, const char *help)
{
    return (ArgSpec){"lora-rank", ARG_INT, value, help, 0, 1, 0};
}

ArgSpec option_lora_alpha(float *value, const char *help)
{
    return (ArgSpec){"lora-alpha", ARG_FLOAT, value, help, 0, 0, 0};
}

ArgSpec option_lora_dropout(float *value, const char *help)
{
    return (ArgSpec){"lora-dropout", ARG_FLOAT, value, help, 0, 0, 0};
}

ArgSpec option_lora_targets(const char **text, const char *help)
{
    return (ArgSpec){"lora-targets", ARG_STRING, text, help, 0, 0, 0};
}

ArgSpec option_grad_accum(int *value, const char *help)
{
    return (ArgSpec){"grad-accum", ARG_INT, value, help, 0, 1, 0};
}

ArgSpec option_quiet(int *value, const char *help)
{
    return (ArgSpec){"quiet", ARG_FLAG, value, help, 0, 0, 0};
}

ArgSpec option_bos(const char **text, const char *help)
{
    return (ArgSpec){"bos", ARG_STRING, text, help, 0, 0, 0};
}

ArgSpec option_sep(const char **text, const char *help)
{
    return (ArgSpec){"sep", ARG_STRING, text, help, 0, 0, 0};
}

ArgSpec option_mask(const char **text, const char *help)
{
    return (ArgSpec){"mask", ARG_STRING, text, help, 0, 0, 0};
}

ArgSpec option_copy_positions(const char **text)
{
    return (ArgSpec){"copy-positions", ARG_STRING, text,
                     "run | restart: positions run on across copies, or restart at 0 in each (default run)",
                     0, 0, 0};
}

ArgSpec option_adapter_file(const char **path, const char *help)
{
    return (ArgSpec){"adapter", ARG_STRING, path,
                     help ? help : "file of finetune --save: run --model with its LoRA adapters merged in "
                                   "(its head is not used)",
                     0, 0, 0};
}

int option_parse_copy_positions(const char *command, const char *text, RepeatPositions *out)
{
    if (repeat_parse_positions(text, out) == 0) return 0;
    return args_error(command, "--copy-positions must be run or restart, got '%s'", text);
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
