/* hf_load.c — reading tokenizer.json (hf_json.h: cJSON for its small parts,
 * hf_vocab.h for its vocabulary and merges) and tokenizer_config.json (cJSON)
 * into an HfTokenizer; every unsupported kind is an error naming the file and
 * the JSON key. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/text_file.h"
#include "base/utf8.h"
#include "text/hf/hf_json.h"
#include "text/hf/hf_vocab.h"
#include "text/hf/tokenizer_json_parts.h"

/* A string member of o, or NULL when absent or not a string. */
static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A boolean member of o, or dflt when absent or null. */
static int bool_of(const cJSON *o, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

/* A copy of s[0..n) with a NUL, or NULL. */
static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The largest id of the added tokens (-1 when none), each checked for an
 * id and a content. 0 or -1. */
static int added_max_id(const HfTokenizer *t, const cJSON *added, int *max_id, SrError *err)
{
    const cJSON *e;
    int i = 0;
    *max_id = -1;
    cJSON_ArrayForEach(e, added) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble >= HF_MAX_IDS || !str_of(e, "content"))
            return sr_fail(err, "%s: added_tokens[%d] has no id or content", t->path, i);
        if (id->valueint > *max_id) *max_id = id->valueint;
        i++;
    }
    return 0;
}

/* The added tokens (ids checked by added_max_id, within t->n_ids): their
 * settings, and the spelling of an id the vocabulary has none for. */
static int load_added(HfTokenizer *t, const cJSON *added, SrError *err)
{
    t->n_added = cJSON_GetArraySize(added);
    t->added = calloc((size_t)(t->n_added > 0 ? t->n_added : 1), sizeof *t->added);
    if (!t->added) return sr_fail(err, "%s: out of memory", t->path);
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, added) {
        HfAdded *a = &t->added[i++];
        const char *content = str_of(e, "content");
        a->id = cJSON_GetObjectItemCaseSensitive(e, "id")->valueint;
        a->len = strlen(content);
        a->content = dup_n(content, a->len);
        a->special = bool_of(e, "special", 0);
        a->lstrip = bool_of(e, "lstrip", 0);
        a->rstrip = bool_of(e, "rstrip", 0);
        a->single_word = bool_of(e, "single_word", 0);
        a->normalized = bool_of(e, "normalized", !a->special);
        if (!a->content) return sr_fail(err, "%s: out of memory", t->path);
        if (a->len == 0) return sr_fail(err, "%s: added_tokens[%d] is empty", t->path, i - 1);
        if (!t->text[a->id]) t->text[a->id] = a->content, t->text_len[a->id] = a->len;
        if (a->special) t->is_special[a->id] = 1;
    }
    if (hf_trie_build(&t->added_trie[0], t, 0) || hf_trie_build(&t->added_trie[1], t, 1))
        return sr_fail(err, "%s: out of memory", t->path);
    return 0;
}

/* The BPE model's settings: unk, flags, byte-fallback ids (its merges are
 * hf_merges_read's). */
static int load_bpe(HfTokenizer *t, const cJSON *model, SrError *err)
{
    const char *type = str_of(model, "type");
    if (type && strcmp(type, "BPE") != 0)
        return sr_fail(err, "%s: model type '%s' is not supported (only BPE)", t->path, type);
    const char *prefix = str_of(model, "continuing_subword_prefix"), *suffix = str_of(model, "end_of_word_suffix");
    if ((prefix && *prefix) || (suffix && *suffix))
        return sr_fail(err, "%s: model.continuing_subword_prefix / end_of_word_suffix are not supported", t->path);
    const cJSON *dropout = cJSON_GetObjectItemCaseSensitive(model, "dropout");
    if (cJSON_IsNumber(dropout) && dropout->valuedouble > 0)
        return sr_fail(err, "%s: model.dropout is not supported", t->path);
    const char *unk = str_of(model, "unk_token");
    t->unk_id = unk ? hf_token_id(t, unk, strlen(unk)) : -1;
    if (unk && t->unk_id < 0) return sr_fail(err, "%s: model.unk_token '%s' is not a token", t->path, unk);
    t->fuse_unk = bool_of(model, "fuse_unk", 0);
    t->byte_fallback = bool_of(model, "byte_fallback", 0);
    t->ignore_merges = bool_of(model, "ignore_merges", 0);
    for (int c = 0; c < 256; c++) {
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", c);
        t->byte_ids[c] = hf_table_find(&t->vocab, t, name, 6);
    }
    return 0;
}

