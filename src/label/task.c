/* task.c — loading a labelling task: checkpoint description, three CoNLL
 * splits, tag ids and pieces (see task.h). */
#include "label/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "data/conll.h"

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
