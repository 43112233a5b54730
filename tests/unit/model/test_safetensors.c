/* test_safetensors.c — round trips, atomic writes, and every malformed file
 * the reader must reject (each built byte by byte here). */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/safetensors.h"

static char tmp_dir[64];

/* Remove every entry of the temporary directory (files and empty dirs). */
static void empty_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
        remove(path);
    }
    closedir(d);
}

/* Number of entries in the temporary directory. */
static int count_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/seqrep_st_XXXXXX");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    empty_tmp_dir();
    return rmdir(tmp_dir);
}

/* Each test starts from an empty directory. */
static int test_setup(void **state)
{
    (void)state;
    empty_tmp_dir();
    return 0;
}

/* path = tmp_dir/name */
static void tmp_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", tmp_dir, name);
}

static void write_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (n) assert_int_equal(fwrite(bytes, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

/* A file with header length header_len (not necessarily strlen(header)), the
 * header text, and n_data bytes of data (0x11, 0x22, ...). */
static void write_raw(const char *path, uint64_t header_len, const char *header, size_t n_data)
{
    size_t n = strlen(header);
    unsigned char *buf = malloc(8 + n + n_data + 1);
    assert_non_null(buf);
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)(header_len >> (8 * i));
    memcpy(buf + 8, header, n);
    for (size_t i = 0; i < n_data; i++) buf[8 + n + i] = (unsigned char)(0x11 * (i + 1));
    write_bytes(path, buf, 8 + n + n_data);
    free(buf);
}

/* A file whose header is exactly the given text. */
static void write_with_header(const char *path, const char *header, size_t n_data)
{
    write_raw(path, strlen(header), header, n_data);
}

/* st_read must fail with a one-line message that starts with the path and
 * contains needle, leaving the StFile empty. */
static void expect_read_error(const char *path, const char *needle)
{
    StFile f;
    SrError err = {{0}};
    assert_int_equal(st_read(path, &f, &err), -1);
    if (!strstr(err.msg, needle) || strncmp(err.msg, path, strlen(path)) != 0)
        fail_msg("message '%s' should start with '%s' and mention '%s'", err.msg, path, needle);
    assert_null(strchr(err.msg, '\n'));
    assert_null(f.tensors);
    assert_null(f.meta);
    assert_null(f.blob);
    assert_int_equal(f.n_tensors, 0);
    st_free(&f); /* harmless on the empty result */
}

/* Write `header` with n_data data bytes to a fresh file and expect needle. */
static void expect_header_error(const char *name, const char *header, size_t n_data,
                                const char *needle)
{
    char path[512];
    tmp_path(path, sizeof path, name);
    write_with_header(path, header, n_data);
    expect_read_error(path, needle);
}

/* ---- good files ---------------------------------------------------------- */

/* The data section of the safetensors file at path starts 8-byte aligned. */
static void assert_data_aligned(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    unsigned char len[8];
    assert_int_equal(fread(len, 1, 8, fp), 8);
    fclose(fp);
    uint64_t n = 0;
    for (int i = 0; i < 8; i++) n |= (uint64_t)len[i] << (8 * i);
    assert_int_equal((8 + n) % 8, 0);
}

/* Read back the file test_round_trip_bit_exact wrote: every tensor (w (2,
 * 3), ids (4), an empty (0, 5), a scalar with an odd name) and the
 * metadata, bit for bit; st_free empties the file. */
static void check_round_trip(const char *path, const float *w, const int32_t *ids,
                             const float *scalar, const char *note)
{
    SrError err = {{0}};
    StFile f;
    assert_int_equal(st_read(path, &f, &err), 0);
    assert_int_equal(f.n_tensors, 4);
    assert_int_equal(f.n_meta, 2);

    const StTensor *rw = st_find(&f, "weights");
    assert_non_null(rw);
    assert_int_equal(rw->dtype, ST_F32);
    assert_int_equal(rw->ndim, 2);
    assert_int_equal(rw->shape[0], 2);
    assert_int_equal(rw->shape[1], 3);
    assert_int_equal(rw->nbytes, 6 * sizeof(float));
    assert_memory_equal(rw->data, w, 6 * sizeof(float));
    assert_int_equal((uintptr_t)rw->data % 8, 0);

    const StTensor *ri = st_find(&f, "ids");
    assert_non_null(ri);
    assert_int_equal(ri->dtype, ST_I32);
    assert_int_equal(ri->ndim, 1);
    assert_int_equal(ri->shape[0], 4);
    assert_memory_equal(ri->data, ids, 4 * sizeof(int32_t));
    assert_int_equal(((const int32_t *)ri->data)[0], -2147483647 - 1);

    const StTensor *re = st_find(&f, "empty");
    assert_non_null(re);
    assert_int_equal(re->ndim, 2);
    assert_int_equal(re->shape[0], 0);
    assert_int_equal(re->shape[1], 5);
    assert_int_equal(re->nbytes, 0);

    const StTensor *rs = st_find(&f, "scalar \"odd\" name");
    assert_non_null(rs);
    assert_int_equal(rs->ndim, 0);
    assert_int_equal(rs->nbytes, 4);
    assert_memory_equal(rs->data, scalar, 4);

    assert_null(st_find(&f, "missing"));
    assert_string_equal(st_meta(&f, "format"), "pt");
    assert_string_equal(st_meta(&f, "note"), note);
    assert_null(st_meta(&f, "absent"));
    st_free(&f);
    assert_null(f.blob);
    assert_int_equal(f.n_tensors, 0);
}

static void test_round_trip_bit_exact(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "good.safetensors");

    float w[2 * 3];
    unsigned long long rng = 7;
    test_fill_random(w, 6, &rng, 3.0f);
    uint32_t nan_bits = 0x7fc01234u; /* a NaN with payload must survive too */
    memcpy(&w[4], &nan_bits, 4);
    w[5] = -0.0f;
    int32_t ids[4] = {-2147483647 - 1, -1, 0, 2147483647};
    float scalar = 1.5f;

    StTensor t[4] = {
        {.name = "weights", .dtype = ST_F32, .ndim = 2, .shape = {2, 3}, .data = w,
         .nbytes = sizeof w},
        {.name = "ids", .dtype = ST_I32, .ndim = 1, .shape = {4}, .data = ids,
         .nbytes = sizeof ids},
        {.name = "empty", .dtype = ST_F32, .ndim = 2, .shape = {0, 5}, .data = NULL,
         .nbytes = 0},
        {.name = "scalar \"odd\" name", .dtype = ST_F32, .ndim = 0, .data = &scalar,
         .nbytes = 4},
    };
    StMeta meta[2] = {
        {.key = "format", .value = "pt"},
        {.key = "note", .value = "quotes \" backslash \\ newline \n unicode \xc3\xa9"},
    };
    SrError err = {{0}};
    assert_int_equal(st_write(path, t, 4, meta, 2, &err), 0);
    assert_int_equal(count_tmp_dir(), 1); /* no temporary file left behind */

    assert_data_aligned(path);
    check_round_trip(path, w, ids, &scalar, meta[1].value);
}

