/* The CSV schema: the one place that says which columns a result row has,
 * in which order, and how each is formatted. Column names are the contract
 * with scripts/ and with users: change them only with a schema version bump
 * (scripts read older versions by name). */
#ifndef SB_CSV_SCHEMA_H
#define SB_CSV_SCHEMA_H

#include <stdio.h>

#include "axes.h"

/* Version history (scripts read older versions by column name):
 * 1: the first release.
 * 2: regs_per_thread and smem_per_block beside blocks_per_sm. The axes m,
 *    k, tile and the column pct_of_cublas came later without a bump: a
 *    version-2 file may or may not have them.
 * 3: sm_clock_mhz is now the SM clock over the timed samples (clock
 *    witness, harness/timing.h); the old reading after the samples moved to
 *    sm_clock_after_mhz. New: power_w, temp_c, throttle_reasons (NVML,
 *    empty without it), throttled (samples taken while throttled and kept),
 *    pct_of_cub (devscan's paired CUB ceiling), the axis splits (gemm split-K). pct_of_cublas is
 *    now paired in time with cuBLAS, sample by sample.
 * 4: pct_of_cublas and pct_of_cub are the median of per-block ratios over
 *    at least 64 pairs taken in v c c v order (harness/paired.h), not the
 *    ratio of two medians; new: ceiling_us, the median of the paired
 *    ceiling's own samples (the power state the ratio was taken in).
 * 5: epilogue_pct (gemm's ws_tma-based variants): % of a block's cycles in
 *    its epilogues, from the validating launch: the stores, and for the
 *    split variants the combining of partial tiles.
 * 6: each family's paired ratio is read from its samples as the family
 *    says (sb_family.ceiling_reading, --list's ceiling_reading column):
 *    gemm's pct_of_cublas is now the ratio of the two sides' fastest
 *    samples (over the same interleaved v c c v pairs); devscan's
 *    pct_of_cub stays the median of block ratios. Each reading is the one
 *    that moved least between two GPUs of one model (docs/REGRESSIONS.md). Columns
 *    unchanged.
 * 7: the splits axis takes `auto` (the launcher picks the count from the
 *    shape, the tile and the SM count: kernels/gemm/gemm_schedule_math.h's
 *    sb_gemm_auto_splits); such a point's splits cell reads "auto". New:
 *    splits_used, the split count the kernel ran with (explicit and auto
 *    points alike; empty for variants without a splits axis and for rows
 *    that never launched).
 *    And the axis cluster_shape (gemm/ws_tma_wgmma_multicast: 2x1 or 1x2,
 *    empty elsewhere), after splits.
 * 8: elapsed_s, last: seconds from the sweep's start (this process's, with
 *    --resume) to the row's writing, so the largest cell of a run is its
 *    wall time, checkable from the committed CSV (a sweep's budget).
 * 9: gemm's pct_of_cublas is the ratio of the two sides' lower quartiles
 *    (over the same interleaved v c c v pairs; ceiling_reading
 *    low_quartile), not of their fastest samples: a rare fast mode (one
 *    launch in many, in some processes and not others) moved the fastest
 *    by up to 26% between two processes of one binary. The A/B gate reads
 *    a gemm point's own q1_us likewise. barrier's flag_handoff rows are
 *    the median over a sweep of SM pairs and flag places (iters: round
 *    trips per probe), kernel_boundary_stream/_pdl are timed behind a held
 *    stream (iters 512). Columns unchanged.
 * 10: gemm's variants are compositions (kernels/gemm/gemm_compose.cuh);
 *    new after detail: mainloop, consumer, schedule, epilogue, the parts
 *    of the row's variant (empty for the other families), so that tables
 *    and plots group by any of them. Variant names unchanged; readers give
 *    older gemm rows the same columns from the variant table
 *    (scripts/lib/sbcsv.py). gemm runs any M, N, K with K a multiple of 8
 *    and N of 4 (partial tiles at the edges).
 * 11: the axes window, first_sleep_ns, poll_sleep_ns and sleep_min_tiles
 *    (devscan's lookback and lookback_relaxed: the look-back's tuning),
 *    after cluster_shape; empty unless the command line names one of them,
 *    so a default sweep's rows are those of schema 10 with four more empty
 *    cells. And the reference family's second row, vector_copy (a kernel's
 *    copy: its pct_of_copy is against d2d_copy, which alone stays at 100).
 * 12: the barrier family's cycles_per_op (the rows priced by each block's
 *    own loop) is the mean over blocks with the fastest and slowest tenth
 *    left out, not the median: at full occupancy the blocks fall in two
 *    groups near half each, and the median fell in either from one process
 *    to the next. And p05_us, p10_us after q3_us: the 5th and 10th
 *    percentiles of the samples, low quantiles that a rare fast mode moves
 *    less than the fastest sample and a process's share of slow launches
 *    moves less than the lower quartile (which one holds across processes
 *    is measured, not assumed: SB_PAIRS_FILE).
 * 13: p01_us before p05_us, the samples' 1st percentile, and gemm's
 *    pct_of_cublas the ratio of the two sides' 1st percentiles (ceiling_reading
 *    p01; the A/B gate reads a gemm point's own p01_us): over every sample of
 *    five processes of one binary on an H200 the 1st percentile of the
 *    K-heavy chains and the multicast point moved least between processes
 *    (the lower quartile followed each process's share of slow launches,
 *    the fastest sample the multicast point's rare fast launches). And each
 *    worker runs in the fastest of SB_PROCESS_CONTEXTS fresh contexts
 *    (harness/timing.h, sb_context_adopt), timed on that context's first
 *    stream, not in the primary context: a short kernel's event-timed figure
 *    follows the level its context's launches were given when it was made.
 *    Columns otherwise unchanged.
 * 14: placements after samples: the places in device memory the point's
 *    samples were taken over, in one pool (SB_PLACEMENTS, default 8; the
 *    input and output moved between them, harness/runner.c): where a
 *    buffer lay in physical memory set a point's level for a whole
 *    process. And the barrier rows priced by each block's own loop at full
 *    occupancy read the 90th percentile over the blocks (the price nine
 *    blocks in ten pay at most), not the trimmed mean: the share of blocks
 *    in the fast group moved from one process to the next, and the trimmed
 *    mean with it; the 90th percentile held.
 * 15: a variant may read its paired ratio otherwise than its family
 *    (SB_VF_MEDIAN_RATIO, --list's flag median_ratio and its own
 *    ceiling_reading): gemm/ws_tma_wgmma_multicast reads the median of the
 *    v c c v block ratios, and the A/B gate its own median: its launches'
 *    level followed where its operands lay, and over SB_PLACEMENTS places
 *    only the median held between processes. Columns unchanged.
 * 16: median_kcycles after p10_us: the median over the samples of each
 *    one's time x the SM clock the clock witness read for it (its window),
 *    in thousands of cycles; empty where a sample had no reading. A long
 *    point under the power cap runs its launches at two clock levels, and
 *    its median time fell in either from one process to the next (the
 *    multicast point at 8192^3); the A/B gate reads this figure for a
 *    variant read at its median (scripts/lib/sbcompare.py).
 * 17: the variant flagged as reading its own paired ratio (SB_VF_P75_RATIO,
 *    --list's flag p75_ratio; was median_ratio) reads the 75th percentiles
 *    (p75), not the block median: the multicast 1x2 point at 1024^2 x 16k
 *    took 2, 8 and 29% of its samples in its fast mode in three processes
 *    (by place: a fast place's samples came in a run), its median moved
 *    with that share (70.64-76.45 us), its upper quartile held
 *    (76.26-77.76 us). Columns unchanged.
 * 18: each sample with no flush before it (over 4x the L2, or SB_FLUSH=none)
 *    is enqueued behind the stream hold (SB_HOLD=off: not): on an idle
 *    stream its start event ran before the launch arrived, and the sample
 *    held the host's issue time (devscan's variants at 256M read 2.8 us
 *    faster first in their pair than second). gemm's TMA maps of a pitch off
 *    32 bytes take a 128-byte L2 promotion. Columns unchanged. */
