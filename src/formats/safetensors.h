/* safetensors.h — reading and writing the safetensors format.
 *
 * Layout: 8-byte little-endian header length n; n bytes of JSON mapping each
 * tensor name to {"dtype", "shape", "data_offsets": [begin, end)} (offsets
 * relative to the end of the header) plus an optional "__metadata__" object
 * of string -> string; then the raw little-endian data.
 * Only F32 and I32 tensors are written; the reader knows the standard dtype
 * names and rejects the ones it cannot convert. The writer pads the header
 * with spaces so the data starts 8-byte aligned. Tensor bytes are copied as
 * they are, so a little-endian host is assumed (checked). */
#ifndef SEQREP_SAFETENSORS_H
#define SEQREP_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

#define ST_MAX_DIMS 8

typedef enum { ST_F32 = 0, ST_I32 = 1 } StDtype;

typedef struct {
    char *name;
    StDtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    void *data;        /* n_elements * 4 bytes */
    size_t nbytes;
} StTensor;

typedef struct {
    char *key;
    char *value;
} StMeta;

typedef struct {
    StTensor *tensors;
    int n_tensors;
    StMeta *meta;
    int n_meta;
    void *blob;        /* owns the file contents the tensors point into */
} StFile;

/* Write tensors and metadata atomically: to "path.tmp.<pid>", fsync, rename.
 * Tensors are laid out in the order given. */
int st_write(const char *path, const StTensor *tensors, int n_tensors, const StMeta *meta,
             int n_meta, SrError *err);

/* Read and validate a whole file. Rejects, with a one-line message naming the
 * file: truncation, a header length past the end, malformed JSON, unknown or
 * unsupported dtypes, shapes that disagree with byte ranges, overlapping,
 * out-of-range or gap-leaving offsets, duplicate names, non-string metadata.
 * Tensor data points into out->blob, 8-byte aligned. On failure *out is left
 * empty (st_free on it is harmless). */
int st_read(const char *path, StFile *out, SrError *err);

/* The tensor called name, or NULL. */
const StTensor *st_find(const StFile *f, const char *name);
/* The metadata value for key, or NULL. */
const char *st_meta(const StFile *f, const char *key);

/* Release everything st_read allocated and zero *f. */
void st_free(StFile *f);

#endif
