// Does a TMA load pay for rows that do not start on a 32-byte sector, and
// which box shape avoids it? The GEMM at M = N = K = 1000 (fp16 rows of
// 2000 bytes: every other row starts 16 bytes into a sector) ran its 64x128
// tile far slower than at K = 1008 (2016-byte rows, each on a sector), where
// cuBLAS ran both alike (docs/history.md, "1000^3").
//
// Each CTA (one a SM, one thread issuing) streams its own panel of box_rows
// rows across the whole row length, box after box, through a ring of
// stages as the GEMM's producer does, reps times over (the panel stays in
// L2 after the first pass, as a GEMM tile's operands mostly do). Per row
// stride (2000, 2016, 2048 bytes), swizzle (128B with 64-element boxes, 64B
// with 32, 32B with 16, none with 64 and with 8: 16-byte rows, each inside
// one sector), box rows (64, 128), L2 promotion (256B, none) and boxes in
// flight a CTA (4, as the first run; 16, where shared memory holds them, to
// tell a box's latency from the rate its rows allow): the L2-to-shared-memory
// rate in GB/s of box bytes, the median of 7 event-timed launches.
//
// nvcc -O3 -std=c++17 -arch=sm_90a -o tma_rows tma_rows.cu ; ./tma_rows [ctas] [reps]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                         \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) {                                                                          \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));              \
      exit(1);                                                                                        \
    }                                                                                                 \
  } while (0)

constexpr int MAX_STAGES = 16;

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void tma_rows_k(const __grid_constant__ CUtensorMap tm, int panels, int box_rows, int box_cols,
                           int nk, int reps, int stages, unsigned box_bytes, unsigned stage_bytes, unsigned *sink) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) unsigned long long bar[MAX_STAGES];
  if (threadIdx.x != 0) return;
  unsigned char *smem =
      reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  for (int s = 0; s < stages; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const int row0 = (blockIdx.x % panels) * box_rows;
  const int total = reps * nk;
  auto issue = [&](int i) {
    const int s = i % stages;
    const uint32_t b = smem_addr(&bar[s]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(box_bytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
            "r"(smem_addr(smem + (size_t)s * stage_bytes)),
        "l"(&tm), "r"((i % nk) * box_cols), "r"(row0), "r"(b)
        : "memory");
  };
  for (int i = 0; i < stages && i < total; ++i) issue(i);
  unsigned acc = 0;
  for (int i = 0; i < total; ++i) {
    const int s = i % stages;
    const uint32_t b = smem_addr(&bar[s]), parity = (i / stages) & 1;
    uint32_t done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(b), "r"(parity)
          : "memory");
    acc += smem[(size_t)s * stage_bytes + (i & 127)];  // a read of the stage before it is reused
    if (i + stages < total) issue(i + stages);
  }
  if (acc == 0xffffffffu) *sink = acc;
}

static PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !fn) {
    fprintf(stderr, "cuTensorMapEncodeTiled is out of reach\n");
    exit(1);
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

int main(int argc, char **argv) {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int ctas = argc > 1 ? atoi(argv[1]) : sms, reps = argc > 2 ? atoi(argv[2]) : 64;
  const int rows = 1024;
  const auto encode = encode_fn();
  void *buf;
  CK(cudaMalloc(&buf, (size_t)rows * 2048 + 4096));
  CK(cudaMemset(buf, 1, (size_t)rows * 2048 + 4096));
  unsigned *sink;
  CK(cudaMalloc(&sink, sizeof *sink));
  CK(cudaFuncSetAttribute(tma_rows_k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  struct Swz {
    CUtensorMapSwizzle mode;
    const char *name;
    int cols;
  };
  const Swz swizzles[] = {{CU_TENSOR_MAP_SWIZZLE_128B, "128B", 64},
                          {CU_TENSOR_MAP_SWIZZLE_64B, "64B", 32},
                          {CU_TENSOR_MAP_SWIZZLE_32B, "32B", 16},
                          {CU_TENSOR_MAP_SWIZZLE_NONE, "none", 64},
                          {CU_TENSOR_MAP_SWIZZLE_NONE, "none", 8}};  // 16-byte rows: inside one sector each
  const CUtensorMapL2promotion promos[] = {CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_L2_PROMOTION_NONE};
  printf("row_bytes,swizzle,box_cols,box_rows,l2_promotion,stages,ctas,reps,median_us,gbps\n");
  for (int row_bytes : {2000, 2016, 2048})
    for (const Swz &sw : swizzles)
      for (int box_rows : {64, 128})
        for (auto promo : promos)
          for (int stages : {4, 16}) {  // boxes in flight a CTA: latency-bound, or rate-bound
            if (stages > 4 && promo != CU_TENSOR_MAP_L2_PROMOTION_NONE) continue;
          const int k = row_bytes / 2, nk = (k + sw.cols - 1) / sw.cols;
          const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
          const cuuint64_t strides[1] = {(cuuint64_t)row_bytes};
          const cuuint32_t box[2] = {(cuuint32_t)sw.cols, (cuuint32_t)box_rows};
          const cuuint32_t elem_strides[2] = {1, 1};
          CUtensorMap tm;
          if (encode(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, buf, dims, strides, box, elem_strides,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, sw.mode, promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
              CUDA_SUCCESS) {
            fprintf(stderr, "no tensor map for %d-byte rows, swizzle %s, %d x %d\n", row_bytes, sw.name, sw.cols,
                    box_rows);
            continue;
          }
          const unsigned box_bytes = (unsigned)sw.cols * 2u * (unsigned)box_rows;
          const unsigned stage_bytes = (box_bytes + 1023u) & ~1023u;
          if ((size_t)stages * stage_bytes > 192 * 1024) continue;  // a ring that fits in shared memory
          const size_t smem = (size_t)stages * stage_bytes + 1024;
          const int panels = rows / box_rows;
          std::vector<double> us;
          for (int t = 0; t < 8; ++t) {  // the first launch warms the L2 and is not kept
            CK(cudaEventRecord(t0));
            tma_rows_k<<<ctas, 32, smem>>>(tm, panels, box_rows, sw.cols, nk, reps, stages, box_bytes, stage_bytes, sink);
            CK(cudaGetLastError());
            CK(cudaEventRecord(t1));
            CK(cudaEventSynchronize(t1));
            float ms;
            CK(cudaEventElapsedTime(&ms, t0, t1));
            if (t) us.push_back(ms * 1e3);
          }
          std::sort(us.begin(), us.end());
          const double med = us[us.size() / 2];
          const double bytes = (double)ctas * reps * nk * box_bytes;
          printf("%d,%s,%d,%d,%s,%d,%d,%d,%.2f,%.1f\n", row_bytes, sw.name, sw.cols, box_rows,
                 promo == CU_TENSOR_MAP_L2_PROMOTION_NONE ? "none" : "256B", stages, ctas, reps, med,
                 bytes / med * 1e-3);
        }
  return 0;
}
