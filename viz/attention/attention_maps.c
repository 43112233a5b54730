/* attention_maps.c — every layer's attention maps, whole or on demand
 * (attention_maps.h).
 *
 * On demand, a few layers are kept in places. The reader reads the place it
 * last made ready, without a lock; the maps' thread fills the other places:
 * the layer the reader waits for first, then its two neighbours, so that
 * the next layer a reader steps to is usually ready. The forward-only
 * model's working buffers are shared by whoever computes, so a layer is
 * computed under the model lock; the place lock guards which place holds
 * what. The whole maps of the overview are filled by the same thread into
 * arrays of their own and handed to the reader when complete. */
#include "attention/attention_maps.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/threads.h"

/* One kept layer: its maps (H, T, T) (owned, or the model's own attention
 * buffer for the first place) and their mean over heads (T, T, owned); the
 * buffers stay with the place when another layer takes it. */
typedef struct {
    int layer;               /* -1 = empty, or being filled */
    float *att;
    double *mean;
    unsigned long long used; /* when it was last filled or read */
} KeptLayer;

struct AttentionMaps {
    int n_layers, n_heads, T;
    /* the reader's own: written and read by the reader's thread only */
    float *whole;            /* (L, H, T, T) every layer once ready, else NULL */
    double *whole_mean;      /* (L, T, T) their means over heads               */
    int shown, shown_layer;  /* the place read and its layer (-1: none)        */
    /* on demand */
    Model *inference;        /* the forward-only model (owned)                 */
    Model *weights;          /* the model it borrows from when owned, or NULL  */
    MaskKind *mask;          /* (L) copies of the forward's input arrays that  */
    PosKind *pos_kind;       /* (L)  computing a layer again reads (NULL when  */
    int *lengths;            /* (1)  the forward had none)                     */
    float *real_pos;         /* (L, T, H)                                      */
    float *head_scale;       /* (L, H) the head plan                           */
    pthread_mutex_t model_lock; /* the model's working buffers                 */
    pthread_mutex_t lock;    /* everything below                               */
    pthread_cond_t wake;     /* the thread waits for work                      */
    pthread_cond_t done;     /* a computing reader waits for the thread        */
    pthread_t thread;
    int has_thread, stop;
    int want[ATTENTION_CACHE_LAYERS + 1], n_want; /* layers to fill, the next last */
    KeptLayer kept[ATTENTION_CACHE_LAYERS];
    int filling;             /* the place the thread fills, -1                 */
    int awaited;             /* the layer the reader waits for, -1             */
    int all_wanted, all_done, all_failed; /* the whole maps                    */
    float *all;              /* (L, H, T, T) the whole maps (owned)            */
    double *all_mean;        /* (L, T, T)                                      */
    unsigned long long clock;
    int failed;              /* the model refused once (said on stderr)        */
    void (*notify)(void *);  /* called by the thread when the reader's wait ends */
    void *notify_arg;
};

/* An empty AttentionMaps of L x H maps of T x T. */
static AttentionMaps *maps_new(int n_layers, int n_heads, int T, SrError *err)
{
    AttentionMaps *m = calloc(1, sizeof *m);
    if (!m) {
        sr_fail(err, "attention maps: out of memory");
        return NULL;
    }
    m->n_layers = n_layers;
    m->n_heads = n_heads;
    m->T = T;
    m->shown = m->shown_layer = m->filling = m->awaited = -1;
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++) m->kept[i].layer = -1;
    pthread_mutex_init(&m->model_lock, NULL);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->wake, NULL);
    pthread_cond_init(&m->done, NULL);
    return m;
}

/* mean (T, T) = the mean over the H maps of att (H, T, T). */
static void mean_over_heads(const float *att, double *mean, int H, size_t TT)
{
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < TT; c++) {
        double sum = 0;
        for (int h = 0; h < H; h++) sum += att[(size_t)h * TT + c];
        mean[c] = sum / H;
    }
}

