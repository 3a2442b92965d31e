/* Barrier families: host side. Kernels and launchers: kernels/barrier.cu;
 * output layout: kernels/barrier_layout.h; write-up: docs/barrier.md.
 *
 * Three families share the kernels because they sweep different axes:
 *   barrier          block-scope primitives and grid_sync:
 *                    block_threads x participants x contention x iters
 *   barrier_tma      one-thread bulk copy round trip:
 *                    block_threads x buffer_bytes x contention x iters
 *   barrier_cluster  barrier.cluster: block_threads x contention x cluster x iters
 *
 * No CPU reference of data: the validating kernel proves each phase itself
 * (see the top of kernels/barrier.cu) and verify checks its tally; derive
 * checks the timed kernel's count (every reporter completed `iters`
 * operations; smem_latency: the chase ended where the host says). */
#include "barrier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../harness/random.h"
#include "../kernels/barrier_layout.h"
#include "registry.h"

/* ---- rules (the table's SB_BARRIER_VF_* traits) ---- */

const char *sb_barrier_rule(const sb_variant *v, int part, long long block, char *buf, size_t len) {
  const unsigned f = v->flags;
  if (block % 32 != 0) {
    snprintf(buf, len, "block_threads=%lld is not a whole number of warps", block);
    return buf;
  }
  if (part == SB_PART_ALL) {
    if ((f & SB_BARRIER_VF_HALVES) && block < 64) {
      snprintf(buf, len, "%s splits the block into two halves of whole warps: needs 64+ threads", v->name);
      return buf;
    }
    return NULL;
  }
  if (f & (SB_BARRIER_VF_BLOCK | SB_BARRIER_VF_GRID | SB_BARRIER_VF_CLUSTER)) {
    snprintf(buf, len, "%s synchronizes every thread of the %s: participants must be all", v->name,
             f & SB_BARRIER_VF_GRID ? "grid" : f & SB_BARRIER_VF_CLUSTER ? "cluster" : "block");
    return buf;
  }
  if (part == SB_PART_ELECTED) {
    if (f & SB_BARRIER_VF_WARPS) {
      snprintf(buf, len, "%s counts whole warps: one thread per warp is not a valid participant set", v->name);
      return buf;
    }
    long long warps = block / 32, need = f & SB_BARRIER_VF_DROP_HALF ? 4 : 2;
    if (warps < need) {
      snprintf(buf, len,
               "one elected thread per warp of %lld threads gives %lld participant(s); %s needs %lld warps",
               block, warps, v->name, need);
      return buf;
    }
  }
  return NULL;
}

long long sb_barrier_reporters(unsigned flags, int part, long long block) {
  if (flags & SB_BARRIER_VF_THREAD0) return 1;
  long long n = part == SB_PART_ALL ? block : part == SB_PART_WARP ? 32 : block / 32;
  return flags & SB_BARRIER_VF_DROP_HALF ? n / 2 : n; /* only the stayers count */
}

long long sb_barrier_want(unsigned flags, long long iters, long long block) {
  if (flags & SB_BARRIER_VF_CHASE) return iters % SB_BARRIER_CHASE_SLOTS(block);
  return iters;
}

