#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>


static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cudaError_t sb_timer_init(sb_timer *t, cudaStream_t stream) {
  t->stream = stream;
  t->samples = NULL;
  t->count = t->cap = 0;
  t->flushes = 0;
  t->flush_read_blocks = 0;
  t->flush_discard = 0;
  t->witness = NULL;
  t->hold = NULL;
  t->held_count = 0;
  t->held_samples = 0;
  t->order = NULL;
  t->nvml = NULL;
  t->pair_fn = NULL;
  t->pair_samples = NULL;
  t->pair_cap = 0;
  t->throttle_mhz = 0;
  cudaError_t e = cudaEventCreate(&t->start);
  if (e == cudaSuccess) e = cudaEventCreate(&t->stop);
  /* No witness where mapped memory is refused: the clock cell stays empty. */
  if (e == cudaSuccess &&
      cudaHostAlloc((void **)&t->witness, sizeof *t->witness, cudaHostAllocMapped) != cudaSuccess) {
    cudaGetLastError();
    t->witness = NULL;
  }
  if (e == cudaSuccess &&
      cudaHostAlloc((void **)&t->hold, 2 * sizeof *t->hold, cudaHostAllocMapped) != cudaSuccess) {
    cudaGetLastError();
    t->hold = NULL;
  }
  sb_timer_reset(t);
  return e;
}

void sb_timer_destroy(sb_timer *t) {
  cudaEventDestroy(t->start);
  cudaEventDestroy(t->stop);
  free(t->samples);
  t->samples = NULL;
  free(t->pair_samples);
  t->pair_samples = NULL;
  if (t->witness) cudaFreeHost(t->witness);
  t->witness = NULL;
  if (t->hold) cudaFreeHost(t->hold);
  t->hold = NULL;
  for (int i = 0; i < t->held_count; ++i) cudaStreamDestroy(t->held[i]);
  t->held_count = 0;
  if (t->order) cudaEventDestroy(t->order);
  t->order = NULL;
}

/* The stream a held sample runs on: the next of the pool (created at the
 * first held sample), after t->stream's work (the clock witness). */
static cudaError_t held_stream(sb_timer *t, cudaStream_t *s) {
  if (t->held_count == 0) {
    int n = sb_hold_streams();
    if (n < 1) n = SB_HOLD_STREAMS; /* main() refuses a bad value first */
    cudaError_t e = cudaEventCreateWithFlags(&t->order, cudaEventDisableTiming);
    for (int i = 0; i < n && e == cudaSuccess; ++i) {
      e = cudaStreamCreateWithFlags(&t->held[i], cudaStreamNonBlocking);
      if (e == cudaSuccess) t->held_count = i + 1;
    }
    if (e != cudaSuccess) return e;
  }
  *s = t->held[t->held_samples++ % (unsigned long long)t->held_count];
  cudaError_t e = cudaEventRecord(t->order, t->stream);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(*s, t->order, 0);
  return e;
}

void sb_timer_reset(sb_timer *t) {
  t->count = 0;
  t->pair_count = 0;
  t->pair_failed = 0;
  t->since_witness_s = 0;
  t->window_mhz = NAN;
  t->window_flagged = 0;
  t->clk_sum = t->clk_weight = 0;
  t->retakes_left = SB_THROTTLE_RETAKES;
  t->retaken = t->throttled = 0;
  t->nvml_last_s = -1;
  sb_power_acc_reset(&t->power);
}

/* Closes the open witness window: its reading covers the sample time since. */
static void close_window(sb_timer *t) {
  if (!isnan(t->window_mhz) && t->since_witness_s > 0) {
    t->clk_sum += t->window_mhz * t->since_witness_s;
    t->clk_weight += t->since_witness_s;
  }
  t->since_witness_s = 0;
}

double sb_timer_clock_mhz(const sb_timer *t) {
  double sum = t->clk_sum, w = t->clk_weight;
  if (!isnan(t->window_mhz) && t->since_witness_s > 0) {
    sum += t->window_mhz * t->since_witness_s;
    w += t->since_witness_s;
  }
  return w > 0 ? sum / w : NAN;
}

void sb_timer_resume(sb_timer *t) {
  close_window(t);
  t->window_mhz = NAN;
  t->window_flagged = 0;
  t->nvml_last_s = -1;
}

static int witness_due(const sb_timer *t) {
  return t->witness &&
         (isnan(t->window_mhz) || t->since_witness_s >= SB_WITNESS_DUTY * SB_WITNESS_SPIN_NS * 1e-9);
}

/* After a sample whose witness ran: reads it (and NVML, rate-limited) and
 * applies the throttle rule. Returns 1 when the sample is to be re-taken. */
static int witness_read(sb_timer *t) {
  close_window(t);
  t->window_mhz = *(volatile double *)t->witness;
  unsigned long long reasons = 0;
  double now = mono_s();
  if (t->nvml && (t->nvml_last_s < 0 || now - t->nvml_last_s >= SB_NVML_PERIOD_S)) {
    reasons = sb_nvml_sample(t->nvml, &t->power);
    t->nvml_last_s = now;
  }
  t->window_flagged = sb_throttle_flagged(t->window_mhz, t->throttle_mhz, reasons);
  if (!sb_throttle_retake(t->window_flagged, &t->retakes_left)) return 0;
  /* nvbench's recovery: rest, then take the sample again. */
  struct timespec rest = {0, (long)(SB_THROTTLE_REST_S * 1e9)};
  nanosleep(&rest, NULL);
  t->window_mhz = NAN; /* the next attempt starts with a fresh witness */
  ++t->retaken;
  return 1;
}

