/* fuzz_train_state.c — train_state_read on any bytes, in two ways chosen by
 * the first byte:
 *   even: the rest of the input is the file;
 *   odd:  the rest is "STEP\nRNG\nLOSS\nSETTINGS" and the harness writes a
 *         state of those metadata strings (three tensors of (byte / 2) % 5
 *         floats) with the right checksum, so the scalars' parsing behind
 *         the checksum is reached too (the checksum is recomputed here the
 *         way train_state.c defines it: FNV-1a 64 over the tensors' bytes
 *         and each value with its NUL).
 * A state it accepts must apply to a model of its size. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "base/fnv1a.h"
#include "engine/model.h"
#include "formats/train_state.h"
#include "fuzz_util.h"

/* Write a state with the metadata values[0..4) (step, rng, loss, settings)
 * and n floats per tensor to path, checksum included. */
static void write_structured(const char *path, char *const values[4], size_t n)
{
    float zeros[8] = {0};
    uint64_t h = FNV1A_START;
    for (int t = 0; t < 3; t++) h = fnv1a(h, zeros, n * sizeof(float));
    for (int v = 0; v < 4; v++) h = fnv1a(h, values[v], strlen(values[v]) + 1);
    char sum[17];
    snprintf(sum, sizeof sum, "%016" PRIx64, h);
    const char *names[3] = {"params", "adamw.m1", "adamw.m2"};
    StTensor ts[3];
    for (int t = 0; t < 3; t++)
        ts[t] = (StTensor){.name = (char *)names[t], .dtype = ST_F32, .ndim = 1,
                           .shape = {(int64_t)n}, .data = zeros, .nbytes = n * sizeof(float)};
    StMeta meta[6] = {{"format", "seqrep-train-state"}, {"seqrep.step", values[0]},
                      {"seqrep.rng", values[1]},        {"seqrep.loss", values[2]},
                      {"seqrep.settings", values[3]},   {"seqrep.checksum", sum}};
    SrError err;
    FUZZ_OK(st_write(path, ts, 3, meta, 6, &err), err);
}

/* Apply st to a model whose parameter count is n_params: a tied model of
 * one layer, width 2 and d_ff 2 has 2 vocab_size + 34 floats, so any even
 * count from 36 up is one. Others are only read. */
static void apply(const TrainState *st)
{
    if (st->n_params < 36 || st->n_params % 2 || st->n_params > 4096) return;
    ModelConfig c = {.vocab_size = (int)(st->n_params - 34) / 2, .d_model = 2, .n_layers = 1,
                     .n_heads = 1, .d_ff = 2, .max_seq_len = 2, .rope_theta = 10000.0f,
                     .norm_eps = 1e-5f, .tied = 1};
    Model m;
    SrError err;
    FUZZ_OK(model_create(&m, &c, 1, 1, &err), err);
    FUZZ_CHECK(m.n_params == st->n_params);
    FUZZ_OK(train_state_apply(st, &m, &err), err);
    FUZZ_CHECK(memcmp(m.params, st->params, m.n_params * sizeof(float)) == 0);
    model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    char path[600];
    fuzz_path(path, sizeof path, "in.state.safetensors");
    if (data[0] % 2 == 0) {
        fuzz_write(path, data + 1, size - 1);
    } else {
        char *text = fuzz_string(data + 1, size - 1), *values[4] = {"", "", "", ""};
        char *p = text;
        for (int v = 0; v < 4 && p; v++) {
            values[v] = p;
            char *nl = v < 3 ? strchr(p, '\n') : NULL;
            if (nl) *nl = 0;
            p = nl ? nl + 1 : NULL;
        }
        write_structured(path, values, (size_t)(data[0] / 2) % 5);
        free(text);
    }
    TrainState st;
    SrError err;
    if (train_state_read(path, &st, &err) == 0) {
        FUZZ_CHECK(st.n_params >= 1 && st.params && st.m1 && st.m2 && st.settings_json);
        FUZZ_CHECK(st.step >= 0);
        apply(&st);
    }
    train_state_free(&st);
    return 0;
}