#define SB_CSV_SCHEMA_VERSION 18

typedef enum sb_status {
  SB_OK = 0,       /* validated and timed */
  SB_SKIPPED,      /* this configuration cannot launch here; detail says why */
  SB_UNSUPPORTED,  /* the GPU lacks a feature the variant needs */
  SB_WRONG,        /* output differed from the CPU reference: never timed */
  SB_ERROR,        /* a CUDA call failed, or the worker process died */
  SB_DEADLOCK,     /* an mbarrier wait outlived the watchdog (kernels/common/mbarrier.cuh) */
  SB_NUM_STATUS
} sb_status;

extern const char *const sb_status_names[SB_NUM_STATUS];

/* Who and what produced a row: identical for every row of one run. */
typedef struct sb_provenance {
  char gpu_name[128];
  char gpu_uuid[48];
  char cc[8];          /* "9.0" */
  int sm_count;
  char driver[64];     /* kernel driver version, e.g. "580.159.04" */
  char cuda[16];       /* runtime version the binary was built with */
  char commit[48];
  char run_utc[24];    /* ISO 8601, start of the run */
  unsigned long long seed; /* base seed of the run's random inputs */
} sb_provenance;

#define SB_DETAIL_LEN 512

typedef struct sb_row {
  const char *family;
  const char *variant;
  long long axis[SB_NUM_AXES]; /* SB_AXIS_UNSET where the axis does not apply */
  sb_status status;
  char detail[SB_DETAIL_LEN];
  /* The variant's composition (harness/launch.h, sb_composition): "" where none. */
  const char *mainloop, *consumer, *schedule, *epilogue;
  long long samples;           /* timed samples behind the statistics */
  long long placements;        /* places in device memory they were taken over (schema 14) */
  double median_us, min_us, max_us, q1_us, q3_us, cv_pct;
  double p01_us;               /* the 1st percentile (schema 13) */
  double p05_us, p10_us;       /* low quantiles of the samples (schema 12) */
  double median_kcycles;       /* median of each sample's time x the SM clock the
                                  clock witness read for it, 10^3 cycles (schema 16) */
  long long bytes_moved;       /* bytes one launch must read + write */
  double gbps;                 /* bytes_moved / median */
  double pct_of_copy;          /* gbps / this run's device-to-device copy */
  double gflops;               /* families with a FLOP model (flops hook) */
  double pct_of_cublas;        /* gflops / the family's library (SB_VF_NO_KERNEL)
                                  row at the same shape, this run (gemm) */
  double pct_of_cub;           /* the same against CUB (devscan) */
  double ceiling_us;           /* median of the paired ceiling's samples (empty: no pairing) */
  double epilogue_pct;         /* gemm: % of block cycles in epilogues (validating launch) */
  double cycles_per_op;        /* in-kernel clock64() families (derive hook) */
  double ns_per_op;            /* cycles_per_op at the measured SM clock */
  long long bytes_in_flight_per_sm; /* pipelines: stages x bytes x blocks/SM */
  int blocks_per_sm;           /* occupancy of the launched configuration */
  int regs_per_thread;         /* registers of the timed kernel */
  long long smem_per_block;    /* its shared memory per block (static + dynamic), bytes */
  int splits_used;             /* split-K: K slices per tile the kernel ran with
                                  (splits=auto resolved); -1: no splits axis */
  double sm_clock_mhz;         /* SM clock over the samples: the clock witness's
                                  readings weighted by the sample time each covers */
  double sm_clock_after_mhz;   /* SM clock measured right after the samples */
  double power_w;              /* NVML board power, mean over the samples */
  int temp_c;                  /* NVML GPU temperature, max over the samples */
  char throttle_reasons[96];   /* NVML clock-event reasons seen, ;-joined
                                  (power.h); empty without NVML */
  long long throttled;         /* samples kept although taken while throttled
                                  (power.h's rule); 0 none, -1 not timed */
  unsigned long long seed;     /* seed of this point's input */
  const sb_provenance *prov;
} sb_row;

