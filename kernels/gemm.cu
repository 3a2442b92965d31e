// GEMM family: C = A * B, fp16 inputs, fp32 accumulation and output.
// A is M x K row-major, B is K x N column-major (N rows of K: every column
// contiguous), C is M x N row-major fp32, N = M. Host side: bench/gemm.c;
// tiles and layout shared with it: gemm_tiles.h; docs/gemm.md.
//
// Every variant computes the same block tile (BM x BN, K in steps of
// BK = 64) from the same shared-memory layout with the same math, and
// differs only in how the K loop is staged and synchronized:
//   single        1 buffer per operand: cp.async, wait, __syncthreads,
//                 compute, __syncthreads. No overlap.
//   swap          2 buffers (index kt & 1, next ^ 1): per k-tile one
//                 cp.async.wait_group 0 + one __syncthreads, then prefetch
//                 k-tile kt+1 into the other buffer while computing kt.
//   ring          S buffers: S-1 k-tiles in flight; per k-tile one
//                 cp.async.wait_group<S-2> + one __syncthreads.
//   ws_mbarrier   consumer warps + 1 producer warp on an sb_ring (full /
//                 empty mbarriers, S deep): the producer's lanes cp.async a
//                 stage and cp.async.mbarrier.arrive.noinc on `full` (32
//                 arrivals); consumers wait `full`, compute, arrive `empty`.
//   ws_tma        the producer is one elected thread: arrive.expect_tx of
//                 the stage's bytes on `full`, then two 2D TMA copies (A and
//                 B tiles, 128-byte swizzle) that complete_tx on it. sm_90.
//   ws_tma_wgmma  ws_tma with warpgroup consumers: wgmma.mma_async
//                 m64nBNk16 from shared memory (both operands), fence /
//                 commit_group / wait_group 0 before releasing the stage.
//                 sm_90a.
//   cublas        cublasGemmEx on the same buffers: the ceiling.
//
// The shared-memory layout (every variant): a stage is the A tile (BM rows
// of 64 fp16 = 128 B) then the B tile (BN rows of 64 fp16), each row's 16-B
// chunk c stored at chunk c ^ (row & 7): the 128-byte swizzle that TMA's
// CU_TENSOR_MAP_SWIZZLE_128B writes and wgmma's 128B-swizzle descriptor
// reads, given 1024-B aligned stages; ldmatrix reads 8 rows of one logical
// chunk, which land in 8 different chunks: no bank conflicts.
#include <cublas_v2.h>
#include <math.h>
#include <string.h>

#include "cp_async.cuh"
#include "gemm_tiles.h"
#include "launch.cuh"
#include "ring.cuh"
#include "tensor_map.cuh"

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
  unsigned *sem;      // split variants: one semaphore / arrival counter per tile
  float *ws;          // splitk_parallel: fp32 partial tiles [splits][tiles][BM * BN]
  // The validating (bounded) twin of the ws_tma-based variants only, NULL
  // in every timed launch: [0] += SM cycles thread 0 spent in epilogues
  // (stores, and for the split variants the waits, workspace traffic and
  // adds that combine partial tiles), [1] += its cycles in the whole block.
  unsigned long long *prof;
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
  static constexpr int WARPS = (BM / 64) * WARPS_N;   // = 4 per 64-row warpgroup
  static constexpr int A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static_assert(BM % 64 == 0 && BN % 64 == 0, "64 x 64 warp tiles");
  static_assert(A_BYTES % 1024 == 0, "B tile and next stage stay 1024-B aligned");
};
using Tile128x128 = GemmTile<128, 128>;  // tile axis 0
using Tile128x256 = GemmTile<128, 256>;  // tile axis 1

// Byte offset of 16-B chunk `chunk` of tile row `row` (128-byte swizzle).
__device__ __forceinline__ uint32_t gemm_swz(int row, int chunk) {
  return (uint32_t)(row * 128 + ((chunk ^ (row & 7)) << 4));
}

// Copies k-tile k0 of the block's A rows (a_blk = A + m0 * K) and B columns
// (b_blk = B + n0 * K) into `stage`, swizzled: thread t of NT copies 16-B
// chunk t & 7 of rows t / 8, t / 8 + NT / 8, ...; 8 consecutive threads
// read one 128-B row segment. The source pointer steps by NT / 8 rows, so
// the compiler keeps one pointer per operand, not one per copy (a 32-lane
// producer issues 32 + 64 copies per stage).
template <int NT, int ROWS>
__device__ __forceinline__ void gemm_load_rows(uint32_t dst, const uint16_t *src_blk, int K, int k0,
                                               int t) {
  static_assert((ROWS * 8) % NT == 0, "whole chunks per thread");
  const int c = t & 7;
  const uint16_t *src = src_blk + (size_t)(t >> 3) * K + k0 + c * 8;
  const size_t step = (size_t)(NT / 8) * K;
#pragma unroll 8
  for (int it = 0; it < ROWS * 8 / NT; ++it) {
    sb_cp_async16(dst + gemm_swz(it * (NT / 8) + (t >> 3), c), src);
    src += step;
  }
}

template <class T, int NT>
__device__ __forceinline__ void gemm_load_stage(uint32_t stage, const uint16_t *a_blk,
                                                const uint16_t *b_blk, int K, int k0, int t) {
  gemm_load_rows<NT, T::BM>(stage, a_blk, K, k0, t);
  gemm_load_rows<NT, T::BN>(stage + T::A_BYTES, b_blk, K, k0, t);
}

// ---- mma.sync consumers: one warp, a 64 x 64 piece of C ----

__device__ __forceinline__ void gemm_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void gemm_mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                               uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <class T>
struct GemmWarpMma {
  float acc[4][8][4];  // [m16 tile][n8 tile][fragment]: 128 fp32 per thread
  int wm, wn, lane;

