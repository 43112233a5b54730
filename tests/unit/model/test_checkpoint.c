/* test_checkpoint.c — saving and loading a small model bit for bit, the
 * Hugging Face tensor layout, and every way a checkpoint is rejected (the bad
 * files are built with st_write from a good one). */
#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/checkpoint.h"
#include "formats/safetensors.h"

static char tmp_dir[64];

static const char *const words[11] = {
    "<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
    "the",   "cat",   "\"quoted\"", "back\\slash", "caf\xc3\xa9",
};

static const char *manifest = "{\"command\":\"seqrep train-lm --seed 3\",\"seed\":3,"
                              "\"steps\":100,\"final_loss\":2.5}";

/* The small configuration of these tests. */
static ModelConfig small_config(int tied)
{
    ModelConfig c = {.vocab_size = 11, .d_model = 8, .n_layers = 2, .n_heads = 2, .d_ff = 12,
                     .max_seq_len = 16, .rope_theta = 10000.0f, .norm_eps = 1e-5f,
                     .tied = tied};
    if (!tied) { /* values that need many digits to survive the JSON */
        c.rope_theta = 500000.3f;
        c.norm_eps = 1.234567e-6f;
    }
    return c;
}

/* A model of small_config(tied) with random weights; RePo layers from
 * repo_from when repo_from >= 0. */
static void make_model_repo(Model *m, int tied, unsigned long long seed, int repo_from)
{
    ModelConfig c = small_config(tied);
    c.repo = repo_from >= 0;
    c.repo_from = repo_from >= 0 ? repo_from : 0;
    SrError err = {{0}};
    assert_int_equal(model_create(m, &c, 1, 4, &err), 0);
    test_fill_random(m->params, (long)m->n_params, &seed, 1.0f);
}

static void make_model(Model *m, int tied, unsigned long long seed)
{
    make_model_repo(m, tied, seed, -1);
}

static void tmp_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", tmp_dir, name);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/seqrep_ckpt_XXXXXX");
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

/* Save a fresh random model (tied or not) to tmp_dir/name. */
static void save_good(const char *path, int tied)
{
    Model m;
    make_model(&m, tied, 11);
    SrError err = {{0}};
    assert_int_equal(checkpoint_save(path, &m, words, 11, manifest, &err), 0);
    model_free(&m);
}

/* ---- good files ------------------------------------------------------------ */

/* Every field of two configs is the same (floats bit for bit). */
static void assert_config_equal(const ModelConfig *b, const ModelConfig *a)
{
    assert_int_equal(b->vocab_size, a->vocab_size);
    assert_int_equal(b->d_model, a->d_model);
    assert_int_equal(b->n_layers, a->n_layers);
    assert_int_equal(b->n_heads, a->n_heads);
    assert_int_equal(b->d_ff, a->d_ff);
    assert_int_equal(b->max_seq_len, a->max_seq_len);
    assert_memory_equal(&b->rope_theta, &a->rope_theta, sizeof(float));
    assert_memory_equal(&b->norm_eps, &a->norm_eps, sizeof(float));
    assert_int_equal(b->tied, a->tied);
    assert_int_equal(b->repo, a->repo);
    if (a->repo) assert_int_equal(b->repo_from, a->repo_from);
    assert_true(b->nope_layers == a->nope_layers);
}

