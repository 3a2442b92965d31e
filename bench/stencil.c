/* Stencil families, host side: `stencil` (1D 3-point) and `stencil2d` (2D
 * 5-point) share their variants, CPU references and validation. Kernels and
 * launchers: kernels/stencil.cu. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/parallel.h"
#include "../harness/random.h"
#include "../kernels/families/stencil_tiles.h"
#include "families.h"
#include "registry.h"

/* The CPU references dominate a sweep's host time (n x iters updates per
 * point): let GCC vectorize them whatever the build's -O level. */
#if defined(__GNUC__) && !defined(__clang__)
#define ST_HOT __attribute__((optimize("O3")))
#else
#define ST_HOT
#endif

extern const sb_variant_table sb_stencil_variants, sb_stencil2d_variants; /* kernels/families/stencil.cu */
extern const sb_family sb_family_stencil2d;

/* Variants that also write each tile's residual after the n outputs. */
static int has_residual(const sb_point *p) { return (p->variant->flags & SB_STENCIL_VF_RESIDUAL) != 0; }

/* ---- tolerances ----
 *
 * Values: inputs are drawn from [1, 2) and every step replaces a value by a
 * mean of values, so all values stay in [1, 2). One float step computes
 * c + l + r (+ u + d), then multiplies by w = fl(1 / points): at most 4
 * additions and 1 multiply, each rounding by <= eps/2 relative, and w off
 * by <= eps/2: <= 3 eps relative per step. Errors of earlier steps enter a
 * mean with non-negative weights summing to 1 (+- eps), which does not
 * amplify them. So after `iters` steps |got - want| <= 3 eps * iters *
 * |want|; the tolerance below, 4 eps * (iters + 1), leaves a margin. A
 * barrier bug mixes values of two different iterations, which differ by far
 * more than that (tests/c/test_stencil.c checks both claims).
 *
 * The residual sum (over iterations and elements of |new - old|) has no
 * useful rigorous bound: its terms shrink as the tile smooths while their
 * absolute errors do not. Its tolerance is empirical: a float simulation of
 * the kernels' arithmetic stays within 1e-4 relative over the swept shapes
 * (tests/c/test_stencil.c), so 2e-3 relative leaves a margin for the GPU's
 * different summation order. */
#define ST_RESID_REL_TOL 2e-3

double sb_stencil_tolerance(int iters) { return 4.0 * FLT_EPSILON * (iters + 1); }

size_t sb_compare_f32_rel(const float *got, const double *want, size_t n, double rel_tol,
                          size_t *first) {
  size_t bad = 0;
  *first = n;
  for (size_t i = 0; i < n; ++i) {
    double d = fabs((double)got[i] - want[i]);
    if (!(d <= rel_tol * fabs(want[i])) && bad++ == 0) *first = i;
  }
  return bad;
}

/* ---- CPU references ---- */

/* Sum of |a[i] - b[i]| in four chains (vectorizable; the same value to
 * ~1e-15 relative as one chain). */
ST_HOT static double st_abs_diff_sum(const double *a, const double *b, size_t len) {
  double r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    r0 += fabs(a[i] - b[i]);
    r1 += fabs(a[i + 1] - b[i + 1]);
    r2 += fabs(a[i + 2] - b[i + 2]);
    r3 += fabs(a[i + 3] - b[i + 3]);
  }
  for (; i < len; ++i) r0 += fabs(a[i] - b[i]);
  return (r0 + r1) + (r2 + r3);
}

