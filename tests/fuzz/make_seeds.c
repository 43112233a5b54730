/* make_seeds.c — writes the seed corpora of tests/fuzz/corpus/ (`make
 * fuzz-seeds`, by hand: the fuzzers never write there). Binary files come
 * from seqrep's own writers (st_write, checkpoint_save, adapter_write,
 * train_state_save, tokenizer building, conll_write, sweep_table_csv);
 * text files are the small fixtures of the unit tests. Each seed is
 * DIR/NAME/seed-K; files already there (regression inputs) stay.
 * Usage: make_seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/rng.h"
#include "data/conll.h"
#include "data/corpus.h"
#include "engine/adamw.h"
#include "formats/adapter.h"
#include "formats/checkpoint.h"
#include "formats/safetensors.h"
#include "formats/train_state.h"
#include "fuzz_model.h"
#include "runs/sweep/sweep_table.h"
#include "text/tokenizer.h"

static const char *root;

/* Stop with a message: a seed maker that fails half-way is no use. */
static void die(const char *what, const SrError *err)
{
    fprintf(stderr, "make_seeds: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

/* The path DIR/name/seed-k (the folder made when missing). */
static const char *seed_path(const char *name, int k)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, name);
    mkdir(root, 0777);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/seed-%d", root, name, k);
    return path;
}

/* Write n bytes (a prefix byte first when prefix >= 0) as seed k of name. */
static void put(const char *name, int k, int prefix, const void *data, size_t n)
{
    FILE *f = fopen(seed_path(name, k), "wb");
    if (!f) die(name, NULL);
    if (prefix >= 0) fputc(prefix, f);
    if (n && fwrite(data, 1, n, f) != n) die(name, NULL);
    if (fclose(f)) die(name, NULL);
}

/* The bytes of a file (caller frees); *n its size. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) die(path, NULL);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) die(path, NULL);
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* Copy seed k of `from` as seed k2 of `to`, with a prefix byte (or none: -1). */
static void copy_seed(const char *from, int k, const char *to, int k2, int prefix)
{
    size_t n;
    char *buf = slurp(seed_path(from, k), &n);
    put(to, k2, prefix, buf, n);
    free(buf);
}

/* Text seeds: texts[0..n) as seeds 0.. of name. */
static void put_texts(const char *name, const char *const *texts, int n)
{
    for (int k = 0; k < n; k++) put(name, k, -1, texts[k], strlen(texts[k]));
}

/* ---- safetensors, checkpoints, adapters, states ---------------------------- */

static void safetensors_seeds(void)
{
    SrError err;
    float f[6] = {1, 2, 3, 4, 5, 6};
    int32_t i[3] = {7, 8, 9};
    StTensor t[3] = {
        {.name = "weight", .dtype = ST_F32, .ndim = 2, .shape = {2, 3}, .data = f, .nbytes = 24},
        {.name = "ids", .dtype = ST_I32, .ndim = 1, .shape = {3}, .data = i, .nbytes = 12},
        {.name = "scalar", .dtype = ST_F32, .ndim = 0, .data = f, .nbytes = 4},
    };
    StMeta meta[2] = {{"format", "pt"}, {"note", "a \"quoted\" value"}};
    if (st_write(seed_path("safetensors", 0), t, 3, meta, 2, &err)) die("safetensors", &err);
    if (st_write(seed_path("safetensors", 1), NULL, 0, NULL, 0, &err)) die("safetensors", &err);
    StTensor empty = {.name = "empty", .dtype = ST_F32, .ndim = 2, .shape = {0, 4}};
    if (st_write(seed_path("safetensors", 2), &empty, 1, meta, 1, &err)) die("safetensors", &err);
}

static void checkpoint_seeds(void)
{
    SrError err;
    ModelConfig c[4] = {FUZZ_BASE_CONFIG, FUZZ_BASE_CONFIG, FUZZ_BASE_CONFIG, FUZZ_BASE_CONFIG};
    c[1].tied = 0;
    c[2].repo = 1, c[2].repo_from = 1;
    c[3].nope_layers = 2, c[3].n_layers = 2;
    const char *manifests[4] = {NULL, "{\"tokenizer\": \"bpe\", \"lowercase\": true}",
                                "{\"tokenizer\": \"word\"}", "{\"seed\": 3}"};
    for (int k = 0; k < 4; k++) {
        Model m;
        if (fuzz_model_create(&m, &c[k], &err) ||
            checkpoint_save(seed_path("checkpoint", k), &m, FUZZ_BASE_VOCAB, 10, manifests[k], &err))
            die("checkpoint", &err);
        model_free(&m);
    }
    copy_seed("checkpoint", 0, "safetensors", 3, -1);
}

