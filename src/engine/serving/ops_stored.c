/* ops_stored.c — products on BF16 / F16 weights widened a block at a time
 * (see ops_stored.h). */
#include "engine/serving/ops_stored.h"

#include <cblas.h>
#include <string.h>

#include "base/fnv1a.h"
#include "engine/ops/thread_team.h"
#include "engine/serving/matmul_bf16.h"

/* Floats of scratch one thread widens W into: blocks of rows x C. */
enum { STORED_BLOCK_FLOATS = 1024 * 1024 };

float stored_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float stored_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = h >> 10 & 0x1f, man = h & 0x3ff, u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | man << 13;
    } else if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do { man <<= 1; e++; } while (!(man & 0x400));
            u = sign | (uint32_t)(127 - 15 - e) << 23 | (man & 0x3ff) << 13;
        }
    } else {
        u = sign | (exp + 127 - 15) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void stored_widen(float *out, const void *w, StoredType t, size_t n)
{
    if (t == STORED_F32) {
        memcpy(out, w, n * sizeof(float));
        return;
    }
    const unsigned char *src = w;
    if (t == STORED_BF16) {
        for (size_t i = 0; i < n; i++) { /* a shift per value: the compiler vectorises it */
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            uint32_t u = (uint32_t)h << 16;
            memcpy(out + i, &u, sizeof u);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, src + 2 * i, 2);
        out[i] = stored_f16_to_f32(h);
    }
}

int stored_block_rows(int C)
{
    int rows = STORED_BLOCK_FLOATS / (C > 0 ? C : 1);
    return rows < 1 ? 1 : rows > 1024 ? 1024 : rows;
}

size_t stored_scratch_floats(int max_C, int threads)
{
    size_t per_thread = (size_t)max_C > STORED_BLOCK_FLOATS ? (size_t)max_C : STORED_BLOCK_FLOATS;
    return (size_t)(threads > 0 ? threads : 1) * per_thread;
}

/* The address of row r of W (C values of type t). */
static const void *row_at(const void *w, StoredType t, int r, int C)
{
    return (const unsigned char *)w + (size_t)r * C * stored_bytes(t);
}

/* Whether products on BF16 weights use the AVX-512 BF16 kernel where the
 * build has it (stored_bf16_kernel_set). Off by default: in the forward of
 * whole models it ran 0.76x-0.93x the float32 path against 0.93x-1.13x for
 * widening (results/bench/bench-stored.txt). */
static int bf16_kernel_on = 0;

void stored_bf16_kernel_set(int on)
{
    bf16_kernel_on = on;
}

int stored_bf16_kernel_used(void)
{
    return bf16_kernel_on && matmul_bf16_compiled();
}

/* Parts an input is split into for the BF16 kernel: three bfloat16 hold a
 * float32's 24-bit mantissa exactly, so the products are the plain path's
 * (only the order of the float32 sums differs). */
enum { BF16_KERNEL_PARTS = 3 };

void stored_matmul_forward(float *out, int out_stride, const float *inp, const void *w,
                           StoredType t, int N, int C, int OC, float *scratch, int threads)
{
    if (N <= 0 || OC <= 0) return;
    (void)threads; /* read by the OpenMP pragma only: unused in a build without OpenMP */
    int block = stored_block_rows(C);
    int kernel = t == STORED_BF16 && stored_bf16_kernel_used() &&
                 matmul_bf16_scratch_floats(C) <= (size_t)block * C;
#pragma omp parallel num_threads(threads)
    {
        int lo, hi, id = team_thread_id();
        float *wf = scratch + (size_t)id * block * C;
        team_rows(OC, &lo, &hi);
        if (kernel && hi > lo)
            matmul_bf16_block(out, out_stride, inp, w, C, 0, N, lo, hi, BF16_KERNEL_PARTS, wf);
        for (int o0 = lo; o0 < hi && !kernel; o0 += block) {
            int rows = hi - o0 < block ? hi - o0 : block;
            stored_widen(wf, row_at(w, t, o0, C), t, (size_t)rows * C);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, rows, C, 1.0f, inp, C, wf, C,
                        0.0f, out + o0, out_stride);
        }
    }
}

void stored_matmul_backward(float *dinp, const float *dout, int dout_stride, const void *w,
                            StoredType t, int N, int C, int OC, float *scratch, int threads)
{
    if (N <= 0 || C <= 0 || OC <= 0) return;
    (void)threads; /* read by the OpenMP pragma only: unused in a build without OpenMP */
    int block = stored_block_rows(C);
#pragma omp parallel num_threads(threads)
    {
        int lo, hi, id = team_thread_id();
        float *wf = scratch + (size_t)id * block * C;
        team_rows(C, &lo, &hi);
        int cols = hi - lo;
        for (int o0 = 0; o0 < OC && cols > 0; o0 += block) {
            int rows = OC - o0 < block ? OC - o0 : block;
            for (int r = 0; r < rows; r++) { /* this thread's columns of the block's rows */
                const unsigned char *row = row_at(w, t, o0 + r, C);
                stored_widen(wf + (size_t)r * cols, row + (size_t)lo * stored_bytes(t), t,
                             (size_t)cols);
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, cols, rows, 1.0f, dout + o0,
                        dout_stride, wf, cols, 1.0f, dinp + lo, C);
        }
    }
}

void stored_embedding(float *out, const int *ids, const void *w, StoredType t, int N, int C)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) stored_widen(out + (size_t)n * C, row_at(w, t, ids[n], C), t, (size_t)C);
}

uint64_t stored_fnv1a(uint64_t h, const void *w, StoredType t, size_t n)
{
    enum { BLOCK = 4096 };
    float buf[BLOCK];
    const unsigned char *at = w;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < BLOCK ? n - done : BLOCK;
        stored_widen(buf, at + done * stored_bytes(t), t, k);
        h = fnv1a(h, buf, k * sizeof(float));
        done += k;
    }
    return h;
}
