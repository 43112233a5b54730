/* test_hf_model.c — Hugging Face model folders against the PyTorch reference.
 *
 * Each folder of tests/golden/hf/ (written by tests/reference/make_hf_golden.py:
 * Llama with grouped-query attention and an untied head in F32, Mistral in
 * F16, Qwen2 with q/k/v biases in BF16, Qwen3 with q/k norms, head_dim 16 and
 * a tied head in F32, Llama 3.1 RoPE scaling in BF16 over two shards; Gemma
 * with multi-query attention in BF16, Gemma 2 with soft caps and a window of
 * 4 in BF16 over two shards, Gemma 3 with local and linearly scaled global
 * RoPE and a window of 5, and one with layer_types and a tokenizer) is
 * loaded through checkpoint_load, as every command loads it, and run on the
 * golden ids; logits and the residual stream after every layer must match
 * under the rule of tests/unit/model/test_golden.c: |a - b| <= 1e-4 * (max(|a|, |b|) +
 * rms of the golden tensor). Early exit (n_run) and a folder's description
 * (checkpoint_read_info) are checked too. */
#include "test_util.h"
#include "golden_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/memory_floor.h"
#include "engine/model.h"
#include "formats/adapter.h"
#include "formats/checkpoint.h"
#include "formats/hf/hf_config.h"
#include "formats/safetensors.h"

/* Load golden/hf/<name>, run its ids, compare logits and every hidden state. */
static void run_case(const char *name)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "golden/hf/%s", name);
    snprintf(path, sizeof path, "%s/golden.safetensors", dir);
    SrError err;
    StFile g;
    if (st_read(path, &g, &err)) fail_msg("%s", err.msg);
    const StTensor *ids_t = st_find(&g, "ids");
    assert_non_null(ids_t);
    int T = (int)ids_t->shape[0];

    Model m;
    CheckpointInfo info;
    if (checkpoint_load(dir, &m, 1, T, &info, &err)) fail_msg("%s", err.msg);
    const ModelConfig *c = &m.cfg;
    int V = c->vocab_size, C = c->d_model, L = c->n_layers;
    const StTensor *logits = golden_find(&g, "logits", ST_F32, (size_t)T * V);
    const StTensor *hidden = golden_find(&g, "hidden", ST_F32, (size_t)(L + 1) * T * C);

    /* BF16 and F16 folders keep their matrices as stored (mapped), F32 ones are in params */
    int half = strstr(info.manifest_json, "\"torch_dtype\":\"bfloat16\"") ||
               strstr(info.manifest_json, "\"torch_dtype\":\"float16\"");
    assert_int_equal((m.matrices != NULL), half);
    ModelInput in = {.B = 1, .T = T, .ids = ids_t->data, .want_logits = 1};
    if (model_forward(&m, &in, &err)) fail_msg("%s", err.msg);
    double worst = golden_compare(name, "logits", m.a.logits, logits->data, (size_t)T * V);
    for (int l = 0; l <= L; l++) {
        char what[32];
        snprintf(what, sizeof what, "hidden %d", l);
        double w = golden_compare(name, what, model_hidden(&m, l),
                           (const float *)hidden->data + (size_t)l * T * C, (size_t)T * C);
        if (w > worst) worst = w;
    }
    /* early exit: running only layer 0 leaves hidden 1 as the full run's */
    ModelInput early = in;
    early.n_run = 1;
    early.want_logits = 0;
    if (model_forward(&m, &early, &err)) fail_msg("%s", err.msg);
    double w = golden_compare(name, "exit 1", model_hidden(&m, 1), (const float *)hidden->data + (size_t)T * C,
                       (size_t)T * C);
    if (w > worst) worst = w;
    assert_true(strstr(info.manifest_json, "\"format\":\"huggingface\"") != NULL);
    assert_int_equal(info.n_vocab, 0);
    checkpoint_info_free(&info);
    model_free(&m);
    st_free(&g);
    assert_true(worst <= 1.0);
}

static void test_llama_gqa(void **state) { (void)state; run_case("llama_gqa"); }
static void test_mistral(void **state) { (void)state; run_case("mistral"); }
static void test_qwen2_bias(void **state) { (void)state; run_case("qwen2_bias"); }
static void test_qwen3_qknorm(void **state) { (void)state; run_case("qwen3_qknorm"); }
static void test_llama3_rope(void **state) { (void)state; run_case("llama3_rope"); }
static void test_llama_tokenizer(void **state) { (void)state; run_case("llama_tokenizer"); }
static void test_gemma_mqa(void **state) { (void)state; run_case("gemma_mqa"); }
static void test_gemma2_window(void **state) { (void)state; run_case("gemma2_window"); }
static void test_gemma3_local(void **state) { (void)state; run_case("gemma3_local"); }
static void test_gemma3_tokenizer(void **state) { (void)state; run_case("gemma3_tokenizer"); }

/* A folder loaded with its matrices kept as stored and loaded widened to
 * float32 gives the same logits on a short input (within 0.05 of the golden
 * tolerance; the widened values are the same, only sgemm's blocking may
 * differ) and the same base checksum (the adapters' guard); their memory
 * floors count the stored matrices at 2 bytes a value. */
