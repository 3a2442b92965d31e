/* The contract between the C harness and the kernel layer in kernels/.
 *
 * Each kernels/<family>.cu exports, beside its kernels, a table of its
 * variants (sb_variant_table): name, the launcher, the picker that names the
 * compiled kernels for a point, the minimum compute capability, trait flags
 * and a one-line summary. bench/<family>.c points its sb_family at that
 * table and keeps only the host side (axes, reference, verify, metrics).
 *
 * The runner calls a variant's launcher first in query mode (query == 1),
 * once per point: the launcher picks the point's kernels (a compile-time
 * instantiation of block size, elements per thread, stages, tile), asks for
 * their resources and occupancy, and fills the fields below, touching no
 * buffer. Every later call launches on L->stream with what the query chose
 * and does no host work beyond the launch itself, because it runs between
 * the two CUDA events of a timed sample. kernels/common/launch.cuh implements both
 * halves once (sb_launch_params). The engine includes nothing from kernels/:
 * what it calls there is declared here (tests/py/test_layers.py). */
#ifndef SB_LAUNCH_H
#define SB_LAUNCH_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "axes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_launch sb_launch;
typedef struct sb_variant sb_variant;
typedef cudaError_t (*sb_launch_fn)(sb_launch *L);

/* The kernels one variant compiled for one point. */
typedef struct sb_kernels {
  const void *bounded; /* validating launch: mbarrier waits under the watchdog */
  const void *raw;     /* warm-up and timed launches; == bounded when the
                          variant has no mbarrier spin-wait of its own */
  size_t smem;         /* dynamic shared memory per block */
} sb_kernels;

/* Names the kernels compiled for the point's axes. Returns 0, or -1 with a
 * one-line reason in why when no instantiation matches (a `skipped` row). */
typedef int (*sb_pick_fn)(const long long *axis, sb_kernels *k, char *why, size_t len);

/* Traits the host side reads from the table instead of from names. */
enum sb_variant_flag {
  SB_VF_WHOLE_WARPS = 1u << 0, /* block_threads must be a multiple of 32 */
  SB_VF_GENERIC = 1u << 1,     /* runtime-generic kernel kept for comparison */
  SB_VF_TEST_ONLY = 1u << 2,   /* deliberately broken (tests/proofs only) */
  SB_VF_NO_KERNEL = 1u << 3,   /* a library call (cuBLAS), no kernel of ours */
  SB_VF_CEILING = 1u << 4,     /* the family's ceiling (cuBLAS, CUB): the 100% of
                                  its pct_of_<ceiling> column, timed paired with
                                  every other variant at the same shape */
  SB_VF_BASELINE = 1u << 5,    /* the family's baseline: the 1.0 of its speedups */
  SB_VF_PLAIN = 1u << 6,       /* a plain loop with no synchronization strategy
                                  (the family's own yardstick, e.g. pipeline/reference) */
  SB_VF_YARDSTICK = 1u << 7,   /* the bandwidth yardstick (reference/d2d_copy): its
                                  ok row sets the 100% of every later pct_of_copy;
                                  the yardstick family's other rows get theirs */
  SB_VF_FAMILY0 = 1u << 8,     /* first bit a family may define for itself */
  SB_VF_P75_RATIO = 1u << 31 /* its paired ratio is the ceiling's 75th percentile
                                over its own, whatever its family reads
                                (sb_variant_reading), and the A/B gate reads
                                its own median: a variant whose fast launches
                                come with where its buffers lie, fast at some
                                places and slow at the rest; the share of fast
                                places moved from one process to the next, and
                                the median (schema 15-16) with it where it was
                                large; the upper quartile reads the slow level,
                                which most places take (schema 17) */
};

/* A variant stated as a composition of parts (gemm: kernels/gemm/gemm_compose.cuh),
 * the CSV's and --list's mainloop, consumer, schedule and epilogue columns;
 * all NULL (empty cells) for a variant that is not one. */
typedef struct sb_composition {
  const char *mainloop; /* how a stage is loaded: cp_async_ring, tma, tma_multicast, ... */
  const char *consumer; /* what computes it: mma_sync, wgmma, wgmma_pingpong */
  const char *schedule; /* which tiles and k-tiles a block takes: data_parallel, split_k_serial, stream_k, ... */
  const char *epilogue; /* how C is written: direct, tma_store */
} sb_composition;

