/* attention_maps.c — every layer's attention maps, whole or on demand
 * (attention_maps.h).
 *
 * On demand, a few layers are kept. The layer the window last asked for is
 * kept as long as it is the last asked for; a prefetch thread computes its
 * two neighbours meanwhile into the other places, so that the next layer a
 * reader steps to is usually ready. The model's working buffers are shared
 * by both threads, so a layer is computed under the lock; the window reads
 * the layer it last asked for without it (the prefetcher never touches it). */
#include "attention/attention_maps.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/threads.h"

/* One kept layer: its maps (H, T, T) (owned on demand, or the model's own
 * attention buffer for the first place; a view into the whole array
 * otherwise) and their mean over heads (T, T, owned); the buffers stay with
 * the place when another layer takes it. */
typedef struct {
    int layer;               /* -1 = empty */
    float *att;
    double *mean;
    unsigned long long used; /* when it was last asked for */
} KeptLayer;

struct AttentionMaps {
    int n_layers, n_heads, T;
    float *whole;           /* (L, H, T, T), or NULL on demand */
    Model *inference;       /* on demand: the forward-only model (owned) */
    Model *weights;         /* the model it borrows from when owned, or NULL */
    MaskKind *mask;         /* (L) copies of the forward's input arrays that   */
    PosKind *pos_kind;      /* (L)  computing a layer again reads (NULL when   */
    int *lengths;           /* (1)  the forward had none)                      */
    float *real_pos;        /* (L, T, H)                                       */
    pthread_mutex_t lock;   /* guards kept[], clock, want[], stop, the model   */
    pthread_cond_t wake;    /* the prefetcher waits for work                   */
    pthread_t prefetcher;
    int has_prefetcher, stop;
    int want[ATTENTION_CACHE_LAYERS], n_want; /* layers to prefetch, last first */
    KeptLayer kept[ATTENTION_CACHE_LAYERS];
    unsigned long long clock;
    int shown, shown_layer; /* the reader's last place and layer (-1): written
                               under the lock, read without by the reader only */
    int failed;             /* the model refused once (said on stderr)         */
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
    m->shown = m->shown_layer = -1;
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++) m->kept[i].layer = -1;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->wake, NULL);
    return m;
}

AttentionMaps *attention_maps_new_whole(int n_layers, int n_heads, int T, const float *att, SrError *err)
{
    AttentionMaps *m = maps_new(n_layers, n_heads, T, err);
    if (!m) return NULL;
    size_t n = (size_t)n_layers * n_heads * T * T;
    m->whole = att ? malloc(sizeof(float) * n) : calloc(n, sizeof(float));
    if (!m->whole) {
        attention_maps_free(m);
        sr_fail(err, "attention maps: out of memory for %d layers of %d x %d", n_layers, T, T);
        return NULL;
    }
    if (att) memcpy(m->whole, att, sizeof(float) * n);
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
        copy_input((void **)&m->real_pos, in->real_pos, sizeof(float) * L * in->B * in->T * m->n_heads))
        return -1;
    in->mask = m->mask;
    in->pos_kind = m->pos_kind;
    in->lengths = m->lengths;
    in->real_pos = m->real_pos;
    in->ids = NULL;
    in->positions = NULL;
    return 0;
}

static void *prefetch_main(void *arg);

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
    m->has_prefetcher = pthread_create(&m->prefetcher, NULL, prefetch_main, m) == 0;
    return m;
}

void attention_maps_free(AttentionMaps *m)
{
    if (!m) return;
    if (m->has_prefetcher) {
        pthread_mutex_lock(&m->lock);
        m->stop = 1;
        pthread_cond_signal(&m->wake);
        pthread_mutex_unlock(&m->lock);
        pthread_join(m->prefetcher, NULL);
    }
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++) {
        if (!m->whole && !(m->inference && m->kept[i].att == m->inference->a.att)) free(m->kept[i].att);
        free(m->kept[i].mean);
    }
    free(m->whole);
    free(m->mask);
    free(m->pos_kind);
    free(m->lengths);
    free(m->real_pos);
    if (m->inference) {
        model_free(m->inference);
        free(m->inference);
    }
    if (m->weights) {
        model_free(m->weights);
        free(m->weights);
    }
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->wake);
    free(m);
}

