// The plainest versions of both sides: stand-alone scan and 1D stencil
// kernels, two_barrier and pingpong, and the multistage kernel (uniform's
// roles), written the way a person would write them in a few lines, timed
// in the same run as the syncbench sweep. They are the yardstick for issue
// 12 (kernel fidelity) and issue 20 (multistage): a syncbench variant
// slower than its plain twin measures its own overhead, not its barriers.
//
// Same work as the families: scan = `iters` inclusive scans (mod 2^32) of
// each block's tile of B words; stencil = `iters` Jacobi steps of the 3-point
// mean over each tile of B*E floats (element k*B + t), tile edges averaging
// their in-tile neighbours only; multistage = `iters` passes of preprocess,
// 5-point blur and cascade smooth over each tile of B*E floats (multistage/
// uniform's work). Outputs are checked against a CPU reference (scan
// exactly, stencil within 1e-4 relative, multistage within syncbench's
// 8 eps (iters + 1)) before anything is timed.
//
//   make plain && build/plain_kernels [--quick | --devscan | --multistage]
// Prints one line per case: kernel, B, E, iters, n, median us of 20 runs
// (multistage: "multistage/uniform B= 128 E=2 iters= 16 n=16777216  ok  us",
// every shape of its default sweep at iters 1 and 16).
// Exit status 1 if any check failed. No Google Benchmark, no watchdog.
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "plain_kernels: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,        \
              cudaGetErrorString(e_));                                                 \
      exit(3);                                                                         \
    }                                                                                  \
  } while (0)

// ---- scan ----

template <int B>
__global__ void __launch_bounds__(B) plain_scan_two_barrier(const uint32_t *in, uint32_t *out,
                                                            long long n, int iters) {
  __shared__ uint32_t s[B];
  const int t = threadIdx.x;
  const long long g = (long long)blockIdx.x * B + t;
  uint32_t v = g < n ? in[g] : 0u;
  s[t] = v;
  __syncthreads();
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int off = 1; off < B; off <<= 1) {
      uint32_t a = t >= off ? s[t - off] : 0u;
      __syncthreads();
      v += a;
      s[t] = v;
      __syncthreads();
    }
  if (g < n) out[g] = v;
}

template <int B>
__global__ void __launch_bounds__(B) plain_scan_pingpong(const uint32_t *in, uint32_t *out,
                                                         long long n, int iters) {
  __shared__ uint32_t s[2][B];
  const int t = threadIdx.x;
  const long long g = (long long)blockIdx.x * B + t;
  uint32_t v = g < n ? in[g] : 0u;
  s[0][t] = v;
  __syncthreads();
  int cur = 0;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int off = 1; off < B; off <<= 1) {
      if (t >= off) v += s[cur][t - off];
      s[cur ^ 1][t] = v;
      __syncthreads();
      cur ^= 1;
    }
  if (g < n) out[g] = v;
}

// ---- 1D stencil ----

template <int B, int E>
__global__ void __launch_bounds__(B) plain_stencil_two_barrier(const float *in, float *out,
                                                               long long n, int iters) {
  extern __shared__ float s[];  // B * E
  const int t = threadIdx.x;
  const long long base = (long long)blockIdx.x * (B * E);
  const int len = n - base < B * E ? (int)(n - base) : B * E;
  float v[E];
#pragma unroll
  for (int k = 0; k < E; ++k) {
    const int e = k * B + t;
    v[k] = e < len ? in[base + e] : 0.0f;
    s[e] = v[k];
  }
  __syncthreads();
  for (int it = 0; it < iters; ++it) {
    float nv[E];
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int e = k * B + t;
      const bool l = e > 0, r = e + 1 < len;
      const float sum = v[k] + (l ? s[e - 1] : 0.0f) + (r ? s[e + 1] : 0.0f);
      nv[k] = e < len ? sum * (l && r ? (1.0f / 3.0f) : (l || r ? 0.5f : 1.0f)) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < E; ++k) {
      v[k] = nv[k];
      s[k * B + t] = nv[k];
    }
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < E; ++k)
    if (k * B + t < len) out[base + k * B + t] = v[k];
}

