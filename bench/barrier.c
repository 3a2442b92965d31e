/* Barrier families: host side. Kernels and launchers: kernels/families/barrier.cu;
 * output layout: kernels/families/barrier_layout.h; write-up: docs/barrier.md.
 *
 * Three families share the kernels because they sweep different axes:
 *   barrier          block-scope primitives, grid_sync and the prices
 *                    between SMs (flag hand-off, look-back walk, kernel
 *                    boundary: SB_BARRIER_VF_DEVICE):
 *                    block_threads x participants x contention x iters
 *   barrier_tma      one-thread bulk copy round trip:
 *                    block_threads x buffer_bytes x contention x iters
 *   barrier_cluster  barrier.cluster: block_threads x contention x cluster x iters
 *
 * No CPU reference of data: the validating kernel proves each phase itself
 * (see the top of kernels/families/barrier.cu) and verify checks its tally; derive
 * checks the timed kernel's count (every reporter completed `iters`
 * operations; smem_latency: the chase ended where the host says) and the
 * results the host can compute (lookback_walk: the look-backs' prefixes
 * from the input; flag_handoff: the last token and two distinct SMs). The
 * kernel-boundary rows are timed by the host (SB_BARRIER_VF_HOST_TIMED):
 * their figures come from the median sample, their check from the
 * validating launch's count of boundaries (kernel_boundary_pdl's count is
 * only right if every kernel waited for its predecessor: SB_VF_PDL, sm_90). */