long long sb_barrier_check_out(const void *out, long long iters, long long want,
                               long long reporters, char *detail, size_t len) {
  const sb_barrier_head *h = out;
  const sb_barrier_rec *r = (const sb_barrier_rec *)(h + 1);
  if (h->magic != SB_BARRIER_MAGIC) {
    snprintf(detail, len, "block 0 wrote no header (magic 0x%08x)", h->magic);
    return -1;
  }
  if ((long long)h->iters != iters || h->grid_blocks < 1 || h->grid_blocks > SB_BARRIER_MAX_BLOCKS) {
    snprintf(detail, len, "header says %u blocks, %u iters; want 1..%d blocks, %lld iters",
             h->grid_blocks, h->iters, SB_BARRIER_MAX_BLOCKS, iters);
    return -1;
  }
  long long bad = 0, first = -1;
  for (long long b = 0; b < h->grid_blocks; ++b) {
    int ok = r[b].ok_min == (uint32_t)want && r[b].ok_max == (uint32_t)want &&
             r[b].reporters == (uint32_t)reporters &&
             r[b].cycles > 0 && r[b].cycles < 0xA5A5A5A5A5A5A5A5ULL;
    if (!ok && bad++ == 0) first = b;
  }
  if (bad) {
    const sb_barrier_rec *f = &r[first];
    snprintf(detail, len,
             "%lld of %u blocks failed the check; first, block %lld: its %u reporting threads "
             "(want %lld) counted %u..%u (want %lld each), cycles %llu",
             bad, h->grid_blocks, first, f->reporters, reporters, f->ok_min, f->ok_max, want,
             f->cycles);
    return -1;
  }
  return h->grid_blocks;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void sb_barrier_cycles(const void *out, long long blocks, long long iters, double *median,
                       double *lo, double *hi) {
  const sb_barrier_rec *r = (const sb_barrier_rec *)((const sb_barrier_head *)out + 1);
  double *c = malloc((size_t)blocks * sizeof *c);
  if (!c) {
    *median = *lo = *hi = NAN;
    return;
  }
  for (long long b = 0; b < blocks; ++b) c[b] = (double)r[b].cycles / (double)iters;
  qsort(c, (size_t)blocks, sizeof *c, cmp_double);
  *median = blocks % 2 ? c[blocks / 2] : 0.5 * (c[blocks / 2 - 1] + c[blocks / 2]);
  *lo = c[0];
  *hi = c[blocks - 1];
  free(c);
}

/* ---- family hooks ---- */

static int participants(const sb_point *p) {
  long long v = p->axis[SB_AXIS_PARTICIPANTS];
  return v == SB_AXIS_UNSET ? SB_PART_ALL : (int)v;
}

static const char *barrier_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  (void)d;
  long long bytes = p->axis[SB_AXIS_BUFFER_BYTES];
  if (bytes != SB_AXIS_UNSET && (bytes % 16 != 0 || bytes > 64 * 1024)) {
    snprintf(buf, len, "a bulk copy moves a multiple of 16 bytes; this family sweeps up to 64 KB: %lld", bytes);
    return buf;
  }
  return sb_barrier_rule(p->variant, participants(p), p->axis[SB_AXIS_BLOCK], buf, len);
}

/* Checks a launch's output against what the point's kernels must report. */
static long long barrier_check_point(const sb_point *p, const void *out, char *detail, size_t len) {
  const unsigned f = p->variant->flags;
  const long long block = p->axis[SB_AXIS_BLOCK], iters = p->axis[SB_AXIS_ITERS];
  return sb_barrier_check_out(out, iters, sb_barrier_want(f, iters, block),
                              sb_barrier_reporters(f, participants(p), block), detail, len);
}

static size_t barrier_in_bytes(const sb_point *p) {
  long long bytes = p->axis[SB_AXIS_BUFFER_BYTES];
  return bytes == SB_AXIS_UNSET ? 16 : 2 * (size_t)bytes; /* tma: two source halves */
}

static size_t barrier_out_bytes(const sb_point *p) {
  (void)p;
  return SB_BARRIER_OUT_BYTES;
}

static void barrier_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_u32(host_in, barrier_in_bytes(p) / sizeof(uint32_t), seed);
}

static int barrier_verify(const sb_point *p, const void *host_in, const void *host_out,
                          char *detail, size_t len) {
  (void)host_in;
  return barrier_check_point(p, host_out, detail, len) < 0 ? -1 : 0;
}

