/* Timing one launch with CUDA events: the per-iteration callback that
 * Google Benchmark drives through the shim, with an optional L2 flush
 * before each sample. Samples are kept for the statistics (stats.h). */
#ifndef SB_TIMING_H
#define SB_TIMING_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "launch.h"
#include "power.h"

/* The clock witness: a 1-thread spin (kernels/common/clock.cu) that reads the SM
 * clock against %globaltimer, launched right before a sample, outside its
 * events, whenever SB_WITNESS_DUTY x its spin of kernel time has been
 * sampled since the last one (so always before every sample of a kernel
 * longer than that, e.g. a large GEMM), and before the first sample. Its
 * cost is then at most 1/SB_WITNESS_DUTY of the kernel time sampled, plus
 * one spin per point. */
#define SB_WITNESS_SPIN_NS 50000ull
#define SB_WITNESS_DUTY 20.0
/* NVML readings (power.h) at witness times, at most one per this long. */
#define SB_NVML_PERIOD_S 0.01
/* The fewest samples a timed point keeps, whatever the minimum time
 * (harness/runner.c): a median and quartiles of fewer are one or two draws. */
#define SB_MIN_SAMPLES 5

typedef struct sb_timer {
  sb_launch_fn fn;
  sb_launch *launch;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *flush_buf;     /* non-NULL: empty the L2 through it before every sample */
  size_t flush_bytes;
  unsigned flushes;
  int flush_discard;          /* after the read, discard flush_buf's lines (SB_FLUSH=discard) */
  unsigned flush_read_blocks; /* read flush_buf on this many blocks (the default); 0:
                                 overwrite it (SB_FLUSH=memset) */
  double *samples;     /* seconds */
  size_t count, cap;
  volatile int *stop_flag; /* set by a signal handler: end the benchmark */
  /* Power state over the samples (witness, NVML, throttle rule). */
  double *witness;         /* mapped pinned host reading; NULL: no witness */
  int *hold;               /* mapped pinned [gate, timed_out] of the stream hold
                              (launch->hold); NULL: no mapped memory, no hold */
  int hold_unflushed;      /* no flush (and SB_HOLD not off, hold mapped): each sample
                              (and its ceiling's) enqueued behind a hold on t->stream */
  /* Held samples rotate over these streams (created at the first one):
   * each stream is its own hardware queue, and where a queue's launches
   * cross a boundary depends on it, so a point samples every queue alike.
   * SB_HOLD_STREAMS=N (1-32) sets how many (default SB_HOLD_STREAMS). */
  cudaStream_t held[32];
  int held_count;
  unsigned long long held_samples;
  cudaEvent_t order;       /* the sample's stream waits for t->stream's work */
  double since_witness_s;  /* kernel time sampled since the last reading */
  double window_mhz;       /* the last reading (NaN: none yet) */
  double *sample_mhz;      /* the reading in force at each kept sample (NaN:
                              none), parallel to samples until they are sorted */
  size_t mhz_count, mhz_cap;
  int window_flagged;      /* it was taken while throttled */
  double clk_sum, clk_weight; /* readings weighted by the sample time after them */
  double throttle_mhz;     /* below this a reading is throttled; <= 0: none */
  int retakes_left;        /* SB_THROTTLE_RETAKES per point */
  long long retaken, throttled; /* samples re-taken; kept while flagged */
  sb_nvml *nvml;           /* NULL: no NVML */
  double nvml_last_s;
  sb_power_acc power;
  /* Paired ceiling (harness/paired.h): when pair_fn is set, every kept
   * sample has one of the ceiling beside it, with the same flush, taken
   * after it in even pairs and before it in odd ones; pair_samples[j]
   * pairs with samples[j] until the statistics sort samples. A failing
   * ceiling sets pair_failed and pairing stops. */
  sb_launch_fn pair_fn;
  sb_launch *pair_launch;
  double *pair_samples;
  size_t pair_count, pair_cap;
  int pair_failed;
} sb_timer;

/* Creates the events. Returns cudaSuccess or the CUDA error. */
cudaError_t sb_timer_init(sb_timer *t, cudaStream_t stream);
void sb_timer_destroy(sb_timer *t);
/* The median of the kept samples' cycles, in thousands: each sample's time
 * x the clock witness's reading in force for it (sample_mhz); NaN unless
 * every sample has one. Reads the samples in their order (before the
 * statistics sort them) and leaves them so. */
