/* safetensors.c — writing and strictly validating safetensors files.
 *
 * The tensor bytes are copied to and from memory as they are, so this file
 * assumes a little-endian host (checked at compile time where the compiler
 * says, and at run time otherwise). The 8-byte header length is encoded byte
 * by byte and does not depend on the host. */
#include "formats/safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/atomic_file.h"

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "safetensors.c copies tensor bytes as they are: little-endian host required");
#endif

/* The largest header accepted (the limit of the reference implementation). */
#define ST_MAX_HEADER_BYTES 100000000ULL
/* Integers above 2^53 cannot come out of a JSON double exactly. */
#define ST_MAX_JSON_INT 9007199254740992ULL

/* Every dtype name of the safetensors format; only F32 and I32 are read. */
static const char *const known_dtypes[] = {
    "BOOL", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "F4",  "F6_E2M3", "F6_E3M2", "I16",
    "U16",  "F16", "BF16", "I32",    "U32",     "F32",     "C64", "F64",     "I64",     "U64",
};

/* 1 if this machine stores integers little-endian first. */
static int host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* The safetensors name of a supported dtype. */
static const char *dtype_name(StDtype dtype)
{
    return dtype == ST_I32 ? "I32" : "F32";
}

/* Map a dtype name to StDtype: 1 supported, 0 known but unsupported, -1 unknown. */
static int dtype_from_name(const char *name, StDtype *out)
{
    if (strcmp(name, "F32") == 0) {
        *out = ST_F32;
        return 1;
    }
    if (strcmp(name, "I32") == 0) {
        *out = ST_I32;
        return 1;
    }
    for (size_t i = 0; i < sizeof known_dtypes / sizeof known_dtypes[0]; i++)
        if (strcmp(name, known_dtypes[i]) == 0) return 0;
    return -1;
}

/* Write "[d0, d1, ...]" for a shape of ndim dimensions into buf (cap bytes). */
static void format_shape(char *buf, size_t cap, const int64_t *shape, int ndim)
{
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < ndim && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "",
                                 (long long)shape[i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
}

/* Bytes a tensor of this shape holds at 4 bytes per element; -1 if the count
 * does not fit in 2^62 (no real file can hold it). */
static int64_t shape_nbytes(const int64_t *shape, int ndim)
{
    const uint64_t limit = (uint64_t)1 << 62;
    uint64_t n = 4;
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) return 0;
    for (int i = 0; i < ndim; i++) {
        uint64_t d = (uint64_t)shape[i];
        if (n > limit / d) return -1;
        n *= d;
    }
    return (int64_t)n;
}

