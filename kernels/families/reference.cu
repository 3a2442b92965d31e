// Reference family: the device-to-device copy every run measures first.
// Its bandwidth (bytes read + bytes written per second) is the yardstick
// for every other row's pct_of_copy. No kernel of ours: the copy engine /
// driver does it, so there is no occupancy or resource usage to report.
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

static const sb_variant reference_rows[] = {
    {"d2d_copy", reference_d2d_copy, NULL, 0, SB_VF_NO_KERNEL,
     "cudaMemcpyAsync device to device: the bandwidth yardstick"},
};
extern "C" const sb_variant_table sb_reference_variants = {reference_rows, 1};