double sb_timer_median_kcycles(const sb_timer *t);
/* Forgets the samples and power state of the last point. */
void sb_timer_reset(sb_timer *t);
/* Before more samples of the same point after a pause (the second part
 * of a point timed in two parts, harness/runner.h): keeps the samples,
 * pairs and power state, closes the clock reading's window and makes the
 * next sample take a fresh witness (the GPU ran something else since). */
void sb_timer_resume(sb_timer *t);
/* The SM clock over the samples since the reset: witness readings weighted
 * by the sample time each covers (NaN without a reading). */
double sb_timer_clock_mhz(const sb_timer *t);

/* The host thread asleep for s seconds (the throttle rule's rest, --cooldown-ms). */
void sb_sleep_s(double s);

/* The stream hold's bound: a sample's launches must be enqueued within it. */
#define SB_HOLD_STREAMS 8
#define SB_HOLD_TIMEOUT_NS 2000000000ull

/* SB_CONTEXTS: how many fresh contexts the boundary rows' context is
 * chosen from (harness/timing.c): a context's first stream paces its
 * boundaries anywhere from 1339 to 1562 ns (one block per SM, an H200),
 * and the fastest of 16 such contexts ranged 1339-1375 ns, of 64 1339-1345
 * (docs/history.md). */
#define SB_CONTEXTS 64

/* SB_PLACEMENTS: how many places in device memory a point's samples are
 * taken over (harness/runner.c, time_point). */
#define SB_PLACEMENTS 8
#define SB_PLACEMENTS_MAX 64 /* the most SB_PLACEMENTS takes */
/* A variant whose level follows where its buffers lie (SB_VF_P75_RATIO)
 * takes its samples over this many times SB_PLACEMENTS places (at most
 * SB_PLACEMENTS_MAX) (harness/paired.h, sb_variant_placements). */
#define SB_MODE_PLACES_X 4

/* SB_PROCESS_CONTEXTS: how many fresh contexts a worker's own context is
 * chosen from (0: the primary context, as before schema 13). 64: the grid
 * barrier's price is a draw of the context too (sb_context_adopt), its
 * fastest level about one process's draw in six, and it is picked among
 * the contexts on the fastest launch level, one or two of every eight. */
#define SB_PROCESS_CONTEXTS 64

/* A context's launch probe is on its fastest level while within this
 * fraction of the fastest probe seen (the levels lie about 9% apart). */
#define SB_CONTEXT_LEVEL 0.03

/* The grid-barrier probe: barriers a launch, launches a context. */
#define SB_CONTEXT_GRID_SYNCS 256

/* Makes the best of `candidates` fresh contexts current for the rest of the
 * process, and *stream its first stream, the one the probes timed. Two
 * things a context is given when it is made set what the rows timed in it
 * read: where its launches cross a boundary, at two levels about 9% apart
 * (docs/history.md), which moved the 1M scans between two processes as it
 * moved the boundary rows; and, it seems, where the driver's grid workspace
 * (the word cooperative groups' grid barrier counts on) falls in the L2:
 * barrier/grid_sync moved by up to 4% between processes. So each context is
 * probed twice on its first stream (the median of SB_CONTEXT_PROBE_SAMPLES
 * each): SB_CONTEXT_PROBE_LAUNCHES empty launches of one block per SM, and
 * SB_CONTEXT_GRID_SYNCS grid barriers in one cooperative launch of as many
 * blocks; of the contexts on the fastest launch level the one with the
 * fastest barrier is kept (sb_context_prefer). On failure the primary
 * context stays current, *stream is NULL, and the note says why; on
 * success the note says what was chosen from what, and how long it took. */
cudaError_t sb_context_adopt(int candidates, cudaStream_t *stream, char *note, size_t len);

/* Whether a probed context (ns: its launch probe, ns a boundary; grid_ns:
 * its grid-barrier probe, ns a barrier, NAN where it has none) replaces the
 * best so far (best_ns, best_grid_ns; best_ns NAN: none yet), fast_ns being
 * the fastest launch probe seen, this one's included. A context is on the
 * fastest level while ns <= fast_ns x (1 + SB_CONTEXT_LEVEL): one on it
 * beats one off it; of two on it the faster barrier wins, and the faster
 * launch probe where either lacks a barrier figure; of two off it, the
 * faster launch probe. Keeping the winner over a stream of contexts keeps
 * one on the final fastest level. */
int sb_context_prefer(double ns, double grid_ns, double best_ns, double best_grid_ns, double fast_ns);

/* gbs_iteration_fn: one flushed (if asked), event-timed launch. */
int sb_timer_sample(void *ctx, double *seconds, char *err, size_t errlen);

#endif
