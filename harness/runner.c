#include "runner.h"

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gbench_shim.h"
#include "paired.h"
#include "random.h"
#include "stats.h"
#include "timing.h"
#include "watchdog.h"

volatile sig_atomic_t sb_stop_requested = 0;

/* Device and pinned host buffers, grown to the largest point seen. */
typedef struct buffers {
  void *d_in, *d_out, *h_in, *h_out, *d_flush;
  size_t in_cap, out_cap, flush_bytes;
} buffers;

static void free_buffers(buffers *b) {
  cudaFree(b->d_in);
  cudaFree(b->d_out);
  cudaFree(b->d_flush);
  cudaFreeHost(b->h_in);
  cudaFreeHost(b->h_out);
  memset(b, 0, sizeof *b);
}

static cudaError_t grow(void **d, void **h, size_t *cap, size_t need) {
  if (need <= *cap) return cudaSuccess;
  cudaFree(*d);
  cudaFreeHost(*h);
  *d = *h = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc(d, need);
  if (e == cudaSuccess) e = cudaMallocHost(h, need);
  if (e == cudaSuccess) *cap = need;
  return e;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* After a failed kernel: if the mbarrier watchdog fired, the row becomes
 * `deadlock` with the watchdog's report in front of the CUDA error. */
static void check_watchdog(sb_row *row) {
  char wd[SB_DETAIL_LEN], keep[SB_DETAIL_LEN];
  if (!sb_watchdog_describe(sb_watchdog_host, wd, sizeof wd)) return;
  snprintf(keep, sizeof keep, "%s", row->detail);
  row->status = SB_DEADLOCK;
  snprintf(row->detail, sizeof row->detail, "%.300s; %.200s", wd, keep);
}

/* An error row; returns 1 when the CUDA context is unusable afterwards. */
static int cuda_failed(sb_row *row, const char *what, cudaError_t e) {
  row->status = SB_ERROR;
  snprintf(row->detail, sizeof row->detail, "%s: %s (%s)", what,
           cudaGetErrorString(e), cudaGetErrorName(e));
  cudaGetLastError(); /* clear a non-sticky error */
  int lost = cudaDeviceSynchronize() != cudaSuccess;
  if (lost) check_watchdog(row);
  return lost;
}

/* One point's state across the steps of run_point, and between the two
 * parts of a point timed in halves (SB_PART_FIRST / SB_PART_SECOND,
 * runner.h): it lives in the runner because the timer points at its
 * launches, and part 2 carries on from it. */
typedef struct point_state {
  long waiting;        /* the point whose part 2 is due; -1: none */
  const sb_point *p;
  long index;          /* the point's place in the sweep's point list */
  sb_launch L;
  sb_point cp;         /* the paired ceiling's point and launch */
  sb_launch PL;
  int paired;          /* the timing so far was paired with the ceiling */
  int flush;
  size_t in_bytes, out_bytes;
  char name[512];
  sb_row row;          /* part 1's row so far: seed, configure's cells */
  /* SB_FF_PRICE_PER_PLACE: each place's own price (NAN: none), over both
   * parts of a point timed in halves */
  double price[2 * SB_PLACEMENTS_MAX];
  int priced;
} point_state;

/* Names of points, each once. */
typedef struct name_set {
  char **names;
  size_t count, cap;
} name_set;

/* 1: name added, 0: already there, -1: out of memory. */
static int name_set_add(name_set *s, const char *name) {
  for (size_t i = 0; i < s->count; ++i)
    if (!strcmp(s->names[i], name)) return 0;
  if (s->count == s->cap) {
    const size_t cap = s->cap ? 2 * s->cap : 64;
    char **grown = realloc(s->names, cap * sizeof *grown);
    if (!grown) return -1;
    s->names = grown, s->cap = cap;
  }
  char *copy = malloc(strlen(name) + 1);
  if (!copy) return -1;
  s->names[s->count++] = strcpy(copy, name);
  return 1;
}

static void name_set_free(name_set *s) {
  for (size_t i = 0; i < s->count; ++i) free(s->names[i]);
  free(s->names);
  *s = (name_set){0};
}

typedef struct runner {
  sb_device *dev;
  const sb_run_options *opt;
  cudaStream_t stream;
  buffers buf;
  sb_timer timer;
  double copy_gbps;
  void *d_pair_out; /* the paired ceiling's own output (harness/paired.h) */
  size_t pair_out_cap;
  point_state st;
  name_set wholes; /* the kernels checked whole (validate_whole_once) */
} runner;

/* Sets up the paired ceiling for p's timing: the ceiling point, queried
 * once here (not per sample), reading p's input and writing its own
 * output, warmed up once. Leaves r->timer.pair_fn NULL when p has no
 * ceiling to pair with or the ceiling cannot run at this shape. */
static void setup_pair(runner *r, const sb_point *p, sb_point *cp, sb_launch *PL) {
  const sb_family *f = p->family;
  r->timer.pair_fn = NULL;
  if (!f->ceiling_column || r->opt->unpaired || sb_ceiling_point(p, cp) != 0) return;
  sb_row scratch; /* the ceiling's own checks (cc, family rules) */
  sb_row_init(&scratch, NULL);
  if (sb_point_precheck(cp, r->dev, &scratch)) return;
  const size_t out_bytes = f->out_bytes(cp);
  if (f->in_bytes(cp) > r->buf.in_cap) return; /* it reads p's input */
  if (out_bytes > r->pair_out_cap) {
    cudaFree(r->d_pair_out);
    r->pair_out_cap = 0;
    if (cudaMalloc(&r->d_pair_out, out_bytes) != cudaSuccess) {
      r->d_pair_out = NULL;
      cudaGetLastError();
      return;
    }
    r->pair_out_cap = out_bytes;
  }
  *PL = (sb_launch){.axis = cp->axis, .variant = cp->variant, .stream = r->stream, .query = 1};
  cudaError_t e = cp->variant->launch(PL);
  if (e == cudaSuccess && !PL->skip[0]) {
    PL->in = r->buf.d_in;
    PL->out = r->d_pair_out;
    PL->query = 0;
    e = cp->variant->launch(PL); /* warm-up (a library's first call picks its kernel) */
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
    if (e == cudaSuccess) {
      r->timer.pair_fn = cp->variant->launch;
      r->timer.pair_launch = PL;
      return;
    }
  }
  cudaGetLastError(); /* the ceiling failed: the variant is timed alone, pct empty */
}

/* The minimum time for p. With a paired ceiling the two sides share it
 * (half each: a paired point costs the GPU time of an unpaired one), but
 * it is long enough for SB_MIN_PAIRS pairs (a large GEMM gets ~40 samples
 * from the minimum time alone, too few for its paired ratio to hold
 * across machines); one sample of the variant, outside the
 * statistics, sizes it. */
static double paired_min_time(runner *r) {
  if (!r->timer.pair_fn || r->opt->min_time_s <= 0) return r->opt->min_time_s;
  const double min_time = 0.5 * r->opt->min_time_s;
  cudaEvent_t a = r->timer.start, b = r->timer.stop;
  float ms = 0;
  if (cudaEventRecord(a, r->stream) != cudaSuccess || r->timer.fn(r->timer.launch) != cudaSuccess ||
      cudaEventRecord(b, r->stream) != cudaSuccess || cudaEventSynchronize(b) != cudaSuccess ||
      cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
    cudaGetLastError(); /* the timed samples will report it */
    return min_time;
  }
  const double want = SB_MIN_PAIRS * ms * 1e-3;
  return want > min_time ? want : min_time;
}

/* Pairs of the point with both samples (0 when the pairing failed):
 * samples[j] beside pair_samples[j] for j below it. */
static size_t complete_pairs(const sb_timer *t) {
  if (t->pair_failed) return 0;
  return t->pair_count < t->count ? t->pair_count : t->count;
}

/* SB_PAIRS_FILE: the paired samples of every paired point, appended as
 * one write (O_APPEND: the lines of parallel workers do not mix); "%p" in
 * the path is the process id (sb_pairs_path: a file per server of an A/B). */
static void dump_pairs(const sb_timer *t, const char *name) {
  const char *tmpl = getenv("SB_PAIRS_FILE");
  const size_t pairs = complete_pairs(t);
  char path[4096];
  if (!tmpl || !*tmpl || pairs == 0 || !sb_pairs_path(tmpl, (long)getpid(), path, sizeof path)) return;
  char *line = sb_pairs_line(name, t->samples, t->pair_samples, t->mhz_count >= pairs ? t->sample_mhz : NULL, pairs);
  int fd = line ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
  if (fd >= 0) {
    if (write(fd, line, strlen(line)) < 0) { /* a lost dump line is not a lost row */ }
    close(fd);
  }
  free(line);
}

/* pct_of_<ceiling> (family's ceiling_column): 100 on the ceiling's own
 * row, the paired ratio on the others, empty when pairing failed. */
static void record_ceiling(const sb_point *p, sb_timer *t, sb_row *row) {
  double *cell = sb_ceiling_cell(row, p->family->ceiling_column);
  if (!cell) return;
  if (p->variant->flags & SB_VF_CEILING)
    *cell = 100.0;
  else if (complete_pairs(t) > 0) {
    *cell = sb_paired_pct(t->samples, t->pair_samples, complete_pairs(t),
                          sb_variant_reading(p->family, p->variant));
    sb_stats c; /* sorts pair_samples: after the ratio and the dump */
    if (sb_stats_compute(t->pair_samples, t->pair_count, &c) == 0) row->ceiling_us = c.median * 1e6;
  }
}

/* The power-state cells of a timed row (schema 3). */
static void record_power_state(const sb_timer *t, double after_mhz, sb_row *row) {
  row->sm_clock_mhz = sb_timer_clock_mhz(t);
  row->sm_clock_after_mhz = after_mhz;
  row->throttled = t->throttled;
  const sb_power_acc *a = &t->power;
  if (a->power_n > 0) row->power_w = a->power_sum_w / a->power_n;
  row->temp_c = a->temp_max_c;
  if (a->reasons_n > 0) sb_throttle_names(a->reasons, row->throttle_reasons, sizeof row->throttle_reasons);
}

void sb_row_of_point(sb_row *row, const sb_point *p) {
  const sb_composition *c = &p->variant->composition;
  row->family = p->family->name;
  row->variant = p->variant->name;
  row->mainloop = c->mainloop ? c->mainloop : "";
  row->consumer = c->consumer ? c->consumer : "";
  row->schedule = c->schedule ? c->schedule : "";
  row->epilogue = c->epilogue ? c->epilogue : "";
  memcpy(row->axis, p->axis, sizeof row->axis);
}

int sb_point_precheck(const sb_point *p, const sb_device *d, sb_row *row) {
  int cc = d->cc_major * 10 + d->cc_minor;
  long long block = p->axis[SB_AXIS_BLOCK];
  if (p->variant->min_cc > cc) {
    row->status = SB_UNSUPPORTED;
    snprintf(row->detail, sizeof row->detail, "needs sm_%d or newer; this GPU is sm_%d",
             p->variant->min_cc, cc);
    return 1;
  }
  if (block != SB_AXIS_UNSET && block > d->max_threads_per_block) {
    row->status = SB_SKIPPED;
    snprintf(row->detail, sizeof row->detail,
             "block_threads=%lld exceeds this GPU's %d threads per block", block,
             d->max_threads_per_block);
    return 1;
  }
  if (p->family->check &&
      p->family->check(p, d, row->detail, sizeof row->detail) != NULL) {
    row->status = SB_SKIPPED;
    return 1;
  }
  return 0;
}

/* A variant that needs sm_XY features but whose kernel in this binary was
 * built from older PTX (e.g. make CUDA_ARCH=compute_80, JIT-compiled for a
 * newer GPU) is `unsupported`: what decides is what the kernel was built
 * for, not only what the GPU is. Returns 1 when the row is marked. */
int sb_built_below_need(const sb_variant *v, const sb_launch *L, sb_row *row) {
  if (v->min_cc == 0 || !v->pick || L->ptx_version == 0 || L->ptx_version >= v->min_cc)
    return 0;
  row->status = SB_UNSUPPORTED;
  snprintf(row->detail, sizeof row->detail,
           "needs sm_%d features; this binary's kernel was built from compute_%d PTX "
           "(JIT-compiled to sm_%d): rebuild with CUDA_ARCH including sm_%da",
           v->min_cc, L->ptx_version, L->binary_version, v->min_cc);
  return 1;
}

/* The steps of run_point return NEXT to go on, or what run_point returns:
 * 0 (the row is decided), 1 (the context is lost), -2 (filtered out), -3
 * (interrupted). */
#define NEXT (-100)

/* Query mode: the launch configuration, occupancy and the reasons a point
 * cannot run here (no code for this GPU, does not fit, no kernel). */
static int configure(runner *r, const sb_point *p, sb_launch *L, sb_row *row) {
  const sb_device *d = r->dev;
  cudaError_t e = p->variant->launch(L);
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
    row->status = SB_UNSUPPORTED;
    snprintf(row->detail, sizeof row->detail,
             "this binary has no code for sm_%d%d (rebuild with CUDA_ARCH including it)",
             d->cc_major, d->cc_minor);
    cudaGetLastError();
    return 0;
  }
  if (e == cudaErrorInvalidConfiguration || (e == cudaSuccess && L->blocks_per_sm == 0)) {
    row->status = SB_SKIPPED;
    if (L->skip[0]) /* the launcher's own reason (e.g. no cluster fits) */
      snprintf(row->detail, sizeof row->detail, "%s", L->skip);
    else
      snprintf(row->detail, sizeof row->detail,
               "cannot launch: %d threads with %zu B shared memory per block fit 0 times on an SM (limit %zu B)",
               L->block_threads, L->smem_bytes, d->smem_per_block_optin);
    cudaGetLastError();
    return 0;
  }
  if (e != cudaSuccess) return cuda_failed(row, "launch configuration", e);
  if (L->skip[0]) { /* no compiled kernel for this point */
    row->status = SB_SKIPPED;
    snprintf(row->detail, sizeof row->detail, "%s", L->skip);
    return 0;
  }
  if (sb_built_below_need(p->variant, L, row)) return 0;
  row->blocks_per_sm = L->blocks_per_sm;
  if (L->splits_used > 0) row->splits_used = L->splits_used;
  if (p->variant->pick) {
    row->regs_per_thread = L->regs_per_thread;
    row->smem_per_block = (long long)L->smem_bytes;
  }
  return NEXT;
}

