/* explorer_worker.c — the explorer's background recompute.
 *
 * The model is loaded once. When the sentence or r changes the window asks
 * the worker thread for new attention maps and goes on handling events; the
 * worker runs the forward pass and hands back a finished AttentionData.
 * Requests coalesce: only the newest one waiting is run next. */
#include "explorer/explorer_worker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "engine/serving/model_inference.h"
#include "engine/threads.h"
#include "formats/adapter_apply.h"
#include "formats/checkpoint.h"
#include "label/readout.h"

struct ExplorerWorker {
    Model model;                 /* the weights (read-only once loaded): every result's
                                    forward-only model borrows them      */
    int max_T;                   /* longest input                          */
    MaskKind *plan;              /* (L) mask plan                          */
    const Tokenizer *tok;        /* shared, read-only                      */
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
    int n_threads;
    void (*notify)(void *);      /* called from the worker after a result  */
    void *notify_arg;

    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /* under lock: the request waiting to run */
    int has_request, stop, busy;
    int *want_ids, want_n, want_sentence, want_r;
    /* under lock: the newest result not yet taken */
    int has_result, result_failed, result_sentence, result_r;
    AttentionData result;
    char result_error[sizeof(((SrError *)0)->msg)];
};

/* Run the model on ids[0..n) repeated r times and fill d: a forward-only
 * model on the loaded weights (its own activations, so the window can ask
 * it for any layer's maps while this thread runs the next request) that d
 * takes over; the tokens labelled by the vocabulary. 0 or -1. */
static int compute(ExplorerWorker *w, const int *ids, int n, int r, AttentionData *d, SrError *err)
{
    RepeatLayout lay;
    if (repeat_build_ids(ids, n, r, w->bos, w->sep, readout_repeat_ids(w->tok), w->max_T, &lay, err))
        return -1;
    repeat_apply_positions(&lay, w->copy_positions);
    Model *inference = calloc(1, sizeof *inference);
    int rc = -1, made = 0;
    if (!inference) sr_fail(err, "out of memory");
    else made = model_create_inference(inference, &w->model, 1, lay.T, err) == 0;
    ModelInput in = {.B = 1, .T = lay.T, .ids = lay.ids, .positions = lay.positions, .mask = w->plan};
    if (made && model_forward(inference, &in, err) == 0)
        rc = attention_data_from_inference(d, inference, NULL, &lay, w->tok, w->plan, err);
    if (rc == 0) {
        d->copy_positions = w->copy_positions;
        attention_maps_on_ready(d->maps, w->notify, w->notify_arg); /* a layer the window waits for is ready */
    } else {
        if (made) model_free(inference);
        free(inference);
    }
    repeat_free(&lay);
    return rc;
}

/* The worker thread: wait for a request, run it, publish the result. */
static void *worker_main(void *arg)
{
    ExplorerWorker *w = arg;
    threads_set(w->n_threads);  /* OpenMP settings are per thread */
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->has_request && !w->stop) pthread_cond_wait(&w->wake, &w->lock);
        if (w->stop) break;
        int *ids = w->want_ids, n = w->want_n, sentence = w->want_sentence, r = w->want_r;
        w->want_ids = NULL;
        w->has_request = 0;
        w->busy = 1;
        pthread_mutex_unlock(&w->lock);

        AttentionData d;
        SrError err = {{0}};
        int rc = compute(w, ids, n, r, &d, &err);
        free(ids);

        pthread_mutex_lock(&w->lock);
        if (w->has_result && !w->result_failed) attention_data_free(&w->result);
        w->has_result = 1;
        w->result_failed = rc != 0;
        w->result_sentence = sentence;
        w->result_r = r;
        if (rc == 0) w->result = d;
        else snprintf(w->result_error, sizeof w->result_error, "%s", err.msg);
        w->busy = 0;
        pthread_mutex_unlock(&w->lock);
        if (w->notify) w->notify(w->notify_arg);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int explorer_worker_start(ExplorerWorker **out, const char *model_path, const char *adapter_path,
                          const Tokenizer *tok,
                          const char *mask_plan, RepeatBos bos, RepeatSep sep,
                          RepeatPositions copy_positions, int max_T, int n_threads,
                          void (*notify)(void *), void *notify_arg, SrError *err)
{
    *out = NULL;
    ExplorerWorker *w = calloc(1, sizeof *w);
    if (!w) return sr_fail(err, "out of memory");
    w->tok = tok;
    w->bos = bos;
    w->sep = sep;
    w->copy_positions = copy_positions;
    w->n_threads = n_threads;
    w->notify = notify;
    w->notify_arg = notify_arg;
    CheckpointInfo info = {0};
    if (checkpoint_read_info(model_path, &info, err)) {
        free(w);
        return -1;
    }
    w->max_T = max_T < info.cfg.max_seq_len ? max_T : info.cfg.max_seq_len;
    checkpoint_info_free(&info);
    if (adapter_load_model(model_path, adapter_path, &w->model, 1, 1, err)) {
        free(w);
        return -1;
    }
    int L = w->model.cfg.n_layers;
    w->plan = malloc(sizeof(MaskKind) * (size_t)L);
    if (!w->plan) {
        model_free(&w->model);
        free(w);
        return sr_fail(err, "out of memory");
    }
    if (mask_plan_parse(mask_plan ? mask_plan : "causal", w->plan, L)) {
        sr_fail(err, "mask plan '%s' is not causal, middle, full or layer indices 0..%d", mask_plan, L - 1);
        free(w->plan);
        model_free(&w->model);
        free(w);
        return -1;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        explorer_worker_stop(w);
        return sr_fail(err, "cannot start the worker thread");
    }
    w->started = 1;
    *out = w;
    return 0;
}

int explorer_worker_max_T(const ExplorerWorker *w)
{
    return w->max_T;
}

int explorer_worker_request(ExplorerWorker *w, const int *ids, int n, int sentence, int r)
{
    int *copy = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!copy) return -1;
    memcpy(copy, ids, sizeof(int) * (size_t)n);
    pthread_mutex_lock(&w->lock);
    free(w->want_ids);  /* a request still waiting is replaced by the newer one */
    w->want_ids = copy;
    w->want_n = n;
    w->want_sentence = sentence;
    w->want_r = r;
    w->has_request = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

int explorer_worker_pending(ExplorerWorker *w)
{
    pthread_mutex_lock(&w->lock);
    int pending = w->has_request || w->busy;
    pthread_mutex_unlock(&w->lock);
    return pending;
}

int explorer_worker_take(ExplorerWorker *w, AttentionData *d, int *sentence, int *r, SrError *err)
{
    pthread_mutex_lock(&w->lock);
    int got = 0;
    if (w->has_result) {
        *sentence = w->result_sentence;
        *r = w->result_r;
        if (w->result_failed) {
            got = -1;
            sr_fail(err, "%s", w->result_error);
        } else {
            *d = w->result;
            memset(&w->result, 0, sizeof w->result);
            got = 1;
        }
        w->has_result = 0;
    }
    pthread_mutex_unlock(&w->lock);
    return got;
}

void explorer_worker_stop(ExplorerWorker *w)
{
    if (!w) return;
    if (w->started) {
        pthread_mutex_lock(&w->lock);
        w->stop = 1;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
    }
    if (w->has_result && !w->result_failed) attention_data_free(&w->result);
    free(w->want_ids);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w->plan);
    model_free(&w->model);
    free(w);
}
