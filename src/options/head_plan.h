/* head_plan.h — --ablate-heads L.H[,L.H...]: attention heads taken away.
 *
 * Each item names one head: layer L (0 .. n_layers-1) and head H
 * (0 .. n_heads-1) of that layer, "2.1" for head 1 of layer 2; "none" names
 * no head. The plan is the model's head plan (engine/input.h,
 * ModelInput.head_scale): (n_layers, n_heads) weights, 1 for every head and
 * 0 for the heads named, so that head's output is zeroed before o_proj in
 * the forward and in the backward (nothing trains through it). */
#ifndef SEQREP_HEAD_PLAN_H
#define SEQREP_HEAD_PLAN_H

#include "options/args.h"

/* --ablate-heads TEXT (default none) of the commands that run a model. */
ArgSpec option_ablate_heads(const char **text);

/* The plan of a command's --ablate-heads (head_plan_parse, engine/head_scale.h:
 * NULL for none): 0, or 2 after the error line "seqrep CMD: --ablate-heads:
 * ...". */
int option_parse_ablate_heads(const char *command, const char *text, int n_layers, int n_heads,
                              float **plan);

/* What a manifest records: the text as given, or "none". */
const char *head_plan_name(const char *text);

#endif
