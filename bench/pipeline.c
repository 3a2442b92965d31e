/* Pipeline family: host side. Kernels, launcher and the variants table:
 * kernels/families/pipeline.cu; tiling, the compute chain and the variants' trait
 * flags: kernels/pipeline_tiles.h.
 *
 * Two families share one variants table and these hooks, because the
 * harness sweeps the cartesian product of a family's axes and the full
 * product (stages x buffer_bytes x warps x intensity) would take far too
 * long:
 *   pipeline            stages x buffer_bytes at intensity 0, 4 consumer
 *                       warps: the latency-hiding heatmap (staged variants;
 *                       `reference` has no stages, so it is not in it);
 *   pipeline_intensity  intensity x consumer warps at one staged
 *                       configuration, every variant. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/parallel.h"
#include "../harness/random.h"
#include "../kernels/families/pipeline_tiles.h"
#include "families.h"
#include "registry.h"

/* kernels/families/pipeline.cu: every variant, and the first PL_NUM_STAGED (those
 * with stages). */
extern const sb_variant_table sb_pipeline_variants, sb_pipeline_staged_variants;

/* ---- CPU reference ---- */

typedef struct chain_job {
  const float *in;
  float *out;       /* the reference is written here, or (out == NULL) */
  const float *got; /* compared with this, element by element */
  int fmas;
  double rel;
  atomic_size_t bad, first; /* compare mode: count, lowest index */
} chain_job;

/* Elements go through the chain 64 at a time, one FMA step for all 64
 * before the next, so the compiler can keep many independent chains in
 * vector registers; each element still sees exactly the kernels' sequence
 * x = fmaf(x, A, B), fmas times. The 64 results are stored, or compared at
 * once with the GPU's (no reference array: verifying 128M elements needs
 * no 512 MB allocation and no second, serial pass). */
#define CHAIN_BODY                                                  \
  chain_job *j = p;                                                 \
  for (size_t i = b; i < e; i += 64) {                              \
    size_t m = e - i < 64 ? e - i : 64;                             \
    float x[64] = {0};                                              \
    memcpy(x, j->in + i, m * sizeof(float));                        \
    for (int k = 0; k < j->fmas; ++k)                               \
      for (int l = 0; l < 64; ++l) x[l] = fmaf(x[l], PL_FMA_A, PL_FMA_B); \
    if (j->out) {                                                   \
      memcpy(j->out + i, x, m * sizeof(float));                     \
      continue;                                                     \
    }                                                               \
    size_t first, bad = sb_compare_f32_rel_f32(j->got + i, x, m, j->rel, &first); \
    if (!bad) continue;                                             \
    first += i;                                                     \
    atomic_fetch_add(&j->bad, bad);                                 \
    size_t seen = atomic_load(&j->first);                           \
    while (first < seen && !atomic_compare_exchange_weak(&j->first, &seen, first)) { \
    }                                                               \
  }

static void chain_range(void *p, size_t b, size_t e) { CHAIN_BODY }

#if defined(__x86_64__) && defined(__GNUC__)
/* Same code with FMA instructions: fmaf then inlines to vfmadd (still one
 * rounding, so the same bits) instead of a libm call per element. */
__attribute__((target("avx2,fma"))) static void chain_range_fma(void *p, size_t b, size_t e) {
  CHAIN_BODY
}
#endif

static void run_chain(chain_job *j, size_t n) {
  void (*fn)(void *, size_t, size_t) = chain_range;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) fn = chain_range_fma;
#endif
  sb_parallel_for(n, 4096, fn, j);
}

void sb_pipeline_cpu_reference(const float *in, float *out, size_t n, int intensity) {
  chain_job j = {.in = in, .out = out, .fmas = intensity / 2};
  run_chain(&j, n);
}

size_t sb_pipeline_check(const float *in, const float *got, size_t n, int intensity, double rel,
                         size_t *first) {
  chain_job j = {.in = in, .got = got, .fmas = intensity / 2, .rel = rel};
  atomic_init(&j.bad, 0);
  atomic_init(&j.first, n);
  run_chain(&j, n);
  *first = atomic_load(&j.first);
  return atomic_load(&j.bad);
}