static void check_round_trip(int tied, int repo_from)
{
    char path[512];
    tmp_path(path, sizeof path, repo_from >= 0 ? "repo.safetensors"
                                : tied ? "tied.safetensors" : "untied.safetensors");
    Model m;
    make_model_repo(&m, tied, 1234 + tied, repo_from);
    SrError err = {{0}};
    assert_int_equal(checkpoint_save(path, &m, words, 11, manifest, &err), 0);

    Model back;
    CheckpointInfo info;
    if (checkpoint_load(path, &back, 2, 8, &info, &err)) fail_msg("%s", err.msg);
    assert_int_equal(back.max_batch, 2);
    assert_int_equal(back.max_T, 8);
    assert_int_equal(back.n_params, m.n_params);
    assert_memory_equal(back.params, m.params, m.n_params * sizeof(float));

    const ModelConfig *a = &m.cfg;
    assert_config_equal(&back.cfg, a);
    assert_int_equal(back.cfg.tied, tied);
    assert_int_equal(back.cfg.repo, repo_from >= 0);
    if (repo_from >= 0) assert_int_equal(back.cfg.repo_from, repo_from);
    assert_config_equal(&info.cfg, a);

    assert_int_equal(info.n_vocab, 11);
    for (int i = 0; i < 11; i++) assert_string_equal(info.vocab[i], words[i]);
    assert_string_equal(info.manifest_json, manifest);
    if (tied) assert_ptr_equal(back.p.wlm, back.p.wte);
    checkpoint_info_free(&info);
    assert_null(info.vocab);

    /* the header alone gives the same */
    assert_int_equal(checkpoint_read_info(path, &info, &err), 0);
    assert_config_equal(&info.cfg, a);
    assert_string_equal(info.vocab[10], words[10]);
    assert_string_equal(info.manifest_json, manifest);
    checkpoint_info_free(&info);

    model_free(&back);
    model_free(&m);
}

static void test_round_trip_tied(void **state)
{
    (void)state;
    check_round_trip(1, -1);
}

/* RePo weights (gate, content and z projections of layers repo_from..) and
 * repo_from itself survive the round trip. */
static void test_round_trip_repo(void **state)
{
    (void)state;
    check_round_trip(0, 1);
}

static void test_round_trip_untied(void **state)
{
    (void)state;
    check_round_trip(0, -1);
}

/* rope_theta and norm_eps come back bit for bit whatever their value. */
static void test_config_floats_exact(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "floats.safetensors");
    Model m;
    make_model(&m, 1, 8);
    unsigned long long rng = 2024;
    for (int i = 0; i < 40; i++) {
        float u[2];
        test_fill_random(u, 2, &rng, 1.0f);
        m.cfg.rope_theta = powf(10.0f, 1.0f + 6.0f * fabsf(u[0])) * (1.0f + fabsf(u[1]));
        m.cfg.norm_eps = powf(10.0f, -9.0f + 5.0f * fabsf(u[1]));
        if (i == 0) m.cfg.rope_theta = 1e20f;   /* whole but too big for "%.0f" */
        if (i == 1) m.cfg.norm_eps = 1.4e-45f;  /* smallest subnormal */
        SrError err = {{0}};
        assert_int_equal(checkpoint_save(path, &m, words, 11, NULL, &err), 0);
        CheckpointInfo info;
        assert_int_equal(checkpoint_read_info(path, &info, &err), 0);
        assert_memory_equal(&info.cfg.rope_theta, &m.cfg.rope_theta, sizeof(float));
        assert_memory_equal(&info.cfg.norm_eps, &m.cfg.norm_eps, sizeof(float));
        checkpoint_info_free(&info);
    }
    model_free(&m);
}

/* The file holds the Hugging Face names and shapes, split out of the fused
 * q/k/v and gate/up buffers. */