  __device__ __forceinline__ explicit GemmWarpMma(int warp) {
    wm = warp / T::WARPS_N;
    wn = warp % T::WARPS_N;
    lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int f = 0; f < 4; ++f) acc[i][j][f] = 0.f;
  }

  // acc += A tile rows [64 wm, +64) x B tile columns [64 wn, +64), k 0..63.
  // Per k16 step: the B fragments of all 8 n8 tiles (16 registers), then
  // one m16 tile of A at a time (4): 148 live registers with the
  // accumulators, which a 9-warp block (8 consumers + producer: 168 per
  // thread at most) holds.
  __device__ __forceinline__ void stage(uint32_t stage_addr) {
    // Every row these lanes address has row & 7 == lane & 7, so the swizzled
    // chunk depends only on (k16 step, lane): a lane's addresses are its row
    // base + one of 4 chunk offsets + immediates (m16 tile: 2 KiB, n16
    // pair: 2 KiB). Few registers, no per-address arithmetic.
    const int x = lane & 7;
    const uint32_t a_row = stage_addr + (uint32_t)(wm * 64 + (lane & 15)) * 128;
    const uint32_t b_row = stage_addr + T::A_BYTES + (uint32_t)(wn * 64 + ((lane >> 4) << 3) + x) * 128;
#pragma unroll
    for (int kk = 0; kk < T::BK / 16; ++kk) {
      // B, two n8 tiles x k16 per ldmatrix.x4 (rows are columns of B):
      // matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7),
      // (n 8-15, k 8-15) -> b0, b1 of n-tile 2j, b0, b1 of n-tile 2j+1.
      const uint32_t b_k = b_row + (uint32_t)(((kk * 2 + ((lane >> 3) & 1)) ^ x) << 4);
      uint32_t bf[4][4];
#pragma unroll
      for (int nj = 0; nj < 4; ++nj) gemm_ldmatrix_x4(bf[nj], b_k + nj * 16 * 128);
      // A, m16 x k16 per ldmatrix.x4: lanes 0-15 rows 0-15 at k 0-7, lanes
      // 16-31 the same rows at k 8-15 -> a0..a3 of m16n8k16.
      const uint32_t a_k = a_row + (uint32_t)(((kk * 2 + (lane >> 4)) ^ x) << 4);
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        uint32_t af[4];
        gemm_ldmatrix_x4(af, a_k + mi * 16 * 128);
#pragma unroll
        for (int nj = 0; nj < 4; ++nj) {
          gemm_mma_16816(acc[mi][2 * nj], af, bf[nj][0], bf[nj][1]);
          gemm_mma_16816(acc[mi][2 * nj + 1], af, bf[nj][2], bf[nj][3]);
        }
      }
    }
  }

  // Fragment (i, j): rows g and g + 8 of m16 tile i, columns 2q, 2q + 1 of
  // n8 tile j (g = lane / 4, q = lane % 4).
  __device__ __forceinline__ void store(const GemmParams &p, int m0, int n0) const {
    const int g = lane >> 2, q = lane & 3;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int row = m0 + wm * 64 + i * 16 + g, col = n0 + wn * 64 + j * 8 + 2 * q;
        float *c = p.c + (size_t)row * p.n + col;
        *reinterpret_cast<float2 *>(c) = make_float2(acc[i][j][0], acc[i][j][1]);
        *reinterpret_cast<float2 *>(c + (size_t)8 * p.n) = make_float2(acc[i][j][2], acc[i][j][3]);
      }
  }
};

// ---- TMA and wgmma (sm_90 / sm_90a) ----

// A 2D box (64 columns of K from column k0, BM or BN rows from row r0) into
// `dst`, completing its bytes on `bar` (complete_tx).
__device__ __forceinline__ void gemm_tma_load_2d(uint32_t dst, const CUtensorMap *map, int k0, int r0,
                                                 uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((unsigned long long)map), "r"(k0), "r"(r0), "r"(bar)
      : "memory");
#else
  (void)dst, (void)map, (void)k0, (void)r0, (void)bar;
  __trap();
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Shared-memory matrix descriptor of a K-major operand in the 128-byte
// swizzle (PTX ISA, "Matrix Descriptor Format"): start address >> 4 (bits
// 0-13), leading byte offset (16-29: unused for a swizzled K-major operand,
// 1 by convention), stride byte offset >> 4 (32-45: 1024 B from one group
// of 8 rows to the next), base offset 0 (49-51: the stages are 1024-B
// aligned), layout 1 = SWIZZLE_128B (62-63). The k16 step kk of a 64-wide
// row starts kk * 32 B further: the hardware applies the swizzle to the
// computed address, as TMA did when it wrote the tile.
__device__ __forceinline__ uint64_t gemm_wgmma_desc(uint32_t smem_addr) {
  return (uint64_t)((smem_addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) |
         ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

__device__ __forceinline__ void gemm_wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void gemm_wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void gemm_wgmma_wait0() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}
// Keeps the compiler from moving accumulator reads/writes across the
// asynchronous wgmma window (CUTLASS's warpgroup_fence_operand).
__device__ __forceinline__ void gemm_fence_operand(float &r) { asm volatile("" : "+f"(r)::"memory"); }

// D (64 x N fp32, the warpgroup's fragments) += A (64 x 16, desc_a) *
// B (16 x N, desc_b); both operands K-major in shared memory, scale-d = 1.
// Inline asm has no loops: the operand lists are spelled out once here.
#define GEMM_WG_D64 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GEMM_WG_D128 GEMM_WG_D64 ", " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define GEMM_F8(i)                                                                               \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define GEMM_F64(i)                                                                            \
  GEMM_F8(i), GEMM_F8(i + 8), GEMM_F8(i + 16), GEMM_F8(i + 24), GEMM_F8(i + 32), GEMM_F8(i + 40), \
      GEMM_F8(i + 48), GEMM_F8(i + 56)

__device__ __forceinline__ void gemm_wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" GEMM_WG_D64 "}, %64, %65, p, 1, 1, 0, 0;\n\t}\n"
      : GEMM_F64(0)
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

__device__ __forceinline__ void gemm_wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" GEMM_WG_D128 "}, %128, %129, p, 1, 1, 0, 0;\n\t}\n"
      : GEMM_F64(0), GEMM_F64(64)
      : "l"(desc_a), "l"(desc_b), "r"(1));
}
#undef GEMM_F64
#undef GEMM_F8
#undef GEMM_WG_D128
#undef GEMM_WG_D64
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// Warpgroup consumers: warpgroup wg owns rows [64 wg * MSUB, +64 MSUB) of
// the block tile, all BN columns: 128 x 128 has 1 warpgroup with 2 m64
// slices, 128 x 256 has 2 with 1 each (128 fp32 accumulators per thread in
// both, as in the mma.sync consumers).
template <class T>
struct GemmWarpgroupMma {
  static constexpr int WGS = T::WARPS / 4;
  static constexpr int MSUB = T::BM / 64 / WGS;
  static_assert(T::BN == 128 || T::BN == 256, "wgmma n128 / n256");
  float acc[MSUB][T::BN / 2];
  int wg;

  __device__ __forceinline__ explicit GemmWarpgroupMma(int warp) : wg(warp / 4) { zero(); }
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int i = 0; i < T::BN / 2; ++i) acc[s][i] = 0.f;
  }

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __device__ __forceinline__ void fence_acc() {
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int i = 0; i < T::BN / 2; ++i) gemm_fence_operand(acc[s][i]);
  }

  // acc += this warpgroup's rows of the stage's A tile x its B tile, and
  // wait for it: after this the stage may be released.
  __device__ __forceinline__ void stage(uint32_t stage_addr) {
    const uint32_t a_s = stage_addr + (uint32_t)(wg * MSUB * 64 * 128), b_s = stage_addr + T::A_BYTES;
    fence_acc();
    gemm_wgmma_fence();  // accumulators written by ordinary code before: order them
#pragma unroll
    for (int kk = 0; kk < T::BK / 16; ++kk)
#pragma unroll
      for (int s = 0; s < MSUB; ++s) {
        const uint64_t da = gemm_wgmma_desc(a_s + s * 64 * 128 + kk * 32);
        const uint64_t db = gemm_wgmma_desc(b_s + kk * 32);
        if constexpr (T::BN == 128)
          gemm_wgmma_m64n128k16(acc[s], da, db);
        else
          gemm_wgmma_m64n256k16(acc[s], da, db);
      }
    gemm_wgmma_commit();
    gemm_wgmma_wait0();  // the stage's reads are done before it is released
    fence_acc();
  }
