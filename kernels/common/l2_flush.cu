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

// SB_FLUSH=discard: after the read, every 128-byte line of the buffer is
// discarded from the L2 (PTX discard.global.L2: invalidated, nothing written
// back), so the timed launch starts on an L2 that holds none of the flush's
// lines either. The buffer's contents are indeterminate afterwards; the read
// only folds them into a value it never keeps.
__global__ void sb_l2_discard_kernel(const char *buf, size_t lines) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines; i += (size_t)gridDim.x * blockDim.x)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + 128 * i) : "memory");
}

extern "C" cudaError_t sb_l2_discard(cudaStream_t stream, const void *buf, size_t bytes, unsigned blocks) {
  sb_l2_discard_kernel<<<blocks, 512, 0, stream>>>((const char *)buf, bytes / 128);
  return cudaGetLastError();
}

extern "C" cudaError_t sb_l2_flush_read(cudaStream_t stream, const void *buf, size_t bytes, unsigned blocks) {
  sb_l2_flush_read_kernel<<<blocks, 512, 0, stream>>>(
      (const uint4 *)buf, bytes / sizeof(uint4), (unsigned *)buf);
  return cudaGetLastError();
}