/* One 1D tile: `iters` steps over x[0..len); returns the residual sum. */
ST_HOT static double st1d_tile(double *x, double *y, size_t len, int iters, int want_resid) {
  const double third = 1.0 / 3.0;
  double resid = 0.0;
  for (int it = 0; it < iters; ++it) {
    if (len == 1) {
      y[0] = x[0];
    } else {
      y[0] = (x[0] + x[1]) * 0.5;
      for (size_t i = 1; i + 1 < len; ++i) y[i] = (x[i - 1] + x[i] + x[i + 1]) * third;
      y[len - 1] = (x[len - 2] + x[len - 1]) * 0.5;
    }
    if (want_resid) resid += st_abs_diff_sum(y, x, len);
    double *t = x;
    x = y;
    y = t;
  }
  if (iters % 2) memcpy(y, x, len * sizeof *x); /* result back in the caller's x */
  return resid;
}

typedef struct st_job {
  const float *in;
  double *out, *resid;
  size_t n, tile, width, tw, th;
  int iters;
} st_job;

static void st1d_range(void *p, size_t begin, size_t end) {
  const st_job *j = p; /* begin/end are tile-aligned (grain = tile) */
  double *y = malloc(j->tile * sizeof *y);
  for (size_t base = begin; base < end; base += j->tile) {
    size_t len = end - base < j->tile ? end - base : j->tile;
    double *x = j->out + base;
    for (size_t i = 0; i < len; ++i) x[i] = j->in[base + i];
    double r = st1d_tile(x, y, len, j->iters, j->resid != NULL);
    if (j->resid) j->resid[base / j->tile] = r;
  }
  free(y);
}

void sb_stencil_reference(const float *in, double *out, double *resid, size_t n, size_t tile,
                          int iters) {
  st_job j = {.in = in, .out = out, .resid = resid, .n = n, .tile = tile, .iters = iters};
  sb_parallel_for(n, tile, st1d_range, &j);
}

/* One 2D tile of tw x rows (tw >= 2), row-major in x: `iters` 5-point
 * steps. A missing row above or below reads `zero` (adding 0.0 is exact)
 * and drops out of the point count, so every row is one vectorizable loop. */
ST_HOT static double st2d_tile(double *x, double *y, const double *zero, size_t tw, size_t rows,
                               int iters, int want_resid) {
  double resid = 0.0;
  const size_t len = tw * rows;
  for (int it = 0; it < iters; ++it) {
    for (size_t r = 0; r < rows; ++r) {
      const double *c = x + r * tw;
      const double *up = r > 0 ? c - tw : zero, *dn = r + 1 < rows ? c + tw : zero;
      const double vert = (double)(r > 0) + (double)(r + 1 < rows);
      const double w_in = 1.0 / (3.0 + vert), w_edge = 1.0 / (2.0 + vert);
      double *o = y + r * tw;
      o[0] = (c[0] + c[1] + up[0] + dn[0]) * w_edge;
      for (size_t i = 1; i + 1 < tw; ++i) o[i] = (c[i] + c[i - 1] + c[i + 1] + up[i] + dn[i]) * w_in;
      o[tw - 1] = (c[tw - 1] + c[tw - 2] + up[tw - 1] + dn[tw - 1]) * w_edge;
    }
    if (want_resid) resid += st_abs_diff_sum(y, x, len);
    double *t = x;
    x = y;
    y = t;
  }
  if (iters % 2) memcpy(y, x, len * sizeof *x);
  return resid;
}

static void st2d_range(void *p, size_t begin, size_t end) {
  const st_job *j = p; /* begin/end: rows of tiles */
  const size_t rows_total = j->n / j->width, tiles_x = j->width / j->tw;
  double *x = malloc((2 * j->th + 1) * j->tw * sizeof *x), *y = x + j->tw * j->th;
  double *zero = y + j->tw * j->th;
  memset(zero, 0, j->tw * sizeof *zero);
  for (size_t ty = begin; ty < end; ++ty)
    for (size_t tx = 0; tx < tiles_x; ++tx) {
      size_t r0 = ty * j->th, rows = rows_total - r0 < j->th ? rows_total - r0 : j->th;
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < j->tw; ++c) x[r * j->tw + c] = j->in[(r0 + r) * j->width + tx * j->tw + c];
      double res = st2d_tile(x, y, zero, j->tw, rows, j->iters, j->resid != NULL);
      if (j->resid) j->resid[ty * tiles_x + tx] = res;
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < j->tw; ++c) j->out[(r0 + r) * j->width + tx * j->tw + c] = x[r * j->tw + c];
    }
  free(x);
}

