// Stencil families: each block holds one tile of floats in shared memory,
// applies `iters` Jacobi iterations of an averaging stencil to it, and
// writes it back. Boundary elements average only their valid neighbours
// inside the tile (no halo exchange between tiles). Host side (CPU
// references, validation): bench/stencil.c; shared geometry: stencil_tiles.h.
//   stencil    1D 3-point: tile = B (block_threads) x E (elems_per_thread)
//              consecutive elements; the last tile may be short.
//   stencil2d  2D 5-point on an image SB_STENCIL2D_WIDTH elements wide:
//              tile = tw x th with tw = 64 when the tile has >= 4096
//              elements, else 32; bottom-edge tiles may have fewer rows.
//
// One kernel template, stencil_kernel<Variant, Geometry<B, E>, Bounded>:
// block size, elements per thread and the tile shape are compile-time (CUB's
// BLOCK_THREADS / ITEMS_PER_THREAD), so the per-element loops unroll, the
// thread's elements stay in registers and every shared-memory offset is an
// immediate. Every kernel of both families has __launch_bounds__(B,
// 2048 / B): at most 32 registers, a full SM of threads, whatever the
// synchronization. Thread t owns tile elements e = k * B + t: a warp touches
// 32 consecutive words per access, so shared memory is free of bank
// conflicts.
//
// Neighbours without branches: a buffer surrounds the tile with zeros (1D:
// one before and one after; 2D: a zero row above and below and a zero column
// between rows), and elements past the valid part of a short tile hold 0 and
// keep it (weight 0). So every element adds the same neighbours (adding 0
// is exact: the float result equals the sum over the valid ones), and only
// the weight 1 / points depends on the position. In a full tile only the
// thread's first and last elements can lie on the tile's ends or top/bottom
// rows: three weights per thread, computed once. The one short tile of a
// launch takes a second copy of the loop that derives each weight from the
// element's position (iterate(): the branch is per block, outside the loop).
//
// The loop is unrolled by two iterations, so the buffer an iteration reads
// (it & 1) and the mbarrier parity it waits for are constants too.
//
// Per iteration, the variants differ only in how they keep the reads of one
// iteration apart from the writes of the next (WAR) and the writes apart
// from the next reads (RAW):
//   two_barrier    in place: read | __syncthreads | write | __syncthreads
//   pingpong       two buffers, one __syncthreads
//   mbarrier       two buffers; every thread arrives on a block mbarrier and
//                  waits on it by phase parity (one phase)
//   split_arrive   two buffers, cuda::barrier: arrive right after the write,
//                  accumulate |new - old| (independent work), then wait
//   arrive_wait    the same work, but arrive_and_wait() before the residual:
//                  what split_arrive is compared with
//   completion     cuda::barrier whose completion function adds up the
//                  warps' residuals once per phase (per-iteration residual)
//   manual_reduce  the same per-iteration residual reduced by hand: warp
//                  shuffles + one __syncthreads + warp 0 sums warp totals
// The four residual variants (SB_STENCIL_VF_RESIDUAL) also write the tile's
// residual sum (over all iterations and elements of |new - old|) after the
// tile values: out[n + block].
#include <cuda/barrier>

#include <type_traits>

#include "../common/launch.cuh"
#include "../common/mbarrier.cuh"
#include "stencil_tiles.h"

// A cuda::barrier in __shared__ has a (trivial, defaulted) constructor that
// nvcc warns about; the documented pattern is to init() it from one thread.
#pragma nv_diag_suppress static_var_with_dynamic_init

// Threads one SM holds (sm_80, sm_90): the occupancy every kernel is built for.
#define ST_SM_THREADS 2048

struct StencilParams {
  const float *in;
  float *out;   // n values, then (residual variants) one residual per block
  long long n;
  int iters;
  int tiles_x;  // 2D: tiles per image row
  int rows;     // 2D: image rows (n / SB_STENCIL2D_WIDTH)
};

