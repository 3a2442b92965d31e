/* Devscan family: host side (axes, CPU reference, exact check, byte model).
 * Kernels, variants and launchers: kernels/families/devscan.cu; results and the
 * protocols explained: docs/devscan.md. */
#include <stdio.h>
#include <stdlib.h>

#include "../harness/parallel.h"
#include "../harness/random.h"
#include "../kernels/families/devscan_flags.h"
#include "families.h"
#include "registry.h"

extern const sb_variant_table sb_devscan_variants; /* kernels/families/devscan.cu */

/* ---- CPU reference ---- */

void sb_devscan_reference(const uint32_t *in, uint32_t *out, size_t n) {
  uint32_t acc = 0; /* unsigned: wraps mod 2^32, as the GPU does */
  for (size_t i = 0; i < n; ++i) out[i] = acc += in[i];
}

/* The check walks the output against a running sum, in parallel chunks: a
 * first pass sums each chunk of the input, a second re-scans each chunk
 * from the sum of the chunks before it and compares as it goes. Exact (the
 * same wrapping u32 sums as the reference), and no n-sized buffer: at 256M
 * a reference array would be 1 GiB to allocate and fault in per point. */
typedef struct check_job {
  const uint32_t *in, *got;
  size_t n, grain;
  uint32_t *chunk_sum;   /* pass 1: each chunk's sum; then its offset */
  size_t *bad, *first;   /* pass 2, per chunk */
  int pass;
} check_job;

static void check_chunk(void *p, size_t begin, size_t end) {
  const check_job *j = p;
  for (size_t c = begin / j->grain; c * j->grain < end; ++c) {
    const size_t lo = c * j->grain, hi = lo + j->grain < j->n ? lo + j->grain : j->n;
    uint32_t acc = j->pass == 1 ? 0 : j->chunk_sum[c];
    size_t bad = 0, first = 0;
    for (size_t i = lo; i < hi; ++i) {
      acc += j->in[i];
      if (j->pass == 2 && j->got[i] != acc && bad++ == 0) first = i;
    }
    if (j->pass == 1) j->chunk_sum[c] = acc;
    else {
      j->bad[c] = bad;
      j->first[c] = first;
    }
  }
}

int sb_devscan_check(const uint32_t *in, const uint32_t *got, size_t n, char *detail,
                     size_t len) {
  const size_t grain = 1 << 20, chunks = (n + grain - 1) / grain;
  check_job j = {in, got, n, grain, malloc((chunks + 1) * sizeof(uint32_t)),
                 malloc((chunks + 1) * sizeof(size_t)), malloc((chunks + 1) * sizeof(size_t)), 1};
  int rc = 0;
  if (!j.chunk_sum || !j.bad || !j.first) {
    snprintf(detail, len, "out of host memory for the check");
    rc = -1;
  } else {
    sb_parallel_for(n, grain, check_chunk, &j);
    uint32_t offset = 0; /* exclusive scan of the chunk sums */
    for (size_t c = 0; c < chunks; ++c) {
      const uint32_t sum = j.chunk_sum[c];
      j.chunk_sum[c] = offset;
      offset += sum;
    }
    j.pass = 2;
    sb_parallel_for(n, grain, check_chunk, &j);
    size_t bad = 0, first = 0;
    for (size_t c = 0; c < chunks; ++c) {
      if (j.bad[c] && !bad) first = j.first[c];
      bad += j.bad[c];
    }
    if (bad) {
      uint32_t want = j.chunk_sum[first / grain];
      for (size_t i = first / grain * grain; i <= first; ++i) want += in[i];
      snprintf(detail, len,
               "%zu of %zu elements differ from the CPU scan; first at %zu: got %u, want %u",
               bad, n, first, got[first], want);
      rc = -1;
    }
  }
  free(j.chunk_sum);
  free(j.bad);
  free(j.first);
  return rc;
}

/* ---- family hooks ---- */

static int is_library(const sb_point *p) { return (p->variant->flags & SB_VF_NO_KERNEL) != 0; }

/* The tile shapes kernels/families/devscan.cu compiles (test_devscan.c checks that
 * every swept point has its kernel). */
static int devscan_compiled(long long b, long long e) {
  return (b == 128 && (e == 16 || e == 24 || e == 32)) ||
         (b == 256 && (e == 8 || e == 16 || e == 24)) || (b == 512 && e == 8);
}

/* The look-back's tuning axes (window, first_sleep_ns, poll_sleep_ns,
 * sleep_min_tiles): swept only when the command line names one of them, and
 * then only for the variants whose picker reads them (lookback,
 * lookback_relaxed: SB_VF_DEVSCAN_TUNING); every other point leaves them
 * blank, so the default sweep's points and names are those of schema 9.
 * Their default values are today's compile-time ones, so a sweep that names
 * one axis fills the others with today's values. */
