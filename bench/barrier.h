/* Barrier families: host-side rules the tests exercise (bench/barrier.c). */
#ifndef SB_BENCH_BARRIER_H
#define SB_BENCH_BARRIER_H

#include <stddef.h>

#include "../harness/launch.h"

/* The variant tables (kernels/barrier.cu). */
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

/* Checks the kernel's output (kernels/barrier_layout.h) of a launch that ran
 * `iters` operations, where each of `reporters` threads per block must
 * have counted `want`. Returns the block count, or -1 with the first
 * problem in detail. */
long long sb_barrier_check_out(const void *out, long long iters, long long want,
                               long long reporters, char *detail, size_t len);

/* Median and extremes of the per-block cycles/iters of a checked output. */
void sb_barrier_cycles(const void *out, long long blocks, long long iters,
                       double *median, double *lo, double *hi);

#endif
