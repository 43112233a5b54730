/* explorer_setup.c — what the explorer's options set up before the window
 * opens: the result files of the optional views, read as `seqrep plot`
 * reads them, and the first view (sentence, r, layer, head, scale, view),
 * checked against the model. */
#include "explorer/explorer_setup.h"

#include <stdlib.h>
#include <string.h>

#include "label/readout.h"
#include "results/file_list.h"

int explorer_load_results(Explorer *e, SrError *err)
{
    const ExplorerSources *src = &e->src;
    const char *split = src->split ? src->split : "test";
    const char *paths[FILE_LIST_MAX], *base[FILE_LIST_MAX];
    char *list = NULL, *base_list = NULL;
    int rc = 0;
    if (src->layers) {
        int n = file_list_split(src->layers, &list, paths, FILE_LIST_MAX);
        int n_base = src->baselines ? file_list_split(src->baselines, &base_list, base, FILE_LIST_MAX) : 0;
        if (n < 0 || n_base < 0) rc = sr_fail(err, "out of memory");
        else if (n == 0) rc = sr_fail(err, "--layers: no file given");
        else rc = layers_data_load(&e->fig.layers, paths, n, split, base, n_base, err);
        free(list);
        free(base_list);
        list = NULL;
        if (rc) return -1;
        e->has_layers = 1;
    }
    if (src->exit) {
        int n = file_list_split(src->exit, &list, paths, FILE_LIST_MAX);
        if (n < 0) rc = sr_fail(err, "out of memory");
        else if (n == 0) rc = sr_fail(err, "--exit: no file given");
        else rc = exit_data_load(&e->fig.exit, paths, n, src->cost ? src->cost : "flops", split, src->dataset, err);
        free(list);
        if (rc) return -1;
        e->has_exit = 1;
    }
    if (src->flow) {
        if (flow_data_load(&e->fig.flow, src->flow, -1, err)) return -1;
        e->has_flow = 1;
        e->flow_head = -1;
    }
    if (src->repo_range) {
        if (repo_range_data_load(&e->fig.repo_range, src->repo_range, err)) return -1;
        e->has_repo_range = 1;
    }
    if (src->repo_needle) {
        if (repo_needle_data_load(&e->fig.repo_needle, src->repo_needle, 0, err)) return -1;
        e->has_repo_needle = 1;
    }
    return 0;
}

int explorer_initial_state(Explorer *e, int max_T, SrError *err)
{
    const ExplorerOptions *o = e->o;
    ExplorerState *s = &e->st;
    const ModelConfig *c = &e->in.info.cfg;
    RepeatBos bos;
    if (readout_choose_bos(&e->in.tok, o->bos_given ? repeat_bos_name(o->bos) : NULL, o->bos, o->sep, &bos, err))
        return -1;
    explorer_state_init(s, c->n_layers, c->n_heads, e->in.n_sentences, e->in.n_tokens, max_T, bos, o->sep);
    s->n_snapshots = e->series.n;
    s->snapshot = e->series.n - 1;
    s->has_results[VIEW_LAYERS] = e->has_layers;
    s->has_results[VIEW_EXIT] = e->has_exit;
    s->has_results[VIEW_FLOW] = e->has_flow;
    s->has_results[VIEW_REPO_Z] = s->has_results[VIEW_REPO_REPEAT] = c->repo;
    s->repo_from = c->repo ? c->repo_from : -1;
    s->has_results[VIEW_REPO_RANGE] = e->has_repo_range;
    s->has_results[VIEW_REPO_NEEDLE] = e->has_repo_needle;
    if (o->sentence < 0 || o->sentence >= e->in.n_sentences)
        return sr_fail(err, "--sentence %d out of range 0..%d", o->sentence, e->in.n_sentences - 1);
    s->sentence = o->sentence;
    if (s->n_tokens[s->sentence] > max_T || repeat_length(s->n_tokens[s->sentence], 0, s->bos, s->sep) > max_T)
        return sr_fail(err, "sentence %d has %d tokens; the model takes at most %d positions", s->sentence,
                       s->n_tokens[s->sentence], max_T);
    int r_max = explorer_r_max(s);
    if (o->r >= 0 && o->r > r_max)
        return sr_fail(err, "--r %d does not fit: sentence %d has %d tokens and the model %d positions (r <= %d)",
                       o->r, s->sentence, s->n_tokens[s->sentence], max_T, r_max);
    s->r = o->r >= 0 ? o->r : (r_max >= 1 ? 1 : 0);
    if (o->layer >= c->n_layers) return sr_fail(err, "--layer %d out of range 0..%d", o->layer, c->n_layers - 1);
    if (o->head >= c->n_heads) return sr_fail(err, "--head %d out of range 0..%d", o->head, c->n_heads - 1);
    s->layer = o->layer >= 0 ? o->layer : c->n_layers - 1;
    s->head = o->head;
    if (o->head >= 0) s->last_head = o->head;
    s->scale = s->linear_scale = o->scale;
    if (o->scale == SCALE_LOG) s->linear_scale = SCALE_FIXED;
    s->theme = o->theme;
    if (!s->has_results[o->view]) {
        if (o->view == VIEW_REPO_Z || o->view == VIEW_REPO_REPEAT)
            return sr_fail(err, "--view %s: %s has no RePo weights (train-lm --positions repo)",
                           explorer_view_name(o->view), e->src.model);
        return sr_fail(err, "--view %s needs --%s FILE", explorer_view_name(o->view), explorer_view_name(o->view));
    }
    if (o->view == VIEW_REPO_REPEAT && s->r == 0)
        return sr_fail(err, "--view repo-repeat needs --r 1 or more");
    if (o->view == VIEW_REPO_Z || o->view == VIEW_REPO_REPEAT) {
        if (o->layer >= 0 && o->layer < s->repo_from)
            return sr_fail(err, "--layer %d has no learned positions (RePo layers %d..%d)", o->layer, s->repo_from,
                           c->n_layers - 1);
        if (s->head < 0) s->head = s->last_head;
    }
    s->view = o->view;
    return 0;
}

void explorer_free_results(Explorer *e)
{
    if (e->has_layers) layers_data_free(&e->fig.layers);
    if (e->has_exit) exit_data_free(&e->fig.exit);
    if (e->has_flow) flow_data_free(&e->fig.flow);
    if (e->has_repo_range) repo_range_data_free(&e->fig.repo_range);
    if (e->has_repo_needle) repo_needle_data_free(&e->fig.repo_needle);
    e->has_layers = e->has_exit = e->has_flow = e->has_repo_range = e->has_repo_needle = 0;
}