/* Tolerance: fmaf is correctly rounded on both sides and the kernels run
 * the same FMA sequence, so the results are expected to be bit-identical;
 * we accept |got - want| <= PL_REL_TOL * |want| (~8 ulp), which still
 * rejects any misplaced, missing (0xA5 poison) or stale element. */
#define PL_REL_TOL 1e-6

size_t sb_compare_f32_rel_f32(const float *got, const float *want, size_t n, double rel,
                          size_t *first) {
  size_t bad = 0;
  *first = n;
  for (size_t i = 0; i < n; ++i) {
    double d = fabs((double)got[i] - (double)want[i]);
    if (!(d <= rel * fabs((double)want[i])) && bad++ == 0) *first = i;
  }
  return bad;
}

/* ---- family hooks ---- */

extern const sb_family sb_family_pipeline;

static int has_flag(const sb_point *p, unsigned flag) { return (p->variant->flags & flag) != 0; }

/* Shared memory one block of the point asks for (dynamic + static). */
static long long pipeline_smem(const sb_point *p) {
  long long s = p->axis[SB_AXIS_STAGES], b = p->axis[SB_AXIS_BUFFER_BYTES];
  if (has_flag(p, SB_VF_PL_NO_STAGES)) return 0;
  return s * b + (has_flag(p, SB_VF_PL_WARP_SPECIALIZED) ? 16 * s : 0); /* + full, empty */
}

static const char *pipeline_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  long long s = p->axis[SB_AXIS_STAGES], b = p->axis[SB_AXIS_BUFFER_BYTES];
  long long intensity = p->axis[SB_AXIS_INTENSITY], warps = p->axis[SB_AXIS_WARPS];
  if (intensity % 2) {
    snprintf(buf, len, "intensity=%lld is odd: the chain is FMAs of 2 FLOP each", intensity);
    return buf;
  }
  if (warps > 8) {
    snprintf(buf, len, "consumer_warps=%lld: this family sweeps 1..8", warps);
    return buf;
  }
  if (has_flag(p, SB_VF_PL_NO_STAGES)) return NULL; /* no stages, no shared memory */
  if (p->family == &sb_family_pipeline && s > 1 && has_flag(p, SB_VF_PL_ONE_TILE)) {
    snprintf(buf, len, "%s runs one tile of stages x buffer_bytes: the heatmap keeps its stages=1 row",
             p->variant->name);
    return buf;
  }
  if (b % 1024) {
    snprintf(buf, len, "buffer_bytes=%lld is not a multiple of 1 KiB (tiles are whole 256-float rows)", b);
    return buf;
  }
  if ((size_t)pipeline_smem(p) > d->smem_per_block_optin) {
    snprintf(buf, len,
             "stages x buffer_bytes = %lld x %lld = %lld B (+ barriers) exceeds the %zu B of shared memory a block may use",
             s, b, s * b, d->smem_per_block_optin);
    return buf;
  }
  return NULL;
}

static size_t pipeline_bytes(const sb_point *p) { return (size_t)p->axis[SB_AXIS_N] * sizeof(float); }

static long long pipeline_bytes_moved(const sb_point *p) {
  return 2 * p->axis[SB_AXIS_N] * (long long)sizeof(float); /* read once + written once */
}

static long long pipeline_flops(const sb_point *p) {
  return p->axis[SB_AXIS_INTENSITY] / 2 * 2 * p->axis[SB_AXIS_N];
}

static void pipeline_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_f32(host_in, (size_t)p->axis[SB_AXIS_N], seed, -1.0f, 1.0f);
}

static int pipeline_verify(const sb_point *p, const sb_check *check, const void *host_in,
                           const void *host_out, char *detail, size_t len) {
  (void)check;
  const size_t n = (size_t)p->axis[SB_AXIS_N];
  const int intensity = (int)p->axis[SB_AXIS_INTENSITY];
  const float *in = host_in, *got = host_out;
  size_t first;
  const size_t bad = sb_pipeline_check(in, got, n, intensity, PL_REL_TOL, &first);
  if (bad) {
    float want;
    sb_pipeline_cpu_reference(in + first, &want, 1, intensity);
    snprintf(detail, len,
             "%zu of %zu floats differ from the CPU FMA chain by more than %g relative; "
             "first at %zu (%zu before the end): got %.9g, want %.9g",
             bad, n, PL_REL_TOL, first, n - first, (double)got[first], (double)want);
  }
  return bad ? -1 : 0;
}

