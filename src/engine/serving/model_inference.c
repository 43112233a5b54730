/* model_inference.c — a forward-only model on another's weights (model_inference.h). */
#include "engine/serving/model_inference.h"

#include <string.h>

#include "engine/serving/model_stored.h"

int model_create_inference(Model *m, const Model *weights, int max_batch, int max_T, SrError *err)
{
    ModelBuild how = {.max_batch = max_batch, .max_T = max_T, .forward_only = 1, .borrow = weights};
    StoredMatrices *stored = model_stored_matrices(weights);
    if (stored && !weights->lora) { /* a scratch of its own for the stored products */
        how.matrices = stored_source_new(stored, 0, &weights->cfg);
        if (!how.matrices) {
            memset(m, 0, sizeof *m);
            return sr_fail(err, "out of memory allocating an inference model for batch %d x "
                           "length %d", max_batch, max_T);
        }
    }
    return model_build(m, &weights->cfg, &how, err);
}
