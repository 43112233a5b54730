/* sweep_models.c — the layer counts of a sweep's models and whether its
 * runs fit them (see sweep_models.h). */
#include "runs/sweep/sweep_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/checkpoint.h"
#include "label/readout.h"
#include "label/task.h"

int sweep_count_layers(const char *model, void *ctx, int *n_layers, SrError *err)
{
    SweepLayerCache *cache = ctx;
    for (int i = 0; i < cache->n; i++)
        if (strcmp(cache->model[i], model) == 0) {
            *n_layers = cache->n_layers[i];
            return 0;
        }
    CheckpointInfo info = {0};
    if (checkpoint_read_info(model, &info, err)) return -1;
    *n_layers = info.cfg.n_layers;
    checkpoint_info_free(&info);
    if (cache->n < 64 && strlen(model) < sizeof cache->model[0]) {
        strcpy(cache->model[cache->n], model);
        cache->n_layers[cache->n++] = *n_layers;
    }
    return 0;
}

int sweep_check_fits(const SweepRun *runs, const int *todo, int n_todo, SrError *err)
{
    char *checked = calloc((size_t)n_todo + 1, 1);
    if (!checked) return sr_fail(err, "out of memory");
    int rc = 0;
    for (int i = 0; i < n_todo && rc == 0; i++) {
        if (checked[i]) continue;
        const SweepRun *a = &runs[todo[i]];
        LabelTask task = {0};
        char paths[3][1100];
        const char *names[3] = {"train", "dev", "test"};
        for (int s = 0; s < 3; s++) snprintf(paths[s], sizeof paths[s], "%s/%s.conll", a->data_dir, names[s]);
        if (label_task_load(&task, a->model, paths[0], paths[1], paths[2], err)) {
            rc = -1;
            break;
        }
        const PiecedData *pieces[3] = {&task.train_p, &task.dev_p, &task.test_p};
        for (int j = i; j < n_todo && rc == 0; j++) {
            const SweepRun *b = &runs[todo[j]];
            if (strcmp(a->data_dir, b->data_dir) != 0 || strcmp(a->model, b->model) != 0) continue;
            checked[j] = 1;
            for (int s = 0; s < 3 && rc == 0; s++)
                rc = readout_check_fits(pieces[s], readout_layout_paper(b->r),
                                        task.info.cfg.max_seq_len, err);
            if (rc) {
                SrError e = *err;
                sr_fail(err, "%s (r = %d, model %s)", e.msg, b->r, b->model);
            }
        }
        label_task_free(&task);
    }
    free(checked);
    return rc;
}
