/* matmul_bf16.c — a block of y = x W^T with bfloat16 W on AVX-512 BF16
 * (see matmul_bf16.h).
 *
 * vdpbf16ps adds to each of 16 float32 lanes the two exact products of a
 * pair of bfloat16 from each operand. W's rows are packed, 32 rows (a panel)
 * at a time, so that lane j of the vector for pair p holds row j's elements
 * 2p and 2p + 1; a tile of TILE_ROWS rows of x is rounded to bfloat16 pairs,
 * part after part (each part the rounded remainder of the ones before:
 * three parts hold a float32 exactly), and each pair is broadcast against
 * the panel: TILE_ROWS x 32 sums kept in 24 registers. Each output is summed
 * over its parts and pairs in order in one lane, whatever the block, so the
 * result does not depend on how threads split the work. */
#include "engine/serving/matmul_bf16.h"

#ifdef __AVX512BF16__

#include <immintrin.h>

/* Rows of W in a panel (two vectors of 16 lanes), rows of x in a tile, and
 * the packed bytes of W one block aims at, within [MIN, MAX] rows. */
enum { PANEL = 32, TILE_ROWS = 12, BLOCK_BYTES = 512 * 1024, MIN_BLOCK = 32, MAX_BLOCK = 256 };
/* The most bfloat16 parts an input is split into. */
enum { MAX_PARTS = 3 };

/* Pairs of bfloat16 in a row of C elements (an odd C gets a zero partner). */
static int pairs_of(int C)
{
    return (C + 1) / 2;
}

/* The distance between rows of the input tile (in pairs): P padded to
 * whole 64-byte lines and one line more, so that the tile's 36 rows do not
 * fall on addresses 4 KB apart (the same cache set; C = 2048 would). */
static int tile_stride(int P)
{
    return (P + 15) / 16 * 16 + 16;
}

/* Rows of W packed at a time: about BLOCK_BYTES, a multiple of PANEL. */
static int block_rows(int C)
{
    long rows = BLOCK_BYTES / ((long)pairs_of(C > 0 ? C : 1) * 4) / PANEL * PANEL;
    return (int)(rows < MIN_BLOCK ? MIN_BLOCK : rows > MAX_BLOCK ? MAX_BLOCK : rows);
}

int matmul_bf16_compiled(void)
{
    return 1;
}

/* The packed block (a bound on block_rows(C) * P that does not decrease
 * with C) and the tile of input parts. */
size_t matmul_bf16_scratch_floats(int C)
{
    size_t P = (size_t)pairs_of(C > 0 ? C : 1), budget = BLOCK_BYTES / 4;
    size_t block = (size_t)MAX_BLOCK * P < budget ? (size_t)MAX_BLOCK * P : budget;
    if (block < (size_t)MIN_BLOCK * P) block = (size_t)MIN_BLOCK * P;
    return block + (size_t)MAX_PARTS * TILE_ROWS * (size_t)tile_stride((int)P);
}

/* Transpose the 16 x 16 32-bit elements of r in place (row j, element k ->
 * row k, element j): pairs of 32-bit elements, then of 64-bit, then 128-bit
 * lanes across vectors. */
static void transpose16(__m512i r[16])
{
    __m512i t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    /* u[4g + k], lane L: element 4L + k of rows 4g .. 4g + 3 */
    for (int g = 0; g < 16; g += 4) {
        u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
        u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
        u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
        u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    for (int k = 0; k < 4; k++) {
        __m512i v0 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x44);
        __m512i v1 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xee);
        __m512i v2 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x44);
        __m512i v3 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xee);
        r[k] = _mm512_shuffle_i32x4(v0, v2, 0x88);
        r[4 + k] = _mm512_shuffle_i32x4(v0, v2, 0xdd);
        r[8 + k] = _mm512_shuffle_i32x4(v1, v3, 0x88);
        r[12 + k] = _mm512_shuffle_i32x4(v1, v3, 0xdd);
    }
}

/* dst (P pairs x PANEL lanes) = rows [0, rows) of w (rows of C bfloat16),
 * lane j of pair p holding row j's elements 2p, 2p + 1; zero past row `rows`
 * and past element C. */
static void pack_panel(uint32_t *dst, const uint16_t *w, int C, int P, int rows)
{
    for (int half = 0; half < PANEL; half += 16)
        for (int p0 = 0; p0 < P; p0 += 16) {
            int left = C - 2 * p0;
            __mmask32 mask = left >= 32 ? 0xffffffffu : ((__mmask32)1 << left) - 1;
            __m512i r[16];
            for (int j = 0; j < 16; j++)
                r[j] = half + j < rows
                           ? _mm512_maskz_loadu_epi16(mask, w + (size_t)(half + j) * C + 2 * p0)
                           : _mm512_setzero_si512();
            transpose16(r);
            int count = P - p0 < 16 ? P - p0 : 16;
            for (int k = 0; k < count; k++)
                _mm512_storeu_si512(dst + (size_t)(p0 + k) * PANEL + half, r[k]);
        }
}