static void adapter_seeds(void)
{
    SrError err;
    Model base;
    if (fuzz_model_create(&base, &FUZZ_BASE_CONFIG, &err)) die("adapter", &err);
    char *labels[3] = {"O", "B-LOC", "I-LOC"};
    float head_W[3 * 8], head_b[3], lora_w[2 * 2 * 2 * 2 * 8];
    for (int k = 0; k < 24; k++) head_W[k] = (float)k / 8;
    for (int k = 0; k < 3; k++) head_b[k] = (float)k;
    for (size_t k = 0; k < sizeof lora_w / sizeof lora_w[0]; k++) lora_w[k] = (float)k / 64;
    AdapterFile a = {.n_layers = 2, .d_model = 8, .n_labels = 3, .labels = labels,
                     .head_W = head_W, .head_b = head_b, .exit_layer = 2, .r = 1,
                     .method = "sr"};
    adapter_base_checksum(&base, a.base_checksum);
    if (adapter_write(seed_path("adapter", 0), &a, &err)) die("adapter", &err);
    a.has_lora = 1;
    a.lora = (LoraConfig){.rank = 2, .alpha = 4.0f, .dropout = 0.1f, .targets = 1u | 4u};
    a.n_lora = adapter_lora_floats(&a.lora, 2, 8);
    a.lora_w = lora_w;
    if (a.n_lora > sizeof lora_w / sizeof lora_w[0]) die("adapter: lora buffer", NULL);
    if (adapter_write(seed_path("adapter", 1), &a, &err)) die("adapter", &err);
    model_free(&base);
}

static void train_state_seeds(void)
{
    SrError err;
    Model m;
    ModelConfig c = {.vocab_size = 7, .d_model = 2, .n_layers = 1, .n_heads = 1, .d_ff = 2,
                     .max_seq_len = 2, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    if (fuzz_model_create(&m, &c, &err) || adamw_create(&m, &err)) die("train_state", &err);
    Rng rng;
    rng_seed(&rng, 42);
    char path[1100];
    snprintf(path, sizeof path, "%s/state.tmp", root);
    if (train_state_save(path, &m, 12, &rng, 2.5f, "{\"lr\": 0.001}", &err)) die("train_state", &err);
    size_t n;
    char *buf = slurp(path, &n);
    remove(path);
    put("train_state", 0, 0, buf, n);
    free(buf);
    model_free(&m);
    const char *fields = "12\n000000000000002a 0000000000000001 0000000000000002 0000000000000003\n"
                         "0x1.4p+1\n{\"lr\": 0.001}";
    put("train_state", 1, 1 + 2 * 2, fields, strlen(fields)); /* odd: structured, 2 floats */
}

/* ---- vocabularies ------------------------------------------------------------- */

/* Seed k of fuzz_vocab: flags, tok's words one per line, a blank line, text. */
static void put_vocab(int k, int flags, const Tokenizer *tok, const char *text)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fputc(flags, f);
    for (int i = 0; i < tok->n_words; i++) fprintf(f, "%s\n", tok->words[i]);
    fprintf(f, "\n%s", text);
    fclose(f);
    put("vocab", k, -1, buf, n);
    free(buf);
}

static void vocab_seeds(void)
{
    SrError err;
    size_t len;
    char *text = corpus_builtin_text(12, 7, &len);
    Tokenizer tok;
    if (tokenizer_build_from_text(&tok, text, len, "corpus", 1, 0, 0, &err)) die("vocab", &err);
    put_vocab(0, 4, &tok, "the old sailor walked to the river .\nmara gave the red book .");
    tokenizer_free(&tok);
    if (tokenizer_build_bpe_from_text(&tok, text, len, "corpus", 120, 1, &err)) die("vocab", &err);
    put_vocab(1, 1 | 2 | 8, &tok, "The Sailors walked, slowly; to the river!\r\nunknownword é");
    tokenizer_free(&tok);
    put("bpe", 0, 60, text, len);
    put("bpe", 1, 0, text, len);
    const char *mixed = "Don't stop. Café au lait, naïve 日本語 — «quotes» lower LOWER lowest newer";
    put("bpe", 2, 41, mixed, strlen(mixed));
    put("bpe", 3, 64 | 30, mixed, strlen(mixed)); /* lower-cased */
    free(text);
}