#endif

  // Fragment layout of wgmma D (m64nNk16, f32): warp w of the warpgroup has
  // rows 16 w + g and 16 w + g + 8; acc[4 j + 0..1] columns 8 j + 2q, +1 of
  // row 16 w + g, acc[4 j + 2..3] the same columns of row 16 w + g + 8.
  // Add: C += acc (a later K slice of serial split-K), read through L2
  // (ld.cg: the earlier slice's lines were written by another SM).
  template <bool Add = false>
  __device__ __forceinline__ void store(const GemmParams &p, int m0, int n0) const {
    const int t = threadIdx.x & 127, w = t >> 5, g = (t & 31) >> 2, q = t & 3;
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int j = 0; j < T::BN / 8; ++j) {
        const int row = m0 + (wg * MSUB + s) * 64 + w * 16 + g, col = n0 + j * 8 + 2 * q;
        float2 *c0 = reinterpret_cast<float2 *>(p.c + (size_t)row * p.n + col);
        float2 *c1 = reinterpret_cast<float2 *>(p.c + (size_t)(row + 8) * p.n + col);
        float2 v0 = make_float2(acc[s][4 * j], acc[s][4 * j + 1]);
        float2 v1 = make_float2(acc[s][4 * j + 2], acc[s][4 * j + 3]);
        if constexpr (Add) {
          const float2 o0 = __ldcg(c0), o1 = __ldcg(c1);
          v0.x += o0.x, v0.y += o0.y, v1.x += o1.x, v1.y += o1.y;
        }
        *c0 = v0;
        *c1 = v1;
      }
  }

  // A partial tile in a workspace, in fragment order: float4 j of consumer
  // thread t at [j * NT + t] (every warp writes 512 contiguous bytes).
  static constexpr int NT = T::WARPS * 32, V4 = MSUB * T::BN / 8;
  __device__ __forceinline__ void save(float *ws) const {
    float4 *w4 = reinterpret_cast<float4 *>(ws) + threadIdx.x;
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int j = 0; j < T::BN / 8; ++j)
        __stcg(w4 + (s * T::BN / 8 + j) * NT,
               make_float4(acc[s][4 * j], acc[s][4 * j + 1], acc[s][4 * j + 2], acc[s][4 * j + 3]));
  }
  __device__ __forceinline__ void add_from(const float *ws) {
    const float4 *w4 = reinterpret_cast<const float4 *>(ws) + threadIdx.x;
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int j = 0; j < T::BN / 8; ++j) {
        const float4 v = __ldcg(w4 + (s * T::BN / 8 + j) * NT);
        acc[s][4 * j] += v.x, acc[s][4 * j + 1] += v.y, acc[s][4 * j + 2] += v.z, acc[s][4 * j + 3] += v.w;
      }
  }
};

// ---- the variants: how the K loop is staged and synchronized ----

struct GemmSingle {
  static constexpr bool ws = false, twin = false;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    GemmWarpMma<T> mma(threadIdx.x >> 5);
    const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
    const int tiles = p.k / T::BK;
    for (int kt = 0; kt < tiles; ++kt) {
      gemm_load_stage<T, T::WARPS * 32>(smem, a_blk, b_blk, p.k, kt * T::BK, threadIdx.x);
      sb_cp_async_commit();
      sb_cp_async_wait_group<0>();
      __syncthreads();  // every thread's copies are in: the tile is complete (RAW)
      mma.stage(smem);
      __syncthreads();  // every warp has read it before the next copy overwrites it (WAR)
    }
    mma.store(p, m0, n0);
  }
};

struct GemmSwap {
  static constexpr bool ws = false, twin = false;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    GemmWarpMma<T> mma(threadIdx.x >> 5);
    const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
    const int tiles = p.k / T::BK;
    // Prologue: k-tile 0 into buffer 0.
    gemm_load_stage<T, T::WARPS * 32>(smem, a_blk, b_blk, p.k, 0, threadIdx.x);
    sb_cp_async_commit();
    int buf = 0;
    for (int kt = 0; kt < tiles; ++kt) {
      sb_cp_async_wait_group<0>();  // my copies of k-tile kt (the only group in flight) landed
      // One barrier, two jobs: everyone's copies of kt are visible (RAW),
      // and everyone finished computing kt - 1 from buffer buf ^ 1 (WAR).
      __syncthreads();
      if (kt + 1 < tiles) {  // steady state: prefetch kt + 1; the epilogue tile has none
        gemm_load_stage<T, T::WARPS * 32>(smem + (buf ^ 1) * T::STAGE_BYTES, a_blk, b_blk, p.k,
                                          (kt + 1) * T::BK, threadIdx.x);
        sb_cp_async_commit();
      }
      mma.stage(smem + buf * T::STAGE_BYTES);
      buf ^= 1;
    }
    mma.store(p, m0, n0);
  }
};

struct GemmRing {
  static constexpr bool ws = false, twin = false;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    static_assert(S >= 2, "a ring has at least two stages");
    GemmWarpMma<T> mma(threadIdx.x >> 5);
    const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
    const int tiles = p.k / T::BK;
    // Prologue: k-tiles 0..S-2 into stages 0..S-2, one commit group each
    // (empty groups past the last k-tile keep the count uniform).
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
      if (s < tiles)
        gemm_load_stage<T, T::WARPS * 32>(smem + s * T::STAGE_BYTES, a_blk, b_blk, p.k, s * T::BK,
                                          threadIdx.x);
      sb_cp_async_commit();
    }
    int read = 0, write = S - 1;  // stage of k-tile kt, stage of k-tile kt + S - 1
    for (int kt = 0; kt < tiles; ++kt) {
      // S - 1 + kt groups committed, group kt holds k-tile kt: at most S - 2
      // newer ones may still be in flight.
      sb_cp_async_wait_group<S - 2>();
      // Everyone's copies of kt are visible (RAW), and everyone finished
      // computing kt - 1 from stage `write` (WAR).
      __syncthreads();
      if (kt + S - 1 < tiles)
        gemm_load_stage<T, T::WARPS * 32>(smem + write * T::STAGE_BYTES, a_blk, b_blk, p.k,
                                          (kt + S - 1) * T::BK, threadIdx.x);
      sb_cp_async_commit();
      mma.stage(smem + read * T::STAGE_BYTES);
      read = read + 1 == S ? 0 : read + 1;
      write = write + 1 == S ? 0 : write + 1;
    }
    mma.store(p, m0, n0);
  }
};

// The warp-specialized variants: consumer warps 0..WARPS-1 (whole
// warpgroups for wgmma), then one producer warp. Per stage a `full` and an
// `empty` mbarrier (kernels/ring.cuh): `empty` expects every consumer
// thread (release from converged warps), `full` what the producer says.
template <class T, int S>
struct GemmRingBars {
  uint64_t full[S], empty[S];
};

