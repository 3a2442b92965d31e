/* Host tests of the stencil and multistage CPU references, their boundary
 * rules and their float tolerances. Each reference is checked against an
 * independent brute force that recomputes every element from its
 * definition (which tile it is in, which neighbours are valid). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/families.h"
#include "../../harness/random.h"
#include "../../kernels/families/multistage_math.h"
#include "../../kernels/families/stencil_tiles.h"
#include "check.h"
#include "swept.h"

static float *random_input(size_t n, uint64_t seed) {
  float *in = malloc(n * sizeof *in);
  sb_fill_f32(in, n, seed, 1.0f, 2.0f);
  return in;
}

static double max_rel_diff(const double *a, const double *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = a[i] == b[i] ? 0.0 : fabs(a[i] - b[i]) / fabs(b[i]);
    if (!(d <= m)) m = d;
  }
  return m;
}

/* ---- 1D ---- */

/* Whole-array Jacobi steps; neighbour j of i counts iff j is in [0, n) and
 * in the same tile (j / tile == i / tile). */
static void brute_1d(const float *in, double *out, double *resid, size_t n, size_t tile, int iters) {
  double *cur = malloc(n * sizeof *cur), *nxt = malloc(n * sizeof *nxt);
  size_t tiles = (n + tile - 1) / tile;
  for (size_t i = 0; i < n; ++i) cur[i] = in[i];
  for (size_t t = 0; t < tiles; ++t) resid[t] = 0;
  for (int it = 0; it < iters; ++it) {
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      int c = 0;
      for (long d = -1; d <= 1; ++d) {
        long j = (long)i + d;
        if (j < 0 || (size_t)j >= n || (size_t)j / tile != i / tile) continue;
        s += cur[j];
        ++c;
      }
      nxt[i] = s / c;
      resid[i / tile] += fabs(nxt[i] - cur[i]);
    }
    double *t = cur;
    cur = nxt;
    nxt = t;
  }
  for (size_t i = 0; i < n; ++i) out[i] = cur[i];
  free(cur);
  free(nxt);
}

SB_TEST(stencil_reference_matches_brute_force) {
  const size_t sizes[] = {1, 2, 31, 97, 1000, 4099};
  const size_t tiles[] = {1, 2, 3, 32, 96, 1024};
  const int iters[] = {1, 2, 7};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; ++a)
    for (size_t b = 0; b < sizeof tiles / sizeof *tiles; ++b)
      for (size_t c = 0; c < sizeof iters / sizeof *iters; ++c) {
        size_t n = sizes[a], tile = tiles[b], nt = (n + tile - 1) / tile;
        float *in = random_input(n, 77 + a * 100 + b * 10 + c);
        double *fast = malloc(n * sizeof *fast), *slow = malloc(n * sizeof *slow);
        double *rf = malloc(nt * sizeof *rf), *rs = malloc(nt * sizeof *rs);
        sb_stencil_reference(in, fast, rf, n, tile, iters[c]);
        brute_1d(in, slow, rs, n, tile, iters[c]);
        CHECK(max_rel_diff(fast, slow, n) < 1e-13);
        CHECK(max_rel_diff(rf, rs, nt) < 1e-12);
        for (size_t t = 0; t < nt && tile == 1; ++t) CHECK(rf[t] == 0.0);
        /* Without a residual buffer the values are the same. */
        sb_stencil_reference(in, slow, NULL, n, tile, iters[c]);
        CHECK(max_rel_diff(fast, slow, n) == 0.0);
        free(in), free(fast), free(slow), free(rf), free(rs);
      }
}

