/* manifest.c — provenance of results. */
#include "base/fnv1a.h"
#include "formats/hf/hf_model_folder.h"
#include "runs/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/atomic_file.h"

#ifndef SEQREP_GIT_COMMIT
#define SEQREP_GIT_COMMIT "unknown"
#endif

const char *manifest_git_commit(void)
{
    return SEQREP_GIT_COMMIT;
}

/* Append word to buf (capacity cap), single-quoted if it has shell specials. */
static void append_quoted(char *buf, size_t cap, const char *word)
{
    int plain = *word != 0;
    for (const char *p = word; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%", *p))
            plain = 0;
    size_t len = strlen(buf);
    if (plain) {
        snprintf(buf + len, cap - len, "%s", word);
        return;
    }
    if (len + 1 < cap) buf[len++] = '\'';
    for (const char *p = word; *p && len + 5 < cap; p++) {
        if (*p == '\'') { memcpy(buf + len, "'\\''", 4); len += 4; }
        else buf[len++] = *p;
    }
    if (len + 1 < cap) buf[len++] = '\'';
    buf[len] = 0;
}

cJSON *manifest_begin(int argc, char **argv, unsigned long long seed)
{
    char command[4096] = "seqrep";
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(command);
        if (len + 2 >= sizeof command) break;
        command[len] = ' ';
        command[len + 1] = 0;
        append_quoted(command, sizeof command, argv[i]);
    }
    char created[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "command", command);
    cJSON_AddNumberToObject(m, "seed", (double)seed);
    cJSON_AddStringToObject(m, "git_commit", manifest_git_commit());
    cJSON_AddStringToObject(m, "created", created);
    return m;
}

int file_checksum(const char *path, char hex[17], SrError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, "%s: cannot open for checksum", path);
    uint64_t h = FNV1A_START_SHORT;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = fnv1a(h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) return sr_fail(err, "%s: read error", path);
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
    return 0;
}

int model_checksum(const char *path, char hex[17], SrError *err)
{
    if (!hf_is_model_dir(path)) return file_checksum(path, hex, err);
    char config[4200];
    snprintf(config, sizeof config, "%s/config.json", path);
    return file_checksum(config, hex, err);
}

char *path_with_suffix(const char *path, const char *suffix)
{
    size_t len = strlen(path);
    char *out = malloc(len + strlen(suffix) + 1);
    if (!out) return NULL;
    memcpy(out, path, len + 1);
    char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash + 1)) *dot = 0;
    strcat(out, suffix);
    return out;
}

void manifest_add_file(cJSON *manifest, const char *key, const char *path)
{
    char sum[17], name[96];
    SrError err;
    cJSON_AddStringToObject(manifest, key, path);
    snprintf(name, sizeof name, "%s_checksum", key);
    if (file_checksum(path, sum, &err) == 0) cJSON_AddStringToObject(manifest, name, sum);
}

void manifest_add_splits(cJSON *manifest, const LabelTask *task, SplitPaths paths, int with_words)
{
    const PiecedData *pieces[3] = {&task->train_p, &task->dev_p, &task->test_p};
    const char *files[3] = {paths.train, paths.dev, paths.test};
    const char *names[3] = {"train", "dev", "test"};
    for (int s = 0; s < 3; s++) {
        char key[32];
        manifest_add_file(manifest, names[s], files[s]);
        snprintf(key, sizeof key, "%s_sentences", names[s]);
        cJSON_AddNumberToObject(manifest, key, pieces[s]->n_sents);
        if (!with_words) continue;
        snprintf(key, sizeof key, "%s_words", names[s]);
        cJSON_AddNumberToObject(manifest, key, (double)pieces[s]->n_words);
    }
}

int manifest_save(const char *path, const cJSON *manifest, SrError *err)
{
    char *text = cJSON_Print(manifest);
    int rc = text ? write_file_atomic(path, text, err) : sr_fail(err, "out of memory");
    free(text);
    return rc;
}

int manifest_write(const char *result, cJSON *manifest, char **written, SrError *err)
{
    if (written) *written = NULL;
    cJSON_AddStringToObject(manifest, "result", result);
    char *path = path_with_suffix(result, ".manifest.json");
    int rc = path ? manifest_save(path, manifest, err) : sr_fail(err, "out of memory");
    if (rc == 0 && written) *written = path;
    else free(path);
    return rc;
}