/* Append a step to a sequence. Returns the new step (zeroed) or NULL. */
static HfStep *push_step(HfStep **steps, int *n)
{
    HfStep *grown = realloc(*steps, sizeof **steps * (size_t)(*n + 1));
    if (!grown) return NULL;
    *steps = grown;
    memset(&grown[*n], 0, sizeof **steps);
    return &grown[(*n)++];
}

/* The String of a pattern object {"String": s}, or NULL. */
static const char *string_pattern(const cJSON *o)
{
    return str_of(cJSON_GetObjectItemCaseSensitive(o, "pattern"), "String");
}

/* Prepend scheme of a Metaspace object (prepend_scheme, or the older
 * add_prefix_space flag). -1 when unknown. */
static int prepend_scheme(const cJSON *o)
{
    const char *s = str_of(o, "prepend_scheme");
    if (!s) return bool_of(o, "add_prefix_space", 1) ? HF_PREPEND_ALWAYS : HF_PREPEND_NEVER;
    return strcmp(s, "always") == 0 ? HF_PREPEND_ALWAYS : strcmp(s, "first") == 0 ? HF_PREPEND_FIRST
         : strcmp(s, "never") == 0 ? HF_PREPEND_NEVER : -1;
}

/* A loader of one step (normalizer, pre-tokenizer, decoder, post-processor). */
typedef int (*StepLoader)(HfTokenizer *t, const cJSON *o, const char *key, SrError *err);

/* Each item of the array o[list] through load, named "key.list[i]". */
static int load_each(HfTokenizer *t, const cJSON *o, const char *key, const char *list,
                     StepLoader load, SrError *err)
{
    const cJSON *e;
    char sub[96];
    int i = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, list)) {
        snprintf(sub, sizeof sub, "%s.%s[%d]", key, list, i++);
        if (load(t, e, sub, err)) return -1;
    }
    return 0;
}

/* One normalizer (or a Sequence of them), appended to t->norm. */
static int load_norm(HfTokenizer *t, const cJSON *o, const char *key, SrError *err)
{
    if (!o || cJSON_IsNull(o)) return 0;
    const char *type = str_of(o, "type");
    if (!type) return sr_fail(err, "%s: %s has no type", t->path, key);
    if (strcmp(type, "Sequence") == 0) return load_each(t, o, key, "normalizers", load_norm, err);
    static const struct { const char *name; int kind; } KINDS[] = {
        {"NFC", HF_NORM_NFC}, {"NFD", HF_NORM_NFD}, {"NFKC", HF_NORM_NFKC}, {"NFKD", HF_NORM_NFKD},
        {"Lowercase", HF_NORM_LOWER}, {"Prepend", HF_NORM_PREPEND}, {"Replace", HF_NORM_REPLACE}};
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
        if (strcmp(type, KINDS[k].name) != 0) continue;
        HfStep *s = push_step(&t->norm, &t->n_norm);
        if (!s) return sr_fail(err, "%s: out of memory", t->path);
        s->kind = KINDS[k].kind;
        if (s->kind == HF_NORM_PREPEND) {
            const char *p = str_of(o, "prepend");
            if (!p) return sr_fail(err, "%s: %s.prepend is missing", t->path, key);
            s->prepend.text = strdup(p);
            t->words_take_space = 0;
        } else if (s->kind == HF_NORM_REPLACE) {
            const char *p = string_pattern(o), *c = str_of(o, "content");
            if (!p || !*p || !c)
                return sr_fail(err, "%s: %s: Replace is supported with a String pattern only", t->path, key);
            s->replace.pattern = strdup(p);
            s->replace.content = strdup(c);
        }
        return 0;
    }
    return sr_fail(err, "%s: %s type '%s' is not supported", t->path, key, type);
}

/* A Split pre-tokenizer's pattern (Regex or String), behavior and invert
 * into *cut. 0 or -1. */
