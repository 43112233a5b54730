/* explorer_input.c — what the explorer reads before the window opens: the
 * checkpoint's vocabulary and provenance, and the sentences to page through
 * (one from --text, or every sentence of a CoNLL file, tokenized the way
 * `seqrep plot attention` does: the words joined by spaces). */
#include "explorer/explorer_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "data/conll.h"
#include "figure_row/figure_request.h"
#include "runs/manifest.h"

/* A new copy of text (NULL when out of memory). */
static char *copy_text(const char *text)
{
    size_t len = strlen(text);
    char *out = malloc(len + 1);
    if (out) memcpy(out, text, len + 1);
    return out;
}

/* Grow the per-sentence arrays of in to hold n sentences; 0 or -1. */
static int alloc_sentences(ExplorerInput *in, int n)
{
    in->texts = calloc((size_t)n, sizeof *in->texts);
    in->sources = calloc((size_t)n, sizeof *in->sources);
    in->ids = calloc((size_t)n, sizeof *in->ids);
    in->n_tokens = calloc((size_t)n, sizeof *in->n_tokens);
    in->n_unknown = calloc((size_t)n, sizeof *in->n_unknown);
    if (!in->texts || !in->sources || !in->ids || !in->n_tokens || !in->n_unknown) return -1;
    in->n_sentences = n;
    return 0;
}

/* Tokenize sentence i of in (its text is set) into in->ids[i], counting its
 * unknown tokens; 0 or -1. */
static int tokenize(ExplorerInput *in, int i, SrError *err)
{
    long n = tokenizer_encode(&in->tok, in->texts[i], 0, NULL, 0);
    if (n < 1) return sr_fail(err, "%s: the sentence has no tokens", in->sources[i]);
    if (n > 1000000) return sr_fail(err, "%s: the sentence is too long (%ld tokens)", in->sources[i], n);
    in->ids[i] = malloc(sizeof(int) * (size_t)n);
    if (!in->ids[i]) return sr_fail(err, "out of memory");
    tokenizer_encode(&in->tok, in->texts[i], 0, in->ids[i], n);
    in->n_tokens[i] = (int)n;
    if (tokenizer_check_embedded(&in->tok, in->ids[i], n, in->sources[i], err)) return -1;
    for (long t = 0; t < n; t++) in->n_unknown[i] += tokenizer_is_unknown_label(tokenizer_word(&in->tok, in->ids[i][t]));
    return 0;
}

int explorer_input_load(ExplorerInput *in, const ExplorerSources *src, SrError *err)
{
    memset(in, 0, sizeof *in);
    in->seed = -1;
    if (checkpoint_read_info(src->model, &in->info, err)) return -1;
    cJSON *manifest = cJSON_Parse(in->info.manifest_json);
    const cJSON *seed = cJSON_GetObjectItem(manifest, "seed");
    if (cJSON_IsNumber(seed)) in->seed = (long long)seed->valuedouble;
    cJSON_Delete(manifest);
    if (model_checksum(src->model, in->checksum, err) != 0) snprintf(in->checksum, sizeof in->checksum, "?");
    if (checkpoint_tokenizer(&in->info, src->model, &in->tok, err)) goto fail;

    if (src->text) {
        if (alloc_sentences(in, 1)) goto out_of_memory;
        in->texts[0] = copy_text(src->text);
        in->sources[0] = copy_text("given with --text");
        if (!in->texts[0] || !in->sources[0]) goto out_of_memory;
        if (tokenize(in, 0, err)) goto fail;
        return 0;
    }
    Dataset ds;
    if (conll_read(src->data, &ds, err)) goto fail;
    if (alloc_sentences(in, ds.n_sents)) {
        dataset_free(&ds);
        goto out_of_memory;
    }
    for (int i = 0; i < ds.n_sents; i++) {
        char source[600];
        snprintf(source, sizeof source, "sentence %d of %s (line %d)", i, src->data, ds.sents[i].line);
        in->texts[i] = figure_request_sentence_text(&ds.sents[i]);
        in->sources[i] = copy_text(source);
        if (!in->texts[i] || !in->sources[i]) {
            dataset_free(&ds);
            goto out_of_memory;
        }
        if (tokenize(in, i, err)) {
            dataset_free(&ds);
            goto fail;
        }
    }
    dataset_free(&ds);
    return 0;
out_of_memory:
    sr_fail(err, "out of memory");
fail:
    explorer_input_free(in);
    return -1;
}

void explorer_input_free(ExplorerInput *in)
{
    for (int i = 0; i < in->n_sentences; i++) {
        if (in->texts) free(in->texts[i]);
        if (in->sources) free(in->sources[i]);
        if (in->ids) free(in->ids[i]);
    }
    free(in->texts);
    free(in->sources);
    free(in->ids);
    free(in->n_tokens);
    free(in->n_unknown);
    tokenizer_free(&in->tok);
    checkpoint_info_free(&in->info);
    memset(in, 0, sizeof *in);
}