/* ---- labelled text ------------------------------------------------------------ */

static const char *const CONLL[] = {
    "-DOCSTART- -X- -X- O\n\nJohn NNP B-PER\nSmith\tNNP\tI-PER\nvisited VBD O\nNew B-LOC\n"
    "York I-LOC\n\n\n  \t \nU.S. B-LOC\nofficials O\n",
    "Wolff I-PER\nin O\nBuenos I-LOC\nAires I-LOC\nand O\nParis I-LOC\nRome B-LOC\nBonn I-LOC\n"
    "met I-ORG\n\nEU I-ORG\nrejects O\nGerman I-MISC\n",
    "John B-PER\nRonald I-PER\nReuel E-PER\nTolkien S-LOC\nwrote O\n\nOxford S-ORG\n",
    "\xEF\xBB\xBF" "caf\xC3\xA9 B-FOOD\r\nau I-FOOD\r\nlait E-FOOD\r\n\r\n",
};

static const char *const NLUPP[] = {
    "[{\"text\": \"a caf\xC3\xA9 au lait at 9 p.m. for Ann\","
    "  \"slots\": {\"time\": {\"text\": \"9 p.m.\", \"span\": [18, 24]},"
    "            \"person_name\": {\"text\": \"Ann\", \"span\": [29, 32]},"
    "            \"shopping_category\": {\"text\": \"caf\xC3\xA9 au lait\", \"span\": [2, 14]}}},"
    " {\"text\": \"no slots here\"},"
    " {\"text\": \"  spaced  \", \"slots\": {\"date\": {\"span\": [1, 9]}}}]",
    "[{\"text\": \"free at 5ish?\", \"slots\": {\"time\": {\"span\": [8, 9]}}},"
    " {\"text\": \"rebooking now\", \"slots\": {\"x\": {\"span\": [2, 9]}}},"
    " {\"text\": \"two nights\", \"slots\": {\"people\": {\"span\": [0, 3]}}}]",
    "[{\"text\": \"only today\", \"slots\": {\"date\": {\"span\": [5, 10]},"
    "                                     \"date_period\": {\"span\": [0, 10]}}},"
    " {\"text\": \"a b c d\", \"slots\": {\"p\": {\"span\": [0, 3]}, \"q\": {\"span\": [2, 5]},"
    "                                 \"r\": {\"span\": [6, 7]}}},"
    " {\"text\": \"a   b\", \"slots\": {\"gap\": {\"span\": [1, 4]}}}, {\"text\": \"   \"}]",
    "{\"slots\": {\"date\": {\"description\": \"a day\"}, \"time\": {}, \"people\": {}}}",
};

static void labelled_seeds(void)
{
    put_texts("conll", CONLL, 4);
    put_texts("nlupp", NLUPP, 4);
    SrError err;
    Dataset d;
    char path[1100];
    snprintf(path, sizeof path, "%s/tmp.conll", root);
    FILE *f = fopen(path, "wb");
    fputs(CONLL[0], f);
    fclose(f);
    if (conll_read(path, &d, &err)) die("conll", &err);
    remove(path);
    char *row0[5] = {"B-PER", "I-PER", "O", "B-LOC", "O"}, *row1[2] = {"I-LOC", "O"};
    char *const *pred[2] = {row0, row1};
    if (conll_write(seed_path("predictions", 0), &d, pred, &err)) die("predictions", &err);
    if (conll_write(seed_path("conll", 4), &d, NULL, &err)) die("conll", &err);
    dataset_free(&d);
    const char *more = "a O O\nb B-X B-X\nc I-X I-Y\n\nd B-Y O\r\n";
    put("predictions", 1, -1, more, strlen(more));
}

/* ---- tables ------------------------------------------------------------------- */