struct sb_variant {
  const char *name;
  sb_launch_fn launch; /* the family's launcher; L->variant says which row */
  sb_pick_fn pick;     /* NULL for a variant with SB_VF_NO_KERNEL */
  int min_cc;          /* e.g. 90: needs sm_90 features; 0 = any */
  unsigned flags;      /* sb_variant_flag bits, then the family's own */
  const char *summary; /* one line: the protocol and barriers per step */
  sb_composition composition; /* last: rows that are no composition leave it out */
};

typedef struct sb_variant_table {
  const sb_variant *rows;
  int count;
} sb_variant_table;

#define SB_SKIP_LEN 200

struct sb_launch {
  const long long *axis;     /* [SB_NUM_AXES], SB_AXIS_UNSET where unused */
  const sb_variant *variant; /* the row being launched */
  const void *in;            /* family-defined input buffer (device) */
  void *out;                 /* family-defined output buffer (device) */
  void *scratch;             /* family-defined scratch (device), may be NULL */
  cudaStream_t stream;
  int query;   /* 1: pick and configure, launch nothing */
  int bounded; /* 1: the validating launch, whose mbarrier waits the
                  deadlock watchdog bounds; 0: warm-up and timed launches,
                  with the raw wait (kernels/common/mbarrier.cuh says why) */
  /* Filled in query mode: */
  sb_kernels kernels;        /* what the picker chose */
  char skip[SB_SKIP_LEN];    /* non-empty: no kernel for this point (why) */
  int grid_blocks;           /* blocks the launch uses */
  int block_threads;         /* threads per block */
  int cluster;               /* blocks per thread-block cluster (1: none) */
  int cooperative;           /* 1: a cooperative launch */
  int blocks_per_sm;         /* occupancy; 0 means it cannot launch */
  size_t smem_bytes;         /* dynamic + static shared memory per block */
  int regs_per_thread;       /* of the timed kernel */
  int local_bytes;           /* its local memory per thread (spills, stack) */
  int ptx_version;           /* the PTX it was built from, e.g. 90 (0: none) */
  int binary_version;        /* the SASS that runs, e.g. 90 */
  int raw_twin;              /* 1: `bounded` picks between two kernels, so the
                                runner checks the timed kernel's output too */
  int splits_used;           /* split-K: K slices per tile, splits=auto resolved
                                (the row's splits_used); 0: no splits axis */
  int hold;                  /* 1: a sample is many launches; enqueue them while the
                                stream is held (harness/timing.c), so the events time
                                the GPU running them back to back, not the host
                                issuing them (kernel_boundary_stream, _pdl) */
  int in_context;            /* 1: time the samples on the timer's chosen stream of
                                its chosen context (harness/timing.c), not the
                                process's own: where a stream's launches cross a
                                boundary is set when the context and the stream are
                                made (the kernel-boundary rows) */
  const void *context;       /* the context the samples are being timed in (an
                                opaque key, NULL: the process's own): a launcher
                                that built state in one context rebuilds it */
};

/* kernels/common/clock.cu: the SM clock right now, in MHz: clock64() ticks against %globaltimer over
 * a 200 us spin; synchronizes the stream (harness/runner.c, once per point). */
cudaError_t sb_measure_sm_clock(cudaStream_t stream, double *mhz);

/* The clock witness (harness/timing.c): the same spin, spin_ns long, launched
 * between samples; it writes its reading to mapped pinned host memory and
 * adds no synchronization of its own. */
cudaError_t sb_clock_witness(cudaStream_t stream, unsigned long long spin_ns,
                             double *mapped_mhz);

/* The stream hold (kernels/common/clock.cu): a 1-thread kernel that spins
 * until *gate (mapped pinned host memory) is nonzero, or timeout_ns pass;
 * then it writes 1 to *timed_out if the gate never opened. */
cudaError_t sb_stream_hold(cudaStream_t stream, const volatile int *gate, int *timed_out,
                           unsigned long long timeout_ns);

/* kernels/common/clock.cu: `launches` empty kernels of `blocks` x 32 threads in
 * `stream`: the probe by which the timer picks the boundary rows' context. */
cudaError_t sb_empty_launches(cudaStream_t stream, int blocks, int launches);

/* kernels/common/clock.cu: `syncs` cooperative-groups grid barriers in one
 * cooperative launch of `threads`-thread blocks on `sms` SMs, `per_sm` an SM
 * (0: as many as are co-resident): the probe by which the timer also picks a
 * worker's own context. */