AttentionMaps *attention_maps_new_whole(int n_layers, int n_heads, int T, const float *att, SrError *err)
{
    AttentionMaps *m = maps_new(n_layers, n_heads, T, err);
    if (!m) return NULL;
    size_t TT = (size_t)T * T, one = (size_t)n_heads * TT, n = (size_t)n_layers * one;
    m->all = att ? malloc(sizeof(float) * n) : calloc(n, sizeof(float));
    m->all_mean = malloc(sizeof(double) * (size_t)n_layers * TT);
    if (!m->all || !m->all_mean) {
        attention_maps_free(m);
        sr_fail(err, "attention maps: out of memory for %d layers of %d x %d", n_layers, T, T);
        return NULL;
    }
    if (att) memcpy(m->all, att, sizeof(float) * n);
    for (int l = 0; l < n_layers; l++) mean_over_heads(m->all + l * one, m->all_mean + l * TT, n_heads, TT);
    m->all_done = 1;
    m->whole = m->all;
    m->whole_mean = m->all_mean;
    return m;
}

/* A copy of n bytes of src into *dst (NULL for NULL). 0 or -1. */
static int copy_input(void **dst, const void *src, size_t n)
{
    *dst = NULL;
    if (!src) return 0;
    *dst = malloc(n);
    if (!*dst) return -1;
    memcpy(*dst, src, n);
    return 0;
}

/* Give m copies of the arrays of its model's last forward input that
 * model_layer_attention reads, and point the input at them (the caller's go
 * away); the ids and integer positions are read by the forward only. 0 or -1. */
static int keep_input(AttentionMaps *m)
{
    ModelInput *in = &m->inference->in;
    size_t L = (size_t)m->n_layers;
    if (copy_input((void **)&m->mask, in->mask, sizeof(MaskKind) * L) ||
        copy_input((void **)&m->pos_kind, in->pos_kind, sizeof(PosKind) * L) ||
        copy_input((void **)&m->lengths, in->lengths, sizeof(int) * (size_t)in->B) ||
        copy_input((void **)&m->real_pos, in->real_pos, sizeof(float) * L * in->B * in->T * m->n_heads) ||
        copy_input((void **)&m->head_scale, in->head_scale, sizeof(float) * L * m->n_heads))
        return -1;
    in->mask = m->mask;
    in->pos_kind = m->pos_kind;
    in->lengths = m->lengths;
    in->real_pos = m->real_pos;
    in->head_scale = m->head_scale;
    in->ids = NULL;
    in->positions = NULL;
    return 0;
}

static void *maps_thread(void *arg);

AttentionMaps *attention_maps_new_on_demand(Model *inference, Model *weights, SrError *err)
{
    AttentionMaps *m = maps_new(inference->cfg.n_layers, inference->cfg.n_heads, inference->in.T, err);
    if (!m) return NULL;
    m->inference = inference;
    if (keep_input(m)) {
        m->inference = NULL;
        attention_maps_free(m);
        sr_fail(err, "attention maps: out of memory");
        return NULL;
    }
    m->weights = weights;
    /* the model's own attention buffer, (1, H, T, T), is idle after the
     * forward (layers are computed into the places): the first place's */
    m->kept[0].att = inference->a.att;
    /* the last layers, the last first (where a reader starts): every place
     * filled once, as the buffers' first touch costs as much as computing a
     * layer, here rather than on screen */
    for (int l = m->n_layers - ATTENTION_CACHE_LAYERS; l < m->n_layers; l++)
        if (l >= 0) m->want[m->n_want++] = l;
    m->has_thread = pthread_create(&m->thread, NULL, maps_thread, m) == 0;
    return m;
}

void attention_maps_free(AttentionMaps *m)
{
    if (!m) return;
    if (m->has_thread) {
        pthread_mutex_lock(&m->lock);
        m->stop = 1;
        pthread_cond_signal(&m->wake);
        pthread_mutex_unlock(&m->lock);
        pthread_join(m->thread, NULL);
    }
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++) {
        if (!(m->inference && m->kept[i].att == m->inference->a.att)) free(m->kept[i].att);
        free(m->kept[i].mean);
    }
    free(m->all);
    free(m->all_mean);
    free(m->mask);
    free(m->pos_kind);
    free(m->lengths);
    free(m->real_pos);
    free(m->head_scale);
    if (m->inference) {
        model_free(m->inference);
        free(m->inference);
    }
    if (m->weights) {
        model_free(m->weights);
        free(m->weights);
    }
    pthread_mutex_destroy(&m->model_lock);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->wake);
    pthread_cond_destroy(&m->done);
    free(m);
}

