// The plainest versions of both sides: stand-alone scan and 1D stencil
// kernels, two_barrier and pingpong, written the way a person would write
// them in a few lines, timed in the same run as the syncbench sweep. They
// are the yardstick for issue 12 (kernel fidelity): a syncbench variant
// slower than its plain twin measures its own overhead, not its barriers.
//
// Same work as the families: scan = `iters` inclusive scans (mod 2^32) of
// each block's tile of B words; stencil = `iters` Jacobi steps of the 3-point
// mean over each tile of B*E floats (element k*B + t), tile edges averaging
// their in-tile neighbours only. Outputs are checked against a CPU reference
// (scan exactly, stencil within 1e-4 relative) before anything is timed.
//
//   make plain && build/plain_kernels [--quick]
// Prints one line per case: kernel, B, E, iters, n, median us of 20 runs.
// Exit status 1 if any check failed. No Google Benchmark, no watchdog.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
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
  CK(cudaMemset(d_out, 0xA5, (size_t)n * 4));
  launch();
  CK(cudaGetLastError());
  std::vector<float> got(n);
  std::vector<double> want(n);
  CK(cudaMemcpy(got.data(), d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
  cpu_stencil(h_in.data(), want.data(), n, B * E, iters);
  long long bad = 0;
  for (long long i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= 1e-4 * fabs(want[i]) + 1e-6)) ++bad;
  failures += bad != 0;
  printf("stencil/%-9s B=%4d E=%d iters=%3d n=%lld  %s  %.1f us\n", name, B, E, iters, n,
         bad ? "WRONG" : "ok   ", bad ? NAN : median_us(launch));
}

int main(int argc, char **argv) {
  const bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  const long long ns = quick ? (1LL << 20) + 3 : 16LL << 20, nscan = quick ? 1LL << 20 : 32LL << 20;
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
  printf("plain_kernels: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