static void test_hugging_face_layout(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "layout.safetensors");
    Model m;
    make_model(&m, 0, 99);
    SrError err = {{0}};
    assert_int_equal(checkpoint_save(path, &m, words, 11, NULL, &err), 0);

    StFile f;
    assert_int_equal(st_read(path, &f, &err), 0);
    const size_t C = 8, F = 12, V = 11, L = 2;
    assert_int_equal(f.n_tensors, 2 + 9 * L + 1);
    assert_string_equal(st_meta(&f, "format"), "pt");
    assert_string_equal(st_meta(&f, "seqrep.manifest"), "{}");
    assert_non_null(strstr(st_meta(&f, "seqrep.config"), "\"d_ff\":12"));

    struct {
        const char *name;
        int64_t rows, cols; /* cols 0: one dimension */
        const float *want;
    } expect[] = {
        {"model.embed_tokens.weight", V, C, m.p.wte},
        {"model.layers.1.input_layernorm.weight", C, 0, m.p.ln1w + C},
        {"model.layers.1.self_attn.q_proj.weight", C, C, m.p.wqkv + 3 * C * C},
        {"model.layers.1.self_attn.k_proj.weight", C, C, m.p.wqkv + 3 * C * C + C * C},
        {"model.layers.1.self_attn.v_proj.weight", C, C, m.p.wqkv + 3 * C * C + 2 * C * C},
        {"model.layers.0.self_attn.v_proj.weight", C, C, m.p.wqkv + 2 * C * C},
        {"model.layers.1.self_attn.o_proj.weight", C, C, m.p.wo + C * C},
        {"model.layers.1.post_attention_layernorm.weight", C, 0, m.p.ln2w + C},
        {"model.layers.1.mlp.gate_proj.weight", F, C, m.p.wgu + 2 * F * C},
        {"model.layers.1.mlp.up_proj.weight", F, C, m.p.wgu + 2 * F * C + F * C},
        {"model.layers.0.mlp.up_proj.weight", F, C, m.p.wgu + F * C},
        {"model.layers.1.mlp.down_proj.weight", C, F, m.p.wdown + C * F},
        {"model.norm.weight", C, 0, m.p.lnfw},
        {"lm_head.weight", V, C, m.p.wlm},
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const StTensor *t = st_find(&f, expect[i].name);
        if (!t) fail_msg("no tensor %s", expect[i].name);
        assert_int_equal(t->dtype, ST_F32);
        assert_int_equal(t->ndim, expect[i].cols ? 2 : 1);
        assert_int_equal(t->shape[0], expect[i].rows);
        if (expect[i].cols) assert_int_equal(t->shape[1], expect[i].cols);
        size_t n = (size_t)expect[i].rows * (size_t)(expect[i].cols ? expect[i].cols : 1);
        assert_memory_equal(t->data, expect[i].want, n * sizeof(float));
    }
    st_free(&f);
    model_free(&m);

    /* tied: no lm_head */
    make_model(&m, 1, 5);
    assert_int_equal(checkpoint_save(path, &m, words, 11, NULL, &err), 0);
    assert_int_equal(st_read(path, &f, &err), 0);
    assert_int_equal(f.n_tensors, 2 + 9 * L);
    assert_null(st_find(&f, "lm_head.weight"));
    st_free(&f);
    model_free(&m);
}

static void test_save_rejects_bad_arguments(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "never_written.safetensors");
    Model m;
    make_model(&m, 1, 3);
    SrError err = {{0}};
    assert_int_equal(checkpoint_save(path, &m, words, 10, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "10 vocabulary words for a model with vocab_size 11"));
    assert_int_equal(checkpoint_save(path, &m, words, 11, "[1, 2]", &err), -1);
    assert_non_null(strstr(err.msg, "manifest is not a JSON object"));
    assert_int_equal(checkpoint_save(path, &m, words, 11, "{\"a\": ", &err), -1);
    assert_non_null(strstr(err.msg, "manifest is not a JSON object"));
    assert_int_equal(access(path, F_OK), -1);
    model_free(&m);
}

/* ---- rejected files -------------------------------------------------------- */

/* A good checkpoint's tensors and metadata in editable arrays. */
typedef struct {
    StFile f;
    StTensor t[64];
    int n_t;
    StMeta meta[8];
    int n_meta;
} Edit;

static void edit_open(Edit *e, int tied)
{
    char path[512];
    tmp_path(path, sizeof path, tied ? "base_tied.safetensors" : "base_untied.safetensors");
    save_good(path, tied);
    SrError err = {{0}};
    assert_int_equal(st_read(path, &e->f, &err), 0);
    assert_true(e->f.n_tensors <= 63 && e->f.n_meta <= 7);
    e->n_t = e->f.n_tensors;
    memcpy(e->t, e->f.tensors, (size_t)e->n_t * sizeof *e->t);
    e->n_meta = e->f.n_meta;
    memcpy(e->meta, e->f.meta, (size_t)e->n_meta * sizeof *e->meta);
}

