/* Scan family: host side. Kernels and launchers: kernels/scan.cu. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/parallel.h"
#include "../harness/random.h"
#include "families.h"
#include "registry.h"

extern const sb_variant_table sb_scan_variants; /* kernels/families/scan.cu */

/* ---- CPU reference ---- */

typedef struct scan_job {
  const uint32_t *in;
  uint32_t *out;
  size_t n, tile;
  int iters;
} scan_job;

static void scan_tiles(void *p, size_t begin, size_t end) {
  const scan_job *j = p; /* begin/end are tile-aligned (grain = tile) */
  for (size_t base = begin; base < end; base += j->tile) {
    size_t len = end - base < j->tile ? end - base : j->tile;
    memcpy(j->out + base, j->in + base, len * sizeof(uint32_t));
    for (int it = 0; it < j->iters; ++it) {
      uint32_t acc = 0;
      for (size_t i = 0; i < len; ++i) j->out[base + i] = acc += j->out[base + i];
    }
  }
}

void sb_scan_reference(const uint32_t *in, uint32_t *out, size_t n, size_t tile,
                       int iters) {
  scan_job j = {in, out, n, tile, iters};
  sb_parallel_for(n, tile, scan_tiles, &j);
}

size_t sb_compare_u32(const uint32_t *got, const uint32_t *want, size_t n,
                      size_t *first) {
  size_t bad = 0;
  *first = n;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ == 0) *first = i;
  return bad;
}

/* ---- family hooks ---- */

static const char *scan_check(const sb_point *p, const sb_device *d, char *buf,
                              size_t len) {
  (void)d;
  long long block = p->axis[SB_AXIS_BLOCK];
  if ((p->variant->flags & SB_VF_WHOLE_WARPS) && block % 32 != 0) {
    snprintf(buf, len, "%s needs whole warps: block_threads=%lld is not a multiple of 32",
             p->variant->name, block);
    return buf;
  }
  return NULL;
}

static size_t scan_bytes(const sb_point *p) {
  return (size_t)p->axis[SB_AXIS_N] * sizeof(uint32_t);
}

static long long scan_bytes_moved(const sb_point *p) {
  return 2 * p->axis[SB_AXIS_N] * (long long)sizeof(uint32_t); /* read + write */
}

static void scan_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_u32(host_in, (size_t)p->axis[SB_AXIS_N], seed);
}

static int scan_verify(const sb_point *p, const sb_check *check, const void *host_in,
                       const void *host_out, char *detail, size_t len) {
  (void)check;
  size_t n = (size_t)p->axis[SB_AXIS_N];
  uint32_t *want = malloc(n * sizeof *want);
  if (!want) {
    snprintf(detail, len, "out of host memory for the CPU reference");
    return -1;
  }
  sb_scan_reference(host_in, want, n, (size_t)p->axis[SB_AXIS_BLOCK],
                    (int)p->axis[SB_AXIS_ITERS]);
  size_t first;
  size_t bad = sb_compare_u32(host_out, want, n, &first);
  if (bad)
    snprintf(detail, len,
             "%zu of %zu elements differ from the CPU scan; first at %zu: got %u, want %u",
             bad, n, first, ((const uint32_t *)host_out)[first], want[first]);
  free(want);
  return bad ? -1 : 0;
}

const sb_family sb_family_scan = {
    .name = "scan",
    .summary = "inclusive Kogge-Stone scan of each block's tile of u32, iters times in shared memory",
    .variants = &sb_scan_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "32..1024",
                     [SB_AXIS_ITERS] = "1,4,16",
                     [SB_AXIS_N] = "32M"},
    .quick_axes = {[SB_AXIS_BLOCK] = "128,1024",
                   [SB_AXIS_ITERS] = "1,16",
                   [SB_AXIS_N] = "16M"},
    .check = scan_check,
    .in_bytes = scan_bytes,
    .out_bytes = scan_bytes,
    .bytes_moved = scan_bytes_moved,
    .make_input = scan_make_input,
    .verify = scan_verify,
};