#include "barrier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/random.h"
#include "../harness/stats.h"
#include "../kernels/families/barrier_layout.h"
#include "../kernels/common/flag_word.h"
#include "../kernels/common/pdl.h"
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
  if (f & SB_BARRIER_VF_DEVICE) {
    snprintf(buf, len, "%s is a price between SMs (thread 0 or warp 0 of a block takes part): "
             "participants must be all", v->name);
    return buf;
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

long long sb_barrier_ops_per_iter(unsigned flags) { return flags & SB_BARRIER_VF_PAIR ? 2 : 1; }

int sb_barrier_device_block(long long block) { return block == 32 || block == 256 || block == 1024; }

/* ---- lookback_walk's input and its expected prefixes ---- */

size_t sb_barrier_walk_words(int w) {
  return (size_t)SB_BARRIER_WALK_COPIES * (size_t)SB_BARRIER_WALK_STRIDE(w);
}

void sb_barrier_walk_fill(uint64_t *words, int w, uint64_t seed) {
  const size_t stride = SB_BARRIER_WALK_STRIDE(w), n = sb_barrier_walk_words(w);
  sb_fill_u32((uint32_t *)words, 2 * n, seed); /* random values; statuses below */
  for (size_t i = 0; i < n; ++i) {
    const size_t j = i % stride;
    const uint32_t status = j == SB_BARRIER_WALK_GUARD                     ? SB_FLAG_P
                            : j < (size_t)SB_BARRIER_WALK_GUARD + (size_t)w ? SB_FLAG_A
                                                                            : SB_FLAG_X;
    words[i] = SB_FLAG_WORD(status, SB_FLAG_VALUE(words[i]));
  }
}

uint32_t sb_barrier_walk_prefix(const uint64_t *words, int w, int copy) {
  const uint64_t *c = words + (size_t)copy * SB_BARRIER_WALK_STRIDE(w);
  uint32_t sum = 0; /* mod 2^32, as the kernel adds */
  for (int j = 0; j < w; ++j) sum += SB_FLAG_VALUE(c[SB_BARRIER_WALK_GUARD + j]);
  return sum;
}

const uint32_t *sb_barrier_pair_smids(const void *out) {
  const sb_barrier_rec *r = (const sb_barrier_rec *)((const sb_barrier_head *)out + 1);
  return (const uint32_t *)(r + SB_BARRIER_MAX_BLOCKS) + SB_BARRIER_PAIR_SMID;
}

int sb_barrier_check_values(unsigned flags, const void *host_in, const void *out, long long blocks,
                            long long iters, char *detail, size_t len) {
  const sb_barrier_rec *r = (const sb_barrier_rec *)((const sb_barrier_head *)out + 1);
  const int w = SB_BARRIER_WALK_OF(flags);
  if (w > 0) {
    for (long long b = 0; b < blocks; ++b) {
      const int copy = (int)(b % SB_BARRIER_WALK_COPIES);
      const uint32_t want = (uint32_t)iters * sb_barrier_walk_prefix(host_in, w, copy);
      if (r[b].value != want) {
        snprintf(detail, len,
                 "block %lld: its %lld look-backs over %d word(s) of copy %d summed to %u; the "
                 "host's prefix x %lld is %u (mod 2^32)",
                 b, iters, w, copy, r[b].value, iters, want);
        return -1;
      }
    }
  }
  if (flags & SB_BARRIER_VF_PAIR) {
    if (blocks != 2) {
      snprintf(detail, len, "the hand-off ran %lld blocks; want 2", blocks);
      return -1;
    }
    for (int b = 0; b < 2; ++b)
      if (r[b].value != (uint32_t)iters) {
        snprintf(detail, len, "block %d received token %u last; want %lld (one per round trip)",
                 b, r[b].value, iters);
        return -1;
      }
    const uint32_t *smid = sb_barrier_pair_smids(out);
    if (smid[0] == smid[1]) {
      snprintf(detail, len, "blocks 0 and 1 both ran on SM %u: the hand-off must cross SMs",
               smid[0]);
      return -1;
    }
  }
  return 0;
}

long long sb_barrier_check_out(const void *out, long long iters, long long want,
                               long long reporters, char *detail, size_t len) {
  return sb_barrier_check_tally(out, iters, want, reporters, 1, detail, len);
}

/* The header block 0 writes: its magic, the loop count the kernel ran
 * (`what`: its unit) and a grid of lo..hi blocks. Returns 0, or -1 with the
 * problem in detail. */
static int check_head(const sb_barrier_head *h, long long iters, int lo, int hi, const char *what,
                      char *detail, size_t len) {
  if (h->magic != SB_BARRIER_MAGIC) {
    snprintf(detail, len, "block 0 wrote no header (magic 0x%08x)", h->magic);
    return -1;
  }
  if ((long long)h->iters != iters || h->grid_blocks < (uint32_t)lo || h->grid_blocks > (uint32_t)hi) {
    snprintf(detail, len, "header says %u blocks, %u %s; want %d..%d blocks, %lld %s", h->grid_blocks,
             h->iters, what, lo, hi, iters, what);
    return -1;
  }
  return 0;
}

/* Whether a loop's cycles were recorded: above zero and below the runner's
 * poison (0xA5 bytes), which an atomic minimum over launches leaves alone
 * where no launch reached the record. */
static int recorded(unsigned long long cycles) { return cycles > 0 && cycles < 0xA5A5A5A5A5A5A5A5ULL; }

long long sb_barrier_check_tally(const void *out, long long iters, long long want,
                                 long long reporters, int need_cycles, char *detail, size_t len) {
  const sb_barrier_head *h = out;
  const sb_barrier_rec *r = (const sb_barrier_rec *)(h + 1);
  if (check_head(h, iters, 1, SB_BARRIER_MAX_BLOCKS, "iters", detail, len) != 0) return -1;
  long long bad = 0, first = -1;
  for (long long b = 0; b < h->grid_blocks; ++b) {
    int ok = r[b].ok_min == (uint32_t)want && r[b].ok_max == (uint32_t)want &&
             r[b].reporters == (uint32_t)reporters &&
             (!need_cycles || recorded(r[b].cycles));
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

const sb_handoff_probe *sb_barrier_sweep_probes(const void *out) {
  return (const sb_handoff_probe *)((const unsigned char *)out + SB_HANDOFF_PROBE_OFFSET);
}

long long sb_barrier_check_sweep(const void *out, long long iters, char *detail, size_t len) {
  const sb_barrier_head *h = out;
  if (check_head(h, iters, 2, SB_HANDOFF_MAX_SMS, "round trips a probe", detail, len) != 0) return -1;
  const int n = (int)h->grid_blocks;
  const long long probes = sb_handoff_probes(n);
  const sb_handoff_probe *q = sb_barrier_sweep_probes(out);
  for (long long j = 0; j < probes; ++j) {
    int a, b;
    sb_handoff_pair((int)j, n, &a, &b);
    for (int side = 0; side < 2; ++side)
      if (q[j].rounds[side] != (uint32_t)iters || !recorded(q[j].cycles[side])) {
        snprintf(detail, len,
                 "probe %lld (SM ranks %d-%d), side %d: %u of %lld round trips proven, cycles %llu",
                 j, a, b, side, q[j].rounds[side], iters, q[j].cycles[side]);
        return -1;
      }
    if (q[j].smid[0] == q[j].smid[1]) {
      snprintf(detail, len, "probe %lld: both sides ran on SM %u: the hand-off must cross SMs", j,
               q[j].smid[0]);
      return -1;
    }
  }
  return probes;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of n values, sorting them in place. */
static double sb_median_of(double *c, long long n) {
  qsort(c, (size_t)n, sizeof *c, cmp_double);
  return n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
}

/* The mean of n values with the lowest and the highest n / 10 left out
 * (a plain mean below 10 values), sorting them in place. */
static double sb_trimmed_mean_of(double *c, long long n) {
  qsort(c, (size_t)n, sizeof *c, cmp_double);
  const long long cut = n / 10;
  double sum = 0;
  for (long long i = cut; i < n - cut; ++i) sum += c[i];
  return sum / (double)(n - 2 * cut);
}

void sb_barrier_cycles(const void *out, long long blocks, long long iters, int full, double *mid, double *lo,
                       double *hi, double *spread) {
  const sb_barrier_rec *r = (const sb_barrier_rec *)((const sb_barrier_head *)out + 1);
  double *c = malloc((size_t)blocks * sizeof *c);
  if (!c) {
    *mid = *lo = *hi = NAN;
    return;
  }
  for (long long b = 0; b < blocks; ++b) c[b] = (double)r[b].cycles / (double)iters;
  const double trimmed = sb_trimmed_mean_of(c, blocks); /* sorts c */
  *mid = full ? sb_quantile_sorted(c, (size_t)blocks, 0.90) : trimmed;
  *lo = c[0];
  *hi = c[blocks - 1];
  static const double at[SB_BARRIER_SPREAD] = {0.10, 0.25, 0.50, 0.75, 0.90};
  for (int i = 0; spread && i < SB_BARRIER_SPREAD; ++i) spread[i] = sb_quantile_sorted(c, (size_t)blocks, at[i]);
  free(c);
}

/* ---- family hooks ---- */

static int participants(const sb_point *p) {
  long long v = p->axis[SB_AXIS_PARTICIPANTS];
  return v == SB_AXIS_UNSET ? SB_PART_ALL : (int)v;
}

/* The default (and quick) grid keeps the rows priced between SMs to
 * participants=all and block_threads 32, 256, 1024 (sb_barrier_device_block:
 * a few points each, seconds of sweep); flag_handoff runs one block per
 * SM whatever the list says, SB_HANDOFF_ROUNDS round trips a probe unless
 * the command line gives iters. An axis given on
 * the command line is kept, and barrier_check says why a point cannot run. */
static int barrier_in_sweep(sb_point *p, unsigned long long user_axes) {
  const unsigned f = p->variant->flags;
  /* A pair that is one cluster (dsmem_handoff): cluster 2 only, one block
   * per SM, unless the command line asked (barrier_check then says why). */
  if ((f & SB_BARRIER_VF_PAIR) && (f & SB_BARRIER_VF_CLUSTER)) {
    if (!((user_axes >> SB_AXIS_CLUSTER) & 1) && p->axis[SB_AXIS_CLUSTER] != 2) return 0;
    if (!((user_axes >> SB_AXIS_CONTENTION) & 1)) p->axis[SB_AXIS_CONTENTION] = SB_CONT_ONE_BLOCK;
    return 1;
  }
  if (!(f & SB_BARRIER_VF_DEVICE)) return 1;
  if (!((user_axes >> SB_AXIS_PARTICIPANTS) & 1) && participants(p) != SB_PART_ALL) return 0;
  if (!((user_axes >> SB_AXIS_BLOCK) & 1) && !sb_barrier_device_block(p->axis[SB_AXIS_BLOCK]))
    return 0;
  if ((f & SB_BARRIER_VF_PAIR) && !((user_axes >> SB_AXIS_CONTENTION) & 1))
    p->axis[SB_AXIS_CONTENTION] = SB_CONT_ONE_BLOCK;
  if ((f & SB_BARRIER_VF_SWEEP) && !((user_axes >> SB_AXIS_ITERS) & 1))
    p->axis[SB_AXIS_ITERS] = SB_HANDOFF_ROUNDS; /* round trips per probe */
  if ((f & SB_BARRIER_VF_HELD) && !((user_axes >> SB_AXIS_ITERS) & 1))
    p->axis[SB_AXIS_ITERS] = SB_BARRIER_HELD_ITERS; /* what the launch queue takes at once */
  return 1;
}

static const char *barrier_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  (void)d;
  if ((p->variant->flags & SB_BARRIER_VF_PAIR) && p->axis[SB_AXIS_CONTENTION] == SB_CONT_FULL) {
    snprintf(buf, len, "%s launches 2 blocks, one per SM: contention must be one_block_per_sm",
             p->variant->name);
    return buf;
  }
  if ((p->variant->flags & SB_BARRIER_VF_PAIR) && (p->variant->flags & SB_BARRIER_VF_CLUSTER) &&
      p->axis[SB_AXIS_CLUSTER] != 2) {
    snprintf(buf, len, "%s's pair is one cluster of 2 CTAs: cluster must be 2", p->variant->name);
    return buf;
  }
  long long bytes = p->axis[SB_AXIS_BUFFER_BYTES];
  if (bytes != SB_AXIS_UNSET && (bytes % 16 != 0 || bytes > 64 * 1024)) {
    snprintf(buf, len, "a bulk copy moves a multiple of 16 bytes; this family sweeps up to 64 KB: %lld", bytes);
    return buf;
  }
  return sb_barrier_rule(p->variant, participants(p), p->axis[SB_AXIS_BLOCK], buf, len);
}

/* Checks a launch's output against what the point's kernels must report,
 * given the point's input. Returns the block count or -1. */
static long long barrier_check_point(const sb_point *p, const void *host_in, const void *out,
                                     char *detail, size_t len) {
  const unsigned f = p->variant->flags;
  const long long block = p->axis[SB_AXIS_BLOCK], iters = p->axis[SB_AXIS_ITERS];
  if (f & SB_BARRIER_VF_SWEEP) return sb_barrier_check_sweep(out, iters, detail, len);
  const long long blocks = sb_barrier_check_tally(
      out, iters, sb_barrier_want(f, iters, block), sb_barrier_reporters(f, participants(p), block),
      !(f & SB_BARRIER_VF_HOST_TIMED), detail, len);
  if (blocks < 0 || sb_barrier_check_values(f, host_in, out, blocks, iters, detail, len) != 0)
    return -1;
  return blocks;
}

static size_t barrier_in_bytes(const sb_point *p) {
  const int w = SB_BARRIER_WALK_OF(p->variant->flags);
  if (w > 0) return sb_barrier_walk_words(w) * sizeof(uint64_t);
  long long bytes = p->axis[SB_AXIS_BUFFER_BYTES];
  /* tma: each block's (cluster's) own pair of source halves */
  return bytes == SB_AXIS_UNSET ? 16 : (size_t)sb_barrier_tma_pairs(bytes) * 2 * (size_t)bytes;
}

static size_t barrier_out_bytes(const sb_point *p) {
  return p->variant->flags & SB_BARRIER_VF_SWEEP ? SB_HANDOFF_OUT_BYTES : SB_BARRIER_OUT_BYTES;
}

static void barrier_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  const int w = SB_BARRIER_WALK_OF(p->variant->flags);
  if (w > 0)
    sb_barrier_walk_fill(host_in, w, seed);
  else
    sb_fill_u32(host_in, barrier_in_bytes(p) / sizeof(uint32_t), seed);
}

static int barrier_verify(const sb_point *p, const sb_check *check, const void *host_in,
                          const void *host_out, char *detail, size_t len) {
  (void)check;
  return barrier_check_point(p, host_in, host_out, detail, len) < 0 ? -1 : 0;
}

/* derive's check of the timed output: the input again, from the row's seed
 * (a walk's expected prefixes come from it). */
static long long barrier_check_timed(const sb_point *p, const void *host_out, sb_row *row) {
  void *in = malloc(barrier_in_bytes(p));
  if (!in) {
    snprintf(row->detail, sizeof row->detail, "out of host memory for the input");
    return -1;
  }
  barrier_make_input(p, in, row->seed);
  const long long blocks = barrier_check_point(p, in, host_out, row->detail, sizeof row->detail);
  free(in);
  return blocks;
}

/* flag_handoff's sweep: one figure per probe (the mean of its two sides'
 * fastest launches, per one-way hand-off), then the mean over probes: the
 * probes fall into two modes by the flag's page (near and far L2 on an
 * H200: page medians 470 and 650 cycles relaxed), and the median over
 * probes sits between them, where a process's share of near pages moved it
 * by up to 1.9%; the mean moved by at most 0.5% (docs/barrier.md). */
static int sweep_figures(const void *out, long long probes, long long iters, double *c) {
  const sb_handoff_probe *q = sb_barrier_sweep_probes(out);
  for (long long j = 0; j < probes; ++j)
    c[j] = 0.5 * ((double)q[j].cycles[0] + (double)q[j].cycles[1]) / (double)(2 * iters);
  return 0;
}

int sb_barrier_sweep_stats(const void *out, long long probes, long long iters, sb_sweep_stats *st) {
  if (probes < 1) return -1;
  double *c = malloc((size_t)probes * sizeof *c), *s = malloc((size_t)probes * sizeof *s);
  if (!c || !s) {
    free(c), free(s);
    return -1;
  }
  sweep_figures(out, probes, iters, c);
  st->lo_probe = st->hi_probe = 0;
  for (long long j = 0; j < probes; ++j) {
    if (c[j] < c[st->lo_probe]) st->lo_probe = j;
    if (c[j] > c[st->hi_probe]) st->hi_probe = j;
  }
  st->lo = c[st->lo_probe], st->hi = c[st->hi_probe];
  /* the median over every probe, over SM 0's (the first half) and the cross pairs */
  const long long half = probes / 2;
  memcpy(s, c, (size_t)probes * sizeof *s);
  st->median = sb_median_of(s, probes);
  st->mean = 0;
  for (long long j = 0; j < probes; ++j) st->mean += c[j] / (double)probes;
  memcpy(s, c, (size_t)half * sizeof *s);
  st->median_sm0 = sb_median_of(s, half);
  memcpy(s, c + half, (size_t)(probes - half) * sizeof *s);
  st->median_cross = sb_median_of(s, probes - half);
  free(c), free(s);
  return 0;
}

static int sweep_derive(const sb_point *p, const void *out, long long probes, sb_row *row) {
  const long long iters = p->axis[SB_AXIS_ITERS];
  sb_sweep_stats st;
  if (sb_barrier_sweep_stats(out, probes, iters, &st) != 0) {
    snprintf(row->detail, sizeof row->detail, "out of host memory for the sweep's statistics");
    return -1;
  }
  row->cycles_per_op = st.mean;
  if (!isnan(row->sm_clock_mhz) && row->sm_clock_mhz > 0)
    row->ns_per_op = st.mean * 1000.0 / row->sm_clock_mhz;
  const sb_handoff_probe *q = sb_barrier_sweep_probes(out);
  const sb_handoff_probe *lo = &q[st.lo_probe], *hi = &q[st.hi_probe];
  snprintf(row->detail, sizeof row->detail,
           "one-way hand-off = round trip / 2; mean over %lld probes (SM pairs x flag places): "
           "%.2f cycles; median %.2f, min %.2f (SMs %u-%u, place %zu), max %.2f (SMs %u-%u, place %zu); "
           "median with SM 0 %.2f, across the chip %.2f",
           probes, st.mean, st.median, st.lo, lo->smid[0], lo->smid[1], sb_handoff_place((int)st.lo_probe),
           st.hi, hi->smid[0], hi->smid[1], sb_handoff_place((int)st.hi_probe), st.median_sm0,
           st.median_cross);
  return sb_barrier_sweep_map(p, out, probes, row);
}

/* SB_HANDOFF_MAP=path: every probe of a sweep row appended to path as
 * CSV (the plot of latency by SM pair and flag place reads it). */
int sb_barrier_sweep_map(const sb_point *p, const void *out, long long probes, const sb_row *row) {
  const char *path = getenv("SB_HANDOFF_MAP");
  if (!path || !*path) return 0;
  FILE *f = fopen(path, "a");
  if (!f) {
    fprintf(stderr, "syncbench: SB_HANDOFF_MAP=%s: cannot open for appending\n", path);
    return 0; /* the row stands; its map is lost, and said so */
  }
  if (ftell(f) == 0)
    fprintf(f, "variant,block_threads,probe,sm_a,sm_b,place,cycles_per_op,gpu_uuid,commit\n");
  const sb_handoff_probe *q = sb_barrier_sweep_probes(out);
  const long long iters = p->axis[SB_AXIS_ITERS];
  double *c = malloc((size_t)probes * sizeof *c);
  if (c) {
    sweep_figures(out, probes, iters, c);
    for (long long j = 0; j < probes; ++j)
      fprintf(f, "%s,%lld,%lld,%u,%u,%zu,%.2f,%s,%s\n", p->variant->name, p->axis[SB_AXIS_BLOCK], j,
              q[j].smid[0], q[j].smid[1], sb_handoff_place((int)j), c[j], row->prov->gpu_uuid,
              row->prov->commit);
  }
  free(c);
  fclose(f);
  return 0;
}

/* A kernel boundary: the host timed `iters` launches (or one graph of
 * `iters` nodes; or `iters` programmatic dependent launches, SB_VF_PDL) per
 * sample, in the context the timer chose for them (sb_context_note: how);
 * per boundary = the median / iters, in ns and in cycles at the SM clock
 * measured over the samples. */
static int boundary_derive(const sb_point *p, long long blocks, sb_row *row) {
  const long long iters = p->axis[SB_AXIS_ITERS];
  row->ns_per_op = row->median_us * 1000.0 / (double)iters;
  if (!isnan(row->sm_clock_mhz) && row->sm_clock_mhz > 0)
    row->cycles_per_op = row->ns_per_op * row->sm_clock_mhz / 1000.0;
  const char *where = sb_context_note();
  snprintf(row->detail, sizeof row->detail,
           "%s: a sample is %lld %slaunches of %lld blocks x %lld threads; per boundary = "
           "median sample / %lld (quartiles %.1f..%.1f ns)%s%s",
           p->variant->flags & SB_BARRIER_VF_HELD ? "held stream, GPU-paced" : "host-timed graph",
           iters, p->variant->flags & SB_VF_PDL ? "programmatic dependent (PDL) " : "", blocks,
           p->axis[SB_AXIS_BLOCK], iters, row->q1_us * 1000.0 / (double)iters,
           row->q3_us * 1000.0 / (double)iters, where[0] ? "; " : "", where);
  return 0;
}

/* cycles_per_op: from each block's loop cycles / iters, where each
 * block's cycles are its fastest launch (an atomic minimum over the
 * validation, warm-up and timed launches, at every place the samples were
 * taken: the output moves with its records; barrier_tma's at each place on
 * its own, SB_FF_PRICE_PER_PLACE, the row the median of the places' prices,
 * barrier_place_price); the per-block minimum over
 * launches makes back-to-back runs agree. One block per SM: the mean over
 * blocks with the fastest and the slowest tenth left out (schema 12; not
 * the max: a single block delayed by something outside the loop, a clock
 * hiccup, should not set the price). Full occupancy (schema 14): the 90th
 * percentile over the blocks, the price nine blocks in ten pay at most.
 * There the blocks fall in groups (most likely by their turn on the SM:
 * one runs part of its loop alone while its neighbour starts or ends, the
 * other never does), and the share of blocks in each moved from one
 * process to the next: near half each for the intra-block rows, where the
 * median fell in either group (12-23% apart, the per-block range
 * unchanged), and a tenth to a third fast for tma_roundtrip, where the
 * trimmed mean moved 3-4% with them; the 90th percentile held in both
 * (docs/history.md). min and max and five percentiles over blocks go into
 * detail. */
static int barrier_derive(const sb_point *p, const sb_device *d, const void *host_out, sb_row *row) {
  (void)d;
  const unsigned f = p->variant->flags;
  const long long iters = p->axis[SB_AXIS_ITERS];
  const long long blocks = barrier_check_timed(p, host_out, row);
  if (blocks < 0) return -1; /* the timed launch's count or result failed */
  if (f & SB_BARRIER_VF_HOST_TIMED) return boundary_derive(p, blocks, row);
  if (f & SB_BARRIER_VF_SWEEP) return sweep_derive(p, host_out, blocks, row);
  double med, lo, hi, q[SB_BARRIER_SPREAD];
  const int full = p->axis[SB_AXIS_CONTENTION] == SB_CONT_FULL;
  sb_barrier_cycles(host_out, blocks, iters * sb_barrier_ops_per_iter(f), full, &med, &lo, &hi, q);
  row->cycles_per_op = med;
  if (!isnan(row->sm_clock_mhz) && row->sm_clock_mhz > 0)
    row->ns_per_op = med * 1000.0 / row->sm_clock_mhz;
  if (f & SB_BARRIER_VF_PAIR) {
    const sb_barrier_rec *r = (const sb_barrier_rec *)((const sb_barrier_head *)host_out + 1);
    const uint32_t *smid = sb_barrier_pair_smids(host_out);
    const double ops = (double)(iters * sb_barrier_ops_per_iter(f));
    snprintf(row->detail, sizeof row->detail,
             "one-way hand-off = round trip / 2, the mean of the two sides' fastest launches: "
             "block 0 on SM %u %.2f, block 1 on SM %u %.2f cycles",
             smid[0], (double)r[0].cycles / ops, smid[1], (double)r[1].cycles / ops);
    return 0;
  }
  snprintf(row->detail, sizeof row->detail,
           "%s over %lld blocks of each block's fastest launch; blocks range %.2f..%.2f cycles/op, "
           "percentiles 10/25/50/75/90 over the blocks %.2f/%.2f/%.2f/%.2f/%.2f",
           full ? "90th percentile" : "mean (a tenth trimmed each side)", blocks, lo, hi, q[0], q[1], q[2], q[3],
           q[4]);
  return 0;
}

/* SB_FF_PRICE_PER_PLACE (barrier_tma): one place's price, derive's figure
 * (the 90th percentile or the trimmed mean over blocks) from the records
 * that place's launches left; -1 where a block left its poison (no launch
 * at this place recorded it). */
static int barrier_place_price(const sb_point *p, const void *host_out, double *price) {
  const sb_barrier_head *h = (const sb_barrier_head *)host_out;
  if (h->magic != SB_BARRIER_MAGIC || h->grid_blocks == 0 || h->grid_blocks > SB_BARRIER_MAX_BLOCKS) return -1;
  const sb_barrier_rec *r = (const sb_barrier_rec *)(h + 1);
  for (uint32_t b = 0; b < h->grid_blocks; ++b)
    if (!recorded(r[b].cycles)) return -1;
  double lo, hi;
  const long long ops = p->axis[SB_AXIS_ITERS] * sb_barrier_ops_per_iter(p->variant->flags);
  sb_barrier_cycles(host_out, h->grid_blocks, ops, p->axis[SB_AXIS_CONTENTION] == SB_CONT_FULL, price, &lo, &hi,
                    NULL);
  return isnan(*price) ? -1 : 0;
}

#define BARRIER_HOOKS                        \
  .in_sweep = barrier_in_sweep,              \
  .check = barrier_check,                    \
  .in_bytes = barrier_in_bytes,              \
  .out_bytes = barrier_out_bytes,            \
  .bytes_moved = NULL,                       \
  .derive = barrier_derive,                  \
  .skip_timed_recheck = 1,                   \
  .make_input = barrier_make_input,          \
  .verify = barrier_verify

/* The kinds the scripts read from --list (scripts/explain.py, sass_sync.py). */
static const sb_trait_name barrier_traits[] = {
    {SB_BARRIER_VF_CALIBRATION, "calibration"}, /* profiled first: its wait is known */
    {SB_BARRIER_VF_SPELLING, "spelling"},       /* one arrive + wait in one API's spelling */
    {0, NULL}};

const sb_family sb_family_barrier = {
    .name = "barrier",
    .summary = "cycles per synchronization op: block-scope primitives, grid_sync, and between SMs "
               "(flag hand-off, look-back walk, kernel boundary)",
    .variants = &sb_barrier_variants,
    .variant_traits = barrier_traits,
    /* 32, 256, 1024: a warp, the common size and the largest (the prices
     * between SMs' own three); 64 and 512 added 200 points (19 s on an
     * H100) and no turn in any curve, 128 its 102 (12 s) and none either. */
    .default_axes = {[SB_AXIS_BLOCK] = "32,256,1024",
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
    .flags = SB_FF_PRICE_PER_PLACE,
    .place_price = barrier_place_price,
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