static StTensor *edit_tensor(Edit *e, const char *name)
{
    for (int i = 0; i < e->n_t; i++)
        if (strcmp(e->t[i].name, name) == 0) return &e->t[i];
    fail_msg("no tensor %s", name);
    return NULL;
}

static void edit_drop_tensor(Edit *e, const char *name)
{
    StTensor *t = edit_tensor(e, name);
    *t = e->t[--e->n_t];
}

/* Set (or with value NULL, remove) a metadata entry. */
static void edit_set_meta(Edit *e, const char *key, const char *value)
{
    for (int i = 0; i < e->n_meta; i++) {
        if (strcmp(e->meta[i].key, key) != 0) continue;
        if (value) e->meta[i].value = (char *)value;
        else e->meta[i] = e->meta[--e->n_meta];
        return;
    }
    assert_non_null(value);
    e->meta[e->n_meta].key = (char *)key;
    e->meta[e->n_meta++].value = (char *)value;
}

/* Write the edited file to tmp_dir/name (path out) and release the original. */
static void edit_write(Edit *e, const char *name, char *path, size_t cap)
{
    tmp_path(path, cap, name);
    SrError err = {{0}};
    if (st_write(path, e->t, e->n_t, e->meta, e->n_meta, &err)) fail_msg("%s", err.msg);
    st_free(&e->f);
}

/* checkpoint_load (and, when info_too, checkpoint_read_info) must fail with a
 * one-line message starting with the path and containing needle. */
static void expect_rejected(const char *path, const char *needle, int info_too)
{
    Model m;
    CheckpointInfo info;
    SrError err = {{0}};
    assert_int_equal(checkpoint_load(path, &m, 1, 4, &info, &err), -1);
    if (!strstr(err.msg, needle) || strncmp(err.msg, path, strlen(path)) != 0)
        fail_msg("message '%s' should start with '%s' and mention '%s'", err.msg, path, needle);
    assert_null(strchr(err.msg, '\n'));
    assert_null(m.params);
    assert_null(info.vocab);
    assert_null(info.manifest_json);

    err.msg[0] = '\0';
    int rc = checkpoint_read_info(path, &info, &err);
    if (info_too) {
        assert_int_equal(rc, -1);
        assert_non_null(strstr(err.msg, needle));
        assert_null(info.vocab);
    } else {
        assert_int_equal(rc, 0); /* the header itself is fine */
        checkpoint_info_free(&info);
    }
}

static void test_missing_tensor(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_drop_tensor(&e, "model.layers.1.mlp.up_proj.weight");
    edit_write(&e, "missing.safetensors", path, sizeof path);
    expect_rejected(path, "missing tensor 'model.layers.1.mlp.up_proj.weight'", 0);
}

static void test_extra_tensor(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    float bias[8] = {0};
    e.t[e.n_t++] = (StTensor){.name = "model.layers.0.self_attn.q_proj.bias", .dtype = ST_F32,
                              .ndim = 1, .shape = {8}, .data = bias, .nbytes = sizeof bias};
    edit_write(&e, "extra.safetensors", path, sizeof path);
    expect_rejected(path, "unexpected tensor 'model.layers.0.self_attn.q_proj.bias'", 0);
}

/* A NaN or an infinity in a tensor: the load names the file and the tensor
 * (the header alone is still read). */
