/* adapter_apply.c — read an adapter file and merge its LoRA adapters into a
 * loaded base model (see adapter_apply.h). */
#include "formats/adapter_apply.h"

#include "engine/lora_merge.h"
#include "engine/serving/model_inference.h"
#include "formats/adapter.h"
#include "formats/checkpoint.h"

int adapter_apply(const char *path, Model *m, LoraConfig *applied, SrError *err)
{
    AdapterFile a;
    if (adapter_read(path, m, &a, err)) return -1;
    if (!a.has_lora) {
        adapter_free(&a);
        return sr_fail(err, "%s: has no adapters; nothing to apply (finetune --adapter none saves "
                            "only a head)", path);
    }
    /* a view of the file's adapters in Lora.params layout: all lora_merge reads */
    Lora view = {.cfg = a.lora, .n_layers = a.n_layers, .d_model = a.d_model, .q_dim = a.q_dim,
                 .kv_dim = a.kv_dim, .n_params = a.n_lora, .params = a.lora_w};
    int rc = lora_merge(m, &view, err);
    if (rc == 0 && applied) *applied = a.lora;
    adapter_free(&a);
    return rc;
}

int adapter_load_model(const char *model_path, const char *adapter_path, Model *m, int max_batch,
                       int max_T, SrError *err)
{
    int rc = adapter_path ? checkpoint_load_trainable(model_path, m, max_batch, max_T, NULL, err)
                          : checkpoint_load(model_path, m, max_batch, max_T, NULL, err);
    if (rc || !adapter_path) return rc;
    SrError inner;
    if (adapter_apply(adapter_path, m, NULL, &inner) == 0) return 0;
    model_free(m);
    return sr_fail(err, "--adapter %s", inner.msg);
}

int adapter_load_inference(const char *model_path, const char *adapter_path, Model *weights,
                           Model *m, int max_batch, int max_T, SrError *err)
{
    if (adapter_load_model(model_path, adapter_path, weights, 1, 1, err)) return -1;
    if (model_create_inference(m, weights, max_batch, max_T, err) == 0) return 0;
    model_free(weights);
    return -1;
}