static const int tuning_axes[] = {SB_AXIS_WINDOW, SB_AXIS_FIRST_SLEEP, SB_AXIS_POLL_SLEEP,
                                  SB_AXIS_SLEEP_MIN_TILES};
#define TUNING_COUNT (sizeof tuning_axes / sizeof tuning_axes[0])

static int takes_tuning(const sb_point *p) {
  return (p->variant->flags & SB_VF_DEVSCAN_TUNING) != 0;
}

static void tuning_in_sweep(sb_point *p, unsigned long long user_axes) {
  int named = 0;
  for (size_t t = 0; t < TUNING_COUNT; ++t) named |= (user_axes & (1ull << tuning_axes[t])) != 0;
  if (named && takes_tuning(p)) return;
  for (size_t t = 0; t < TUNING_COUNT; ++t) p->axis[tuning_axes[t]] = SB_AXIS_UNSET;
}

/* The default sweep: the tile shape 128 x 32 (with the 3000 ns look-back
 * sleep, at least as fast as 128 x 24, CUB's own for 4-byte sums on sm_90,
 * for every variant at every n on an H100: proofs/devscan_tiles_93fdd3f) at every n, the other
 * compiled shapes at 16M only (where shapes differ and a point costs
 * little). The library row has no tile shape: its axes are blanked, so it
 * is measured once per n. */
static int devscan_in_sweep(sb_point *p, unsigned long long user_axes) {
  tuning_in_sweep(p, user_axes);
  if (is_library(p)) {
    p->axis[SB_AXIS_BLOCK] = SB_AXIS_UNSET;
    p->axis[SB_AXIS_ELEMS] = SB_AXIS_UNSET;
    return 1;
  }
  const long long b = p->axis[SB_AXIS_BLOCK], e = p->axis[SB_AXIS_ELEMS];
  if (user_axes & ((1ull << SB_AXIS_BLOCK) | (1ull << SB_AXIS_ELEMS))) return 1;
  if (!devscan_compiled(b, e)) return 0;
  return (b == 128 && e == 32) || p->axis[SB_AXIS_N] == 16LL << 20 ||
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

static int devscan_verify(const sb_point *p, const sb_check *check, const void *host_in,
                          const void *host_out, char *detail, size_t len) {
  (void)check;
  return sb_devscan_check(host_in, host_out, (size_t)p->axis[SB_AXIS_N], detail, len);
}

/* The single-pass variants keep a tile counter and status words between
 * launches (SB_VF_DEVSCAN_RESET); cub, three_kernel and grid_sync do not. */
static int devscan_keeps_state(const sb_point *p) {
  return (p->variant->flags & SB_VF_DEVSCAN_RESET) != 0;
}

static const sb_trait_name devscan_traits[] = {{SB_VF_DEVSCAN_TUNING, "lookback_tuning"}, {0, NULL}};

const sb_family sb_family_devscan = {
    .name = "devscan",
    .summary = "inclusive scan of n u32 across the whole device: how tiles learn their prefix",
    /* tile counter and status words, numbered by launch; between two runs the
     * gate reads the time, not the ratio to CUB (SB_FF_TIME_ACROSS_RUNS) */
    .flags = SB_FF_WORKSPACE_STATE | SB_FF_TIME_ACROSS_RUNS,
    .variants = &sb_devscan_variants,
    .variant_traits = devscan_traits,
    .ceiling_column = "pct_of_cub", /* cub's row, timed paired with each variant */
    /* memory-bound: the block median moved least between two GPUs of one model */
    .ceiling_reading = SB_RATIO_BLOCK_MEDIAN,
    .default_axes = {[SB_AXIS_N] = "1M,16M,256M",
                     [SB_AXIS_BLOCK] = "128,256,512",
                     [SB_AXIS_ELEMS] = "8,16,24,32",
                     /* today's look-back (kernels/common/lookback.cuh); blank
                      * unless the command line names one (tuning_in_sweep) */
                     [SB_AXIS_WINDOW] = "32",
                     [SB_AXIS_FIRST_SLEEP] = "3000",
                     [SB_AXIS_POLL_SLEEP] = "648",
                     [SB_AXIS_SLEEP_MIN_TILES] = "500"},
    .quick_axes = {[SB_AXIS_N] = "1M", [SB_AXIS_BLOCK] = "128", [SB_AXIS_ELEMS] = "32",
                   [SB_AXIS_WINDOW] = "32", [SB_AXIS_FIRST_SLEEP] = "3000",
                   [SB_AXIS_POLL_SLEEP] = "648", [SB_AXIS_SLEEP_MIN_TILES] = "500"},
    .in_sweep = devscan_in_sweep,
    .keeps_state = devscan_keeps_state,
    .check = devscan_check,
    .in_bytes = devscan_bytes,
    .out_bytes = devscan_bytes,
    .bytes_moved = devscan_bytes_moved,
    .make_input = devscan_make_input,
    .verify = devscan_verify,
};
