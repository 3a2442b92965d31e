/* GEMM family: what the host side (bench/gemm.c) and the kernels
 * (kernels/gemm/gemm.cu) agree on. C and C++.
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
 * 128 x 256. 64 x 128 has two 64 x 64 pieces, fewer than a warpgroup's 4
 * warps: one warpgroup of wgmma (m64n128) computes it, and only
 * ws_tma_wgmma, its TMA-store and multicast forms and the variants that cut
 * K compile it: the tile of the small outputs (issue 29). 128 x 96 is one
 * warpgroup too (two m64n96 slices): for M and N that are whole 96s where
 * 128x128 tiles fall short of a wave, e.g. 1152 = 9 x 128 = 12 x 96: its 108 tiles fill
 * 132 SMs in one wave where 81 of 128x128 leave 51 idle (cuBLAS picks a
 * 96-wide tile there too); ws_tma_wgmma, its TMA-store form and the
 * variants that cut K compile it (issue 39). */
#ifndef SB_GEMM_TILES_H
#define SB_GEMM_TILES_H

#include "../../harness/launch.h"

#define SB_GEMM_BK 64
#define SB_GEMM_NUM_TILES 4
#define SB_GEMM_MAX_STAGES 8 /* the 64x128 tile's; 6 for 128x128, 4 for 128x256, 7 for 128x96 */
/* Dynamic shared memory beyond the stages: slack to align them to 1024 B
 * (the 128-byte swizzle repeats every 8 rows = 1024 B). */
#define SB_GEMM_ALIGN_SLACK 1024

/* C's columns: the n axis (sb_gemm_in_sweep sets it: m, or --n with --m);
 * m where it is unset (a point built by hand). */
static inline long long sb_gemm_cols(const long long *axis) {
  return axis[SB_AXIS_N] > 0 ? axis[SB_AXIS_N] : axis[SB_AXIS_M];
}

/* The tile axis: 0 = 128x128x64, 1 = 128x256x64, 2 = 64x128x64, 3 = 128x96x64. */
enum { SB_GEMM_TILE_128X128 = 0, SB_GEMM_TILE_128X256 = 1, SB_GEMM_TILE_64X128 = 2, SB_GEMM_TILE_128X96 = 3 };
static inline int sb_gemm_tile_bm(int tile) { return tile == SB_GEMM_TILE_64X128 ? 64 : 128; }
static inline int sb_gemm_tile_bn(int tile) {
  return tile == SB_GEMM_TILE_128X256 ? 256 : tile == SB_GEMM_TILE_128X96 ? 96 : 128;
}
/* Any shape (the rule): K a multiple of 8 (fp16: A's and B's rows, K long,
 * start 16-byte aligned, as TMA's row strides and cp.async's 16-B chunks
 * need), N a multiple of 4 (fp32: C's rows 16-byte aligned, as the
 * TMA-store epilogue's row stride needs; then every direct store, a pair
 * of columns at an even column, is all inside C or all outside). Partial
 * tiles at every edge: ceil(M / BM) x ceil(N / BN) tiles, ceil(K / 64)
 * k-tiles (sb_gemm_cdiv). */
#define SB_GEMM_K_MULTIPLE 8
#define SB_GEMM_N_MULTIPLE 4
static inline long long sb_gemm_tile_count(int tile, long long m, long long n) {
  return ((m + sb_gemm_tile_bm(tile) - 1) / sb_gemm_tile_bm(tile)) * ((n + sb_gemm_tile_bn(tile) - 1) / sb_gemm_tile_bn(tile));
}
static inline long long sb_gemm_k_tiles(long long k) { return (k + SB_GEMM_BK - 1) / SB_GEMM_BK; }
/* Fewer whole 64 x 64 pieces than a warpgroup has warps: wgmma only. */
static inline int sb_gemm_tile_wgmma_only(int tile) {
  return (sb_gemm_tile_bm(tile) / 64) * (sb_gemm_tile_bn(tile) / 64) < 4 || sb_gemm_tile_bn(tile) % 64;
}
static inline int sb_gemm_tile_warps(int tile) {
  return sb_gemm_tile_wgmma_only(tile) ? 4 : (sb_gemm_tile_bm(tile) / 64) * (sb_gemm_tile_bn(tile) / 64);
}
/* One stage: the A tile and the B tile, fp16. */
static inline long long sb_gemm_stage_bytes(int tile) {
  return (long long)(sb_gemm_tile_bm(tile) + sb_gemm_tile_bn(tile)) * SB_GEMM_BK * 2;
}