// The consumer side, shared by the ws variants: wait full, compute, release.
template <class T, int S, bool Bounded, class Math>
__device__ __forceinline__ void gemm_ws_consume(const sb_ring<S, Bounded> &ring, Math &math,
                                                uint32_t smem, int tiles) {
  ring.grant_credits();  // every stage starts empty: one credit each
  sb_ring_state st;
  for (int kt = 0; kt < tiles; ++kt) {
    ring.wait(st);  // acquire: the stage's bytes landed
    math.stage(smem + st.index * T::STAGE_BYTES);
    ring.release(st);  // my reads of the stage are done
    st.template advance<S>();
  }
}

struct GemmWsMbarrier {
  static constexpr bool ws = true, twin = true;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    __shared__ GemmRingBars<T, S> bars;
    // full: the 32 producer lanes' cp.async arrivals; empty: every consumer thread.
    if (threadIdx.x == 0) sb_ring<S, Bounded>::init(bars.full, bars.empty, 32, T::WARPS * 32);
    __syncthreads();  // the inits are visible; no block barrier after this
    const sb_ring<S, Bounded> ring(bars.full, bars.empty);
    const int warp = threadIdx.x >> 5, tiles = p.k / T::BK;
    if (warp == T::WARPS) {  // producer warp
      const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
      sb_ring_state st;
      for (int kt = 0; kt < tiles; ++kt) {
        ring.acquire(st);  // the consumers released this stage
        gemm_load_stage<T, 32>(smem + st.index * T::STAGE_BYTES, a_blk, b_blk, p.k, kt * T::BK,
                               threadIdx.x & 31);
        // One arrival per lane once its copies land: 32 complete the phase.
        sb_cp_async_arrive_noinc(ring.full_bar(st.index));
        st.template advance<S>();
      }
      ring.producer_tail(st);
      return;
    }
    GemmWarpMma<T> mma(warp);
    gemm_ws_consume<T, S, Bounded>(ring, mma, smem, tiles);
    mma.store(p, m0, n0);
  }
};

// The TMA producer: one elected thread; per stage one arrive.expect_tx of
// both tiles' bytes, then the two boxes, which complete_tx on `full`.
template <class T, int S, bool Bounded>
__device__ __forceinline__ void gemm_tma_produce_range(const GemmParams &p, const sb_ring<S, Bounded> &ring,
                                                       sb_ring_state &st, uint32_t smem, int m0, int n0,
                                                       int kt0, int kt1) {
  for (int kt = kt0; kt < kt1; ++kt) {
    ring.acquire(st);
    const uint32_t stage = smem + st.index * T::STAGE_BYTES;
    ring.commit_tx(st, (uint32_t)T::STAGE_BYTES);  // = A box (64 x BM) + B box (64 x BN), fp16
    gemm_tma_load_2d(stage, &p.map_a, kt * T::BK, m0, ring.full_bar(st.index));
    gemm_tma_load_2d(stage + T::A_BYTES, &p.map_b, kt * T::BK, n0, ring.full_bar(st.index));
    st.template advance<S>();
  }
}
template <class T, int S, bool Bounded>
__device__ __forceinline__ void gemm_tma_produce(const GemmParams &p, const sb_ring<S, Bounded> &ring,
                                                 uint32_t smem, int m0, int n0, int kt0, int kt1) {
  sb_ring_state st;
  gemm_tma_produce_range<T, S, Bounded>(p, ring, st, smem, m0, n0, kt0, kt1);
  ring.producer_tail(st);
}

// The TMA variants' body: the ring, the elected producer, the consumers
// with their Math (mma.sync warps or wgmma warpgroups), over k-tiles
// [kt0, kt1) (the whole K loop but for the split variants); then Epi, the
// consumers' epilogue (the producer warp has returned by then).
struct GemmStoreEpi {
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, int m0, int n0) const {
    math.store(p, m0, n0);
  }
};
template <class T, int S, bool Bounded, class Math, class Epi = GemmStoreEpi>
__device__ __forceinline__ void gemm_ws_tma(const GemmParams &p, uint32_t smem, int m0, int n0,
                                            int kt0 = 0, int kt1 = -1, const Epi &epi = Epi{}) {
  __shared__ GemmRingBars<T, S> bars;
  // full: the producer's one arrive.expect_tx (+ the copies' bytes); empty: every consumer thread.
  if (threadIdx.x == 0) sb_ring<S, Bounded>::init(bars.full, bars.empty, 1, T::WARPS * 32);
  __syncthreads();  // the inits are visible; no block barrier after this
  const sb_ring<S, Bounded> ring(bars.full, bars.empty);
  const int warp = threadIdx.x >> 5;
  if (kt1 < 0) kt1 = p.k / T::BK;
  if (warp == T::WARPS) {
    if (threadIdx.x == T::WARPS * 32) gemm_tma_produce<T, S, Bounded>(p, ring, smem, m0, n0, kt0, kt1);
    return;
  }
  // TMA writes the stages, ldmatrix or wgmma reads them; no generic-proxy
  // write ever touches a stage, so no fence.proxy.async (the mbarrier
  // phases order the copy engine's writes before the reads).
  Math math(warp);
  gemm_ws_consume<T, S, Bounded>(ring, math, smem, kt1 - kt0);
  const long long t0 = Bounded ? clock64() : 0;
  epi(p, math, m0, n0);
  gemm_prof_add<Bounded>(p, 0, t0);
}

struct GemmWsTma {
  static constexpr bool ws = true, twin = true;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
#if __CUDA_ARCH__ >= 900
    gemm_ws_tma<T, S, Bounded, GemmWarpMma<T>>(p, smem, m0, n0);
#else
    (void)p, (void)smem, (void)m0, (void)n0;
    __trap();  // min_cc 90: never launched below sm_90
#endif
  }
};

struct GemmWsTmaWgmma {
  static constexpr bool ws = true, twin = true;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    gemm_ws_tma<T, S, Bounded, GemmWarpgroupMma<T>>(p, smem, m0, n0);
#else
    (void)p, (void)smem, (void)m0, (void)n0;
    __trap();  // sm_90a only (wgmma): never launched elsewhere
#endif
  }
};

// Block b -> block tile: groups of 8 tile-rows, walked column by column
// inside a group, so the blocks resident at once share A rows and B
// columns in L2 (Triton's grouped ordering). Every variant, the same order.
template <class T>
__device__ __forceinline__ void gemm_tile_origin(const GemmParams &p, int b, int *m0, int *n0) {
  constexpr int GROUP = 8;
  const int tiles_m = p.m / T::BM, tiles_n = p.n / T::BN;
  const int per_group = GROUP * tiles_n;
  const int first_m = b / per_group * GROUP;
  const int rows = tiles_m - first_m < GROUP ? tiles_m - first_m : GROUP;
  *m0 = (first_m + (b % per_group) % rows) * T::BM;
  *n0 = (b % per_group) / rows * T::BN;
}
template <class T>
__device__ __forceinline__ void gemm_block_tile(const GemmParams &p, int *m0, int *n0) {
  gemm_tile_origin<T>(p, (int)(blockIdx.x % ((p.m / T::BM) * (p.n / T::BN))), m0, n0);
}