void sb_stencil2d_reference(const float *in, double *out, double *resid, size_t n, size_t width,
                            size_t tw, size_t th, int iters) {
  st_job j = {.in = in, .out = out, .resid = resid, .n = n, .width = width,
              .tw = tw, .th = th, .iters = iters};
  size_t rows = n / width;
  sb_parallel_for((rows + th - 1) / th, 1, st2d_range, &j);
}

/* ---- geometry, shared with kernels/families/stencil.cu ---- */

static size_t st_tile(const sb_point *p) {
  return (size_t)(p->axis[SB_AXIS_BLOCK] * p->axis[SB_AXIS_ELEMS]);
}

/* 2D tile width (kernels/families/stencil_tiles.h). */
static size_t st2d_tw(const sb_point *p) { return SB_STENCIL2D_TW(st_tile(p)); }

static int st_is_2d(const sb_point *p) { return p->family == &sb_family_stencil2d; }

static size_t st_blocks(const sb_point *p) {
  size_t n = (size_t)p->axis[SB_AXIS_N];
  if (!st_is_2d(p)) return (n + st_tile(p) - 1) / st_tile(p);
  size_t tw = st2d_tw(p), th = st_tile(p) / tw, rows = n / SB_STENCIL2D_WIDTH;
  return SB_STENCIL2D_WIDTH / tw * ((rows + th - 1) / th);
}

/* ---- family hooks ---- */

static const char *stencil_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  (void)d;
  /* Block sizes and elements per thread without a compiled kernel are
   * skipped by the picker (kernels/families/stencil.cu), with the compiled list. */
  long long block = p->axis[SB_AXIS_BLOCK], elems = p->axis[SB_AXIS_ELEMS];
  if (st_is_2d(p)) {
    if (block * elems < 1024) {
      snprintf(buf, len, "2D tiles are at least 32x32: block_threads x elems_per_thread = %lld < 1024", block * elems);
      return buf;
    }
    if (p->axis[SB_AXIS_N] % SB_STENCIL2D_WIDTH != 0) {
      snprintf(buf, len, "stencil2d images are %d wide: n=%lld is not a multiple", SB_STENCIL2D_WIDTH, p->axis[SB_AXIS_N]);
      return buf;
    }
  }
  return NULL;
}

static size_t stencil_in_bytes(const sb_point *p) {
  return (size_t)p->axis[SB_AXIS_N] * sizeof(float);
}

/* n outputs, then one residual per block (written by the residual variants). */
static size_t stencil_out_bytes(const sb_point *p) {
  return ((size_t)p->axis[SB_AXIS_N] + st_blocks(p)) * sizeof(float);
}

static long long stencil_bytes_moved(const sb_point *p) {
  return 2 * p->axis[SB_AXIS_N] * (long long)sizeof(float); /* read + write */
}

/* 3 (1D) or 5 (2D) FLOP per element and iteration: the adds and the scale. */
static long long stencil_flops(const sb_point *p) {
  return (st_is_2d(p) ? 5 : 3) * p->axis[SB_AXIS_N] * p->axis[SB_AXIS_ITERS];
}

static void stencil_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  sb_fill_f32(host_in, (size_t)p->axis[SB_AXIS_N], seed, 1.0f, 2.0f);
}