/* Family flags (harness/launch.h: SB_VF_FAMILY0 up). */
enum {
  SB_VF_GEMM_ONE_STAGE = SB_VF_FAMILY0,       /* single: stages = 1 */
  SB_VF_GEMM_TWO_STAGES = SB_VF_FAMILY0 << 1, /* swap: stages = 2 */
  SB_VF_GEMM_SPLIT = SB_VF_FAMILY0 << 2,      /* split-K: the splits axis */
  SB_VF_GEMM_STREAMK = SB_VF_FAMILY0 << 3,    /* stream-K: persistent, no splits axis */
  SB_VF_GEMM_PINGPONG = SB_VF_FAMILY0 << 4,   /* two consumer warpgroups, a whole tile each */
  SB_VF_GEMM_MULTICAST = SB_VF_FAMILY0 << 5,  /* clusters of 2 tiles: the cluster_shape axis */
  SB_VF_GEMM_PERSISTENT = SB_VF_FAMILY0 << 6, /* a persistent grid (tiles in a loop), not a block per tile */
  SB_VF_GEMM_TMA_STORE = SB_VF_FAMILY0 << 7,  /* C stored through smem by TMA: its staging after the stages */
  SB_VF_GEMM_DSMEM = SB_VF_FAMILY0 << 8,      /* split-K slices in clusters, partials summed in distributed smem */
  SB_VF_GEMM_COOPERATIVE = SB_VF_FAMILY0 << 9, /* a cooperative grid: the tile's slices wait for each other */
  SB_VF_GEMM_WGMMA_TILE = SB_VF_FAMILY0 << 10  /* ws_tma_wgmma: the wgmma mainloop, a block per whole tile,
                                                  that the variants cutting K, ping-pong and multicast build on */
};
/* The TMA-store epilogue's staging (GemmWarpgroupMma::store_tma): two
 * pieces of 16 x 32 fp32 per consumer warp. */
static inline long long sb_gemm_store_staging_bytes(int tile) {
  return (long long)sb_gemm_tile_warps(tile) * 2 * 16 * 32 * 4;
}

/* The cluster_shape axis (the multicast mainloop): CM x CN adjacent tiles,
 * CM tile rows by CN tile columns. The CTAs of a tile column share its B
 * tile, those of a tile row its A tile: 2x1 (B shared by 2), 1x2 (A shared
 * by 2), and, for ws_tma_wgmma_multicast's 64x128 tile, both at once: 2x2,
 * 4x2 (B by 4, A by 2) and 2x4 (B by 2, A by 4), cuBLAS's clusters of 8 at
 * 1000^3 on an H200. The axis names them in this order (harness/axes.h). */
enum {
  SB_GEMM_CLUSTER_2X1 = 0,
  SB_GEMM_CLUSTER_1X2 = 1,
  SB_GEMM_CLUSTER_2X2 = 2,
  SB_GEMM_CLUSTER_4X2 = 3,
  SB_GEMM_CLUSTER_2X4 = 4,
  SB_GEMM_NUM_CLUSTER_SHAPES = 5
};
static inline int sb_gemm_cluster_m(int shape) {
  return shape == SB_GEMM_CLUSTER_1X2 ? 1 : shape == SB_GEMM_CLUSTER_4X2 ? 4 : 2;
}
static inline int sb_gemm_cluster_n(int shape) {
  return shape == SB_GEMM_CLUSTER_2X1 ? 1 : shape == SB_GEMM_CLUSTER_2X4 ? 4 : 2;
}

/* The stages the split-K and stream-K variants compile per tile (ws_tma_wgmma's
 * best; kernels/gemm/gemm.cu's GemmStages). 64 x 128: 8, the only stages any variant compiles for it: the
 * bytes in flight of 6 stages of 128 x 128 (192 KiB). Against 6 stages, in
 * one machine (H100, 4ffa7c2, proofs/tile64_4ffa7c2): +1 to +8 points of
 * cuBLAS at 128^2 x 16k-64k, where a block streams 16-32 k-tiles; within
 * 1 point at 8k; at 256^2 mostly +1 to +4, but splitk_reduce at 16 slices
 * -2 to -5 at 16k-32k. */
#define SB_GEMM_SPLIT_STAGES_128 6
#define SB_GEMM_SPLIT_STAGES_256 4
/* 128 x 96: 7, the bytes in flight of 6 of 128 x 128 (196 against 192 KiB),
 * and with the TMA-store form's staging still under 227 KiB (8 is not). */
#define SB_GEMM_SPLIT_STAGES_96 7
/* A diagnostic switch (-D at build time, in NVEXTRA and CFLAGS both, so that
 * host rules and kernels agree): the comparison above was this at 6. */
#ifndef SB_GEMM_SPLIT_STAGES_64
#define SB_GEMM_SPLIT_STAGES_64 8
#endif
/* Which stage counts each variant compiles at each tile is stated once,
 * by its composition (kernels/gemm/gemm.cu, GemmStages, from these
 * counts); the host asks the kernels (bench/gemm.c, sb_gemm_compiled). */

/* The split-K and stream-K schedule math (slices, splits=auto, stream-K
   shares): gemm_schedule_math.h, which the kernels and the host share too. */
#include "gemm_schedule_math.h"

#endif