// fl(1 / points) for a mean of 1..5 points: constants, no division.
__device__ __forceinline__ float st_inv(int points) {
  return points == 3   ? 1.0f / 3.0f
         : points == 2 ? 0.5f
         : points == 5 ? 0.2f
         : points == 4 ? 0.25f
                       : 1.0f;
}

// threadIdx.x and blockIdx.x read anew where they are used: the compiler
// can neither reuse an earlier read nor hoist these out of a loop, so what
// is derived from them is not held in registers through the loop.
__device__ __forceinline__ int st_tid() {
  int v;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
  return v;
}
__device__ __forceinline__ int st_ctaid() {
  int v;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
  return v;
}

// A thread's weights in a full tile: element k = 0 (first) and k = E - 1
// (last) may touch the tile's ends / top and bottom rows, the others (mid)
// cannot. With E = 1, `first` covers both ends.
struct StWeights {
  float first, mid, last;
  template <int E>
  __device__ float at(int k) const {
    return k == 0 ? first : k == E - 1 ? last : mid;
  }
};

// A short tile, for one thread: its elements k >= valid lie past the tile's
// valid part (they stay 0), and its element k == last (-1: none) is the
// tile's last valid element (1D) or lies in its last valid row (2D), which
// lacks the neighbour after / below: weight w_last. Its other elements have
// their full-tile weight (StWeights).
struct StShort {
  int valid, last;
  float w_last;
};

// ---- geometry: where a thread's elements live, their neighbours, weights ----

// 1D: tile element e is stored at e + 1 of a buffer of T + 2 floats, whose
// first and last floats are zeros.
template <int B_, int E_>
struct Line {
  static constexpr int B = B_, E = E_, T = B * E;
  static constexpr int SIZE = T + 2;           // floats per buffer
  static constexpr int STEP = B;               // storage distance, element k -> k + 1
  static constexpr long long GSTEP = B;        // the same in global memory
  static constexpr int PADS = 2;               // zeros per buffer

  // Valid elements of block `block`'s tile: < T in the last tile only.
  __device__ static int extent(const StencilParams &p, int block) {
    const long long left = p.n - (long long)block * T;
    return left < T ? (int)left : T;
  }
  __device__ static constexpr int full_extent() { return T; }
  __device__ static int pad(int i) { return i == 0 ? 0 : T + 1; }
  __device__ static int slot(int t) { return t + 1; }  // storage of the thread's element 0
  __device__ static long long global(const StencilParams &, int block, int t) {
    return (long long)block * T + t;
  }
  __device__ static bool valid(int k, int t, int len) { return k * B + t < len; }
  // The centre (from a register) plus both neighbours; s: the centre's slot.
  __device__ static float sum(const float *s, float c) { return c + s[-1] + s[1]; }
  // Full tile: only element 0 (t = 0, k = 0) and T - 1 (t = B - 1, k = E - 1)
  // lack a neighbour.
  __device__ static StWeights weights(int t) {
    StWeights w;
    w.first = st_inv(1 + (t > 0) + (E > 1 || t < B - 1));
    w.mid = st_inv(3);
    w.last = st_inv(2 + (t < B - 1));
    return w;
  }
  __device__ static StShort short_tile(int t, int len) {
    StShort s;
    s.valid = t < len ? (len - t + B - 1) / B : 0;
    s.last = (len - 1) % B == t ? (len - 1) / B : -1;
    s.w_last = st_inv(1 + (len > 1));
    return s;
  }
};

