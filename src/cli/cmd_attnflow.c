/* cmd_attnflow.c — `seqrep attnflow --model FILE --data FILE --r R`: run a
 * trained model on every sentence of a data set repeated k = r + 1 times and
 * report, per layer and head, where the attention of last-copy words goes
 * (own copy, earlier copies left of / at / right of the word, sinks). The
 * split itself is src/attnflow.c; this file reads, runs and prints.
 *
 * Data: a CoNLL file (word in the first column, a blank line between
 * sentences, -DOCSTART- lines skipped) or, with --text, one sentence per line.
 * The words of a sentence are joined with spaces and tokenized with the
 * checkpoint's vocabulary; the sentence's tokens are the "words" of the
 * repetition layout (word index = token index in the sentence). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/text_file.h"
#include "base/atomic_file.h"
#include "cli/commands.h"
#include "engine/mask.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "options/args.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"
#include "theory/attnflow.h"

static const char *CMD = "attnflow";

/* One sentence of the data: its words joined by spaces, where it starts. */
typedef struct {
    char *text;
    int line;
} SentenceText;

typedef struct {
    SentenceText *items;
    int n, cap;
} SentenceList;

/* Append text[0..len) as a new sentence starting at line; 0 or -1. */
static int list_add(SentenceList *l, const char *text, size_t len, int line)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        SentenceText *grown = realloc(l->items, sizeof *grown * (size_t)cap);
        if (!grown) return -1;
        l->items = grown;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, text, len);
    copy[len] = 0;
    l->items[l->n++] = (SentenceText){copy, line};
    return 0;
}

/* Release every sentence and the list itself; l becomes empty. */
static void list_free(SentenceList *l)
{
    for (int i = 0; i < l->n; i++) free(l->items[i].text);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* 1 if line[0..len) holds only white space. */
static int is_blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') return 0;
    return 1;
}

/* Split a data file into sentences: CoNLL (first column, blank-line
 * separated, -DOCSTART- skipped) or one sentence per line (as_text). */
static int read_sentences(const char *path, int as_text, SentenceList *out, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    size_t cap = len + 1, used = 0;
    char *sentence = malloc(cap);
    if (!sentence) {
        free(text);
        return sr_fail(err, "%s: out of memory", path);
    }
    int line_no = 0, start_line = 0, rc = 0;
    for (size_t pos = 0; pos <= len && rc == 0;) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        const char *line = text + pos;
        size_t line_len = end - pos;
        line_no++;
        int boundary = is_blank(line, line_len) || strncmp(line, "-DOCSTART-", 10) == 0;
        if (!boundary) {
            size_t a = 0, b;
            while (a < line_len && (line[a] == ' ' || line[a] == '\t')) a++;
            b = a;
            if (as_text) b = line_len;
            else
                while (b < line_len && line[b] != ' ' && line[b] != '\t' && line[b] != '\r') b++;
            if (used == 0) start_line = line_no;
            else sentence[used++] = ' ';
            memcpy(sentence + used, line + a, b - a);
            used += b - a;
        }
        if ((boundary || as_text || end >= len) && used > 0) {
            if (list_add(out, sentence, used, start_line)) rc = sr_fail(err, "%s: out of memory", path);
            used = 0;
        }
        pos = end + 1;
    }
    free(sentence);
    free(text);
    if (rc == 0 && out->n == 0) rc = sr_fail(err, "%s: no sentences found", path);
    if (rc) list_free(out);
    return rc;
}

/* Print the readable table: one line per head, then the layer's mean. */
static void print_table(const AttnFlow *flow)
{
    static const int width[FLOW_N_CATEGORIES] = {9, 12, 9, 13, 7}; /* under each heading */
    printf("%5s %5s %10s %13s %10s %14s %8s\n", "layer", "head", "own copy", "earlier left",
           "same word", "earlier right", "sink");
    for (int l = 0; l < flow->n_layers; l++) {
        double layer_mean[FLOW_N_CATEGORIES] = {0};
        for (int h = 0; h < flow->n_heads; h++) {
            printf("%5d %5d", l, h);
            for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
                double v = attnflow_mean(flow, l, h, c);
                layer_mean[c] += v / flow->n_heads;
                printf(" %*.1f%%", width[c], 100.0 * v);
            }
            printf("\n");
        }
        if (flow->n_heads > 1) {
            printf("%5d %5s", l, "mean");
            for (int c = 0; c < FLOW_N_CATEGORIES; c++) printf(" %*.1f%%", width[c], 100.0 * layer_mean[c]);
            printf("\n");
        }
    }
}

/* The CSV: layer,head,own_copy,earlier_left,same_word,earlier_right,sink.
 * Returns a new string (caller frees) or NULL when out of memory. */