template <int B, int E>
__global__ void __launch_bounds__(B) plain_stencil_pingpong(const float *in, float *out,
                                                            long long n, int iters) {
  extern __shared__ float smem[];  // two tiles of B * E (64 KB at 1024 x 8)
  float *s[2] = {smem, smem + B * E};
  const int t = threadIdx.x;
  const long long base = (long long)blockIdx.x * (B * E);
  const int len = n - base < B * E ? (int)(n - base) : B * E;
  float v[E];
#pragma unroll
  for (int k = 0; k < E; ++k) {
    const int e = k * B + t;
    v[k] = e < len ? in[base + e] : 0.0f;
    s[0][e] = v[k];
  }
  __syncthreads();
  int cur = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int e = k * B + t;
      const bool l = e > 0, r = e + 1 < len;
      const float sum = v[k] + (l ? s[cur][e - 1] : 0.0f) + (r ? s[cur][e + 1] : 0.0f);
      v[k] = e < len ? sum * (l && r ? (1.0f / 3.0f) : (l || r ? 0.5f : 1.0f)) : 0.0f;
      s[cur ^ 1][e] = v[k];
    }
    __syncthreads();
    cur ^= 1;
  }
#pragma unroll
  for (int k = 0; k < E; ++k)
    if (k * B + t < len) out[base + k * B + t] = v[k];
}

// ---- multistage ----
// Per pass over each tile of B*E floats (element k*B + t): P = 1.1 x;
// Q[e] = mean of P[e-2..e+2] inside the tile; x[e] = v after v = Q[e] and
// v = (v + Q[e+j]) / 2 for j = 1, 2, 3 inside the tile. x stays in
// registers; P and Q are the tile's neighbour exchange, 2 __syncthreads a
// pass. A full tile's length is a constant (Full) and the compiler is told
// t < B, so it drops the bounds checks of a thread's interior elements;
// 2048 / B blocks per SM as syncbench's kernels (<= 32 registers).

__device__ __forceinline__ float plain_inv(int c) {  // fl(1/c), c = 1..5
  return c == 5 ? 0.2f : c == 4 ? 0.25f : c == 3 ? 1.0f / 3.0f : c == 2 ? 0.5f : 1.0f;
}

template <int B, int E, bool Full>
__device__ void plain_multistage_tile(const float *in, float *out, long long base, int valid,
                                      int iters) {
  extern __shared__ float ms[];  // P, Q: B * E each
  float *P = ms, *Q = ms + B * E;
  const int t = threadIdx.x, len = Full ? B * E : valid;
  __builtin_assume(t >= 0 && t < B);
  float x[E];
#pragma unroll
  for (int k = 0; k < E; ++k) x[k] = k * B + t < len ? in[base + k * B + t] : 0.0f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < E; ++k) P[k * B + t] = 1.1f * x[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int e = k * B + t;
      if (e >= len) continue;
      float s = P[e];
      int c = 1;
      if (e >= 1) s += P[e - 1], ++c;
      if (e + 1 < len) s += P[e + 1], ++c;
      if (e >= 2) s += P[e - 2], ++c;
      if (e + 2 < len) s += P[e + 2], ++c;
      Q[e] = s * plain_inv(c);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int e = k * B + t;
      if (e >= len) continue;
      float v = Q[e];
      if (e + 1 < len) v = 0.5f * (v + Q[e + 1]);
      if (e + 2 < len) v = 0.5f * (v + Q[e + 2]);
      if (e + 3 < len) v = 0.5f * (v + Q[e + 3]);
      x[k] = v;
    }
  }
#pragma unroll
  for (int k = 0; k < E; ++k)
    if (k * B + t < len) out[base + k * B + t] = x[k];
}

