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
  SB_BARRIER_VF_HOST_TIMED = SB_VF_FAMILY0 << 10 /* a sample is `iters` launches timed by
                                                   the host: per op = median / iters */
};
/* The family's traits above the walk length's field (bits 20-23, below):
 * the family's bits under it are all taken (SB_VF_PDL is FAMILY0 << 11);
 * macros, as an enumerator must fit an int. kernels/families/barrier.cu
 * asserts that they are apart.
 * A PAIR row swept over SM pairs and flag places (flag_handoff: see below). */
#define SB_BARRIER_VF_SWEEP (1u << 24)
/* A host-timed row whose sample's launches are enqueued behind the stream
 * hold (harness/timing.c): the events then time the GPU running them back
 * to back, not the host issuing them. SB_BARRIER_HELD_ITERS launches a
 * sample by default: few enough for the launch queue to take them all. */
#define SB_BARRIER_VF_HELD (1u << 25)
#define SB_BARRIER_HELD_ITERS 512

/* flag_handoff's blocks write their %smid at these u32 words of the
 * exchange area (block b at SB_BARRIER_PAIR_SMID + b), after the clock: the
 * host checks the two differ. (The sweep rows below keep theirs per probe.) */
#define SB_BARRIER_PAIR_SMID 256

/* ---- flag_handoff(_relaxed): the sweep over SM pairs and flag places ----
 * One hand-off between two SMs is one sample of a map: its latency depends
 * on which two SMs play and on which L2 slice holds the flag, and both are
 * where the scheduler and the allocator happened to put them. So the rows
 * launch one block on every SM (cooperative, padded to one per SM) and run
 * `probes` probes one after another; probe j is `iters` round trips (after
 * SB_HANDOFF_WARMUP untimed ones) between the blocks on the SMs of rank
 * (a, b) (rank: place of the block's %smid among the launch's, so rank r
 * is SM r wherever the SMs are numbered 0..n-1) on flags at byte
 * sb_handoff_place(j) of a SB_HANDOFF_AREA_BYTES area (pages of 2 MiB,
 * offsets spread inside them: other L2 slices). Probes 0 .. 2(n-1)-1 pair
 * SM 0 with every other SM twice, at two places; the next 2(n-1) pair SM k
 * with SM k + n/2 (+1) across the chip. The figure is the mean over
 * probes; median, min and max go into the row's detail.
 *
 * Output: the head and records as above (records unused), then at
 * SB_HANDOFF_PROBE_OFFSET one sb_handoff_probe per probe, then the flag
 * area at SB_HANDOFF_AREA_OFFSET (2 MiB aligned inside the buffer). */
#define SB_HANDOFF_MAX_SMS 1024
#define SB_HANDOFF_MAX_PROBES (4 * (SB_HANDOFF_MAX_SMS - 1))
#define SB_HANDOFF_WARMUP 2  /* untimed round trips before a probe's clock */
#define SB_HANDOFF_ROUNDS 32 /* the sweep's iters: timed round trips per probe */
#define SB_HANDOFF_PAGE (2u << 20)
#define SB_HANDOFF_PAGES 32u
#define SB_HANDOFF_AREA_BYTES ((size_t)SB_HANDOFF_PAGES * SB_HANDOFF_PAGE)
#define SB_HANDOFF_PROBE_OFFSET ((size_t)SB_BARRIER_OUT_BYTES)
#define SB_HANDOFF_AREA_OFFSET ((size_t)SB_HANDOFF_PAGE) /* past the probes */
#define SB_HANDOFF_OUT_BYTES (SB_HANDOFF_AREA_OFFSET + SB_HANDOFF_AREA_BYTES)

typedef struct sb_handoff_probe {
  unsigned long long cycles[2]; /* each side's timed loop, atomic min over launches */
  uint32_t smid[2];             /* where side 0 (rank a) and side 1 (rank b) ran */
  uint32_t rounds[2];           /* proven (validating) or completed (timed) round trips */
} sb_handoff_probe;