SB_TEST(stencil_boundary_averages_only_valid_neighbours) {
  /* Tiles of 3: {1, 2, 4} {8, 16, 32} {64}: the last tile is short. */
  float in[7] = {1, 2, 4, 8, 16, 32, 64};
  double out[7], resid[3];
  sb_stencil_reference(in, out, resid, 7, 3, 1);
  CHECK_NEAR(out[0], 1.5, 1e-15);          /* (1 + 2) / 2: no left neighbour */
  CHECK_NEAR(out[1], 7.0 / 3.0, 1e-15);    /* (1 + 2 + 4) / 3 */
  CHECK_NEAR(out[2], 3.0, 1e-15);          /* (2 + 4) / 2: 8 is in the next tile */
  CHECK_NEAR(out[3], 12.0, 1e-15);         /* (8 + 16) / 2: 4 is in the previous tile */
  CHECK_NEAR(out[5], 24.0, 1e-15);
  CHECK_NEAR(out[6], 64.0, 1e-15);         /* a tile of one keeps its value */
  CHECK_NEAR(resid[0], 0.5 + 1.0 / 3.0 + 1.0, 1e-14);
  CHECK_NEAR(resid[2], 0.0, 0.0);
  /* Two steps: the second reads the first step's values, not the inputs. */
  sb_stencil_reference(in, out, resid, 7, 3, 2);
  CHECK_NEAR(out[0], (1.5 + 7.0 / 3.0) / 2, 1e-15);
}

/* A float simulation of the kernels' arithmetic: c + l + r, times
 * fl(1 / points), Jacobi (race_free) or in place left to right (what a
 * missing WAR barrier lets happen at worst). Residual summed in float. */
static void float_sim_1d(const float *in, float *out, float *resid, size_t n, size_t tile,
                         int iters, int race_free) {
  float *nxt = malloc(tile * sizeof *nxt);
  for (size_t base = 0, t = 0; base < n; base += tile, ++t) {
    size_t len = n - base < tile ? n - base : tile;
    float *x = out + base;
    for (size_t i = 0; i < len; ++i) x[i] = in[base + i];
    float r = 0;
    for (int it = 0; it < iters; ++it) {
      float ri = 0;
      for (size_t i = 0; i < len; ++i) {
        int c = 1 + (i > 0) + (i + 1 < len);
        float s = x[i];
        if (i > 0) s += x[i - 1];
        if (i + 1 < len) s += x[i + 1];
        float v = s * (1.0f / (float)c);
        ri += fabsf(v - x[i]);
        if (race_free) nxt[i] = v;
        else x[i] = v;
      }
      if (race_free)
        for (size_t i = 0; i < len; ++i) x[i] = nxt[i];
      r += ri;
    }
    resid[t] = r;
  }
  free(nxt);
}

SB_TEST(stencil_float_tolerance_holds_and_catches_races) {
  const size_t tiles[] = {128, 1024, 8192};
  const int iters[] = {1, 16, 256};
  double worst_resid = 0;
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = 0; b < 3; ++b) {
      size_t tile = tiles[a], n = 2 * tile + 5, nt = 3;
      float *in = random_input(n, 99 + a * 10 + b);
      float *got = malloc(n * sizeof *got), rg[3];
      double *want = malloc(n * sizeof *want), rw[3];
      sb_stencil_reference(in, want, rw, n, tile, iters[b]);
      double tol = sb_stencil_tolerance(iters[b]);
      size_t first;
      float_sim_1d(in, got, rg, n, tile, iters[b], 1);
      CHECK_EQ_INT(sb_compare_f32_rel(got, want, n, tol, &first), 0);
      for (size_t t = 0; t < nt; ++t) {
        double d = fabs(rg[t] - rw[t]) / rw[t];
        if (d > worst_resid) worst_resid = d;
      }
      float_sim_1d(in, got, rg, n, tile, iters[b], 0);
      CHECK(sb_compare_f32_rel(got, want, n, tol, &first) > n / 2);
      free(in), free(got), free(want);
    }
  /* The residual tolerance in bench/stencil.c (2e-3) assumes this. */
  CHECK(worst_resid < 1e-4);
}

/* ---- 2D ---- */

