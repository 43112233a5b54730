/* model_stored.h — a model whose big matrices stay as a Hugging Face folder
 * stores them (BF16 or F16, memory-mapped; ops_stored.h): its parameters
 * hold only the norms and biases, and its MatrixSource (engine/model.h)
 * computes every product on the stored matrices, a block of rows widened at
 * a time, so a 7B model's weights take the 14 GB they take on disk. Such a
 * model reads its weights only: inference, or LoRA on a frozen base. */
#ifndef SEQREP_MODEL_STORED_H
#define SEQREP_MODEL_STORED_H

#include <stdint.h>

#include "base/status.h"
#include "engine/model.h"
#include "engine/serving/ops_stored.h"

/* A model of cfg for batches up to max_batch x max_T on the stored
 * matrices `stored`, which m takes over (model_free releases them, and so
 * does a failure here). model_param_count still counts every parameter;
 * the base is frozen for good. 0, or -1 with err. */
int model_create_stored(Model *m, const ModelConfig *cfg, StoredMatrices *stored, int max_batch,
                        int max_T, SrError *err);

/* A matrix source on `stored` for a model of cfg, with a scratch of its own
 * for the threads it will use; with owns 1 its release also releases
 * stored. NULL when out of memory (stored is then left as it was). */
MatrixSource *stored_source_new(StoredMatrices *stored, int owns, const ModelConfig *cfg);

/* h extended by FNV-1a 64 of the big matrix id (a ParamSpec.matrix) of
 * stored as float32, layer by layer in the order the float32 views lay it
 * out (q, k, v; gate, up); a tied LM head adds nothing. */
uint64_t stored_param_fnv1a(const StoredMatrices *stored, ParamId id, int tied, uint64_t h);

/* The stored matrices m reads its weights from, or NULL when its weights
 * are float32 in its parameters. */
StoredMatrices *model_stored_matrices(const Model *m);

#endif