/* cycles_per_op: the MEDIAN over blocks of (block's loop cycles / iters),
 * where each block's cycles are its fastest launch (an atomic minimum over
 * the validation, warm-up and timed launches). The median, not the max:
 * with one block per SM or full occupancy every block runs the same loop,
 * and a single block delayed by something outside the loop (a late start
 * in a co-resident neighbour, a clock hiccup) should not set the price;
 * min and max over blocks go into detail. The per-block minimum over
 * launches makes back-to-back runs agree. */
static int barrier_derive(const sb_point *p, const sb_device *d, const void *host_out, sb_row *row) {
  (void)d;
  long long iters = p->axis[SB_AXIS_ITERS];
  long long blocks = barrier_check_point(p, host_out, row->detail, sizeof row->detail);
  if (blocks < 0) return -1; /* the timed launch's count failed */
  double med, lo, hi;
  sb_barrier_cycles(host_out, blocks, iters, &med, &lo, &hi);
  row->cycles_per_op = med;
  if (!isnan(row->sm_clock_mhz) && row->sm_clock_mhz > 0)
    row->ns_per_op = med * 1000.0 / row->sm_clock_mhz;
  snprintf(row->detail, sizeof row->detail,
           "median over %lld blocks of each block's fastest launch; blocks range %.2f..%.2f cycles/op",
           blocks, lo, hi);
  return 0;
}

#define BARRIER_HOOKS                        \
  .check = barrier_check,                    \
  .in_bytes = barrier_in_bytes,              \
  .out_bytes = barrier_out_bytes,            \
  .bytes_moved = NULL,                       \
  .derive = barrier_derive,                  \
  .skip_timed_recheck = 1,                   \
  .make_input = barrier_make_input,          \
  .verify = barrier_verify

const sb_family sb_family_barrier = {
    .name = "barrier",
    .summary = "cycles per synchronization op, block-scope primitives and grid_sync, timed in-kernel",
    .variants = &sb_barrier_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "32..1024",
                     [SB_AXIS_PARTICIPANTS] = "all,warp,elected",
                     [SB_AXIS_CONTENTION] = "one_block_per_sm,full_occupancy",
                     [SB_AXIS_ITERS] = "8192"},
    .quick_axes = {[SB_AXIS_BLOCK] = "128,1024",
                   [SB_AXIS_PARTICIPANTS] = "all,elected",
                   [SB_AXIS_CONTENTION] = "full_occupancy",
                   [SB_AXIS_ITERS] = "1024"},
    BARRIER_HOOKS,
};

const sb_family sb_family_barrier_tma = {
    .name = "barrier_tma",
    .summary = "latency of one bulk copy (TMA) global->shared plus its mbarrier wait, by size",
    .variants = &sb_barrier_tma_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "32",
                     [SB_AXIS_BUFFER_BYTES] = "16..64k",
                     [SB_AXIS_CONTENTION] = "one_block_per_sm,full_occupancy",
                     [SB_AXIS_ITERS] = "2048"},
    .quick_axes = {[SB_AXIS_BLOCK] = "32",
                   [SB_AXIS_BUFFER_BYTES] = "16,4k,64k",
                   [SB_AXIS_CONTENTION] = "one_block_per_sm",
                   [SB_AXIS_ITERS] = "256"},
    BARRIER_HOOKS,
};

const sb_family sb_family_barrier_cluster = {
    .name = "barrier_cluster",
    .summary = "cycles per barrier.cluster arrive+wait, by cluster size",
    .variants = &sb_barrier_cluster_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "64,256,1024",
                     [SB_AXIS_CONTENTION] = "one_block_per_sm,full_occupancy",
                     [SB_AXIS_ITERS] = "4096",
                     [SB_AXIS_CLUSTER] = "2,4,8"},
    .quick_axes = {[SB_AXIS_BLOCK] = "128",
                   [SB_AXIS_CONTENTION] = "full_occupancy",
                   [SB_AXIS_ITERS] = "512",
                   [SB_AXIS_CLUSTER] = "2,8"},
    BARRIER_HOOKS,
};