static void brute_2d(const float *in, double *out, double *resid, size_t n, size_t width,
                     size_t tw, size_t th, int iters) {
  size_t rows = n / width, tiles_x = width / tw, nt = tiles_x * ((rows + th - 1) / th);
  double *cur = malloc(n * sizeof *cur), *nxt = malloc(n * sizeof *nxt);
  for (size_t i = 0; i < n; ++i) cur[i] = in[i];
  for (size_t t = 0; t < nt; ++t) resid[t] = 0;
  static const int dr[5] = {0, 0, 0, -1, 1}, dc[5] = {0, -1, 1, 0, 0};
  for (int it = 0; it < iters; ++it) {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < width; ++c) {
        double s = 0;
        int k = 0;
        for (int d = 0; d < 5; ++d) {
          long rr = (long)r + dr[d], cc = (long)c + dc[d];
          if (rr < 0 || (size_t)rr >= rows || cc < 0 || (size_t)cc >= width) continue;
          if ((size_t)rr / th != r / th || (size_t)cc / tw != c / tw) continue;
          s += cur[rr * width + cc];
          ++k;
        }
        nxt[r * width + c] = s / k;
        resid[r / th * tiles_x + c / tw] += fabs(nxt[r * width + c] - cur[r * width + c]);
      }
    double *t = cur;
    cur = nxt;
    nxt = t;
  }
  for (size_t i = 0; i < n; ++i) out[i] = cur[i];
  free(cur);
  free(nxt);
}

SB_TEST(stencil2d_reference_matches_brute_force) {
  /* width, tw, th, rows: ragged bottom tiles and single-row tiles too. */
  const size_t shapes[][4] = {{64, 32, 32, 64}, {128, 32, 64, 70}, {128, 64, 64, 65},
                              {64, 32, 32, 1}, {64, 64, 128, 33}};
  const int iters[] = {1, 3, 8};
  for (size_t a = 0; a < sizeof shapes / sizeof *shapes; ++a)
    for (size_t c = 0; c < 3; ++c) {
      size_t w = shapes[a][0], tw = shapes[a][1], th = shapes[a][2], n = w * shapes[a][3];
      size_t nt = w / tw * ((shapes[a][3] + th - 1) / th);
      float *in = random_input(n, 500 + a * 10 + c);
      double *fast = malloc(n * sizeof *fast), *slow = malloc(n * sizeof *slow);
      double *rf = malloc(nt * sizeof *rf), *rs = malloc(nt * sizeof *rs);
      sb_stencil2d_reference(in, fast, rf, n, w, tw, th, iters[c]);
      brute_2d(in, slow, rs, n, w, tw, th, iters[c]);
      CHECK(max_rel_diff(fast, slow, n) < 1e-13);
      CHECK(max_rel_diff(rf, rs, nt) < 1e-12);
      free(in), free(fast), free(slow), free(rf), free(rs);
    }
}

SB_TEST(stencil2d_boundary_rules) {
  /* One 32-wide tile of 2 rows inside a 64-wide image: corners average 3
   * points, edges 4, and the tile's right edge does not see column 32. */
  size_t w = 64, n = w * 2;
  float in[128];
  for (size_t i = 0; i < n; ++i) in[i] = (float)(i % w + 1) + (i >= w ? 100.0f : 0.0f);
  double out[128], resid[2];
  sb_stencil2d_reference(in, out, resid, n, w, 32, 32, 1);
  CHECK_NEAR(out[0], (1.0 + 2.0 + 101.0) / 3, 1e-13);               /* corner */
  CHECK_NEAR(out[5], (6.0 + 5.0 + 7.0 + 106.0) / 4, 1e-13);         /* top edge */
  CHECK_NEAR(out[31], (32.0 + 31.0 + 132.0) / 3, 1e-13);            /* tile corner */
  CHECK_NEAR(out[32], (33.0 + 34.0 + 133.0) / 3, 1e-13);            /* next tile's corner */
}

