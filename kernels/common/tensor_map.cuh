// 2D tensor maps for the bulk tensor copy engine (TMA), encoded on the host
// through the driver entry point the runtime hands out, so nothing links
// against libcuda. Shared by the families with TMA variants (pipeline,
// gemm); each caches its maps per point, because encoding is host work that
// must not land between a timed sample's events.
#ifndef SB_KERNELS_TENSOR_MAP_CUH
#define SB_KERNELS_TENSOR_MAP_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "../../harness/launch.h" /* sb_tma_promotion_bytes */

// A row-major [rows][cols] matrix of `type` at `base`, rows `row_bytes`
// apart, copied in boxes of box_cols x box_rows elements.
static inline cudaError_t sb_encode_tensor_map_2d(CUtensorMap *map, CUtensorMapDataType type,
                                                  const void *base, unsigned long long cols,
                                                  unsigned long long rows,
                                                  unsigned long long row_bytes, unsigned box_cols,
                                                  unsigned box_rows, CUtensorMapSwizzle swizzle) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode;
  if (!encode) {
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                     cudaEnableDefault, &q);
    if (e != cudaSuccess) return e;
    if (q != cudaDriverEntryPointSuccess || !fn) return cudaErrorSymbolNotFound;
    encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
  }
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)row_bytes};  // bytes from one row to the next
  const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  // SB_TMA_PROMOTION (main() refuses a bad one). By default 256 B, but 128 B
  // where rows start off a 32-byte sector (a pitch that is a multiple of 16
  // bytes only): there the copy engine takes two L2 requests for each row,
  // and the 64x128 GEMM tiles run 7-11% faster at 128 B (docs/history.md,
  // "K = 1000"); at a 32-byte pitch the two promotions time alike.
  int promote = sb_tma_promotion_bytes();
  if (promote == SB_TMA_PROMOTION_AUTO) promote = row_bytes % 32 ? 128 : 256;
  const CUtensorMapL2promotion l2 = promote == 0     ? CU_TENSOR_MAP_L2_PROMOTION_NONE
                                    : promote == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                    : promote == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                     : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  CUresult r = encode(map, type, 2, const_cast<void *>(base), dims, strides, box, elem_strides,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

#endif