// 2D: tile rows are stored TW + 1 floats apart (a zero column between rows
// serves as the right neighbour of one row's last column and the left one
// of the next row's first), below a zero row and above another.
template <int B_, int E_>
struct Image {
  static constexpr int B = B_, E = E_, T = B * E;
  static constexpr int TW = SB_STENCIL2D_TW(T), TH = T / TW;
  static constexpr int S = TW + 1;              // storage row stride
  static constexpr int RPK = B / TW;            // tile rows per element index k
  static constexpr int SIZE = (TH + 2) * S;     // floats per buffer
  static constexpr int STEP = RPK * S;          // storage distance, element k -> k + 1
  static constexpr long long GSTEP = (long long)RPK * SB_STENCIL2D_WIDTH;
  static constexpr int PADS = 2 * S + TH;       // zero rows + zero column
  static_assert(T >= 1024 && B % TW == 0, "tiles >= 32x32; a block covers whole rows");

  // Valid rows of block `block`'s tile: < TH at the image's bottom edge only.
  __device__ static int extent(const StencilParams &p, int block) {
    const int r0 = block / p.tiles_x * TH;
    return p.rows - r0 < TH ? p.rows - r0 : TH;
  }
  __device__ static constexpr int full_extent() { return TH; }
  __device__ static int pad(int i) {
    return i < S ? i                                  // the row above the tile
           : i < 2 * S ? (TH + 1) * S + (i - S)       // the row below
                       : (i - 2 * S + 1) * S + TW;    // the column after each row
  }
  __device__ static int slot(int t) { return (t / TW + 1) * S + t % TW; }
  __device__ static long long global(const StencilParams &p, int block, int t) {
    const int bx = block % p.tiles_x, by = block / p.tiles_x;
    return ((long long)by * TH + t / TW) * SB_STENCIL2D_WIDTH + (long long)bx * TW + t % TW;
  }
  __device__ static bool valid(int k, int t, int rows) { return k * RPK + t / TW < rows; }
  __device__ static float sum(const float *s, float c) {
    return c + s[-1] + s[1] + s[-S] + s[S];
  }
  // Full tile: the column (t % TW) is the same for all of a thread's
  // elements; only its first element can be in the top row (t < TW) and only
  // its last in the bottom row (t >= B - TW).
  __device__ static StWeights weights(int t) {
    const int col = t % TW, h = (col > 0) + (col < TW - 1);
    StWeights w;
    w.first = st_inv(1 + h + (t >= TW) + (E > 1 || t < B - TW));
    w.mid = st_inv(3 + h);
    w.last = st_inv(2 + h + (t < B - TW));
    return w;
  }
  __device__ static StShort short_tile(int t, int rows) {
    const int row = t / TW, col = t % TW, below = rows - 1 - row;  // rows from row to the last
    StShort s;
    s.valid = below >= 0 ? below / RPK + 1 : 0;
    s.last = below >= 0 && below % RPK == 0 ? below / RPK : -1;
    s.w_last = st_inv(1 + (col > 0) + (col < TW - 1) + (rows > 1));
    return s;
  }
};

// ---- a thread's part of the tile ----

// Iteration it's loop tags: Phase<it & 1> and Ragged<short tile>.
template <int P>
using StPhase = std::integral_constant<int, P>;
template <bool R>
using StRagged = std::integral_constant<bool, R>;

template <class G, int Buffers>
struct StTile {
  static constexpr int B = G::B, E = G::E;
  const StencilParams &p;
  float *const buf;  // Buffers x G::SIZE floats of shared memory
  const int t, slot;
  const StWeights w;
  float cur[E];  // the thread's elements, k * B + t

  // Loads the thread's elements (0 past the valid part) into buffer 0 and
  // registers, and zeroes the pads of every buffer. A barrier must follow.
  __device__ StTile(const StencilParams &params, float *buffers)
      : p(params), buf(buffers), t(threadIdx.x), slot(G::slot(threadIdx.x)),
        w(G::weights(threadIdx.x)) {
    constexpr int pads = Buffers * G::PADS;
#pragma unroll
    for (int i0 = 0; i0 < pads; i0 += B)  // a compile-time trip count
      if (pads % B == 0 || i0 + t < pads) buf[(i0 + t) / G::PADS * G::SIZE + G::pad((i0 + t) % G::PADS)] = 0.0f;
    const float *in = p.in + G::global(p, blockIdx.x, t);
    const int extent = G::extent(p, blockIdx.x);
#pragma unroll
    for (int k = 0; k < E; ++k) cur[k] = G::valid(k, t, extent) ? in[k * G::GSTEP] : 0.0f;
#pragma unroll
    for (int k = 0; k < E; ++k) buf[slot + k * G::STEP] = cur[k];
  }

