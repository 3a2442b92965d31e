/* Pipeline family: how n floats are cut into tiles, shared by the kernels
 * (kernels/families/pipeline.cu), the host side (bench/pipeline.c) and the host tests
 * (tests/c/test_pipeline.c), so the tail rules the tests check are the ones
 * the kernels run. Plain C; __host__ __device__ under nvcc.
 *
 * 1D variants: tile t holds elements [t*tile, min((t+1)*tile, n)); the last
 * tile may be short (ragged n). A tile's first len/4*4 elements move as
 * 16-byte vectors (cp.async 16 B, bulk copies, float4); the len%4 <= 3
 * elements after them move one float at a time.
 *
 * Persistent grid: block b takes tiles b, b+grid, b+2*grid, ...
 *
 * 2D variant (ws_tma_2d): the first rows*PL_2D_WIDTH floats are a row-major
 * [rows][PL_2D_WIDTH] matrix cut into boxes of PL_2D_BOX_COLS columns and
 * box_rows = tile bytes / (PL_2D_BOX_COLS * 4) rows; boxes in the last row
 * band may reach past `rows` (the copy engine fills those rows with zeros and
 * nobody stores them). The n % PL_2D_WIDTH floats after the matrix are the
 * 2D tail, read straight from global memory by the block that owns tile 0. */
#ifndef SB_PIPELINE_TILES_H
#define SB_PIPELINE_TILES_H

#ifndef __CUDACC__
#include <math.h>
#endif

#ifdef __CUDACC__
#define PL_HD __host__ __device__ __forceinline__
#else
#define PL_HD static inline
#endif

/* The variants table (kernels/families/pipeline.cu) lists the PL_NUM_STAGED variants
 * with stages first; the pipeline family runs those, pipeline_intensity all.
 * Traits the host side reads from the table (SB_VF_FAMILY0 and up, from
 * harness/launch.h, which the including file provides): */
#define PL_NUM_STAGED 5
#define SB_VF_PL_ONE_TILE (SB_VF_FAMILY0 << 0)       /* one tile of stages x buffer_bytes (sync_single) */
/* W consumer warps + 1 producer warp; the ring's full/empty mbarriers
 * (16 B per stage) after the stages: */
#define SB_VF_PL_WARP_SPECIALIZED (SB_VF_FAMILY0 << 1)
#define SB_VF_PL_TENSOR_2D (SB_VF_FAMILY0 << 2) /* 2D boxes of a tensor map (ws_tma_2d) */
#define SB_VF_PL_NO_STAGES (SB_VF_FAMILY0 << 3) /* no stages, no shared memory (reference) */

/* The compute chain: x = fma(x, A, B), intensity/2 times (2 FLOP each).
 * A = 1 - 2^-14 and B = 2^-15 keep x in [-1, 1] for inputs in [-1, 1)
 * (the fixed point is B / (1 - A) = 0.5) while the output still depends on
 * the input after 512 steps (A^512 ~ 0.97), so a misplaced element shows. */
#define PL_FMA_A 0.99993896484375f
#define PL_FMA_B 0.000030517578125f
#define PL_2D_WIDTH 4096LL  /* matrix row length, floats (16 KiB) */
#define PL_2D_BOX_COLS 256  /* box width, floats: the TMA limit of 256 */

PL_HD long long pl_num_tiles(long long n, long long tile) { return (n + tile - 1) / tile; }

/* Elements in tile t (the last one may be short). */
PL_HD long long pl_tile_len(long long n, long long tile, long long t) {
  long long left = n - t * tile;
  return left < tile ? left : tile;
}

/* Tiles block b of `grid` takes under the round-robin schedule. */
PL_HD long long pl_block_tiles(long long tiles, long long grid, long long b) {
  return b < tiles ? (tiles - b + grid - 1) / grid : 0;
}

/* Elements of a len-element tile that move as 16-byte vectors. */
PL_HD long long pl_vec_elems(long long len) { return len / 4 * 4; }

/* The chain on one float, as the kernels' tails and the brute-force host
 * test compute it; fmaf is IEEE-754 fused multiply-add (one rounding) on
 * the CPU and the GPU alike. */
PL_HD float pl_chain(float x, int fmas) {
  for (int k = 0; k < fmas; ++k) x = fmaf(x, PL_FMA_A, PL_FMA_B);
  return x;
}

/* ---- 2D ---- */
PL_HD long long pl_2d_rows(long long n) { return n / PL_2D_WIDTH; }
PL_HD long long pl_2d_box_rows(long long tile_bytes) {
  return tile_bytes / (PL_2D_BOX_COLS * 4);
}
PL_HD long long pl_2d_col_boxes(void) { return PL_2D_WIDTH / PL_2D_BOX_COLS; }
PL_HD long long pl_2d_tiles(long long n, long long box_rows) {
  return (pl_2d_rows(n) + box_rows - 1) / box_rows * pl_2d_col_boxes();
}
/* Box t's first row and column: consecutive boxes sweep a row band. */
PL_HD long long pl_2d_row0(long long t, long long box_rows) {
  return t / pl_2d_col_boxes() * box_rows;
}
PL_HD long long pl_2d_col0(long long t) { return t % pl_2d_col_boxes() * PL_2D_BOX_COLS; }
/* Rows of box t that lie inside the matrix. */
PL_HD long long pl_2d_valid_rows(long long n, long long box_rows, long long t) {
  long long left = pl_2d_rows(n) - pl_2d_row0(t, box_rows);
  return left < box_rows ? left : box_rows;
}

#endif
