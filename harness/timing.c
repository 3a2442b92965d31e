#include "timing.h"

#include "stats.h"
#include "paired.h" /* sb_pairs_path */

#include <cuda.h> /* the driver's context calls, reached through cudaGetDriverEntryPointByVersion */
#include <cudaTypedefs.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sb_sleep_s(double s) {
  const struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

cudaError_t sb_timer_init(sb_timer *t, cudaStream_t stream) {
  t->stream = stream;
  t->samples = NULL;
  t->count = t->cap = 0;
  t->sample_mhz = NULL;
  t->mhz_count = t->mhz_cap = 0;
  t->flushes = 0;
  t->flush_read_blocks = 0;
  t->flush_discard = 0;
  t->witness = NULL;
  t->hold = NULL;
  t->hold_unflushed = 0;
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
  free(t->sample_mhz);
  t->sample_mhz = NULL;
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
  t->mhz_count = 0;
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

/* Before the statistics sort the samples (and so out of step with sample_mhz). */
double sb_timer_median_kcycles(const sb_timer *t) {
  if (t->count == 0 || t->mhz_count != t->count) return NAN;
  double *c = malloc(t->count * sizeof *c);
  if (!c) return NAN;
  size_t n = 0;
  for (size_t i = 0; i < t->count && !isnan(t->sample_mhz[i]); ++i) c[n++] = t->samples[i] * t->sample_mhz[i] * 1e3;
  sb_stats s;
  const double k = n == t->count && sb_stats_compute(c, n, &s) == 0 ? s.median : NAN;
  free(c);
  return k;
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
  sb_sleep_s(SB_THROTTLE_REST_S);
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

/* A held sample whose hold gave up before the host had enqueued it. */
static const char HOLD_TIMED_OUT[] =
    "the stream hold timed out: the launch queue took fewer launches than the sample's iters; "
    "give a smaller --iters";
/* ... and an unflushed one (held unless SB_HOLD=off): one launch, so the host itself stalled. */
static const char HOLD_UNFLUSHED_TIMED_OUT[] =
    "the stream hold before an unflushed sample timed out before the host had enqueued its one launch";

/* ---- the kernel-boundary rows' context and stream ----
 *
 * Where a stream's launches cross a kernel boundary is set when the CUDA
 * context and the stream are made: on an H200, fresh contexts of one process
 * time 512 empty launches at two levels about 9% apart (1494-1514 vs
 * 1625-1645 ns a boundary, 13 and 11 of 24 contexts), and within one context
 * each stream (hardware queue) at its own pace, steady, up to 10% apart
 * (docs/history.md). One process has one context, so its boundary rows drew
 * one level, and two processes disagreed. The rows marked in_context are
 * therefore timed on a stream of a context this timer makes for them: of
 * SB_CONTEXTS fresh contexts, made one after another, with SB_HOLD_STREAMS
 * streams each, the stream whose probe (held, SB_CONTEXT_PROBE_LAUNCHES
 * empty launches of one block per SM, the median of SB_CONTEXT_PROBE_SAMPLES)
 * is fastest: the boundary where the driver places a queue best. Only those
 * rows run there (the point's buffers stay in the process's own context;
 * with every row timed in the chosen one, its boundaries ran 11-13% slower
 * than its probe). The probes' spread goes into the rows' detail. */
#define SB_CONTEXT_PROBE_LAUNCHES 512
#define SB_CONTEXT_PROBE_SAMPLES 3

#define SB_CONTEXTS_MAX 64

typedef struct sb_context {
  CUcontext ctx;
  cudaStream_t spare;      /* the untimed launches (a graph's capture, the module's load) */
  cudaStream_t held[SB_HOLD_STREAMS];
  int held_count;
  int best;                /* the stream of held[] whose probe was fastest: the timed one */
  cudaEvent_t start, stop;
  int *gate;               /* mapped pinned [gate, timed_out] */
} sb_context;

static struct {
  int state;               /* 0: not yet; 1: chosen; -1: none (the process's own context) */
  sb_context c;
  const void *warmed_axis, *warmed_variant; /* the point last warmed in it */
  char note[256];
  PFN_cuCtxCreate_v3020 create;
  PFN_cuCtxDestroy_v4000 destroy;
  PFN_cuCtxPushCurrent_v4000 push;
  PFN_cuCtxPopCurrent_v4000 pop;
  PFN_cuDeviceGet_v2000 device_get;
  PFN_cuCtxSetCurrent_v4000 set_current;
} g_ctx;

const char *sb_context_note(void) { return g_ctx.note; }

static int driver_entry(const char *name, unsigned version, void **fn) {
  enum cudaDriverEntryPointQueryResult q;
  return cudaGetDriverEntryPointByVersion(name, fn, version, cudaEnableDefault, &q) == cudaSuccess &&
                 q == cudaDriverEntryPointSuccess && *fn
             ? 0
             : -1;
}

/* The events and the gate a sample of c needs (context_sample), made while
 * c->ctx is current. */
static cudaError_t context_timing(sb_context *c) {
  cudaError_t e = cudaEventCreate(&c->start);
  if (e == cudaSuccess) e = cudaEventCreate(&c->stop);
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&c->gate, 2 * sizeof *c->gate, cudaHostAllocMapped);
  return e;
}

/* Streams, events and the gate of c->ctx, made while it is current. */
static cudaError_t context_fill(sb_context *c) {
  cudaError_t e = cudaStreamCreateWithFlags(&c->spare, cudaStreamNonBlocking);
  for (int i = 0; i < SB_HOLD_STREAMS && e == cudaSuccess; ++i)
    if ((e = cudaStreamCreateWithFlags(&c->held[i], cudaStreamNonBlocking)) == cudaSuccess) c->held_count = i + 1;
  if (e == cudaSuccess) e = context_timing(c);
  return e;
}

static void context_drop(sb_context *c) {
  if (c->ctx) g_ctx.destroy(c->ctx); /* its streams, events and pinned memory go with it */
  memset(c, 0, sizeof *c);
}

/* One sample on stream s of c (current): launch(arg, s) between c's events,
 * behind the gate when held. */
static cudaError_t context_sample(sb_context *c, cudaStream_t s, cudaError_t (*launch)(void *, cudaStream_t),
                                  void *arg, int held, double *seconds) {
  float ms = 0;
  cudaError_t e = cudaSuccess;
  c->gate[0] = c->gate[1] = 0;
  if (held) e = sb_stream_hold(s, &c->gate[0], &c->gate[1], SB_HOLD_TIMEOUT_NS);
  if (e == cudaSuccess) e = cudaEventRecord(c->start, s);
  if (e == cudaSuccess) e = launch(arg, s);
  if (e == cudaSuccess) e = cudaEventRecord(c->stop, s);
  __atomic_store_n(&c->gate[0], 1, __ATOMIC_SEQ_CST);
  if (e == cudaSuccess) e = cudaEventSynchronize(c->stop);
  if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, c->start, c->stop);
  if (e == cudaSuccess && held && __atomic_load_n(&c->gate[1], __ATOMIC_SEQ_CST))
    e = cudaErrorLaunchOutOfResources; /* the hold gave up before the sample was enqueued */
  *seconds = ms * 1e-3;
  return e;
}