template <int B, int E>
__global__ void __launch_bounds__(B, 2048 / B) plain_multistage(const float *in, float *out,
                                                                  long long n, int iters) {
  const long long base = (long long)blockIdx.x * (B * E);
  if (n - base >= B * E)
    plain_multistage_tile<B, E, true>(in, out, base, B * E, iters);
  else
    plain_multistage_tile<B, E, false>(in, out, base, (int)(n - base), iters);
}

// ---- device-wide scan (devscan's yardsticks) ----
// The plainest reduce-then-scan over tiles of B x E words, as three kernels
// and as one cooperative kernel with grid.sync() between the same phases.
// Loads are coalesced as any expert writes them (a thread-contiguous layout,
// thread t owning words t*E.., made each 16-byte load instruction of a warp
// touch 32 lines 4*E bytes apart, and ran ~40% under devscan at 256M): the
// j-th 16-byte load of lane l of warp w is word w*32*E + j*128 + l*4, so a
// warp's load is 512 contiguous bytes, and the tile is scanned in that
// order (per j: 4 words in the thread, a shuffle scan over the warp).

template <int B>
__device__ uint32_t plain_block_exclusive(uint32_t x, uint32_t *total) {
  __shared__ uint32_t warp_sum[B / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t incl = x;
  for (int off = 1; off < 32; off <<= 1) {
    const uint32_t y = __shfl_up_sync(0xffffffffu, incl, off);
    if (lane >= off) incl += y;
  }
  if (lane == 31) warp_sum[warp] = incl;
  __syncthreads();
  uint32_t before = 0, all = 0;
  for (int w = 0; w < B / 32; ++w) {
    before += w < warp ? warp_sum[w] : 0u;
    all += warp_sum[w];
  }
  __syncthreads();  // warp_sum is free again
  *total = all;
  return before + incl - x;
}

template <int E>
__device__ long long plain_word(int j) {  // the tile word of this thread's j-th vector
  return (long long)(threadIdx.x >> 5) * 32 * E + j * 128 + (threadIdx.x & 31) * 4;
}

template <int B, int E>
__device__ void plain_load(const uint32_t *in, long long n, long long base, uint32_t (&v)[E]) {
  static_assert(E % 4 == 0, "16-byte vectors");
  const bool full = base + B * E <= n;
  for (int j = 0; j < E / 4; ++j) {
    const long long g = base + plain_word<E>(j);
    if (full) {
      const uint4 q = *reinterpret_cast<const uint4 *>(in + g);
      v[4 * j] = q.x, v[4 * j + 1] = q.y, v[4 * j + 2] = q.z, v[4 * j + 3] = q.w;
    } else {
      for (int k = 0; k < 4; ++k) v[4 * j + k] = g + k < n ? in[g + k] : 0u;
    }
  }
}

template <int B, int E>
__device__ void plain_reduce_tile(const uint32_t *in, long long n, long long tile, uint32_t *sums) {
  uint32_t v[E], sum = 0, all;
  plain_load<B, E>(in, n, tile * B * E, v);
  for (int k = 0; k < E; ++k) sum += v[k];
  plain_block_exclusive<B>(sum, &all);
  if (threadIdx.x == 0) sums[tile] = all;
}

// One block: sums[i] <- sums[0] + ... + sums[i-1] (exclusive), B at a time.
template <int B>
__device__ void plain_scan_sums(uint32_t *sums, long long tiles) {
  uint32_t carry = 0, all;
  for (long long base = 0; base < tiles; base += B) {
    const long long i = base + threadIdx.x;
    const uint32_t x = i < tiles ? sums[i] : 0u;
    const uint32_t ex = plain_block_exclusive<B>(x, &all);
    if (i < tiles) sums[i] = carry + ex;
    carry += all;
  }
}

template <int B, int E>
__device__ void plain_scan_tile(const uint32_t *in, uint32_t *out, long long n, long long tile,
                                const uint32_t *sums) {
  __shared__ uint32_t warp_total[B / 32];
  const long long base = tile * B * E;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t v[E];
  plain_load<B, E>(in, n, base, v);
  uint32_t carry = 0;  // the warp's words before vector j
  for (int j = 0; j < E / 4; ++j) {
    for (int k = 1; k < 4; ++k) v[4 * j + k] += v[4 * j + k - 1];
    const uint32_t mine = v[4 * j + 3];
    uint32_t incl = mine;
    for (int off = 1; off < 32; off <<= 1) {
      const uint32_t y = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += y;
    }
    const uint32_t add = carry + incl - mine;
    for (int k = 0; k < 4; ++k) v[4 * j + k] += add;
    carry += __shfl_sync(0xffffffffu, incl, 31);
  }
  if (lane == 0) warp_total[warp] = carry;
  __syncthreads();
  uint32_t off = sums[tile];
  for (int w = 0; w < warp; ++w) off += warp_total[w];
  const bool full = base + B * E <= n;
  for (int j = 0; j < E / 4; ++j) {
    const long long g = base + plain_word<E>(j);
    if (full) {
      *reinterpret_cast<uint4 *>(out + g) =
          make_uint4(v[4 * j] + off, v[4 * j + 1] + off, v[4 * j + 2] + off, v[4 * j + 3] + off);
    } else {
      for (int k = 0; k < 4; ++k)
        if (g + k < n) out[g + k] = v[4 * j + k] + off;
    }
  }
  __syncthreads();  // warp_total is read before a grid-stride loop's next tile writes it
}

template <int B, int E>
__global__ void __launch_bounds__(B) plain_reduce(const uint32_t *in, long long n, uint32_t *sums) {
  plain_reduce_tile<B, E>(in, n, blockIdx.x, sums);
}
template <int B>
__global__ void __launch_bounds__(B) plain_sums(uint32_t *sums, long long tiles) {
  plain_scan_sums<B>(sums, tiles);
}
template <int B, int E>
__global__ void __launch_bounds__(B) plain_scan(const uint32_t *in, uint32_t *out, long long n,
                                                const uint32_t *sums) {
  plain_scan_tile<B, E>(in, out, n, blockIdx.x, sums);
}

template <int B, int E>
__global__ void __launch_bounds__(B) plain_grid_scan(const uint32_t *in, uint32_t *out, long long n,
                                                     uint32_t *sums) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const long long tiles = (n + B * E - 1) / (B * E);
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) plain_reduce_tile<B, E>(in, n, t, sums);
  grid.sync();
  if (blockIdx.x == 0) plain_scan_sums<B>(sums, tiles);
  grid.sync();
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) plain_scan_tile<B, E>(in, out, n, t, sums);
}

