/* fuzz_safetensors.c — st_read on any bytes: the 8-byte header length, the
 * JSON header and the tensor table. A file it accepts must hold tensors whose
 * bytes lie inside it, and must come back the same after st_write. */
#include <stdint.h>
#include <string.h>

#include "formats/safetensors.h"
#include "fuzz_util.h"

/* Every tensor's bytes are readable (ASan sees a stray pointer) and findable. */
static uint64_t touch_tensors(const StFile *f)
{
    uint64_t sum = 0;
    for (int i = 0; i < f->n_tensors; i++) {
        const StTensor *t = &f->tensors[i];
        FUZZ_CHECK(st_find(f, t->name) == t);
        FUZZ_CHECK(((uintptr_t)t->data & 3) == 0 || t->nbytes == 0); /* F32 and I32 read in place */
        const unsigned char *p = t->data;
        for (size_t k = 0; k < t->nbytes; k++) sum += p[k];
    }
    for (int i = 0; i < f->n_meta; i++) FUZZ_CHECK(st_meta(f, f->meta[i].key) == f->meta[i].value);
    return sum;
}

/* Write f with st_write and read it back: the same tensors and metadata. */
static void round_trip(const StFile *f)
{
    char path[600];
    fuzz_path(path, sizeof path, "again.safetensors");
    SrError err;
    FUZZ_OK(st_write(path, f->tensors, f->n_tensors, f->meta, f->n_meta, &err), err);
    StFile g;
    FUZZ_OK(st_read(path, &g, &err), err);
    FUZZ_CHECK(g.n_tensors == f->n_tensors && g.n_meta == f->n_meta);
    for (int i = 0; i < f->n_tensors; i++) {
        const StTensor *a = &f->tensors[i], *b = st_find(&g, a->name);
        FUZZ_CHECK(b && b->dtype == a->dtype && b->ndim == a->ndim && b->nbytes == a->nbytes);
        FUZZ_CHECK(memcmp(a->shape, b->shape, sizeof a->shape[0] * (size_t)a->ndim) == 0);
        FUZZ_CHECK(a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0);
    }
    for (int i = 0; i < f->n_meta; i++) {
        const char *v = st_meta(&g, f->meta[i].key);
        FUZZ_CHECK(v && strcmp(v, f->meta[i].value) == 0);
    }
    st_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    fuzz_file(path, sizeof path, "in.safetensors", data, size);
    StFile f;
    SrError err;
    if (st_read(path, &f, &err) == 0) {
        volatile uint64_t sum = touch_tensors(&f);
        (void)sum;
        round_trip(&f);
    } else {
        FUZZ_CHECK(f.n_tensors == 0 && f.n_meta == 0 && f.blob == NULL);
    }
    st_free(&f);
    return 0;
}