static const char *const RUN_CSV =
    "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,tokens,"
    "seconds,flops\n"
    "sr,2,3,29,dev,80.0000,70.0000,74.6667,7,9,10,4,3,12000,8.000,2e+06\n"
    "sr,2,3,29,test,60.0000,50.0000,54.5455,5,8,10,4,3,12000,8.000,5e+06\n";
static const char *const RUN_MANIFEST =
    "{\"command\": \"seqrep finetune --model lm.safetensors --method sr --r 2\", \"seed\": 29,"
    " \"model\": \"models/lm.safetensors\", \"train\": \"data/right-cue/train.conll\","
    " \"train_sentences\": 200, \"test_sentences\": 100, \"copy_positions\": \"restart\"}";

static void table_seeds(void)
{
    SweepTable t = {0};
    SweepRow w = {0};
    snprintf(w.key.dataset, sizeof w.key.dataset, "right-cue");
    snprintf(w.key.model, sizeof w.key.model, "models/lm,1.safetensors");
    w.key.method = METHOD_SR, w.key.r = 2, w.key.exit_layer = 3, w.key.seed = 1;
    w.dev_f1 = 70.5, w.test_f1 = 60.25, w.epochs = 3, w.best_epoch = 2, w.tokens = 1000;
    w.seconds = 1.5, w.train_sentences = 100, w.test_sentences = 40, w.flops = 2e6;
    snprintf(w.command, sizeof w.command, "seqrep finetune --model \"a b\" --seed 1");
    SrError err;
    int added;
    if (sweep_table_add(&t, &w, &added, &err)) die("sweep", &err);
    w.key.method = METHOD_CAUSAL, w.key.r = 0, w.key.seed = 2;
    if (sweep_table_add(&t, &w, &added, &err)) die("sweep", &err);
    char *csv = sweep_table_csv(&t);
    put("sweep", 0, -1, csv, strlen(csv));
    put("csv", 0, -1, csv, strlen(csv));
    free(csv);
    sweep_table_free(&t);
    size_t n = strlen(RUN_CSV) + 1 + strlen(RUN_MANIFEST);
    char *run = malloc(n);
    memcpy(run, RUN_CSV, strlen(RUN_CSV) + 1); /* its NUL separates the manifest */
    memcpy(run + strlen(RUN_CSV) + 1, RUN_MANIFEST, strlen(RUN_MANIFEST));
    put("sweep", 1, -1, run, n);
    free(run);
    put("csv", 1, -1, RUN_CSV, strlen(RUN_CSV));
    const char *csv_texts[] = {"a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\n1,,3",
                               "a,b\n 1 ,\" 2\"\t\n \t\n3,4\r", "layer,f1\n1,0.5\n2,1e3\n3,-7\n"};
    for (int k = 0; k < 3; k++) put("csv", 2 + k, -1, csv_texts[k], strlen(csv_texts[k]));
}

/* ---- scripts and corpora -------------------------------------------------------- */

static const char *const SCRIPTS[] = {
    "<right>ac s q",
    "<pgdn><space><lt><hover 12 34><click 5 6><shot><resize 640x480><esc>",
    "jjkk<up><down><left><right><home><end><pgup> ?\n<gt>",
};

static void corpus_seeds(void)
{
    put_texts("script", SCRIPTS, 3);
    size_t len;
    char *text = corpus_builtin_text(8, 3, &len);
    put("corpus", 0, 0, text, len);
    free(text);
    const char *brown = "\tThe/at Fulton/np-tl County/nn-tl said/vbd ``/`` no/at evidence/nn ''/'' ./.\n"
                        "\n\tIt/pps said/vbd ./.\n";
    put("corpus", 1, 1, brown, strlen(brown));
    const char *json = "[\"One sentence here.\", \"Another  one,\\tspaced.\", \"One sentence here.\","
                       " \"x\"]";
    put("corpus", 2, 2, json, strlen(json));
    const char *utf8 = "\xEF\xBB\xBF" "Caf\xC3\xA9 au lait is nice.\r\nNa\xC3\xAFve \xE6\x97\xA5 text\n";
    put("corpus", 3, 3, utf8, strlen(utf8));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    root = argv[1];
    safetensors_seeds();
    checkpoint_seeds();
    adapter_seeds();
    train_state_seeds();
    vocab_seeds();
    labelled_seeds();
    table_seeds();
    corpus_seeds();
    return 0;
}