static int fail(cudaError_t e, const char *what, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return -1;
}

static int push(double **a, size_t *count, size_t *cap, double v) {
  if (*count == *cap) {
    size_t n = *cap ? 2 * *cap : 1024;
    double *grown = realloc(*a, n * sizeof *grown);
    if (!grown) return -1;
    *a = grown;
    *cap = n;
  }
  (*a)[(*count)++] = v;
  return 0;
}

/* One event-timed launch of fn, after the L2 flush when there is one;
 * *what names the step that failed. */
static cudaError_t timed_launch(sb_timer *t, sb_launch_fn fn, sb_launch *L, double *seconds,
                                const char **what) {
  cudaError_t e = cudaSuccess;
  float ms = 0;
  cudaStream_t s = t->stream;
  if (L->hold && t->hold && (e = held_stream(t, &s)) != cudaSuccess) {
    *what = "the held sample's stream";
    *seconds = 0;
    return e;
  }
  const cudaStream_t keep = L->stream;
  L->stream = s;
  if (t->flush_buf &&
      ((e = t->flush_read_blocks
                ? sb_l2_flush_read(s, t->flush_buf, t->flush_bytes, t->flush_read_blocks)
                : cudaMemsetAsync(t->flush_buf, (int)(++t->flushes & 0xff), t->flush_bytes, s)) !=
           cudaSuccess ||
       (t->flush_discard &&
        (e = sb_l2_discard(s, t->flush_buf, t->flush_bytes, t->flush_read_blocks)) != cudaSuccess)))
    *what = "L2 flush";
  else if (L->hold && !t->hold) {
    e = cudaErrorNotSupported;
    *what = "the stream hold (no mapped host memory)";
  } else if (L->hold && (t->hold[0] = t->hold[1] = 0,
                         (e = sb_stream_hold(s, &t->hold[0], &t->hold[1], SB_HOLD_TIMEOUT_NS)) !=
                             cudaSuccess))
    *what = "the stream hold";
  else if ((e = cudaEventRecord(t->start, s)) != cudaSuccess)
    *what = "cudaEventRecord";
  else if ((e = fn(L)) != cudaSuccess)
    *what = "launch";
  else if ((e = cudaEventRecord(t->stop, s)) != cudaSuccess)
    *what = "cudaEventRecord";
  else if ((L->hold && (__atomic_store_n(&t->hold[0], 1, __ATOMIC_SEQ_CST), 0)) ||
           (e = cudaEventSynchronize(t->stop)) != cudaSuccess)
    *what = "kernel";
  else if ((e = cudaEventElapsedTime(&ms, t->start, t->stop)) != cudaSuccess)
    *what = "cudaEventElapsedTime";
  else if (L->hold && __atomic_load_n(&t->hold[1], __ATOMIC_SEQ_CST)) {
    /* the host could not enqueue the sample before the hold gave up */
    e = cudaErrorLaunchOutOfResources;
    *what = "the stream hold timed out: the launch queue took fewer launches than the sample's iters; "
            "give a smaller --iters";
  }
  if (e != cudaSuccess && L->hold && t->hold) __atomic_store_n(&t->hold[0], 1, __ATOMIC_SEQ_CST);
  L->stream = keep;
  *seconds = ms * 1e-3;
  return e;
}

/* One sample of the paired ceiling, timed the same way. Returns 0, or -1
 * when it failed (the pairing then stops). */
static int pair_sample(sb_timer *t, double *seconds) {
  const char *what;
  if (timed_launch(t, t->pair_fn, t->pair_launch, seconds, &what) != cudaSuccess) {
    cudaGetLastError();
    t->pair_failed = 1;
    return -1;
  }
  return 0;
}

int sb_timer_sample(void *ctx, double *seconds, char *err, size_t errlen) {
  sb_timer *t = ctx;
  if (t->stop_flag && *t->stop_flag) {
    snprintf(err, errlen, "interrupted");
    return -1;
  }
  cudaError_t e;
again:;
  const int witnessed = witness_due(t);
  /* Pairs alternate their order, v c then c v (harness/paired.h): the
   * ceiling goes first in odd pairs. The witness precedes whichever runs
   * first, so it sits in front of both sides equally often. */
  const int ceiling_first = t->pair_fn && !t->pair_failed && (t->count & 1);
  if (witnessed) {
    *(volatile double *)t->witness = NAN;
    if ((e = sb_clock_witness(t->stream, SB_WITNESS_SPIN_NS, t->witness)) != cudaSuccess)
      return fail(e, "clock witness", err, errlen);
  }
  double ceiling_s = NAN;
  if (ceiling_first) pair_sample(t, &ceiling_s);
  /* The flush (inside timed_launch, outside the events) evicts the
   * previous sample's data from L2 so small working sets are timed from
   * DRAM, like large ones. */
  const char *what = "";
  if ((e = timed_launch(t, t->fn, t->launch, seconds, &what)) != cudaSuccess)
    return fail(e, what, err, errlen);
  if (witnessed && witness_read(t)) goto again; /* the pair is re-taken whole */
  if (t->window_flagged) ++t->throttled;
  if (push(&t->samples, &t->count, &t->cap, *seconds) != 0) {
    snprintf(err, errlen, "out of host memory for samples");
    return -1;
  }
  t->since_witness_s += *seconds;
  if (t->pair_fn && !t->pair_failed) {
    if (!ceiling_first) pair_sample(t, &ceiling_s);
    if (!t->pair_failed && push(&t->pair_samples, &t->pair_count, &t->pair_cap, ceiling_s) != 0)
      t->pair_failed = 1;
  }
  return 0;
}
