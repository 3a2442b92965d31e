/* Multistage family, host side. Kernels, launcher and the variants table:
 * kernels/families/multistage.cu (block_threads and elems_per_thread compiled in).
 * The tile length is block_threads x elems_per_thread (the elems_per_thread
 * column); buffer_bytes is not used. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/parallel.h"
#include "../harness/random.h"
#include "families.h"
#include "registry.h"

#if defined(__GNUC__) && !defined(__clang__)
#define MS_HOT __attribute__((optimize("O3")))
#else
#define MS_HOT
#endif

extern const sb_variant_table sb_multistage_variants; /* kernels/families/multistage.cu */

/* ---- CPU reference ---- */

/* Blur and smooth of element i from their definitions (any i). */
static double ms_blur_at(const double *p, size_t i, size_t len) {
  double s = p[i];
  int c = 1;
  if (i >= 1) s += p[i - 1], ++c;
  if (i + 1 < len) s += p[i + 1], ++c;
  if (i >= 2) s += p[i - 2], ++c;
  if (i + 2 < len) s += p[i + 2], ++c;
  return s / c;
}

static double ms_smooth_at(const double *q, size_t i, size_t len) {
  double v = q[i];
  for (size_t j = 1; j <= 3 && i + j < len; ++j) v = 0.5 * (v + q[i + j]);
  return v;
}

/* One tile of len elements, x in/out, p and q scratch of len. Interior
 * elements take branch-free (vectorizable) loops, the edges the general
 * functions above. */
MS_HOT static void ms_tile(double *x, double *p, double *q, size_t len, int iters) {
  for (int pass = 0; pass < iters; ++pass) {
    for (size_t i = 0; i < len; ++i) p[i] = 1.1 * x[i];
    for (size_t i = 0; i < len && i < 2; ++i) q[i] = ms_blur_at(p, i, len);
    for (size_t i = 2; i + 2 < len; ++i) q[i] = (p[i] + p[i - 1] + p[i + 1] + p[i - 2] + p[i + 2]) / 5;
    for (size_t i = len > 4 ? len - 2 : 2; i < len; ++i) q[i] = ms_blur_at(p, i, len);
    for (size_t i = 0; i + 3 < len; ++i)
      x[i] = 0.5 * (0.5 * (0.5 * (q[i] + q[i + 1]) + q[i + 2]) + q[i + 3]);
    for (size_t i = len > 3 ? len - 3 : 0; i < len; ++i) x[i] = ms_smooth_at(q, i, len);
  }
}

typedef struct ms_job {
  const float *in;
  double *out;
  size_t tile;
  int iters;
} ms_job;

static void ms_range(void *ctx, size_t begin, size_t end) {
  const ms_job *j = ctx; /* tile-aligned */
  double *p = malloc(2 * j->tile * sizeof *p), *q = p + j->tile;
  for (size_t base = begin; base < end; base += j->tile) {
    size_t len = end - base < j->tile ? end - base : j->tile;
    for (size_t i = 0; i < len; ++i) j->out[base + i] = j->in[base + i];
    ms_tile(j->out + base, p, q, len, j->iters);
  }
  free(p);
}

void sb_multistage_reference(const float *in, double *out, size_t n, size_t tile, int iters) {
  ms_job j = {in, out, tile, iters};
  sb_parallel_for(n, tile, ms_range, &j);
}

/* Inputs in [1, 2), all values stay positive. Per pass the float kernel
 * rounds: the scale (and 1.1f vs 1.1: eps/2 each), the blur's 4 additions
 * and its multiply by fl(1/c) (3 eps), the smooth's 3 add-and-halve steps
 * (1.5 eps): <= 6 eps relative per pass, none amplified by the later
 * (positive-weight) means. Tolerance 8 eps (iters + 1) leaves a margin. */
double sb_multistage_tolerance(int iters) { return 8.0 * FLT_EPSILON * (iters + 1); }

/* ---- family hooks ---- */

static const char *multistage_check(const sb_point *p, const sb_device *d, char *buf,
                                    size_t len) {
  (void)d;
  long long block = p->axis[SB_AXIS_BLOCK], elems = p->axis[SB_AXIS_ELEMS];
  if (block % 64 != 0) {
    snprintf(buf, len, "the preprocess and blur halves must be whole warps: block_threads=%lld is not a multiple of 64", block);
    return buf;
  }
  if (elems > 8) {
    snprintf(buf, len, "elems_per_thread=%lld: at most 8 (16 chunks of mbarriers per tile)", elems);
    return buf;
  }
  return NULL;
}

static size_t multistage_bytes(const sb_point *p) {
  return (size_t)p->axis[SB_AXIS_N] * sizeof(float);
}

static long long multistage_bytes_moved(const sb_point *p) {
  return 2 * p->axis[SB_AXIS_N] * (long long)sizeof(float);
}

/* Per element and pass: 1 (scale) + 5 (blur) + 6 (smooth) FLOP. */
static long long multistage_flops(const sb_point *p) {
  return 12 * p->axis[SB_AXIS_N] * p->axis[SB_AXIS_ITERS];
}

static void multistage_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_f32(host_in, (size_t)p->axis[SB_AXIS_N], seed, 1.0f, 2.0f);
}

static int multistage_verify(const sb_point *p, const sb_check *check, const void *host_in,
                             const void *host_out, char *detail, size_t len) {
  (void)check;
  const size_t n = (size_t)p->axis[SB_AXIS_N];
  const int iters = (int)p->axis[SB_AXIS_ITERS];
  double *want = malloc(n * sizeof *want);
  if (!want) {
    snprintf(detail, len, "out of host memory for the CPU reference");
    return -1;
  }
  sb_multistage_reference(host_in, want, n, (size_t)(p->axis[SB_AXIS_BLOCK] * p->axis[SB_AXIS_ELEMS]), iters);
  const float *got = host_out;
  const double tol = sb_multistage_tolerance(iters);
  size_t first, bad = sb_compare_f32_rel(got, want, n, tol, &first);
  if (bad)
    snprintf(detail, len,
             "%zu of %zu elements differ from the CPU reference by more than %.2g relative "
             "(8 eps (iters + 1)); first at %zu: got %.9g, want %.9g",
             bad, n, tol, first, got[first], want[first]);
  free(want);
  return bad ? -1 : 0;
}

const sb_family sb_family_multistage = {
    .name = "multistage",
    .summary = "iters passes of preprocess, 5-point blur, cascade smooth over each block's tile of block_threads x elems_per_thread floats",
    .variants = &sb_multistage_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "128,1024",
                     [SB_AXIS_ITERS] = "1,16,64",
                     [SB_AXIS_N] = "16M",
                     [SB_AXIS_ELEMS] = "2,8"},
    /* n not a multiple of the tile: the short last tile is exercised. */
    .quick_axes = {[SB_AXIS_BLOCK] = "128,1024",
                   [SB_AXIS_ITERS] = "3",
                   [SB_AXIS_N] = "1000003",
                   [SB_AXIS_ELEMS] = "3"},
    .check = multistage_check,
    .in_bytes = multistage_bytes,
    .out_bytes = multistage_bytes,
    .bytes_moved = multistage_bytes_moved,
    .flops = multistage_flops,
    .make_input = multistage_make_input,
    .verify = multistage_verify,
};