SB_TEST(stencil2d_float_tolerance_holds) {
  /* Float simulation of the 2D kernels' order: c + l + r + u + d. */
  size_t w = 128, tw = 64, th = 64, rows = 100, n = w * rows;
  const int iters = 256;
  float *in = random_input(n, 4242), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  double *want = malloc(n * sizeof *want), resid[4];
  for (size_t i = 0; i < n; ++i) x[i] = in[i];
  for (int it = 0; it < iters; ++it) {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < w; ++c) {
        size_t tr = r % th, tc = c % tw, trows = r / th * th + th <= rows ? th : rows % th;
        const float *p = x + r * w + c;
        float s = p[0];
        int k = 1;
        if (tc > 0) s += p[-1], ++k;
        if (tc + 1 < tw) s += p[1], ++k;
        if (tr > 0) s += p[-(long)w], ++k;
        if (tr + 1 < trows) s += p[w], ++k;
        y[r * w + c] = s * (1.0f / (float)k);
      }
    float *t = x;
    x = y;
    y = t;
  }
  sb_stencil2d_reference(in, want, resid, n, w, tw, th, iters);
  size_t first;
  CHECK_EQ_INT(sb_compare_f32_rel(x, want, n, sb_stencil_tolerance(iters), &first), 0);
  free(in), free(x), free(y), free(want);
}

SB_TEST(compare_f32_rel_flags_nan_and_poison) {
  float got[4] = {1.0f, NAN, 2.0f, -2.93e-16f};
  double want[4] = {1.0, 1.0, 2.0 * (1 + 1e-5), 1.5};
  size_t first;
  CHECK_EQ_INT(sb_compare_f32_rel(got, want, 4, 1e-6, &first), 3);
  CHECK_EQ_INT(first, 1);
  CHECK_EQ_INT(sb_compare_f32_rel(got, want, 1, 1e-6, &first), 0);
  CHECK_EQ_INT(first, 1);
}

/* ---- the stencil kernels' table and pickers (no GPU: a picker only names
 * the compiled kernels) ---- */

SB_TEST(stencil2d_tile_width_rule) {
  CHECK_EQ_INT(SB_STENCIL2D_TW(1024), 32);  /* 32x32: 256 x 4, 1024 x 1 */
  CHECK_EQ_INT(SB_STENCIL2D_TW(2048), 32);  /* 32x64 */
  CHECK_EQ_INT(SB_STENCIL2D_TW(4096), 64);  /* 64x64: 1024 x 4 */
  CHECK_EQ_INT(SB_STENCIL2D_TW(8192), 64);  /* 64x128 */
  CHECK_EQ_INT(SB_STENCIL2D_TW(4128), 32);  /* not a whole number of 64-wide rows */
}

static int is_residual_name(const char *name) {
  return !strcmp(name, "split_arrive") || !strcmp(name, "arrive_wait") ||
         !strcmp(name, "completion") || !strcmp(name, "manual_reduce");
}

SB_TEST(stencil_residual_flag_marks_exactly_the_residual_variants) {
  const char *fams[] = {"stencil", "stencil2d"};
  for (int f = 0; f < 2; ++f) {
    const sb_family *fam = sb_find_family(fams[f]);
    CHECK(fam != NULL);
    if (!fam) continue;
    CHECK_EQ_INT(fam->variants->count, 7);
    for (int v = 0; v < fam->variants->count; ++v) {
      const sb_variant *row = &fam->variants->rows[v];
      CHECK_EQ_INT((row->flags & SB_STENCIL_VF_RESIDUAL) != 0, is_residual_name(row->name));
      CHECK(row->pick != NULL && row->launch != NULL);
    }
  }
}

