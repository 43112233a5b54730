/* methods.c — method -> (r, mask plan) (see methods.h). */
#include "label/methods.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "data/conll.h"

static const char *const NAMES[METHOD_COUNT] = {"causal", "sr", "unmask-full", "unmask-middle",
                                                "encoder"};

int method_parse(const char *text, Method *out)
{
    for (int i = 0; i < METHOD_COUNT; i++)
        if (strcmp(text, NAMES[i]) == 0) {
            *out = (Method)i;
            return 0;
        }
    return -1;
}

const char *method_name(Method method)
{
    return method >= 0 && method < METHOD_COUNT ? NAMES[method] : "unknown";
}

int method_default_r(Method method)
{
    return method == METHOD_SR ? 1 : 0;
}

int method_plan(Method method, int r, MaskKind *plan, int n_layers, SrError *err)
{
    if (method < 0 || method >= METHOD_COUNT) return sr_fail(err, "unknown method %d", method);
    if (method == METHOD_SR && r < 1)
        return sr_fail(err, "method sr needs r >= 1 (got r = %d; r = 0 is the causal method)", r);
    if (method != METHOD_SR && r != 0)
        return sr_fail(err, "method %s runs one copy (r = 0), got r = %d; use --method sr",
                       NAMES[method], r);
    for (int l = 0; l < n_layers; l++)
        plan[l] = (method == METHOD_UNMASK_FULL || method == METHOD_ENCODER) ? MASK_BIDIRECTIONAL
                                                                             : MASK_CAUSAL;
    if (method == METHOD_UNMASK_MIDDLE) mask_plan_middle(plan, n_layers);
    return 0;
}

/* ---- the task ------------------------------------------------------------- */

void checkpoint_objective(const CheckpointInfo *info, char *out, int n)
{
    cJSON *manifest = cJSON_Parse(info->manifest_json ? info->manifest_json : "{}");
    const cJSON *obj = cJSON_GetObjectItem(manifest, "objective");
    snprintf(out, (size_t)n, "%s", cJSON_IsString(obj) ? obj->valuestring : "causal-lm");
    cJSON_Delete(manifest);
}

void label_task_free(LabelTask *t)
{
    checkpoint_info_free(&t->info);
    tokenizer_free(&t->tok);
    dataset_free(&t->train);
    dataset_free(&t->dev);
    dataset_free(&t->test);
    labels_free(&t->labels);
    free(t->train_y);
    free(t->dev_y);
    free(t->test_y);
    pieced_data_free(&t->train_p);
    pieced_data_free(&t->dev_p);
    pieced_data_free(&t->test_p);
    memset(t, 0, sizeof *t);
}

/* Tag ids of every word of d into a new array *ids; unknown tags counted. */
static int encode_split(const LabelSet *ls, const Dataset *d, int **ids, long *unknown,
                        SrError *err)
{
    long n = dataset_n_words(d);
    *ids = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!*ids) return sr_fail(err, "%s: out of memory", d->source ? d->source : "data");
    return labels_encode(ls, d, *ids, unknown, err);
}

int label_task_load(LabelTask *t, const char *model_path, const char *train_path,
                    const char *dev_path, const char *test_path, SrError *err)
{
    memset(t, 0, sizeof *t);
    int rc = checkpoint_read_info(model_path, &t->info, err);
    if (rc == 0) rc = checkpoint_tokenizer(&t->info, model_path, &t->tok, err);
    if (rc == 0) checkpoint_objective(&t->info, t->objective, (int)sizeof t->objective);
    if (rc == 0) rc = conll_read(train_path, &t->train, err);
    if (rc == 0) rc = conll_read(dev_path, &t->dev, err);
    if (rc == 0) rc = conll_read(test_path, &t->test, err);
    if (rc == 0) rc = labels_build(&t->labels, &t->train, err);
    if (rc == 0) rc = encode_split(&t->labels, &t->train, &t->train_y, NULL, err);
    if (rc == 0) rc = encode_split(&t->labels, &t->dev, &t->dev_y, &t->dev_unknown, err);
    if (rc == 0) rc = encode_split(&t->labels, &t->test, &t->test_y, &t->test_unknown, err);
    if (rc == 0) rc = readout_prepare(&t->train_p, &t->train, &t->tok, err);
    if (rc == 0) rc = readout_prepare(&t->dev_p, &t->dev, &t->tok, err);
    if (rc == 0) rc = readout_prepare(&t->test_p, &t->test, &t->tok, err);
    if (rc) label_task_free(t);
    return rc;
}
