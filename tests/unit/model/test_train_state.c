/* test_train_state.c — the training state of formats/train_state.h: saved
 * and read back bit for bit (weights, moments, step, Rng, loss, settings),
 * copied into a model, and rejected with a message naming the file when
 * damaged, truncated, not a state, or for a model of another size, and
 * naming the tensor when it holds a NaN or an infinity. */
#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/adamw.h"
#include "engine/model.h"
#include "formats/safetensors.h"
#include "formats/train_state.h"

static char tmp_dir[64];
static const char *const SETTINGS = "{\"seed\":\"3\",\"steps\":\"100\"}";

static void tmp_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", tmp_dir, name);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/seqrep_state_XXXXXX");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    DIR *d = opendir(tmp_dir);
    if (d) {
        struct dirent *e;
        char path[512];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
            remove(path);
        }
        closedir(d);
    }
    return rmdir(tmp_dir);
}

/* A small model of width d with random weights and moments from seed. */
static void make_model(Model *m, int d, unsigned long long seed)
{
    ModelConfig c = {.vocab_size = 11, .d_model = d, .n_layers = 1, .n_heads = 2, .d_ff = 12,
                     .max_seq_len = 8, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    SrError err;
    assert_int_equal(model_create(m, &c, 1, 4, &err), 0);
    assert_int_equal(adamw_create(m, &err), 0);
    test_fill_random(m->params, (long)m->n_params, &seed, 1.0f);
    test_fill_random(m->m1, (long)m->n_params, &seed, 0.1f);
    test_fill_random(m->m2, (long)m->n_params, &seed, 0.01f);
}

/* Save the state of a model of width 8 (seed 5) at step 40 to tmp_dir/name. */
static void save_state(const char *name, char *path, size_t cap, Model *m, Rng *rng)
{
    tmp_path(path, cap, name);
    make_model(m, 8, 5);
    rng_seed(rng, 99);
    rng_u64(rng);
    SrError err;
    if (train_state_save(path, m, 40, rng, 2.718281828f, SETTINGS, &err)) fail_msg("%s", err.msg);
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[128];
    Model m = {0}, back = {0};
    Rng rng;
    save_state("a.state.safetensors", path, sizeof path, &m, &rng);
    TrainState st;
    SrError err;
    assert_int_equal(train_state_read(path, &st, &err), 0);
    assert_int_equal(st.step, 40);
    assert_memory_equal(&st.rng, &rng, sizeof rng);
    assert_true(st.loss == 2.718281828f);
    assert_string_equal(st.settings_json, SETTINGS);
    assert_int_equal(st.n_params, m.n_params);
    ModelConfig c = m.cfg;
    assert_int_equal(model_create(&back, &c, 1, 4, &err), 0);
    assert_int_equal(train_state_apply(&st, &back, &err), 0); /* moments created here */
    assert_memory_equal(back.params, m.params, sizeof(float) * m.n_params);
    assert_memory_equal(back.m1, m.m1, sizeof(float) * m.n_params);
    assert_memory_equal(back.m2, m.m2, sizeof(float) * m.n_params);
    train_state_free(&st);
    train_state_free(&st); /* harmless twice */
    model_free(&m);
    model_free(&back);
}

static void test_other_model_size(void **state)
{
    (void)state;
    char path[128];
    Model m = {0}, wide = {0};
    Rng rng;
    save_state("b.state.safetensors", path, sizeof path, &m, &rng);
    TrainState st;
    SrError err;
    assert_int_equal(train_state_read(path, &st, &err), 0);
    make_model(&wide, 16, 1);
    assert_int_equal(train_state_apply(&st, &wide, &err), -1);
    assert_non_null(strstr(err.msg, "parameters"));
    train_state_free(&st);
    model_free(&m);
    model_free(&wide);
}

/* Flip one byte of the file at offset from its end. */
static void flip_byte(const char *path, long from_end)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, -from_end, SEEK_END), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, -from_end, SEEK_END), 0);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static void test_damaged_weights(void **state)
{
    (void)state;
    char path[128];
    Model m = {0};
    Rng rng;
    save_state("c.state.safetensors", path, sizeof path, &m, &rng);
    flip_byte(path, 5); /* inside adamw.m2 */
    TrainState st;
    SrError err;
    assert_int_equal(train_state_read(path, &st, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "damaged"));
    assert_null(st.settings_json);
    train_state_free(&st);
    model_free(&m);
}

static void test_truncated(void **state)
{
    (void)state;
    char path[128];
    Model m = {0};
    Rng rng;
    save_state("d.state.safetensors", path, sizeof path, &m, &rng);
    assert_int_equal(truncate(path, 200), 0);
    TrainState st;
    SrError err;
    assert_int_equal(train_state_read(path, &st, &err), -1);
    assert_non_null(strstr(err.msg, path));
    model_free(&m);
}

static void test_not_a_state(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "plain.safetensors");
    float x[4] = {1, 2, 3, 4};
    StTensor t = {.name = "params", .dtype = ST_F32, .ndim = 1, .shape = {4}, .data = x,
                  .nbytes = sizeof x};
    StMeta meta = {"format", "pt"};
    SrError err;
    assert_int_equal(st_write(path, &t, 1, &meta, 1, &err), 0);
    TrainState st;
    assert_int_equal(train_state_read(path, &st, &err), -1);
    assert_non_null(strstr(err.msg, "not a seqrep training state"));
}

static void test_missing_moments_refuse_to_save(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "none.state.safetensors");
    Model m = {0};
    make_model(&m, 8, 5);
    free(m.m1);
    m.m1 = NULL;
    Rng rng;
    rng_seed(&rng, 1);
    SrError err;
    assert_int_equal(train_state_save(path, &m, 1, &rng, 1.0f, SETTINGS, &err), -1);
    assert_int_equal(access(path, F_OK), -1);
    model_free(&m);
}

/* A state whose weights (or moments) hold a NaN or an infinity is refused
 * when applied, naming the tensor. */
static void test_nonfinite_refused(void **state)
{
    (void)state;
    char path[128];
    Model m = {0}, back = {0};
    Rng rng;
    tmp_path(path, sizeof path, "nan.state.safetensors");
    make_model(&m, 8, 5);
    rng_seed(&rng, 1);
    const char *names[3] = {"'params'", "'adamw.m1'", "'adamw.m2'"};
    float *bufs[3] = {m.params, m.m1, m.m2};
    SrError err;
    assert_int_equal(model_create(&back, &m.cfg, 1, 4, &err), 0);
    for (int i = 0; i < 3; i++) {
        float keep = bufs[i][3];
        bufs[i][3] = i == 1 ? INFINITY : NAN;
        assert_int_equal(train_state_save(path, &m, 7, &rng, 1.0f, SETTINGS, &err), 0);
        bufs[i][3] = keep;
        TrainState st;
        assert_int_equal(train_state_read(path, &st, &err), 0);
        assert_int_equal(train_state_apply(&st, &back, &err), -1);
        assert_non_null(strstr(err.msg, names[i]));
        assert_non_null(strstr(err.msg, "non-finite"));
        assert_non_null(strstr(err.msg, "element 3 of"));
        train_state_free(&st);
    }
    model_free(&m);
    model_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_other_model_size),
        cmocka_unit_test(test_damaged_weights),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_not_a_state),
        cmocka_unit_test(test_missing_moments_refuse_to_save),
        cmocka_unit_test(test_nonfinite_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