static int stencil_verify(const sb_point *p, const sb_check *check, const void *host_in,
                          const void *host_out, char *detail, size_t len) {
  (void)check;
  const size_t n = (size_t)p->axis[SB_AXIS_N], blocks = st_blocks(p);
  const int iters = (int)p->axis[SB_AXIS_ITERS], resid = has_residual(p);
  double *want = malloc((n + blocks) * sizeof *want);
  if (!want) {
    snprintf(detail, len, "out of host memory for the CPU reference");
    return -1;
  }
  double *want_resid = resid ? want + n : NULL;
  if (st_is_2d(p)) {
    size_t tw = st2d_tw(p);
    sb_stencil2d_reference(host_in, want, want_resid, n, SB_STENCIL2D_WIDTH, tw, st_tile(p) / tw, iters);
  } else {
    sb_stencil_reference(host_in, want, want_resid, n, st_tile(p), iters);
  }
  const float *got = host_out;
  const double tol = sb_stencil_tolerance(iters);
  size_t first, bad = sb_compare_f32_rel(got, want, n, tol, &first);
  int rc = 0;
  if (bad) {
    snprintf(detail, len,
             "%zu of %zu elements differ from the CPU reference by more than %.2g relative "
             "(4 eps (iters + 1)); first at %zu: got %.9g, want %.9g",
             bad, n, tol, first, got[first], want[first]);
    rc = -1;
  } else if (resid) {
    bad = sb_compare_f32_rel(got + n, want_resid, blocks, ST_RESID_REL_TOL, &first);
    if (bad) {
      snprintf(detail, len,
               "tile values match, but %zu of %zu tile residuals differ by more than %.0e relative; "
               "first at tile %zu: got %.9g, want %.9g",
               bad, blocks, ST_RESID_REL_TOL, first, got[n + first], want_resid[first]);
      rc = -1;
    }
  }
  free(want);
  return rc;
}

#define STENCIL_FAMILY_HOOKS                 \
  .check = stencil_check,                    \
  .in_bytes = stencil_in_bytes,              \
  .out_bytes = stencil_out_bytes,            \
  .bytes_moved = stencil_bytes_moved,        \
  .flops = stencil_flops,                    \
  .make_input = stencil_make_input,          \
  .verify = stencil_verify

/* 16M floats in + 16M out (4 bytes each), past any L2, at iters = 1. */
const sb_family sb_family_stencil = {
    .name = "stencil",
    .summary = "iters Jacobi steps of a 3-point mean over each block's tile of block_threads x elems_per_thread floats in shared memory",
    .variants = &sb_stencil_variants,
    .default_axes = {[SB_AXIS_BLOCK] = "128,1024",
                     [SB_AXIS_ITERS] = "1,16,64",
                     [SB_AXIS_N] = "16M",
                     [SB_AXIS_ELEMS] = "1,8"},
    /* The compiled shapes; n not a multiple of any tile: the short last
     * tile is exercised; an odd iters runs both halves of the kernels' loop
     * (two iterations per trip) and the last, single one. */
    .quick_axes = {[SB_AXIS_BLOCK] = "128,1024",
                   [SB_AXIS_ITERS] = "15",
                   [SB_AXIS_N] = "1000003",
                   [SB_AXIS_ELEMS] = "1,8"},
    STENCIL_FAMILY_HOOKS,
};

const sb_family sb_family_stencil2d = {
    .name = "stencil2d",
    .summary = "iters Jacobi steps of a 5-point mean over each block's tile (>= 32x32) of a 4096-wide image in shared memory",
    .variants = &sb_stencil2d_variants,
    /* Tiles of 32x32 (256 x 4) and 64x64 (1024 x 4). */
    .default_axes = {[SB_AXIS_BLOCK] = "256,1024",
                     [SB_AXIS_ITERS] = "1,16,64",
                     [SB_AXIS_N] = "16M",
                     [SB_AXIS_ELEMS] = "4"},
    /* 100 rows: tiles of 32 or 64 rows leave a short bottom tile. */
    .quick_axes = {[SB_AXIS_BLOCK] = "1024",
                   [SB_AXIS_ITERS] = "15",
                   [SB_AXIS_N] = "409600",
                   [SB_AXIS_ELEMS] = "1,4"},
    STENCIL_FAMILY_HOOKS,
};