cudaError_t sb_grid_barriers(cudaStream_t stream, int sms, int threads, int per_sm, int syncs);

/* harness/timing.c: how the boundary rows' context and stream were picked,
 * for their detail ("" until they were). */
const char *sb_context_note(void);

/* kernels/common/profile_mark.cu: an empty kernel on point_index + 1 blocks,
 * the marker that opens a point's profiled launch (--profile-warmup): a
 * profiler's report names the point by the marker's grid. */
cudaError_t sb_profile_mark(cudaStream_t stream, long point_index);

/* kernels/common/l2_flush.cu: the L2 flush by reading `bytes` of buf on
 * `blocks` blocks (the default flush: harness/timing.c). */
cudaError_t sb_l2_flush_read(cudaStream_t stream, const void *buf, size_t bytes, unsigned blocks);
/* ... and SB_FLUSH=discard's second step: each 128-byte line of buf (128-byte
 * aligned) invalidated in the L2, nothing written back. */
cudaError_t sb_l2_discard(cudaStream_t stream, const void *buf, size_t bytes, unsigned blocks);

/* harness/settings.c: SB_FLUSH, the flush before each sample: unset, empty
 * or `read` (the default), `memset`, `discard`, `none` (no flush: a warm L2); anything else is refused at start. */
enum { SB_FLUSH_READ = 0, SB_FLUSH_MEMSET = 1, SB_FLUSH_DISCARD = 2, SB_FLUSH_NONE = 3, SB_FLUSH_UNKNOWN = -1 };
int sb_flush_method(void);
/* SB_FLUSH_L2S: the flush buffer in L2s (default 2); 0: refused at start. */
int sb_flush_l2s(void);
/* SB_HOLD (harness/settings.c): each sample with no flush before it (a point
 * whose working set is over 4x the L2, or SB_FLUSH=none) is enqueued while
 * the stream hold below keeps its stream busy, so its events time the GPU
 * and not the host issuing it (an idle stream would run the start event
 * before the launch arrives). Unset, empty or `unflushed`: 1 (the default);
 * `off`: 0, a probe of the host's issue time; -1: anything else, refused at
 * start. */
int sb_hold_unflushed(void);
/* SB_TMA_PROMOTION (harness/settings.c): the L2 promotion every TMA tensor
 * map is encoded with (kernels/common/tensor_map.cuh). Unset, empty or
 * `auto` (the default): SB_TMA_PROMOTION_AUTO, 256 B where the rows' pitch
 * is a multiple of 32 bytes and 128 B where it is not (rows that start off a
 * 32-byte sector, such as K = 1000 in fp16: docs/history.md); `256`, `128`,
 * `64` or `none` (0): that promotion for every map, a probe, named in each
 * row's detail; -1 for anything else, refused at start. */
#define SB_TMA_PROMOTION_AUTO 1
int sb_tma_promotion_bytes(void);
/* SB_HOLD_STREAMS (harness/settings.c): how many streams held samples rotate
 * over, 1-32 (default 8); 0 when the variable is not such a number. */
int sb_hold_streams(void);
/* SB_CONTEXTS (harness/settings.c): how many fresh contexts the boundary rows'
 * one is chosen from, 1-64 (default SB_CONTEXTS); 0 when the variable is not such a number. */
int sb_contexts(void);
/* SB_PROCESS_CONTEXTS (harness/settings.c): how many fresh contexts a worker's
 * own context is chosen from, 1-64, or 0 for the primary context (default
 * SB_PROCESS_CONTEXTS); -1 when the variable is neither. */
int sb_process_contexts(void);
/* SB_GRID_PROBE_THREADS (harness/settings.c): the grid-barrier probe's block
 * size, 32-1024 (32: one block an SM); 0 when refused. */
int sb_grid_probe_threads(void);

/* SB_PLACEMENTS (harness/settings.c): how many places in device memory a
 * point's samples are taken over, 1-64 (default SB_PLACEMENTS); 0 when the
 * variable is not such a number. */
int sb_placements(void);

/* harness/settings.c: whether SB_REPLACE names `what` (the re-placement
 * probe: each point allocates that anew, elsewhere; 'w': a family's own
 * workspace, which the family then takes anew at its query). */
int sb_replace_wants(char what);

#ifdef __cplusplus
}
#endif

#endif
