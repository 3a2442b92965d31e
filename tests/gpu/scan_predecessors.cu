// Issue 12's first criterion, measured in one run: syncbench's compiled scan
// kernels (kernels/families/scan.cu, included as is) beside their runtime-generic
// predecessors of commit e917ed3 (copied verbatim below, block size and
// loop bounds read at run time, in/out __restrict__), at every point of the
// default sweep's scan grid. Each output is checked exactly against
// syncbench's CPU reference (bench/scan.c) before it is timed; the timing
// is the median of 20 launches (cudaEvent), old and new interleaved per
// point so drift hits both.
//
//   make predecessors && build/scan_predecessors
// One line per point: variant, B, iters, old us, new us, new/old.
// Exit status 1 if any output was wrong. No Google Benchmark.
#include "../../kernels/families/scan.cu"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

// syncbench's own CPU reference (bench/scan.c, linked in by the Makefile).
extern "C" void sb_scan_reference(const uint32_t *in, uint32_t *out, size_t n, size_t tile, int iters);

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "scan_predecessors: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,    \
              cudaGetErrorString(e_));                                                 \
      exit(3);                                                                         \
    }                                                                                  \
  } while (0)

// ---- e917ed3's kernels/families/scan.cu, verbatim but for the names ----

#define OLD_SCAN_ARGS const uint32_t *__restrict__ in, uint32_t *__restrict__ out, long long n, int iters