static void store_u64_le(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t load_u64_le(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- writing ---------------------------------------------------------------- */

/* Check the caller's tensors and metadata before anything touches the disk. */
static int check_write_input(const char *path, const StTensor *tensors, int n_tensors,
                             const StMeta *meta, int n_meta, SrError *err)
{
    if (n_tensors < 0 || n_meta < 0 || (n_tensors > 0 && !tensors) || (n_meta > 0 && !meta))
        return sr_fail(err, "%s: invalid tensor or metadata list", path);
    for (int i = 0; i < n_tensors; i++) {
        const StTensor *t = &tensors[i];
        if (!t->name) return sr_fail(err, "%s: tensor %d has no name", path, i);
        if (strcmp(t->name, "__metadata__") == 0)
            return sr_fail(err, "%s: '__metadata__' cannot be a tensor name", path);
        for (int j = 0; j < i; j++)
            if (strcmp(tensors[j].name, t->name) == 0)
                return sr_fail(err, "%s: duplicate tensor name '%s'", path, t->name);
        if (t->dtype != ST_F32 && t->dtype != ST_I32)
            return sr_fail(err, "%s: tensor '%s': unsupported dtype %d", path, t->name,
                           (int)t->dtype);
        if (t->ndim < 0 || t->ndim > ST_MAX_DIMS)
            return sr_fail(err, "%s: tensor '%s': %d dimensions (0 to %d allowed)", path,
                           t->name, t->ndim, ST_MAX_DIMS);
        for (int d = 0; d < t->ndim; d++)
            if (t->shape[d] < 0)
                return sr_fail(err, "%s: tensor '%s': negative dimension %lld", path, t->name,
                               (long long)t->shape[d]);
        int64_t want = shape_nbytes(t->shape, t->ndim);
        if (want < 0 || (uint64_t)want != (uint64_t)t->nbytes) {
            char shape[160];
            format_shape(shape, sizeof shape, t->shape, t->ndim);
            return sr_fail(err, "%s: tensor '%s': %zu bytes do not match shape %s of %s", path,
                           t->name, t->nbytes, shape, dtype_name(t->dtype));
        }
        if (t->nbytes > 0 && !t->data)
            return sr_fail(err, "%s: tensor '%s' has no data", path, t->name);
    }
    for (int i = 0; i < n_meta; i++) {
        if (!meta[i].key || !meta[i].value)
            return sr_fail(err, "%s: metadata entry %d has no key or value", path, i);
        for (int j = 0; j < i; j++)
            if (strcmp(meta[j].key, meta[i].key) == 0)
                return sr_fail(err, "%s: duplicate metadata key '%s'", path, meta[i].key);
    }
    return 0;
}

/* A JSON integer written exactly (cJSON would print large doubles as 1e+15). */
static cJSON *json_exact_int(uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(text);
}

/* Add {"dtype", "shape", "data_offsets": [begin, begin + nbytes)} for t to
 * the header object root; -1 when out of memory. */
static int add_tensor_entry(cJSON *root, const StTensor *t, uint64_t begin)
{
    cJSON *entry = cJSON_AddObjectToObject(root, t->name);
    if (!entry || !cJSON_AddStringToObject(entry, "dtype", dtype_name(t->dtype))) return -1;
    cJSON *shape = cJSON_AddArrayToObject(entry, "shape");
    cJSON *offsets = cJSON_AddArrayToObject(entry, "data_offsets");
    if (!shape || !offsets) return -1;
    for (int d = 0; d < t->ndim; d++)
        if (!cJSON_AddItemToArray(shape, json_exact_int((uint64_t)t->shape[d]))) return -1;
    if (!cJSON_AddItemToArray(offsets, json_exact_int(begin)) ||
        !cJSON_AddItemToArray(offsets, json_exact_int(begin + t->nbytes)))
        return -1;
    return 0;
}

/* The header JSON (unpadded) for tensors laid out back to back in order, or
 * NULL when out of memory. The caller frees it. */
static char *build_header(const StTensor *tensors, int n_tensors, const StMeta *meta, int n_meta)
{
    cJSON *root = cJSON_CreateObject();
    int ok = root != NULL;
    if (ok && n_meta > 0) {
        cJSON *m = cJSON_AddObjectToObject(root, "__metadata__");
        ok = m != NULL;
        for (int i = 0; ok && i < n_meta; i++)
            ok = cJSON_AddStringToObject(m, meta[i].key, meta[i].value) != NULL;
    }
    uint64_t offset = 0;
    for (int i = 0; ok && i < n_tensors; i++) {
        ok = add_tensor_entry(root, &tensors[i], offset) == 0;
        offset += tensors[i].nbytes;
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* Write the header length, the space-padded header and every tensor's bytes. */
static int write_contents(FILE *fp, const char *header, const StTensor *tensors, int n_tensors)
{
    size_t n = strlen(header);
    size_t padded = (8 + n + 7) / 8 * 8 - 8; /* data starts 8-byte aligned */
    unsigned char len[8];
    store_u64_le(len, padded);
    if (fwrite(len, 1, 8, fp) != 8) return -1;
    if (fwrite(header, 1, n, fp) != n) return -1;
    for (size_t i = n; i < padded; i++)
        if (fputc(' ', fp) == EOF) return -1;
    for (int i = 0; i < n_tensors; i++)
        if (tensors[i].nbytes > 0 &&
            fwrite(tensors[i].data, 1, tensors[i].nbytes, fp) != tensors[i].nbytes)
            return -1;
    return 0;
}

int st_write(const char *path, const StTensor *tensors, int n_tensors, const StMeta *meta,
             int n_meta, SrError *err)
{
    if (!host_is_little_endian())
        return sr_fail(err, "%s: safetensors needs a little-endian host", path);
    if (check_write_input(path, tensors, n_tensors, meta, n_meta, err)) return -1;

    char *header = build_header(tensors, n_tensors, meta, n_meta);
    if (!header) return sr_fail(err, "%s: out of memory building the header", path);

    AtomicFile af;
    int rc = atomic_file_open(&af, path, err);
    if (rc == 0) {
        if (write_contents(af.f, header, tensors, n_tensors) != 0)
            rc = atomic_file_fail(&af, strerror(errno ? errno : EIO), err);
        else
            rc = atomic_file_commit(&af, err);
    }
    free(header);
    return rc;
}

/* ---- reading ---------------------------------------------------------------- */

/* Read a whole regular file into a new buffer with `spare` extra bytes at the end. */
static int read_whole_file(const char *path, size_t spare, unsigned char **buf, size_t *size,
                           SrError *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return sr_fail(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(fp);
        return sr_fail(err, "%s: not a regular file", path);
    }
    if ((unsigned long long)st.st_size > (unsigned long long)(SIZE_MAX / 2)) {
        fclose(fp);
        return sr_fail(err, "%s: file too large to read (%lld bytes)", path,
                       (long long)st.st_size);
    }
    size_t n = (size_t)st.st_size;
    *buf = malloc(n + spare);
    if (!*buf) {
        fclose(fp);
        return sr_fail(err, "%s: out of memory reading %zu bytes", path, n);
    }
    size_t got = fread(*buf, 1, n, fp);
    int read_error = ferror(fp);
    fclose(fp);
    if (got != n || read_error) {
        free(*buf);
        *buf = NULL;
        return sr_fail(err, "%s: read error after %zu of %zu bytes", path, got, n);
    }
    *size = n;
    return 0;
}

/* A JSON number that is a non-negative integer no larger than 2^53 -> *v. */
static int json_to_count(const cJSON *item, uint64_t *v)
{
    if (!cJSON_IsNumber(item)) return -1;
    double d = item->valuedouble;
    if (!(d >= 0.0) || d > (double)ST_MAX_JSON_INT || d != (double)(uint64_t)d) return -1;
    *v = (uint64_t)d;
    return 0;
}

/* Where a tensor's bytes lie in the data section, for the coverage check. */
typedef struct {
    uint64_t begin, end;
    const char *name;
    int tensor; /* index in StFile.tensors */
} ByteRange;

/* Fill t (name, dtype, shape, nbytes) and r from one header entry, checking
 * the dtype, shape and offsets against each other and the data size. */
static int parse_tensor_entry(const char *path, const cJSON *entry, uint64_t data_size,
                              StTensor *t, ByteRange *r, SrError *err)
{
    const char *name = entry->string;
    if (!cJSON_IsObject(entry))
        return sr_fail(err, "%s: tensor '%s': entry is not a JSON object", path, name);

    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(entry, "dtype");
    if (!cJSON_IsString(dtype))
        return sr_fail(err, "%s: tensor '%s': missing or non-string dtype", path, name);
    int known = dtype_from_name(dtype->valuestring, &t->dtype);
    if (known < 0)
        return sr_fail(err, "%s: tensor '%s': unknown dtype '%s'", path, name,
                       dtype->valuestring);
    if (known == 0)
        return sr_fail(err, "%s: tensor '%s': unsupported dtype %s (only F32 and I32 are read)",
                       path, name, dtype->valuestring);

    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(entry, "shape");
    if (!cJSON_IsArray(shape))
        return sr_fail(err, "%s: tensor '%s': missing or non-array shape", path, name);
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > ST_MAX_DIMS)
        return sr_fail(err, "%s: tensor '%s': shape has %d dimensions, more than %d", path,
                       name, ndim, ST_MAX_DIMS);
    t->ndim = 0;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, shape) {
        uint64_t d;
        if (json_to_count(dim, &d))
            return sr_fail(err, "%s: tensor '%s': shape entry %d is not a non-negative integer",
                           path, name, t->ndim);
        t->shape[t->ndim++] = (int64_t)d;
    }

    const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(entry, "data_offsets");
    uint64_t begin, end;
    if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
        json_to_count(cJSON_GetArrayItem(offsets, 0), &begin) ||
        json_to_count(cJSON_GetArrayItem(offsets, 1), &end))
        return sr_fail(err,
                       "%s: tensor '%s': data_offsets must be [begin, end] of non-negative "
                       "integers",
                       path, name);
    if (begin > end)
        return sr_fail(err, "%s: tensor '%s': data_offsets [%llu, %llu) have begin > end", path,
                       name, (unsigned long long)begin, (unsigned long long)end);
    if (end > data_size)
        return sr_fail(err,
                       "%s: tensor '%s': data_offsets [%llu, %llu) run past the end of the "
                       "data section (%llu bytes; truncated file?)",
                       path, name, (unsigned long long)begin, (unsigned long long)end,
                       (unsigned long long)data_size);

    int64_t want = shape_nbytes(t->shape, t->ndim);
    if (want < 0 || (uint64_t)want != end - begin) {
        char text[160];
        format_shape(text, sizeof text, t->shape, t->ndim);
        if (want < 0)
            return sr_fail(err, "%s: tensor '%s': shape %s is too large", path, name, text);
        return sr_fail(err,
                       "%s: tensor '%s': data_offsets [%llu, %llu) do not match shape %s of "
                       "%s (%lld bytes)",
                       path, name, (unsigned long long)begin, (unsigned long long)end, text,
                       dtype->valuestring, (long long)want);
    }
    t->nbytes = (size_t)(end - begin);
    r->begin = begin;
    r->end = end;
    r->name = name;
    return 0;
}

/* Copy the "__metadata__" object (string -> string) into out->meta. */
static int parse_metadata(const char *path, const cJSON *meta, StFile *out, SrError *err)
{
    if (!cJSON_IsObject(meta)) return sr_fail(err, "%s: __metadata__ is not a JSON object", path);
    int n = cJSON_GetArraySize(meta);
    out->meta = calloc((size_t)(n > 0 ? n : 1), sizeof *out->meta);
    if (!out->meta) return sr_fail(err, "%s: out of memory", path);
    const cJSON *item;
    cJSON_ArrayForEach(item, meta) {
        if (!cJSON_IsString(item))
            return sr_fail(err, "%s: __metadata__ value of '%s' is not a string", path,
                           item->string);
        for (int j = 0; j < out->n_meta; j++)
            if (strcmp(out->meta[j].key, item->string) == 0)
                return sr_fail(err, "%s: duplicate __metadata__ key '%s'", path, item->string);
        StMeta *m = &out->meta[out->n_meta++]; /* counted now so st_free frees it */
        m->key = strdup(item->string);
        m->value = strdup(item->valuestring);
        if (!m->key || !m->value) return sr_fail(err, "%s: out of memory", path);
    }
    return 0;
}

/* qsort order of strings through pointers to them. */
static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reject two header entries with the same name (cJSON keeps both). */
static int check_unique_names(const char *path, const cJSON *root, SrError *err)
{
    int n = cJSON_GetArraySize(root);
    if (n < 2) return 0;
    const char **names = malloc((size_t)n * sizeof *names);
    if (!names) return sr_fail(err, "%s: out of memory", path);
    int k = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, root) names[k++] = item->string;
    qsort(names, (size_t)n, sizeof *names, compare_names);
    int rc = 0;
    for (int i = 1; i < n && rc == 0; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            rc = sr_fail(err, "%s: duplicate tensor name '%s' in the header", path, names[i]);
    free(names);
    return rc;
}

/* qsort order of byte ranges: by begin, then end. */
static int compare_ranges(const void *a, const void *b)
{
    const ByteRange *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

/* The ranges (sorted here) must tile [0, data_size): no overlap, no hole. */
static int check_coverage(const char *path, ByteRange *r, int n, uint64_t data_size,
                          SrError *err)
{
    qsort(r, (size_t)n, sizeof *r, compare_ranges);
    uint64_t covered = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].begin < covered)
            return sr_fail(err, "%s: tensors '%s' [%llu, %llu) and '%s' [%llu, %llu) overlap",
                           path, r[i - 1].name, (unsigned long long)r[i - 1].begin,
                           (unsigned long long)r[i - 1].end, r[i].name,
                           (unsigned long long)r[i].begin, (unsigned long long)r[i].end);
        if (r[i].begin > covered)
            return sr_fail(err,
                           "%s: hole in the data section: bytes [%llu, %llu) belong to no "
                           "tensor",
                           path, (unsigned long long)covered, (unsigned long long)r[i].begin);
        covered = r[i].end;
    }
    if (covered != data_size)
        return sr_fail(err,
                       "%s: hole in the data section: bytes [%llu, %llu) after the last tensor "
                       "belong to no tensor",
                       path, (unsigned long long)covered, (unsigned long long)data_size);
    return 0;
}