/* The mask of the first `count` of 16 lanes (none when count <= 0). */
static __mmask16 lane_mask(int count)
{
    return count >= 16 ? 0xffff : count > 0 ? (__mmask16)((1u << count) - 1) : 0;
}

/* bfloat16 -> float32 of 16 values held in the low or high half of v. */
static __m512 widen_half(__m512i v, int high)
{
    __m256i h = high ? _mm512_extracti64x4_epi64(v, 1) : _mm512_castsi512_si256(v);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* xt (parts x TILE_ROWS rows of P pairs, tile_stride(P) apart) = rows
 * [0, rows) of x (rows of C floats) as bfloat16 pairs: part 0 x rounded,
 * each next part what the parts before leave of x, rounded; zero past row
 * `rows` and past element C. */
static void convert_tile(uint32_t *xt, const float *x, int C, int P, int rows, int parts)
{
    size_t stride = (size_t)tile_stride(P);
    for (int r = 0; r < TILE_ROWS; r++)
        for (int c = 0; c < 2 * P; c += 32) {
            int left = r < rows ? C - c : 0;
            const float *row = x + (size_t)(r < rows ? r : 0) * C + c;
            __m512 a = _mm512_maskz_loadu_ps(lane_mask(left), row);
            __m512 b = _mm512_maskz_loadu_ps(lane_mask(left - 16), row + 16);
            for (int part = 0; part < parts; part++) {
                __m512i h = (__m512i)_mm512_cvtne2ps_pbh(b, a);
                _mm512_mask_storeu_epi32(xt + ((size_t)part * TILE_ROWS + r) * stride + c / 2,
                                         lane_mask(P - c / 2), h);
                a = _mm512_sub_ps(a, widen_half(h, 0));
                b = _mm512_sub_ps(b, widen_half(h, 1));
            }
        }
}

/* out (rows of out_stride; the first `rows` rows and `cols` columns are
 * written) = the tile xt . the panel wp, over `parts` parts of P pairs. */
static void tile_kernel(float *out, int out_stride, int rows, int cols, const uint32_t *xt,
                        const uint32_t *wp, int P, int parts)
{
    __m512 acc[TILE_ROWS][2];
    for (int r = 0; r < TILE_ROWS; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    size_t stride = (size_t)tile_stride(P);
    for (int part = 0; part < parts; part++) {
        const uint32_t *x = xt + (size_t)part * TILE_ROWS * stride;
        for (int p = 0; p < P; p++) {
            __m512bh w0 = (__m512bh)_mm512_loadu_si512(wp + (size_t)p * PANEL);
            __m512bh w1 = (__m512bh)_mm512_loadu_si512(wp + (size_t)p * PANEL + 16);
            for (int r = 0; r < TILE_ROWS; r++) {
                __m512bh b = (__m512bh)_mm512_set1_epi32((int)x[r * stride + p]);
                acc[r][0] = _mm512_dpbf16_ps(acc[r][0], b, w0);
                acc[r][1] = _mm512_dpbf16_ps(acc[r][1], b, w1);
            }
        }
    }
    __mmask16 m0 = lane_mask(cols), m1 = lane_mask(cols - 16);
    for (int r = 0; r < rows; r++) {
        _mm512_mask_storeu_ps(out + (size_t)r * out_stride, m0, acc[r][0]);
        _mm512_mask_storeu_ps(out + (size_t)r * out_stride + 16, m1, acc[r][1]);
    }
}

void matmul_bf16_block(float *out, int out_stride, const float *inp, const uint16_t *w, int C,
                       int n0, int n1, int o0, int o1, int parts, float *scratch)
{
    int P = pairs_of(C), block = block_rows(C);
    uint32_t *packed = (uint32_t *)scratch, *xt = packed + (size_t)block * P;
    for (int o = o0; o < o1; o += block) {
        int count = o1 - o < block ? o1 - o : block;
        for (int q = 0; q < count; q += PANEL)
            pack_panel(packed + (size_t)q * P, w + (size_t)(o + q) * C, C, P,
                       count - q < PANEL ? count - q : PANEL);
        for (int n = n0; n < n1; n += TILE_ROWS) {
            int rows = n1 - n < TILE_ROWS ? n1 - n : TILE_ROWS;
            convert_tile(xt, inp + (size_t)n * C, C, P, rows, parts);
            for (int q = 0; q < count; q += PANEL)
                tile_kernel(out + (size_t)n * out_stride + o + q, out_stride, rows,
                            count - q < PANEL ? count - q : PANEL, xt, packed + (size_t)q * P, P,
                            parts);
        }
    }
}

#else /* no AVX-512 BF16 in this build: the plain path serves */

int matmul_bf16_compiled(void)
{
    return 0;
}

size_t matmul_bf16_scratch_floats(int C)
{
    (void)C;
    return 0;
}

void matmul_bf16_block(float *out, int out_stride, const float *inp, const uint16_t *w, int C,
                       int n0, int n1, int o0, int o1, int parts, float *scratch)
{
    (void)out, (void)out_stride, (void)inp, (void)w, (void)C, (void)n0, (void)n1, (void)o0;
    (void)o1, (void)parts, (void)scratch;
}

#endif
