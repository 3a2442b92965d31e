/* GEMM family: what the host side (bench/gemm.c) and the kernels
 * (kernels/gemm.cu) agree on. C and C++.
 *
 * C = A * B with A M x K row-major fp16, B K x N column-major fp16 (stored
 * as N rows of K: each column contiguous), C M x N row-major fp32; N = M.
 * The input buffer holds A, then B; the output buffer holds C.
 *
 * Block tiles BM x BN x 64 (the `tile` axis): BK = 64 fp16 = 128 bytes per
 * tile row, the 128-byte swizzle atom that TMA (SWIZZLE_128B), ldmatrix and
 * wgmma all read, so every variant uses the one shared-memory layout. Every
 * consumer warp owns a 64 x 64 piece of C (mma.sync), every consumer
 * warpgroup 64 rows (wgmma): 4 consumer warps for 128 x 128, 8 for
 * 128 x 256. */
#ifndef SB_GEMM_TILES_H
#define SB_GEMM_TILES_H

#include "../harness/launch.h"

#define SB_GEMM_BK 64
#define SB_GEMM_NUM_TILES 2
#define SB_GEMM_MAX_STAGES 6
/* Dynamic shared memory beyond the stages: slack to align them to 1024 B
 * (the 128-byte swizzle repeats every 8 rows = 1024 B). */
#define SB_GEMM_ALIGN_SLACK 1024

static inline int sb_gemm_tile_bm(int tile) { return tile == 1 ? 128 : 128; }
static inline int sb_gemm_tile_bn(int tile) { return tile == 1 ? 256 : 128; }
static inline int sb_gemm_tile_warps(int tile) {
  return (sb_gemm_tile_bm(tile) / 64) * (sb_gemm_tile_bn(tile) / 64);
}
/* One stage: the A tile and the B tile, fp16. */
static inline long long sb_gemm_stage_bytes(int tile) {
  return (long long)(sb_gemm_tile_bm(tile) + sb_gemm_tile_bn(tile)) * SB_GEMM_BK * 2;
}

/* Family flags (harness/launch.h: SB_VF_FAMILY0 up). */
enum {
  SB_VF_GEMM_ONE_STAGE = SB_VF_FAMILY0,       /* single: stages = 1 */
  SB_VF_GEMM_TWO_STAGES = SB_VF_FAMILY0 << 1 /* swap: stages = 2 */
};

#endif