static void *replace_pad;
static void replace_shuffle(void) {
  static uint64_t state; /* each process its own sequence of pads */
  if (!state) state = 0x5eed ^ ((uint64_t)getpid() << 20);
  void *old = replace_pad;
  const uint64_t x = sb_splitmix64(state++);
  const size_t bytes = ((size_t)(1 + x % 256) << 20) + ((size_t)(x >> 32) % 32 << 16);
  replace_pad = NULL;
  if (cudaMalloc(&replace_pad, bytes) == cudaSuccess)
    cudaMemset(replace_pad, 0, bytes); /* touched: its pages are really taken */
  else
    cudaGetLastError(), replace_pad = NULL;
  cudaFree(old);
}
/* One buffer of the runner anew (grow's contract: device and pinned host,
 * *cap set): the new one taken before the old one is given back. */
static cudaError_t replace(void **d, void **h, size_t *cap, size_t need) {
  void *od = *d, *oh = *h;
  *d = *h = NULL;
  *cap = 0;
  cudaError_t e = grow(d, h, cap, need);
  cudaFree(od);
  cudaFreeHost(oh);
  return e;
}

/* The point's input and output anew, elsewhere in device memory, with the
 * contents they hold (the validated input; the output's flags, counters and
 * per-block records, which a family may carry from launch to launch): the
 * new pair is taken behind a fresh pad (replace_shuffle) while the old one
 * is held, filled from it, and only then is the old one given back. The
 * launches read the new places from then on, the paired ceiling's too.
 * Returns 1 if moved, 0 if the GPU lacks the memory for a second copy (the
 * point keeps its place), or -1 on a CUDA error. */
