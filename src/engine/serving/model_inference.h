/* model_inference.h — a forward-only model: the weights of another model,
 * borrowed, and the activations a reader of the forward needs. It keeps the
 * residual streams of every layer (model_hidden) and the RePo positions,
 * and one layer's working activations that every layer reuses: no
 * gradients, no backward, and model_attention holds only the last layer
 * run (ask for any layer's maps with model_layer_attention). At 2,048
 * tokens on a 30-layer, 9-head model that is 0.15 GB of attention instead
 * of 4.5 GB. What generate, probe and the views run. */
#ifndef SEQREP_MODEL_INFERENCE_H
#define SEQREP_MODEL_INFERENCE_H

#include "base/status.h"
#include "engine/model.h"

/* A forward-only model on the weights of `weights` (borrowed, read-only:
 * they must outlive m; LoRA adapters merged, weights->lora NULL) for batches
 * up to max_batch x max_T. Several may share one set of weights, each on its
 * own thread (each has its own scratch for weights kept as stored). 0, or -1
 * with err. */
int model_create_inference(Model *m, const Model *weights, int max_batch, int max_T, SrError *err);

#endif
