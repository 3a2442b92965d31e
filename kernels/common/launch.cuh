// The one launcher of the kernel layer (the contract: harness/launch.h).
//
// A family's launcher reads its axes into one parameter struct P (every
// kernel of a family takes exactly one P by value) and a launch shape, and
// hands both to sb_launch_params. In query mode that picks the variant's
// compiled kernels for the point, raises their shared-memory limit, reads
// their resources and occupancy once, and resolves the grid; afterwards it
// only launches what the query chose: the bounded kernel for the validating
// launch, the raw one for warm-up and timed launches.
//
// Pickers come from sb_pick<...> below: a variant is a struct whose
// template `kernel<Shape..., Bounded>` names its __global__ instantiation,
// and the values a sweep may ask for are listed once, as compile-time lists.
#ifndef SB_KERNELS_LAUNCH_CUH
#define SB_KERNELS_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include <type_traits>

#include "../../harness/launch.h"

static inline long long sb_ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// ---- launch numbering (gemm's split-K and stream-K words, devscan's single pass) ----
// Words a launch leaves behind (counters, tickets, flags) are zeroed once, by
// the point's query, and never inside a timed launch: launch e since the
// query (1, 2, ...) finds a word that takes per_launch arrivals or tickets
// a launch at (e - 1) per_launch. A difference mod 2^32: it may wrap.
__device__ __forceinline__ unsigned sb_epoch_begin(unsigned epoch, unsigned per_launch) {
  return (epoch - 1u) * per_launch;
}

// ---- launch shape ----

// grid == SB_GRID_PERSISTENT: as many blocks as are resident at once
// (SMs x blocks/SM, or SMs with one_per_sm), capped at `work` blocks.
#define SB_GRID_PERSISTENT 0LL

struct sb_shape {
  long long grid = 1;  // blocks, or SB_GRID_PERSISTENT
  long long work = 0;  // persistent grids: cap (blocks' worth of work); 0: none
  int block = 1;
  bool one_per_sm = false;  // persistent: one block per SM even if more fit
  int cluster = 1;          // >1: clusters of this many blocks (grid rounded down to whole clusters)
  bool cooperative = false;
  size_t min_smem = 0;      // pad the dynamic shared memory up to this (occupancy control)
};

// Reads a kernel's resources and, above the 48 KB default, raises its
// dynamic shared-memory limit to what the point needs (when the device has
// it: otherwise occupancy reads 0 and the point becomes a skipped row).
static inline cudaError_t sb_prepare_kernel(const void *kernel, size_t smem, int optin,
                                            cudaFuncAttributes *attr) {
  cudaError_t e = cudaFuncGetAttributes(attr, kernel);
  if (e != cudaSuccess) return e;
  if (smem > 48 * 1024 && smem + attr->sharedSizeBytes <= (size_t)optin)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  return e;
}

// The clusters of `ctas` blocks (`block` threads, `smem` bytes of dynamic
// shared memory each) of `kernel` the device holds at once
// (cudaOccupancyMaxActiveClusters: a GPC holds whole clusters, so it can be
// fewer than SMs / ctas); 0 where the query fails or none fits. Raises the
// kernel's dynamic shared-memory limit first, as a launch would.
static inline int sb_clusters_at_once(const void *kernel, size_t smem, int block, int ctas) {
  int dev = 0, optin = 0, n = 0;
  cudaFuncAttributes attr;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1];
  cfg.gridDim = dim3((unsigned)ctas);
  cfg.blockDim = dim3((unsigned)block);
  cfg.dynamicSmemBytes = smem;
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = (unsigned)ctas;
  at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
      sb_prepare_kernel(kernel, smem, optin, &attr) != cudaSuccess ||
      cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

