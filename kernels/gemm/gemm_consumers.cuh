// GEMM family, the consumers: what a consumer computes from a full stage,
// and how it writes its accumulators. Two schemes over the one swizzled
// layout: mma.sync warps (ldmatrix + m16n8k16, a 64 x 64 piece of C each)
// and wgmma warpgroups (sm_90a: m64nBNk16 from shared-memory descriptors,
// 64 rows per m64 slice). Both take the stage's address, so every mainloop
// of gemm_mainloop.cuh and kernels/gemm/gemm.cu drives either; both store C, and
// the wgmma one also saves / adds the fp32 partial tiles of the fix-ups
// (gemm_schedulers.cuh).
#ifndef SB_KERNELS_GEMM_CONSUMERS_CUH
#define SB_KERNELS_GEMM_CONSUMERS_CUH

#include "gemm_params.cuh"

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
  static_assert(!T::WGMMA_ONLY, "mma.sync: a 64 x 64 piece per warp, every warp of the tile's count");
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
  // n8 tile j (g = lane / 4, q = lane % 4). An edge tile (gemm_whole_tile:
  // known once per tile) stores only the pairs inside C: N is a multiple
  // of 4 (the shape rule), so a pair at an even column is all in or all out.
  // WholeTiles: the kernel is launched only where every tile is whole (a
  // variant's whole-tiles form, kernels/gemm/gemm.cu): no edge form compiled.
  template <bool WholeTiles = false>
  __device__ __forceinline__ void store(const GemmParams &p, int m0, int n0) const {
    if (WholeTiles || gemm_whole_tile<T>(p, m0, n0))
      store_pairs<false>(p, m0, n0);
    else
      store_pairs<true>(p, m0, n0);
  }
  template <bool Edge>
  __device__ __forceinline__ void store_pairs(const GemmParams &p, int m0, int n0) const {
    const int g = lane >> 2, q = lane & 3;
    // Edge: rows left below this thread's first row, columns right of its first column.
    const int rows_left = p.m - (m0 + wm * 64 + g), cols_left = p.n - (n0 + wn * 64 + 2 * q);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int row = m0 + wm * 64 + i * 16 + g, col = n0 + wn * 64 + j * 8 + 2 * q;
        // Indexed as float2s (row + 8 is 4 N float2s on): under its own
        // predicate the row + 8 pair stays one 8-byte store (store_saved).
        float2 *c = reinterpret_cast<float2 *>(p.c + (size_t)row * p.n + col);
        if (!Edge || (i * 16 < rows_left && j * 8 < cols_left)) c[0] = make_float2(acc[i][j][0], acc[i][j][1]);
        if (!Edge || (i * 16 + 8 < rows_left && j * 8 < cols_left))
          c[4 * (size_t)p.n] = make_float2(acc[i][j][2], acc[i][j][3]);
      }
  }
};

// ---- wgmma consumers (sm_90a): one warpgroup, 64 rows of C per m64 slice ----

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
// Waits until at most N of this warpgroup's committed wgmma groups are
// still pending (N = 1: one batch stays in flight, CUTLASS's K_PIPE_MMAS).
template <int N>
__device__ __forceinline__ void gemm_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
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

#define GEMM_WG_D48 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
__device__ __forceinline__ void gemm_wgmma_m64n96k16(float (&d)[48], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %50, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 {" GEMM_WG_D48 "}, %48, %49, p, 1, 1, 0, 0;\n\t}\n"
      : GEMM_F8(0), GEMM_F8(8), GEMM_F8(16), GEMM_F8(24), GEMM_F8(32), GEMM_F8(40)
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
#undef GEMM_WG_D48
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// Warpgroup consumers: warpgroup wg owns rows [64 wg * MSUB, +64 MSUB) of
// the block tile, all BN columns: 128 x 128 has 1 warpgroup with 2 m64
// slices, 128 x 256 has 2 with 1 each (128 fp32 accumulators per thread in
// both, as in the mma.sync consumers); 64 x 128 one slice (64), 128 x 96
// two of n96 (96).
template <class T>
struct GemmWarpgroupMma {
  static constexpr int WGS = T::WARPS / 4;
  static constexpr int MSUB = T::BM / 64 / WGS;
  static_assert(T::BN == 96 || T::BN == 128 || T::BN == 256, "wgmma n96 / n128 / n256");
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
    batch(stage_addr);
    gemm_wgmma_wait0();  // the stage's reads are done before it is released
    fence_acc();
  }

  // The stage's wgmma batch, issued and committed: accumulators fenced,
  // wgmma.fence (accumulators written by ordinary code before: order them).
  __device__ __forceinline__ void batch(uint32_t stage_addr) {
    const uint32_t a_s = stage_addr + (uint32_t)(wg * MSUB * 64 * 128), b_s = stage_addr + T::A_BYTES;
    fence_acc();
    gemm_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < T::BK / 16; ++kk)