  // nxt = one Jacobi step of the thread's elements (reads only).
  template <int P>
  __device__ void step(StPhase<P>, StRagged<false>, float (&nxt)[E]) const {
    constexpr int src = Buffers == 1 ? 0 : P;  // the buffer iteration `P` reads
    const float *s = buf + src * G::SIZE + slot;
#pragma unroll
    for (int k = 0; k < E; ++k) nxt[k] = G::sum(s + k * G::STEP, cur[k]) * w.template at<E>(k);
  }
  // The same in a short tile (the weight of the element on the valid part's
  // edge, and 0 past it), derived from the tile's extent every iteration
  // rather than held in three more registers through the loop (the one
  // short tile of a launch need not be fast).
  template <int P>
  __device__ void step(StPhase<P>, StRagged<true>, float (&nxt)[E]) const {
    constexpr int src = Buffers == 1 ? 0 : P;
    const float *s = buf + src * G::SIZE + slot;
    const StShort e = G::short_tile(st_tid(), G::extent(p, st_ctaid()));
#pragma unroll
    for (int k = 0; k < E; ++k)
      nxt[k] = k < e.valid ? G::sum(s + k * G::STEP, cur[k]) * (k == e.last ? e.w_last : w.template at<E>(k))
                           : 0.0f;
  }
  template <int P>
  __device__ void write(StPhase<P>, const float (&nxt)[E]) const {
    constexpr int dst = Buffers == 1 ? 0 : 1 - P;  // and the one it writes
    float *d = buf + dst * G::SIZE + slot;
#pragma unroll
    for (int k = 0; k < E; ++k) d[k * G::STEP] = nxt[k];
  }
  __device__ void advance(const float (&nxt)[E]) {
#pragma unroll
    for (int k = 0; k < E; ++k) cur[k] = nxt[k];
  }
  // Sum over the thread's elements of |new - old|, then cur = new.
  __device__ float residual_advance(const float (&nxt)[E]) {
    float r = 0.0f;
#pragma unroll
    for (int k = 0; k < E; ++k) {
      r += fabsf(nxt[k] - cur[k]);
      cur[k] = nxt[k];
    }
    return r;
  }
  // Where and how much to store is derived anew (st_tid, st_ctaid), not
  // kept from the load through the whole loop.
  __device__ void store() const {
    const int t = st_tid(), block = st_ctaid();
    float *out = p.out + G::global(p, block, t);
    const int extent = G::extent(p, block);
#pragma unroll
    for (int k = 0; k < E; ++k)
      if (G::valid(k, t, extent)) out[k * G::GSTEP] = cur[k];
  }

  // body(StPhase<it & 1>, StRagged<short tile>) for it = 0 .. iters - 1:
  // two iterations per trip, so the phase is a constant; a full tile takes
  // the loop with the per-thread weights (the branch is per block).
  template <class Body>
  __device__ void iterate(int iters, Body body) const {
    if (G::extent(p, blockIdx.x) == G::full_extent())
      loop(iters, body, StRagged<false>{});
    else
      loop(iters, body, StRagged<true>{});
  }
  template <class Body, class R>
  __device__ static void loop(int iters, Body &body, R ragged) {
    int left = iters;  // counts down: one register, not two
#pragma unroll 1
    for (; left >= 2; left -= 2) {
      body(StPhase<0>{}, ragged);
      body(StPhase<1>{}, ragged);
    }
    if (left > 0) body(StPhase<0>{}, ragged);
  }
};