static void test_round_trip_no_tensors(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "nothing.safetensors");
    SrError err = {{0}};
    assert_int_equal(st_write(path, NULL, 0, NULL, 0, &err), 0);
    StFile f;
    assert_int_equal(st_read(path, &f, &err), 0);
    assert_int_equal(f.n_tensors, 0);
    assert_int_equal(f.n_meta, 0);
    st_free(&f);
}

/* A file written by another tool may leave the data unaligned; the reader
 * must still hand out usable (aligned) pointers. */
static void test_reads_unpadded_header(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "unpadded.safetensors");
    const char *header = "{\"a\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    assert_int_not_equal((8 + strlen(header)) % 4, 0);
    write_with_header(path, header, 8);
    StFile f;
    SrError err = {{0}};
    assert_int_equal(st_read(path, &f, &err), 0);
    const StTensor *a = st_find(&f, "a");
    assert_non_null(a);
    assert_int_equal((uintptr_t)a->data % 8, 0);
    const unsigned char want[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    assert_memory_equal(a->data, want, 8);
    st_free(&f);
}

/* ---- atomic writes ------------------------------------------------------- */

static void test_write_into_missing_directory_fails(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "no/such/dir/x.safetensors");
    float x = 1.0f;
    StTensor t = {.name = "x", .dtype = ST_F32, .ndim = 1, .shape = {1}, .data = &x, .nbytes = 4};
    SrError err = {{0}};
    assert_int_equal(st_write(path, &t, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(count_tmp_dir(), 0);
}

/* When the temporary file cannot be created the old file stays as it was. */
static void test_failed_write_keeps_old_file(void **state)
{
    (void)state;
    char path[512], tmp[600];
    tmp_path(path, sizeof path, "keep.safetensors");
    float old_value = 42.0f, new_value = -1.0f;
    StTensor t = {.name = "x", .dtype = ST_F32, .ndim = 1, .shape = {1}, .data = &old_value,
                  .nbytes = 4};
    SrError err = {{0}};
    assert_int_equal(st_write(path, &t, 1, NULL, 0, &err), 0);

    /* block the temporary name with a directory */
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(mkdir(tmp, 0700), 0);
    t.data = &new_value;
    assert_int_equal(st_write(path, &t, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(rmdir(tmp), 0);

    StFile f;
    assert_int_equal(st_read(path, &f, &err), 0);
    assert_memory_equal(st_find(&f, "x")->data, &old_value, 4);
    st_free(&f);
    assert_int_equal(count_tmp_dir(), 1);
}

/* When the final rename fails the temporary file is removed. */
static void test_failed_rename_removes_temp(void **state)
{
    (void)state;
    char path[512], inner[600];
    tmp_path(path, sizeof path, "a_directory");
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(inner, sizeof inner, "%s/keep", path);
    write_bytes(inner, "x", 1); /* non-empty: rename over it must fail */
    float x = 1.0f;
    StTensor t = {.name = "x", .dtype = ST_F32, .ndim = 1, .shape = {1}, .data = &x, .nbytes = 4};
    SrError err = {{0}};
    assert_int_equal(st_write(path, &t, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "rename"));
    assert_int_equal(count_tmp_dir(), 1); /* only the directory */
    assert_int_equal(remove(inner), 0);
}

static void test_write_rejects_bad_input(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "bad_input.safetensors");
    float x[4] = {0};
    SrError err = {{0}};

    StTensor wrong_bytes = {.name = "x", .dtype = ST_F32, .ndim = 2, .shape = {2, 2}, .data = x,
                            .nbytes = 12};
    assert_int_equal(st_write(path, &wrong_bytes, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "do not match shape [2, 2]"));

    StTensor twice[2] = {
        {.name = "x", .dtype = ST_F32, .ndim = 1, .shape = {1}, .data = x, .nbytes = 4},
        {.name = "x", .dtype = ST_F32, .ndim = 1, .shape = {1}, .data = x, .nbytes = 4},
    };
    assert_int_equal(st_write(path, twice, 2, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "duplicate tensor name 'x'"));

    StMeta meta[2] = {{"k", "1"}, {"k", "2"}};
    assert_int_equal(st_write(path, NULL, 0, meta, 2, &err), -1);
    assert_non_null(strstr(err.msg, "duplicate metadata key 'k'"));

    StTensor reserved = {.name = "__metadata__", .dtype = ST_F32, .ndim = 1, .shape = {1},
                         .data = x, .nbytes = 4};
    assert_int_equal(st_write(path, &reserved, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "__metadata__"));
    assert_int_equal(count_tmp_dir(), 0);
}

/* ---- malformed files, one per test --------------------------------------- */

static void test_missing_file(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "does_not_exist.safetensors");
    expect_read_error(path, "cannot open");
}

static void test_empty_file(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "empty.safetensors");
    write_bytes(path, "", 0);
    expect_read_error(path, "file is 0 bytes, shorter than the 8-byte header length");
}