// ---- split-K: several blocks per output tile, each a slice of K ----
// Block b of a split grid takes tile b % tiles (the grouped order below)
// and K slice b / tiles: every slice-0 block comes before every slice-1
// block in launch order, which serial split-K's in-order wait relies on (a
// waiting block's predecessors were dispatched before it). Slice s covers
// k-tiles [s * KT / splits, (s + 1) * KT / splits).

// The consumer threads' own barrier (named barrier 1): the producer warp
// has left, so __syncthreads would wait for it forever.
template <class T>
__device__ __forceinline__ void gemm_consumer_sync() {
  asm volatile("bar.sync 1, %0;" ::"r"(T::WARPS * 32) : "memory");
}

__device__ __forceinline__ unsigned gemm_ld_acquire_gpu(const unsigned *a) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  return v;
}
__device__ __forceinline__ void gemm_st_release_gpu(unsigned *a, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(a), "r"(v) : "memory");
}

// Spins (one thread) until *sem == want, acquire at GPU scope. Bounded:
// the validating launch's twin, under the deadlock watchdog (a semaphore
// that never turns becomes a `deadlock` row).
template <bool Bounded>
__device__ __forceinline__ void gemm_sem_wait(const unsigned *sem, unsigned want) {
  unsigned long long t0 = 0;
  while (gemm_ld_acquire_gpu(sem) != want)
    sb_wd_poll_failed<Bounded>(&t0, (uint32_t)(uintptr_t)sem, want);
}

// Serial: slice s waits until the tile's semaphore reads s, adds its
// partial tile into C (slice 0 stores), then releases s + 1. Release
// (Release = false: the planted bug of the broken build, which never
// releases: the next slice's wait is caught by the watchdog).
template <class T, bool Bounded, bool Release = true>
struct GemmSerialEpi {
  int slice;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, int m0, int n0) const {
    unsigned *sem = p.sem + blockIdx.x % ((p.m / T::BM) * (p.n / T::BN));
    if (threadIdx.x == 0) gemm_sem_wait<Bounded>(sem, (unsigned)slice);
    gemm_consumer_sync<T>();  // every consumer thread is behind the acquire
    if (slice == 0)
      math.store(p, m0, n0);
    else
      math.template store<true>(p, m0, n0);
    gemm_consumer_sync<T>();  // every thread's C writes are done
    if (Release && threadIdx.x == 0) {
      __threadfence();  // cumulative: the block's writes, seen through the barrier
      gemm_st_release_gpu(sem, (unsigned)slice + 1);
    }
  }
};

// Parallel: every slice writes its fp32 partial tile to the workspace,
// then counts itself in (fence, atomicAdd); the last to arrive (reads
// splits - 1) fences again (acquire) and reduces the other slices'
// partials into its registers, then stores C. No block ever waits.
template <class T>
struct GemmParallelEpi {
  int slice;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, int m0, int n0) const {
    __shared__ int last;
    const int tiles = (p.m / T::BM) * (p.n / T::BN), tile = blockIdx.x % tiles;
    constexpr size_t TILE_ELEMS = (size_t)T::BM * T::BN;
    math.save(p.ws + ((size_t)slice * tiles + tile) * TILE_ELEMS);
    gemm_consumer_sync<T>();  // every thread's partial is written
    if (threadIdx.x == 0) {
      __threadfence();  // release the block's partial before counting it
      last = atomicAdd(p.sem + tile, 1u) == (unsigned)p.splits - 1;
      if (last) __threadfence();  // acquire: every other slice's partial
    }
    gemm_consumer_sync<T>();
    if (!last) return;
    for (int s = 0; s < p.splits; ++s)
      if (s != slice) math.add_from(p.ws + ((size_t)s * tiles + tile) * TILE_ELEMS);
    math.store(p, m0, n0);
  }
};

template <class T>
__device__ __forceinline__ void gemm_slice_range(const GemmParams &p, int *slice, int *kt0, int *kt1) {
  const int tiles = (p.m / T::BM) * (p.n / T::BN), kts = p.k / T::BK;
  *slice = blockIdx.x / tiles;
  *kt0 = sb_gemm_slice_begin(kts, p.splits, *slice);
  *kt1 = sb_gemm_slice_begin(kts, p.splits, *slice + 1);
}

template <bool Release>
struct GemmSplitKSerialT {
  static constexpr bool ws = true, twin = true, split = true, parallel = false;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    int slice, kt0, kt1;
    gemm_slice_range<T>(p, &slice, &kt0, &kt1);
    gemm_ws_tma<T, S, Bounded, GemmWarpgroupMma<T>>(p, smem, m0, n0, kt0, kt1,
                                                    GemmSerialEpi<T, Bounded, Release>{slice});
#else
    (void)p, (void)smem, (void)m0, (void)n0;
    __trap();  // sm_90a only (wgmma): never launched elsewhere
#endif
  }
};
using GemmSplitKSerial = GemmSplitKSerialT<true>;

struct GemmSplitKParallel {
  static constexpr bool ws = true, twin = true, split = true, parallel = true;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    int slice, kt0, kt1;
    gemm_slice_range<T>(p, &slice, &kt0, &kt1);
    gemm_ws_tma<T, S, Bounded, GemmWarpgroupMma<T>>(p, smem, m0, n0, kt0, kt1, GemmParallelEpi<T>{slice});
#else
    (void)p, (void)smem, (void)m0, (void)n0;
    __trap();  // sm_90a only (wgmma): never launched elsewhere
#endif
  }
};

// ---- stream-K: a persistent grid, equal shares of all MAC iterations ----
// gemm_tiles.h has the schedule. Work units of block b, in order: the
// pieces of its stream-K range [begin(b), begin(b + 1)) cut at tile
// boundaries, then its data-parallel tiles. A piece that starts a tile
// (k0 = 0) but does not finish it is the tile's owner: it is the block's
// last stream-K piece, so the later blocks that hold the rest of the tile
// did theirs first (a block's first piece is the only one that can start
// mid-tile). Those contributors write their partial tile to the block's
// workspace slot and release the block's flag; the owner acquires the flags
// of blocks b+1.. whose range starts inside the tile, adds their partials
// and stores C. Only owners wait, and only on first pieces, which never
// wait: no cycle, given the persistent grid is resident at once.
template <class F>
__device__ __forceinline__ void gemm_sk_units(int tiles, int kts, int sk_tiles, int it0, int it1, F &&f) {
  for (int it = it0; it < it1;) {
    const int tile = it / kts, k0 = it % kts;
    const int k1 = min(kts, k0 + (it1 - it));
    f(tile, k0, k1);
    it += k1 - k0;
  }
  for (int t = sk_tiles + (int)blockIdx.x; t < tiles; t += (int)gridDim.x) f(t, 0, kts);
}