// ---- CPU references ----

static void cpu_scan(const uint32_t *in, uint32_t *out, long long n, int tile, int iters) {
  for (long long b = 0; b < n; b += tile) {
    const long long len = std::min<long long>(tile, n - b);
    memcpy(out + b, in + b, (size_t)len * 4);
    for (int it = 0; it < iters; ++it) {
      uint32_t acc = 0;
      for (long long i = 0; i < len; ++i) out[b + i] = acc += out[b + i];
    }
  }
}

static void cpu_stencil(const float *in, double *out, long long n, int tile, int iters) {
  std::vector<double> x(tile), y(tile);
  for (long long b = 0; b < n; b += tile) {
    const int len = (int)std::min<long long>(tile, n - b);
    for (int i = 0; i < len; ++i) x[i] = in[b + i];
    for (int it = 0; it < iters; ++it) {
      for (int i = 0; i < len; ++i) {
        double s = x[i];
        int c = 1;
        if (i > 0) s += x[i - 1], ++c;
        if (i + 1 < len) s += x[i + 1], ++c;
        y[i] = s / c;
      }
      std::swap(x, y);
    }
    for (int i = 0; i < len; ++i) out[b + i] = x[i];
  }
}

// multistage from its definition, in double, tile by tile (tiles spread
// over the host's threads: 16M elements x 16 passes).
static void cpu_multistage_tile(const float *in, double *x, int len, int iters) {
  std::vector<double> p(len), q(len);
  for (int i = 0; i < len; ++i) x[i] = in[i];
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < len; ++i) p[i] = 1.1 * x[i];
    for (int i = 0; i < len; ++i) {
      double s = 0;
      int c = 0;
      for (int j = std::max(i - 2, 0); j <= std::min(i + 2, len - 1); ++j) s += p[j], ++c;
      q[i] = s / c;
    }
    for (int i = 0; i < len; ++i) {
      double v = q[i];
      for (int j = i + 1; j <= i + 3 && j < len; ++j) v = 0.5 * (v + q[j]);
      x[i] = v;
    }
  }
}