static int load_split(HfTokenizer *t, const cJSON *o, const char *key, HfCut *cut, SrError *err)
{
    const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(o, "pattern");
    const char *regex = str_of(pattern, "Regex"), *literal = str_of(pattern, "String");
    const char *behavior = str_of(o, "behavior");
    char bad[128];
    if (hf_cut_behavior(behavior) < 0)
        return sr_fail(err, "%s: %s.behavior '%s' is not supported", t->path, key, behavior ? behavior : "(none)");
    cut->behavior = (HfCutBehavior)hf_cut_behavior(behavior);
    cut->invert = bool_of(o, "invert", 0);
    if (literal && *literal) {
        cut->literal_len = strlen(literal);
        cut->literal = dup_n(literal, cut->literal_len);
        return cut->literal ? 0 : sr_fail(err, "%s: out of memory", t->path);
    }
    if (!regex) return sr_fail(err, "%s: %s: Split is supported with a Regex or a non-empty String pattern only", t->path, key);
    if (hf_pattern_parse(&cut->regex, regex, bad, sizeof bad))
        return sr_fail(err, "%s: %s.pattern.Regex: the alternative '%s' is not supported", t->path, key, bad);
    return 0;
}

/* One pre-tokenizer (or a Sequence), appended to t->pre. */
static int load_pre(HfTokenizer *t, const cJSON *o, const char *key, SrError *err)
{
    if (!o || cJSON_IsNull(o)) return 0;
    const char *type = str_of(o, "type");
    if (!type) return sr_fail(err, "%s: %s has no type", t->path, key);
    if (strcmp(type, "Sequence") == 0) return load_each(t, o, key, "pretokenizers", load_pre, err);
    HfStep *s = push_step(&t->pre, &t->n_pre);
    if (!s) return sr_fail(err, "%s: out of memory", t->path);
    if (strcmp(type, "ByteLevel") == 0) {
        s->kind = HF_PRE_BYTELEVEL;
        s->byte_level.add_prefix_space = bool_of(o, "add_prefix_space", 1);
        s->byte_level.use_regex = bool_of(o, "use_regex", 1);
        s->cut.behavior = HF_CUT_ISOLATED;
        if (s->byte_level.use_regex) hf_pattern_parse(&s->cut.regex, HF_GPT2_PATTERN, NULL, 0);
        return 0;
    }
    if (strcmp(type, "Metaspace") == 0) {
        const char *r = str_of(o, "replacement");
        s->kind = HF_PRE_METASPACE;
        s->metaspace.replacement = strdup(r ? r : "\xe2\x96\x81");
        s->metaspace.prepend_scheme = prepend_scheme(o);
        s->metaspace.split = bool_of(o, "split", 1);
        if (s->metaspace.prepend_scheme < 0) return sr_fail(err, "%s: %s.prepend_scheme is not always, first or never", t->path, key);
        t->words_take_space = 0;
        return 0;
    }
    if (strcmp(type, "Split") == 0) {
        s->kind = HF_PRE_SPLIT;
        return load_split(t, o, key, &s->cut, err);
    }
    t->n_pre--;
    return sr_fail(err, "%s: %s type '%s' is not supported", t->path, key, type);
}

/* One decoder (or a Sequence), appended to t->dec. */
static int load_dec(HfTokenizer *t, const cJSON *o, const char *key, SrError *err)
{
    if (!o || cJSON_IsNull(o)) return 0;
    const char *type = str_of(o, "type");
    if (!type) return sr_fail(err, "%s: %s has no type", t->path, key);
    if (strcmp(type, "Sequence") == 0) return load_each(t, o, key, "decoders", load_dec, err);
    HfStep *s = push_step(&t->dec, &t->n_dec);
    if (!s) return sr_fail(err, "%s: out of memory", t->path);
    if (strcmp(type, "ByteLevel") == 0) s->kind = HF_DEC_BYTELEVEL;
    else if (strcmp(type, "ByteFallback") == 0) s->kind = HF_DEC_BYTEFALLBACK;
    else if (strcmp(type, "Fuse") == 0) s->kind = HF_DEC_FUSE;
    else if (strcmp(type, "Replace") == 0) {
        const char *p = string_pattern(o), *c = str_of(o, "content");
        if (!p || !*p || !c)
            return sr_fail(err, "%s: %s: Replace is supported with a String pattern only", t->path, key);
        s->kind = HF_DEC_REPLACE;
        s->replace.pattern = strdup(p);
        s->replace.content = strdup(c);
    } else if (strcmp(type, "Strip") == 0) {
        const char *c = str_of(o, "content");
        const cJSON *start = cJSON_GetObjectItemCaseSensitive(o, "start"), *stop = cJSON_GetObjectItemCaseSensitive(o, "stop");
        s->kind = HF_DEC_STRIP;
        s->strip.content = strdup(c ? c : " ");
        s->strip.start = cJSON_IsNumber(start) ? start->valueint : 0;
        s->strip.stop = cJSON_IsNumber(stop) ? stop->valueint : 0;
    } else if (strcmp(type, "Metaspace") == 0) {
        const char *r = str_of(o, "replacement");
        s->kind = HF_DEC_METASPACE;
        s->metaspace.replacement = strdup(r ? r : "\xe2\x96\x81");
        s->metaspace.prepend_scheme = prepend_scheme(o);
    } else {
        t->n_dec--;
        return sr_fail(err, "%s: %s type '%s' is not supported", t->path, key, type);
    }
    return 0;
}

