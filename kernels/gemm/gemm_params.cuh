// GEMM family, what every piece of the kernels shares: the one parameter
// struct, the block tile's shape, the shared-memory swizzle and the
// bounded twin's epilogue profile. kernels/gemm/gemm.cu (the variants) and the
// gemm_mainloop / gemm_consumers / gemm_schedulers headers build on it.
#ifndef SB_KERNELS_GEMM_PARAMS_CUH
#define SB_KERNELS_GEMM_PARAMS_CUH

#include <cuda.h>
#include <stdint.h>

#include "gemm_tiles.h"

// The one parameter struct. The tensor maps come first (CUtensorMap is
// alignas(128) in CUDA 13, so the struct is too; alignas(64) would be a
// reduction nvcc ignores), __grid_constant__ with the struct so TMA can
// take their address; the non-TMA variants leave them zero.
struct alignas(128) GemmParams {
  CUtensorMap map_a;  // A as [M][K] fp16, boxes of 64 x BM, 128B swizzle
  CUtensorMap map_b;  // B as [N][K] fp16, boxes of 64 x BN, 128B swizzle
  const uint16_t *a;
  const uint16_t *b;
  float *c;
  int m, n, k;
  int splits;         // split variants: K slices per output tile (1 otherwise)
  unsigned *sem;      // split variants, streamk: semaphores / arrival counters / flags, numbered by launch (epoch)
  float *ws;          // splitk_parallel, splitk_reduce: fp32 partial tiles [splits][tiles][BM * BN];
                      // streamk: per block, [2 x grid][BM * BN] (sb_gemm_sk_slot)
  int sk_grid_blocks; // streamk: its persistent grid (the separate reduction's schedule)
  int sk_reduce;      // streamk: split tiles summed by the separate reduction kernel (1), or
                      // finished in the kernel by their last k-piece (0): sb_gemm_sk_separate
  // The validating (bounded) twin of the ws_tma-based variants only, NULL
  // in every timed launch: [0] += SM cycles thread 0 spent in epilogues
  // (stores, and for the split variants the waits, workspace traffic and
  // adds that combine partial tiles), [1] += its cycles in the whole block.
  unsigned long long *prof;
  // C as [M][N] fp32, boxes of 32 x 16, 128B swizzle: the TMA-store
  // epilogue (GemmWarpgroupMma::store_tma) only. Last, so that the fields
  // before it keep their offsets (and every other kernel its code).
  CUtensorMap map_c;
  // This launch's number since the point's query (1, 2, ...), which zeroed
  // sem: the combining counters only grow, a counter of n arrivals a launch
  // from (epoch - 1) n to epoch x n (gemm_schedulers.cuh, launch
  // numbering). After map_c, as map_c is.
  unsigned epoch;
  // splitk_reduce's reduction kernel: threads a float4 (sb_gemm_reduce_groups).
  // Last, for the same reason.
  int reduce_groups;
};

// Thread 0's cycles since t0 into prof[slot]: the bounded twin's epilogue
// profile (GemmParams::prof); compiled out of the timed kernels.
template <bool Bounded>
__device__ __forceinline__ void gemm_prof_add(const GemmParams &p, int slot, long long t0) {
  if constexpr (Bounded)
    if (p.prof && threadIdx.x == 0) atomicAdd(p.prof + slot, (unsigned long long)(clock64() - t0));
}

template <int BM_, int BN_>
struct GemmTile {
  static constexpr int BM = BM_, BN = BN_, BK = SB_GEMM_BK;
  static constexpr int WARPS_N = BN / 64;             // mma.sync: 64 x 64 per warp
  // Fewer 64 x 64 pieces than a warpgroup's 4 warps (64 x 128): wgmma
  // only, one warpgroup (sb_gemm_tile_wgmma_only).
  static constexpr bool WGMMA_ONLY = (BM / 64) * WARPS_N < 4 || BN % 64 != 0;
  static constexpr int WARPS = WGMMA_ONLY ? 4 : (BM / 64) * WARPS_N;  // = 4 per 64-row warpgroup
  static constexpr int A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static_assert(BM % 64 == 0 && (BN % 64 == 0 || (WGMMA_ONLY && BN % 32 == 0)),
                "64 x 64 warp tiles, or wgmma columns in whole 32-column pieces (the TMA-store epilogue's)");
  static_assert(A_BYTES % 1024 == 0, "B tile and next stage stay 1024-B aligned");
};
// Any shape (gemm_schedule_math.h, sb_gemm_cdiv): ceil(M / BM) x ceil(N /
// BN) output tiles and ceil(K / BK) k-tiles, the last of each partial where
// the shape is not a whole number of them. An edge tile (one that crosses
// C's last row or column) is known once per tile: its direct stores take
// predicates, a whole tile's stores none (gemm_whole_tile).
template <class T>
__host__ __device__ __forceinline__ int gemm_tiles_m(const GemmParams &p) {
  return sb_gemm_cdiv(p.m, T::BM);
}
template <class T>
__host__ __device__ __forceinline__ int gemm_tiles_n(const GemmParams &p) {
  return sb_gemm_cdiv(p.n, T::BN);
}
template <class T>
__host__ __device__ __forceinline__ int gemm_tile_count(const GemmParams &p) {
  return gemm_tiles_m<T>(p) * gemm_tiles_n<T>(p);
}
template <class T>
__host__ __device__ __forceinline__ int gemm_k_tiles(const GemmParams &p) {
  return sb_gemm_cdiv(p.k, T::BK);
}
template <class T>
__device__ __forceinline__ bool gemm_whole_tile(const GemmParams &p, int m0, int n0) {
  return m0 + T::BM <= p.m && n0 + T::BN <= p.n;
}
using Tile128x128 = GemmTile<128, 128>;  // tile axis 0
using Tile128x256 = GemmTile<128, 256>;  // tile axis 1
using Tile64x128 = GemmTile<64, 128>;    // tile axis 2 (wgmma variants only)
using Tile128x96 = GemmTile<128, 96>;    // tile axis 3 (wgmma variants only)

// Byte offset of 16-B chunk `chunk` of tile row `row` (128-byte swizzle).
__device__ __forceinline__ uint32_t gemm_swz(int row, int chunk) {
  return (uint32_t)(row * 128 + ((chunk ^ (row & 7)) << 4));
}

// Where the combining words (semaphores, counters, flags, tickets) sit in
// GemmParams::sem: word i at gemm_flag(i). SB_GEMM_FLAG_STRIDE words apart,
// 1 by default (packed); scripts/noise_probe.sh's experiment builds 32 (one
// word per 128-byte line) to ask whether their placement moves A/A runs.
#ifndef SB_GEMM_FLAG_STRIDE
#define SB_GEMM_FLAG_STRIDE 1
#endif
__host__ __device__ constexpr size_t gemm_flag(size_t i) { return i * SB_GEMM_FLAG_STRIDE; }

#endif  // SB_KERNELS_GEMM_PARAMS_CUH