/* The kept place of layer l, or -1 (under the lock). */
static int find_kept(const AttentionMaps *m, int layer)
{
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++)
        if (m->kept[i].layer == layer) return i;
    return -1;
}

/* The place least recently filled or read, other than the reader's, the
 * one being filled and the one holding the layer the reader waits for; -1
 * when there is none (under the lock). */
static int free_place(const AttentionMaps *m)
{
    int best = -1;
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++) {
        if (i == m->shown || i == m->filling || (m->awaited >= 0 && m->kept[i].layer == m->awaited)) continue;
        if (best < 0 || m->kept[i].used < m->kept[best].used) best = i;
    }
    return best;
}

/* Layer l's maps into att (H, T, T), computed again by the model under the
 * model lock, and their mean over heads into mean (T, T). 0, or -1 when the
 * model refuses (said on stderr once, m->failed set: the caller holds the
 * place lock). */
static int compute_layer(AttentionMaps *m, int layer, float *att, double *mean, char *why, size_t cap)
{
    SrError err = {{0}};
    pthread_mutex_lock(&m->model_lock);
    const float *got = model_layer_attention(m->inference, layer, att, &err);
    pthread_mutex_unlock(&m->model_lock);
    if (!got) {
        snprintf(why, cap, "%s", err.msg);
        return -1;
    }
    size_t TT = (size_t)m->T * m->T;
    mean_over_heads(att, mean, m->n_heads, TT);
    return 0;
}

/* Note that the model refused (under the lock), saying so on stderr once. */
static void note_failure(AttentionMaps *m, const char *why)
{
    if (!m->failed) fprintf(stderr, "attention maps: %s\n", why);
    m->failed = 1;
}

/* The thread: fill a free place with layer l, unless it is kept (the lock
 * held on entry and on return, let go while computing). */
static void fill_place(AttentionMaps *m, int layer)
{
    int i = find_kept(m, layer) >= 0 ? -1 : free_place(m);
    if (i < 0) return;
    KeptLayer *k = &m->kept[i];
    size_t TT = (size_t)m->T * m->T;
    k->layer = -1;
    m->filling = i;
    pthread_mutex_unlock(&m->lock);
    char why[sizeof(((SrError *)0)->msg)] = "out of memory";
    if (!k->mean) k->mean = malloc(sizeof(double) * TT);
    if (!k->att) k->att = malloc(sizeof(float) * (size_t)m->n_heads * TT);
    int rc = k->mean && k->att ? compute_layer(m, layer, k->att, k->mean, why, sizeof why) : -1;
    pthread_mutex_lock(&m->lock);
    m->filling = -1;
    if (rc == 0) {
        k->layer = layer;
        k->used = ++m->clock;
    } else {
        note_failure(m, why);
    }
}

/* The thread: every layer into whole arrays of their own, handed over when
 * complete (the lock held on entry and on return, let go while computing). */