static void test_five_byte_file(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "five.safetensors");
    write_bytes(path, "\x02\x00\x00\x00\x00", 5);
    expect_read_error(path, "file is 5 bytes, shorter than the 8-byte header length");
}

static void test_header_length_past_end(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "past_end.safetensors");
    write_raw(path, 100, "{}", 0);
    expect_read_error(path, "header length 100 runs past the end of the file (10 bytes)");
}

static void test_huge_header_length(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "huge.safetensors");
    write_raw(path, 0xfffffffffffffff0ULL, "{}", 0);
    expect_read_error(path, "is too large");
}

static void test_malformed_json(void **state)
{
    (void)state;
    expect_header_error("bad_json.safetensors", "{\"a\": {\"dtype\": \"F32\", ", 0,
                        "malformed JSON header");
}

static void test_trailing_garbage_after_json(void **state)
{
    (void)state;
    expect_header_error("garbage.safetensors", "{} x", 0, "malformed JSON header");
}

static void test_nul_in_header(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "nul.safetensors");
    write_raw(path, 4, "{}", 0); /* 8 + 2 bytes of text: add two NULs */
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    fputc(0, fp);
    fputc(0, fp);
    fclose(fp);
    expect_read_error(path, "NUL byte");
}

static void test_header_not_object(void **state)
{
    (void)state;
    expect_header_error("array.safetensors", "[1, 2, 3]", 0, "header is not a JSON object");
}