static int probe_blocks;
static cudaError_t probe_launch(void *arg, cudaStream_t s) {
  (void)arg;
  return sb_empty_launches(s, probe_blocks, SB_CONTEXT_PROBE_LAUNCHES);
}

/* The median of SB_CONTEXT_PROBE_SAMPLES samples of launch on stream s of
 * c (current), over `per` operations a sample, in ns. */
static cudaError_t probe_median(sb_context *c, cudaStream_t s, cudaError_t (*launch)(void *, cudaStream_t),
                                int held, int per, double *ns) {
  double v[SB_CONTEXT_PROBE_SAMPLES];
  cudaError_t e = cudaSuccess;
  for (int k = 0; k < SB_CONTEXT_PROBE_SAMPLES && e == cudaSuccess; ++k)
    e = context_sample(c, s, launch, NULL, held, &v[k]);
  if (e == cudaSuccess) {
    sb_stats st;
    sb_stats_compute(v, SB_CONTEXT_PROBE_SAMPLES, &st);
    *ns = st.median * 1e9 / per;
  }
  return e;
}

/* A fresh context, filled and probed: each stream's probe (per boundary, in
 * ns) into ns[], c->best the fastest; popped on success. */
static cudaError_t context_try(CUdevice dev, sb_context *c, double *ns) {
  memset(c, 0, sizeof *c);
  if (g_ctx.create(&c->ctx, 0, dev) != CUDA_SUCCESS) {
    c->ctx = NULL;
    return cudaErrorDevicesUnavailable;
  }
  cudaError_t e = context_fill(c);
  for (int i = 0; i < c->held_count && e == cudaSuccess; ++i)
    if ((e = probe_median(c, c->held[i], probe_launch, 1, SB_CONTEXT_PROBE_LAUNCHES, &ns[i])) == cudaSuccess &&
        ns[i] < ns[c->best])
      c->best = i;
  if (e != cudaSuccess) return e;
  CUcontext popped;
  g_ctx.pop(&popped);
  return cudaSuccess;
}