static void test_stored_equals_widened(void **state)
{
    (void)state;
    static const char *const cases[] = {"mistral", "llama3_rope", "gemma2_window"};
    int ids[5] = {1, 4, 9, 3, 7};
    for (int i = 0; i < 3; i++) {
        char dir[128], a[17], b[17];
        snprintf(dir, sizeof dir, "golden/hf/%s", cases[i]);
        Model st, wide;
        SrError err;
        if (checkpoint_load(dir, &st, 1, 5, NULL, &err)) fail_msg("%s", err.msg);
        if (checkpoint_load_trainable(dir, &wide, 1, 5, NULL, &err)) fail_msg("%s", err.msg);
        assert_non_null(st.matrices);
        assert_null(wide.matrices);
        adapter_base_checksum(&st, a);
        adapter_base_checksum(&wide, b);
        assert_string_equal(a, b);
        ModelInput in = {.B = 1, .T = 5, .ids = ids, .want_logits = 1};
        assert_int_equal(model_forward(&st, &in, &err), 0);
        assert_int_equal(model_forward(&wide, &in, &err), 0);
        double w = golden_compare(cases[i], "stored", st.a.logits, wide.a.logits,
                                  (size_t)5 * st.cfg.vocab_size);
        assert_true(w <= 0.05);
        /* the memory floor counts the weights as each holds them: the
           stored matrices at 2 bytes a value (all three folders are BF16) */
        size_t all = model_param_count(&st.cfg), floats = st.n_params;
        assert_true(floats < all && wide.n_params == all);
        FloorRun run = {.B = 1, .T = 5, .with_lm_head = 1};
        assert_true(memory_floor_of_model(&wide, &run).weights == 4.0 * (double)all);
        MemoryFloor f = memory_floor_of_model(&st, &run);
        assert_true(f.weights == 4.0 * (double)floats + 2.0 * (double)(all - floats));
        assert_true(f.total == f.process + f.weights + f.trained + f.activations + f.adapters +
                               f.gradient);
        model_free(&st);
        model_free(&wide);
    }
}

/* The configs come out as config.json says: heads, head size, features. */
static void test_configs(void **state)
{
    (void)state;
    SrError err;
    HfConfig hc;
    if (hf_config_read("golden/hf/qwen3_qknorm", &hc, &err)) fail_msg("%s", err.msg);
    assert_string_equal(hc.architecture, "Qwen3ForCausalLM");
    assert_int_equal(model_head_dim(&hc.cfg), 16);
    assert_int_equal(model_kv_heads(&hc.cfg), 2);
    assert_int_equal(hc.cfg.family.qk_norm, 1);
    assert_int_equal(hc.cfg.tied, 1);
    if (hf_config_read("golden/hf/qwen2_bias", &hc, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hc.cfg.family.qkv_bias, 1);
    assert_int_equal(hc.sliding_window, 0); /* use_sliding_window false */
    if (hf_config_read("golden/hf/mistral", &hc, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hc.sliding_window, 4096);
    assert_int_equal(hc.cfg.max_seq_len, 256); /* max_position_embeddings < window */
    if (hf_config_read("golden/hf/llama3_rope", &hc, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hc.cfg.family.rope_llama3, 1);
    assert_int_equal(hc.cfg.family.rope_original_max_pos, 64);
    assert_true(model_hf_features(&hc.cfg));
    /* Gemma: tied by default, the (1 + w) norms, scaled embeddings, the windows' layers */
    if (hf_config_read("golden/hf/gemma_mqa", &hc, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hc.gemma, 1);
    assert_int_equal(hc.cfg.tied, 1);
    assert_int_equal(model_kv_heads(&hc.cfg), 1);
    assert_true(hc.cfg.family.norm_plus_one && hc.cfg.family.gelu_mlp && !hc.cfg.family.post_norms);
    assert_true(fabsf(hc.cfg.family.embed_scale - sqrtf(48.0f)) < 1e-6f);
    if (hf_config_read("golden/hf/gemma2_window", &hc, &err)) fail_msg("%s", err.msg);
    assert_true(hc.cfg.family.sliding_layers == 0x5 && hc.cfg.family.sliding_window == 4); /* layers 0, 2 */
    assert_true(hc.cfg.family.post_norms && hc.cfg.family.attn_softcap == 3.0f && hc.cfg.family.logit_softcap == 3.0f);
    assert_true(fabsf(hc.cfg.family.attn_scale - 1.0f / sqrtf(24.0f)) < 1e-7f);
    if (hf_config_read("golden/hf/gemma3_local", &hc, &err)) fail_msg("%s", err.msg);
    assert_true(hc.cfg.family.sliding_layers == 0x5); /* pattern 2: layers 0 and 2 slide */
    assert_true(hc.cfg.family.qk_norm && hc.cfg.family.rope_local_theta == 10000.0f &&
                hc.cfg.family.rope_linear_factor == 8.0f && hc.cfg.family.attn_softcap == 0.0f);
    if (hf_config_read("golden/hf/gemma3_tokenizer", &hc, &err)) fail_msg("%s", err.msg);
    assert_true(hc.cfg.family.sliding_layers == 0x6); /* layer_types: 1 and 2 slide */
    assert_false(hf_is_model_dir("golden/hf/llama_gqa/config.json"));
    assert_true(hf_is_model_dir("golden/hf/llama_gqa"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_gqa),    cmocka_unit_test(test_mistral),
        cmocka_unit_test(test_qwen2_bias),   cmocka_unit_test(test_qwen3_qknorm),
        cmocka_unit_test(test_llama3_rope),  cmocka_unit_test(test_llama_tokenizer),
        cmocka_unit_test(test_gemma_mqa),    cmocka_unit_test(test_gemma2_window),
        cmocka_unit_test(test_gemma3_local), cmocka_unit_test(test_gemma3_tokenizer),
        cmocka_unit_test(test_stored_equals_widened),
        cmocka_unit_test(test_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
