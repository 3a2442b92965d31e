// The L2 flush before each sample (harness/timing.c): the L2 emptied of the
// last sample's data by reading, not writing, a buffer twice its size, so
// that it holds clean lines only and the timed launch that follows writes
// nothing back on the flush's behalf. SB_FLUSH=memset overwrites the buffer
// instead (nvbench's flush), which leaves up to an L2 of dirty lines behind.
#include <cuda_runtime.h>
#include <stdint.h>

#include "../../harness/launch.h"  // its declaration: sb_l2_flush_read

__global__ void sb_l2_flush_read_kernel(const uint4 *buf, size_t n, unsigned *sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // never in practice: the loads stay live
}

extern "C" cudaError_t sb_l2_flush_read(cudaStream_t stream, const void *buf, size_t bytes, unsigned blocks) {
  sb_l2_flush_read_kernel<<<blocks, 512, 0, stream>>>(
      (const uint4 *)buf, bytes / sizeof(uint4), (unsigned *)buf);
  return cudaGetLastError();
}