__device__ __forceinline__ float st_warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide sum of one float per thread at the end of the kernel; thread 0
// writes it to the block's residual slot.
template <int B>
__device__ __forceinline__ void st_block_residual(const StencilParams &p, float r) {
  constexpr int warps = B / 32;
  __shared__ float part[warps];
  const int lane = st_tid() & 31, warp = st_tid() >> 5;
  r = st_warp_sum(r);
  if (lane == 0) part[warp] = r;
  __syncthreads();
  if (warp == 0) {
    float v = lane < warps ? part[lane] : 0.0f;
    v = st_warp_sum(v);
    if (lane == 0) p.out[p.n + st_ctaid()] = v;
  }
}

// ---- variants: run(tile, p) after the tile is loaded, before it is stored ----

struct StTwoBarrier {
  static constexpr int buffers = 1;  // in place
  static constexpr bool twin = false;
  template <bool Bounded, class Tile>
  __device__ static void run(Tile &tile, const StencilParams &p) {
    __syncthreads();  // the loaded tile is visible
    tile.iterate(p.iters, [&](auto phase, auto ragged) {
      float nxt[Tile::E];
      tile.step(phase, ragged, nxt);
      __syncthreads();  // every neighbour read of this iteration is done (WAR)
      tile.write(phase, nxt);
      tile.advance(nxt);
      __syncthreads();  // every write is visible to the next reads (RAW)
    });
  }
};

struct StPingpong {
  static constexpr int buffers = 2;
  static constexpr bool twin = false;
  template <bool Bounded, class Tile>
  __device__ static void run(Tile &tile, const StencilParams &p) {
    __syncthreads();
    tile.iterate(p.iters, [&](auto phase, auto ragged) {
      float nxt[Tile::E];
      tile.step(phase, ragged, nxt);
      tile.write(phase, nxt);
      tile.advance(nxt);
      // One barrier: the next iteration reads the buffer just written (RAW)
      // and writes the one read here, whose reads all came before it (WAR).
      __syncthreads();
    });
  }
};

// The barrier is initialized ONCE, before the loop, and each thread waits
// for the parity of its iteration (it & 1: a constant of the unrolled loop).
// A pattern seen in the wild re-initializes it at the top of every
// iteration (`if (t == 0) mbarrier.init(...)`) and is wrong: (1) a slow
// thread may still be spinning in try_wait on the previous phase when
// thread 0 re-inits; init resets the phase to 0 with no arrivals, so the
// waiter may never see the parity it waits for (hang) or see a stale one
// (runs ahead: a data race); (2) a fast thread may arrive for the next
// iteration before the re-init, and the init then erases that arrival, so
// the phase never completes (hang); (3) the PTX ISA makes mbarrier.init on
// an object other threads are using undefined behaviour. Nothing but a full
// __syncthreads before every init would make it safe, which is exactly the
// cost the mbarrier was meant to avoid.
struct StMbarrier {
  static constexpr int buffers = 2;
  static constexpr bool twin = true;  // bounded wait validates, raw wait is timed
  template <bool Bounded, class Tile>
  __device__ static void run(Tile &tile, const StencilParams &p) {
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x == 0) sb_mbar_init(&bar, Tile::B);  // every thread arrives
    __syncthreads();  // publishes the init and the loaded tile
    const uint32_t bar_a = sb_mbar_addr(&bar);  // once, outside the loop
    tile.iterate(p.iters, [&](auto phase, auto ragged) {
      float nxt[Tile::E];
      tile.step(phase, ragged, nxt);
      tile.write(phase, nxt);
      tile.advance(nxt);
      // Every thread arrives, from a converged warp (the hardware folds the
      // warp's arrivals).
      sb_mbar_arrive(bar_a);                                  // release: my reads done, writes published
      sb_mbar_wait_parity<Bounded>(bar_a, decltype(phase)::value);  // acquire: everybody's
    });
    // No mbarrier.inval: the barrier dies with the block.
  }
};