static int move_buffers(runner *r, point_state *s) {
  replace_shuffle();
  void *in = NULL, *out = NULL;
  cudaError_t e = cudaMalloc(&in, r->buf.in_cap);
  if (e == cudaSuccess) e = cudaMalloc(&out, r->buf.out_cap);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    cudaFree(in);
    return 0;
  }
  if (e == cudaSuccess && s->in_bytes)
    e = cudaMemcpyAsync(in, r->buf.d_in, s->in_bytes, cudaMemcpyDeviceToDevice, r->stream);
  if (e == cudaSuccess && s->out_bytes)
    e = cudaMemcpyAsync(out, r->buf.d_out, s->out_bytes, cudaMemcpyDeviceToDevice, r->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
  if (e != cudaSuccess) {
    cudaFree(in);
    cudaFree(out);
    return -1;
  }
  cudaFree(r->buf.d_in);
  cudaFree(r->buf.d_out);
  r->buf.d_in = in;
  r->buf.d_out = out;
  s->L.in = in;
  s->L.out = out;
  s->PL.in = in; /* the ceiling reads the point's input (setup_pair) */
  return 1;
}

/* Grows the buffers to the point's sizes, or skips it when the GPU lacks
 * the memory. */
static int prepare_buffers(runner *r, size_t in_bytes, size_t out_bytes, sb_row *row) {
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  size_t extra = (in_bytes > r->buf.in_cap ? in_bytes : 0) + (out_bytes > r->buf.out_cap ? out_bytes : 0);
  if (extra > free_b) {
    row->status = SB_SKIPPED;
    snprintf(row->detail, sizeof row->detail,
             "needs %zu MiB more device memory; %zu MiB free", extra >> 20, free_b >> 20);
    return 0;
  }
  cudaError_t e;
  const int new_in = sb_replace_wants('i'), new_out = sb_replace_wants('o');
  if ((e = (new_in ? replace : grow)(&r->buf.d_in, &r->buf.h_in, &r->buf.in_cap, in_bytes)) != cudaSuccess ||
      (e = (new_out ? replace : grow)(&r->buf.d_out, &r->buf.h_out, &r->buf.out_cap, out_bytes)) != cudaSuccess)
    return cuda_failed(row, "allocating buffers", e);
  return NEXT;
}

/* Validate: fresh random input, poisoned output, one bounded launch,
 * compare with the CPU reference. A wrong result is never timed. pass: the
 * validation, or the one on the dirty workspace. */
