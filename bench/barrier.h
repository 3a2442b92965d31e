/* Barrier families: host-side rules the tests exercise (bench/barrier.c). */
#ifndef SB_BENCH_BARRIER_H
#define SB_BENCH_BARRIER_H

#include <stddef.h>

/* Why variant `variant` cannot run with these participants (SB_PART_*) and
 * this block size, or NULL if it can. */
const char *sb_barrier_rule(const char *variant, int participants, long long block,
                            char *buf, size_t len);

/* Threads per block that must report a proven tally. */
long long sb_barrier_reporters(const char *variant, int participants, long long block);

/* Checks the kernel's output (kernels/barrier_layout.h) of a launch that ran
 * `iters` phases with `reporters` reporting threads per block. Returns the
 * block count, or -1 with the first problem in detail. */
long long sb_barrier_check_out(const void *out, long long iters, long long reporters,
                               char *detail, size_t len);

/* Median and extremes of the per-block cycles/iters of a checked output. */
void sb_barrier_cycles(const void *out, long long blocks, long long iters,
                       double *median, double *lo, double *hi);

#endif