/* The kept place of layer l, or -1 (under the lock). */
static int find_kept(const AttentionMaps *m, int layer)
{
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++)
        if (m->kept[i].layer == layer) return i;
    return -1;
}

/* Fill kept place i with layer l (under the lock): its maps, computed again
 * by the model into the place's buffer, or a view into the whole array, and
 * their mean over heads. 0 or -1. */
static int fill_kept(AttentionMaps *m, int i, int layer)
{
    size_t TT = (size_t)m->T * m->T, one = (size_t)m->n_heads * TT;
    KeptLayer *k = &m->kept[i];
    k->layer = -1;
    if (!k->mean) k->mean = malloc(sizeof(double) * TT);
    if (m->whole) k->att = m->whole + (size_t)layer * one;
    else if (!k->att) k->att = malloc(sizeof(float) * one);
    if (!k->mean || !k->att) return -1;
    SrError err = {{0}};
    if (!m->whole && !model_layer_attention(m->inference, layer, k->att, &err)) {
        if (!m->failed) fprintf(stderr, "attention maps: %s\n", err.msg);
        m->failed = 1;
        return -1;
    }
    const float *att = k->att;
    double *mean = k->mean;
    int H = m->n_heads;
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < TT; c++) {
        double sum = 0;
        for (int h = 0; h < H; h++) sum += att[(size_t)h * TT + c];
        mean[c] = sum / H;
    }
    k->layer = layer;
    return 0;
}

/* The place least recently asked for, other than the reader's (under the lock). */
static int free_place(const AttentionMaps *m)
{
    int best = -1;
    for (int i = 0; i < ATTENTION_CACHE_LAYERS; i++)
        if (i != m->shown && (best < 0 || m->kept[i].used < m->kept[best].used)) best = i;
    return best;
}

/* The prefetch thread: compute the layers of want[] that are not kept. */
static void *prefetch_main(void *arg)
{
    AttentionMaps *m = arg;
    threads_set(0);
    pthread_mutex_lock(&m->lock);
    while (!m->stop) {
        if (m->n_want == 0) {
            pthread_cond_wait(&m->wake, &m->lock);
            continue;
        }
        int layer = m->want[--m->n_want];
        if (find_kept(m, layer) >= 0) continue;
        int i = free_place(m);
        if (fill_kept(m, i, layer) == 0) m->kept[i].used = ++m->clock;
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

/* The reader's place for layer l, filled first when it is not kept (waiting
 * for a layer the prefetcher computes); its neighbours are then prefetched. */
static KeptLayer *kept_layer(AttentionMaps *m, int layer)
{
    if (m->shown >= 0 && m->shown_layer == layer) return &m->kept[m->shown];
    pthread_mutex_lock(&m->lock);
    int i = find_kept(m, layer);
    if (i < 0) {
        i = free_place(m);
        if (fill_kept(m, i, layer)) {
            pthread_mutex_unlock(&m->lock);
            return NULL;
        }
    }
    m->kept[i].used = ++m->clock;
    m->shown = i;
    m->shown_layer = layer;
    m->n_want = 0;
    if (m->has_prefetcher) {
        if (layer > 0) m->want[m->n_want++] = layer - 1;
        if (layer + 1 < m->n_layers) m->want[m->n_want++] = layer + 1; /* first: the usual next step */
        pthread_cond_signal(&m->wake);
    }
    pthread_mutex_unlock(&m->lock);
    return &m->kept[i];
}

const float *attention_maps_layer(AttentionMaps *m, int layer)
{
    if (m->whole) return m->whole + (size_t)layer * m->n_heads * m->T * m->T;
    KeptLayer *k = kept_layer(m, layer);
    return k ? k->att : NULL;
}

const double *attention_maps_mean(AttentionMaps *m, int layer)
{
    KeptLayer *k = kept_layer(m, layer);
    return k ? k->mean : NULL;
}
