// Racecheck calibration for `make sanitize`: five tiny kernels, each a
// hand-off of shared-memory data from warp 0 to warp 1 (64 threads), run
// one per process under compute-sanitizer's racecheck. Which ones racecheck
// flags tells whether its reports on a variant are bugs or blind spots:
//   racy             no synchronization at all: a real race, must be flagged
//   syncthreads      __syncthreads: race-free, must be clean
//   mbarrier         hardware mbarrier arrive + parity wait: race-free
//   atomic_flag      release fetch_add / acquire spin on a shared counter
//                    (cuda::atomic_ref): race-free by the PTX memory model
//   completion_barrier  cuda::barrier with a completion function (libcu++
//                    builds it from atomics, like atomic_flag): race-free
// Each kernel also checks what warp 1 read, so a wrong hand-off fails the
// run (exit 1) whatever racecheck says. Usage: racecheck_canary NAME.
#include <cuda/atomic>
#include <cuda/barrier>
#include <stdio.h>
#include <string.h>

// Built with -DSB_WATCHDOG=0: a stand-alone program, no harness to report to.
#include "../../kernels/common/mbarrier.cuh"

#define CANARY_THREADS 64

// Warp 0 publishes its lane ids + 1; warp 1 reads lane l's word.
__device__ __forceinline__ void canary_write(unsigned *s) {
  if (threadIdx.x < 32) s[threadIdx.x] = threadIdx.x + 1;
}
__device__ __forceinline__ void canary_check(const unsigned *s, unsigned *bad) {
  if (threadIdx.x >= 32 && s[threadIdx.x - 32] != threadIdx.x - 31) atomicAdd(bad, 1u);
}

__global__ void canary_racy(unsigned *bad) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  canary_write(s);
  // No barrier: warp 1 may or may not see warp 0's writes. Not checked.
  if (threadIdx.x >= 32 && s[threadIdx.x - 32] == 12345u) atomicAdd(bad, 0u);
}

__global__ void canary_syncthreads(unsigned *bad) {
  __shared__ unsigned s[32];
  canary_write(s);
  __syncthreads();
  canary_check(s, bad);
}

__global__ void canary_mbarrier(unsigned *bad) {
  __shared__ unsigned s[32];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x == 0) sb_mbar_init(&bar, CANARY_THREADS);
  __syncthreads();
  const uint32_t bar_a = sb_mbar_addr(&bar);
  canary_write(s);
  sb_mbar_arrive(bar_a);
  sb_mbar_wait_parity(bar_a, 0);
  canary_check(s, bad);
}

__global__ void canary_atomic_flag(unsigned *bad) {
  __shared__ unsigned s[32];
  __shared__ unsigned count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  cuda::atomic_ref<unsigned, cuda::thread_scope_block> c(count);
  if (threadIdx.x < 32) {
    canary_write(s);
    c.fetch_add(1u, cuda::memory_order_release);
  } else {
    while (c.load(cuda::memory_order_acquire) != 32u) {
    }
    canary_check(s, bad);
  }
}

struct CanaryNoop {
  __device__ void operator()() noexcept {}
};

__global__ void canary_completion_barrier(unsigned *bad) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ unsigned s[32];
  __shared__ cuda::barrier<cuda::thread_scope_block, CanaryNoop> bar;
  if (threadIdx.x == 0) init(&bar, CANARY_THREADS, CanaryNoop());
  __syncthreads();
  canary_write(s);
  bar.arrive_and_wait();
  canary_check(s, bad);
}

typedef void (*canary_kernel)(unsigned *);
static const struct {
  const char *name;
  canary_kernel kernel;
} canaries[] = {
    {"racy", canary_racy},
    {"syncthreads", canary_syncthreads},
    {"mbarrier", canary_mbarrier},
    {"atomic_flag", canary_atomic_flag},
    {"completion_barrier", canary_completion_barrier},
};

int main(int argc, char **argv) {
  const int count = (int)(sizeof canaries / sizeof canaries[0]);
  if (argc != 2) {
    fprintf(stderr, "usage: racecheck_canary NAME   (NAME: racy syncthreads mbarrier atomic_flag completion_barrier)\n");
    return 2;
  }
  for (int i = 0; i < count; ++i) {
    if (strcmp(argv[1], canaries[i].name) != 0) continue;
    unsigned *bad = NULL, host_bad = 0;
    cudaError_t e = cudaMalloc(&bad, sizeof *bad);
    if (e == cudaSuccess) e = cudaMemset(bad, 0, sizeof *bad);
    if (e == cudaSuccess) {
      canaries[i].kernel<<<1, CANARY_THREADS>>>(bad);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(&host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      fprintf(stderr, "racecheck_canary %s: %s\n", argv[1], cudaGetErrorString(e));
      return 3;
    }
    printf("racecheck_canary %s: %u wrong reads\n", argv[1], host_bad);
    return host_bad == 0 ? 0 : 1;
  }
  fprintf(stderr, "racecheck_canary: unknown canary '%s'\n", argv[1]);
  return 2;
}
