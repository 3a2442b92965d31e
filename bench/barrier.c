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
 * No CPU reference of data: the kernel proves each phase itself (see the
 * top of kernels/barrier.cu) and verify checks the tally. */
#include "barrier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/random.h"
#include "../kernels/barrier_layout.h"
#include "registry.h"

#define BARRIER_VARIANTS(X)                                                          \
  X(barrier, syncthreads, 0, "__syncthreads(): bar.sync 0, every thread; 1 per op")  \
  X(barrier, syncwarp, 0, "__syncwarp(): each warp on its own (all) or warp 0 (warp)") \
  X(barrier, named_barrier, 0,                                                       \
    "bar.sync id, count: two half-blocks on ids 1 and 2 (all) or warp 0 on id 1 (warp)") \
  X(barrier, cg_block_sync, 0, "cooperative_groups this_thread_block().sync()")       \
  X(barrier, cuda_barrier_arrive_wait, 0,                                            \
    "cuda::barrier<block>: token = arrive(); wait(token)")                           \
  X(barrier, cuda_barrier_arrive_and_wait, 0, "cuda::barrier<block>: arrive_and_wait()") \
  X(barrier, ptx_mbarrier_parity, 0,                                                 \
    "cuda::ptx mbarrier_arrive + mbarrier_try_wait_parity loop (sm_80: test_wait_parity)") \
  X(barrier, primitives_mbarrier, 0,                                                 \
    "__mbarrier_arrive + __mbarrier_try_wait(token) loop (sm_80: __mbarrier_test_wait)") \
  X(barrier, mbarrier_test_wait_poll, 0,                                             \
    "PTX mbarrier.arrive + polling mbarrier.test_wait.parity (never suspends)")      \
  X(barrier, arrive_and_drop, 0,                                                     \
    "cuda::barrier: half the participants arrive_and_drop() once, the rest arrive_and_wait()") \
  X(barrier, completion_function, 0,                                                 \
    "cuda::barrier with a completion function counting phases; arrive_and_wait()")   \
  X(barrier, expect_tx_zero, 90,                                                     \
    "mbarrier.arrive.expect_tx with 0 bytes + try_wait.parity")                      \
  X(barrier, smem_latency, 0,                                                        \
    "no synchronization: a dependent ld.shared chain (pointer chase), the calibration row") \
  X(barrier, grid_sync, 0, "cooperative launch, cooperative_groups this_grid().sync()")

#define BARRIER_TMA_VARIANTS(X)                                                 \
  X(barrier_tma, tma_roundtrip, 90,                                             \
    "thread 0: arrive.expect_tx(bytes) + cp.async.bulk global->shared + wait")

#define BARRIER_CLUSTER_VARIANTS(X)                                             \
  X(barrier_cluster, cluster_barrier, 90,                                       \
    "barrier.cluster.arrive + barrier.cluster.wait, every thread of the cluster")

BARRIER_VARIANTS(SB_DECLARE_LAUNCHER)
BARRIER_TMA_VARIANTS(SB_DECLARE_LAUNCHER)
BARRIER_CLUSTER_VARIANTS(SB_DECLARE_LAUNCHER)
static const sb_variant barrier_variants[] = {BARRIER_VARIANTS(SB_VARIANT_ROW)};
static const sb_variant barrier_tma_variants[] = {BARRIER_TMA_VARIANTS(SB_VARIANT_ROW)};
static const sb_variant barrier_cluster_variants[] = {BARRIER_CLUSTER_VARIANTS(SB_VARIANT_ROW)};

/* ---- rules ---- */

static int is(const char *variant, const char *name) { return strcmp(variant, name) == 0; }

/* Variants whose primitive synchronizes the whole block (or grid, or
 * cluster): every thread must take part. */
static int whole_block_only(const char *v) {
  return is(v, "syncthreads") || is(v, "cg_block_sync") || is(v, "grid_sync") ||
         is(v, "cluster_barrier");
}

const char *sb_barrier_rule(const char *v, int part, long long block, char *buf, size_t len) {
  if (block % 32 != 0) {
    snprintf(buf, len, "block_threads=%lld is not a whole number of warps", block);
    return buf;
  }
  if (part == SB_PART_ALL) {
    if (is(v, "named_barrier") && block < 64) {
      snprintf(buf, len, "named_barrier splits the block into two halves of whole warps: needs 64+ threads");
      return buf;
    }
    return NULL;
  }
  if (whole_block_only(v)) {
    snprintf(buf, len, "%s synchronizes every thread of the %s: participants must be all", v,
             is(v, "grid_sync") ? "grid" : is(v, "cluster_barrier") ? "cluster" : "block");
    return buf;
  }
  if (part == SB_PART_ELECTED) {
    if (is(v, "syncwarp") || is(v, "named_barrier")) {
      snprintf(buf, len, "%s counts whole warps: one thread per warp is not a valid participant set", v);
      return buf;
    }
    long long warps = block / 32, need = is(v, "arrive_and_drop") ? 4 : 2;
    if (warps < need) {
      snprintf(buf, len,
               "one elected thread per warp of %lld threads gives %lld participant(s); %s needs %lld warps",
               block, warps, v, need);
      return buf;
    }
  }
  return NULL;
}

long long sb_barrier_reporters(const char *v, int part, long long block) {
  if (is(v, "grid_sync") || is(v, "tma_roundtrip")) return 1; /* thread 0 proves it */
  long long n = part == SB_PART_ALL ? block : part == SB_PART_WARP ? 32 : block / 32;
  return is(v, "arrive_and_drop") ? n / 2 : n; /* only the stayers check */
}

long long sb_barrier_check_out(const void *out, long long iters, long long reporters,
                               char *detail, size_t len) {
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
    int ok = r[b].ok_min == (uint32_t)iters && r[b].reporters == (uint32_t)reporters &&
             r[b].cycles > 0 && r[b].cycles < 0xA5A5A5A5A5A5A5A5ULL;
    if (!ok && bad++ == 0) first = b;
  }
  if (bad) {
    const sb_barrier_rec *f = &r[first];
    snprintf(detail, len,
             "%lld of %u blocks failed the barrier proof; first, block %lld: %u of %lld phases proven "
             "by the slowest of %u reporting threads (want %lld), cycles %llu",
             bad, h->grid_blocks, first, f->ok_min, iters, f->reporters, reporters, f->cycles);
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
  return sb_barrier_rule(p->variant->name, participants(p), p->axis[SB_AXIS_BLOCK], buf, len);
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
  long long reporters = sb_barrier_reporters(p->variant->name, participants(p), p->axis[SB_AXIS_BLOCK]);
  return sb_barrier_check_out(host_out, p->axis[SB_AXIS_ITERS], reporters, detail, len) < 0 ? -1 : 0;
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
  long long reporters = sb_barrier_reporters(p->variant->name, participants(p), p->axis[SB_AXIS_BLOCK]);
  long long blocks = sb_barrier_check_out(host_out, iters, reporters, row->detail, sizeof row->detail);
  if (blocks < 0) return -1; /* the timed launch's tally failed */
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
  .make_input = barrier_make_input,          \
  .verify = barrier_verify

const sb_family sb_family_barrier = {
    .name = "barrier",
    .summary = "cycles per synchronization op, block-scope primitives and grid_sync, timed in-kernel",
    .variants = &(const sb_variant_table){barrier_variants, sizeof barrier_variants / sizeof barrier_variants[0]},
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
    .variants = &(const sb_variant_table){barrier_tma_variants, 1},
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
    .variants = &(const sb_variant_table){barrier_cluster_variants, 1},
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