static void test_nonfinite_weight(void **state)
{
    (void)state;
    const char *names[2] = {"model.embed_tokens.weight", "model.layers.1.mlp.down_proj.weight"};
    const float values[2] = {NAN, -INFINITY};
    for (int k = 0; k < 2; k++) {
        Edit e;
        char path[512];
        edit_open(&e, 1);
        StTensor *t = edit_tensor(&e, names[k]);
        float *copy = malloc(t->nbytes);
        memcpy(copy, t->data, t->nbytes);
        copy[5] = values[k];
        t->data = copy;
        edit_write(&e, k ? "inf.safetensors" : "nan.safetensors", path, sizeof path);
        free(copy);
        char needle[160];
        snprintf(needle, sizeof needle, "tensor '%s' holds a non-finite value (%s at element 5 of",
                 names[k], k ? "-inf" : "nan");
        expect_rejected(path, needle, 0);
    }
}

static void test_lm_head_in_tied_model(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    StTensor head = *edit_tensor(&e, "model.embed_tokens.weight");
    head.name = "lm_head.weight";
    e.t[e.n_t++] = head;
    edit_write(&e, "tied_head.safetensors", path, sizeof path);
    expect_rejected(path, "unexpected tensor 'lm_head.weight' (seqrep.config says the LM head "
                          "is tied",
                    0);
}

static void test_missing_lm_head_in_untied_model(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 0);
    edit_drop_tensor(&e, "lm_head.weight");
    edit_write(&e, "no_head.safetensors", path, sizeof path);
    expect_rejected(path, "missing tensor 'lm_head.weight'", 0);
}

static void test_wrong_shape(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    StTensor *down = edit_tensor(&e, "model.layers.0.mlp.down_proj.weight");
    down->shape[0] = 12; /* transposed: same bytes, wrong shape */
    down->shape[1] = 8;
    edit_write(&e, "transposed.safetensors", path, sizeof path);
    expect_rejected(path,
                    "tensor 'model.layers.0.mlp.down_proj.weight' has shape [12, 8], but "
                    "seqrep.config needs [8, 12]",
                    0);
}

static void test_wrong_rank(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    StTensor *norm = edit_tensor(&e, "model.norm.weight");
    norm->ndim = 2;
    norm->shape[0] = 1;
    norm->shape[1] = 8;
    edit_write(&e, "rank.safetensors", path, sizeof path);
    expect_rejected(path, "tensor 'model.norm.weight' has shape [1, 8], but seqrep.config "
                          "needs [8]",
                    0);
}

static void test_int_tensor(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_tensor(&e, "model.norm.weight")->dtype = ST_I32;
    edit_write(&e, "int.safetensors", path, sizeof path);
    expect_rejected(path, "tensor 'model.norm.weight' is I32, expected F32", 0);
}

/* A config that disagrees with the tensors (d_ff 16 against 12-row tensors). */
static void test_config_not_matching_tensors(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8,\"n_layers\":2,\"n_heads\":2,\"d_ff\":16,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true}");
    edit_write(&e, "dff.safetensors", path, sizeof path);
    expect_rejected(path,
                    "tensor 'model.layers.0.mlp.gate_proj.weight' has shape [12, 8], but "
                    "seqrep.config needs [16, 8]",
                    0);
}

/* A config claiming a huge model is refused by the tensor check, before a
 * model of that size is allocated (a fuzz_checkpoint input: n_layers 10^9
 * asked for terabytes, which AddressSanitizer refuses outright). */
static void test_config_claiming_huge_model(void **state)
{
    (void)state;
    const char *configs[3][2] = {
        {"\"n_layers\":1000000000,\"d_ff\":12", "missing tensor 'model.layers.2.input_layernorm.weight'"},
        {"\"n_layers\":2,\"d_ff\":2000000000",
         "tensor 'model.layers.0.mlp.gate_proj.weight' has shape [12, 8], but seqrep.config needs "
         "[2000000000, 8]"},
        {"\"n_layers\":2147483647,\"d_ff\":2147483647", "has shape [12, 8]"},
    };
    for (int k = 0; k < 3; k++) {
        Edit e;
        char path[512], config[400];
        edit_open(&e, 1);
        snprintf(config, sizeof config,
                 "{\"vocab_size\":11,\"d_model\":8,%s,\"n_heads\":2,\"max_seq_len\":16,"
                 "\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true}", configs[k][0]);
        edit_set_meta(&e, "seqrep.config", config);
        edit_write(&e, "huge.safetensors", path, sizeof path);
        expect_rejected(path, configs[k][1], 0);
    }
}