static void cpu_multistage(const float *in, double *out, long long n, int tile, int iters) {
  const long long tiles = (n + tile - 1) / tile;
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([=] {
      for (long long t = w; t < tiles; t += workers)
        cpu_multistage_tile(in + t * tile, out + t * tile,
                            (int)std::min<long long>(tile, n - t * tile), iters);
    });
  for (auto &th : pool) th.join();
}

// ---- timing ----

template <class F>
static double median_us(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float m;
    CK(cudaEventElapsedTime(&m, a, b));
    ms.push_back(m);
  }
  std::sort(ms.begin(), ms.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return 1000.0 * ms[ms.size() / 2];
}

static int failures = 0;

template <int B>
static void run_scan(const char *name, bool pingpong, long long n, int iters, uint32_t *d_in,
                     uint32_t *d_out, const std::vector<uint32_t> &h_in) {
  const unsigned grid = (unsigned)((n + B - 1) / B);
  auto launch = [&] {
    if (pingpong)
      plain_scan_pingpong<B><<<grid, B>>>(d_in, d_out, n, iters);
    else
      plain_scan_two_barrier<B><<<grid, B>>>(d_in, d_out, n, iters);
  };
  CK(cudaMemset(d_out, 0xA5, (size_t)n * 4));
  launch();
  CK(cudaGetLastError());
  std::vector<uint32_t> got(n), want(n);
  CK(cudaMemcpy(got.data(), d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
  cpu_scan(h_in.data(), want.data(), n, B, iters);
  const bool ok = got == want;
  failures += !ok;
  printf("scan/%-12s B=%4d E=1 iters=%3d n=%lld  %s  %.1f us\n", name, B, iters, n,
         ok ? "ok   " : "WRONG", ok ? median_us(launch) : NAN);
}

// One launch into a poisoned d_out, checked element by element against
// want (|got - want| <= rel |want| + abs_tol); timed only when right. Prints
// "family/variant B= E= iters= n=  ok|WRONG  us".
template <class F>
static void check_then_time(const char *label, int B, int E, int iters, F launch, float *d_out,
                            const std::vector<double> &want, double rel, double abs_tol) {
  const long long n = (long long)want.size();
  CK(cudaMemset(d_out, 0xA5, (size_t)n * 4));
  launch();
  CK(cudaGetLastError());
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (long long i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= rel * fabs(want[i]) + abs_tol)) ++bad;
  failures += bad != 0;
  printf("%-17s B=%4d E=%d iters=%3d n=%lld  %s  %.1f us\n", label, B, E, iters, n,
         bad ? "WRONG" : "ok   ", bad ? NAN : median_us(launch));
}

template <int B, int E>
static void run_stencil(const char *name, bool pingpong, long long n, int iters, float *d_in,
                        float *d_out, const std::vector<float> &h_in) {
  const unsigned grid = (unsigned)((n + B * E - 1) / (B * E));
  const size_t smem = (pingpong ? 2 : 1) * sizeof(float) * B * E;
  CK(cudaFuncSetAttribute(plain_stencil_pingpong<B, E>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * 4 * B * E));
  auto launch = [&] {
    if (pingpong)
      plain_stencil_pingpong<B, E><<<grid, B, smem>>>(d_in, d_out, n, iters);
    else
      plain_stencil_two_barrier<B, E><<<grid, B, smem>>>(d_in, d_out, n, iters);
  };
  std::vector<double> want(n);
  cpu_stencil(h_in.data(), want.data(), n, B * E, iters);
  char label[64];
  snprintf(label, sizeof label, "stencil/%s", name);
  check_then_time(label, B, E, iters, launch, d_out, want, 1e-4, 1e-6);
}

// The plain multistage kernel at one shape; inputs in [1, 2) as syncbench's
// (bench/multistage.c), checked within its tolerance, 8 eps (iters + 1).
template <int B, int E>
static void run_multistage(long long n, int iters, const float *d_in, float *d_out,
                           const std::vector<float> &h_in) {
  const unsigned grid = (unsigned)((n + B * E - 1) / (B * E));
  const size_t smem = 2 * sizeof(float) * B * E;
  CK(cudaFuncSetAttribute(plain_multistage<B, E>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)smem));
  auto launch = [&] { plain_multistage<B, E><<<grid, B, smem>>>(d_in, d_out, n, iters); };
  std::vector<double> want(n);
  cpu_multistage(h_in.data(), want.data(), n, B * E, iters);
  check_then_time("multistage/uniform", B, E, iters, launch, d_out, want,
                  8.0 * FLT_EPSILON * (iters + 1), 0.0);
}

