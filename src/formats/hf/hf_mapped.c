/* hf_mapped.c — a folder's shard files mapped for a stored model (see
 * hf_mapped.h). */
#include "formats/hf/hf_mapped.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The StoredMatrices first, so that its address is the owner's; then the
 * maps and the per-layer pointer table behind s.q .. s.down. */
typedef struct {
    StoredMatrices s;
    int n_files, n_layers;
    void **maps;
    size_t *lengths;
    const void **table; /* (7, L): q, k, v, o, gate, up, down */
} Mapped;

StoredMatrices *hf_mapped_new(const ModelConfig *cfg, StoredType t, int n_files)
{
    Mapped *mp = calloc(1, sizeof *mp);
    if (!mp) return NULL;
    size_t L = (size_t)cfg->n_layers;
    mp->n_files = n_files;
    mp->n_layers = cfg->n_layers;
    mp->maps = calloc((size_t)n_files, sizeof *mp->maps);
    mp->lengths = calloc((size_t)n_files, sizeof *mp->lengths);
    mp->table = calloc(7 * L, sizeof *mp->table);
    if (!mp->maps || !mp->lengths || !mp->table) {
        hf_mapped_release(mp);
        return NULL;
    }
    StoredMatrices *s = &mp->s;
    s->type = t;
    s->n_layers = cfg->n_layers, s->C = cfg->d_model, s->Q = model_q_dim(cfg);
    s->K = model_kv_dim(cfg), s->F = cfg->d_ff, s->V = cfg->vocab_size;
    s->q = mp->table, s->k = mp->table + L, s->v = mp->table + 2 * L, s->o = mp->table + 3 * L;
    s->gate = mp->table + 4 * L, s->up = mp->table + 5 * L, s->down = mp->table + 6 * L;
    s->owner = mp;
    s->release = hf_mapped_release;
    return s;
}

int hf_mapped_map(StoredMatrices *s, int file, const char *path, SrError *err)
{
    Mapped *mp = s->owner;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return sr_fail(err, "%s: cannot open (%s)", path, strerror(errno));
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    int saved = errno;
    close(fd);
    if (map == MAP_FAILED) return sr_fail(err, "%s: cannot map (%s)", path, strerror(saved));
    mp->maps[file] = map;
    mp->lengths[file] = (size_t)st.st_size;
    return 0;
}

int hf_mapped_point(StoredMatrices *s, const char *name, int file, size_t at)
{
    Mapped *mp = s->owner;
    const void *where = (const unsigned char *)mp->maps[file] + at;
    if (strcmp(name, "model.embed_tokens.weight") == 0) {
        s->embed = where;
        if (!s->lm_head) s->lm_head = where; /* tied, until an lm_head says otherwise */
        return 0;
    }
    if (strcmp(name, "lm_head.weight") == 0) return s->lm_head = where, 0;
    static const char *const parts[7] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                         "self_attn.o_proj", "mlp.gate_proj",    "mlp.up_proj",
                                         "mlp.down_proj"};
    int l, used = 0;
    char part[32];
    if (sscanf(name, "model.layers.%d.%31[a-z_.]%n", &l, part, &used) != 2 || name[used] != 0 ||
        l < 0 || l >= mp->n_layers)
        return -1;
    size_t len = strlen(part);
    if (len < 8 || strcmp(part + len - 7, ".weight") != 0) return -1;
    part[len - 7] = 0;
    for (int i = 0; i < 7; i++)
        if (strcmp(part, parts[i]) == 0) return mp->table[(size_t)i * mp->n_layers + l] = where, 0;
    return -1;
}

int hf_mapped_complete(const StoredMatrices *s, const ModelConfig *cfg)
{
    const Mapped *mp = s->owner;
    if (!s->embed || !s->lm_head) return 0;
    for (size_t i = 0; i < 7 * (size_t)cfg->n_layers; i++)
        if (!mp->table[i]) return 0;
    return 1;
}

void hf_mapped_release(void *owner)
{
    Mapped *mp = owner;
    if (!mp) return;
    for (int i = 0; mp->maps && i < mp->n_files; i++)
        if (mp->maps[i]) munmap(mp->maps[i], mp->lengths[i]);
    free(mp->maps);
    free(mp->lengths);
    free(mp->table);
    free(mp);
}
