// Reference family: the bandwidth every run measures first.
//   d2d_copy     cudaMemcpyAsync device to device: the yardstick (SB_VF_YARDSTICK)
//                for every other row's pct_of_copy (bytes read + bytes written per
//                second). No kernel of ours: the copy engine / driver does it, so
//                there is no occupancy or resource usage to report.
//   vector_copy  what a plain kernel reaches on the same bytes: a grid-stride copy
//                of 16-byte vectors, its own pct_of_copy against d2d_copy, so a
//                pipeline or a scan can be set against a kernel, not only the
//                driver's copy.
#include <stdint.h>

#include "../common/launch.cuh"

static cudaError_t reference_d2d_copy(sb_launch *L) {
  const size_t bytes = (size_t)L->axis[SB_AXIS_N] * sizeof(float);
  if (L->query) {
    L->grid_blocks = 0;
    L->blocks_per_sm = -1;
    L->smem_bytes = 0;
    return cudaSuccess;
  }
  return cudaMemcpyAsync(L->out, L->in, bytes, cudaMemcpyDeviceToDevice, L->stream);
}

// ---- vector_copy ----

// 256 threads a block, as many blocks as are resident (SMs x occupancy),
// VC_UNROLL vectors loaded by each thread before it stores them (64 bytes
// in flight a thread), consecutive threads on consecutive vectors.
#define VC_BLOCK 256
#define VC_UNROLL 4

struct VcParams {
  const uint4 *in;
  uint4 *out;
  long long vecs;  // whole 16-byte vectors: n / 4
  long long n;     // words; the last n mod 4 are copied one by one
};

__global__ void __launch_bounds__(VC_BLOCK) reference_vector_copy_kernel(const VcParams p) {
  const long long stride = (long long)gridDim.x * VC_BLOCK;
  const long long me = (long long)blockIdx.x * VC_BLOCK + threadIdx.x;
  long long i = me;
  for (; i + (VC_UNROLL - 1) * stride < p.vecs; i += VC_UNROLL * stride) {
    uint4 v[VC_UNROLL];
#pragma unroll
    for (int u = 0; u < VC_UNROLL; ++u) v[u] = p.in[i + u * stride];
#pragma unroll
    for (int u = 0; u < VC_UNROLL; ++u) p.out[i + u * stride] = v[u];
  }
  for (; i < p.vecs; i += stride) p.out[i] = p.in[i];
  const long long w = p.vecs * 4 + me;  // the ragged end: at most 3 words
  if (w < p.n)
    reinterpret_cast<uint32_t *>(p.out)[w] = reinterpret_cast<const uint32_t *>(p.in)[w];
}

static int reference_vector_copy_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  (void)axis, (void)why, (void)len;
  *k = sb_twin_kernels<false>([](auto) { return reference_vector_copy_kernel; }, 0);
  return 0;
}

static cudaError_t reference_vector_copy(sb_launch *L) {
  const long long n = L->axis[SB_AXIS_N];
  const VcParams p = {(const uint4 *)L->in, (uint4 *)L->out, n / 4, n};
  sb_shape s;
  s.grid = SB_GRID_PERSISTENT;
  s.work = sb_ceil_div(n / 4 > 0 ? n / 4 : 1, VC_BLOCK);  // no block without a vector
  s.block = VC_BLOCK;
  return sb_launch_params(L, s, p);
}

static const sb_variant reference_rows[] = {
    {"d2d_copy", reference_d2d_copy, NULL, 0, SB_VF_NO_KERNEL | SB_VF_YARDSTICK,
     "cudaMemcpyAsync device to device: the bandwidth yardstick"},
    {"vector_copy", reference_vector_copy, reference_vector_copy_pick, 0, 0,
     "grid-stride copy of 16-byte vectors, 4 in flight a thread, resident grid: what a kernel reaches"},
};
extern "C" const sb_variant_table sb_reference_variants = {
    reference_rows, sizeof reference_rows / sizeof reference_rows[0]};
