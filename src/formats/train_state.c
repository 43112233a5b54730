/* train_state.c — the training state file: weights, AdamW moments, step,
 * random-number state and settings, with a checksum over all of them. */
#include "base/fnv1a.h"
#include "formats/train_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/adamw.h"
#include "formats/finite.h"

static const char *const FORMAT = "seqrep-train-state";
static const char *const TENSOR_NAMES[3] = {"params", "adamw.m1", "adamw.m2"};

/* The checksum of the three tensors (n floats each) and the metadata values
 * step, rng, loss and settings, as 16 hex digits into hex[17]. */
static void state_checksum(const float *const tensors[3], size_t n, const char *const values[4],
                           char hex[17])
{
    uint64_t h = FNV1A_START;
    for (int t = 0; t < 3; t++) h = fnv1a(h, tensors[t], n * sizeof(float));
    for (int v = 0; v < 4; v++) h = fnv1a(h, values[v], strlen(values[v]) + 1);
    snprintf(hex, 17, "%016" PRIx64, h);
}

int train_state_save(const char *path, const Model *m, int step, const Rng *rng, float loss,
                     const char *settings_json, SrError *err)
{
    if (!m->m1 || !m->m2) return sr_fail(err, "%s: the model has no AdamW moments to save", path);
    char step_text[24], rng_text[4 * 17 + 4], loss_text[48], checksum[17];
    snprintf(step_text, sizeof step_text, "%d", step);
    snprintf(rng_text, sizeof rng_text, "%016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64,
             rng->s[0], rng->s[1], rng->s[2], rng->s[3]);
    snprintf(loss_text, sizeof loss_text, "%a", (double)loss);
    const float *data[3] = {m->params, m->m1, m->m2};
    const char *values[4] = {step_text, rng_text, loss_text, settings_json};
    state_checksum(data, m->n_params, values, checksum);
    StTensor tensors[3];
    for (int t = 0; t < 3; t++)
        tensors[t] = (StTensor){.name = (char *)TENSOR_NAMES[t], .dtype = ST_F32, .ndim = 1,
                                .shape = {(int64_t)m->n_params}, .data = (void *)data[t],
                                .nbytes = m->n_params * sizeof(float)};
    StMeta meta[] = {{"format", (char *)FORMAT},         {"seqrep.step", step_text},
                     {"seqrep.rng", rng_text},           {"seqrep.loss", loss_text},
                     {"seqrep.settings", (char *)settings_json}, {"seqrep.checksum", checksum}};
    return st_write(path, tensors, 3, meta, (int)(sizeof meta / sizeof meta[0]), err);
}

/* The scalars of st from the file's metadata values step, rng and loss.
 * 0, or -1 when one is malformed. */
static int parse_scalars(const char *path, const char *step, const char *rng, const char *loss,
                         TrainState *st, SrError *err)
{
    char *end;
    long n = strtol(step, &end, 10);
    if (*step == 0 || *end || n < 0 || n > 2000000000L)
        return sr_fail(err, "%s: damaged training state (step '%s')", path, step);
    st->step = (int)n;
    if (sscanf(rng, "%16" SCNx64 " %16" SCNx64 " %16" SCNx64 " %16" SCNx64, &st->rng.s[0],
               &st->rng.s[1], &st->rng.s[2], &st->rng.s[3]) != 4 ||
        (st->rng.s[0] | st->rng.s[1] | st->rng.s[2] | st->rng.s[3]) == 0)
        return sr_fail(err, "%s: damaged training state (random-number state)", path);
    st->loss = strtof(loss, &end);
    if (*loss == 0 || *end) return sr_fail(err, "%s: damaged training state (loss '%s')", path, loss);
    return 0;
}

/* Point st's tensors into its file: three F32 vectors of one length. 0 or -1. */
static int find_tensors(const char *path, TrainState *st, SrError *err)
{
    const float **slots[3] = {&st->params, &st->m1, &st->m2};
    for (int t = 0; t < 3; t++) {
        const StTensor *x = st_find(&st->file, TENSOR_NAMES[t]);
        if (!x || x->dtype != ST_F32 || x->ndim != 1 || x->shape[0] < 1 ||
            (t > 0 && (size_t)x->shape[0] != st->n_params))
            return sr_fail(err, "%s: not a seqrep training state (tensor %s missing or misshapen)",
                           path, TENSOR_NAMES[t]);
        st->n_params = (size_t)x->shape[0];
        *slots[t] = x->data;
    }
    return 0;
}

/* train_state_read once the file is in st->file. */
static int read_contents(const char *path, TrainState *st, SrError *err)
{
    const char *format = st_meta(&st->file, "format");
    if (!format || strcmp(format, FORMAT) != 0)
        return sr_fail(err, "%s: not a seqrep training state (format is not %s)", path, FORMAT);
    const char *values[4] = {st_meta(&st->file, "seqrep.step"), st_meta(&st->file, "seqrep.rng"),
                             st_meta(&st->file, "seqrep.loss"),
                             st_meta(&st->file, "seqrep.settings")};
    const char *checksum = st_meta(&st->file, "seqrep.checksum");
    if (!values[0] || !values[1] || !values[2] || !values[3] || !checksum)
        return sr_fail(err, "%s: damaged training state (metadata missing)", path);
    if (find_tensors(path, st, err)) return -1;
    char want[17];
    const float *data[3] = {st->params, st->m1, st->m2};
    state_checksum(data, st->n_params, values, want);
    if (strcmp(want, checksum) != 0)
        return sr_fail(err, "%s: damaged training state (checksum %s, contents give %s)", path,
                       checksum, want);
    if (parse_scalars(path, values[0], values[1], values[2], st, err)) return -1;
    st->settings_json = strdup(values[3]);
    if (!st->settings_json) return sr_fail(err, "%s: out of memory", path);
    return 0;
}

int train_state_read(const char *path, TrainState *st, SrError *err)
{
    *st = (TrainState){0};
    if (st_read(path, &st->file, err)) return -1;
    if (read_contents(path, st, err) == 0) return 0;
    train_state_free(st);
    return -1;
}

int train_state_apply(const TrainState *st, Model *m, SrError *err)
{
    if (st->n_params != m->n_params)
        return sr_fail(err, "training state holds %zu parameters, the model %zu", st->n_params,
                       m->n_params);
    if ((!m->m1 || !m->m2) && adamw_create(m, err)) return -1;
    memcpy(m->params, st->params, m->n_params * sizeof(float));
    memcpy(m->m1, st->m1, m->n_params * sizeof(float));
    memcpy(m->m2, st->m2, m->n_params * sizeof(float));
    const float *copied[3] = {m->params, m->m1, m->m2};
    const char *names[3] = {"params", "adamw.m1", "adamw.m2"};
    for (int i = 0; i < 3; i++)
        if (finite_check_tensor(copied[i], m->n_params, NULL, names[i], err)) return -1;
    return 0;
}

void train_state_free(TrainState *st)
{
    free(st->settings_json);
    st_free(&st->file);
    *st = (TrainState){0};
}
