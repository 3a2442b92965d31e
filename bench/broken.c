/* Broken family (tests only: make SB_BROKEN=1): deliberately wrong
 * synchronization that proves one bad point costs one row. Kernels and the
 * expected status of each variant: kernels/broken.cu. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/random.h"
#include "families.h"
#include "registry.h"

extern const sb_variant_table sb_broken_variants; /* kernels/families/broken.cu */

static const char *broken_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  (void)d;
  long long block = p->axis[SB_AXIS_BLOCK], n = p->axis[SB_AXIS_N];
  if (block % 64 != 0 || n % block != 0) {
    snprintf(buf, len, "needs block_threads a multiple of 64 and n a multiple of block_threads");
    return buf;
  }
  return NULL;
}

static size_t broken_bytes(const sb_point *p) {
  return (size_t)p->axis[SB_AXIS_N] * sizeof(uint32_t);
}

static long long broken_bytes_moved(const sb_point *p) {
  return 2 * (long long)broken_bytes(p);
}

static void broken_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_u32(host_in, (size_t)p->axis[SB_AXIS_N], seed);
}

/* What a correct kernel would produce: a copy, or for missing_barrier each
 * tile rotated left by 32 words. */
static int broken_verify(const sb_point *p, const sb_check *check, const void *host_in,
                         const void *host_out, char *detail, size_t len) {
  (void)check;
  size_t n = (size_t)p->axis[SB_AXIS_N], tile = (size_t)p->axis[SB_AXIS_BLOCK];
  const uint32_t *in = host_in;
  uint32_t *want = malloc(n * sizeof *want);
  if (!want) {
    snprintf(detail, len, "out of host memory for the CPU reference");
    return -1;
  }
  int rotate = (p->variant->flags & SB_BROKEN_ROTATED) != 0;
  for (size_t i = 0; i < n; ++i)
    want[i] = rotate ? in[i - i % tile + (i % tile + 32) % tile] : in[i];
  size_t first, bad = sb_compare_u32(host_out, want, n, &first);
  if (bad)
    snprintf(detail, len, "%zu of %zu words differ from the CPU reference; first at %zu: got %u, want %u",
             bad, n, first, ((const uint32_t *)host_out)[first], want[first]);
  free(want);
  return bad ? -1 : 0;
}

const sb_family sb_family_broken = {
    .name = "broken",
    .summary = "TEST ONLY: deliberately broken synchronization (deadlock, wrong, error rows)",
    .variants = &sb_broken_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "256", [SB_AXIS_N] = "1M"},
    .quick_axes = {[SB_AXIS_BLOCK] = "256", [SB_AXIS_N] = "1M"},
    .check = broken_check,
    .in_bytes = broken_bytes,
    .out_bytes = broken_bytes,
    .bytes_moved = broken_bytes_moved,
    .make_input = broken_make_input,
    .verify = broken_verify,
};