/* Fewer layers in the config than in the file: layer 1 is unexpected. */
static void test_config_with_fewer_layers(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8,\"n_layers\":1,\"n_heads\":2,\"d_ff\":12,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true}");
    edit_write(&e, "layers.safetensors", path, sizeof path);
    expect_rejected(path, "unexpected tensor 'model.layers.1.", 0);
}

static void test_config_failing_check(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8,\"n_layers\":2,\"n_heads\":3,\"d_ff\":12,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true}");
    edit_write(&e, "heads.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.config: d_model 8 is not divisible by n_heads 3", 1);
}

static void test_missing_config(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config", NULL);
    edit_write(&e, "no_config.safetensors", path, sizeof path);
    expect_rejected(path, "no seqrep.config metadata", 1);
}

static void test_malformed_config(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config", "{\"vocab_size\":11,");
    edit_write(&e, "bad_config.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.config is not a JSON object", 1);
}

static void test_config_missing_field(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8,\"n_layers\":2,\"n_heads\":2,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true}");
    edit_write(&e, "no_dff.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.config: missing field 'd_ff'", 1);
}

static void test_config_field_not_integer(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8.5,\"n_layers\":2,\"n_heads\":2,\"d_ff\":12,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true}");
    edit_write(&e, "fraction.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.config: 'd_model' must be an integer", 1);
}

/* The layers a NoPE or hybrid model leaves unrotated survive the round
 * trip, and a loaded model runs them without rotation when no plan is given:
 * its logits equal those of the same weights under an explicit plan. */
static void test_nope_layers_round_trip(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "nope.safetensors");
    Model m, back;
    make_model(&m, 1, 77);
    m.cfg.nope_layers = 2; /* layer 1 of 2 */
    SrError err = {{0}};
    assert_int_equal(checkpoint_save(path, &m, words, 11, NULL, &err), 0);
    assert_int_equal(checkpoint_load(path, &back, 1, 4, NULL, &err), 0);
    assert_true(back.cfg.nope_layers == 2);
    int ids[4] = {1, 2, 3, 4};
    PosKind plan[2] = {POS_ROPE, POS_NONE};
    ModelInput by_default = {.B = 1, .T = 4, .ids = ids, .want_logits = 1};
    ModelInput explicit_plan = {.B = 1, .T = 4, .ids = ids, .pos_kind = plan, .want_logits = 1};
    size_t V = (size_t)m.cfg.vocab_size;
    float *expected = malloc(sizeof(float) * 4 * V);
    assert_int_equal(model_forward(&m, &explicit_plan, &err), 0);
    memcpy(expected, m.a.logits, sizeof(float) * 4 * V);
    assert_int_equal(model_forward(&back, &by_default, &err), 0);
    assert_memory_equal(back.a.logits, expected, sizeof(float) * 4 * V);
    free(expected);
    model_free(&back);
    model_free(&m);
}

static void test_nope_layers_bad(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8,\"n_layers\":2,\"n_heads\":2,\"d_ff\":12,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true,\"nope_layers\":[0.5]}");
    edit_write(&e, "nope_half.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.config: 'nope_layers' must hold layer numbers 0..63", 1);
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.config",
                  "{\"vocab_size\":11,\"d_model\":8,\"n_layers\":2,\"n_heads\":2,\"d_ff\":12,"
                  "\"max_seq_len\":16,\"rope_theta\":10000,\"norm_eps\":1e-05,\"tied\":true,\"nope_layers\":[5]}");
    edit_write(&e, "nope_beyond.safetensors", path, sizeof path);
    expect_rejected(path, "nope_layers names a layer beyond the model's 2", 1);
}

