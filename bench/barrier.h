/* Barrier families: host-side rules the tests exercise (bench/barrier.c). */
#ifndef SB_BENCH_BARRIER_H
#define SB_BENCH_BARRIER_H

#include <stddef.h>
#include <stdint.h>

#include "../harness/family.h"
#include "../harness/launch.h"
#include "../kernels/families/barrier_layout.h"

/* The variant tables (kernels/families/barrier.cu). */
extern const sb_variant_table sb_barrier_variants, sb_barrier_tma_variants,
    sb_barrier_cluster_variants;

/* Why variant v (its SB_BARRIER_VF_* traits) cannot run with these
 * participants (SB_PART_*) and this block size, or NULL if it can. */
const char *sb_barrier_rule(const sb_variant *v, int participants, long long block,
                            char *buf, size_t len);

/* Threads per block that must report a count. */
long long sb_barrier_reporters(unsigned flags, int participants, long long block);

/* The count every reporter must report after `iters` operations: iters,
 * or for the pointer chase (SB_BARRIER_VF_CHASE) the hops mod the length
 * of its chain. */
long long sb_barrier_want(unsigned flags, long long iters, long long block);

/* Checks the kernel's output (kernels/families/barrier_layout.h) of a launch that ran
 * `iters` operations, where each of `reporters` threads per block must
 * have counted `want`. Returns the block count, or -1 with the first
 * problem in detail. */
long long sb_barrier_check_out(const void *out, long long iters, long long want,
                               long long reporters, char *detail, size_t len);
/* The same; need_cycles 0 for an output whose blocks timed nothing (the
 * host-timed kernel-boundary rows leave `cycles` poisoned). */
long long sb_barrier_check_tally(const void *out, long long iters, long long want,
                                 long long reporters, int need_cycles, char *detail, size_t len);

/* The results beyond the tally, for the rows that report one (`value`,
 * `smid`): every block of a lookback_walk row summed iters x its copy's
 * prefix (sb_barrier_walk_prefix of host_in, mod 2^32); flag_handoff's two
 * blocks received token iters last and ran on different SMs. Other rows:
 * nothing to check. Returns 0, or -1 with the first problem in detail. */
int sb_barrier_check_values(unsigned flags, const void *host_in, const void *out, long long blocks,
                            long long iters, char *detail, size_t len);

/* flag_handoff(_relaxed)'s sweep (SB_BARRIER_VF_SWEEP; barrier_layout.h):
 * its probes in an output; the check of an output (the header, every
 * probe's two sides proved `iters` round trips, timed them and ran on two
 * SMs), returning the probe count or -1 with the first problem in detail;
 * the statistics over the probes' one-way figures (each the mean of the
 * two sides' fastest launches / (2 iters)): mean (the row's figure),
 * median, extremes and the probes
 * that set them, and the medians over SM 0's probes (the first half) and
 * over the pairs across the chip; and the per-probe CSV that SB_HANDOFF_MAP
 * names (appended; nothing without it). */
typedef struct sb_sweep_stats {
  double mean, median, lo, hi, median_sm0, median_cross;
  long long lo_probe, hi_probe;
} sb_sweep_stats;
const sb_handoff_probe *sb_barrier_sweep_probes(const void *out);
long long sb_barrier_check_sweep(const void *out, long long iters, char *detail, size_t len);
int sb_barrier_sweep_stats(const void *out, long long probes, long long iters, sb_sweep_stats *st);
int sb_barrier_sweep_map(const sb_point *p, const void *out, long long probes, const sb_row *row);

/* dsmem_handoff's two %smid words in an output (SB_BARRIER_PAIR_SMID). */
const uint32_t *sb_barrier_pair_smids(const void *out);

/* Operations per loop trip: 2 for flag_handoff (a round trip is two one-way
 * hand-offs, SB_BARRIER_VF_PAIR), else 1. */
long long sb_barrier_ops_per_iter(unsigned flags);

/* The block sizes the default and quick sweeps keep for the rows priced
 * between SMs (SB_BARRIER_VF_DEVICE): 32, 256, 1024. */
int sb_barrier_device_block(long long block);

/* lookback_walk's input (kernels/families/barrier_layout.h: SB_BARRIER_WALK_COPIES
 * copies of SB_BARRIER_WALK_STRIDE(w) packed status words): its length in
 * words, the fill (random values, statuses by position) and the prefix a
 * look-back over copy `copy` must return: the values of the w words from
 * the P on, mod 2^32. */
size_t sb_barrier_walk_words(int w);
void sb_barrier_walk_fill(uint64_t *words, int w, uint64_t seed);
uint32_t sb_barrier_walk_prefix(const uint64_t *words, int w, int copy);

/* The per-block cycles/iters of a checked output: the price (mid), with
 * `full` (full occupancy) their 90th percentile, else their mean with the
 * lowest and highest tenth of the blocks left out; their extremes,
 * and (when `spread` is not NULL) their 10th, 25th, 50th, 75th and 90th
 * percentiles over the blocks, for the row's detail. */
#define SB_BARRIER_SPREAD 5
void sb_barrier_cycles(const void *out, long long blocks, long long iters, int full,
                       double *mid, double *lo, double *hi, double *spread);

#endif
