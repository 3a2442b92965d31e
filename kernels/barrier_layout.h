/* Barrier families: the output buffer layout shared by kernels/barrier.cu
 * (which writes it) and bench/barrier.c (which checks and reads it).
 *
 *   sb_barrier_head                      written by block 0, thread 0
 *   sb_barrier_rec[SB_BARRIER_MAX_BLOCKS] one per block of the launch
 *   uint32_t exchange[2][SB_BARRIER_MAX_BLOCKS]  grid_sync's proof slots
 *
 * `cycles` is an atomic minimum over every launch since the buffer was
 * poisoned (0xA5 bytes, a huge unsigned value): each block's fastest
 * launch. ok_min, ok_max and reporters are plain stores: the last launch's
 * tally. What a reporter counts: proven phases (validating kernels, the
 * hand-off variants), completed operations (timed kernels), or, for the
 * pointer chase, hops mod the chain's length. */
#ifndef SB_BARRIER_LAYOUT_H
#define SB_BARRIER_LAYOUT_H

#include <stdint.h>

#include "../harness/launch.h"

#define SB_BARRIER_MAX_BLOCKS 8192
#define SB_BARRIER_MAX_THREADS 1024 /* the kernels' launch bound */
#define SB_BARRIER_MAGIC 0x42415252u /* "BARR" */

typedef struct sb_barrier_head {
  uint32_t grid_blocks; /* blocks the launch used */
  uint32_t iters;       /* the loop count the kernel ran */
  uint32_t magic;       /* SB_BARRIER_MAGIC */
  uint32_t pad;
} sb_barrier_head;

typedef struct sb_barrier_rec {
  unsigned long long cycles; /* clock64 ticks of the timed loop, thread 0 */
  uint32_t ok_min;           /* smallest count over reporting threads */
  uint32_t ok_max;           /* largest: with ok_min, pins every reporter's count */
  uint32_t reporters;        /* threads that reported a count */
  uint32_t pad;
} sb_barrier_rec;

#define SB_BARRIER_OUT_BYTES                                          \
  (sizeof(sb_barrier_head) + SB_BARRIER_MAX_BLOCKS * sizeof(sb_barrier_rec) + \
   2 * SB_BARRIER_MAX_BLOCKS * sizeof(uint32_t))

/* smem_latency's chain: words of shared memory it chases through. A
 * multiple of 32 (a warp's 32 consecutive lanes never share a bank, even
 * across the wrap) with an odd factor (block/16 + 1, block a multiple of
 * 32), so that a power-of-two number of hops never brings a thread back to
 * its start and the end of the chase tells how far it went. */
#define SB_BARRIER_CHASE_SLOTS(block) (2 * (block) + 32)

/* Trait flags of the variant table (kernels/barrier.cu), read by the host
 * side's rules instead of variant names. */
enum sb_barrier_variant_flag {
  SB_BARRIER_VF_BLOCK = SB_VF_FAMILY0 << 0,     /* synchronizes the whole block */
  SB_BARRIER_VF_GRID = SB_VF_FAMILY0 << 1,      /* the whole grid (cooperative launch) */
  SB_BARRIER_VF_CLUSTER = SB_VF_FAMILY0 << 2,   /* the whole cluster (cluster launch) */
  SB_BARRIER_VF_WARPS = SB_VF_FAMILY0 << 3,     /* counts whole warps: no `elected` */
  SB_BARRIER_VF_HALVES = SB_VF_FAMILY0 << 4,    /* `all`: two half-blocks of whole warps */
  SB_BARRIER_VF_DROP_HALF = SB_VF_FAMILY0 << 5, /* half the participants drop out */
  SB_BARRIER_VF_THREAD0 = SB_VF_FAMILY0 << 6,   /* thread 0 alone reports */
  SB_BARRIER_VF_CHASE = SB_VF_FAMILY0 << 7      /* reports hops mod the chain length */
};

/* Values of the categorical axes (harness/axes.h order). */
enum { SB_PART_ALL = 0, SB_PART_WARP = 1, SB_PART_ELECTED = 2 };
enum { SB_CONT_ONE_BLOCK = 0, SB_CONT_FULL = 1 };

#endif
