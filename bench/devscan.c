/* Devscan family: host side (axes, CPU reference, exact check, byte model).
 * Kernels, variants and launchers: kernels/devscan.cu; results and the
 * protocols explained: docs/devscan.md. */
#include <stdio.h>
#include <stdlib.h>

#include "../harness/random.h"
#include "families.h"
#include "registry.h"

extern const sb_variant_table sb_devscan_variants; /* kernels/devscan.cu */

/* ---- CPU reference ---- */

void sb_devscan_reference(const uint32_t *in, uint32_t *out, size_t n) {
  uint32_t acc = 0; /* unsigned: wraps mod 2^32, as the GPU does */
  for (size_t i = 0; i < n; ++i) out[i] = acc += in[i];
}

int sb_devscan_check(const uint32_t *in, const uint32_t *got, size_t n, char *detail,
                     size_t len) {
  uint32_t *want = malloc(n * sizeof *want);
  if (!want) {
    snprintf(detail, len, "out of host memory for the CPU reference");
    return -1;
  }
  sb_devscan_reference(in, want, n);
  size_t first;
  size_t bad = sb_compare_u32(got, want, n, &first);
  if (bad)
    snprintf(detail, len,
             "%zu of %zu elements differ from the CPU scan; first at %zu: got %u, want %u",
             bad, n, first, got[first], want[first]);
  free(want);
  return bad ? -1 : 0;
}

/* ---- family hooks ---- */

static int is_library(const sb_point *p) { return (p->variant->flags & SB_VF_NO_KERNEL) != 0; }

/* The tile shapes kernels/devscan.cu compiles (test_devscan.c checks that
 * every swept point has its kernel). */
static int devscan_compiled(long long b, long long e) {
  return (b == 128 && (e == 16 || e == 24 || e == 32)) ||
         (b == 256 && (e == 8 || e == 16 || e == 24)) || (b == 512 && e == 8);
}

/* The default sweep: the tile shape 128 x 24 (the fastest look-back shape
 * measured, and CUB's own for 4-byte sums on sm_90) at every n, the other
 * compiled shapes at 16M only (where shapes differ and a point costs
 * little). The library row has no tile shape: its axes are blanked, so it
 * is measured once per n. */
static int devscan_in_sweep(sb_point *p, unsigned long long user_axes) {
  if (is_library(p)) {
    p->axis[SB_AXIS_BLOCK] = SB_AXIS_UNSET;
    p->axis[SB_AXIS_ELEMS] = SB_AXIS_UNSET;
    return 1;
  }
  const long long b = p->axis[SB_AXIS_BLOCK], e = p->axis[SB_AXIS_ELEMS];
  if (user_axes & ((1ull << SB_AXIS_BLOCK) | (1ull << SB_AXIS_ELEMS))) return 1;
  if (!devscan_compiled(b, e)) return 0;
  return (b == 128 && e == 24) || p->axis[SB_AXIS_N] == 16LL << 20 ||
         (user_axes & (1ull << SB_AXIS_N)) != 0;
}

static const char *devscan_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  (void)d;
  if (!is_library(p) && p->axis[SB_AXIS_ELEMS] % 4 != 0) {
    snprintf(buf, len, "elems_per_thread=%lld: each thread loads 16-byte vectors (a multiple of 4)",
             p->axis[SB_AXIS_ELEMS]);
    return buf;
  }
  if (p->axis[SB_AXIS_N] > 0x7fffffffLL) {
    snprintf(buf, len, "n=%lld: CUB's and the tile ids' int range ends at 2^31-1",
             p->axis[SB_AXIS_N]);
    return buf;
  }
  return NULL;
}

static size_t devscan_bytes(const sb_point *p) {
  return (size_t)p->axis[SB_AXIS_N] * sizeof(uint32_t);
}

static long long devscan_bytes_moved(const sb_point *p) {
  return 2 * p->axis[SB_AXIS_N] * (long long)sizeof(uint32_t); /* read once + write once */
}

static void devscan_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_u32(host_in, (size_t)p->axis[SB_AXIS_N], seed);
}

static int devscan_verify(const sb_point *p, const void *host_in, const void *host_out,
                          char *detail, size_t len) {
  return sb_devscan_check(host_in, host_out, (size_t)p->axis[SB_AXIS_N], detail, len);
}

const sb_family sb_family_devscan = {
    .name = "devscan",
    .summary = "inclusive scan of n u32 across the whole device: how tiles learn their prefix",
    .variants = &sb_devscan_variants,
    .ceiling_column = "pct_of_cub", /* cub's row, timed paired with each variant */
    .default_axes = {[SB_AXIS_N] = "1M,16M,256M",
                     [SB_AXIS_BLOCK] = "128,256,512",
                     [SB_AXIS_ELEMS] = "8,16,24,32"},
    .quick_axes = {[SB_AXIS_N] = "1M", [SB_AXIS_BLOCK] = "128", [SB_AXIS_ELEMS] = "24"},
    .in_sweep = devscan_in_sweep,
    .check = devscan_check,
    .in_bytes = devscan_bytes,
    .out_bytes = devscan_bytes,
    .bytes_moved = devscan_bytes_moved,
    .make_input = devscan_make_input,
    .verify = devscan_verify,
};