static void expect_stencil_kernel(const sb_point *p, int quick, int rc, const sb_kernels *k,
                                  const char *why, void *ctx) {
  (void)why;
  CHECK_EQ_INT(rc, 0);
  if (rc) return;
  ++((int *)ctx)[quick];
  const int two_d = !strcmp(p->family->name, "stencil2d");
  CHECK(k->raw != NULL && k->bounded != NULL);
  CHECK_EQ_INT(k->bounded != k->raw, !strcmp(p->variant->name, "mbarrier"));
  /* Buffers of tile + pads floats; 2D rows padded by a zero column. */
  long long b = p->axis[SB_AXIS_BLOCK], e = p->axis[SB_AXIS_ELEMS], t = b * e;
  long long tw = SB_STENCIL2D_TW(t), size = two_d ? (t / tw + 2) * (tw + 1) : t + 2;
  long long bytes = (strcmp(p->variant->name, "two_barrier") ? 2 : 1) * size * 4;
  CHECK_EQ_INT(k->smem, bytes > 48 * 1024 ? bytes : 0);
}

/* Every point of the default and quick sweeps that the family accepts has
 * a compiled kernel: the mbarrier variant a bounded and a raw twin, the
 * others one kernel; dynamic shared memory only past 48 KB. */
SB_TEST(stencil_every_sweep_point_has_a_kernel) {
  int picked[2] = {0, 0};
  sb_for_each_swept_kernel("stencil", expect_stencil_kernel, picked);
  sb_for_each_swept_kernel("stencil2d", expect_stencil_kernel, picked);
  /* default: 1D 7 x 2 blocks x 3 iters x 2 elems, 2D 7 x 2 x 3; quick:
   * 1D 7 x 2 x 2, 2D 7 x 2 */
  CHECK_EQ_INT(picked[0], 7 * 12 + 7 * 6);
  CHECK_EQ_INT(picked[1], 7 * 4 + 7 * 2);
}

SB_TEST(stencil_picker_skips_uncompiled_shapes_with_the_list) {
  long long axis[SB_NUM_AXES];
  for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
  axis[SB_AXIS_BLOCK] = 96;
  axis[SB_AXIS_ELEMS] = 3;
  axis[SB_AXIS_N] = 1000003;
  axis[SB_AXIS_ITERS] = 16;
  const sb_family *fam = sb_find_family("stencil");
  CHECK(fam != NULL);
  if (!fam) return;
  for (int v = 0; v < fam->variants->count; ++v) {
    char why[SB_SKIP_LEN] = "";
    sb_kernels k = {0};
    CHECK_EQ_INT(fam->variants->rows[v].pick(axis, &k, why, sizeof why), -1);
    CHECK(strstr(why, "block_threads=96, elems_per_thread=3") != NULL);
    CHECK(strstr(why, "128x1,128x8,1024x1,1024x8") != NULL);
  }
  /* 2D: a compiled block size with an uncompiled elems is skipped too. */
  axis[SB_AXIS_BLOCK] = 256;
  axis[SB_AXIS_ELEMS] = 8;
  fam = sb_find_family("stencil2d");
  char why[SB_SKIP_LEN] = "";
  sb_kernels k = {0};
  CHECK_EQ_INT(fam->variants->rows[0].pick(axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "256x4,1024x1,1024x4") != NULL);
}

/* ---- multistage ---- */

/* Each stage from its definition over the whole array, tile by index. */
static void brute_multistage(const float *in, double *out, size_t n, size_t tile, int iters) {
  double *x = malloc(n * sizeof *x), *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
  for (size_t i = 0; i < n; ++i) x[i] = in[i];
  for (int pass = 0; pass < iters; ++pass) {
    for (size_t i = 0; i < n; ++i) p[i] = x[i] * 1.1;
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      int c = 0;
      for (long j = (long)i - 2; j <= (long)i + 2; ++j)
        if (j >= 0 && (size_t)j < n && (size_t)j / tile == i / tile) s += p[j], ++c;
      q[i] = s / c;
    }
    for (size_t i = 0; i < n; ++i) {
      /* cascade written out: v = q[i]; v = (v + q[i+1]) / 2 ... */
      double v = q[i];
      for (size_t j = i + 1; j <= i + 3 && j < n && j / tile == i / tile; ++j) v = (v + q[j]) / 2;
      x[i] = v;
    }
  }
  for (size_t i = 0; i < n; ++i) out[i] = x[i];
  free(x), free(p), free(q);
}

