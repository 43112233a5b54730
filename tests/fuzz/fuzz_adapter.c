/* fuzz_adapter.c — adapter_read (head and LoRA adapters: metadata, labels,
 * tensor names and shapes) on any bytes, checked against the fixed base
 * model of fuzz_model.h (the seeds carry its checksum). An adapter it accepts
 * must write and read back the same. */
#include <stdint.h>
#include <string.h>

#include "formats/adapter.h"
#include "fuzz_model.h"
#include "fuzz_util.h"

static Model base;

/* The base model, made once. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    SrError err;
    FUZZ_OK(fuzz_model_create(&base, &FUZZ_BASE_CONFIG, &err), err);
    return 0;
}

/* adapter_write(a) read back gives a again. */
static void round_trip(const AdapterFile *a)
{
    char path[600];
    fuzz_path(path, sizeof path, "again.safetensors");
    SrError err;
    FUZZ_OK(adapter_write(path, a, &err), err);
    AdapterFile b;
    FUZZ_OK(adapter_read(path, &base, &b, &err), err);
    FUZZ_CHECK(b.has_lora == a->has_lora && b.n_labels == a->n_labels && b.n_lora == a->n_lora);
    FUZZ_CHECK(b.exit_layer == a->exit_layer && b.r == a->r && strcmp(b.method, a->method) == 0);
    FUZZ_CHECK(!a->has_lora || (b.lora.rank == a->lora.rank && b.lora.alpha == a->lora.alpha &&
                                b.lora.dropout == a->lora.dropout &&
                                b.lora.targets == a->lora.targets));
    for (int i = 0; i < a->n_labels; i++) FUZZ_CHECK(strcmp(a->labels[i], b.labels[i]) == 0);
    size_t K = (size_t)a->n_labels, C = (size_t)a->d_model;
    FUZZ_CHECK(memcmp(a->head_W, b.head_W, sizeof(float) * K * C) == 0);
    FUZZ_CHECK(memcmp(a->head_b, b.head_b, sizeof(float) * K) == 0);
    FUZZ_CHECK(a->n_lora == 0 || memcmp(a->lora_w, b.lora_w, sizeof(float) * a->n_lora) == 0);
    adapter_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    fuzz_file(path, sizeof path, "in.safetensors", data, size);
    AdapterFile a;
    SrError err;
    if (adapter_read(path, &base, &a, &err) == 0) {
        FUZZ_CHECK(a.n_labels >= 1 && a.head_W && a.head_b);
        round_trip(&a);
        adapter_free(&a);
    } else {
        FUZZ_CHECK(a.labels == NULL && a.head_W == NULL && a.lora_w == NULL);
    }
    return 0;
}
