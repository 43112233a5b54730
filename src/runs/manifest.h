/* manifest.h — how a result was made: command line, seed, git commit, time,
 * and checksums of the files it read. Written beside every result (inside a
 * checkpoint's metadata, or as NAME.manifest.json next to a CSV). */
#ifndef SEQREP_MANIFEST_H
#define SEQREP_MANIFEST_H

#include <stdint.h>

#include <cJSON.h>

#include "base/status.h"
#include "label/task.h"

/* A new JSON object {"command", "seed", "git_commit", "created"}: argv joined
 * with shell quoting where needed, the build's commit, UTC time. */
cJSON *manifest_begin(int argc, char **argv, unsigned long long seed);

/* The git commit compiled into this build ("unknown" outside a checkout). */
const char *manifest_git_commit(void);

/* FNV-1a 64-bit checksum of a whole file, as 16 hex digits into hex[17]. */
int file_checksum(const char *path, char hex[17], SrError *err);

/* The checksum of a model: file_checksum of a checkpoint file, or of a
 * Hugging Face model folder's config.json (what `seqrep info` shows). */
int model_checksum(const char *path, char hex[17], SrError *err);

/* Record an input file: "key": path and "key_checksum": its FNV-1a 64
 * checksum (left out when the file cannot be read). */
void manifest_add_file(cJSON *manifest, const char *key, const char *path);

/* path with its file name's extension (from its last '.') replaced by
 * suffix: ("dir/run.csv", ".manifest.json") -> "dir/run.manifest.json",
 * ("dir/run", ".md") -> "dir/run.md". A new string (caller frees), NULL when
 * out of memory. Every result names its manifest, log or numbers this way. */
char *path_with_suffix(const char *path, const char *suffix);

/* Record the three split files of a labelling task: "train",
 * "train_checksum", "train_sentences" and, with with_words, "train_words";
 * then dev, test. */
void manifest_add_splits(cJSON *manifest, const LabelTask *task, SplitPaths paths, int with_words);

/* Write the manifest to path atomically, as indented JSON. 0 or -1. */
int manifest_save(const char *path, const cJSON *manifest, SrError *err);

/* Add "result": result to the manifest and write it atomically beside the
 * result ("dir/x.csv" -> "dir/x.manifest.json"). When written is not NULL it
 * receives the manifest's path (caller frees; NULL on failure). 0 or -1. */
int manifest_write(const char *result, cJSON *manifest, char **written, SrError *err);

#endif