static inline void sb_launch_attrs(const sb_launch *L, cudaLaunchConfig_t *cfg,
                                   cudaLaunchAttribute *attr) {
  cfg->numAttrs = 0;
  cfg->attrs = attr;
  if (L->cooperative) {
    attr[cfg->numAttrs].id = cudaLaunchAttributeCooperative;
    attr[cfg->numAttrs++].val.cooperative = 1;
  }
  if (L->cluster > 1) {
    attr[cfg->numAttrs].id = cudaLaunchAttributeClusterDimension;
    attr[cfg->numAttrs].val.clusterDim.x = (unsigned)L->cluster;
    attr[cfg->numAttrs].val.clusterDim.y = attr[cfg->numAttrs].val.clusterDim.z = 1;
    ++cfg->numAttrs;
  }
}

// Query mode: pick, prepare both kernels, occupancy, grid.
// pick: the kernels to query, if not the row's own (a launcher that runs
// another variant's kernel for some points: stream-K's data-parallel case).
static inline cudaError_t sb_launch_query(sb_launch *L, const sb_shape &s, sb_pick_fn pick = nullptr) {
  L->skip[0] = '\0';
  L->block_threads = s.block;
  L->cluster = s.cluster;
  L->cooperative = s.cooperative;
  sb_kernels k = {};
  if ((pick ? pick : L->variant->pick)(L->axis, &k, L->skip, sizeof L->skip) != 0) {
    if (!L->skip[0]) snprintf(L->skip, sizeof L->skip, "no compiled kernel for this point");
    return cudaSuccess;
  }
  if (k.smem < s.min_smem) k.smem = s.min_smem;
  L->kernels = k;
  L->raw_twin = k.bounded != k.raw;
  int dev = 0, sms = 0, optin = 0;
  cudaError_t e;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
      (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
      (e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) !=
          cudaSuccess)
    return e;
  cudaFuncAttributes attr;
  if (L->raw_twin && (e = sb_prepare_kernel(k.bounded, k.smem, optin, &attr)) != cudaSuccess)
    return e;
  if ((e = sb_prepare_kernel(k.raw, k.smem, optin, &attr)) != cudaSuccess) return e;
  L->regs_per_thread = attr.numRegs;
  L->local_bytes = (int)attr.localSizeBytes;
  L->ptx_version = attr.ptxVersion;
  L->binary_version = attr.binaryVersion;
  L->smem_bytes = k.smem + attr.sharedSizeBytes;

  int per_sm = 0;
  if (s.block <= attr.maxThreadsPerBlock && L->smem_bytes <= (size_t)optin) {
    if (s.cluster > 1) {
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute at[2];
      cfg.gridDim = dim3((unsigned)s.cluster);
      cfg.blockDim = dim3((unsigned)s.block);
      cfg.dynamicSmemBytes = k.smem;
      sb_launch_attrs(L, &cfg, at);
      int clusters = 0;
      e = cudaOccupancyMaxActiveClusters(&clusters, k.raw, &cfg);
      if (e == cudaSuccess) per_sm = clusters * s.cluster / (sms > 0 ? sms : 1);
      if (e == cudaSuccess && per_sm == 0 && clusters > 0) per_sm = 1;
      if (e == cudaSuccess && clusters == 0)  // the launch would fail: say why (the runner's skipped row)
        snprintf(L->skip, sizeof L->skip,
                 "cannot launch: no cluster of %d blocks (%d threads, %zu B shared memory each) fits on "
                 "the GPU at once (cudaOccupancyMaxActiveClusters = 0)",
                 s.cluster, s.block, L->smem_bytes);
      if (e == cudaSuccess && clusters > 0) {
        long long grid = s.grid == SB_GRID_PERSISTENT ? (long long)clusters * s.cluster : s.grid;
        if (s.grid == SB_GRID_PERSISTENT && s.work > 0 && s.work < grid) grid = s.work;
        grid = grid / s.cluster * s.cluster;
        // A persistent grid is what is resident at once; a grid of work
        // (one block per tile) runs in waves of clusters, so it is not capped.
        if (s.grid == SB_GRID_PERSISTENT && grid > (long long)clusters * s.cluster)
          grid = (long long)clusters * s.cluster;
        if (grid > 0x7fffffffLL) grid = 0;
        L->grid_blocks = (int)grid;
      }
    } else {
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.raw, s.block, k.smem);
    }
    if (e != cudaSuccess) return e;
  }
  L->blocks_per_sm = per_sm;
  if (per_sm == 0) return cudaSuccess;  // the runner makes it a skipped row
  if (s.cluster > 1) return L->grid_blocks > 0 ? cudaSuccess : cudaErrorInvalidConfiguration;
  long long grid = s.grid;
  if (grid == SB_GRID_PERSISTENT) {
    grid = (long long)(s.one_per_sm ? 1 : per_sm) * sms;
    if (s.work > 0 && s.work < grid) grid = s.work;
  }
  if (grid < 1 || grid > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  L->grid_blocks = (int)grid;
  return cudaSuccess;
}

