/* Barrier families: the output buffer layout shared by kernels/families/barrier.cu
 * (which writes it) and bench/barrier.c (which checks and reads it).
 *
 *   sb_barrier_head                      written by block 0, thread 0
 *   sb_barrier_rec[SB_BARRIER_MAX_BLOCKS] one per block of the launch
 *   uint32_t exchange[2][SB_BARRIER_MAX_BLOCKS]  grid_sync's proof slots;
 *                                        flag_handoff's flags, payloads and
 *                                        SMs (SB_BARRIER_PAIR_SMID)
 *
 * `cycles` is an atomic minimum over every launch since the buffer was
 * poisoned (0xA5 bytes, a huge unsigned value): each block's fastest
 * launch. ok_min, ok_max, reporters and value are plain stores: the
 * last launch's tally. What a reporter counts: proven phases (validating
 * kernels, the hand-off variants), completed operations (timed kernels), or,
 * for the pointer chase, hops mod the chain's length. `value` is thread 0's
 * result where the host checks one (lookback_walk: the sum of its
 * look-backs' prefixes; flag_handoff: the last token it received).
 *
 * The kernel-boundary rows (SB_BARRIER_VF_HOST_TIMED) are timed on the host:
 * their validating launches (kernels that count the boundaries they saw)
 * write the tally and leave `cycles` poisoned. */
#ifndef SB_BARRIER_LAYOUT_H
#define SB_BARRIER_LAYOUT_H

#include <stdint.h>

#include "../../harness/launch.h"

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
  uint32_t value;            /* thread 0's checked result (see above), else 0 */
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

/* Trait flags of the variant table (kernels/families/barrier.cu), read by the host
 * side's rules instead of variant names. */
enum sb_barrier_variant_flag {
  SB_BARRIER_VF_BLOCK = SB_VF_FAMILY0 << 0,     /* synchronizes the whole block */
  SB_BARRIER_VF_GRID = SB_VF_FAMILY0 << 1,      /* the whole grid (cooperative launch) */
  SB_BARRIER_VF_CLUSTER = SB_VF_FAMILY0 << 2,   /* the whole cluster (cluster launch) */
  SB_BARRIER_VF_WARPS = SB_VF_FAMILY0 << 3,     /* counts whole warps: no `elected` */
  SB_BARRIER_VF_HALVES = SB_VF_FAMILY0 << 4,    /* `all`: two half-blocks of whole warps */
  SB_BARRIER_VF_DROP_HALF = SB_VF_FAMILY0 << 5, /* half the participants drop out */
  SB_BARRIER_VF_THREAD0 = SB_VF_FAMILY0 << 6,   /* thread 0 alone reports */
  SB_BARRIER_VF_CHASE = SB_VF_FAMILY0 << 7,     /* reports hops mod the chain length */
  /* Prices between SMs (flags through L2, kernel boundaries): participants
   * all only; the default sweep keeps block_threads 32, 256 and 1024. */
  SB_BARRIER_VF_DEVICE = SB_VF_FAMILY0 << 8,
  SB_BARRIER_VF_PAIR = SB_VF_FAMILY0 << 9,      /* blocks 0 and 1, one per SM (a 2-block
                                                   cooperative launch): each loop trip is a
                                                   round trip, two one-way hand-offs */
  SB_BARRIER_VF_HOST_TIMED = SB_VF_FAMILY0 << 10, /* a sample is `iters` launches timed by
                                                    the host: per op = median / iters */
  /* A calibration row of scripts/explain.py: a price whose wait is known
   * (bar.sync, an mbarrier wait, a shared-memory load), profiled first so
   * that the counters' reading of the others can be checked. Bit 30: above
   * SB_VF_PDL (bit 19) and the walk length (bits 20-29, below):
   * kernels/families/barrier.cu asserts they are apart. */
  SB_BARRIER_VF_CALIBRATION = SB_VF_FAMILY0 << 22
};

/* flag_handoff's blocks write their %smid at these u32 words of the
 * exchange area (block b at SB_BARRIER_PAIR_SMID + b), after the clock: the
 * host checks the two differ. */
#define SB_BARRIER_PAIR_SMID 256

/* lookback_walk_<w>: the walk length w (how many status words the look-back
 * reads back to the nearest P) rides in the row's flags, so that the host's
 * input and expected sums and the kernel's template agree by construction
 * (kernels/families/barrier.cu's WALK_ROW). 0: not a walk row. */
#define SB_BARRIER_WALK_SHIFT 20
#define SB_BARRIER_WALK_MAX 1023
#define SB_BARRIER_VF_WALK(w) ((unsigned)(w) << SB_BARRIER_WALK_SHIFT)
#define SB_BARRIER_WALK_OF(flags) ((int)(((flags) >> SB_BARRIER_WALK_SHIFT) & SB_BARRIER_WALK_MAX))

/* One block-wide arrive + wait written in one API's spelling (cuda::barrier,
 * cuda::ptx, the __mbarrier intrinsics, raw PTX): scripts/sass_sync.py asks
 * whether they compile to the same instructions. Bit 31, the last: a macro,
 * as an enumerator must fit an int. */
#define SB_BARRIER_VF_SPELLING (1u << 31)

/* lookback_walk's input: SB_BARRIER_WALK_COPIES copies of the walked words,
 * block b reading copy b % copies (spread over L2 slices, as a scan's tiles
 * read different words). Copy c is SB_BARRIER_WALK_STRIDE(w) packed status
 * words (kernels/common/flag_word.h), a multiple of 16 (128 bytes):
 *   [0, GUARD)            A words: a walk that overshoots the P adds them
 *   GUARD                 the P the walk must stop at
 *   (GUARD, GUARD + w)    A words: the w - 1 it must add on the way
 *   the rest              X words, never read
 * The look-back starts as tile GUARD + w would (reading GUARD + w - 1 down),
 * so it reads exactly w words and must return the sum of the values of
 * words GUARD .. GUARD + w - 1. */
#define SB_BARRIER_WALK_COPIES 64
#define SB_BARRIER_WALK_GUARD 32
#define SB_BARRIER_WALK_STRIDE(w) (SB_BARRIER_WALK_GUARD + (((w) + 15) / 16) * 16)

/* Values of the categorical axes (harness/axes.h order). */
enum { SB_PART_ALL = 0, SB_PART_WARP = 1, SB_PART_ELECTED = 2 };
enum { SB_CONT_ONE_BLOCK = 0, SB_CONT_FULL = 1 };

#endif