static int pipeline_derive(const sb_point *p, const sb_device *d, const void *host_out,
                           sb_row *row) {
  (void)d, (void)host_out;
  /* Resident blocks: the occupancy, or 1 under contention=one_block_per_sm. */
  long long resident = p->axis[SB_AXIS_CONTENTION] == 0 ? 1 : row->blocks_per_sm;
  if (!has_flag(p, SB_VF_PL_NO_STAGES) && row->blocks_per_sm > 0)
    row->bytes_in_flight_per_sm =
        p->axis[SB_AXIS_STAGES] * p->axis[SB_AXIS_BUFFER_BYTES] * resident;
  return 0;
}

#define PIPELINE_HOOKS                              \
  .check = pipeline_check, .in_bytes = pipeline_bytes, \
  .out_bytes = pipeline_bytes, .bytes_moved = pipeline_bytes_moved, \
  .flops = pipeline_flops, .derive = pipeline_derive,  \
  .skip_timed_recheck = 1,                             \
  .make_input = pipeline_make_input, .verify = pipeline_verify

const sb_family sb_family_pipeline = {
    .name = "pipeline",
    .summary = "global -> shared stages -> FMA chain -> global: stages x buffer_bytes at intensity 0",
    .variants = &sb_pipeline_staged_variants,
    /* 128M floats: the 512 MiB the reference copy moves, so pct_of_copy
     * compares equal transfers (a launch's fixed cost, ~10 us, weighs the
     * same); 10x a 50 MB L2. */
    .default_axes = {[SB_AXIS_STAGES] = "1,2,4,8",
                     [SB_AXIS_BUFFER_BYTES] = "1k..64k",
                     [SB_AXIS_INTENSITY] = "0",
                     [SB_AXIS_N] = "128M",
                     [SB_AXIS_WARPS] = "4",
                     [SB_AXIS_CONTENTION] = "full_occupancy"},
    .quick_axes = {[SB_AXIS_STAGES] = "1,4",
                   [SB_AXIS_BUFFER_BYTES] = "16k",
                   [SB_AXIS_INTENSITY] = "0",
                   [SB_AXIS_N] = "16M,1000003",
                   [SB_AXIS_WARPS] = "4",
                   [SB_AXIS_CONTENTION] = "full_occupancy"},
    PIPELINE_HOOKS,
};

const sb_family sb_family_pipeline_intensity = {
    .name = "pipeline_intensity",
    .summary = "global -> shared stages -> FMA chain -> global: intensity x consumer warps",
    .variants = &sb_pipeline_variants,
    /* Ragged n (128M - 5: no multiple of any tile, nor of 4), as large as
     * the reference copy so that intensity 0 is comparable with it; the FP32
     * ridge point is ~130 FLOP/element on an H100/H200, so 1024 is well
     * past it. */
    .default_axes = {[SB_AXIS_STAGES] = "4",
                     [SB_AXIS_BUFFER_BYTES] = "16k",
                     [SB_AXIS_INTENSITY] = "0,16,64,256,1024",
                     [SB_AXIS_N] = "134217723",
                     [SB_AXIS_WARPS] = "2,8",
                     [SB_AXIS_CONTENTION] = "full_occupancy"},
    /* The default's compiled configuration (kernels/families/pipeline.cu). */
    .quick_axes = {[SB_AXIS_STAGES] = "4",
                   [SB_AXIS_BUFFER_BYTES] = "16k",
                   [SB_AXIS_INTENSITY] = "256", /* intensity 0: the pipeline family's quick */
                   [SB_AXIS_N] = "1000003",
                   [SB_AXIS_WARPS] = "2,8",
                   [SB_AXIS_CONTENTION] = "full_occupancy"},
    PIPELINE_HOOKS,
};