// Launch mode: what the query chose, and nothing else.
static inline cudaError_t sb_launch_go(sb_launch *L, void **args) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[2];
  cfg.gridDim = dim3((unsigned)L->grid_blocks);
  cfg.blockDim = dim3((unsigned)L->block_threads);
  cfg.dynamicSmemBytes = L->kernels.smem;
  cfg.stream = L->stream;
  sb_launch_attrs(L, &cfg, attr);
  const void *kernel = L->bounded ? L->kernels.bounded : L->kernels.raw;
  cudaError_t e = cudaLaunchKernelExC(&cfg, kernel, args);
  return e == cudaSuccess ? cudaGetLastError() : e;
}

// The launcher every family calls: query or launch, with one parameter struct.
template <class P>
static inline cudaError_t sb_launch_params(sb_launch *L, const sb_shape &s, const P &params) {
  if (L->query) return sb_launch_query(L, s);
  if (L->skip[0] || L->blocks_per_sm == 0) return cudaErrorInvalidConfiguration;
  void *args[] = {const_cast<P *>(&params)};
  return sb_launch_go(L, args);
}

// ---- pickers: compile-time shapes ----

// A compile-time list of the values one axis is instantiated for.
template <int... V>
struct sb_values {
  static constexpr int count = sizeof...(V);
};

// Calls f(std::integral_constant<int, V>{}) for the listed V equal to v.
// Returns false when v is not listed.
template <int... V, class F>
static inline bool sb_dispatch(long long v, sb_values<V...>, F &&f) {
  return ((v == V ? (f(std::integral_constant<int, V>{}), true) : false) || ...);
}

// "32,64,128": the list, for skip reasons.
template <int... V>
static inline void sb_values_str(sb_values<V...>, char *buf, size_t len) {
  int w = 0;
  buf[0] = '\0';
  ((w += snprintf(buf + w, w < (int)len ? len - (size_t)w : 0, "%s%d", w ? "," : "", V)), ...);
}

// "block_threads=96 has no compiled kernel (compiled: 32,64,...)".
template <class List>
static inline int sb_no_instance(const char *axis, long long v, char *why, size_t len) {
  char list[160];
  sb_values_str(List{}, list, sizeof list);
  snprintf(why, len, "%s=%lld has no compiled kernel (compiled: %s)", axis, v, list);
  return -1;
}

// The kernels of a variant at one instantiation: mbarrier variants (Twin)
// validate with their <Bounded = true> kernel and time the <false> one;
// the others compile once.
template <bool Twin, class KernelOf>
static inline sb_kernels sb_twin_kernels(KernelOf kernel_of, size_t smem) {
  sb_kernels k;
  k.raw = (const void *)kernel_of(std::false_type{});
  if constexpr (Twin)
    k.bounded = (const void *)kernel_of(std::true_type{});
  else
    k.bounded = k.raw;
  k.smem = smem;
  return k;
}

#endif