// The cuda::barrier variants below wait through cuda::barrier::wait (libcu++
// polls mbarrier.try_wait with its own back-off), not through
// sb_mbar_wait_parity: they measure cuda::barrier as users get it.
typedef cuda::barrier<cuda::thread_scope_block> st_block_barrier;

// split_arrive (Split) and arrive_wait: the same work, a residual |new - old|
// per element that needs nobody else's data. split_arrive arrives right
// after its write and waits only after that work, overlapping it with the
// barrier; arrive_wait does it after arrive_and_wait.
template <bool Split>
struct StResidualBarrier {
  static constexpr int buffers = 2;
  static constexpr bool twin = false;
  template <bool Bounded, class Tile>
  __device__ static void run(Tile &tile, const StencilParams &p) {
    __shared__ st_block_barrier bar;
    if (threadIdx.x == 0) init(&bar, Tile::B);
    __syncthreads();
    float resid = 0.0f;
    tile.iterate(p.iters, [&](auto phase, auto ragged) {
      float nxt[Tile::E];
      tile.step(phase, ragged, nxt);
      tile.write(phase, nxt);
      if constexpr (Split) {
        st_block_barrier::arrival_token token = bar.arrive();  // my part is published
        resid += tile.residual_advance(nxt);                    // overlaps the barrier
        bar.wait(cuda::std::move(token));  // only now: the next iteration reads dst
      } else {
        bar.arrive_and_wait();
        resid += tile.residual_advance(nxt);
      }
    });
    st_block_residual<Tile::B>(p, resid);
  }
};
using StSplitArrive = StResidualBarrier<true>;
using StArriveWait = StResidualBarrier<false>;

// completion: the completion function runs once per phase on the last
// thread to arrive, after every arrival and before any waiter is released:
// it sees every warp's partial sum, and the next phase's writes to wsum
// happen only after the wait.
// Its operands live at namespace scope, so the function object is empty and
// the barrier stores no pointers (each kernel that uses them gets its own).
__shared__ float st_warp_resid[32], st_total_resid;
template <int Warps>
struct StResidualSum {
  __device__ void operator()() noexcept {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < Warps; ++w) s += st_warp_resid[w];
    st_total_resid += s;  // the per-iteration residual s is what a convergence test reads
  }
};

struct StCompletion {
  static constexpr int buffers = 2;
  static constexpr bool twin = false;
  template <bool Bounded, class Tile>
  __device__ static void run(Tile &tile, const StencilParams &p) {
    typedef cuda::barrier<cuda::thread_scope_block, StResidualSum<Tile::B / 32>> completion_barrier;
    __shared__ completion_barrier bar;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
      st_total_resid = 0.0f;
      init(&bar, Tile::B);
    }
    __syncthreads();
    tile.iterate(p.iters, [&](auto phase, auto ragged) {
      float nxt[Tile::E];
      tile.step(phase, ragged, nxt);
      tile.write(phase, nxt);
      const float r = st_warp_sum(tile.residual_advance(nxt));
      if (lane == 0) st_warp_resid[warp] = r;
      bar.arrive_and_wait();  // the completion function adds up the warp sums
    });
    if (st_tid() == 0) p.out[p.n + st_ctaid()] = st_total_resid;  // last phase completed
  }
};