/* Parse and check the header JSON text (n bytes at text) describing a data
 * section of data_size bytes; fills out's tensors (without data pointers) and
 * metadata; ranges receives one entry per tensor. */
static int parse_header(const char *path, const char *text, size_t n, uint64_t data_size,
                        StFile *out, ByteRange **ranges, SrError *err)
{
    if (memchr(text, '\0', n)) return sr_fail(err, "%s: header contains a NUL byte", path);
    char *json = malloc(n + 1);
    if (!json) return sr_fail(err, "%s: out of memory", path);
    memcpy(json, text, n);
    json[n] = '\0';
    const char *stop = NULL;
    cJSON *root = cJSON_ParseWithOpts(json, &stop, 1);
    if (!root) {
        size_t at = stop ? (size_t)(stop - json) : 0;
        free(json);
        return sr_fail(err, "%s: malformed JSON header (error near byte %zu of %zu)", path, at,
                       n);
    }
    free(json);

    int rc = 0;
    if (!cJSON_IsObject(root)) rc = sr_fail(err, "%s: header is not a JSON object", path);
    if (rc == 0) rc = check_unique_names(path, root, err);

    int n_entries = cJSON_GetArraySize(root);
    if (rc == 0) {
        out->tensors = calloc((size_t)(n_entries > 0 ? n_entries : 1), sizeof *out->tensors);
        *ranges = calloc((size_t)(n_entries > 0 ? n_entries : 1), sizeof **ranges);
        if (!out->tensors || !*ranges) rc = sr_fail(err, "%s: out of memory", path);
    }
    const cJSON *entry;
    cJSON_ArrayForEach(entry, root) {
        if (rc) break;
        if (strcmp(entry->string, "__metadata__") == 0) {
            rc = parse_metadata(path, entry, out, err);
            continue;
        }
        StTensor *t = &out->tensors[out->n_tensors];
        rc = parse_tensor_entry(path, entry, data_size, t, &(*ranges)[out->n_tensors], err);
        if (rc == 0) {
            t->name = strdup(entry->string);
            if (!t->name) rc = sr_fail(err, "%s: out of memory", path);
            else out->n_tensors++;
        }
    }
    if (rc == 0) {
        /* names in ranges point into the JSON tree; use the copies instead */
        for (int i = 0; i < out->n_tensors; i++) {
            (*ranges)[i].name = out->tensors[i].name;
            (*ranges)[i].tensor = i;
        }
        rc = check_coverage(path, *ranges, out->n_tensors, data_size, err);
    }
    cJSON_Delete(root);
    return rc;
}