/* The driver's context calls, the current device and the probe's grid
 * (one block per SM); -1 when any is out of reach. */
static int driver_calls(CUdevice *dev) {
  int ord = 0;
  if (driver_entry("cuCtxCreate", 3020, (void **)&g_ctx.create) ||
      driver_entry("cuCtxDestroy", 4000, (void **)&g_ctx.destroy) ||
      driver_entry("cuCtxPushCurrent", 4000, (void **)&g_ctx.push) ||
      driver_entry("cuCtxPopCurrent", 4000, (void **)&g_ctx.pop) ||
      driver_entry("cuCtxSetCurrent", 4000, (void **)&g_ctx.set_current) ||
      driver_entry("cuDeviceGet", 2000, (void **)&g_ctx.device_get) || cudaGetDevice(&ord) != cudaSuccess ||
      cudaDeviceGetAttribute(&probe_blocks, cudaDevAttrMultiProcessorCount, ord) != cudaSuccess ||
      g_ctx.device_get(dev, ord) != CUDA_SUCCESS) {
    cudaGetLastError();
    return -1;
  }
  return 0;
}

/* SB_PROBES_FILE=path (a probe, docs/gate-details.md), appended to ("%p":
 * the process id): NULL when unset or not to be opened. */
static FILE *probes_file(void) {
  const char *tmpl = getenv("SB_PROBES_FILE");
  char path[4096];
  if (!tmpl || !*tmpl || !sb_pairs_path(tmpl, (long)getpid(), path, sizeof path)) return NULL;
  return fopen(path, "a");
}

/* Each fresh context's probes for the boundary rows, one line a context:
 * its index, then each stream's ns a boundary. */
static void probes_dump(int context, const double *ns, int streams) {
  FILE *f = probes_file();
  if (!f) return;
  fprintf(f, "%d", context);
  for (int k = 0; k < streams; ++k) fprintf(f, " %.1f", ns[k]);
  fputc('\n', f);
  fclose(f);
}

/* ... and each fresh context a worker's own one is chosen from: "worker",
 * its index, its launch probe (ns a boundary) and its grid-barrier probe (ns
 * a barrier; nan: none). */
static void probes_dump_worker(int context, double ns, double grid_ns) {
  FILE *f = probes_file();
  if (!f) return;
  fprintf(f, "worker %d %.1f %.1f\n", context, ns, grid_ns);
  fclose(f);
}

/* Picks the context and stream once per process; on any failure the rows
 * are timed in the process's own context, and the note says why. */