#pragma unroll
      for (int s = 0; s < MSUB; ++s) {
        const uint64_t da = gemm_wgmma_desc(a_s + s * 64 * 128 + kk * 32);
        const uint64_t db = gemm_wgmma_desc(b_s + kk * 32);
        if constexpr (T::BN == 96)
          gemm_wgmma_m64n96k16(acc[s], da, db);
        else if constexpr (T::BN == 128)
          gemm_wgmma_m64n128k16(acc[s], da, db);
        else
          gemm_wgmma_m64n256k16(acc[s], da, db);
      }
    gemm_wgmma_commit();
  }

  // One batch in flight (CUTLASS's sm90 mainloop, K_PIPE_MMAS = 1): the
  // k-loop (gemm_consume_mma, gemm_mainloop.cuh) issues stage k's batch,
  // then wait<1>() (batch k - 1 is complete: its stage may be released)
  // while batch k runs on; after the loop, wait<0>() and the last release.
  // issue() is stage() without the wait (both issue batch()); both fence the accumulators
  // (warpgroup_fence_operand) around the asynchronous window, and
  // wgmma.fence orders the registers' earlier ordinary writes (zero(), the
  // fix-ups' adds) before the first wgmma that reads them.
  static constexpr int IN_FLIGHT = 1;
  __device__ __forceinline__ void issue(uint32_t stage_addr) {
    batch(stage_addr);
    fence_acc();
  }
  template <int N>
  __device__ __forceinline__ void wait() {
    gemm_wgmma_wait<N>();
    fence_acc();
  }