template <class T, bool Bounded, class Math>
__device__ __forceinline__ void gemm_sk_epilogue(const GemmParams &p, Math &math, int m0, int n0, int tile,
                                                 int k0, int k1, int kts, int sk_iters, int sk_grid) {
  constexpr size_t TILE_ELEMS = (size_t)T::BM * T::BN;
  const int b = blockIdx.x;
  if (k0 == 0 && k1 == kts) {  // a whole tile: no fix-up
    math.store(p, m0, n0);
  } else if (k0 != 0) {  // contributor: publish the partial, release my flag
    math.save(p.ws + (size_t)b * TILE_ELEMS);
    gemm_consumer_sync<T>();
    if (threadIdx.x == 0) {
      __threadfence();
      gemm_st_release_gpu(p.sem + b, 1u);
    }
  } else {  // owner: wait for every later contributor, then add their partials, then store
    const int tile_end = (tile + 1) * kts;
    int c_end = b + 1;  // contributors: the non-empty blocks in (b, c_end)
    while (c_end < sk_grid && sb_gemm_sk_begin(sk_iters, sk_grid, c_end) < tile_end) ++c_end;
    if (threadIdx.x == 0)
      for (int c = b + 1; c < c_end; ++c)
        if (sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) != sb_gemm_sk_begin(sk_iters, sk_grid, c))
          gemm_sem_wait<Bounded>(p.sem + c, 1u);
    gemm_consumer_sync<T>();  // every consumer thread is behind the acquires
    for (int c = b + 1; c < c_end; ++c)
      if (sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) != sb_gemm_sk_begin(sk_iters, sk_grid, c))
        math.add_from(p.ws + (size_t)c * TILE_ELEMS);
    math.store(p, m0, n0);
  }
}

struct GemmStreamK {
  static constexpr bool ws = true, twin = true, split = false, parallel = false;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int, int) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ GemmRingBars<T, S> bars;
    if (threadIdx.x == 0) sb_ring<S, Bounded>::init(bars.full, bars.empty, 1, T::WARPS * 32);
    __syncthreads();  // the inits are visible; no block barrier after this
    const sb_ring<S, Bounded> ring(bars.full, bars.empty);
    const int tiles = (p.m / T::BM) * (p.n / T::BN), kts = p.k / T::BK, grid = gridDim.x;
    const int sk_tiles = sb_gemm_sk_tiles(tiles, grid);
    const int sk_iters = sk_tiles * kts, sk_grid = sb_gemm_sk_grid(tiles, grid);
    const int it0 = sb_gemm_sk_begin(sk_iters, sk_grid, blockIdx.x);
    const int it1 = sb_gemm_sk_begin(sk_iters, sk_grid, blockIdx.x + 1);
    sb_ring_state st;
    if (threadIdx.x >> 5 == T::WARPS) {  // the producer: one elected thread, one ring over every unit
      if (threadIdx.x != T::WARPS * 32) return;
      gemm_sk_units(tiles, kts, sk_tiles, it0, it1, [&](int tile, int k0, int k1) {
        int m0, n0;
        gemm_tile_origin<T>(p, tile, &m0, &n0);
        gemm_tma_produce_range<T, S, Bounded>(p, ring, st, smem, m0, n0, k0, k1);
      });
      ring.producer_tail(st);
      return;
    }
    GemmWarpgroupMma<T> math(threadIdx.x >> 5);
    ring.grant_credits();
    gemm_sk_units(tiles, kts, sk_tiles, it0, it1, [&](int tile, int k0, int k1) {
      int m0, n0;
      gemm_tile_origin<T>(p, tile, &m0, &n0);
      math.zero();
      for (int kt = k0; kt < k1; ++kt) {
        ring.wait(st);
        math.stage(smem + st.index * T::STAGE_BYTES);
        ring.release(st);
        st.template advance<S>();
      }
      const long long t0 = Bounded ? clock64() : 0;
      gemm_sk_epilogue<T, Bounded>(p, math, m0, n0, tile, k0, k1, kts, sk_iters, sk_grid);
      gemm_prof_add<Bounded>(p, 0, t0);
    });
#else
    (void)p, (void)smem;
    __trap();  // sm_90a only (wgmma): never launched elsewhere
#endif
  }
};

template <class V, class T>
constexpr int gemm_threads() {
  return T::WARPS * 32 + (V::ws ? 32 : 0);
}

// Blocks per SM every variant of a tile is compiled for, so that they share
// occupancy and differ only in synchronization: two 128 x 128 blocks (the
// 4-warp variants fit two by shared memory up to 3 stages), one 128 x 256.
// Without it the warp-specialized 128 x 128 kernels (5 warps) took 197-224
// registers, and a sub-partition's 16 K registers then hold 2 of their
// warps, not 3: one block per SM against the other variants' two.
template <class T>
constexpr int gemm_min_blocks() {
  return T::BN == 128 ? 2 : 1;
}

extern __shared__ uint8_t gemm_smem_raw[];

template <class V, class T, int S, bool Bounded>
__global__ void __launch_bounds__(gemm_threads<V, T>(), gemm_min_blocks<T>()) gemm_kernel(const __grid_constant__ GemmParams p) {
  // The stages start at the next 1024-B boundary (the launch asks for the slack).
  const uint32_t smem = (sb_smem_addr(gemm_smem_raw) + 1023u) & ~1023u;
  int m0, n0;
  gemm_block_tile<T>(p, &m0, &n0);
  const long long t0 = Bounded ? clock64() : 0;
  V::template run<T, S, Bounded>(p, smem, m0, n0);
  gemm_prof_add<Bounded>(p, 1, t0);
}

// ---- pickers: the instantiations the sweeps use ----

// Stages compiled per variant and tile (what 227 KiB of shared memory
// holds: 6 x 32 KiB stages of 128 x 128 x 64, 4 x 48 KiB of 128 x 256 x 64).
template <class V, class T>
struct GemmStages {
  using list = std::conditional_t<T::BN == 256, sb_values<2, 3, 4>, sb_values<2, 3, 4, 5, 6>>;
};
template <class T>
struct GemmStages<GemmSingle, T> {
  using list = sb_values<1>;
};
template <class T>
struct GemmStages<GemmSwap, T> {
  using list = sb_values<2>;
};
// The split variants: ws_tma_wgmma's best stages per tile only (docs/gemm.md),
// to keep the build and the sweep small.
template <class T>
struct GemmSplitStages {
  using list = std::conditional_t<T::BN == 256, sb_values<SB_GEMM_SPLIT_STAGES_256>, sb_values<SB_GEMM_SPLIT_STAGES_128>>;
};
template <bool R, class T>
struct GemmStages<GemmSplitKSerialT<R>, T> : GemmSplitStages<T> {};
template <class T>
struct GemmStages<GemmSplitKParallel, T> : GemmSplitStages<T> {};
template <class T>
struct GemmStages<GemmStreamK, T> : GemmSplitStages<T> {};