struct StManualReduce {
  static constexpr int buffers = 2;
  static constexpr bool twin = false;
  template <bool Bounded, class Tile>
  __device__ static void run(Tile &tile, const StencilParams &p) {
    constexpr int warps = Tile::B / 32;
    // Double-buffered by phase: warp 0 reads wsum[it & 1] after the barrier
    // of iteration it; the next writes to it come after the barrier of
    // iteration it + 1, which warp 0 reaches only after reading.
    __shared__ float wsum[2][warps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    float total = 0.0f;
    tile.iterate(p.iters, [&](auto phase, auto ragged) {
      constexpr int P = decltype(phase)::value;
      float nxt[Tile::E];
      tile.step(phase, ragged, nxt);
      tile.write(phase, nxt);
      const float r = st_warp_sum(tile.residual_advance(nxt));
      if (lane == 0) wsum[P][warp] = r;
      __syncthreads();  // ping-pong barrier, and the warp sums are in
      if (warp == 0) {
        const float s = lane < warps ? wsum[P][lane] : 0.0f;
        total += st_warp_sum(s);  // the per-iteration residual, in every lane
      }
    });
    if (st_tid() == 0) p.out[p.n + st_ctaid()] = total;
  }
};

// ---- the kernel ----

// Buffers of `Floats` floats: static shared memory up to 48 KB, else the
// launch's dynamic shared memory (st_smem_bytes).
template <int Floats>
__device__ __forceinline__ float *st_buffers() {
  if constexpr (Floats * sizeof(float) <= 48 * 1024) {
    __shared__ float s[Floats];
    return s;
  } else {
    extern __shared__ float dyn[];
    return dyn;
  }
}

template <class V, class G>
constexpr size_t st_smem_bytes() {
  constexpr size_t bytes = (size_t)V::buffers * G::SIZE * sizeof(float);
  return bytes <= 48 * 1024 ? 0 : bytes;
}

template <class V, class G, bool Bounded>
__global__ void __launch_bounds__(G::B, ST_SM_THREADS / G::B) stencil_kernel(const StencilParams p) {
  static_assert(G::B % 32 == 0, "whole warps (the residual reductions)");
  StTile<G, V::buffers> tile(p, st_buffers<V::buffers * G::SIZE>());
  V::template run<Bounded>(tile, p);
  tile.store();
}

// ---- pickers and launchers ----

// The (block_threads, elems_per_thread) shapes compiled: those the default
// and quick sweeps of bench/stencil.c use.
template <int B, int E>
struct StShape {
  static constexpr int block = B, elems = E;
};
template <class... S>
struct StShapes {};
using StLineShapes = StShapes<StShape<128, 1>, StShape<128, 8>, StShape<1024, 1>, StShape<1024, 8>>;
using StImageShapes = StShapes<StShape<256, 4>, StShape<1024, 1>, StShape<1024, 4>>;

template <class... S>
static int st_no_shape(StShapes<S...>, long long block, long long elems, char *why, size_t len) {
  char list[160];
  int w = 0;
  list[0] = '\0';
  ((w += snprintf(list + w, w < (int)sizeof list ? sizeof list - (size_t)w : 0, "%s%dx%d",
                  w ? "," : "", S::block, S::elems)),
   ...);
  snprintf(why, len,
           "block_threads=%lld, elems_per_thread=%lld has no compiled kernel "
           "(compiled block x elems: %s)",
           block, elems, list);
  return -1;
}

template <class V, template <int, int> class Geo, class... S>
static int st_pick_shape(StShapes<S...> shapes, const long long *axis, sb_kernels *k, char *why,
                         size_t len) {
  const long long block = axis[SB_AXIS_BLOCK], elems = axis[SB_AXIS_ELEMS];
  const auto pick = [&](auto shape) {
    using G = Geo<decltype(shape)::block, decltype(shape)::elems>;
    *k = sb_twin_kernels<V::twin>(
        [](auto bounded) { return stencil_kernel<V, G, decltype(bounded)::value>; },
        st_smem_bytes<V, G>());
  };
  if (((block == S::block && elems == S::elems ? (pick(S{}), true) : false) || ...)) return 0;
  return st_no_shape(shapes, block, elems, why, len);
}

template <class V>
static int stencil_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  return st_pick_shape<V, Line>(StLineShapes{}, axis, k, why, len);
}
template <class V>
static int stencil2d_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  return st_pick_shape<V, Image>(StImageShapes{}, axis, k, why, len);
}