static void test_vocab_length_mismatch(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.vocab", "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\"]");
    edit_write(&e, "short_vocab.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.vocab has 10 words but seqrep.config says vocab_size 11", 1);
}

static void test_missing_vocab(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.vocab", NULL);
    edit_write(&e, "no_vocab.safetensors", path, sizeof path);
    expect_rejected(path, "no seqrep.vocab metadata", 1);
}

static void test_vocab_not_strings(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.vocab", "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",7]");
    edit_write(&e, "vocab_number.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.vocab entry 10 is not a string", 1);
}

static void test_bad_manifest(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.manifest", "not json");
    edit_write(&e, "bad_manifest.safetensors", path, sizeof path);
    expect_rejected(path, "seqrep.manifest is not a JSON object", 1);
}

/* A file without a manifest still loads, with "{}". */
static void test_missing_manifest_is_empty(void **state)
{
    (void)state;
    Edit e;
    char path[512];
    edit_open(&e, 1);
    edit_set_meta(&e, "seqrep.manifest", NULL);
    edit_write(&e, "no_manifest.safetensors", path, sizeof path);
    CheckpointInfo info;
    SrError err = {{0}};
    assert_int_equal(checkpoint_read_info(path, &info, &err), 0);
    assert_string_equal(info.manifest_json, "{}");
    checkpoint_info_free(&info);
}

/* A sequence length beyond max_seq_len is model_create's error, with the path. */
static void test_load_too_long(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "long.safetensors");
    save_good(path, 1);
    Model m;
    SrError err = {{0}};
    assert_int_equal(checkpoint_load(path, &m, 1, 17, NULL, &err), -1);
    assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
    assert_non_null(strstr(err.msg, "max_seq_len"));
    assert_null(m.params);
    /* and without info the load works */
    assert_int_equal(checkpoint_load(path, &m, 1, 16, NULL, &err), 0);
    model_free(&m);
}

/* A broken safetensors file reaches the caller with st_read's message. */
static void test_not_safetensors(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "text.safetensors");
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs("hello", fp);
    fclose(fp);
    expect_rejected(path, "shorter than the 8-byte header length", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_tied),
        cmocka_unit_test(test_round_trip_untied),
        cmocka_unit_test(test_round_trip_repo),
        cmocka_unit_test(test_config_floats_exact),
        cmocka_unit_test(test_hugging_face_layout),
        cmocka_unit_test(test_save_rejects_bad_arguments),
        cmocka_unit_test(test_missing_tensor),
        cmocka_unit_test(test_extra_tensor),
        cmocka_unit_test(test_nonfinite_weight),
        cmocka_unit_test(test_lm_head_in_tied_model),
        cmocka_unit_test(test_missing_lm_head_in_untied_model),
        cmocka_unit_test(test_wrong_shape),
        cmocka_unit_test(test_wrong_rank),
        cmocka_unit_test(test_int_tensor),
        cmocka_unit_test(test_config_not_matching_tensors),
        cmocka_unit_test(test_config_claiming_huge_model),
        cmocka_unit_test(test_config_with_fewer_layers),
        cmocka_unit_test(test_config_failing_check),
        cmocka_unit_test(test_missing_config),
        cmocka_unit_test(test_malformed_config),
        cmocka_unit_test(test_config_missing_field),
        cmocka_unit_test(test_config_field_not_integer),
        cmocka_unit_test(test_nope_layers_round_trip),
        cmocka_unit_test(test_nope_layers_bad),
        cmocka_unit_test(test_vocab_length_mismatch),
        cmocka_unit_test(test_missing_vocab),
        cmocka_unit_test(test_vocab_not_strings),
        cmocka_unit_test(test_bad_manifest),
        cmocka_unit_test(test_missing_manifest_is_empty),
        cmocka_unit_test(test_load_too_long),
        cmocka_unit_test(test_not_safetensors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