static char *csv_text(const AttnFlow *flow)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    fprintf(mem, "layer,head");
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) fprintf(mem, ",%s", attnflow_category_name(c));
    fprintf(mem, "\n");
    for (int l = 0; l < flow->n_layers; l++)
        for (int h = 0; h < flow->n_heads; h++) {
            fprintf(mem, "%d,%d", l, h);
            for (int c = 0; c < FLOW_N_CATEGORIES; c++)
                fprintf(mem, ",%.6f", attnflow_mean(flow, l, h, c));
            fprintf(mem, "\n");
        }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Write the CSV atomically and its manifest beside it ("x.csv" ->
 * "x.manifest.json"), recording inputs, options and counts. */
static int write_outputs(const char *out, const AttnFlow *flow, cJSON *manifest, SrError *err)
{
    char *csv = csv_text(flow);
    if (!csv) return sr_fail(err, "out of memory");
    int rc = write_file_atomic(out, csv, err);
    free(csv);
    if (rc) return -1;
    char *path = path_with_suffix(out, ".manifest.json");
    if (!path) return sr_fail(err, "out of memory");
    cJSON_AddStringToObject(manifest, "result", out);
    char *text = cJSON_Print(manifest);
    rc = text ? write_file_atomic(path, text, err) : sr_fail(err, "out of memory");
    free(text);
    free(path);
    return rc;
}

/* A sentence ready to run: its token ids. */
typedef struct {
    int *ids;
    int n;
    int line;
} TokenizedSentence;

/* `seqrep attnflow`: read the checkpoint and the data, run every sentence
 * repeated, accumulate the split per layer and head, print and write it. */
