/* Runs a sweep: for each point, the checks that can skip it, validation
 * against the CPU reference, timing, and one CSV row written at once.
 * Validation (family->verify), timing (harness/timing.c) and output
 * (harness/csv.c) stay in their own files; this file only sequences them. */
#ifndef SB_RUNNER_H
#define SB_RUNNER_H

#include <signal.h>
#include <stdio.h>

#include "family.h"

typedef struct sb_run_options {
  int warmup;           /* launches after validation, before timing */
  double cooldown_s;    /* the GPU idle this long before the warm-up (--cooldown-ms); 0: none */
  double min_time_s;    /* per point; <= 0: Google Benchmark's flag decides */
  int unpaired;         /* no paired ceiling (--unpaired): ceiling cells empty */
  int profile_warmup;   /* --profile-warmup: the last warm-up launch alone in a
                           profiler range, after the point's marker kernel */
  unsigned long long seed; /* base seed; point i uses a seed derived from it */
  double copy_gbps;     /* this GPU's copy bandwidth if already known (a
                           resumed or restarted sweep), else 0 */
  FILE *log;            /* progress lines (stderr), NULL: none */
  const char *log_prefix; /* e.g. "[gpu 1] " when several GPUs run, or "" */
  long progress_done, progress_total; /* for the progress counter */
  double sweep_start_s; /* CLOCK_MONOTONIC seconds when the sweep began (every
                           worker counts from it); 0: when this call began */
  /* Called just before point `index` (of the full point list) runs, and
   * with its finished row. on_row returns non-zero to stop the sweep (the
   * row could not be written). */
  void (*on_start)(void *ctx, long index);
  int (*on_row)(void *ctx, long index, const sb_row *row, int context_lost);
  /* --serve: the index of the next point to run, asked for after each
   * row (or part), or -1 to stop; when set, order and count are not read.
   * *part says how to run it: SB_PART_WHOLE, or one half of its timing
   * (SB_PART_FIRST, SB_PART_SECOND: see below). */
  long (*next_point)(void *ctx, int *part);
  /* --serve: part 1 of point `index` passed and its state waits in the
   * runner for part 2 (no row yet). */
  void (*on_partial)(void *ctx, long index);
  void *ctx;
} sb_run_options;

/* A served point may be run in two parts (scripts/ab.py's halves, taken
 * in A B B A order so that both builds' samples of a point straddle the
 * same moment of the GPU's power ramp). SB_PART_FIRST runs the checks,
 * the validation and the first half of the timing (half the minimum
 * time) and keeps the point's state (launch, buffers, input, samples,
 * the paired ceiling's samples); SB_PART_SECOND takes the second half
 * into the same pool and records the row as a whole point does. A point
 * decided in part 1 (wrong, error, skipped...) gets its row there. */
enum { SB_PART_WHOLE = 0, SB_PART_FIRST = 1, SB_PART_SECOND = 2 };

typedef struct sb_run_summary {
  long by_status[SB_NUM_STATUS];
  long filtered;        /* excluded by --benchmark_filter */
  int interrupted;      /* a signal stopped the sweep */
  int context_lost;     /* a sticky CUDA error ended the sweep early */
} sb_run_summary;

extern volatile sig_atomic_t sb_stop_requested;

/* The checks that need no launch (compute capability, threads per block,
 * the family's own rule): returns 1 with row->status and row->detail set
 * when the point cannot run here, else 0. */
int sb_point_precheck(const sb_point *p, const sb_device *d, sb_row *row);
/* A new row's identity: family, variant, the variant's composition
 * (mainloop, consumer, schedule, epilogue) and axes, from the point. */
void sb_row_of_point(sb_row *row, const sb_point *p);

/* 1 (and the row marked `unsupported`) when the variant needs newer
 * features than the PTX its kernel was built from (runner.c). */
int sb_built_below_need(const sb_variant *v, const sb_launch *L, sb_row *row);

/* A timed row's bandwidth: gbps = the family's bytes_moved over the median
 * time, pct_of_copy against copy_gbps (the run's device-to-device copy; 0:
 * not measured, the cell stays empty). Nothing for a family without bytes. */
void sb_row_bandwidth(const sb_point *p, double median_s, double copy_gbps, sb_row *row);

/* After a row is done: the yardstick's ok row (SB_VF_YARDSTICK) is at 100%
 * and its gbps is the copy bandwidth of every later row (returned); any
 * other row, the reference family's own vector_copy included, leaves
 * copy_gbps as it was. */
double sb_take_yardstick(const sb_point *p, sb_row *row, double copy_gbps);

/* Runs points[order[0..count)] on device d, in that order, or the points
 * o->next_point names (point i's seed derives from o->seed and i). Stops after a row whose error left the CUDA
 * context unusable (sum->context_lost), or at sb_stop_requested (the point
 * in progress gets no row). Returns 0, or -1 if on_row failed. */
int sb_run_sweep(const sb_point *points, const long *order, long count, sb_device *d,
                 const sb_run_options *o, sb_run_summary *sum);

#endif
