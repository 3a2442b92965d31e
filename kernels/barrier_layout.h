/* Barrier families: the output buffer layout shared by kernels/barrier.cu
 * (which writes it) and bench/barrier.c (which checks and reads it).
 *
 *   sb_barrier_head                      written by block 0, thread 0
 *   sb_barrier_rec[SB_BARRIER_MAX_BLOCKS] one per block of the launch
 *   uint32_t exchange[2][SB_BARRIER_MAX_BLOCKS]  grid_sync's proof slots
 *
 * `cycles` is an atomic minimum over every launch since the buffer was
 * poisoned (0xA5 bytes, a huge unsigned value): each block's fastest
 * launch. ok_min and reporters are plain stores: the last launch's tally. */
#ifndef SB_BARRIER_LAYOUT_H
#define SB_BARRIER_LAYOUT_H

#include <stdint.h>

#define SB_BARRIER_MAX_BLOCKS 8192
#define SB_BARRIER_MAGIC 0x42415252u /* "BARR" */

typedef struct sb_barrier_head {
  uint32_t grid_blocks; /* blocks the launch used */
  uint32_t iters;       /* the loop count the kernel ran */
  uint32_t magic;       /* SB_BARRIER_MAGIC */
  uint32_t pad;
} sb_barrier_head;

typedef struct sb_barrier_rec {
  unsigned long long cycles; /* clock64 ticks of the timed loop, thread 0 */
  uint32_t ok_min;           /* fewest proven phases over reporting threads */
  uint32_t reporters;        /* threads that reported a tally */
} sb_barrier_rec;

#define SB_BARRIER_OUT_BYTES                                          \
  (sizeof(sb_barrier_head) + SB_BARRIER_MAX_BLOCKS * sizeof(sb_barrier_rec) + \
   2 * SB_BARRIER_MAX_BLOCKS * sizeof(uint32_t))

/* Values of the categorical axes (harness/axes.h order). */
enum { SB_PART_ALL = 0, SB_PART_WARP = 1, SB_PART_ELECTED = 2 };
enum { SB_CONT_ONE_BLOCK = 0, SB_CONT_FULL = 1 };

#endif
