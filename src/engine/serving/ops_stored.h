/* ops_stored.h — matrix products on weights kept as a Hugging Face folder
 * stores them: BF16 or F16 (two bytes a value, memory-mapped) instead of
 * float32. Each product widens a block of W's rows to float32 at a time into
 * a small scratch and runs the same OpenBLAS sgemm as matmul_forward on it,
 * so a 7B model's weights take the 14 GB they take on disk, not 29 GB.
 *
 * Conventions as ops.h: W (OC, C) row-major, y = x W^T; the backward only
 * gives the input's gradient (weights kept as stored are frozen: LoRA on
 * them trains the adapters). For a fixed thread count every op is
 * deterministic. Scratch: stored_scratch_floats(C, threads) floats, from the
 * caller (ops never allocate); an op uses at most `threads` threads. */
#ifndef SEQREP_OPS_STORED_H
#define SEQREP_OPS_STORED_H

#include <stddef.h>
#include <stdint.h>

typedef enum { STORED_F32 = 0, STORED_BF16 = 1, STORED_F16 = 2 } StoredType;

/* Bytes per element of a stored type. */
static inline size_t stored_bytes(StoredType t)
{
    return t == STORED_F32 ? 4 : 2;
}

/* float32 of one stored value: bfloat16 is the high half of a float32; IEEE
 * half with subnormals, infinities and NaN. */
float stored_bf16_to_f32(uint16_t h);
float stored_f16_to_f32(uint16_t h);

/* The big matrices of a model kept as its files store them (BF16 or F16,
 * memory-mapped) instead of in the model's float32 parameters, for a model
 * that only reads its weights (inference, LoRA on a frozen base;
 * model_stored.h). Each pointer is the start of a
 * row-major tensor of the Hugging Face layout, with the widths below (C the
 * model's width, Q = H*hd and K = KVH*hd the query and key/value widths, F
 * the MLP's, V the vocabulary); owner holds the maps and release(owner)
 * lets them go. */
typedef struct StoredMatrices {
    StoredType type;
    int n_layers, C, Q, K, F, V;
    const void *embed;          /* (V, C) model.embed_tokens */
    const void *lm_head;        /* (V, C) lm_head, or the embedding when tied */
    const void **q, **k, **v;   /* (L) each: (Q, C), (K, C), (K, C) */
    const void **o;             /* (L) (C, Q) */
    const void **gate, **up;    /* (L) (F, C) */
    const void **down;          /* (L) (C, F) */
    void *owner;
    void (*release)(void *owner);
} StoredMatrices;

/* FNV-1a 64 (base/fnv1a.h) from h over the n values at w widened to float32
 * (the bytes a float32 copy of them would hash to). */
uint64_t stored_fnv1a(uint64_t h, const void *w, StoredType t, size_t n);

/* out (n) = the n values at w (of type t) widened to float32. */
void stored_widen(float *out, const void *w, StoredType t, size_t n);

/* Rows of W widened per block for products with C inputs (at most
 * 1,024 rows, about 1 Mi floats: wider blocks keep sgemm near its float32
 * speed), and the scratch floats every product with
 * at most max_C inputs needs on `threads` threads. */
int stored_block_rows(int C);
size_t stored_scratch_floats(int max_C, int threads);

/* out (N rows of stride out_stride; columns [0, OC) assigned) = inp (N, C) . W^T,
 * W (OC, C) of type t: a block of W's rows is widened and multiplied by
 * sgemm, or, for BF16 with stored_bf16_kernel_set(1) on a build that has
 * AVX-512 BF16, the kernel of stored/matmul_bf16.h multiplies them as stored. */
void stored_matmul_forward(float *out, int out_stride, const float *inp, const void *w,
                           StoredType t, int N, int C, int OC, float *scratch, int threads);

/* dinp (N, C) += dout (N rows of stride dout_stride, OC columns) . W, W (OC, C)
 * of type t. Threads split the columns of dinp, each widening only its part
 * of W. */
void stored_matmul_backward(float *dinp, const float *dout, int dout_stride, const void *w,
                            StoredType t, int N, int C, int OC, float *scratch, int threads);

/* Turn the AVX-512 BF16 kernel of stored_matmul_forward on or off (the
 * default: widening was faster, docs/models.md), and whether it is used:
 * on, and compiled in (a build with __AVX512BF16__, e.g. -march=native on a
 * CPU that has it). Not thread-safe: set it before running a model. */
void stored_bf16_kernel_set(int on);
int stored_bf16_kernel_used(void);

/* out (N, C) = rows ids[n] of the (V, C) matrix w of type t, widened. */
void stored_embedding(float *out, const int *ids, const void *w, StoredType t, int N, int C);

#endif