// Every shape of multistage's default sweep (block 128, 1024 x elems 2, 8)
// at iters 1 and 16, on n floats in [1, 2).
static void run_multistage_all(long long n) {
  std::vector<float> h(n);
  uint64_t x = 0x6a09e667f3bcc909ull;
  for (auto &v : h) v = 1.0f + (float)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 40) / (1 << 24);
  float *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * 4));
  CK(cudaMalloc(&d_out, n * 4));
  CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
  for (int iters : {1, 16}) {
    run_multistage<128, 2>(n, iters, d_in, d_out, h);
    run_multistage<128, 8>(n, iters, d_in, d_out, h);
    run_multistage<1024, 2>(n, iters, d_in, d_out, h);
    run_multistage<1024, 8>(n, iters, d_in, d_out, h);
  }
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
}

// devscan's yardsticks at one n and tile B x E: the plain 3-kernel and
// grid-sync schemes, and a d2d copy of the same bytes.
template <int B, int E>
static void run_devscan(long long n) {
  const long long tiles = (n + B * E - 1) / (B * E);
  std::vector<uint32_t> h(n), got(n), want(n);
  uint64_t x = 0x2545f4914f6cdd1dull ^ (uint64_t)n;
  for (auto &v : h) v = (uint32_t)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 32);
  uint32_t acc = 0;
  for (long long i = 0; i < n; ++i) want[i] = acc += h[i];
  uint32_t *d_in, *d_out, *d_sums;
  CK(cudaMalloc(&d_in, n * 4));
  CK(cudaMalloc(&d_out, n * 4));
  CK(cudaMalloc(&d_sums, tiles * 4));
  CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
  int per_sm = 0, sms = 0, dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, plain_grid_scan<B, E>, B, 0));
  const long long grid = std::min<long long>((long long)per_sm * sms, tiles);
  auto three = [&] {
    plain_reduce<B, E><<<(unsigned)tiles, B>>>(d_in, n, d_sums);
    plain_sums<B><<<1, B>>>(d_sums, tiles);
    plain_scan<B, E><<<(unsigned)tiles, B>>>(d_in, d_out, n, d_sums);
  };
  auto gridsync = [&] {
    long long nn = n;
    void *args[] = {&d_in, &d_out, &nn, &d_sums};
    CK(cudaLaunchCooperativeKernel((const void *)plain_grid_scan<B, E>, dim3((unsigned)grid), dim3(B),
                                   args, 0, 0));
  };
  auto copy = [&] { CK(cudaMemcpyAsync(d_out, d_in, n * 4, cudaMemcpyDeviceToDevice)); };
  struct { const char *name; std::function<void()> f; } cases[] = {
      {"three_kernel", three}, {"grid_sync", gridsync}};
  for (auto &c : cases) {
    CK(cudaMemset(d_out, 0xA5, n * 4));
    c.f();
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
    const bool ok = got == want;
    failures += !ok;
    const double us = ok ? median_us(c.f) : NAN;
    printf("devscan/%-12s B=%4d E=%d n=%lld  %s  %.1f us  %.0f GB/s\n", c.name, B, E, n,
           ok ? "ok   " : "WRONG", us, 8.0 * n / us * 1e-3);
  }
  const double us = median_us(copy);
  printf("devscan/%-12s n=%lld  ok     %.1f us  %.0f GB/s\n", "d2d_copy", n, us, 8.0 * n / us * 1e-3);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_sums));
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--devscan")) {  // only devscan's yardsticks
    // 128 x 24: devscan's default tile; 256 x 16: the first round's.
    for (long long n : {1LL << 20, 16LL << 20, 256LL << 20}) {
      run_devscan<128, 24>(n);
      run_devscan<256, 16>(n);
    }
    printf("plain_kernels: %d check(s) failed\n", failures);
    return failures ? 1 : 0;
  }
  const bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  const long long ns = quick ? (1LL << 20) + 3 : 16LL << 20, nscan = quick ? 1LL << 20 : 32LL << 20;
  if (argc > 1 && !strcmp(argv[1], "--multistage")) {  // only multistage's yardstick
    run_multistage_all(ns);
    printf("plain_kernels: %d check(s) failed\n", failures);
    return failures ? 1 : 0;
  }
  std::vector<uint32_t> hu(nscan);
  std::vector<float> hf(ns);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto &v : hu) v = (uint32_t)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 32);
  for (auto &v : hf) v = (float)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 40) / (1 << 24);
  uint32_t *du, *duo;
  float *df, *dfo;
  CK(cudaMalloc(&du, nscan * 4));
  CK(cudaMalloc(&duo, nscan * 4));
  CK(cudaMalloc(&df, ns * 4));
  CK(cudaMalloc(&dfo, ns * 4));
  CK(cudaMemcpy(du, hu.data(), nscan * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(df, hf.data(), ns * 4, cudaMemcpyHostToDevice));
  for (int iters : {1, 4, 16, 64}) {
    run_scan<1024>("two_barrier", false, nscan, iters, du, duo, hu);
    run_scan<1024>("pingpong", true, nscan, iters, du, duo, hu);
  }
  for (int iters : {1, 16, 256}) {
    run_stencil<128, 1>("two_barrier", false, ns, iters, df, dfo, hf);
    run_stencil<128, 1>("pingpong", true, ns, iters, df, dfo, hf);
    run_stencil<1024, 1>("two_barrier", false, ns, iters, df, dfo, hf);
    run_stencil<1024, 1>("pingpong", true, ns, iters, df, dfo, hf);
    run_stencil<128, 8>("two_barrier", false, ns, iters, df, dfo, hf);
    run_stencil<128, 8>("pingpong", true, ns, iters, df, dfo, hf);
    run_stencil<1024, 8>("two_barrier", false, ns, iters, df, dfo, hf);
    run_stencil<1024, 8>("pingpong", true, ns, iters, df, dfo, hf);
  }
  run_multistage_all(ns);
  for (long long n : {1LL << 20, 16LL << 20, 256LL << 20}) run_devscan<128, 24>(n);
  printf("plain_kernels: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
