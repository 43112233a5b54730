/* head_plan.c — parsing --ablate-heads into a head plan (see head_plan.h). */
#include "options/head_plan.h"

#include "engine/head_scale.h"

ArgSpec option_ablate_heads(const char **text)
{
    return (ArgSpec){.name = "ablate-heads", .type = ARG_STRING, .value = text,
                     .help = "L.H[,L.H...]: take head H of layer L away (its output zeroed before "
                             "o_proj, in the forward and the backward; default none)"};
}

int option_parse_ablate_heads(const char *command, const char *text, int n_layers, int n_heads,
                              float **plan)
{
    SrError err;
    if (head_plan_parse(text, n_layers, n_heads, plan, &err) == 0) return 0;
    return args_error(command, "--ablate-heads: %s", err.msg);
}

const char *head_plan_name(const char *text)
{
    return text ? text : "none";
}
