/* Reference family, measured first in every run: device-to-device
 * cudaMemcpy (d2d_copy, the yardstick of every pct_of_copy) and a kernel's
 * copy of the same bytes (vector_copy). Its variant table, launchers and
 * kernel: kernels/families/reference.cu. */
#include <stdio.h>

#include "../harness/random.h"
#include "families.h"
#include "registry.h"

extern const sb_variant_table sb_reference_variants; /* kernels/families/reference.cu */

static size_t copy_bytes(const sb_point *p) {
  return (size_t)p->axis[SB_AXIS_N] * sizeof(uint32_t);
}

static long long copy_bytes_moved(const sb_point *p) {
  return 2 * (long long)copy_bytes(p); /* each byte read once, written once */
}

static void copy_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_u32(host_in, (size_t)p->axis[SB_AXIS_N], seed);
}

static int copy_verify(const sb_point *p, const sb_check *check, const void *host_in,
                       const void *host_out, char *detail, size_t len) {
  (void)check;
  size_t n = (size_t)p->axis[SB_AXIS_N], first;
  size_t bad = sb_compare_u32(host_out, host_in, n, &first);
  if (bad)
    snprintf(detail, len, "%zu of %zu words differ from the source; first at %zu",
             bad, n, first);
  return bad ? -1 : 0;
}

const sb_family sb_family_reference = {
    .name = "reference",
    .summary = "copy bandwidth (bytes read + written), measured every run: the driver's "
               "device-to-device copy (the yardstick) and a kernel's",
    .flags = SB_FF_YARDSTICK,
    .variants = &sb_reference_variants,
    /* 512 MiB: far past any L2, so this is DRAM bandwidth. */
    .default_axes = {[SB_AXIS_N] = "128M"},
    .quick_axes = {[SB_AXIS_N] = "128M"},
    .in_bytes = copy_bytes,
    .out_bytes = copy_bytes,
    .bytes_moved = copy_bytes_moved,
    .make_input = copy_make_input,
    .verify = copy_verify,
};