static int validate(runner *r, const sb_point *p, sb_launch *L, unsigned long long seed,
                    sb_check_pass pass, size_t in_bytes, size_t out_bytes, sb_row *row) {
  const sb_family *f = p->family;
  cudaError_t e;
  row->seed = seed;
  f->make_input(p, r->buf.h_in, seed);
  if ((e = cudaMemcpyAsync(r->buf.d_in, r->buf.h_in, in_bytes, cudaMemcpyHostToDevice, r->stream)) != cudaSuccess ||
      (e = cudaMemsetAsync(r->buf.d_out, 0xA5, out_bytes, r->stream)) != cudaSuccess)
    return cuda_failed(row, "preparing buffers", e);
  L->in = r->buf.d_in;
  L->out = r->buf.d_out;
  L->query = 0;
  L->bounded = 1; /* mbarrier waits under the deadlock watchdog */
  if ((e = p->variant->launch(L)) != cudaSuccess) return cuda_failed(row, "launch", e);
  if ((e = cudaStreamSynchronize(r->stream)) != cudaSuccess) return cuda_failed(row, "kernel", e);
  if ((e = cudaMemcpy(r->buf.h_out, r->buf.d_out, out_bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
    return cuda_failed(row, "reading the output", e);
  const sb_check check = {seed, pass};
  if (f->verify(p, &check, r->buf.h_in, r->buf.h_out, row->detail, sizeof row->detail) != 0) {
    row->status = SB_WRONG;
    return 0;
  }
  return NEXT;
}

/* Part 2 of a point paired in part 1: the ceiling's launch is still in
 * the point's state; one warm-up of it, as setup_pair does, then its
 * samples go on beside the variant's. If it fails now, the pairs of part
 * 1 stay the point's pairs (complete_pairs). */
static void resume_pair(runner *r, point_state *s) {
  cudaError_t e = s->cp.variant->launch(&s->PL);
  if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  r->timer.pair_fn = s->cp.variant->launch;
  r->timer.pair_launch = &s->PL;
}

/* --profile-warmup: the launch that follows is the point's profiled one
 * (scripts/explain.py runs ncu --profile-from-start off): nothing of the
 * point's earlier work in flight, then the profiler range, opened by the
 * marker kernel that names the point. */
static cudaError_t profile_open(runner *r, long index) {
  cudaError_t e = cudaStreamSynchronize(r->stream);
  if (e == cudaSuccess) e = cudaProfilerStart();
  if (e == cudaSuccess) e = sb_profile_mark(r->stream, index);
  return e;
}

/* SB_FF_PRICE_PER_PLACE: the place just timed gets its own price, from the
 * records its launches left (NAN where the family finds none). */
static cudaError_t price_place(runner *r, point_state *s) {
  cudaError_t e = cudaMemcpy(r->buf.h_out, r->buf.d_out, s->out_bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return e;
  double price = NAN;
  if (s->p->family->place_price(s->p, r->buf.h_out, &price) != 0) price = NAN;
  if (s->priced < (int)(sizeof s->price / sizeof s->price[0])) s->price[s->priced++] = price;
  return cudaSuccess;
}

/* Warm up, then time through Google Benchmark; a variant with a raw twin
 * is timed with the raw wait (harness/launch.h). The timer's clock witness
 * and NVML readings measure the power state over the samples and re-take a
 * sample taken while throttled (harness/power.h); the paired ceiling's
 * samples interleave (harness/paired.h); the clock right after them is
 * kept beside. `share`: the part of the minimum time (1, or 0.5 for each
 * part of a point timed in two; a minimum left to Google Benchmark's flag,
 * min_time_s <= 0, is not split). `resume`: part 2, whose samples join
 * part 1's in the same pool, as --benchmark_repetitions' do; the ceiling's
 * pairs go on in the same v c / c v alternation. Google Benchmark's JSON
 * keeps the last part's run (a point timed twice keeps its last timing).
 *
 * The samples are taken over SB_PLACEMENTS places of the point's input and
 * output in device memory (move_buffers), an equal share of the time at
 * each, into one pool: where a buffer lies in physical memory (its L2
 * slices, its DRAM channels) set a point's level for a whole process, and
 * two processes of one binary disagreed by up to 22% on one placement each
 * (docs/history.md). A point timed in another context (L.in_context)
 * reads nothing of them. A family priced by each block's fastest launch
 * over a loop that reads memory (SB_FF_PRICE_PER_PLACE) would take the
 * best of the places with one minimum: its records start poisoned at each
 * place and each place gets its own price (place_median). */
static int time_point(runner *r, point_state *s, double share, int resume, sb_row *row,
                      double *after_mhz) {
  const sb_point *p = s->p;
  sb_launch *L = &s->L;
  cudaError_t e;
  char err[512] = "";
  const int per_place = !L->in_context && (p->family->flags & SB_FF_PRICE_PER_PLACE) && p->family->place_price;
  const int places = L->in_context ? 1 : sb_variant_placements(p->variant, sb_placements());
  int rc = 0;
  if (!resume) s->priced = 0;
  for (int place = 0; place < places && rc == 0; ++place) {
    const int more = resume || place > 0; /* samples join the pool so far */
    if (place > 0) {
      if (per_place && (e = price_place(r, s)) != cudaSuccess) return cuda_failed(row, "reading a place's records", e);
      const int moved = move_buffers(r, s);
      if (moved < 0) return cuda_failed(row, "moving the point's buffers", cudaGetLastError());
      row->placements += moved;
    } else if (!resume) {
      row->placements = 1;
    }
    /* each place's records start poisoned (the validation's 0xA5): its
     * launches alone set its price */
    if (per_place && (e = cudaMemsetAsync(r->buf.d_out, 0xA5, s->out_bytes, r->stream)) != cudaSuccess)
      return cuda_failed(row, "poisoning a place's records", e);
    L->bounded = 0;
    if (!more && r->opt->cooldown_s > 0) { /* --cooldown-ms: the GPU idle, then the warm-up */
      if ((e = cudaStreamSynchronize(r->stream)) != cudaSuccess) return cuda_failed(row, "before the cool-down", e);
      sb_sleep_s(r->opt->cooldown_s);
    }
    for (int i = 0; i < r->opt->warmup; ++i) {
      const int profiled = r->opt->profile_warmup && !more && i == r->opt->warmup - 1;
      if (profiled && (e = profile_open(r, s->index)) != cudaSuccess)
        return cuda_failed(row, "opening the profiled launch", e);
      if ((e = p->variant->launch(L)) != cudaSuccess) return cuda_failed(row, "warm-up launch", e);
      if (profiled && (e = cudaProfilerStop()) != cudaSuccess)
        return cuda_failed(row, "closing the profiled launch", e);
    }
    if ((e = cudaStreamSynchronize(r->stream)) != cudaSuccess) return cuda_failed(row, "warm-up", e);
    r->timer.fn = p->variant->launch;
    r->timer.launch = L;
    r->timer.flush_buf = s->flush ? r->buf.d_flush : NULL;
    r->timer.hold_unflushed = !s->flush && sb_hold_unflushed() == 1 && r->timer.hold != NULL;
    r->timer.flush_bytes = r->buf.flush_bytes;
    if (!more) {
      sb_timer_reset(&r->timer);
      r->timer.throttle_mhz = SB_THROTTLE_FRACTION * r->dev->max_clock_mhz;
      setup_pair(r, p, &s->cp, &s->PL);
      s->paired = r->timer.pair_fn != NULL;
    } else {
      sb_timer_resume(&r->timer);
      r->timer.pair_fn = NULL;
      if (s->paired) resume_pair(r, s);
    }
    double min_time = paired_min_time(r);
    if (min_time > 0) min_time *= share / places;
    rc = gbs_run_one(s->name, sb_timer_sample, &r->timer, min_time, err, sizeof err);
  }
  /* Google Benchmark stops once its samples outlast the minimum time: a
   * point whose one sample does (barrier/grid_sync at full occupancy, 74 ms
   * against 50) would publish a median, quartiles and a gate verdict of one
   * draw. The whole point (or its last part) takes samples up to
   * SB_MIN_SAMPLES, into the same pool (Google Benchmark's own report keeps
   * its iterations), at the last place. */
  if (rc == 0 && (share >= 1 || resume))
    while (r->timer.count < SB_MIN_SAMPLES) {
      double seconds;
      if (sb_timer_sample(&r->timer, &seconds, err, sizeof err) != 0) {
        rc = 1;
        break;
      }
    }
  r->timer.pair_fn = NULL; /* set again (resume_pair) for a part 2 */
  if (rc == 0 && per_place && (e = price_place(r, s)) != cudaSuccess)
    return cuda_failed(row, "reading a place's records", e);
  if (rc == 2) return -2; /* excluded by --benchmark_filter: no row */
  if (rc == 1) {
    if (sb_stop_requested) return -3;
    row->status = SB_ERROR;
    snprintf(row->detail, sizeof row->detail, "%s", err);
    cudaGetLastError();
    int lost = cudaDeviceSynchronize() != cudaSuccess;
    if (lost) check_watchdog(row);
    return lost;
  }
  if (sb_measure_sm_clock(r->stream, after_mhz) != cudaSuccess) *after_mhz = NAN;
  return NEXT;
}

/* The timed kernel was not the validated one (a raw twin): check what it
 * wrote too. */
static int recheck_timed(runner *r, const sb_point *p, const sb_launch *L, size_t out_bytes,
                         const char *name, sb_row *row) {
  const sb_family *f = p->family;
  if (!L->raw_twin || f->skip_timed_recheck) return NEXT;
  cudaError_t e = cudaMemcpy(r->buf.h_out, r->buf.d_out, out_bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_failed(row, "reading the timed output", e);
  char why[SB_DETAIL_LEN - 40];
  const sb_check check = {row->seed, SB_CHECK_TIMED}; /* the validation's input, other elements */
  if (f->verify(p, &check, r->buf.h_in, r->buf.h_out, why, sizeof why) != 0) {
    gbs_discard_last(name);
    row->status = SB_WRONG;
    snprintf(row->detail, sizeof row->detail, "timed (raw-wait) kernel: %s", why);
    return 0;
  }
  return NEXT;
}

void sb_row_bandwidth(const sb_point *p, double median_s, double copy_gbps, sb_row *row) {
  if (!p->family->bytes_moved) return;
  row->bytes_moved = p->family->bytes_moved(p);
  row->gbps = (double)row->bytes_moved / median_s * 1e-9;
  if (copy_gbps > 0) row->pct_of_copy = 100.0 * row->gbps / copy_gbps;
}

double sb_take_yardstick(const sb_point *p, sb_row *row, double copy_gbps) {
  if (!(p->variant->flags & SB_VF_YARDSTICK) || row->status != SB_OK) return copy_gbps;
  row->pct_of_copy = 100.0;
  return row->gbps;
}

/* The timing statistics and every figure derived from them. */
static void record_timing(runner *r, const sb_point *p, int flush, double after_mhz,
                          const char *row_name, sb_row *row) {
  const sb_family *f = p->family;
  /* First: the statistics sort the samples out of their pairs. */
  dump_pairs(&r->timer, row_name);
  record_ceiling(p, &r->timer, row);
  row->median_kcycles = sb_timer_median_kcycles(&r->timer);
  sb_stats s;
  sb_stats_compute(r->timer.samples, r->timer.count, &s);
  row->status = SB_OK;
  row->samples = (long long)s.count;
  row->median_us = s.median * 1e6;
  row->min_us = s.min * 1e6;
  row->max_us = s.max * 1e6;
  row->q1_us = s.q1 * 1e6;
  row->q3_us = s.q3 * 1e6;
  row->p01_us = s.p01 * 1e6;
  row->p05_us = s.p05 * 1e6;
  row->p10_us = s.p10 * 1e6;
  row->cv_pct = s.cv_pct;
  sb_row_bandwidth(p, s.median, r->copy_gbps, row);
  if (f->flops) row->gflops = (double)f->flops(p) / s.median * 1e-9;
  record_power_state(&r->timer, after_mhz, row);
  /* The flush's words (scripts/lib/sbcompare.py reads them: the gate
   * compares runs of one flush); its size only when not the default 2 L2s. */
  char size[32] = "";
  if (sb_flush_l2s() != 2) snprintf(size, sizeof size, " of %d L2s", sb_flush_l2s());
  int used = !flush ? snprintf(row->detail, sizeof row->detail, "%s", "")
                    : snprintf(row->detail, sizeof row->detail, "L2 flushed by a %s%s before each sample",
                               r->timer.flush_discard       ? "read and a discard"
                               : r->timer.flush_read_blocks ? "read"
                                                            : "memset",
                               size);
  /* no flush before each sample: the stream held while it was enqueued
   * (the default), or idle, the sample then including the host's issue.
   * Not for a row timed in a chosen context (the kernel-boundary rows): it
   * holds its stream or not by its own rule, and its detail says which. */
  const int own_timing = r->timer.launch && r->timer.launch->in_context;
  if (!flush && !own_timing && used >= 0 && (size_t)used < sizeof row->detail)
    used += snprintf(row->detail + used, sizeof row->detail - (size_t)used, "%s%s", used ? "; " : "",
                     r->timer.hold_unflushed      ? "no L2 flush; the stream held while each sample was enqueued"
                     : sb_hold_unflushed() == 0 ? "no L2 flush; each sample enqueued on an idle stream (SB_HOLD=off)"
                                                : "no L2 flush; each sample enqueued on an idle stream (no mapped host "
                                                  "memory for the stream hold)");
  const int promote = sb_tma_promotion_bytes();
  if (promote != SB_TMA_PROMOTION_AUTO && used >= 0 && (size_t)used < sizeof row->detail)
    used += snprintf(row->detail + used, sizeof row->detail - (size_t)used,
                     "%sthe TMA maps' L2 promotion %s (SB_TMA_PROMOTION)", used ? "; " : "",
                     promote == 256 ? "256 B" : promote == 128 ? "128 B" : promote == 64 ? "64 B" : "none");
  if (r->opt->cooldown_s > 0 && used >= 0 && (size_t)used < sizeof row->detail)
    used += snprintf(row->detail + used, sizeof row->detail - (size_t)used, "%sthe GPU idle %.0f ms before the warm-up",
                     used ? "; " : "", r->opt->cooldown_s * 1e3);
  if (r->timer.retaken > 0 && used >= 0 && (size_t)used < sizeof row->detail)
    snprintf(row->detail + used, sizeof row->detail - (size_t)used,
             "%s%lld samples taken while throttled were re-taken after a %.0f ms rest",
             used ? "; " : "", r->timer.retaken, SB_THROTTLE_REST_S * 1e3);
}

/* A timed point that turned out bad: the row keeps its point, seed, status
 * and detail, and loses every measured figure (a bad result is never a
 * number), in the CSV and in Google Benchmark's report. */
static void drop_timing(const char *name, sb_status status, sb_row *row) {
  gbs_discard_last(name);
  sb_row clean;
  sb_row_init(&clean, row->prov);
  clean.family = row->family;
  clean.variant = row->variant;
  memcpy(clean.axis, row->axis, sizeof clean.axis);
  clean.seed = row->seed;
  clean.status = status;
  memcpy(clean.detail, row->detail, sizeof clean.detail);
  *row = clean;
}

/* The family's derive hook on the timed output; a wrong result drops what
 * was measured (never a number). */
static int derive(runner *r, const sb_point *p, size_t out_bytes, const char *name, sb_row *row) {
  const sb_family *f = p->family;
  if (!f->derive) return 0;
  cudaError_t e = cudaMemcpy(r->buf.h_out, r->buf.d_out, out_bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_failed(row, "reading the timed output", e);
  char keep[SB_DETAIL_LEN];
  snprintf(keep, sizeof keep, "%s", row->detail);
  row->detail[0] = '\0';
  if (f->derive(p, r->dev, r->buf.h_out, row) != 0) {
    drop_timing(name, SB_WRONG, row);
    return 0;
  }
  if (keep[0]) { /* the timing's notes first, then what derive added */
    char both[2 * SB_DETAIL_LEN + 2];
    snprintf(both, sizeof both, "%s%s%s", keep, row->detail[0] ? "; " : "", row->detail);
    snprintf(row->detail, sizeof row->detail, "%.*s", (int)sizeof row->detail - 1, both);
  }
  return 0;
}

/* SB_FF_PRICE_PER_PLACE: the row's cycles_per_op is the median of the
 * places' own prices (derive's detail describes the last place's blocks);
 * a place that left no price makes the point wrong. */
static int place_median(point_state *s, sb_row *row) {
  if (!(s->p->family->flags & SB_FF_PRICE_PER_PLACE) || s->priced == 0) return NEXT;
  double sorted[sizeof s->price / sizeof s->price[0]];
  for (int i = 0; i < s->priced; ++i) {
    if (isnan(s->price[i])) {
      snprintf(row->detail, sizeof row->detail,
               "place %d of %d left no price in its records (a block never recorded its loop)", i + 1,
               s->priced);
      drop_timing(s->name, SB_WRONG, row);
      return 0;
    }
    sorted[i] = s->price[i];
  }
  sb_stats st;
  sb_stats_compute(sorted, (size_t)s->priced, &st);
  const double med = st.median;
  row->cycles_per_op = med;
  if (!isnan(row->sm_clock_mhz) && row->sm_clock_mhz > 0) row->ns_per_op = med * 1000.0 / row->sm_clock_mhz;
  char both[2 * SB_DETAIL_LEN];
  snprintf(both, sizeof both, "median over %d places of each place's own price: %.2f cycles/op, places range "
           "%.2f..%.2f; %s (the last place's blocks)", s->priced, med, st.min, st.max,
           row->detail);
  snprintf(row->detail, sizeof row->detail, "%.*s", (int)sizeof row->detail - 1, both);
  return NEXT;
}

/* A family whose launches leave state in a workspace (SB_FF_WORKSPACE_STATE):
 * the validation and the timed recheck both ran on input the workspace had
 * already seen, so a launch that skips its reset still reproduces the right
 * answer from stale flags, counters or partials. One more validation on the
 * workspace the timed launches left behind, with a second seed's input and
 * a poisoned output, catches it. The bounded twin runs it: the workspace is
 * the launcher's, shared by both twins, and a stale flag then ends in a
 * `deadlock` row, not a hang. Not timed. */
static int revalidate_on_dirty_workspace(runner *r, const sb_point *p, sb_launch *L,
                                         size_t in_bytes, size_t out_bytes, const char *name,
                                         sb_row *row) {
  if (!(p->family->flags & SB_FF_WORKSPACE_STATE) || (p->family->keeps_state && !p->family->keeps_state(p)))
    return 0;
  const unsigned long long seed = sb_second_seed(row->seed);
  sb_row check; /* validate writes its seed, status and detail here, not over the timed row */
  sb_row_init(&check, row->prov);
  const int rc = validate(r, p, L, seed, SB_CHECK_DIRTY, in_bytes, out_bytes, &check);
  if (rc == NEXT) return 0;
  snprintf(row->detail, sizeof row->detail, "second launch on the dirty workspace (seed %llu): %.440s",
           seed, check.detail);
  drop_timing(name, check.status, row);
  return rc;
}

/* A point whose check reads a sample of its output (family->whole_check):
 * unless its kernel was checked whole already in this process, the kernel
 * at a size whose check reads the whole output, validated with the point's
 * seed, before the point's own query (a launcher keeps the state of its
 * last query). Not timed. Where that point is wrong (or its launch fails),
 * so is the point's row. */
static int validate_whole_once(runner *r, const sb_point *p, unsigned long long seed, sb_row *row) {
  const sb_family *f = p->family;
  sb_point w, kernel;
  const int sampled = f->whole_check ? f->whole_check(p, &w, &kernel) : -1;
  if (sampled < 0) return NEXT;
  char name[sizeof r->st.name];
  sb_point_name(&kernel, name, sizeof name);
  if (name_set_add(&r->wholes, name) == 0 || !sampled) return NEXT; /* checked whole already, or now by p's own */
  sb_point_name(&w, name, sizeof name);
  sb_row check; /* configure and validate write here, not over the point's row */
  sb_row_init(&check, row->prov);
  if (sb_point_precheck(&w, r->dev, &check)) return NEXT; /* cannot run here: the point's sample stands */
  sb_launch L = {.axis = w.axis, .variant = w.variant, .stream = r->stream, .query = 1};
  const size_t in_bytes = f->in_bytes(&w), out_bytes = f->out_bytes(&w);
  int rc = configure(r, &w, &L, &check);
  if (rc == NEXT) rc = prepare_buffers(r, in_bytes, out_bytes, &check);
  if (rc == NEXT) rc = validate(r, &w, &L, seed, SB_CHECK_VALIDATION, in_bytes, out_bytes, &check);
  if (rc == NEXT || (rc == 0 && (check.status == SB_SKIPPED || check.status == SB_UNSUPPORTED))) return NEXT;
  row->status = check.status;
  row->seed = seed;
  snprintf(row->detail, sizeof row->detail, "the whole check of this kernel at %.160s: %.300s", name, check.detail);
  return rc;
}

/* The checks and the launch configuration of p, its buffers, and what
 * its timing needs (name, flush) in the runner's point state. */
static int set_up_point(runner *r, const sb_point *p, unsigned long long seed, sb_row *row) {
  const sb_family *f = p->family;
  point_state *s = &r->st;
  s->p = p;
  if (sb_point_precheck(p, r->dev, row)) return 0;
  int rc;
  if ((rc = validate_whole_once(r, p, seed, row)) != NEXT) return rc;
  s->L = (sb_launch){.axis = p->axis, .variant = p->variant, .stream = r->stream, .query = 1};
  s->in_bytes = f->in_bytes(p);
  s->out_bytes = f->out_bytes(p);
  const char *replacing = getenv("SB_REPLACE");
  if (replacing && strpbrk(replacing, "iowfp"))
    replace_shuffle(); /* before the query: gemm's workspace lands behind the new pad */
  if (sb_replace_wants('f')) { /* the flush buffer anew, the old one still held */
    void *fresh = NULL;
    const cudaError_t e = cudaMalloc(&fresh, r->buf.flush_bytes);
    if (e != cudaSuccess) return cuda_failed(row, "allocating the flush buffer", e);
    cudaMemset(fresh, 0, r->buf.flush_bytes); /* the read flush reads it */
    cudaFree(r->buf.d_flush);
    r->buf.d_flush = fresh;
  }
  if ((rc = configure(r, p, &s->L, row)) != NEXT) return rc;
  if ((rc = prepare_buffers(r, s->in_bytes, s->out_bytes, row)) != NEXT) return rc;
  if (replacing) /* the probe's log: where this point's buffers lie */
    fprintf(stderr, "replace: in %p out %p flush %p pad %p\n", r->buf.d_in, r->buf.d_out, r->buf.d_flush,
            replace_pad);
  /* Flush L2 before each sample when the working set is within 4x of L2
   * and could otherwise be served partly from the cache. */
  s->flush = s->in_bytes + s->out_bytes < 4 * r->dev->l2_bytes && sb_flush_method() != SB_FLUSH_NONE &&
             !s->L.in_context; /* timed in another context: its kernels read nothing */
  sb_point_name(p, s->name, sizeof s->name);
  return NEXT;
}

/* run_point's answer for a part 1 that passed: the state waits for part 2. */
#define PARTIAL (-4)

/* One point: check, configure, validate, time, derive, and for a family
 * with workspace state validate again on the dirty workspace. Or one part
 * of it (SB_PART_*, runner.h): part 1 stops after the first half of the
 * timing and keeps the point's state; part 2, on the same worker with
 * nothing run in between, takes the second half into the same pool and
 * goes on from there. Returns 0, or 1 if the context is lost, -2 filtered
 * out, -3 interrupted, PARTIAL. */
static int run_point(runner *r, const sb_point *p, long index, int part, unsigned long long seed,
                     sb_row *row) {
  point_state *s = &r->st;
  const int resume = part == SB_PART_SECOND;
  if (!resume) s->index = index;
  const long waiting = s->waiting;
  s->waiting = -1;
  double after_mhz = NAN;
  int rc;
  if (resume && waiting != index) { /* this worker did not run its part 1 */
    row->status = SB_ERROR;
    row->seed = seed;
    snprintf(row->detail, sizeof row->detail, "part 2/2 without its part 1/2 on this worker");
    return 0;
  }
  if (resume) {
    *row = s->row;
  } else {
    if ((rc = set_up_point(r, p, seed, row)) != NEXT) return rc;
    if ((rc = validate(r, p, &s->L, seed, SB_CHECK_VALIDATION, s->in_bytes, s->out_bytes, row)) != NEXT) return rc;
  }
  const double share = part == SB_PART_WHOLE ? 1.0 : 0.5;
  if ((rc = time_point(r, s, share, resume, row, &after_mhz)) != NEXT) return rc;
  if (part == SB_PART_FIRST) {
    s->row = *row;
    s->waiting = index;
    return PARTIAL;
  }
  if ((rc = recheck_timed(r, p, &s->L, s->out_bytes, s->name, row)) != NEXT) return rc;
  record_timing(r, p, s->flush, after_mhz, s->name, row);
  if ((rc = derive(r, p, s->out_bytes, s->name, row)) != 0 || row->status != SB_OK) return rc;
  if ((rc = place_median(s, row)) != NEXT) return rc;
  return revalidate_on_dirty_workspace(r, p, &s->L, s->in_bytes, s->out_bytes, s->name, row);
}

/* One line per finished point: [done/count  elapsed in  estimate left]. */
static void progress(const sb_run_options *o, long done, double t0, const sb_row *row,
                     const char *name) {
  FILE *log = o->log;
  if (!log) return;
  long count = o->progress_total;
  const double now = now_s(), elapsed = now - t0;
  const int since = (int)(now - (o->sweep_start_s > 0 ? o->sweep_start_s : t0));
  long here = done - o->progress_done; /* points this process has run */
  double left = here > 0 ? elapsed / (double)here * (double)(count - done) : 0;
  char line[2048];
  int w = snprintf(line, sizeof line, "%s[%*ld/%ld %2d:%02d in %2d:%02d left] %-11s %s",
                   o->log_prefix ? o->log_prefix : "", (int)snprintf(NULL, 0, "%ld", count), done,
                   count, since / 60, since % 60, (int)left / 60, (int)left % 60,
                   sb_status_names[row->status], name);
  size_t room = w > 0 && (size_t)w < sizeof line ? sizeof line - (size_t)w : 0;
  char *tail = line + (sizeof line - room);
  if (room == 0) {
  } else if (row->status == SB_OK && !isnan(row->cycles_per_op))
    snprintf(tail, room, "  %.2f us  %.1f cycles/op\n", row->median_us, row->cycles_per_op);
  else if (row->status == SB_OK && !isnan(row->gbps))
    snprintf(tail, room, "  %.2f us  %.1f GB/s  %.1f%% of copy\n", row->median_us, row->gbps,
             isnan(row->pct_of_copy) ? 0.0 : row->pct_of_copy);
  else if (row->status == SB_OK)
    snprintf(tail, room, "  %.2f us\n", row->median_us);
  else
    snprintf(tail, room, "  (%s)\n", row->detail);
  size_t len = strlen(line);
  if (len == 0 || line[len - 1] != '\n') { /* cut short: still one whole line */
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len] = '\n';
    line[len + 1] = '\0';
  }
  /* One fputs per line: lines of parallel workers do not interleave. */
  fputs(line, log);
  fflush(log);
}

/* SB_PAD_MIB (the placement probe, docs/gate-details.md): this many MiB
 * of device memory taken before any buffer and held to the end, so that
 * every buffer, flag and workspace of the sweep lands elsewhere in
 * physical memory. NULL when unset or 0. */
static void *placement_pad(void) {
  const char *env = getenv("SB_PAD_MIB");
  const long mib = env ? strtol(env, NULL, 10) : 0;
  void *pad = NULL;
  if (mib > 0 && cudaMalloc(&pad, (size_t)mib << 20) == cudaSuccess)
    cudaMemset(pad, 0, (size_t)mib << 20); /* touched: its pages are really taken */
  else
    cudaGetLastError();
  return pad;
}

int sb_run_sweep(const sb_point *points, const long *order, long count, sb_device *d,
                 const sb_run_options *o, sb_run_summary *sum) {
  memset(sum, 0, sizeof *sum);
  runner r = {.dev = d, .opt = o, .copy_gbps = o->copy_gbps};
  /* Before any buffer: everything the worker makes lives in the context
   * it adopts (harness/timing.h, sb_context_adopt). */
  const int candidates = sb_process_contexts();
  if (candidates > 0) {
    char note[512];
    const cudaError_t ce = sb_context_adopt(candidates, &r.stream, note, sizeof note);
    fprintf(stderr, "%ssyncbench: the worker's context: %s\n", o->log_prefix ? o->log_prefix : "", note);
    if (ce != cudaSuccess) cudaGetLastError();
  }
  void *pad = placement_pad();
  cudaError_t e = r.stream ? cudaSuccess : cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = sb_timer_init(&r.timer, r.stream);
  r.timer.stop_flag = (volatile int *)&sb_stop_requested;
  char bus_id[32] = "";
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, d->ordinal) == cudaSuccess)
    r.timer.nvml = sb_nvml_open(NULL, bus_id);
  else
    cudaGetLastError();
  r.buf.flush_bytes = (size_t)sb_flush_l2s() * d->l2_bytes;
  r.timer.flush_read_blocks = sb_flush_method() == SB_FLUSH_MEMSET ? 0 : 4u * (unsigned)d->sm_count;
  r.timer.flush_discard = sb_flush_method() == SB_FLUSH_DISCARD;
  if (e == cudaSuccess) e = cudaMalloc(&r.buf.d_flush, r.buf.flush_bytes);
  if (e == cudaSuccess && r.timer.flush_read_blocks)
    e = cudaMemset(r.buf.d_flush, 0, r.buf.flush_bytes); /* the read flush reads it */
  if (e != cudaSuccess) {
    fprintf(stderr, "%ssyncbench: cannot set up timing on the GPU: %s\n",
            o->log_prefix ? o->log_prefix : "", cudaGetErrorString(e));
    sum->context_lost = 1;
    return 0;
  }
  char label[160]; /* Google Benchmark's runs (JSON) say which GPU ran them */
  snprintf(label, sizeof label, "GPU %d: %s", d->ordinal, d->prov.gpu_name);
  gbs_set_label(label);
  double t0 = now_s();
  int status = 0;
  r.st.waiting = -1;
  long parts = 0; /* part 1s that passed: no row, no progress line */
  for (long k = 0; !sb_stop_requested; ++k) {
    int part = SB_PART_WHOLE;
    const long i = o->next_point ? o->next_point(o->ctx, &part) : k < count ? order[k] : -1;
    if (i < 0) break;
    const sb_point *p = &points[i];
    sb_row row;
    sb_row_init(&row, &d->prov);
    sb_row_of_point(&row, p);
    if (o->on_start) o->on_start(o->ctx, i);
    int lost = run_point(&r, p, i, part, sb_splitmix64(o->seed + (unsigned long long)i), &row);
    if (lost == PARTIAL) {
      if (o->on_partial) o->on_partial(o->ctx, i);
      ++parts;
      continue;
    }
    if (lost == -2) { /* a served point is asked for by name: it gets a row */
      ++sum->filtered;
      if (!o->next_point) continue;
      row.status = SB_SKIPPED;
      snprintf(row.detail, sizeof row.detail, "excluded by --benchmark_filter");
      lost = 0;
    }
    if (lost == -3) break; /* interrupted mid-point: that row is not done */
    r.copy_gbps = sb_take_yardstick(p, &row, r.copy_gbps);
    if (o->on_row(o->ctx, i, &row, lost == 1) != 0) {
      fprintf(stderr, "syncbench: writing the CSV failed; stopping\n");
      status = -1;
      break;
    }
    ++sum->by_status[row.status];
    char name[512];
    sb_point_name(p, name, sizeof name);
    progress(o, o->progress_done + k + 1 - parts, t0, &row, name);
    if (lost == 1) {
      sum->context_lost = 1;
      break;
    }
  }
  sum->interrupted = sb_stop_requested != 0;
  sb_nvml_close(r.timer.nvml);
  name_set_free(&r.wholes);
  if (!sum->context_lost) {
    sb_timer_destroy(&r.timer);
    free_buffers(&r.buf);
    cudaFree(r.d_pair_out);
    cudaFree(pad);
    cudaStreamDestroy(r.stream);
  }
  return status;
}