template <class V, class T, int S>
static sb_kernels gemm_kernels() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return gemm_kernel<V, T, S, decltype(bounded)::value>; },
      (size_t)S * T::STAGE_BYTES + SB_GEMM_ALIGN_SLACK);
}

template <class V, class T>
static int gemm_pick_tile(const long long *axis, sb_kernels *k, char *why, size_t len) {
  if (axis[SB_AXIS_WARPS] != T::WARPS) {
    snprintf(why, len, "consumer_warps=%lld has no compiled kernel for a %dx%d tile (compiled: %d)",
             axis[SB_AXIS_WARPS], T::BM, T::BN, T::WARPS);
    return -1;
  }
  using List = typename GemmStages<V, T>::list;
  if (sb_dispatch(axis[SB_AXIS_STAGES], List{}, [&](auto s) { *k = gemm_kernels<V, T, decltype(s)::value>(); }))
    return 0;
  return sb_no_instance<List>("stages", axis[SB_AXIS_STAGES], why, len);
}

template <class V>
static int gemm_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  switch (axis[SB_AXIS_TILE]) {
    case 0: return gemm_pick_tile<V, Tile128x128>(axis, k, why, len);
    case 1: return gemm_pick_tile<V, Tile128x256>(axis, k, why, len);
  }
  snprintf(why, len, "tile=%lld has no compiled kernel", axis[SB_AXIS_TILE]);
  return -1;
}

// ---- launchers ----

// The tensor map of an [rows][k] fp16 matrix in boxes of 64 x box_rows,
// 128-byte swizzle.
static cudaError_t gemm_encode_map(CUtensorMap *map, const void *base, int rows, int k, int box_rows) {
  return sb_encode_tensor_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, base, (unsigned long long)k,
                                 (unsigned long long)rows, (unsigned long long)k * 2, SB_GEMM_BK,
                                 (unsigned)box_rows, CU_TENSOR_MAP_SWIZZLE_128B);
}

// Both maps of a point, cached: encoding is host work, and every launch
// after the first of a point only compares the key.
static cudaError_t gemm_tensor_maps(GemmParams *p, int bm, int bn) {
  static GemmParams last;
  static int last_bm, last_bn;
  if (last.a == p->a && last.b == p->b && last.m == p->m && last.k == p->k && last_bm == bm &&
      last_bn == bn) {
    p->map_a = last.map_a;
    p->map_b = last.map_b;
    return cudaSuccess;
  }
  cudaError_t e = gemm_encode_map(&p->map_a, p->a, p->m, p->k, bm);
  if (e == cudaSuccess) e = gemm_encode_map(&p->map_b, p->b, p->n, p->k, bn);
  if (e != cudaSuccess) return e;
  last = *p;
  last_bm = bm;
  last_bn = bn;
  return cudaSuccess;
}

// The split variants' device memory, grown as points need it, allocated by
// the query (outside every timed launch) and kept for the process: one
// semaphore / arrival counter per tile, and splitk_parallel's partial tiles.
static unsigned *gemm_sem;
static float *gemm_ws;
static size_t gemm_sem_cap, gemm_ws_cap;
// The epilogue profile (GemmParams::prof): zeroed before each validating
// launch of a ws_tma-based variant, read once by sb_gemm_epilogue_pct.
static unsigned long long *gemm_prof;
static bool gemm_prof_armed;

static cudaError_t gemm_grow(void **buf, size_t *cap, size_t bytes) {
  if (bytes <= *cap) return cudaSuccess;
  if (*buf) cudaFree(*buf);
  *buf = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc(buf, bytes);
  if (e == cudaSuccess) *cap = bytes;
  return e;
}

// Split variants: the grid is tiles x splits; the semaphores (counters) are
// zeroed by a cudaMemsetAsync on the launch's stream before the kernel, in
// every launch (so inside the timed region: the CSV's time includes it).
template <class V>
static cudaError_t gemm_split_setup(sb_launch *L, GemmParams *p, long long tiles, sb_shape *s) {
  if constexpr (V::split) {
    p->splits = (int)L->axis[SB_AXIS_SPLITS];
    s->grid = tiles * p->splits;
    const size_t sem_bytes = (size_t)tiles * sizeof(unsigned);
    const size_t ws_bytes = V::parallel ? (size_t)p->m * p->n * p->splits * sizeof(float) : 0;
    if (L->query) {
      cudaError_t e = gemm_grow((void **)&gemm_sem, &gemm_sem_cap, sem_bytes);
      if (e == cudaSuccess) e = gemm_grow((void **)&gemm_ws, &gemm_ws_cap, ws_bytes);
      return e;
    }
    p->sem = gemm_sem;
    p->ws = gemm_ws;
    return cudaMemsetAsync(gemm_sem, 0, sem_bytes, L->stream);
  }
  (void)L, (void)p, (void)tiles, (void)s;
  return cudaSuccess;
}

// Stream-K: the persistent grid (SMs x blocks/SM, from the query); one
// workspace slot and one flag per block; the flags zeroed by a
// cudaMemsetAsync before the kernel in every launch (timed with it).
static cudaError_t gemm_streamk_setup(sb_launch *L, const GemmParams &p, int bm, int bn) {
  if (L->query) {
    cudaError_t e = gemm_grow((void **)&gemm_sem, &gemm_sem_cap, (size_t)L->grid_blocks * sizeof(unsigned));
    if (e == cudaSuccess)
      e = gemm_grow((void **)&gemm_ws, &gemm_ws_cap, (size_t)L->grid_blocks * bm * bn * sizeof(float));
    return e;
  }
  (void)p;
  return cudaMemsetAsync(gemm_sem, 0, (size_t)L->grid_blocks * sizeof(unsigned), L->stream);
}

template <class V>
struct GemmIsSplit {
  template <class U>
  static constexpr bool get(decltype(U::split) *) { return U::split; }
  template <class U>
  static constexpr bool get(...) { return false; }
  static constexpr bool value = get<V>(nullptr);
};