/* Append the ids of special token name (post_processor.special_tokens) to
 * *ids. 0 or -1. */
static int push_template_ids(HfTokenizer *t, const cJSON *specials, const char *name, int **ids,
                             int *n, SrError *err)
{
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(specials, name), *e;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(entry, "ids");
    int found = 0;
    cJSON_ArrayForEach(e, list) {
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble >= t->n_ids)
            return sr_fail(err, "%s: post_processor: special token '%s' has an id outside the vocabulary",
                           t->path, name);
        int *grown = realloc(*ids, sizeof(int) * (size_t)(*n + 1));
        if (!grown) return sr_fail(err, "%s: out of memory", t->path);
        *ids = grown;
        grown[(*n)++] = e->valueint;
        found = 1;
    }
    if (!found) {
        int id = hf_token_id(t, name, strlen(name));
        if (id < 0) return sr_fail(err, "%s: post_processor: special token '%s' is unknown", t->path, name);
        int *grown = realloc(*ids, sizeof(int) * (size_t)(*n + 1));
        if (!grown) return sr_fail(err, "%s: out of memory", t->path);
        *ids = grown;
        grown[(*n)++] = id;
    }
    return 0;
}

/* Put one id as the whole prefix or suffix. 0 or -1. */
static int set_one(int **ids, int *n, int id)
{
    free(*ids);
    *n = 0;
    *ids = malloc(sizeof(int));
    if (!*ids) return -1;
    (*ids)[(*n)++] = id;
    return 0;
}

/* The post-processor: which ids encode puts first and last. */
static int load_post(HfTokenizer *t, const cJSON *o, const char *key, SrError *err)
{
    if (!o || cJSON_IsNull(o)) return 0;
    const char *type = str_of(o, "type");
    if (!type) return sr_fail(err, "%s: %s has no type", t->path, key);
    if (strcmp(type, "ByteLevel") == 0) return 0;
    if (strcmp(type, "Sequence") == 0) return load_each(t, o, key, "processors", load_post, err);
    if (strcmp(type, "RobertaProcessing") == 0 || strcmp(type, "BertProcessing") == 0) {
        const cJSON *cls = cJSON_GetObjectItemCaseSensitive(o, "cls"), *sep = cJSON_GetObjectItemCaseSensitive(o, "sep");
        const cJSON *ci = cJSON_GetArrayItem(cls, 1), *si = cJSON_GetArrayItem(sep, 1);
        if (!cJSON_IsNumber(ci) || !cJSON_IsNumber(si))
            return sr_fail(err, "%s: %s: cls and sep must be [token, id]", t->path, key);
        if (!(ci->valuedouble >= 0 && ci->valuedouble < t->n_ids && si->valuedouble >= 0 &&
              si->valuedouble < t->n_ids))
            return sr_fail(err, "%s: %s: the id of cls or sep is outside the vocabulary", t->path, key);
        if (set_one(&t->prefix, &t->n_prefix, ci->valueint) || set_one(&t->suffix, &t->n_suffix, si->valueint))
            return sr_fail(err, "%s: out of memory", t->path);
        return 0;
    }
    if (strcmp(type, "TemplateProcessing") != 0)
        return sr_fail(err, "%s: %s type '%s' is not supported", t->path, key, type);
    const cJSON *specials = cJSON_GetObjectItemCaseSensitive(o, "special_tokens"), *e;
    int seen_a = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "single")) {
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(e, "SpecialToken");
        const char *name = str_of(sp, "id");
        if (cJSON_GetObjectItemCaseSensitive(e, "Sequence")) seen_a = 1;
        else if (!name) return sr_fail(err, "%s: %s.single has an item that is neither SpecialToken nor Sequence", t->path, key);
        else if (push_template_ids(t, specials, name, seen_a ? &t->suffix : &t->prefix,
                                   seen_a ? &t->n_suffix : &t->n_prefix, err))
            return -1;
    }
    return 0;
}