static void build_all(AttentionMaps *m)
{
    size_t TT = (size_t)m->T * m->T, one = (size_t)m->n_heads * TT;
    pthread_mutex_unlock(&m->lock);
    float *all = malloc(sizeof(float) * (size_t)m->n_layers * one);
    double *mean = malloc(sizeof(double) * (size_t)m->n_layers * TT);
    char why[sizeof(((SrError *)0)->msg)] = "out of memory";
    int rc = all && mean ? 0 : -1, stop = 0;
    for (int l = 0; l < m->n_layers && rc == 0 && !stop; l++) {
        rc = compute_layer(m, l, all + l * one, mean + l * TT, why, sizeof why);
        pthread_mutex_lock(&m->lock);
        stop = m->stop;
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_lock(&m->lock);
    if (rc == 0 && !stop) {
        m->all = all;
        m->all_mean = mean;
    } else {
        free(all);
        free(mean);
        m->all_failed = 1;
        if (rc) note_failure(m, why);
    }
    m->all_done = 1;
}

/* The thread: tell a waiting reader that its wait is over (the lock held on
 * entry and on return). */
static void tell_reader(AttentionMaps *m)
{
    pthread_cond_broadcast(&m->done);
    void (*notify)(void *) = m->notify;
    void *arg = m->notify_arg;
    pthread_mutex_unlock(&m->lock);
    if (notify) notify(arg);
    pthread_mutex_lock(&m->lock);
}

/* The maps' thread: the whole maps when asked for, else the layers of
 * want[], the last first. */
static void *maps_thread(void *arg)
{
    AttentionMaps *m = arg;
    threads_set(0);
    pthread_mutex_lock(&m->lock);
    while (!m->stop) {
        if (m->all_wanted && !m->all_done) {
            build_all(m);
            tell_reader(m);
            continue;
        }
        if (m->n_want == 0) {
            pthread_cond_wait(&m->wake, &m->lock);
            continue;
        }
        int layer = m->want[--m->n_want];
        fill_place(m, layer);
        if (layer == m->awaited || m->failed) tell_reader(m);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

const float *attention_maps_layer(const AttentionMaps *m, int layer)
{
    if (m->whole) return m->whole + (size_t)layer * m->n_heads * m->T * m->T;
    if (m->shown >= 0 && m->shown_layer == layer) return m->kept[m->shown].att;
    return NULL;
}

const double *attention_maps_mean(const AttentionMaps *m, int layer)
{
    if (m->whole_mean) return m->whole_mean + (size_t)layer * m->T * m->T;
    if (m->shown >= 0 && m->shown_layer == layer) return m->kept[m->shown].mean;
    return NULL;
}

/* Queue layer l for the thread, its neighbours after it (under the lock). */
static void queue_around(AttentionMaps *m, int layer, int with_layer)
{
    m->n_want = 0;
    if (layer > 0) m->want[m->n_want++] = layer - 1;
    if (layer + 1 < m->n_layers) m->want[m->n_want++] = layer + 1; /* first: the usual next step */
    if (with_layer) m->want[m->n_want++] = layer;
    pthread_cond_signal(&m->wake);
}

int attention_maps_want(AttentionMaps *m, int layer, SrError *err)
{
    if (m->whole || (m->shown >= 0 && m->shown_layer == layer)) return 1;
    pthread_mutex_lock(&m->lock);
    int i = find_kept(m, layer), ready = i >= 0;
    if (ready) { /* the reader's place now: the thread leaves it alone */
        m->kept[i].used = ++m->clock;
        m->shown = i;
        m->shown_layer = layer;
        m->awaited = -1;
    } else if (!m->failed) {
        m->awaited = layer;
    }
    int failed = !ready && (m->failed || !m->has_thread);
    if (!failed) queue_around(m, layer, !ready);
    pthread_mutex_unlock(&m->lock);
    if (failed) return sr_fail(err, "attention maps: the model cannot compute layer %d", layer);
    return ready;
}

int attention_maps_want_all(AttentionMaps *m, SrError *err)
{
    if (m->whole) return 1;
    pthread_mutex_lock(&m->lock);
    int ready = m->all_done && !m->all_failed, failed = (m->all_done && m->all_failed) || !m->has_thread;
    if (ready) { /* the reader's now */
        m->whole = m->all;
        m->whole_mean = m->all_mean;
    } else if (!failed && !m->all_wanted) {
        m->all_wanted = 1;
        pthread_cond_signal(&m->wake);
    }
    pthread_mutex_unlock(&m->lock);
    if (failed) return sr_fail(err, "attention maps: out of memory for every layer's maps, or the model refused");
    return ready;
}

int attention_maps_compute(AttentionMaps *m, int layer, SrError *err)
{
    int rc;
    while ((rc = attention_maps_want(m, layer, err)) == 0) {
        pthread_mutex_lock(&m->lock);
        while (find_kept(m, layer) < 0 && !m->failed) pthread_cond_wait(&m->done, &m->lock);
        pthread_mutex_unlock(&m->lock);
    }
    return rc < 0 ? -1 : 0;
}

int attention_maps_compute_all(AttentionMaps *m, SrError *err)
{
    int rc;
    while ((rc = attention_maps_want_all(m, err)) == 0) {
        pthread_mutex_lock(&m->lock);
        while (!m->all_done) pthread_cond_wait(&m->done, &m->lock);
        pthread_mutex_unlock(&m->lock);
    }
    return rc < 0 ? -1 : 0;
}

void attention_maps_on_ready(AttentionMaps *m, void (*notify)(void *), void *arg)
{
    pthread_mutex_lock(&m->lock);
    m->notify = notify;
    m->notify_arg = arg;
    pthread_mutex_unlock(&m->lock);
}
