// Measures the SM clock the GPU is running at right now: clock64() ticks
// against %globaltimer nanoseconds over a short spin. Run right after a
// point's samples, it tells whether they ran at full clock.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "../../harness/launch.h"  // its declarations: sb_measure_sm_clock, sb_clock_witness

__device__ __forceinline__ unsigned long long sb_globaltimer_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void sb_clock_kernel(unsigned long long spin_ns, double *mhz) {
  const unsigned long long t0 = sb_globaltimer_ns();
  const long long c0 = clock64();
  unsigned long long t1;
  do {
    t1 = sb_globaltimer_ns();
  } while (t1 - t0 < spin_ns);
  const long long c1 = clock64();
  *mhz = (double)(c1 - c0) * 1e3 / (double)(t1 - t0);
}

extern "C" cudaError_t sb_measure_sm_clock(cudaStream_t stream, double *mhz) {
  double *d = NULL;
  cudaError_t e = cudaMallocAsync((void **)&d, sizeof *d, stream);
  if (e != cudaSuccess) return e;
  sb_clock_kernel<<<1, 1, 0, stream>>>(200000ull, d);  // 200 us spin
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpyAsync(mhz, d, sizeof *d, cudaMemcpyDeviceToHost, stream);
  cudaFreeAsync(d, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  return e;
}

// The clock witness (harness/timing.c): the same spin, shorter, launched
// between samples outside the CUDA events; it writes its reading to mapped
// pinned host memory, which the timer reads once the next sample's stop
// event has completed, so it adds no synchronization of its own.
extern "C" cudaError_t sb_clock_witness(cudaStream_t stream, unsigned long long spin_ns,
                                        double *mapped_mhz) {
  sb_clock_kernel<<<1, 1, 0, stream>>>(spin_ns, mapped_mhz);
  return cudaGetLastError();
}

// The stream hold: launches enqueued behind it wait until the host opens
// the gate, so they run back to back at the GPU's own pace however fast the
// host issued them. Bounded: a host stuck in a launch (a queue too full to
// take the sample) cannot open the gate, so after timeout_ns the hold gives
// up and says so in *timed_out; the sample is then refused.
__global__ void sb_hold_kernel(const volatile int *gate, int *timed_out, unsigned long long timeout_ns) {
  const unsigned long long t0 = sb_globaltimer_ns();
  while (*gate == 0) {
    if (sb_globaltimer_ns() - t0 > timeout_ns) {
      *(volatile int *)timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

extern "C" cudaError_t sb_stream_hold(cudaStream_t stream, const volatile int *gate, int *timed_out,
                                      unsigned long long timeout_ns) {
  sb_hold_kernel<<<1, 1, 0, stream>>>(gate, timed_out, timeout_ns);
  return cudaGetLastError();
}

// The context probe (harness/timing.c): `launches` empty kernels of `blocks`
// x 32 threads back to back in `stream`, the kernel-boundary rows' own
// sequence, by which the timer picks the context those rows are timed in.
__global__ void sb_empty_kernel() {}

extern "C" cudaError_t sb_empty_launches(cudaStream_t stream, int blocks, int launches) {
  for (int i = 0; i < launches; ++i) sb_empty_kernel<<<blocks, 32, 0, stream>>>();
  return cudaGetLastError();
}

// The grid-barrier probe (harness/timing.c): `syncs` cooperative-groups grid
// barriers in one cooperative launch of `threads`-thread blocks, `per_sm` an
// SM (0: as many as are co-resident; at 1024 threads two an SM,
// barrier/grid_sync's full-occupancy row). The barrier's word lies in the
// workspace the driver gives each context, and what one costs moved with the
// process's context (likeliest: where that word falls in the L2), so the
// worker's context is chosen by it too.
__global__ void sb_grid_barrier_kernel(int syncs) {
  cooperative_groups::grid_group g = cooperative_groups::this_grid();
  for (int i = 0; i < syncs; ++i) g.sync();
}

extern "C" cudaError_t sb_grid_barriers(cudaStream_t stream, int sms, int threads, int per_sm, int syncs) {
  if (per_sm == 0) {
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sb_grid_barrier_kernel, threads, 0);
    if (e != cudaSuccess) return e;
    if (per_sm < 1) return cudaErrorCooperativeLaunchTooLarge;
  }
  void *args[] = {&syncs};
  return cudaLaunchCooperativeKernel((const void *)sb_grid_barrier_kernel, dim3(sms * per_sm), dim3(threads), args,
                                     0, stream);
}