static StencilParams st_params(const sb_launch *L) {
  StencilParams p;
  p.in = (const float *)L->in;
  p.out = (float *)L->out;
  p.n = L->axis[SB_AXIS_N];
  p.iters = (int)L->axis[SB_AXIS_ITERS];
  p.tiles_x = p.rows = 0;
  return p;
}

// 1D: one tile of block x elems consecutive elements per block.
static cudaError_t stencil_launch(sb_launch *L) {
  const StencilParams p = st_params(L);
  sb_shape s;
  s.block = (int)L->axis[SB_AXIS_BLOCK];
  s.grid = sb_ceil_div(p.n, s.block * L->axis[SB_AXIS_ELEMS]);
  return sb_launch_params(L, s, p);
}

// 2D: tiles of tw x th over an image SB_STENCIL2D_WIDTH wide (bench/stencil.c
// checks that n is a multiple of the width and the tile >= 32x32).
static cudaError_t stencil2d_launch(sb_launch *L) {
  StencilParams p = st_params(L);
  const long long tile = L->axis[SB_AXIS_BLOCK] * L->axis[SB_AXIS_ELEMS];
  const long long tw = SB_STENCIL2D_TW(tile);
  p.tiles_x = (int)(SB_STENCIL2D_WIDTH / tw);
  p.rows = (int)(p.n / SB_STENCIL2D_WIDTH);
  sb_shape s;
  s.block = (int)L->axis[SB_AXIS_BLOCK];
  s.grid = p.tiles_x * sb_ceil_div(p.rows, tile / tw);
  return sb_launch_params(L, s, p);
}

// One table per family: the same variants, each on its family's geometry.
#define ST_ROW(fam, name, V, flags, summary) {name, fam##_launch, fam##_pick<V>, 0, flags, summary}
#define ST_ROWS(fam)                                                                            \
  ST_ROW(fam, "two_barrier", StTwoBarrier, SB_VF_BASELINE,                                      \
         "in place: read, __syncthreads, write, __syncthreads: 2 barriers/iter"),               \
  ST_ROW(fam, "pingpong", StPingpong, 0, "two buffers, roles swapped: 1 __syncthreads/iter"),   \
  ST_ROW(fam, "mbarrier", StMbarrier, 0,                                                        \
         "two buffers; every thread arrives on one mbarrier, parity wait: 1 phase/iter"),       \
  ST_ROW(fam, "split_arrive", StSplitArrive, SB_STENCIL_VF_RESIDUAL,                            \
         "cuda::barrier arrive, residual |new-old| accumulated, then wait: 1 phase/iter"),      \
  ST_ROW(fam, "arrive_wait", StArriveWait, SB_STENCIL_VF_RESIDUAL,                              \
         "cuda::barrier arrive_and_wait, then the residual: 1 phase/iter (no split)"),          \
  ST_ROW(fam, "completion", StCompletion, SB_STENCIL_VF_RESIDUAL,                               \
         "cuda::barrier completion function sums the warps' residuals: 1 phase/iter"),          \
  ST_ROW(fam, "manual_reduce", StManualReduce, SB_STENCIL_VF_RESIDUAL,                          \
         "per-iteration residual by shuffles + warp 0: 1 __syncthreads/iter")

static const sb_variant stencil_rows[] = {ST_ROWS(stencil)};
static const sb_variant stencil2d_rows[] = {ST_ROWS(stencil2d)};
extern "C" const sb_variant_table sb_stencil_variants = {
    stencil_rows, sizeof stencil_rows / sizeof stencil_rows[0]};
extern "C" const sb_variant_table sb_stencil2d_variants = {
    stencil2d_rows, sizeof stencil2d_rows / sizeof stencil2d_rows[0]};
