// Where does the kernel boundary's per-process move live? Fresh contexts in one
// process (cudaDeviceReset), several streams in one context, and the SM clock.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)
__global__ void empty_k() {}
__global__ void hold_k(const volatile int *gate) { while (*gate == 0) {} }
__global__ void clk_k(unsigned long long ns, unsigned long long *out) {
  unsigned long long t0, t1; long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1)); } while (t1 - t0 < ns);
  long long c1 = clock64();
  out[0] = c1 - c0; out[1] = t1 - t0;
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double q(std::vector<double> v, double f) { std::sort(v.begin(), v.end()); return v[(size_t)(f * (v.size() - 1))]; }
int main(int argc, char **argv) {
  int ctxs = argc > 1 ? atoi(argv[1]) : 6, proc = argc > 2 ? atoi(argv[2]) : 0;
  const int iters = 512, samples = 15, nstreams = 8;
  for (int c = 0; c < ctxs; ++c) {
    CK(cudaSetDevice(0)); CK(cudaFree(0));
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned long long *d; CK(cudaMalloc(&d, 16)); unsigned long long h[2];
    clk_k<<<1, 1>>>(2000000ull, d); CK(cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost));
    double mhz = (double)h[0] / (double)h[1] * 1e3;
    int *gate; CK(cudaHostAlloc(&gate, 4, cudaHostAllocMapped));
    cudaStream_t st[nstreams]; for (int i = 0; i < nstreams; ++i) CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    for (int w = 0; w < 2000; ++w) empty_k<<<sms, 32, 0, st[0]>>>(); CK(cudaDeviceSynchronize());
    for (int grid = 0; grid < 2; ++grid) {
      int blocks = grid ? sms * 32 : sms;
      std::vector<double> all;
      for (int i = 0; i < nstreams; ++i) {
        std::vector<double> v;
        for (int s = 0; s < samples; ++s) {
          *(volatile int *)gate = 0;
          hold_k<<<1, 1, 0, st[i]>>>(gate);
          CK(cudaEventRecord(e0, st[i]));
          for (int k = 0; k < iters; ++k) empty_k<<<blocks, 32, 0, st[i]>>>();
          CK(cudaEventRecord(e1, st[i]));
          __atomic_store_n(gate, 1, __ATOMIC_SEQ_CST);
          CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
          v.push_back(ms * 1e6 / iters); all.push_back(ms * 1e6 / iters);
        }
        printf("row,%d,%d,stream,%d,%d,%.1f,%.1f,%.1f,%.0f\n", proc, c, i, blocks, med(v), q(v, .25), q(v, .75), mhz);
      }
      printf("row,%d,%d,stream_all,-1,%d,%.1f,%.1f,%.1f,%.0f\n", proc, c, blocks, med(all), q(all, .25), q(all, .75), mhz);
    }
    // graph of 8192 nodes, unheld
    for (int grid = 0; grid < 2; ++grid) {
      int blocks = grid ? sms * 32 : sms, n = 8192;
      cudaGraph_t g; cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(st[0], cudaStreamCaptureModeThreadLocal));
      for (int k = 0; k < n; ++k) empty_k<<<blocks, 32, 0, st[0]>>>();
      CK(cudaStreamEndCapture(st[0], &g)); CK(cudaGraphInstantiate(&ge, g, 0));
      CK(cudaGraphLaunch(ge, st[0])); CK(cudaStreamSynchronize(st[0]));
      std::vector<double> v;
      for (int s = 0; s < 7; ++s) {
        CK(cudaEventRecord(e0, st[0])); CK(cudaGraphLaunch(ge, st[0])); CK(cudaEventRecord(e1, st[0]));
        CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); v.push_back(ms * 1e6 / n);
      }
      printf("row,%d,%d,graph,0,%d,%.1f,%.1f,%.1f,%.0f\n", proc, c, blocks, med(v), q(v, .25), q(v, .75), mhz);
      CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(g));
    }
    fflush(stdout);
    CK(cudaFreeHost(gate));
    CK(cudaDeviceReset());
  }
  return 0;
}