/* A token named in tokenizer_config.json: a string or {"content": s}. */
static const char *config_token(const cJSON *cfg, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    return cJSON_IsString(v) ? v->valuestring : str_of(v, "content");
}

/* tokenizer_config.json's add_bos_token / add_eos_token, when present,
 * decide whether bos_token / eos_token go first / last. */
static int apply_config(HfTokenizer *t, const cJSON *cfg, const char *cfg_path, SrError *err)
{
    static const char *const ADD[2] = {"add_bos_token", "add_eos_token"}, *const TOKEN[2] = {"bos_token", "eos_token"};
    for (int k = 0; k < 2; k++) {
        const cJSON *add = cJSON_GetObjectItemCaseSensitive(cfg, ADD[k]);
        if (!cJSON_IsBool(add)) continue;
        int **ids = k == 0 ? &t->prefix : &t->suffix, *n = k == 0 ? &t->n_prefix : &t->n_suffix;
        free(*ids);
        *ids = NULL;
        *n = 0;
        if (!cJSON_IsTrue(add)) continue;
        const char *name = config_token(cfg, TOKEN[k]);
        int id = name ? hf_token_id(t, name, strlen(name)) : -1;
        if (id < 0) return sr_fail(err, "%s: %s is true but %s is missing or unknown", cfg_path, ADD[k], TOKEN[k]);
        if (set_one(ids, n, id)) return sr_fail(err, "%s: out of memory", cfg_path);
    }
    static const char *const NAMED[HF_N_NAMED] = {"eos_token", "sep_token", "pad_token"};
    for (int k = 0; k < HF_N_NAMED; k++) {
        const char *name = config_token(cfg, NAMED[k]);
        t->named[k] = name ? hf_token_id(t, name, strlen(name)) : -1;
    }
    return 0;
}

/* The file at path, which must be valid UTF-8 (as for the Hugging Face
 * library, which reads JSON as UTF-8), into *text (caller frees). */
static int read_utf8(const char *path, char **text, size_t *len, SrError *err)
{
    if (text_read_file(path, text, len, err)) return -1;
    size_t valid = utf8_valid_prefix(*text, *len);
    if (valid == *len) return 0;
    free(*text);
    *text = NULL;
    return sr_fail(err, "%s: not valid UTF-8 (at byte %zu)", path, valid);
}

/* Parse the file at path into a cJSON tree (*root, caller deletes). */
static int read_json(const char *path, cJSON **root, SrError *err)
{
    char *text;
    size_t len;
    *root = NULL;
    if (read_utf8(path, &text, &len, err)) return -1;
    *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!*root || !cJSON_IsObject(*root)) {
        cJSON_Delete(*root);
        *root = NULL;
        return sr_fail(err, "%s: not a JSON object", path);
    }
    return 0;
}

/* Every part of the tokenizer.json of t (t->path): the small ones through
 * cJSON, the vocabulary and merges read in place (hf_vocab.h). 0 or -1. */