int cmd_attnflow(int argc, char **argv)
{
    const char *model_path = NULL, *data_path = NULL, *out_path = NULL;
    const char *bos_text = "per-copy", *sep_text = "none", *mask_text = "causal";
    int r = 0, as_text = 0, max_sentences = 0, n_threads = 0;
    ArgSpec specs[] = {
        {"model", ARG_STRING, &model_path, "checkpoint (.safetensors)", 1, 0, 0},
        {"data", ARG_STRING, &data_path, "CoNLL file (first column = word), or text with --text", 1, 0, 0},
        {"r", ARG_INT, &r, "repetitions: k = r + 1 copies of each sentence", 1, 0, 0},
        {"text", ARG_FLAG, &as_text, "--data has one sentence per line", 0, 0, 0},
        {"bos", ARG_STRING, &bos_text, "none | once | per-copy (default per-copy, as the paper and train-lm)", 0, 0, 0},
        {"sep", ARG_STRING, &sep_text, "none | token: a <sep> between copies (default none)", 0, 0, 0},
        {"mask", ARG_STRING, &mask_text, "mask plan: causal | middle | full | layer list (default causal)", 0, 0, 0},
        {"max-sentences", ARG_INT, &max_sentences, "use only the first N sentences, 0 = all (default 0)", 0, 0, 0},
        {"out", ARG_STRING, &out_path, "CSV to write (atomically, with a manifest)", 0, 0, 0},
        {"threads", ARG_INT, &n_threads, "threads, 0 = all cores (default 0)", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--model FILE --data FILE --r R [--text] [--bos B] [--sep S] "
                             "[--mask PLAN] [--out FILE]",
                        specs, 10, argc, argv, NULL, 0, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    RepeatBos bos;
    RepeatSep sep;
    if (repeat_parse_bos(bos_text, &bos))
        return args_error(CMD, "--bos must be none, once or per-copy, got '%s'", bos_text);
    if (repeat_parse_sep(sep_text, &sep))
        return args_error(CMD, "--sep must be none or token, got '%s'", sep_text);
    threads_set(n_threads);

    SrError err;
    CheckpointInfo info = {0};
    Tokenizer tok = {0};
    SentenceList sentences = {0};
    TokenizedSentence *runs = NULL;
    MaskKind *plan = NULL;
    Model m = {0};
    AttnFlow flow = {0};
    cJSON *manifest = NULL;
    int n_runs = 0, too_long = 0, empty = 0, max_T = 0;
    rc = 2;

    if (checkpoint_read_info(model_path, &info, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    if (checkpoint_tokenizer(&info, model_path, &tok, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    const ModelConfig cfg = info.cfg;
    plan = malloc(sizeof(MaskKind) * (size_t)cfg.n_layers);
    if (!plan) {
        args_error(CMD, "out of memory");
        goto done;
    }
    if (mask_plan_parse(mask_text, plan, cfg.n_layers)) {
        args_error(CMD, "--mask must be causal, middle, full or layer indices 0..%d such as 1,2; got '%s'",
                   cfg.n_layers - 1, mask_text);
        goto done;
    }

    /* Read and tokenize; keep the sentences whose repeated input fits. */
    if (read_sentences(data_path, as_text, &sentences, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    int n_use = max_sentences > 0 && max_sentences < sentences.n ? max_sentences : sentences.n;
    runs = calloc((size_t)n_use, sizeof *runs);
    if (!runs) {
        args_error(CMD, "out of memory");
        goto done;
    }
    int max_n = repeat_max_n(cfg.max_seq_len, r, bos, sep);
    for (int i = 0; i < n_use; i++) {
        const SentenceText *s = &sentences.items[i];
        long n = tokenizer_encode(&tok, s->text, 0, NULL, 0);
        if (n < 1) {
            empty++;
            continue;
        }
        if (n > max_n) {
            too_long++;
            continue;
        }
        TokenizedSentence *run = &runs[n_runs];
        run->ids = malloc(sizeof(int) * (size_t)n);
        if (!run->ids) {
            args_error(CMD, "out of memory");
            goto done;
        }
        tokenizer_encode(&tok, s->text, 0, run->ids, n);
        run->n = (int)n;
        run->line = s->line;
        int T = (int)repeat_length(n, r, bos, sep);
        if (T > max_T) max_T = T;
        n_runs++;
    }
    if (n_runs == 0) {
        if (max_n < 1)
            args_error(CMD, "r = %d: even a one-token sentence does not fit in the model's %d positions",
                       r, cfg.max_seq_len);
        else
            args_error(CMD, "%s: no sentence fits: with r = %d the model's %d positions hold "
                       "sentences of at most %d tokens", data_path, r, cfg.max_seq_len, max_n);
        goto done;
    }
    if (too_long)
        fprintf(stderr, "seqrep %s: note: skipped %d sentences longer than %d tokens (r = %d, "
                        "max_seq_len %d)\n", CMD, too_long, max_n, r, cfg.max_seq_len);
    if (empty) fprintf(stderr, "seqrep %s: note: skipped %d sentences without tokens\n", CMD, empty);

    if (checkpoint_load(model_path, &m, 1, max_T, NULL, &err) ||
        attnflow_init(&flow, cfg.n_layers, cfg.n_heads, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    for (int i = 0; i < n_runs; i++) {
        RepeatLayout lay;
        if (repeat_build(runs[i].ids, runs[i].n, r, bos, sep, max_T, &lay, &err)) {
            args_error(CMD, "%s:%d: %s", data_path, runs[i].line, err.msg);
            goto done;
        }
        ModelInput in = {.B = 1, .T = lay.T, .ids = lay.ids, .positions = lay.positions,
                         .mask = plan};
        if (model_forward(&m, &in, &err)) {
            repeat_free(&lay);
            args_error(CMD, "%s:%d: %s", data_path, runs[i].line, err.msg);
            goto done;
        }
        for (int l = 0; l < cfg.n_layers; l++)
            attnflow_add_layer(&flow, l, model_attention(&m, l), lay.T, &lay);
        repeat_free(&lay);
    }

    printf("seqrep attnflow: %s on %s\n", model_path, data_path);
    printf("r = %d (k = %d copies), bos %s, sep %s, mask %s: %d sentences, %lld last-copy tokens\n",
           r, r + 1, repeat_bos_name(bos), repeat_sep_name(sep), mask_text, n_runs,
           (long long)flow.n_queries[0]);
    printf("Mean share of the attention of last-copy tokens; each line sums to 100%%.\n"
           "\"earlier right\" = words to the right of the token's own word, in earlier copies.\n\n");
    print_table(&flow);

    if (out_path) {
        manifest = manifest_begin(argc, argv, 0);
        manifest_add_file(manifest, "model", model_path);
        manifest_add_file(manifest, "data", data_path);
        cJSON_AddNumberToObject(manifest, "r", r);
        cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
        cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
        cJSON_AddStringToObject(manifest, "mask", mask_text);
        cJSON_AddNumberToObject(manifest, "sentences", n_runs);
        cJSON_AddNumberToObject(manifest, "sentences_skipped_too_long", too_long);
        cJSON_AddNumberToObject(manifest, "last_copy_tokens", (double)flow.n_queries[0]);
        if (write_outputs(out_path, &flow, manifest, &err)) {
            args_error(CMD, "%s", err.msg);
            goto done;
        }
        fprintf(stderr, "wrote %s\n", out_path);
    }
    rc = 0;
done:
    cJSON_Delete(manifest);
    attnflow_free(&flow);
    model_free(&m);
    for (int i = 0; i < n_runs; i++) free(runs[i].ids);
    free(runs);
    free(plan);
    list_free(&sentences);
    tokenizer_free(&tok);
    checkpoint_info_free(&info);
    return rc;
}