static void test_entry_not_object(void **state)
{
    (void)state;
    expect_header_error("entry.safetensors", "{\"x\": 5}", 0,
                        "tensor 'x': entry is not a JSON object");
}

static void test_missing_dtype(void **state)
{
    (void)state;
    expect_header_error("no_dtype.safetensors", "{\"x\":{\"shape\":[1],\"data_offsets\":[0,4]}}",
                        4, "tensor 'x': missing or non-string dtype");
}

static void test_unknown_dtype(void **state)
{
    (void)state;
    expect_header_error("unknown.safetensors",
                        "{\"x\":{\"dtype\":\"Q7\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                        "tensor 'x': unknown dtype 'Q7'");
}

static void test_unsupported_dtype(void **state)
{
    (void)state;
    expect_header_error("f16.safetensors",
                        "{\"x\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4,
                        "tensor 'x': unsupported dtype F16");
}

static void test_missing_shape(void **state)
{
    (void)state;
    expect_header_error("no_shape.safetensors", "{\"x\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}",
                        4, "tensor 'x': missing or non-array shape");
}

static void test_shape_byte_mismatch(void **state)
{
    (void)state;
    expect_header_error("mismatch.safetensors",
                        "{\"x\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}}", 12,
                        "tensor 'x': data_offsets [0, 12) do not match shape [2, 2] of F32 "
                        "(16 bytes)");
}

static void test_negative_shape(void **state)
{
    (void)state;
    expect_header_error("negative.safetensors",
                        "{\"x\":{\"dtype\":\"F32\",\"shape\":[2,-1],\"data_offsets\":[0,8]}}", 8,
                        "tensor 'x': shape entry 1 is not a non-negative integer");
}

static void test_fractional_shape(void **state)
{
    (void)state;
    expect_header_error("fraction.safetensors",
                        "{\"x\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4,
                        "tensor 'x': shape entry 0 is not a non-negative integer");
}

static void test_too_many_dimensions(void **state)
{
    (void)state;
    expect_header_error(
        "dims.safetensors",
        "{\"x\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4,
        "tensor 'x': shape has 9 dimensions, more than 8");
}

static void test_overflowing_shape(void **state)
{
    (void)state;
    expect_header_error(
        "overflow.safetensors",
        "{\"x\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}",
        4, "tensor 'x': shape [4294967296, 4294967296] is too large");
}

static void test_missing_offsets(void **state)
{
    (void)state;
    expect_header_error("no_offsets.safetensors", "{\"x\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4,
                        "tensor 'x': data_offsets must be [begin, end]");
}

static void test_offsets_wrong_length(void **state)
{
    (void)state;
    expect_header_error("three_offsets.safetensors",
                        "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 4,
                        "tensor 'x': data_offsets must be [begin, end]");
}

static void test_offsets_begin_after_end(void **state)
{
    (void)state;
    expect_header_error("backwards.safetensors",
                        "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", 8,
                        "tensor 'x': data_offsets [8, 4) have begin > end");
}

static void test_offsets_out_of_range(void **state)
{
    (void)state;
    expect_header_error("out_of_range.safetensors",
                        "{\"x\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8,
                        "tensor 'x': data_offsets [0, 16) run past the end of the data section");
}

static void test_overlapping_offsets(void **state)
{
    (void)state;
    expect_header_error("overlap.safetensors",
                        "{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]},"
                        "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                        12, "tensors 'a' [0, 8) and 'b' [4, 12) overlap");
}

static void test_hole_between_tensors(void **state)
{
    (void)state;
    expect_header_error("hole.safetensors",
                        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                        "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
                        12, "hole in the data section: bytes [4, 8) belong to no tensor");
}

static void test_hole_at_start(void **state)
{
    (void)state;
    expect_header_error("hole_start.safetensors",
                        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8,
                        "hole in the data section: bytes [0, 4) belong to no tensor");
}

static void test_trailing_data(void **state)
{
    (void)state;
    expect_header_error("trailing.safetensors",
                        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 12,
                        "bytes [4, 12) after the last tensor belong to no tensor");
}

static void test_duplicate_tensor_name(void **state)
{
    (void)state;
    expect_header_error("duplicate.safetensors",
                        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                        "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                        8, "duplicate tensor name 'a'");
}

static void test_duplicate_metadata_key(void **state)
{
    (void)state;
    expect_header_error("dup_meta.safetensors",
                        "{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}", 0,
                        "duplicate __metadata__ key 'k'");
}

static void test_metadata_not_object(void **state)
{
    (void)state;
    expect_header_error("meta_array.safetensors", "{\"__metadata__\":[\"pt\"]}", 0,
                        "__metadata__ is not a JSON object");
}

static void test_non_string_metadata(void **state)
{
    (void)state;
    expect_header_error("meta_number.safetensors",
                        "{\"__metadata__\":{\"format\":\"pt\",\"steps\":100}}", 0,
                        "__metadata__ value of 'steps' is not a string");
}

/* A good file cut short loses the end of its data section. */
static void test_truncated_data(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "truncated.safetensors");
    float x[4] = {1, 2, 3, 4};
    StTensor t = {.name = "x", .dtype = ST_F32, .ndim = 1, .shape = {4}, .data = x,
                  .nbytes = sizeof x};
    SrError err = {{0}};
    assert_int_equal(st_write(path, &t, 1, NULL, 0, &err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size - 3), 0);
    expect_read_error(path, "tensor 'x': data_offsets [0, 16) run past the end of the data "
                            "section (13 bytes; truncated file?)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_round_trip_bit_exact, test_setup),
        cmocka_unit_test_setup(test_round_trip_no_tensors, test_setup),
        cmocka_unit_test_setup(test_reads_unpadded_header, test_setup),
        cmocka_unit_test_setup(test_write_into_missing_directory_fails, test_setup),
        cmocka_unit_test_setup(test_failed_write_keeps_old_file, test_setup),
        cmocka_unit_test_setup(test_failed_rename_removes_temp, test_setup),
        cmocka_unit_test_setup(test_write_rejects_bad_input, test_setup),
        cmocka_unit_test_setup(test_missing_file, test_setup),
        cmocka_unit_test_setup(test_empty_file, test_setup),
        cmocka_unit_test_setup(test_five_byte_file, test_setup),
        cmocka_unit_test_setup(test_header_length_past_end, test_setup),
        cmocka_unit_test_setup(test_huge_header_length, test_setup),
        cmocka_unit_test_setup(test_malformed_json, test_setup),
        cmocka_unit_test_setup(test_trailing_garbage_after_json, test_setup),
        cmocka_unit_test_setup(test_nul_in_header, test_setup),
        cmocka_unit_test_setup(test_header_not_object, test_setup),
        cmocka_unit_test_setup(test_entry_not_object, test_setup),
        cmocka_unit_test_setup(test_missing_dtype, test_setup),
        cmocka_unit_test_setup(test_unknown_dtype, test_setup),
        cmocka_unit_test_setup(test_unsupported_dtype, test_setup),
        cmocka_unit_test_setup(test_missing_shape, test_setup),
        cmocka_unit_test_setup(test_shape_byte_mismatch, test_setup),
        cmocka_unit_test_setup(test_negative_shape, test_setup),
        cmocka_unit_test_setup(test_fractional_shape, test_setup),
        cmocka_unit_test_setup(test_too_many_dimensions, test_setup),
        cmocka_unit_test_setup(test_overflowing_shape, test_setup),
        cmocka_unit_test_setup(test_missing_offsets, test_setup),
        cmocka_unit_test_setup(test_offsets_wrong_length, test_setup),
        cmocka_unit_test_setup(test_offsets_begin_after_end, test_setup),
        cmocka_unit_test_setup(test_offsets_out_of_range, test_setup),
        cmocka_unit_test_setup(test_overlapping_offsets, test_setup),
        cmocka_unit_test_setup(test_hole_between_tensors, test_setup),
        cmocka_unit_test_setup(test_hole_at_start, test_setup),
        cmocka_unit_test_setup(test_trailing_data, test_setup),
        cmocka_unit_test_setup(test_duplicate_tensor_name, test_setup),
        cmocka_unit_test_setup(test_duplicate_metadata_key, test_setup),
        cmocka_unit_test_setup(test_metadata_not_object, test_setup),
        cmocka_unit_test_setup(test_non_string_metadata, test_setup),
        cmocka_unit_test_setup(test_truncated_data, test_setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
