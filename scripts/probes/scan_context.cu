// Does a short scan's time follow the context and the stream it is launched
// on? Fresh contexts in one process (cudaDeviceReset), 8 streams each: per
// stream, the empty-launch pace (512 held launches), CUB's 1M-int inclusive
// scan and a one-kernel copy of 1M ints, each timed by events after an L2
// flush (as the harness does), the copy also by its own globaltimer reads
// (first block's start to last block's end).
// nvcc -O3 -arch=sm_90a -o scan_context scan_context.cu ; ./scan_context [contexts] [process]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)
__global__ void empty_k() {}
__global__ void hold_k(const volatile int *gate) { while (*gate == 0) {} }
__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__global__ void copy_k(const int4 *in, int4 *out, size_t n4, unsigned long long *span) {
  if (threadIdx.x == 0) atomicMin(&span[0], gtime());
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&span[1], gtime());
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char **argv) {
  int ctxs = argc > 1 ? atoi(argv[1]) : 6, proc = argc > 2 ? atoi(argv[2]) : 0;
  const int nstreams = 8, samples = 21, iters = 512;
  const size_t n = 1 << 20;
  printf("what,process,context,stream,pace_ns,cub_us,cub_held_us,copy_us,copy_device_us\n");
  for (int c = 0; c < ctxs; ++c) {
    CK(cudaSetDevice(0)); CK(cudaFree(0));
    int sms, l2; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t flush_bytes = 2 * (size_t)l2;
    void *flush; CK(cudaMalloc(&flush, flush_bytes));
    int *in, *out; CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMemset(in, 1, n * 4));
    unsigned long long *span; CK(cudaMalloc(&span, 16));
    size_t tb = 0; CK(cub::DeviceScan::InclusiveSum(nullptr, tb, in, out, (int)n));
    void *tmp; CK(cudaMalloc(&tmp, tb));
    int *gate; CK(cudaHostAlloc(&gate, 4, cudaHostAllocMapped));
    cudaStream_t st[nstreams]; for (int i = 0; i < nstreams; ++i) CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    for (int w = 0; w < 2000; ++w) empty_k<<<sms, 32, 0, st[0]>>>(); CK(cudaDeviceSynchronize());
    for (int i = 0; i < nstreams; ++i) {
      cudaStream_t s = st[i];
      std::vector<double> pace, cubv, cubh, copyv, copyd;
      for (int k = 0; k < samples; ++k) {
        float ms;
        *(volatile int *)gate = 0;
        hold_k<<<1, 1, 0, s>>>(gate);
        CK(cudaEventRecord(e0, s));
        for (int j = 0; j < iters; ++j) empty_k<<<sms, 32, 0, s>>>();
        CK(cudaEventRecord(e1, s));
        __atomic_store_n(gate, 1, __ATOMIC_SEQ_CST);
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); pace.push_back(ms * 1e6 / iters);
        for (int held = 0; held < 2; ++held) {
          CK(cudaMemsetAsync(flush, k & 0xff, flush_bytes, s));
          if (held) { *(volatile int *)gate = 0; hold_k<<<1, 1, 0, s>>>(gate); }
          CK(cudaEventRecord(e0, s));
          CK(cub::DeviceScan::InclusiveSum(tmp, tb, in, out, (int)n, s));
          CK(cudaEventRecord(e1, s));
          if (held) __atomic_store_n(gate, 1, __ATOMIC_SEQ_CST);
          CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1));
          (held ? cubh : cubv).push_back(ms * 1e3);
        }
        unsigned long long init[2] = {~0ull, 0}, got[2];
        CK(cudaMemcpyAsync(span, init, 16, cudaMemcpyHostToDevice, s));
        CK(cudaMemsetAsync(flush, k & 0xff, flush_bytes, s));
        CK(cudaEventRecord(e0, s));
        copy_k<<<sms * 4, 256, 0, s>>>((const int4 *)in, (int4 *)out, n / 4, span);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); copyv.push_back(ms * 1e3);
        CK(cudaMemcpy(got, span, 16, cudaMemcpyDeviceToHost)); copyd.push_back((got[1] - got[0]) * 1e-3);
      }
      printf("row,%d,%d,%d,%.1f,%.3f,%.3f,%.3f,%.3f\n", proc, c, i, med(pace), med(cubv), med(cubh), med(copyv), med(copyd));
    }
    fflush(stdout);
    CK(cudaDeviceReset());
  }
  return 0;
}