static void context_choose(void) {
  CUdevice dev;
  if (driver_calls(&dev)) {
    g_ctx.state = -1;
    snprintf(g_ctx.note, sizeof g_ctx.note,
             "timed in the process's own context (the driver's context calls are out of reach)");
    return;
  }
  double best = INFINITY, lo = INFINITY, hi = 0;
  static double got[SB_CONTEXTS_MAX * SB_HOLD_STREAMS];
  int candidates = sb_contexts();
  if (candidates < 1) candidates = SB_CONTEXTS; /* main() refuses a bad value first */
  int tried = 0, contexts = 0;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < candidates; ++i) {
    sb_context c;
    double ns[SB_HOLD_STREAMS] = {0};
    if ((e = context_try(dev, &c, ns)) != cudaSuccess) {
      if (c.ctx) {
        CUcontext popped;
        g_ctx.pop(&popped);
        context_drop(&c);
      }
      break;
    }
    ++contexts;
    probes_dump(i, ns, c.held_count);
    for (int k = 0; k < c.held_count; ++k) got[tried++] = ns[k], lo = fmin(lo, ns[k]), hi = fmax(hi, ns[k]);
    if (ns[c.best] < best) {
      if (g_ctx.c.ctx) context_drop(&g_ctx.c);
      g_ctx.c = c, best = ns[c.best];
    } else {
      context_drop(&c);
    }
  }
  cudaGetLastError();
  if (!g_ctx.c.ctx) {
    g_ctx.state = -1;
    snprintf(g_ctx.note, sizeof g_ctx.note, "timed in the process's own context (a second context failed: %s)",
             cudaGetErrorString(e));
    return;
  }
  int near = 0;
  for (int i = 0; i < tried; ++i) near += got[i] <= best * 1.03;
  g_ctx.state = 1;
  snprintf(g_ctx.note, sizeof g_ctx.note,
           "timed on the fastest of %d streams in %d fresh contexts by a probe of %d empty launches "
           "(%.0f..%.0f ns a boundary; %d within 3%% of the fastest)",
           tried, contexts, SB_CONTEXT_PROBE_LAUNCHES, lo, hi, near);
}

typedef struct {
  sb_launch_fn fn;
  sb_launch *L;
} context_launch_arg;

static cudaError_t context_launch(void *arg, cudaStream_t s) {
  context_launch_arg *a = arg;
  a->L->stream = s;
  return a->fn(a->L);
}

/* A sample of an in_context row on the chosen stream: nothing of the
 * process's own context runs beside it (contexts share the GPU by time
 * slices), and a point's first sample there follows one untimed launch
 * (the module's load, a graph built anew). No L2 flush: those kernels
 * read nothing. */
static cudaError_t context_timed_launch(sb_timer *t, sb_launch_fn fn, sb_launch *L, double *seconds,
                                        const char **what) {
  cudaError_t e;
  *seconds = 0;
  if ((e = cudaStreamSynchronize(t->stream)) != cudaSuccess) {
    *what = "the process's own stream";
    return e;
  }
  if (g_ctx.push(g_ctx.c.ctx) != CUDA_SUCCESS) {
    *what = "making the chosen context current";
    return cudaErrorContextIsDestroyed;
  }
  const cudaStream_t keep = L->stream;
  L->context = &g_ctx.c;
  context_launch_arg a = {fn, L};
  if (g_ctx.warmed_axis != (const void *)L->axis || g_ctx.warmed_variant != (const void *)L->variant) {
    if ((e = context_launch(&a, g_ctx.c.spare)) == cudaSuccess) e = cudaStreamSynchronize(g_ctx.c.spare);
    if (e != cudaSuccess) *what = "the untimed launch in the chosen context";
    else g_ctx.warmed_axis = L->axis, g_ctx.warmed_variant = L->variant;
  }
  if (e == cudaSuccess &&
      (e = context_sample(&g_ctx.c, g_ctx.c.held[g_ctx.c.best], context_launch, &a, L->hold, seconds)) !=
          cudaSuccess)
    *what = e == cudaErrorLaunchOutOfResources ? HOLD_TIMED_OUT : "a sample in the chosen context";
  L->stream = keep;
  L->context = NULL;
  CUcontext popped;
  g_ctx.pop(&popped);
  return e;
}