__device__ __forceinline__ long long old_scan_index(void) {
  return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__global__ void old_scan_two_barrier_kernel(OLD_SCAN_ARGS) {
  extern __shared__ uint32_t tile[];
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = old_scan_index();
  uint32_t v = g < n ? in[g] : 0u;
  tile[t] = v;
  __syncthreads();
  for (int it = 0; it < iters; ++it)
    for (int off = 1; off < size; off <<= 1) {
      uint32_t add = t >= off ? tile[t - off] : 0u;
      __syncthreads();
      v += add;
      tile[t] = v;
      __syncthreads();
    }
  if (g < n) out[g] = v;
}

__global__ void old_scan_pingpong_kernel(OLD_SCAN_ARGS) {
  extern __shared__ uint32_t buf[];
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = old_scan_index();
  uint32_t v = g < n ? in[g] : 0u;
  buf[t] = v;
  __syncthreads();
  int cur = 0;
  for (int it = 0; it < iters; ++it)
    for (int off = 1; off < size; off <<= 1) {
      const uint32_t *src = buf + cur * size;
      if (t >= off) v += src[t - off];
      buf[(cur ^ 1) * size + t] = v;
      __syncthreads();
      cur ^= 1;
    }
  if (g < n) out[g] = v;
}

__global__ void old_scan_mbarrier_kernel(OLD_SCAN_ARGS) {
  extern __shared__ uint32_t buf[];
  __shared__ __align__(8) uint64_t bar;
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = old_scan_index();
  if (t == 0) sb_mbar_init(&bar, size);
  uint32_t v = g < n ? in[g] : 0u;
  buf[t] = v;
  __syncthreads();
  const uint32_t bar_a = sb_mbar_addr(&bar);
  uint32_t parity = 0;
  int cur = 0;
  for (int it = 0; it < iters; ++it)
    for (int off = 1; off < size; off <<= 1) {
      const uint32_t *src = buf + cur * size;
      if (t >= off) v += src[t - off];
      buf[(cur ^ 1) * size + t] = v;
      sb_mbar_arrive(bar_a);
      sb_mbar_wait_parity<false>(bar_a, parity);
      parity ^= 1;
      cur ^= 1;
    }
  if (g < n) out[g] = v;
}

__global__ void old_scan_warp_shuffle_kernel(OLD_SCAN_ARGS) {
  __shared__ uint32_t totals[2][32];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int warps = blockDim.x >> 5;
  const long long g = old_scan_index();
  uint32_t v = g < n ? in[g] : 0u;
  for (int it = 0; it < iters; ++it) {
    for (int off = 1; off < 32; off <<= 1) {
      uint32_t y = __shfl_up_sync(0xffffffffu, v, off);
      if (lane >= off) v += y;
    }
    if (warps > 1) {
      uint32_t *tot = totals[it & 1];
      if (lane == 31) tot[warp] = v;
      __syncthreads();
      if (warp == 0) {
        uint32_t w = lane < warps ? tot[lane] : 0u;
        for (int off = 1; off < 32; off <<= 1) {
          uint32_t y = __shfl_up_sync(0xffffffffu, w, off);
          if (lane >= off) w += y;
        }
        if (lane < warps) tot[lane] = w;
      }
      __syncthreads();
      if (warp > 0) v += tot[warp - 1];
    }
  }
  if (g < n) out[g] = v;
}

typedef void (*old_kernel)(const uint32_t *, uint32_t *, long long, int);

// ---- host ----

static int failures = 0;

// Checks one launch's output against `want` (output poisoned first).
template <class F>
static bool check(F launch, uint32_t *d_out, long long n, const std::vector<uint32_t> &want) {
  CK(cudaMemset(d_out, 0xA5, (size_t)n * 4));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<uint32_t> got(n);
  CK(cudaMemcpy(got.data(), d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
  return got == want;
}

// Medians of 20 launches of a and b, alternating a, b, a, b, ...
template <class A, class B>
static void median_pair(A a, B b, double *ua, double *ub) {
  cudaEvent_t e[3];
  for (auto &x : e) CK(cudaEventCreate(&x));
  for (int i = 0; i < 3; ++i) a(), b();
  CK(cudaDeviceSynchronize());
  std::vector<float> ta, tb;
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(e[0]));
    a();
    CK(cudaEventRecord(e[1]));
    b();
    CK(cudaEventRecord(e[2]));
    CK(cudaEventSynchronize(e[2]));
    float m0, m1;
    CK(cudaEventElapsedTime(&m0, e[0], e[1]));
    CK(cudaEventElapsedTime(&m1, e[1], e[2]));
    ta.push_back(m0);
    tb.push_back(m1);
  }
  for (auto &x : e) CK(cudaEventDestroy(x));
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  *ua = 1000.0 * ta[ta.size() / 2];
  *ub = 1000.0 * tb[tb.size() / 2];
}

template <class V, int B>
static void run_point(const char *name, old_kernel old, int old_buffers, long long n, int iters,
                      const uint32_t *d_in, uint32_t *d_out, const std::vector<uint32_t> &want) {
  const unsigned grid = (unsigned)((n + B - 1) / B);
  const ScanParams p = {d_in, d_out, n, iters};
  auto fresh = [&] { scan_kernel<V, B, false><<<grid, B>>>(p); };
  auto prev = [&] { old<<<grid, B, (size_t)old_buffers * B * 4>>>(d_in, d_out, n, iters); };
  const bool ok_new = check(fresh, d_out, n, want), ok_old = check(prev, d_out, n, want);
  failures += !ok_new + !ok_old;
  double uo = NAN, un = NAN;
  if (ok_new && ok_old) median_pair(prev, fresh, &uo, &un);
  printf("scan/%-12s B=%4d iters=%2d  old %s %9.2f us  new %s %9.2f us  new/old %.3f\n", name, B,
         iters, ok_old ? "ok" : "WRONG", uo, ok_new ? "ok" : "WRONG", un, un / uo);
  fflush(stdout);
}

template <int B>
static void run_block(long long n, const int *iters, int n_iters, const uint32_t *d_in,
                      uint32_t *d_out, const std::vector<uint32_t> &h_in) {
  std::vector<uint32_t> want(n);
  for (int i = 0; i < n_iters; ++i) {
    sb_scan_reference(h_in.data(), want.data(), (size_t)n, B, iters[i]);
    run_point<ScanTwoBarrier, B>("two_barrier", old_scan_two_barrier_kernel, 1, n, iters[i], d_in,
                                 d_out, want);
    run_point<ScanPingpong, B>("pingpong", old_scan_pingpong_kernel, 2, n, iters[i], d_in, d_out,
                               want);
    run_point<ScanMbarrier, B>("mbarrier", old_scan_mbarrier_kernel, 2, n, iters[i], d_in, d_out,
                               want);
    run_point<ScanWarpShuffle, B>("warp_shuffle", old_scan_warp_shuffle_kernel, 0, n, iters[i],
                                  d_in, d_out, want);
  }
}

int main(int argc, char **argv) {
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int dev_count = 0;
  if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
    fprintf(stderr, "scan_predecessors: no CUDA device\n");
    return 2;
  }
  // The default sweep's scan grid (bench/scan.c): n = 32M, iters 1..64.
  const long long n = quick ? (1ll << 20) + 77 : 1ll << 25;
  const int iters[] = {1, 4, 16, 64};
  const int n_iters = quick ? 2 : 4;
  std::vector<uint32_t> h_in(n);
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (auto &x : h_in) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x = (uint32_t)s;
  }
  uint32_t *d_in, *d_out;
  CK(cudaMalloc(&d_in, (size_t)n * 4));
  CK(cudaMalloc(&d_out, (size_t)n * 4));
  CK(cudaMemcpy(d_in, h_in.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
  run_block<32>(n, iters, n_iters, d_in, d_out, h_in);
  run_block<64>(n, iters, n_iters, d_in, d_out, h_in);
  run_block<128>(n, iters, n_iters, d_in, d_out, h_in);
  run_block<256>(n, iters, n_iters, d_in, d_out, h_in);
  run_block<512>(n, iters, n_iters, d_in, d_out, h_in);
  run_block<1024>(n, iters, n_iters, d_in, d_out, h_in);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  printf("scan_predecessors: %s\n", failures ? "WRONG outputs" : "all outputs exact");
  return failures ? 1 : 0;
}