SB_TEST(multistage_reference_matches_brute_force) {
  const size_t sizes[] = {1, 3, 5, 64, 1000, 3001};
  const size_t tiles[] = {1, 2, 4, 5, 192, 1024};
  const int iters[] = {1, 2, 5};
  for (size_t a = 0; a < 6; ++a)
    for (size_t b = 0; b < 6; ++b)
      for (size_t c = 0; c < 3; ++c) {
        size_t n = sizes[a];
        float *in = random_input(n, 900 + a * 100 + b * 10 + c);
        double *fast = malloc(n * sizeof *fast), *slow = malloc(n * sizeof *slow);
        sb_multistage_reference(in, fast, n, tiles[b], iters[c]);
        brute_multistage(in, slow, n, tiles[b], iters[c]);
        CHECK(max_rel_diff(fast, slow, n) < 1e-13);
        free(in), free(fast), free(slow);
      }
}

SB_TEST(multistage_boundary_rules) {
  /* One tile of 4: P = 1.1 x; blur over valid neighbours; cascade. */
  float in[4] = {1, 2, 3, 4};
  double out[4];
  sb_multistage_reference(in, out, 4, 4, 1);
  double p[4] = {1.1, 2.2, 3.3, 4.4};
  double q0 = (p[0] + p[1] + p[2]) / 3, q1 = (p[0] + p[1] + p[2] + p[3]) / 4;
  double q2 = q1, q3 = (p[1] + p[2] + p[3]) / 3;
  CHECK_NEAR(out[3], q3, 1e-13);                          /* nothing to its right */
  CHECK_NEAR(out[2], (q2 + q3) / 2, 1e-13);
  CHECK_NEAR(out[0], (((q0 + q1) / 2 + q2) / 2 + q3) / 2, 1e-13);
  /* Two tiles of 2: the blur does not cross the tile edge. */
  sb_multistage_reference(in, out, 4, 2, 1);
  CHECK_NEAR(out[1], (2.2 + 1.1) / 2, 1e-13);
  CHECK_NEAR(out[2], ((3.3 + 4.4) / 2 + (3.3 + 4.4) / 2) / 2, 1e-13);
}

/* The stages in float as defined: each tile's valid neighbours only, the
 * weight 1 / points, the cascade step by step. */
static void ms_float_defined(float *a, size_t len, int iters) {
  float *p = malloc(len * sizeof *p), *q = malloc(len * sizeof *q);
  for (int pass = 0; pass < iters; ++pass) {
    for (size_t i = 0; i < len; ++i) p[i] = 1.1f * a[i];
    for (size_t i = 0; i < len; ++i) {
      float s = p[i];
      int c = 1;
      if (i >= 1) s += p[i - 1], ++c;
      if (i + 1 < len) s += p[i + 1], ++c;
      if (i >= 2) s += p[i - 2], ++c;
      if (i + 2 < len) s += p[i + 2], ++c;
      q[i] = s * (1.0f / (float)c);
    }
    for (size_t i = 0; i < len; ++i) {
      float v = q[i];
      for (size_t j = 1; j <= 3 && i + j < len; ++j) v = 0.5f * (v + q[i + j]);
      a[i] = v;
    }
  }
  free(p), free(q);
}

/* The kernels' arithmetic (kernels/families/multistage_math.h): a tile of `tile`
 * slots whose first len are valid, P and Q with their zero pads, every slot
 * computed with the same operations and its position's weight. Returns
 * whether the slots past len stayed 0. */
