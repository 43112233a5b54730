/* fuzz_hf_index.c — the model.safetensors.index.json of a sharded Hugging
 * Face folder (read by hf_model_load, formats/hf/hf_model_folder.h) on any bytes. The
 * scratch folder holds a fixed one-layer Llama config.json, its tensors in
 * two shards (model-00001-of-00002.safetensors, model-00002-of-00002...) and
 * a copy of the first shard (copy.safetensors); the input is the index. An
 * index the loader accepts must give exactly the weights of the correct
 * index: each tensor found once, in the right place. */
#include <stdint.h>
#include <string.h>

#include "formats/hf/hf_model_folder.h"
#include "formats/safetensors.h"
#include "fuzz_util.h"

static const char CONFIG[] =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 8, \"intermediate_size\": 16,"
    " \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"num_key_value_heads\": 2,"
    " \"vocab_size\": 10, \"max_position_embeddings\": 8, \"tie_word_embeddings\": true}";

static const char CORRECT_INDEX[] =
    "{\"metadata\": {\"total_size\": 2880}, \"weight_map\": {"
    "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
    "\"model.layers.0.input_layernorm.weight\": \"model-00001-of-00002.safetensors\","
    "\"model.layers.0.self_attn.q_proj.weight\": \"model-00001-of-00002.safetensors\","
    "\"model.layers.0.self_attn.k_proj.weight\": \"model-00001-of-00002.safetensors\","
    "\"model.layers.0.self_attn.v_proj.weight\": \"model-00001-of-00002.safetensors\","
    "\"model.layers.0.self_attn.o_proj.weight\": \"model-00002-of-00002.safetensors\","
    "\"model.layers.0.post_attention_layernorm.weight\": \"model-00002-of-00002.safetensors\","
    "\"model.layers.0.mlp.gate_proj.weight\": \"model-00002-of-00002.safetensors\","
    "\"model.layers.0.mlp.up_proj.weight\": \"model-00002-of-00002.safetensors\","
    "\"model.layers.0.mlp.down_proj.weight\": \"model-00002-of-00002.safetensors\","
    "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"}}";

/* name, rows, cols (0: a vector), shard (1 or 2) of each tensor. */
static const struct { const char *name; int rows, cols, shard; } TENSORS[] = {
    {"model.embed_tokens.weight", 10, 8, 1},
    {"model.layers.0.input_layernorm.weight", 8, 0, 1},
    {"model.layers.0.self_attn.q_proj.weight", 8, 8, 1},
    {"model.layers.0.self_attn.k_proj.weight", 8, 8, 1},
    {"model.layers.0.self_attn.v_proj.weight", 8, 8, 1},
    {"model.layers.0.self_attn.o_proj.weight", 8, 8, 2},
    {"model.layers.0.post_attention_layernorm.weight", 8, 0, 2},
    {"model.layers.0.mlp.gate_proj.weight", 16, 8, 2},
    {"model.layers.0.mlp.up_proj.weight", 16, 8, 2},
    {"model.layers.0.mlp.down_proj.weight", 8, 16, 2},
    {"model.norm.weight", 8, 0, 2},
};
#define N_TENSORS ((int)(sizeof TENSORS / sizeof TENSORS[0]))

static char dir[600];
static float *reference; /* the parameters the correct index loads */
static size_t n_reference;

/* Write the tensors of shard (1 or 2) to dir/name, element k of tensor i
 * being i + k / 1000 (every value differs). */
static void write_shard(const char *name, int shard)
{
    static float values[N_TENSORS][160];
    StTensor t[N_TENSORS];
    int n = 0;
    for (int i = 0; i < N_TENSORS; i++) {
        if (TENSORS[i].shard != shard) continue;
        int count = TENSORS[i].rows * (TENSORS[i].cols ? TENSORS[i].cols : 1);
        for (int k = 0; k < count; k++) values[i][k] = (float)i + (float)k / 1000.0f;
        t[n] = (StTensor){.name = (char *)TENSORS[i].name, .dtype = ST_F32,
                          .ndim = TENSORS[i].cols ? 2 : 1, .data = values[i],
                          .nbytes = (size_t)count * sizeof(float)};
        t[n].shape[0] = TENSORS[i].rows;
        t[n].shape[1] = TENSORS[i].cols;
        n++;
    }
    char path[700];
    SrError err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FUZZ_OK(st_write(path, t, n, NULL, 0, &err), err);
}

/* Make the folder and load the correct index once. */
static void set_up(void)
{
    fuzz_path(dir, sizeof dir, "hf");
    mkdir(dir, 0700);
    char path[700];
    snprintf(path, sizeof path, "%s/config.json", dir);
    fuzz_write(path, CONFIG, strlen(CONFIG));
    write_shard("model-00001-of-00002.safetensors", 1);
    write_shard("model-00002-of-00002.safetensors", 2);
    write_shard("copy.safetensors", 1);
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    fuzz_write(path, CORRECT_INDEX, strlen(CORRECT_INDEX));
    Model m;
    SrError err;
    FUZZ_OK(hf_model_load(dir, &m, 1, 4, NULL, 0, &err), err);
    n_reference = m.n_params;
    reference = malloc(n_reference * sizeof *reference);
    FUZZ_CHECK(reference != NULL);
    memcpy(reference, m.params, n_reference * sizeof *reference);
    model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!reference) set_up();
    char path[700];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    fuzz_write(path, data, size);
    Model m;
    SrError err;
    if (hf_model_load(dir, &m, 1, 4, NULL, 0, &err)) {
        FUZZ_CHECK(err.msg[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(m.n_params == n_reference);
    FUZZ_CHECK(memcmp(m.params, reference, n_reference * sizeof *reference) == 0);
    model_free(&m);
    return 0;
}