static int load_tokenizer_json(HfTokenizer *t, SrError *err)
{
    char *text;
    size_t len;
    HfJsonParts parts = {0};
    if (read_utf8(t->path, &text, &len, err)) return -1;
    int rc = hf_json_split(t->path, text, len, &parts, err), max_added;
    const cJSON *root = parts.root, *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    const char *type = str_of(model, "type");
    if (rc == 0 && !cJSON_IsObject(model)) rc = sr_fail(err, "%s: model is missing", t->path);
    if (rc == 0 && type && strcmp(type, "BPE") != 0)
        rc = sr_fail(err, "%s: model type '%s' is not supported (only BPE)", t->path, type);
    if (rc == 0 &&
        (added_max_id(t, added, &max_added, err) ||
         hf_vocab_read(t, text, len, parts.vocab_at, max_added, err) || load_added(t, added, err) ||
         hf_merges_read(t, text, len, parts.merges_at, err) || load_bpe(t, model, err) ||
         load_norm(t, cJSON_GetObjectItemCaseSensitive(root, "normalizer"), "normalizer", err) ||
         load_pre(t, cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"), "pre_tokenizer", err) ||
         load_post(t, cJSON_GetObjectItemCaseSensitive(root, "post_processor"), "post_processor", err) ||
         load_dec(t, cJSON_GetObjectItemCaseSensitive(root, "decoder"), "decoder", err)))
        rc = -1;
    cJSON_Delete(parts.root);
    free(text);
    return rc;
}

/* tokenizer_config.json beside t->path, when there is one. 0 or -1. */
static int load_config(HfTokenizer *t, SrError *err)
{
    struct stat st;
    size_t cap = strlen(t->path) + 32;
    char *slash = strrchr(t->path, '/'), *cfg_path = malloc(cap);
    if (!cfg_path) return sr_fail(err, "%s: out of memory", t->path);
    if (slash) snprintf(cfg_path, cap, "%.*s/tokenizer_config.json", (int)(slash - t->path), t->path);
    else strcpy(cfg_path, "tokenizer_config.json");
    cJSON *cfg = NULL;
    int rc = stat(cfg_path, &st) == 0 && (read_json(cfg_path, &cfg, err) || apply_config(t, cfg, cfg_path, err)) ? -1 : 0;
    cJSON_Delete(cfg);
    free(cfg_path);
    return rc;
}

HfTokenizer *hf_tokenizer_load(const char *path, SrError *err)
{
    HfTokenizer *t = calloc(1, sizeof *t);
    struct stat st;
    size_t n = strlen(path);
    if (!t || !(t->path = malloc(n + 32))) {
        free(t);
        sr_fail(err, "%s: out of memory", path);
        return NULL;
    }
    strcpy(t->path, path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(t->path, n + 32, "%s/tokenizer.json", path);
    t->words_take_space = 1;
    t->unk_id = -1;
    for (int k = 0; k < HF_N_NAMED; k++) t->named[k] = -1;
    if (load_tokenizer_json(t, err) || load_config(t, err)) {
        hf_free(t);
        return NULL;
    }
    return t;
}

/* Release the owned strings of one step (which ones its kind says). */
static void free_step(HfStep *s)
{
    switch (s->kind) {
    case HF_NORM_PREPEND: free(s->prepend.text); break;
    case HF_NORM_REPLACE:
    case HF_DEC_REPLACE: free(s->replace.pattern), free(s->replace.content); break;
    case HF_PRE_METASPACE:
    case HF_DEC_METASPACE: free(s->metaspace.replacement); break;
    case HF_DEC_STRIP: free(s->strip.content); break;
    case HF_PRE_SPLIT: free(s->cut.literal); break;
    default: break;
    }
}

/* Release the owned strings of steps[0..n) and the array. */
static void free_steps(HfStep *steps, int n)
{
    for (int i = 0; i < n; i++) free_step(&steps[i]);
    free(steps);
}

void hf_free(HfTokenizer *t)
{
    if (!t) return;
    for (int i = 0; i < t->n_added; i++) free(t->added[i].content);
    free(t->text), free(t->text_len), free(t->is_special), free(t->added), free(t->spellings);
    hf_table_free(&t->vocab);
    hf_trie_free(&t->added_trie[0]), hf_trie_free(&t->added_trie[1]);
    hf_merges_free(&t->merges);
    free_steps(t->norm, t->n_norm), free_steps(t->pre, t->n_pre), free_steps(t->dec, t->n_dec);
    free(t->prefix), free(t->suffix), free(t->path);
    free(t);
}

int hf_vocab_size(const HfTokenizer *t) { return t->n_ids; }

int hf_token_id(const HfTokenizer *t, const char *text, size_t n)
{
    int raw = hf_trie_find(&t->added_trie[0], text, n), norm = hf_trie_find(&t->added_trie[1], text, n);
    int first = raw < 0 || (norm >= 0 && norm < raw) ? norm : raw; /* the first added token spelled so */
    if (first >= 0) return t->added[first].id;
    return hf_table_find(&t->vocab, t, text, n);
}

const char *hf_token_text(const HfTokenizer *t, int id)
{
    return id >= 0 && id < t->n_ids ? t->text[id] : NULL;
}

int hf_is_special(const HfTokenizer *t, int id)
{
    return id >= 0 && id < t->n_ids && t->is_special[id];
}

int hf_bos_id(const HfTokenizer *t) { return t->n_prefix ? t->prefix[0] : -1; }
int hf_eos_id(const HfTokenizer *t) { return t->n_suffix ? t->suffix[t->n_suffix - 1] : -1; }
int hf_words_take_space(const HfTokenizer *t) { return t->words_take_space; }
int hf_named_id(const HfTokenizer *t, HfNamedToken which) { return t->named[which]; }
