/* methods.h — the labelling methods compared in the paper, as plans.
 *
 * A method is nothing but a number of repetitions r and a mask plan; the model
 * is the same for all of them:
 *
 *   method          r            mask plan
 *   causal          0            causal in every layer (the decoder as it is)
 *   sr              r >= 1       causal in every layer (sequence repetition)
 *   unmask-full     0            bidirectional in every layer
 *   unmask-middle   0            mask_plan_middle: the middle layers bidirectional
 *   encoder         0            bidirectional in every layer, meant for a model
 *                                pre-trained with masked-LM (checkpoint objective "mlm")
 *
 * The task every method runs on (a checkpoint and three CoNLL splits) is in
 * task.h. */
#ifndef SEQREP_METHODS_H
#define SEQREP_METHODS_H

#include "base/status.h"
#include "engine/ops/mask.h"

typedef enum {
    METHOD_CAUSAL = 0,
    METHOD_SR = 1,
    METHOD_UNMASK_FULL = 2,
    METHOD_UNMASK_MIDDLE = 3,
    METHOD_ENCODER = 4,
    METHOD_COUNT = 5
} Method;

/* Parse "causal" | "sr" | "unmask-full" | "unmask-middle" | "encoder"; 0 or -1. */
int method_parse(const char *text, Method *out);

/* The name the parser accepts. */
const char *method_name(Method method);

/* r used when the caller gives none: 1 for sr, 0 otherwise. */
int method_default_r(Method method);

/* Check r for the method (sr: r >= 1; every other method: r == 0) and fill
 * plan[0..n_layers) with its mask plan. */
int method_plan(Method method, int r, MaskKind *plan, int n_layers, SrError *err);

#endif