int st_read(const char *path, StFile *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    if (!host_is_little_endian())
        return sr_fail(err, "%s: safetensors needs a little-endian host", path);

    unsigned char *buf = NULL;
    size_t size = 0;
    /* 8 spare bytes let the data section be moved to an 8-byte boundary */
    if (read_whole_file(path, 8, &buf, &size, err)) return -1;
    out->blob = buf;
    if (size < 8) {
        st_free(out);
        return sr_fail(err, "%s: file is %zu bytes, shorter than the 8-byte header length",
                       path, size);
    }
    uint64_t n = load_u64_le(buf);
    if (n > ST_MAX_HEADER_BYTES) {
        st_free(out);
        return sr_fail(err, "%s: header length %llu is too large (limit %llu bytes)", path,
                       (unsigned long long)n, ST_MAX_HEADER_BYTES);
    }
    if (n > size - 8) {
        st_free(out);
        return sr_fail(err, "%s: header length %llu runs past the end of the file (%zu bytes)",
                       path, (unsigned long long)n, size);
    }
    size_t data_start = 8 + (size_t)n;
    size_t data_size = size - data_start;

    ByteRange *ranges = NULL;
    if (parse_header(path, (const char *)buf + 8, (size_t)n, data_size, out, &ranges, err)) {
        free(ranges);
        st_free(out);
        return -1;
    }

    /* The header is parsed, so the data may slide over it to an 8-byte
     * boundary, making F32/I32 tensors safe to use in place. */
    size_t aligned = (data_start + 7) / 8 * 8;
    if (aligned != data_start) memmove(buf + aligned, buf + data_start, data_size);
    for (int i = 0; i < out->n_tensors; i++)
        out->tensors[ranges[i].tensor].data = buf + aligned + ranges[i].begin;
    free(ranges);
    return 0;
}

const StTensor *st_find(const StFile *f, const char *name)
{
    for (int i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

const char *st_meta(const StFile *f, const char *key)
{
    for (int i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta[i].key, key) == 0) return f->meta[i].value;
    return NULL;
}

void st_free(StFile *f)
{
    for (int i = 0; i < f->n_tensors; i++) free(f->tensors[i].name);
    for (int i = 0; i < f->n_meta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->tensors);
    free(f->meta);
    free(f->blob);
    memset(f, 0, sizeof *f);
}
