/* fuzz_checkpoint.c — a checkpoint's config, vocabulary and manifest
 * (checkpoint_read_info), the tokenizer they rebuild (checkpoint_tokenizer)
 * and the full load with its tensor checks (checkpoint_load), on any bytes.
 * What read_info accepts, load must agree with. */
#include <stdint.h>
#include <string.h>

#include "formats/checkpoint.h"
#include "fuzz_util.h"

/* Encode and decode a fixed text with the checkpoint's tokenizer. */
static void use_tokenizer(const CheckpointInfo *info, const char *path)
{
    Tokenizer tok;
    SrError err;
    if (checkpoint_tokenizer(info, path, &tok, &err)) return;
    int ids[64];
    long n = tokenizer_encode(&tok, "The cats sat, the cat's mat.", 1, ids, 64);
    FUZZ_CHECK(n >= 1 && n <= 64);
    for (long i = 0; i < n; i++) FUZZ_CHECK(ids[i] >= 0 && ids[i] < tok.n_words);
    free(tokenizer_decode(&tok, ids, n, TOKENIZER_DECODE_PRETTY));
    tokenizer_free(&tok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[600];
    fuzz_file(path, sizeof path, "in.safetensors", data, size);
    CheckpointInfo info;
    SrError err;
    if (checkpoint_read_info(path, &info, &err)) return 0;
    FUZZ_CHECK(info.n_vocab == info.cfg.vocab_size && info.manifest_json != NULL);
    use_tokenizer(&info, path);

    Model m;
    CheckpointInfo again;
    int T = info.cfg.max_seq_len < 4 ? info.cfg.max_seq_len : 4;
    if (checkpoint_load(path, &m, 1, T, &again, &err) == 0) {
        FUZZ_CHECK(memcmp(&again.cfg, &info.cfg, sizeof info.cfg) == 0);
        FUZZ_CHECK(again.n_vocab == info.n_vocab);
        for (int i = 0; i < info.n_vocab; i++) FUZZ_CHECK(strcmp(again.vocab[i], info.vocab[i]) == 0);
        model_free(&m);
        checkpoint_info_free(&again);
    }
    checkpoint_info_free(&info);
    return 0;
}
