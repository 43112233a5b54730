/* hf_mapped.h — a Hugging Face folder's shard files mapped read-only for the
 * lifetime of a model whose big matrices stay as stored (engine/model.h,
 * StoredMatrices): the maps, and the matrices' pointers into them. Made by
 * hf_model_folder.c, released by model_free through StoredMatrices.release. */
#ifndef SEQREP_HF_MAPPED_H
#define SEQREP_HF_MAPPED_H

#include <stddef.h>

#include "base/status.h"
#include "engine/model.h"
#include "engine/serving/ops_stored.h"

/* A StoredMatrices of type t for a model of cfg over n_files files, every
 * pointer still NULL (owner and release set); NULL when out of memory. */
StoredMatrices *hf_mapped_new(const ModelConfig *cfg, StoredType t, int n_files);

/* Map file `file` of the folder (its path) whole, read-only. 0 or -1 with err. */
int hf_mapped_map(StoredMatrices *s, int file, const char *path, SrError *err);

/* Point the matrix with the Hugging Face tensor name `name` at byte `at` of
 * mapped file `file`: 0, or -1 when name is no matrix a stored model keeps
 * (embed_tokens, lm_head, q/k/v/o_proj, gate/up/down_proj). */
int hf_mapped_point(StoredMatrices *s, const char *name, int file, size_t at);

/* 1 when every matrix of a model of cfg has a pointer. */
int hf_mapped_complete(const StoredMatrices *s, const ModelConfig *cfg);

/* Unmap and free (StoredMatrices.release; owner is the StoredMatrices). */
void hf_mapped_release(void *owner);

#endif