static int ms_float_kernel(float *a, size_t len, size_t tile, int iters) {
  float *x = calloc(tile, sizeof *x), *pbuf = calloc(tile + 2 * SB_MS_P_PAD, sizeof *pbuf);
  float *p = pbuf + SB_MS_P_PAD, *q = calloc(tile + SB_MS_Q_PAD, sizeof *q);
  for (size_t i = 0; i < len; ++i) x[i] = a[i];
  for (int pass = 0; pass < iters; ++pass) {
    for (size_t i = 0; i < tile; ++i) p[i] = sb_ms_pre(x[i]);
    for (size_t i = 0; i < tile; ++i) q[i] = sb_ms_blur(p + i, sb_ms_blur_weight((int)i, (int)len));
    for (size_t i = 0; i < tile; ++i) x[i] = sb_ms_smooth(q + i, sb_ms_smooth_weight((int)i, (int)len));
  }
  int zeros = 1;
  for (size_t i = 0; i < tile; ++i) {
    if (i < len) a[i] = x[i];
    else zeros &= x[i] == 0.0f && q[i] == 0.0f && p[i] == 0.0f;
  }
  free(x), free(pbuf), free(q);
  return zeros;
}

SB_TEST(multistage_kernel_arithmetic_equals_the_definition) {
  /* Bit for bit, full and short tiles (down to 1 element), one pass and many. */
  const size_t tiles[] = {8, 64, 256};
  const int iters[] = {1, 3, 16};
  for (int a = 0; a < 3; ++a)
    for (size_t len = 1; len <= tiles[a]; len += len < 12 ? 1 : 13)
      for (int b = 0; b < 3; ++b) {
        float *in = random_input(len, 5000 + len * 10 + (size_t)b);
        float *def = malloc(len * sizeof *def), *ker = malloc(len * sizeof *ker);
        memcpy(def, in, len * sizeof *in);
        memcpy(ker, in, len * sizeof *in);
        ms_float_defined(def, len, iters[b]);
        CHECK(ms_float_kernel(ker, len, tiles[a], iters[b]));
        CHECK(memcmp(def, ker, len * sizeof *def) == 0);
        free(in), free(def), free(ker);
      }
}

SB_TEST(multistage_full_tile_interior_weights) {
  /* The kernels hold per-thread weights only for a thread's first (j = 0)
   * and last (j = K-1) element e = j * S + i of a full S x K tile. */
  const int strides[] = {3, 4, 64, 512}, counts[] = {1, 2, 3, 8, 16};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 5; ++b) {
      const int S = strides[a], K = counts[b], T = S * K;
      for (int j = 1; j < K - 1; ++j)
        for (int i = 0; i < S; ++i) {
          CHECK(sb_ms_blur_weight(j * S + i, T) == SB_MS_BLUR_INTERIOR);
          CHECK(sb_ms_smooth_weight(j * S + i, T) == SB_MS_SMOOTH_INTERIOR);
        }
    }
  CHECK(sb_ms_blur_weight(0, 1) == 1.0f && sb_ms_smooth_weight(0, 1) == 4.0f);
  CHECK(sb_ms_blur_weight(1, 3) == 1.0f / 3.0f && sb_ms_smooth_weight(1, 3) == 2.0f);
  CHECK(sb_ms_blur_weight(3, 3) == 0.0f && sb_ms_smooth_weight(3, 3) == 0.0f);
}

SB_TEST(multistage_float_tolerance_holds) {
  /* The kernels' float arithmetic against the double reference. */
  const size_t tile = 2048, n = 2 * tile + 7;
  const int iters[] = {1, 16, 64};
  for (int b = 0; b < 3; ++b) {
    float *in = random_input(n, 31 + b), *x = malloc(n * sizeof *x);
    double *want = malloc(n * sizeof *want);
    memcpy(x, in, n * sizeof *in);
    for (size_t base = 0; base < n; base += tile)
      CHECK(ms_float_kernel(x + base, n - base < tile ? n - base : tile, tile, iters[b]));
    sb_multistage_reference(in, want, n, tile, iters[b]);
    size_t first;
    CHECK_EQ_INT(sb_compare_f32_rel(x, want, n, sb_multistage_tolerance(iters[b]), &first), 0);
    free(in), free(x), free(want);
  }
}