/* Empty cells: NaN doubles, negative counts, SB_AXIS_UNSET axes. */
void sb_row_init(sb_row *row, const sb_provenance *prov);

/* X(column name, formatter, value). Formatters: STR, INT (empty if < 0),
 * F2/F4 (empty if NaN), AXIS(id) (empty if unset; categorical axes by
 * name). Order here is column order. Axes come from axes.h; a new axis
 * needs its line here too (tests/c/test_csv.c checks that). */
#define SB_CSV_COLUMNS(X)                                   \
  X("schema_version", INT, SB_CSV_SCHEMA_VERSION)           \
  X("family", STR, r->family)                               \
  X("variant", STR, r->variant)                             \
  X("block_threads", AXIS, SB_AXIS_BLOCK)                   \
  X("stages", AXIS, SB_AXIS_STAGES)                         \
  X("buffer_bytes", AXIS, SB_AXIS_BUFFER_BYTES)             \
  X("iters", AXIS, SB_AXIS_ITERS)                           \
  X("intensity", AXIS, SB_AXIS_INTENSITY)                   \
  X("n", AXIS, SB_AXIS_N)                                   \
  X("elems_per_thread", AXIS, SB_AXIS_ELEMS)                \
  X("consumer_warps", AXIS, SB_AXIS_WARPS)                  \
  X("participants", AXIS, SB_AXIS_PARTICIPANTS)             \
  X("contention", AXIS, SB_AXIS_CONTENTION)                 \
  X("cluster", AXIS, SB_AXIS_CLUSTER)                       \
  X("m", AXIS, SB_AXIS_M)                                   \
  X("k", AXIS, SB_AXIS_K)                                   \
  X("tile", AXIS, SB_AXIS_TILE)                             \
  X("splits", AXIS, SB_AXIS_SPLITS)                         \
  X("cluster_shape", AXIS, SB_AXIS_CLUSTER_SHAPE)           \
  X("window", AXIS, SB_AXIS_WINDOW)                         \
  X("first_sleep_ns", AXIS, SB_AXIS_FIRST_SLEEP)            \
  X("poll_sleep_ns", AXIS, SB_AXIS_POLL_SLEEP)              \
  X("sleep_min_tiles", AXIS, SB_AXIS_SLEEP_MIN_TILES)       \
  X("status", STR, sb_status_names[r->status])              \
  X("detail", STR, r->detail)                               \
  X("mainloop", STR, r->mainloop)                           \
  X("consumer", STR, r->consumer)                           \
  X("schedule", STR, r->schedule)                           \
  X("epilogue", STR, r->epilogue)                           \
  X("samples", INT, r->samples)                             \
  X("placements", INT, r->placements)                       \
  X("median_us", F4, r->median_us)                          \
  X("min_us", F4, r->min_us)                                \
  X("max_us", F4, r->max_us)                                \
  X("q1_us", F4, r->q1_us)                                  \
  X("q3_us", F4, r->q3_us)                                  \
  X("p01_us", F4, r->p01_us)                                \
  X("p05_us", F4, r->p05_us)                                \
  X("p10_us", F4, r->p10_us)                                \
  X("median_kcycles", F4, r->median_kcycles)                \
  X("cv_pct", F2, r->cv_pct)                                \
  X("bytes_moved", INT, r->bytes_moved)                     \
  X("gbps", F2, r->gbps)                                    \
  X("pct_of_copy", F2, r->pct_of_copy)                      \
  X("gflops", F2, r->gflops)                                \
  X("pct_of_cublas", F2, r->pct_of_cublas)                  \
  X("pct_of_cub", F2, r->pct_of_cub)                        \
  X("ceiling_us", F4, r->ceiling_us)                        \
  X("epilogue_pct", F2, r->epilogue_pct)                    \
  X("cycles_per_op", F2, r->cycles_per_op)                  \
  X("ns_per_op", F4, r->ns_per_op)                          \
  X("bytes_in_flight_per_sm", INT, r->bytes_in_flight_per_sm) \
  X("blocks_per_sm", INT, r->blocks_per_sm)                 \
  X("regs_per_thread", INT, r->regs_per_thread)             \
  X("smem_per_block", INT, r->smem_per_block)               \
  X("splits_used", INT, r->splits_used)                     \
  X("gpu_name", STR, r->prov->gpu_name)                     \
  X("gpu_uuid", STR, r->prov->gpu_uuid)                     \
  X("cc", STR, r->prov->cc)                                 \
  X("sm_count", INT, r->prov->sm_count)                     \
  X("sm_clock_mhz", F2, r->sm_clock_mhz)                    \
  X("sm_clock_after_mhz", F2, r->sm_clock_after_mhz)        \
  X("power_w", F2, r->power_w)                              \
  X("temp_c", INT, r->temp_c)                               \
  X("throttle_reasons", STR, r->throttle_reasons)           \
  X("throttled", INT, r->throttled)                         \
  X("driver", STR, r->prov->driver)                         \
  X("cuda", STR, r->prov->cuda)                             \
  X("commit", STR, r->prov->commit)                         \
  X("run_utc", STR, r->prov->run_utc)                       \
  X("seed", INT, (long long)(r->seed & 0x7fffffffffffffffULL)) \
  X("elapsed_s", F2, sb_csv_elapsed_s())

/* The sweep's start (CLOCK_MONOTONIC seconds), set once before any row is
 * written (worker processes inherit it); until then elapsed_s is empty. */
void sb_csv_set_sweep_start(double monotonic_s);
/* Seconds since that start, now; NaN before it is set. */
double sb_csv_elapsed_s(void);

/* Writes the header line. */
void sb_csv_write_header(FILE *f);
/* Writes one row and flushes it to the OS, so a crash loses at most the row
 * being written. Returns 0, or -1 if the write failed. */
int sb_csv_write_row(FILE *f, const sb_row *r);
/* Writes s as one CSV field (RFC 4180: quoted when it holds , " or newline). */
void sb_csv_write_field(FILE *f, const char *s);

/* Splits one CSV record (no trailing newline) into at most max fields,
 * unquoting in place. Returns the field count, or -1 on a malformed record
 * (unterminated quote, text after a closing quote). */
int sb_csv_split(char *line, char **fields, int max);

/* Number of columns in the schema. */
int sb_csv_num_columns(void);
const char *sb_csv_column_name(int i);

#endif