#endif

  // Fragment layout of wgmma D (m64nNk16, f32): warp w of the warpgroup has
  // rows 16 w + g and 16 w + g + 8; acc[4 j + 0..1] columns 8 j + 2q, +1 of
  // row 16 w + g, acc[4 j + 2..3] the same columns of row 16 w + g + 8.
  // Add: C += acc (a later K slice of serial split-K), read through L2
  // (ld.cg: the earlier slice's lines were written by another SM), ADD_CHUNK
  // column groups at a time: a chunk's loads all issue before its stores.
  // One load after a store to C waits for that store's round trip (the
  // compiler cannot tell the addresses apart), so a pair at a time put the
  // whole read-add-write (32 pairs a thread at 128x128) on one chain of L2
  // round trips, whose length then followed where C's lines lie (issue 36).
  // An edge tile (gemm_whole_tile, once per tile) reads and writes only the
  // pairs inside C (a pair at an even column is all in or all out: N is a
  // multiple of 4); a whole tile takes no predicate. WholeTiles: the kernel
  // is launched only where every tile is whole (the host's choice: a
  // variant's whole-tiles form, kernels/gemm/gemm.cu), so the edge form is
  // not compiled at all. Its mere presence (a second unrolled read-add-write)
  // made ptxas schedule the whole form's loads worse: splitk_serial's
  // 128x128, 6-stage timed kernel is 4280 SASS instructions with it, 1544
  // without (7842bb7's count), and 2-9% slower at whole-tile shapes.
  static constexpr int ADD_CHUNK = 4;
  static_assert((T::BN / 8) % ADD_CHUNK == 0, "whole chunks of column groups");
  template <bool Add = false, bool WholeTiles = false>
  __device__ __forceinline__ void store(const GemmParams &p, int m0, int n0) const {
    if constexpr (WholeTiles)
      store_pairs<Add, false>(p, m0, n0);
    else if (gemm_whole_tile<T>(p, m0, n0))
      store_pairs<Add, false>(p, m0, n0);
    else
      store_pairs<Add, true>(p, m0, n0);
  }
  // The edge form's bounds: this thread's rows left below its first row
  // and columns left right of its first column, each test then one compare
  // with an immediate (the fragment's offset).
  template <bool Add, bool Edge>
  __device__ __forceinline__ void store_pairs(const GemmParams &p, int m0, int n0) const {
    const int t = threadIdx.x & 127, w = t >> 5, g = (t & 31) >> 2, q = t & 3;
    const int rows_left = p.m - (m0 + wg * MSUB * 64 + w * 16 + g), cols_left = p.n - (n0 + 2 * q);
    const auto in = [&](int dr, int dc) { return !Edge || (dr < rows_left && dc < cols_left); };
    if constexpr (!Add) {
#pragma unroll
      for (int s = 0; s < MSUB; ++s)
#pragma unroll
        for (int j = 0; j < T::BN / 8; ++j) {
          const int row = m0 + (wg * MSUB + s) * 64 + w * 16 + g, col = n0 + j * 8 + 2 * q;
          float2 *c0 = reinterpret_cast<float2 *>(p.c + (size_t)row * p.n + col);
          float2 *c1 = reinterpret_cast<float2 *>(p.c + (size_t)(row + 8) * p.n + col);
          float2 v0 = make_float2(acc[s][4 * j], acc[s][4 * j + 1]);
          float2 v1 = make_float2(acc[s][4 * j + 2], acc[s][4 * j + 3]);
          if (in(s * 64, j * 8)) *c0 = v0;
          if (in(s * 64 + 8, j * 8)) *c1 = v1;
        }
    } else {
#pragma unroll
      for (int s = 0; s < MSUB; ++s)
#pragma unroll
        for (int j0 = 0; j0 < T::BN / 8; j0 += ADD_CHUNK) {
          const int row = m0 + (wg * MSUB + s) * 64 + w * 16 + g;
          float2 old[ADD_CHUNK][2];
#pragma unroll
          for (int j = 0; j < ADD_CHUNK; ++j) {
            const int col = n0 + (j0 + j) * 8 + 2 * q;
            old[j][0] = old[j][1] = make_float2(0.f, 0.f);
            if (in(s * 64, (j0 + j) * 8))
              old[j][0] = __ldcg(reinterpret_cast<const float2 *>(p.c + (size_t)row * p.n + col));
            if (in(s * 64 + 8, (j0 + j) * 8))
              old[j][1] = __ldcg(reinterpret_cast<const float2 *>(p.c + (size_t)(row + 8) * p.n + col));
          }
#pragma unroll
          for (int j = 0; j < ADD_CHUNK; ++j) {
            const int col = n0 + (j0 + j) * 8 + 2 * q, a = 4 * (j0 + j);
            if (in(s * 64, (j0 + j) * 8))
              *reinterpret_cast<float2 *>(p.c + (size_t)row * p.n + col) =
                  make_float2(acc[s][a] + old[j][0].x, acc[s][a + 1] + old[j][0].y);
            if (in(s * 64 + 8, (j0 + j) * 8))
              *reinterpret_cast<float2 *>(p.c + (size_t)(row + 8) * p.n + col) =
                  make_float2(acc[s][a + 2] + old[j][1].x, acc[s][a + 3] + old[j][1].y);
          }
        }
    }
  }

  // store_tma's staging: two 16 x 32 fp32 pieces per consumer warp.
  static constexpr int STORE_PIECE_BYTES = 16 * 32 * 4;
  static constexpr int STORE_BYTES = T::WARPS * 2 * STORE_PIECE_BYTES;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // The epilogue through the async proxy (CUTLASS's TMA-store epilogue):
  // each consumer warp stages its rows of C in pieces of 16 rows x 32
  // columns (2 KiB, the 128-byte swizzle TMA reads: chunk c of row r at
  // c ^ (r & 7)) in two buffers of its own, and its lane 0 stores each
  // piece with one cp.async.bulk.tensor (p.map_c) and goes on: the global
  // writes drain while the warp stages the next piece and the warpgroups
  // start the next tile's MMA, where st.global from registers stalls the
  // warp once the memory system backs up (all SMs store at once).
  // The rules: the staging threads' generic writes are ordered before the
  // async proxy's reads by fence.proxy.async.shared::cta in every writer,
  // then __syncwarp, then lane 0's copy; a buffer is written again only
  // after lane 0's cp.async.bulk.wait_group.read 1 (the copy that read it,
  // two pieces back, has finished reading) and __syncwarp; before the
  // block exits, lane 0's wait_group 0 (every store complete).
  // `piece` counts this warp's pieces across tiles: its buffer is piece & 1.
  __device__ __forceinline__ void store_tma(const GemmParams &p, int m0, int n0, uint32_t staging,
                                            unsigned &piece) const {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, w = warp & 3, g = lane >> 2, q = lane & 3;
    const uint32_t mine = staging + (uint32_t)(warp * 2 * STORE_PIECE_BYTES);
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int ch = 0; ch < T::BN / 32; ++ch, ++piece) {
        const uint32_t buf = mine + (piece & 1u) * STORE_PIECE_BYTES;
        if (lane == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        __syncwarp();  // the buffer's last copy has read it: every lane may write
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
          const int j = 4 * ch + jj;
          const uint32_t at = (uint32_t)(((2 * jj + (q >> 1)) ^ g) << 4) + (uint32_t)((q & 1) * 8);
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(buf + g * 128 + at), "f"(acc[s][4 * j]),
                       "f"(acc[s][4 * j + 1]) : "memory");
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(buf + (g + 8) * 128 + at), "f"(acc[s][4 * j + 2]),
                       "f"(acc[s][4 * j + 3]) : "memory");
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // my writes, before the async proxy reads
        __syncwarp();
        if (lane == 0) {
          const int row = m0 + (wg * MSUB + s) * 64 + w * 16, col = n0 + ch * 32;
          asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                           (unsigned long long)&p.map_c),
                       "r"(col), "r"(row), "r"(buf) : "memory");
          asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
      }
  }
  // Before the block exits: every store of this warp has completed.
  __device__ __forceinline__ static void store_tma_drain() {
    if ((threadIdx.x & 31) == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
#endif

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
  // Where float4 f of a saved partial tile sits in the tile (the separate
  // reduction's map, gemm_reduce_partials): columns c, c + 1 of rows r and
  // r + 8, the inverse of save()'s order.
  static constexpr int TILE_V4 = NT * V4;
  __device__ __forceinline__ static void saved_coord(int f, int *r, int *c) {
    const int tx = f % NT, rest = f / NT, s = rest / (T::BN / 8), j = rest % (T::BN / 8);
    const int t = tx & 127, w = t >> 5, g = (t & 31) >> 2, q = t & 3;
    *r = ((tx >> 7) * MSUB + s) * 64 + w * 16 + g;
    *c = j * 8 + 2 * q;
  }
  // The same partial in this CTA's shared memory at `base` (the stages,
  // once the K loop is over): splitk_cluster's combining through
  // distributed shared memory (gemm_schedulers.cuh, GemmClusterEpi).
  __device__ __forceinline__ void save_shared(uint32_t base) const {
    const uint32_t at = base + threadIdx.x * 16u;
#pragma unroll
    for (int s = 0; s < MSUB; ++s)
#pragma unroll
      for (int j = 0; j < T::BN / 8; ++j)
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(at + (uint32_t)((s * T::BN / 8 + j) * NT * 16)),
                     "f"(acc[s][4 * j]), "f"(acc[s][4 * j + 1]), "f"(acc[s][4 * j + 2]), "f"(acc[s][4 * j + 3])
                     : "memory");
  }
  // Float4 f of a saved partial (summed), stored at its place in C: the
  // tile at (m0, n0); of an edge tile, the pairs inside C only (the
  // partials are whole tiles, their rows and columns past C zeros).
  // WholeTiles: the kernel runs only where every tile is whole (a variant's
  // whole-tiles form, kernels/gemm/gemm.cu), and stores unpredicated.
  template <bool WholeTiles = false>
  __device__ __forceinline__ static void store_saved(const GemmParams &p, int m0, int n0, int f, float4 v) {
    int r, col;
    saved_coord(f, &r, &col);
    const int row = m0 + r;
    col += n0;
    // Indexed as float2s (N is a multiple of 4: row + 8 is 4 N float2s on),
    // so that the row + 8 pair stays one 8-byte store under its own
    // predicate (as a float offset it was split in two 4-byte stores: SASS).
    float2 *c0 = reinterpret_cast<float2 *>(p.c + (size_t)row * p.n + col);
    if (WholeTiles || col < p.n) {
      if (WholeTiles || row < p.m) c0[0] = make_float2(v.x, v.y);
      if (WholeTiles || row + 8 < p.m) c0[4 * (size_t)p.n] = make_float2(v.z, v.w);
    }
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

#endif  // SB_KERNELS_GEMM_CONSUMERS_CUH