template <class V, bool Tma>
static cudaError_t gemm_launch(sb_launch *L) {
  GemmParams p;
  memset(&p, 0, sizeof p);
  p.m = p.n = (int)L->axis[SB_AXIS_M];
  p.k = (int)L->axis[SB_AXIS_K];
  p.a = (const uint16_t *)L->in;
  p.b = p.a + (size_t)p.m * p.k;
  p.c = (float *)L->out;
  const int tile = (int)L->axis[SB_AXIS_TILE];
  const int bm = sb_gemm_tile_bm(tile), bn = sb_gemm_tile_bn(tile);
  if (Tma && !L->query) {
    cudaError_t e = gemm_tensor_maps(&p, bm, bn);
    if (e != cudaSuccess) return e;
  }
  sb_shape s;
  s.block = sb_gemm_tile_warps(tile) * 32 + (V::ws ? 32 : 0);
  s.grid = (long long)(p.m / bm) * (p.n / bn);
  p.splits = 1;
  if constexpr (GemmIsSplit<V>::value) {
    cudaError_t e = gemm_split_setup<V>(L, &p, s.grid, &s);
    if (e != cudaSuccess) return e;
  }
  if (!L->query && L->bounded) gemm_prof_armed = false;  // a new point: no stale profile
  if constexpr (V::ws && Tma) {  // the epilogue profile, validating launch only
    if (L->query) {
      if (!gemm_prof && cudaMalloc((void **)&gemm_prof, 2 * sizeof *gemm_prof) != cudaSuccess) {
        cudaGetLastError();  // no profile: the cell stays empty
        gemm_prof = NULL;
      }
    } else if (L->bounded && gemm_prof) {
      cudaError_t e = cudaMemsetAsync(gemm_prof, 0, 2 * sizeof *gemm_prof, L->stream);
      if (e != cudaSuccess) return e;
      p.prof = gemm_prof;
      gemm_prof_armed = true;
    }
  }
  if constexpr (std::is_same<V, GemmStreamK>::value) {
    s.grid = SB_GRID_PERSISTENT;
    p.sem = gemm_sem;  // the query allocates them; a launch after it reads them
    p.ws = gemm_ws;
    cudaError_t e = cudaSuccess;
    if (L->query && (e = sb_launch_params(L, s, p)) != cudaSuccess) return e;
    if ((e = gemm_streamk_setup(L, p, bm, bn)) != cudaSuccess || L->query) return e;
    p.sem = gemm_sem;
    p.ws = gemm_ws;
  }
  return sb_launch_params(L, s, p);
}

extern "C" double sb_gemm_epilogue_pct(void) {
  unsigned long long h[2] = {0, 0};
  const bool armed = gemm_prof_armed;
  gemm_prof_armed = false;
  if (!armed || cudaMemcpy(h, gemm_prof, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess || h[1] == 0) {
    cudaGetLastError();
    return NAN;
  }
  return 100.0 * (double)h[0] / (double)h[1];
}

// cuBLAS on the same buffers. cuBLAS is column-major: row-major C (M x N)
// is column-major C^T (N x M, ld N) = B^T A^T, where the B buffer is B
// column-major (K x N, ld K), taken transposed, and the A buffer is A^T
// column-major (K x M, ld K), taken as is: the "TN" GEMM.
static cudaError_t gemm_cublas_launch(sb_launch *L) {
  static cublasHandle_t handle;  // created once, by the first query
  const int m = (int)L->axis[SB_AXIS_M], n = m, k = (int)L->axis[SB_AXIS_K];
  if (L->query) {
    if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
      handle = NULL;
      return cudaErrorInitializationError;
    }
    if (cublasSetStream(handle, L->stream) != CUBLAS_STATUS_SUCCESS) return cudaErrorInvalidResourceHandle;
    L->grid_blocks = 0;  // cuBLAS's kernels: no occupancy of ours to report
    L->blocks_per_sm = -1;
    L->smem_bytes = 0;
    return cudaSuccess;
  }
  const float one = 1.0f, zero = 0.0f;
  const uint16_t *a = (const uint16_t *)L->in, *b = a + (size_t)m * k;
  const cublasStatus_t st =
      cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16F, k, a, CUDA_R_16F, k,
                   &zero, L->out, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

// cublas first: at every shape its row is measured before the others, which
// the runner expresses as pct_of_cublas of it.
static const sb_variant gemm_rows[] = {
    {"cublas", gemm_cublas_launch, NULL, 0, SB_VF_NO_KERNEL | SB_VF_CEILING,
     "cublasGemmEx, fp16 in, CUBLAS_COMPUTE_32F, fp32 out: the ceiling"},
    {"single", gemm_launch<GemmSingle, false>, gemm_pick<GemmSingle>, 0, SB_VF_GEMM_ONE_STAGE,
     "1 buffer: cp.async, wait, __syncthreads, mma, __syncthreads per k-tile; no overlap"},
    {"swap", gemm_launch<GemmSwap, false>, gemm_pick<GemmSwap>, 0, SB_VF_GEMM_TWO_STAGES,
     "2 buffers (^1): prefetch kt+1 while computing kt; 1 wait_group 0 + 1 __syncthreads per k-tile"},
    {"ring", gemm_launch<GemmRing, false>, gemm_pick<GemmRing>, 0, 0,
     "S buffers, S-1 k-tiles in flight: 1 cp.async.wait_group<S-2> + 1 __syncthreads per k-tile"},
    {"ws_mbarrier", gemm_launch<GemmWsMbarrier, false>, gemm_pick<GemmWsMbarrier>, 0, 0,
     "producer warp cp.async + arrive.noinc on full; consumer warps wait full, mma, arrive empty"},
    {"ws_tma", gemm_launch<GemmWsTma, true>, gemm_pick<GemmWsTma>, 90, 0,
     "elected thread: expect_tx + 2 TMA 2D boxes on full; mma.sync consumer warps arrive empty"},
    {"ws_tma_wgmma", gemm_launch<GemmWsTmaWgmma, true>, gemm_pick<GemmWsTmaWgmma>, 90, 0,
     "ws_tma with wgmma consumer warpgroups: fence, k16 x4, commit, wait 0, arrive empty"},
    {"splitk_serial", gemm_launch<GemmSplitKSerial, true>, gemm_pick<GemmSplitKSerial>, 90, SB_VF_GEMM_SPLIT,
     "ws_tma_wgmma over K/splits; slices add into C in order behind a per-tile semaphore "
     "(ld.acquire.gpu spin, st.release.gpu); memset of the semaphores in the timed launch"},
    {"splitk_parallel", gemm_launch<GemmSplitKParallel, true>, gemm_pick<GemmSplitKParallel>, 90, SB_VF_GEMM_SPLIT,
     "ws_tma_wgmma over K/splits; fp32 partials to a workspace, fence + atomicAdd; the last slice "
     "reduces in the same kernel; memset of the counters in the timed launch"},
    {"streamk", gemm_launch<GemmStreamK, true>, gemm_pick<GemmStreamK>, 90, SB_VF_GEMM_STREAMK,
     "persistent ws_tma_wgmma blocks, equal shares of all k-tiles (DP + SK hybrid); split tiles fixed up "
     "through per-block flags (st.release.gpu / ld.acquire.gpu) and fp32 partials; memset of the flags in the timed launch"},
#ifdef SB_BROKEN
    // The planted bug (make SB_BROKEN=1 only): splitk_serial whose slices
    // never release the semaphore; slice 1 waits forever -> `deadlock`.
    {"splitk_serial_no_release", gemm_launch<GemmSplitKSerialT<false>, true>,
     gemm_pick<GemmSplitKSerialT<false>>, 90, SB_VF_GEMM_SPLIT | SB_VF_TEST_ONLY,
     "TEST ONLY: splitk_serial without the st.release.gpu: the next slice's wait never ends"},
#endif
};
extern "C" const sb_variant_table sb_gemm_variants = {gemm_rows, sizeof gemm_rows / sizeof gemm_rows[0]};