#ifdef __CUDACC__
#define SB_HANDOFF_FN static inline __host__ __device__
#else
#define SB_HANDOFF_FN static inline
#endif
/* barrier_tma's sources: each block (each cluster of the multicast row)
 * copies from its own pair of halves, source `blockIdx / cluster % pairs`,
 * pairs of 2 x bytes filling SB_BARRIER_TMA_AREA (at most one per block),
 * so a launch reads many addresses across the L2's slices: with one pair
 * for every block, where that pair's few lines landed set the full-occupancy
 * price of a whole process (4096 bytes: 2,690 or 4,960 cycles/op by place,
 * docs/history.md). 8 MiB stays well inside the L2. */
#define SB_BARRIER_TMA_AREA (8u << 20)
SB_HANDOFF_FN unsigned sb_barrier_tma_pairs(long long bytes) {
  const long long pairs = bytes > 0 ? (long long)SB_BARRIER_TMA_AREA / (2 * bytes) : 1;
  return pairs < 1 ? 1u : pairs > SB_BARRIER_MAX_BLOCKS ? (unsigned)SB_BARRIER_MAX_BLOCKS : (unsigned)pairs;
}

/* Probes of a launch on n SMs (n >= 2). */
SB_HANDOFF_FN int sb_handoff_probes(int n) { return 4 * (n - 1); }
/* The ranks of probe j's two sides. */
SB_HANDOFF_FN void sb_handoff_pair(int j, int n, int *a, int *b) {
  const int k = 1 + j % (n - 1), round = j / (n - 1);
  if (round < 2) {
    *a = 0, *b = k;
  } else {
    *a = k, *b = (k + n / 2 + (round - 2)) % n;
    if (*b == *a) *b = (*b + 1) % n;
  }
}
/* Byte offset of probe j's flags in the area: page j mod 32, and inside it
 * one of 60 offsets 32 KiB + 640 bytes apart (a probe uses 512 bytes: ping,
 * pong and the payload slots, each on its own 128-byte line). */
SB_HANDOFF_FN size_t sb_handoff_place(int j) {
  return (size_t)(j % SB_HANDOFF_PAGES) * SB_HANDOFF_PAGE +
         (size_t)((j / SB_HANDOFF_PAGES) % 60) * (32768u + 640u);
}

/* lookback_walk_<w>: the walk length w (how many status words the look-back
 * reads back to the nearest P) rides in the row's flags, so that the host's
 * input and expected sums and the kernel's template agree by construction
 * (kernels/families/barrier.cu's WALK_ROW). 0: not a walk row. */
/* A calibration row of scripts/explain.py: a price whose wait is known
 * (bar.sync, an mbarrier wait, a shared-memory load), profiled first so
 * that the counters' reading of the others can be checked. */
#define SB_BARRIER_VF_CALIBRATION (1u << 26)
#define SB_BARRIER_WALK_SHIFT 20
#define SB_BARRIER_WALK_BITS (0xFu << SB_BARRIER_WALK_SHIFT) /* log2(w) + 1; 0: not a walk */
#define SB_BARRIER_WALK_MAX 1024                            /* a power of two */
#define SB_BARRIER_LOG2(w)                                                                    \
  ((w) >= 1024 ? 10 : (w) >= 512 ? 9 : (w) >= 256 ? 8 : (w) >= 128 ? 7 : (w) >= 64 ? 6       \
   : (w) >= 32 ? 5 : (w) >= 16 ? 4 : (w) >= 8 ? 3 : (w) >= 4 ? 2 : (w) >= 2 ? 1 : 0)
#define SB_BARRIER_VF_WALK(w) ((unsigned)(SB_BARRIER_LOG2(w) + 1) << SB_BARRIER_WALK_SHIFT)
#define SB_BARRIER_WALK_OF(flags)                                                  \
  (((flags) & SB_BARRIER_WALK_BITS)                                                \
       ? 1 << ((int)(((flags) & SB_BARRIER_WALK_BITS) >> SB_BARRIER_WALK_SHIFT) - 1) \
       : 0)

/* One block-wide arrive + wait written in one API's spelling (cuda::barrier,
 * cuda::ptx, the __mbarrier intrinsics, raw PTX): scripts/sass_sync.py asks
 * whether they compile to the same instructions. */
#define SB_BARRIER_VF_SPELLING (1u << 27)

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
