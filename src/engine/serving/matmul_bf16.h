/* matmul_bf16.h — one thread's block of a product with bfloat16 weights on
 * the CPU's AVX-512 BF16 dot-product instruction (vdpbf16ps); the kernel of
 * ops_stored.h's BF16 paths. In a build without __AVX512BF16__ it is absent
 * (matmul_bf16_compiled says 0 and the block function does nothing). */
#ifndef SEQREP_MATMUL_BF16_H
#define SEQREP_MATMUL_BF16_H

#include <stddef.h>
#include <stdint.h>

/* 1 when the kernel is compiled in. */
int matmul_bf16_compiled(void);

/* Floats of scratch one thread of the kernel needs for C input features
 * (not decreasing with C). */
size_t matmul_bf16_scratch_floats(int C);

/* out rows [n0, n1), columns [o0, o1) (rows of out_stride floats, assigned)
 * = inp rows [n0, n1) (rows of C floats) . W^T for the rows [o0, o1) of
 * W (OC, C) in bfloat16. Each input is split into `parts` bfloat16 (1 to 3)
 * whose sum keeps 8, 16 or all 24 bits of its mantissa; the products are
 * exact and summed in float32. One thread; scratch holds
 * matmul_bf16_scratch_floats(C) floats. */
void matmul_bf16_block(float *out, int out_stride, const float *inp, const uint16_t *w, int C,
                       int n0, int n1, int o0, int o1, int parts, float *scratch);

#endif
