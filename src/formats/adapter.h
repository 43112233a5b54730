/* adapter.h — what fine-tuning trains beside a frozen base model, on disk:
 * the labelling head and (with LoRA) the adapters, as one safetensors file
 * named the way PEFT names them.
 *
 * Tensors (F32):
 *     base_model.model.model.layers.L.self_attn.X_proj.lora_A.weight  (rank, in)
 *     base_model.model.model.layers.L.self_attn.X_proj.lora_B.weight  (out, rank)
 *                      for every layer L and every target X of q, k, v, o;
 *                      in and out as lora.h says (all C unless the base has
 *                      grouped-query attention or a separate head size)
 *     classifier.weight  (K, C)      classifier.bias  (K)
 * Metadata (strings): format "pt", seqrep.adapter "lora" | "none",
 * lora_rank, lora_alpha, lora_dropout, lora_targets ("q,k,v,o"; adapter lora
 * only), base_n_layers, base_d_model, base_model_checksum (FNV-1a 64 of the
 * base model's parameters, 16 hex digits), labels (a JSON array of the tag
 * names, head row order), exit_layer, r, method.
 *
 * Reading checks the file against the base model it is meant for: its depth,
 * width and checksum, every tensor's name and shape (no tensor missing, none
 * unexpected); errors are one line naming the file. */
#ifndef SEQREP_ADAPTER_H
#define SEQREP_ADAPTER_H

#include <stddef.h>

#include "base/status.h"
#include "engine/lora.h"
#include "engine/model.h"

typedef struct {
    int n_layers, d_model;         /* of the base model */
    int q_dim, kv_dim;             /* its H*hd and KVH*hd; 0 = d_model (seqrep's own models) */
    char base_checksum[17];        /* adapter_base_checksum of the base model */
    int has_lora;                  /* 1: adapters (lora, lora_w) are part of the file */
    LoraConfig lora;
    size_t n_lora;                 /* floats in lora_w (Lora.params layout) */
    float *lora_w;
    int n_labels;                  /* K */
    char **labels;                 /* (K) tag names */
    float *head_W, *head_b;        /* (K, C), (K) */
    int exit_layer, r;
    char method[32];
} AdapterFile;

/* FNV-1a 64 of the bytes of m's parameters, as 16 hex digits into hex[17]. */
void adapter_base_checksum(const Model *m, char hex[17]);

/* Floats of the adapters cfg puts on n_layers layers of width d_model (the
 * size of Lora.params). */
size_t adapter_lora_floats(const LoraConfig *cfg, int n_layers, int d_model);
/* The same for a model whose queries are q_dim and keys/values kv_dim wide. */
size_t adapter_lora_floats_dims(const LoraConfig *cfg, int n_layers, int d_model, int q_dim,
                                int kv_dim);

/* Write a atomically to path (the caller's buffers are only read); refused
 * when a->n_lora is not the adapters' size for a's widths. */
int adapter_write(const char *path, const AdapterFile *a, SrError *err);

/* Read path into *a (new buffers: adapter_free), checked against base: depth,
 * width, checksum, tensor names and shapes (q_dim and kv_dim are base's).
 * On failure *a is empty. */
int adapter_read(const char *path, const Model *base, AdapterFile *a, SrError *err);

/* Release what adapter_read allocated; zero *a. */
void adapter_free(AdapterFile *a);

#endif
