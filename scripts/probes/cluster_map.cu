// Which SMs share a GPC on this chip, and where do a one-wave grid's
// clusters of two land? gemm/splitk_cluster's 1024^2 x 16k point (128 CTAs
// of 128x128, clusters of 2 along K, one CTA an SM) takes 63.6-67.5 us on
// different H200s while two processes on one chip agree within about 1%,
// and the 2x1 multicast point (also clusters of 2) follows it across chips
// (docs/history.md). A GPC holds the CTAs of a cluster, and which SMs a
// chip keeps in each GPC differs from chip to chip.
//
// 1. The GPC map: clusters of 16 (non-portable; 8 where 16 cannot launch),
//    one CTA an SM, many launches; SMs that ever share a cluster share a
//    GPC (union-find). Prints each GPC's SM count and its SMs.
// 2. cudaOccupancyMaxActiveClusters for cluster sizes 1-16, one CTA an SM.
// 3. Where 128 CTAs land, one an SM, in clusters of 2 and without clusters:
//    CTAs per GPC, and the idle SMs, over a few launches.
//
// nvcc -O3 -std=c++17 -arch=sm_90a -o cluster_map cluster_map.cu ; ./cluster_map [ctas]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                         \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

// Each CTA records its SM and its cluster's linear index; it holds its SM
// (a large shared allocation keeps one CTA an SM) for a few microseconds so
// that a launch's CTAs are resident together.
__global__ void where(int *sm, int *cluster) {
  extern __shared__ char big[];
  unsigned s, c;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(c));
  if (threadIdx.x == 0) {
    sm[blockIdx.x] = (int)s;
    cluster[blockIdx.x] = (int)c;
    big[0] = 1;
  }
  __nanosleep(20000);
}

static int find(std::vector<int> &p, int x) { return p[x] == x ? x : p[x] = find(p, p[x]); }

// One CTA of 32 threads an SM (smem), in clusters of csize along x.
struct Config {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1];
  Config(int ctas, int csize, size_t smem) {
    cfg.gridDim = dim3(ctas);
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = smem;
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = csize;
    at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
  }
};

static cudaError_t launch(int ctas, int csize, size_t smem, int *sm, int *cl) {
  Config c(ctas, csize, smem);
  return cudaLaunchKernelEx(&c.cfg, where, sm, cl);
}

static int max_clusters(int csize, size_t smem) {
  Config c(csize * 64, csize, smem);
  int n = -1;
  if (cudaOccupancyMaxActiveClusters(&n, (void *)where, &c.cfg) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return n;
}

int main(int argc, char **argv) {
  const int ctas = argc > 1 ? std::atoi(argv[1]) : 128;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int nsm = prop.multiProcessorCount;
  const size_t smem = prop.sharedMemPerBlockOptin;  // one CTA an SM
  CK(cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaFuncSetAttribute(where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::printf("gpu %s sms %d smem_optin %zu\n", prop.name, nsm, smem);
  std::printf("max_active_clusters");
  for (int c : {1, 2, 4, 8, 16}) std::printf(" %d:%d", c, max_clusters(c, smem));
  std::printf("\n");

  int *sm, *cl;
  const int cap = 48 * nsm;
  CK(cudaMalloc(&sm, cap * sizeof(int)));
  CK(cudaMalloc(&cl, cap * sizeof(int)));
  std::vector<int> hs(cap), hc(cap), parent(nsm);
  std::iota(parent.begin(), parent.end(), 0);
  // Clusters of 16, 8, 4 and 2, from one cluster a launch to three waves of
  // them (later waves land wherever SMs free up), so that every SM of a GPC
  // shares a cluster with the rest at some point.
  const int cmax = 16 * nsm;
  int big = 0;
  for (int c : {16, 8, 4, 2}) {
    const int at_once = max_clusters(c, smem);
    if (at_once <= 0) continue;
    if (!big) big = c;
    for (int n = 1; n <= 3 * at_once && n * c <= cmax; n += (n < at_once ? 1 : at_once / 2 + 1)) {
      for (int rep = 0; rep < 4; ++rep) {
        CK(launch(n * c, c, smem, sm, cl));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hs.data(), sm, n * c * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n * c; i += c)
          for (int j = 1; j < c; ++j) parent[find(parent, hs[i + j])] = find(parent, hs[i]);
      }
    }
  }
  const int nbig = max_clusters(big, smem);
  std::map<int, std::vector<int>> gpc;
  for (int s = 0; s < nsm; ++s) gpc[find(parent, s)].push_back(s);
  std::vector<int> gpc_of(nsm);
  std::vector<std::vector<int>> groups;
  for (auto &g : gpc) groups.push_back(g.second);
  std::sort(groups.begin(), groups.end(), [](auto &a, auto &b) { return a[0] < b[0]; });
  std::printf("gpcs %zu (clusters of %d, %d at once) sizes", groups.size(), big, nbig);
  for (auto &g : groups) std::printf(" %zu", g.size());
  std::printf("\n");
  for (size_t i = 0; i < groups.size(); ++i) {
    std::printf("gpc %zu:", i);
    for (int s : groups[i]) {
      std::printf(" %d", s);
      gpc_of[s] = (int)i;
    }
    std::printf("\n");
  }

  for (int csize : {2, 1}) {
    for (int rep = 0; rep < 4; ++rep) {
      CK(launch(ctas, csize, smem, sm, cl));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hs.data(), sm, ctas * sizeof(int), cudaMemcpyDeviceToHost));
      std::vector<int> per(groups.size()), used(nsm);
      for (int i = 0; i < ctas; ++i) {
        per[gpc_of[hs[i]]]++;
        used[hs[i]]++;
      }
      std::printf("grid %d cluster %d launch %d: ctas per gpc", ctas, csize, rep);
      for (size_t g = 0; g < groups.size(); ++g) std::printf(" %d/%zu", per[g], groups[g].size());
      std::printf(" idle sms");
      for (int s = 0; s < nsm; ++s)
        if (!used[s]) std::printf(" %d(g%d)", s, gpc_of[s]);
      std::printf("\n");
    }
  }
  return 0;
}