/* One event-timed launch of fn, after the L2 flush when there is one;
 * *what names the step that failed. A held sample (launch->hold, or one
 * with no flush before it unless SB_HOLD=off) is enqueued while a hold kernel keeps
 * its stream busy: the events then time the GPU, not the host's issue. */
static cudaError_t timed_launch(sb_timer *t, sb_launch_fn fn, sb_launch *L, double *seconds,
                                const char **what) {
  cudaError_t e = cudaSuccess;
  float ms = 0;
  cudaStream_t s = t->stream;
  if (L->in_context && g_ctx.state == 0) context_choose();
  if (L->in_context && g_ctx.state == 1) return context_timed_launch(t, fn, L, seconds, what);
  if (L->hold && t->hold && (e = held_stream(t, &s)) != cudaSuccess) {
    *what = "the held sample's stream";
    *seconds = 0;
    return e;
  }
  /* an unflushed sample's hold: on its own stream (no pool: one launch) */
  const int held = L->hold || (t->hold_unflushed && t->hold);
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
  } else if (held && (t->hold[0] = t->hold[1] = 0,
                         (e = sb_stream_hold(s, &t->hold[0], &t->hold[1], SB_HOLD_TIMEOUT_NS)) !=
                             cudaSuccess))
    *what = "the stream hold";
  else if ((e = cudaEventRecord(t->start, s)) != cudaSuccess)
    *what = "cudaEventRecord";
  else if ((e = fn(L)) != cudaSuccess)
    *what = "launch";
  else if ((e = cudaEventRecord(t->stop, s)) != cudaSuccess)
    *what = "cudaEventRecord";
  else if ((held && (__atomic_store_n(&t->hold[0], 1, __ATOMIC_SEQ_CST), 0)) ||
           (e = cudaEventSynchronize(t->stop)) != cudaSuccess)
    *what = "kernel";
  else if ((e = cudaEventElapsedTime(&ms, t->start, t->stop)) != cudaSuccess)
    *what = "cudaEventElapsedTime";
  else if (held && __atomic_load_n(&t->hold[1], __ATOMIC_SEQ_CST)) {
    /* the host could not enqueue the sample before the hold gave up */
    e = cudaErrorLaunchOutOfResources;
    *what = L->hold ? HOLD_TIMED_OUT : HOLD_UNFLUSHED_TIMED_OUT;
  }
  if (e != cudaSuccess && held && t->hold) __atomic_store_n(&t->hold[0], 1, __ATOMIC_SEQ_CST);
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
  if (push(&t->samples, &t->count, &t->cap, *seconds) != 0 ||
      push(&t->sample_mhz, &t->mhz_count, &t->mhz_cap, t->window_mhz) != 0) {
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

/* The process's own context: the best of `candidates` fresh ones by the
 * probes on each one's first stream (see sb_context_adopt in timing.h). */
typedef struct {
  CUcontext ctx;
  cudaStream_t stream;
  double ns;      /* the launch probe, ns a boundary */
  double grid_ns; /* the grid-barrier probe, ns a barrier; NAN: none */
} adopted;

int sb_context_prefer(double ns, double grid_ns, double best_ns, double best_grid_ns, double fast_ns) {
  if (isnan(best_ns)) return 1;
  const double level = fast_ns * (1 + SB_CONTEXT_LEVEL);
  const int on = ns <= level, best_on = best_ns <= level;
  if (on != best_on) return on;
  if (!on || isnan(grid_ns) || isnan(best_grid_ns)) return ns < best_ns;
  return grid_ns < best_grid_ns;
}

static cudaError_t grid_probe_launch(void *arg, cudaStream_t s) {
  (void)arg;
  const int threads = sb_grid_probe_threads();
  return sb_grid_barriers(s, probe_blocks, threads, threads == 32 ? 1 : 0, SB_CONTEXT_GRID_SYNCS);
}

/* A fresh context and its first stream, probed; popped on success. A grid
 * barrier that cannot launch there leaves grid_ns NAN, nothing more. */
static cudaError_t adopt_try(CUdevice dev, adopted *a) {
  sb_context c;
  memset(&c, 0, sizeof c);
  memset(a, 0, sizeof *a);
  a->grid_ns = NAN;
  if (g_ctx.create(&c.ctx, 0, dev) != CUDA_SUCCESS) return cudaErrorDevicesUnavailable;
  a->ctx = c.ctx;
  cudaError_t e = cudaStreamCreateWithFlags(&a->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = context_timing(&c);
  if (e == cudaSuccess)
    e = probe_median(&c, a->stream, probe_launch, 1, SB_CONTEXT_PROBE_LAUNCHES, &a->ns);
  if (e == cudaSuccess) {
    /* One untimed launch first: the module's load. */
    cudaError_t g = grid_probe_launch(NULL, a->stream);
    if (g == cudaSuccess) g = cudaStreamSynchronize(a->stream);
    if (g == cudaSuccess) g = probe_median(&c, a->stream, grid_probe_launch, 0, SB_CONTEXT_GRID_SYNCS, &a->grid_ns);
    if (g != cudaSuccess) a->grid_ns = NAN, cudaGetLastError();
  }
  if (c.start) cudaEventDestroy(c.start);
  if (c.stop) cudaEventDestroy(c.stop);
  if (c.gate) cudaFreeHost(c.gate);
  CUcontext popped;
  g_ctx.pop(&popped);
  return e;
}

cudaError_t sb_context_adopt(int candidates, cudaStream_t *stream, char *note, size_t len) {
  CUdevice dev;
  *stream = NULL;
  if (driver_calls(&dev)) {
    snprintf(note, len, "the process's own context (the driver's context calls are out of reach)");
    return cudaErrorNotSupported;
  }
  const double t0 = mono_s();
  adopted best = {.ns = NAN, .grid_ns = NAN};
  double lo = INFINITY, hi = 0, glo = INFINITY, ghi = 0;
  int made = 0;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < candidates && i < 64; ++i) {
    adopted a;
    if ((e = adopt_try(dev, &a)) != cudaSuccess) {
      if (a.ctx) g_ctx.destroy(a.ctx);
      break;
    }
    probes_dump_worker(i, a.ns, a.grid_ns);
    ++made, lo = fmin(lo, a.ns), hi = fmax(hi, a.ns);
    if (!isnan(a.grid_ns)) glo = fmin(glo, a.grid_ns), ghi = fmax(ghi, a.grid_ns);
    if (sb_context_prefer(a.ns, a.grid_ns, best.ns, best.grid_ns, lo)) {
      if (best.ctx) g_ctx.destroy(best.ctx); /* its stream goes with it */
      best = a;
    } else {
      g_ctx.destroy(a.ctx);
    }
  }
  cudaGetLastError();
  if (!best.ctx || g_ctx.set_current(best.ctx) != CUDA_SUCCESS) {
    if (best.ctx) g_ctx.destroy(best.ctx);
    snprintf(note, len, "the process's own context (a fresh one failed: %s)", cudaGetErrorString(e));
    return e != cudaSuccess ? e : cudaErrorUnknown;
  }
  *stream = best.stream;
  if (isnan(best.grid_ns))
    snprintf(note, len,
             "the fastest of %d fresh contexts by a probe of %d empty launches on its first stream "
             "(%.0f..%.0f ns a boundary; no grid barrier probed), in %.1f s",
             made, SB_CONTEXT_PROBE_LAUNCHES, lo, hi, mono_s() - t0);
  else
    snprintf(note, len,
             "of %d fresh contexts, the fastest grid barrier (%.1f ns; %.1f..%.1f over them, %d in one "
             "launch) of those within %.0f%% of the fastest probe of %d empty launches (%.0f ns a "
             "boundary; %.0f..%.0f), both on its first stream, in %.1f s",
             made, best.grid_ns, glo, ghi, SB_CONTEXT_GRID_SYNCS, SB_CONTEXT_LEVEL * 100,
             SB_CONTEXT_PROBE_LAUNCHES, best.ns, lo, hi, mono_s() - t0);
  return cudaSuccess;
}
