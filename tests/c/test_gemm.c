/* GEMM family host side: fp16 conversion, CPU reference, tolerance, the
 * checked sample set and the sweep filter (bench/gemm.c). */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/families.h"
#include "../../bench/registry.h"
#include "../../harness/cli.h"
#include "../../harness/paired.h"
#include "../../harness/random.h"
#include "../../harness/runner.h"
#include "swept.h"
#include "../../harness/sweep.h"
#include "../../kernels/gemm/gemm_tiles.h"
#include "check.h"

SB_TEST(gemm_epilogue_profile_is_empty_until_a_validating_launch_arms_it) {
  /* No launch here (no GPU): every row's epilogue_pct cell stays empty,
   * never a stale number from an earlier point. */
  CHECK(isnan(sb_gemm_epilogue_pct()));
  CHECK(isnan(sb_gemm_epilogue_pct()));
}

SB_TEST(gemm_f16_rounds_to_nearest_even) {
  CHECK_EQ_INT(sb_f32_to_f16(0.0f), 0x0000);
  CHECK_EQ_INT(sb_f32_to_f16(-0.0f), 0x8000);
  CHECK_EQ_INT(sb_f32_to_f16(1.0f), 0x3c00);
  CHECK_EQ_INT(sb_f32_to_f16(-2.0f), 0xc000);
  CHECK_EQ_INT(sb_f32_to_f16(65504.0f), 0x7bff);           /* largest finite */
  CHECK_EQ_INT(sb_f32_to_f16(65519.996f), 0x7bff);         /* below the tie */
  CHECK_EQ_INT(sb_f32_to_f16(65520.0f), 0x7c00);           /* tie: to even = inf */
  CHECK_EQ_INT(sb_f32_to_f16(1e9f), 0x7c00);
  CHECK_EQ_INT(sb_f32_to_f16(-INFINITY), 0xfc00);
  CHECK((sb_f32_to_f16(NAN) & 0x7c00) == 0x7c00 && (sb_f32_to_f16(NAN) & 0x3ff) != 0);
  /* Ties between neighbours 1 and 1 + 2^-10: to the even one. */
  CHECK_EQ_INT(sb_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
  CHECK_EQ_INT(sb_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
  CHECK_EQ_INT(sb_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01); /* above the tie */
  /* Carry into the exponent: 2 - 2^-12 rounds up to 2. */
  CHECK_EQ_INT(sb_f32_to_f16(2.0f - 0x1p-12f), 0x4000);
  /* Subnormals: 2^-24 is the smallest; 2^-25 ties to 0; 3 * 2^-26 = 0.75
   * ulp rounds to 1 ulp; 1.5 ulp ties to 2; the largest subnormal rounds up
   * into the smallest normal. */
  CHECK_EQ_INT(sb_f32_to_f16(0x1p-24f), 0x0001);
  CHECK_EQ_INT(sb_f32_to_f16(0x1p-25f), 0x0000);
  CHECK_EQ_INT(sb_f32_to_f16(3 * 0x1p-26f), 0x0001);
  CHECK_EQ_INT(sb_f32_to_f16(3 * 0x1p-25f), 0x0002);
  CHECK_EQ_INT(sb_f32_to_f16(-0x1p-14f), 0x8400);
  CHECK_EQ_INT(sb_f32_to_f16(0x1p-14f - 0x1p-26f), 0x0400);
}

SB_TEST(gemm_f16_round_trips_every_value_and_is_monotone) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = sb_f16_to_f32((uint16_t)h);
    if (isnan(f)) {
      bad += (h & 0x7c00) != 0x7c00 || (h & 0x3ff) == 0;
      continue;
    }
    bad += sb_f32_to_f16(f) != h;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT((long long)sb_f16_to_f32(0x3555), 0); /* 0.333 */
  CHECK_NEAR(sb_f16_to_f32(0x3555), 0.333251953125, 0);
  CHECK_NEAR(sb_f16_to_f32(0x0001), 0x1p-24, 0);
  /* Against a brute-force nearest (ties to even) on a sweep of floats. */
  int wrong = 0;
  for (int i = 0; i < 200000; ++i) {
    const float f = -70000.0f + 0.7f * (float)i;
    const uint16_t h = sb_f32_to_f16(f);
    const double got = sb_f16_to_f32(h);
    if (isinf(got)) {
      wrong += fabs(f) < 65520.0f;
      continue;
    }
    /* Neither neighbour may be strictly closer. */
    const double up = sb_f16_to_f32((uint16_t)(h + 1)), down = h & 0x7fff ? sb_f16_to_f32((uint16_t)(h - 1)) : got;
    const double e = fabs(got - f);
    wrong += (!isinf(up) && fabs(up - f) < e) || fabs(down - f) < e;
  }
  CHECK_EQ_INT(wrong, 0);
}

/* Random fp16 matrices as bench/gemm.c's make_input draws them. */
static uint16_t *random_f16(size_t n, uint64_t seed) {
  uint16_t *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = (uint32_t)(sb_splitmix64(seed ^ (i * 0xD1B54A32D192ED03ULL)) >> 40);
    v[i] = sb_f32_to_f16(-1.0f + 2.0f * ((float)bits * (1.0f / 16777216.0f)));
  }
  return v;
}

/* C in fp32 the way a CUDA-core kernel would: serial float accumulation
 * (rounding mode as set by the caller), or in blocks of 16 exact products
 * added to a float accumulator (a tensor core's k16 step). */
static float fp32_dot(const uint16_t *a, const uint16_t *b, long long k, int block16) {
  volatile float acc = 0.0f;
  for (long long t = 0; t < k;) {
    if (block16) {
      double blk = 0; /* 16 products of 22 bits: exact in double */
      for (int u = 0; u < 16 && t < k; ++u, ++t) blk += (double)sb_f16_to_f32(a[t]) * sb_f16_to_f32(b[t]);
      acc = acc + (float)blk;
    } else {
      acc = acc + sb_f16_to_f32(a[t]) * sb_f16_to_f32(b[t]);
      ++t;
    }
  }
  return acc;
}

SB_TEST(gemm_reference_matches_brute_force) {
  const long long m = 5, k = 37;
  uint16_t *a = random_f16((size_t)(m * k), 1), *b = random_f16((size_t)(m * k), 2);
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < m; ++j) {
      double want = 0, want_abs = 0;
      for (long long t = 0; t < k; ++t) {
        const double p = (double)sb_f16_to_f32(a[i * k + t]) * sb_f16_to_f32(b[j * k + t]);
        want += p;
        want_abs += fabs(p);
      }
      double dot, abs_dot;
      sb_gemm_reference_at(a, b, m, k, i, j, &dot, &abs_dot);
      CHECK_NEAR(dot, want, 1e-12);
      CHECK_NEAR(abs_dot, want_abs, 1e-12);
    }
  free(a);
  free(b);
}

SB_TEST(gemm_tolerance_holds_fp32_sums_and_catches_real_errors) {
  CHECK(sb_gemm_tolerance(1024, 1.0) < sb_gemm_tolerance(16384, 1.0));
  CHECK_NEAR(sb_gemm_tolerance(1024, 256.0), (256.0 + 64.0) * 0x1p-23 * 256.0, 1e-15);
  const long long ks[] = {64, 1024, 4096, 16384};
  for (int r = 0; r < 4; ++r) {
    const long long k = ks[r];
    uint16_t *a = random_f16((size_t)(16 * k), 10 + r), *b = random_f16((size_t)(16 * k), 20 + r);
    int outside = 0, dropped_caught = 0;
    for (int i = 0; i < 16; ++i) {
      double want, abs_dot;
      sb_gemm_reference_at(a, b, 16, k, i, i, &want, &abs_dot);
      const double tol = sb_gemm_tolerance(k, abs_dot);
      /* fp32 sums in every rounding a GEMM might use: inside. */
      const int modes[] = {FE_TONEAREST, FE_TOWARDZERO};
      for (int mo = 0; mo < 2; ++mo) {
        fesetround(modes[mo]);
        for (int blk = 0; blk <= 1; ++blk)
          outside += !(fabs((double)fp32_dot(a + i * k, b + i * k, k, blk) - want) <= tol);
        fesetround(FE_TONEAREST);
      }
      /* A k-tile of 64 products dropped: outside (for K up to 1024 every
       * time; the test only needs the smallest shapes to catch it always). */
      if (k >= 128 && k <= 1024) {
        double dropped = 0;
        for (long long t = 64; t < k; ++t)
          dropped += (double)sb_f16_to_f32(a[i * k + t]) * sb_f16_to_f32(b[i * k + t]);
        dropped_caught += !(fabs(dropped - want) <= tol);
      }
    }
    CHECK_EQ_INT(outside, 0);
    if (k >= 128 && k <= 1024) CHECK_EQ_INT(dropped_caught, 16);
    free(a);
    free(b);
  }
}

SB_TEST(gemm_check_counts_and_locates_bad_elements) {
  const long long m = 64, k = 128;
  uint16_t *a = random_f16((size_t)(m * k), 3), *b = random_f16((size_t)(m * k), 4);
  float *c = malloc((size_t)(m * m) * sizeof *c);
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < m; ++j) c[i * m + j] = fp32_dot(a + i * k, b + j * k, k, 1);
  long long first;
  CHECK_EQ_INT(sb_gemm_check(a, b, c, m, m, k, NULL, (size_t)(m * m), &first), 0);
  CHECK_EQ_INT(first, -1);
  /* Transposed C (C^T): the layout bug a GEMM makes first. */
  float *ct = malloc((size_t)(m * m) * sizeof *ct);
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < m; ++j) ct[j * m + i] = c[i * m + j];
  CHECK(sb_gemm_check(a, b, ct, m, m, k, NULL, (size_t)(m * m), &first) > (size_t)(m * m / 2));
  free(ct);
  /* Poison (0xA5 bytes, what the runner writes first) and NaN. */
  memset(&c[5 * m + 7], 0xA5, sizeof(float));
  c[63 * m + 63] = NAN;
  CHECK_EQ_INT(sb_gemm_check(a, b, c, m, m, k, NULL, (size_t)(m * m), &first), 2);
  CHECK_EQ_INT(first, 5 * m + 7);
  const long long idx[] = {63 * m + 63, 0};
  CHECK_EQ_INT(sb_gemm_check(a, b, c, m, m, k, idx, 2, &first), 1);
  CHECK_EQ_INT(first, 63 * m + 63);
  free(a);
  free(b);
  free(c);
}

SB_TEST(gemm_sample_set_has_corners_edges_every_block_and_4096) {
  const long long shapes[][2] = {{1024, 1024}, {8192, 8192}, {100, 70}};
  for (int s = 0; s < 3; ++s) {
    const long long m = shapes[s][0], n = shapes[s][1];
    long long *idx = malloc(sb_gemm_sample_count(m, n) * sizeof *idx);
    const size_t count = sb_gemm_sample_set(m, n, 42, idx);
    CHECK(count >= 4096);
    CHECK(count <= sb_gemm_sample_count(m, n));
    char *seen = calloc((size_t)(m * n), 1);
    int out_of_range = 0;
    for (size_t i = 0; i < count; ++i) {
      if (idx[i] < 0 || idx[i] >= m * n) ++out_of_range;
      else seen[idx[i]] = 1;
    }
    CHECK_EQ_INT(out_of_range, 0);
    CHECK(seen[0] && seen[n - 1] && seen[(m - 1) * n] && seen[m * n - 1]);
    int missing = 0;
    for (long long j = 0; j < n; ++j) missing += !seen[(m - 1) * n + j];
    for (long long i = 0; i < m; ++i) missing += !seen[i * n + n - 1];
    /* Every 64 x 64 block of C has a sample. */
    for (long long bi = 0; bi < m; bi += 64)
      for (long long bj = 0; bj < n; bj += 64) {
        int any = 0;
        for (long long i = bi; i < bi + 64 && i < m && !any; ++i)
          for (long long j = bj; j < bj + 64 && j < n && !any; ++j) any = seen[i * n + j];
        missing += !any;
      }
    CHECK_EQ_INT(missing, 0);
    /* Deterministic for a salt, different for another. */
    long long *again = malloc(sb_gemm_sample_count(m, n) * sizeof *again);
    CHECK_EQ_INT(sb_gemm_sample_set(m, n, 42, again), count);
    CHECK(memcmp(idx, again, count * sizeof *idx) == 0);
    sb_gemm_sample_set(m, n, 43, again);
    CHECK(memcmp(idx, again, count * sizeof *idx) != 0);
    free(again);
    free(seen);
    free(idx);
  }
}

/* A sampled check's places (bench/gemm.c's gemm_verify): the salt comes
 * from the whole shape, the input's seed and the check, so the validation,
 * the timed recheck and the dirty workspace's validation read other places,
 * and over checks every row and column of C is read. */
static long long *sample_of(long long m, long long n, long long k, uint64_t seed, int pass, size_t *count) {
  long long *idx = malloc(sb_gemm_sample_count(m, n) * sizeof *idx);
  *count = sb_gemm_sample_set(m, n, sb_gemm_sample_salt(m, n, k, seed, pass), idx);
  return idx;
}

SB_TEST(gemm_sample_places_follow_the_whole_shape_the_seed_and_the_check) {
  /* Salts: every change of m, n, k, seed or check gives another. */
  const uint64_t base = sb_gemm_sample_salt(2048, 2048, 4096, 7, SB_CHECK_VALIDATION);
  CHECK(sb_gemm_sample_salt(2048, 4096, 4096, 7, SB_CHECK_VALIDATION) != base); /* n alone */
  CHECK(sb_gemm_sample_salt(4096, 2048, 4096, 7, SB_CHECK_VALIDATION) != base);
  CHECK(sb_gemm_sample_salt(2048, 2048, 8192, 7, SB_CHECK_VALIDATION) != base);
  CHECK(sb_gemm_sample_salt(2048, 2048, 4096, 8, SB_CHECK_VALIDATION) != base); /* the seed */
  CHECK(sb_gemm_sample_salt(2048, 2048, 4096, 7, SB_CHECK_TIMED) != base);      /* the check */
  CHECK(sb_gemm_sample_salt(2048, 2048, 4096, 7, SB_CHECK_DIRTY) != base);
  CHECK(sb_gemm_sample_salt(2048, 2048, 4096, 7, SB_CHECK_DIRTY) !=
        sb_gemm_sample_salt(2048, 2048, 4096, 7, SB_CHECK_TIMED));
  CHECK_EQ_INT(sb_gemm_sample_salt(2048, 2048, 4096, 7, SB_CHECK_VALIDATION), base); /* replayable */
  /* Places: the one element of each 64 x 64 block and the 4096 more are
   * (nearly all) others between two checks of a point, two seeds, two n. */
  const long long m = 1024, k = 4096;
  size_t cv, ct, cs, cn;
  long long *v = sample_of(m, m, k, 7, SB_CHECK_VALIDATION, &cv), *t = sample_of(m, m, k, 7, SB_CHECK_TIMED, &ct);
  long long *s = sample_of(m, m, k, 8, SB_CHECK_VALIDATION, &cs), *w = sample_of(m, 2 * m, k, 7, SB_CHECK_VALIDATION, &cn);
  CHECK(cv == ct && cv == cs);
  const size_t fixed = (size_t)(4 + 2 * m); /* corners, last row, last column: every check reads them */
  size_t same_t = 0, same_s = 0, same_n = 0;
  for (size_t i = fixed; i < cv; ++i) {
    same_t += v[i] == t[i];
    same_s += v[i] == s[i];
  }
  /* n = 2m: the same place (row, col) in C, not the same index */
  for (size_t i = fixed, j = (size_t)(4 + m + 2 * m); i < cv && j < cn; ++i, ++j)
    same_n += v[i] / m == w[j] / (2 * m) && v[i] % m == w[j] % (2 * m);
  CHECK(same_t < (cv - fixed) / 50);
  CHECK(same_s < (cv - fixed) / 50);
  CHECK(same_n < (cv - fixed) / 50);
  free(v), free(t), free(s), free(w);
  /* Over seeds and checks, every row and column of C is read. */
  const long long mm = 256;
  char *rows = calloc((size_t)mm, 1), *cols = calloc((size_t)mm, 1);
  for (uint64_t seed = 0; seed < 64; ++seed)
    for (int pass = SB_CHECK_VALIDATION; pass <= SB_CHECK_DIRTY; ++pass) {
      size_t c;
      long long *x = sample_of(mm, mm, k, seed, pass, &c);
      for (size_t i = (size_t)(4 + 2 * mm); i < c; ++i) rows[x[i] / mm] = cols[x[i] % mm] = 1;
      free(x);
    }
  int unread = 0;
  for (long long i = 0; i < mm; ++i) unread += !rows[i] + !cols[i];
  CHECK_EQ_INT(unread, 0);
  free(rows), free(cols);
}

static const sb_variant *gemm_variant(const sb_family *f, const char *name) {
  for (int i = 0; i < f->variants->count; ++i)
    if (!strcmp(f->variants->rows[i].name, name)) return &f->variants->rows[i];
  return NULL;
}

/* The stage counts a variant compiles at a tile, as the host asks the
 * kernels (sb_gemm_compiled); 0 where nothing is compiled there. */
static unsigned compiled_stages(const sb_variant *v, int tile) {
  sb_gemm_compiled_info c;
  return sb_gemm_compiled(v, tile, &c) ? c.stages : 0u;
}
static int popcount(unsigned x) {
  int c = 0;
  for (; x; x &= x - 1) ++c;
  return c;
}

static long count_gemm(const sb_point *p, long n, const char *variant) {
  long c = 0;
  for (long i = 0; i < n; ++i)
    c += !strcmp(p[i].family->name, "gemm") && (!variant || !strcmp(p[i].variant->name, variant));
  return c;
}

/* Every GEMM kernel gets a whole check: a point whose check is a sample
 * names the same kernel at a shape whose check reads all of C, one that
 * runs on an H100/H200 (the runner validates it before the point, once per
 * kernel unless a point of the kernel was checked whole already). */
SB_TEST(gemm_every_sampled_point_has_a_whole_check_of_its_kernel) {
  const sb_family *f = sb_find_family("gemm");
  CHECK(f != NULL && f->whole_check != NULL);
  if (!f || !f->whole_check) return;
  const sb_device d = sb_test_hopper();
  char err[256], why[SB_DETAIL_LEN];
  for (int quick = 0; quick <= 1; ++quick) {
    sb_sweep_spec spec = {.quick = quick};
    sb_point *p;
    const long n = sb_sweep_build(&spec, &p, err, sizeof err);
    long sampled = 0, kernels = 0;
    for (long i = 0; i < n; ++i) {
      if (strcmp(p[i].family->name, "gemm")) continue;
      sb_point w, kernel;
      const int rc = f->whole_check(&p[i], &w, &kernel);
      const long long m = p[i].axis[SB_AXIS_M], nn = sb_gemm_cols(p[i].axis), k = p[i].axis[SB_AXIS_K];
      if (p[i].variant->flags & SB_VF_NO_KERNEL) {
        CHECK_EQ_INT(rc, -1);
        continue;
      }
      ++kernels;
      CHECK_EQ_INT(rc, m * nn * k > (1LL << 30));
      /* the kernel: the point but its shape */
      CHECK(kernel.axis[SB_AXIS_M] == SB_AXIS_UNSET && kernel.axis[SB_AXIS_K] == SB_AXIS_UNSET);
      CHECK(kernel.axis[SB_AXIS_TILE] == p[i].axis[SB_AXIS_TILE] && kernel.variant == p[i].variant);
      if (rc != 1) continue;
      ++sampled;
      const long long wm = w.axis[SB_AXIS_M], wn = sb_gemm_cols(w.axis), wk = w.axis[SB_AXIS_K];
      CHECK(wm * wn * wk <= (1LL << 30));
      CHECK(wm <= m && wn <= nn && wk <= k && wk >= k / 64); /* the k-loop halved at most 6 times */
      CHECK(w.variant == p[i].variant);
      int others = 0;
      for (int a = 0; a < SB_NUM_AXES; ++a)
        others += a != SB_AXIS_M && a != SB_AXIS_N && a != SB_AXIS_K && w.axis[a] != p[i].axis[a];
      CHECK_EQ_INT(others, 0);
      CHECK(f->check(&w, &d, why, sizeof why) == NULL);
      sb_row row;
      sb_row_init(&row, &d.prov);
      CHECK_EQ_INT(sb_point_precheck(&w, &d, &row), 0);
    }
    CHECK(kernels > 0 && sampled > 0 && sampled < kernels);
    free(p);
  }
  /* The smallest there is: one cluster of tiles and a k-tile per slice. */
  sb_point q = {f, gemm_variant(f, "splitk_serial"), {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = 8192, q.axis[SB_AXIS_K] = 1 << 20, q.axis[SB_AXIS_TILE] = 0;
  q.axis[SB_AXIS_SPLITS] = 4;
  sb_point w, kernel;
  CHECK_EQ_INT(f->whole_check(&q, &w, &kernel), 1);
  CHECK(w.axis[SB_AXIS_M] == 128 && w.axis[SB_AXIS_N] == 128 && w.axis[SB_AXIS_K] == 65536);
  /* docs/gemm.md's examples: 2048^3 -> 512 x 1024 x 2048, 1024 x 16384 -> 256^2 x 16384 */
  q.axis[SB_AXIS_SPLITS] = SB_AXIS_AUTO;
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = q.axis[SB_AXIS_K] = 2048;
  CHECK_EQ_INT(f->whole_check(&q, &w, &kernel), 1);
  CHECK(w.axis[SB_AXIS_M] == 512 && w.axis[SB_AXIS_N] == 1024 && w.axis[SB_AXIS_K] == 2048);
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = 1024, q.axis[SB_AXIS_K] = 16384;
  CHECK_EQ_INT(f->whole_check(&q, &w, &kernel), 1);
  CHECK(w.axis[SB_AXIS_M] == 256 && w.axis[SB_AXIS_N] == 256 && w.axis[SB_AXIS_K] == 16384);
  /* An odd shape keeps its partial tiles in the whole check (the edges the
   * kernel predicates): 1000^2 x 8200 in 128x128 tiles (7 whole + 104) and
   * k-tiles (128 whole + 8): m, n and k keep 104, 104 and 8 past their
   * whole pieces. */
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = 1000, q.axis[SB_AXIS_K] = 8200;
  CHECK_EQ_INT(f->whole_check(&q, &w, &kernel), 1);
  CHECK_EQ_INT(w.axis[SB_AXIS_M] % 128, 104);
  CHECK_EQ_INT(w.axis[SB_AXIS_N] % 128, 104);
  CHECK_EQ_INT(w.axis[SB_AXIS_K] % 64, 8);
  CHECK(w.axis[SB_AXIS_M] * w.axis[SB_AXIS_N] * w.axis[SB_AXIS_K] <= (1LL << 30));
  q.axis[SB_AXIS_SPLITS] = 4; /* 128^2 x (2^20 + 8): the k-tiles halved until 128^2 x k fits, 8 kept */
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = 1 << 16, q.axis[SB_AXIS_K] = 1 << 20 | 8;
  CHECK_EQ_INT(f->whole_check(&q, &w, &kernel), 1);
  CHECK(w.axis[SB_AXIS_M] == 128 && w.axis[SB_AXIS_N] == 128 && w.axis[SB_AXIS_K] == 512 * 64 + 8);
}

/* The shapes every variant runs: K a multiple of 8, N a multiple of 4, any
 * M. Outside: one line that names the rule, and a sweep that selects such
 * a point is refused (the command's exit status: tests/py/test_cli.py). */
SB_TEST(gemm_shape_rule_refuses_with_one_line_naming_it) {
  char buf[SB_DETAIL_LEN];
  CHECK(sb_gemm_shape_refusal(1000, 1000, 1000, buf, sizeof buf) == NULL);
  CHECK(sb_gemm_shape_refusal(1, 4096, 4096, buf, sizeof buf) == NULL);
  CHECK(sb_gemm_shape_refusal(4095, 24, 1032, buf, sizeof buf) == NULL);
  CHECK(sb_gemm_shape_refusal(1000, 1000, 8, buf, sizeof buf) == NULL);
  CHECK(sb_gemm_shape_refusal(1000, 1000, 1001, buf, sizeof buf) == buf);
  CHECK_STR(buf, "gemm: m=1000, n=1000, k=1001 is outside the shapes it runs: K a multiple of 8 and N a multiple of 4 "
                 "(16-byte rows: A and B hold K fp16 a row, C N fp32), any M >= 1");
  CHECK(strchr(buf, '\n') == NULL);
  CHECK(sb_gemm_shape_refusal(1000, 1002, 1024, buf, sizeof buf) != NULL);
  CHECK(sb_gemm_shape_refusal(0, 1000, 1024, buf, sizeof buf) != NULL);
  char err[512];
  sb_cli c;
  sb_point *p = NULL;
  char *bad[] = {"syncbench", "--m", "1000", "--k", "1001", "--filter", "^gemm/", NULL};
  CHECK_EQ_INT(sb_cli_parse(7, bad, &c, err, sizeof err), 0);
  CHECK_EQ_INT(sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err), -1);
  CHECK(strstr(err, "k=1001 is outside the shapes it runs: K a multiple of 8") != NULL);
  sb_cli_free(&c);
  /* The same shape, but no gemm point selected: nothing to refuse. */
  char *other[] = {"syncbench", "--m", "1000", "--k", "1001", "--filter", "^gemm/nothing_by_this_name/", NULL};
  CHECK_EQ_INT(sb_cli_parse(7, other, &c, err, sizeof err), 0);
  CHECK_EQ_INT(sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err), -1);
  CHECK(strstr(err, "outside the shapes") == NULL);
  sb_cli_free(&c);
  /* --m 1000: every variant, no skipped row. */
  char *odd[] = {"syncbench", "--m", "1000", "--filter", "^gemm/", NULL};
  CHECK_EQ_INT(sb_cli_parse(5, odd, &c, err, sizeof err), 0);
  const long n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  const sb_device d = sb_test_hopper();
  long rows = 0, skipped = 0;
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    sb_row row;
    sb_row_init(&row, &d.prov);
    ++rows;
    skipped += sb_point_precheck(&p[i], &d, &row);
  }
  CHECK(rows > 0);
  CHECK_EQ_INT(skipped, 0);
  const sb_family *f = sb_find_family("gemm");
  for (int v = 0; f && v < f->variants->count; ++v)
    if (!(f->variants->rows[v].flags & SB_VF_TEST_ONLY)) CHECK(count_gemm(p, n, f->variants->rows[v].name) > 0);
  free(p);
  sb_cli_free(&c);
}

SB_TEST(gemm_default_sweep_keeps_only_the_shapes_and_stages_each_variant_takes) {
  const sb_family *f = sb_find_family("gemm");
  CHECK(f != NULL);
  if (!f) return;
  CHECK_STR(f->variants->rows[0].name, "cublas"); /* measured first at every shape */
  const sb_device d = sb_test_hopper(); /* the H100's limits */
  sb_sweep_spec spec = {0};
  sb_point *p;
  char err[256];
  long n = sb_sweep_build(&spec, &p, err, sizeof err);
  CHECK(n > 0);
  /* The default grid (bench/gemm.c's default_config): 5 squares for the
   * mma.sync staging variants (1000^3 among them: partial tiles at every
   * edge, the tiles and stages of 1024^3), + 8192^3 and 512x512x32768 for
   * the wgmma ones. The staging variants: every tile and stage count at 4096^3
   * (128x128: 2..6, 128x256: 2..4), one per tile elsewhere (single and
   * swap their one). The wgmma variants: 64x128 (8) and 128x128 (5, 6)
   * where M <= 1024, 128x128 (5, 6) and 128x256 (3, 4; multicast 4)
   * above, ws_tma_wgmma every compiled tile and count at 4096^3; split-K
   * at the 2 K-heavy shapes, 128x128 x splits auto,2,4,8 + 64x128 auto;
   * ping-pong from 2048^3 on (its clusters 2x1). */
  CHECK_EQ_INT(count_gemm(p, n, "cublas"), 7);
  CHECK_EQ_INT(count_gemm(p, n, "single"), 10);
  CHECK_EQ_INT(count_gemm(p, n, "swap"), 10);
  CHECK_EQ_INT(count_gemm(p, n, "ring"), 16);        /* 8 at 4096^3 + 2 x 4 shapes */
  CHECK_EQ_INT(count_gemm(p, n, "ws_mbarrier"), 16);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma"), 16);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma"), 29); /* 9 at 4096^3, 3 x 4 small + 4 x 2 large shapes */
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_tma_store"), 21); /* 3 x 3 small + 4 x 3 large */
  CHECK_EQ_INT(count_gemm(p, n, "splitk_serial"), 10);
  CHECK_EQ_INT(count_gemm(p, n, "splitk_parallel"), 10);
  CHECK_EQ_INT(count_gemm(p, n, "splitk_cluster"), 10); /* as splitk_serial: its cluster of 2, 4, 8 */
  CHECK_EQ_INT(count_gemm(p, n, "splitk_cooperative"), 4); /* splits=auto only: 2 tiles x 2 shapes */
  CHECK_EQ_INT(count_gemm(p, n, "streamk"), 14);       /* 7 shapes x 2 tiles */
  /* Multicast: 64x128 at 1000^3, 1024^3 and 1024x16384, 128x256 (4
   * stages) from 2048^3 on, both cluster shapes: 6 x 2; the persistent
   * ones at the squares: 5 x 2. Ping-pong (128x128, 5-6 stages) at 3 squares. */
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_multicast"), 12);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_multicast_persistent"), 10);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_multicast_persistent_tma_store"), 10);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_pingpong"), 6);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_pingpong_tma_store"), 6);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_pingpong_multicast_tma_store"), 6);
  long first_gemm = -1, skipped = 0;
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    if (first_gemm < 0) first_gemm = i;
    const long long m = p[i].axis[SB_AXIS_M], k = p[i].axis[SB_AXIS_K];
    CHECK(m == k || (m == 1024 && k == 16384) || (m == 512 && k == 32768));
    const int split = (p[i].variant->flags & SB_VF_GEMM_SPLIT) != 0;
    CHECK(split == (p[i].axis[SB_AXIS_SPLITS] != SB_AXIS_UNSET)); /* one point per shape otherwise */
    if (split) CHECK(m != k);
    const unsigned stages = compiled_stages(p[i].variant, (int)p[i].axis[SB_AXIS_TILE]);
    if (p[i].variant->flags & (SB_VF_GEMM_SPLIT | SB_VF_GEMM_STREAMK)) /* one compiled count a tile */
      CHECK(popcount(stages) == 1 && (stages >> p[i].axis[SB_AXIS_STAGES] & 1u));
    const int multicast = (p[i].variant->flags & SB_VF_GEMM_MULTICAST) != 0;
    CHECK(multicast == (p[i].axis[SB_AXIS_CLUSTER_SHAPE] != SB_AXIS_UNSET)); /* the only clustered variant */
    if (multicast) {
      CHECK(m == k || (m == 1024 && k == 16384));
      CHECK(stages >> p[i].axis[SB_AXIS_STAGES] & 1u);
    }
    if (!strcmp(p[i].variant->name, "cublas")) {
      CHECK(p[i].axis[SB_AXIS_STAGES] == SB_AXIS_UNSET && p[i].axis[SB_AXIS_TILE] == SB_AXIS_UNSET);
      CHECK(i - first_gemm < 7); /* every cublas row before every kernel row */
      continue;
    }
    /* The tiles that can win at the shape: no 64x128 at the large outputs
     * (but ws_tma_wgmma's 4096^3 table), no 128x256 at the small ones. */
    const long long t = p[i].axis[SB_AXIS_TILE];
    const int wgmma = !strncmp(p[i].variant->composition.consumer, "wgmma", 5);
    if (m <= 1024 && wgmma) CHECK(t != SB_GEMM_TILE_128X256);
    else if (t == SB_GEMM_TILE_64X128) CHECK(m == 4096 && !strcmp(p[i].variant->name, "ws_tma_wgmma"));
    if (p[i].variant->flags & SB_VF_GEMM_PINGPONG) CHECK(m >= 2048);
    CHECK_EQ_INT(p[i].axis[SB_AXIS_BUFFER_BYTES], sb_gemm_stage_bytes((int)p[i].axis[SB_AXIS_TILE]));
    sb_row row;
    sb_provenance prov;
    memset(&prov, 0, sizeof prov);
    sb_row_init(&row, &prov);
    skipped += sb_point_precheck(&p[i], &d, &row); /* nothing the grid keeps is skipped */
  }
  CHECK_EQ_INT(skipped, 0);
  free(p);

  /* Quick: every variant, a few points each; a K-heavy shape. */
  sb_sweep_spec quick = {.quick = 1};
  n = sb_sweep_build(&quick, &p, err, sizeof err);
  for (int v = 0; v < f->variants->count; ++v) {
    const long c = count_gemm(p, n, f->variants->rows[v].name);
    CHECK(c >= 1 && c <= 8); /* cublas: two shapes; the kernels: a tile x stages each */
  }
  long k_heavy = 0;
  for (long i = 0; i < n; ++i)
    k_heavy += !strcmp(p[i].family->name, "gemm") && p[i].axis[SB_AXIS_K] >= 16 * p[i].axis[SB_AXIS_M];
  CHECK(k_heavy >= 3); /* cublas, ws_tma_wgmma and the split variants at 512x512x32768 */
  free(p);
}

/* C of m x n (n != m): --n together with --m sets n; --n alone leaves the
 * square (n is other families' element count); the sizes, the check and
 * the reasons follow n. */
SB_TEST(gemm_n_differs_from_m_when_given_with_m) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  char err[256];
  char *argv1[] = {"syncbench", "--m", "512", "--n", "1024", "--k", "8192", "--filter", "^gemm/(cublas|ws_tma_wgmma)/",
                   NULL};
  sb_cli c;
  CHECK_EQ_INT(sb_cli_parse(9, argv1, &c, err, sizeof err), 0);
  sb_point *p;
  long n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  CHECK(count_gemm(p, n, "cublas") == 1 && count_gemm(p, n, "ws_tma_wgmma") >= 1);
  const sb_device d = sb_test_hopper();
  char buf[SB_DETAIL_LEN];
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    CHECK_EQ_INT(p[i].axis[SB_AXIS_M], 512);
    CHECK_EQ_INT(p[i].axis[SB_AXIS_N], 1024);
    CHECK_EQ_INT(f->in_bytes(&p[i]), (512 + 1024) * 8192 * 2);
    CHECK_EQ_INT(f->out_bytes(&p[i]), 512 * 1024 * 4);
    CHECK(f->flops(&p[i]) == 2LL * 512 * 1024 * 8192);
    CHECK(f->check(&p[i], &d, buf, sizeof buf) == NULL);
    sb_point cp;
    if (sb_ceiling_point(&p[i], &cp) == 0) CHECK_EQ_INT(cp.axis[SB_AXIS_N], 1024); /* cuBLAS at the same shape */
  }
  free(p);
  sb_cli_free(&c);
  char *argv2[] = {"syncbench", "--n", "1024", "--filter", "^gemm/cublas/", NULL};
  CHECK_EQ_INT(sb_cli_parse(5, argv2, &c, err, sizeof err), 0);
  n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  CHECK(count_gemm(p, n, "cublas") == 7);
  for (long i = 0; i < n; ++i)
    if (!strcmp(p[i].family->name, "gemm")) CHECK_EQ_INT(p[i].axis[SB_AXIS_N], p[i].axis[SB_AXIS_M]);
  free(p);
  sb_cli_free(&c);
  /* n that the tile does not divide: partial tiles (any N a multiple of 4);
   * multicast 1x2 over an odd count of tile columns: the edge cluster's
   * second tile lies past C; an N off the rule: the rule's reason. */
  sb_point q = {f, gemm_variant(f, "ws_tma_wgmma"), {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = 512, q.axis[SB_AXIS_N] = 1000, q.axis[SB_AXIS_K] = 1024, q.axis[SB_AXIS_TILE] = 0;
  q.axis[SB_AXIS_STAGES] = 5, q.axis[SB_AXIS_WARPS] = 4;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_N] = 1002;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "m=512, n=1002, k=1024 is outside the shapes") != NULL &&
        strstr(buf, "N a multiple of 4") != NULL);
  q.variant = gemm_variant(f, "ws_tma_wgmma_multicast");
  q.axis[SB_AXIS_STAGES] = 4, q.axis[SB_AXIS_TILE] = 1, q.axis[SB_AXIS_WARPS] = 8; /* 128x256 */
  q.axis[SB_AXIS_N] = 768, q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_1X2;   /* 3 tile columns: odd */
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X1; /* 4 tile rows of 128: even */
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  /* both operands shared: the 64x128 tile only (experimental build), at
   * any shape (1000: 16 x 8 tiles, the 4x2 and 2x4 clusters' edge rows and
   * columns partial); a shape not compiled is refused naming those that are */
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X2;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL &&
        strstr(buf, "ws_tma_wgmma_multicast at a 128x256 tile needs cluster_shape 2x1, 1x2") != NULL);
  q.axis[SB_AXIS_TILE] = SB_GEMM_TILE_64X128, q.axis[SB_AXIS_WARPS] = 4, q.axis[SB_AXIS_STAGES] = 8;
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = q.axis[SB_AXIS_K] = 1000;
  for (int cs = SB_GEMM_CLUSTER_2X2; cs <= SB_GEMM_CLUSTER_2X4; ++cs) {
    q.axis[SB_AXIS_CLUSTER_SHAPE] = cs;
#ifdef SB_EXPERIMENTAL
    CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
#else
    CHECK(f->check(&q, &d, buf, sizeof buf) != NULL &&
          strstr(buf, "at a 64x128 tile needs cluster_shape 2x1, 1x2") != NULL);
#endif
  }
  q.variant = gemm_variant(f, "ws_tma_wgmma_multicast_persistent");
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "needs cluster_shape 2x1, 1x2") != NULL);
}

/* sb_gemm_check on a C of m x n, m != n: right, and a C laid out n x m. */
SB_TEST(gemm_check_takes_a_c_wider_than_tall) {
  const long long m = 16, n = 48, k = 64;
  uint16_t *a = random_f16((size_t)(m * k), 5), *b = random_f16((size_t)(n * k), 6);
  float *c = malloc((size_t)(m * n) * sizeof *c), *ct = malloc((size_t)(m * n) * sizeof *ct);
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < n; ++j) c[i * n + j] = fp32_dot(a + i * k, b + j * k, k, 1), ct[j * m + i] = c[i * n + j];
  long long first;
  CHECK_EQ_INT(sb_gemm_check(a, b, c, m, n, k, NULL, (size_t)(m * n), &first), 0);
  CHECK(sb_gemm_check(a, b, ct, m, n, k, NULL, (size_t)(m * n), &first) > (size_t)(m * n / 2));
  free(a);
  free(b);
  free(c);
  free(ct);
}

/* The CPU reference at a shape no tile divides (partial tiles at every
 * edge, K not a multiple of 64): a right C passes whole and sampled; one
 * wrong element in the last (partial) row, the last column, or the last
 * 64x64 block's interior is caught by the sample set too (it reads the
 * whole last row and column, and one element of every 64x64 block: here
 * the last block's is the one spoiled), and located. */
SB_TEST(gemm_check_catches_errors_in_partial_edge_tiles) {
  const long long m = 131, n = 100, k = 72; /* 128 + 3 rows, 64 + 36 columns, 64 + 8 of K */
  uint16_t *a = random_f16((size_t)(m * k), 11), *b = random_f16((size_t)(n * k), 12);
  float *c = malloc((size_t)(m * n) * sizeof *c);
  long long *idx = malloc(sb_gemm_sample_count(m, n) * sizeof *idx);
  if (!a || !b || !c || !idx) return;
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < n; ++j) c[i * n + j] = fp32_dot(a + i * k, b + j * k, k, 1);
  long long first;
  CHECK_EQ_INT(sb_gemm_check(a, b, c, m, n, k, NULL, (size_t)(m * n), &first), 0);
  const size_t count = sb_gemm_sample_set(m, n, 99, idx);
  CHECK_EQ_INT(sb_gemm_check(a, b, c, m, n, k, idx, count, &first), 0);
  /* the last row, the last column: always sampled */
  const long long spoil[] = {(m - 1) * n + 37, 70 * n + (n - 1)};
  for (size_t s = 0; s < 2; ++s) {
    const float keep = c[spoil[s]];
    c[spoil[s]] += 1.0f; /* a whole product's size off: far past the tolerance */
    CHECK(sb_gemm_check(a, b, c, m, n, k, idx, count, &first) >= 1); /* duplicates in the sample count again */
    CHECK_EQ_INT(first, spoil[s]);
    c[spoil[s]] = keep;
  }
  /* the last 64x64 block (rows 128-130, columns 64-99): its one sampled element */
  long long inner = -1;
  for (size_t i = 0; i < count; ++i)
    if (idx[i] / n >= 128 && idx[i] / n < m - 1 && idx[i] % n >= 64 && idx[i] % n < n - 1) inner = idx[i];
  CHECK(inner >= 0);
  if (inner >= 0) {
    c[inner] -= 1.0f;
    CHECK(sb_gemm_check(a, b, c, m, n, k, idx, count, &first) >= 1);
    CHECK_EQ_INT(first, inner);
  }
  free(a);
  free(b);
  free(c);
  free(idx);
}

SB_TEST(gemm_user_given_combinations_get_rows_with_reasons) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  char err[256];
  /* M != K, given by the user: swept, although the default grid drops it. */
  char *argv1[] = {"syncbench", "--m", "2048", "--k", "1024", "--filter", "^gemm/ring/", NULL};
  sb_cli c;
  CHECK_EQ_INT(sb_cli_parse(7, argv1, &c, err, sizeof err), 0);
  sb_point *p;
  long n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  CHECK_EQ_INT(count_gemm(p, n, "ring"), 2); /* the default grid's stages: one per tile off the 4096^3 table */
  free(p);
  sb_cli_free(&c);
  /* stages=3 for single: kept, and check() says why it is skipped. */
  char *argv2[] = {"syncbench", "--stages", "3", "--filter", "^gemm/single/", NULL};
  CHECK_EQ_INT(sb_cli_parse(5, argv2, &c, err, sizeof err), 0);
  n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  CHECK_EQ_INT(count_gemm(p, n, "single"), 10); /* 5 squares x 2 tiles: 8192^3 is the wgmma variants' */
  const sb_device d = sb_test_hopper(); /* the H100's limits */
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    sb_row row;
    sb_provenance prov;
    memset(&prov, 0, sizeof prov);
    sb_row_init(&row, &prov);
    CHECK_EQ_INT(sb_point_precheck(&p[i], &d, &row), 1);
    CHECK_EQ_INT(row.status, SB_SKIPPED);
    CHECK(strstr(row.detail, "stages=3: single is compiled with stages 1 at a") != NULL);
  }
  free(p);
  sb_cli_free(&c);
  /* A shape the tiles do not divide (partial tiles: it runs), a K off the
   * rule, and too many stages for the memory. */
  sb_point q = {f, gemm_variant(f, "ring"), {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = 1000, q.axis[SB_AXIS_K] = 1032, q.axis[SB_AXIS_TILE] = 0;
  q.axis[SB_AXIS_STAGES] = 4, q.axis[SB_AXIS_WARPS] = 4;
  char buf[SB_DETAIL_LEN];
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_K] = 1001;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "K a multiple of 8") != NULL);
  q.axis[SB_AXIS_K] = 1024;
  q.axis[SB_AXIS_M] = 1024, q.axis[SB_AXIS_TILE] = 1, q.axis[SB_AXIS_WARPS] = 8, q.axis[SB_AXIS_STAGES] = 5;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "exceeds") != NULL);
  q.axis[SB_AXIS_STAGES] = 4;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_WARPS] = 4;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "consumer_warps") != NULL);
}

/* ws_tma_wgmma_multicast's host rules: clusters of 2 tiles along the
 * cluster shape (an odd tile count there is a skipped row that says so),
 * only its compiled stages, a cluster shape given, and sm_80 unsupported. */
/* The TMA-store variants ask for their C staging after the stages (two
 * 2 KiB pieces per consumer warp: 32 KiB at 128x256, 32 KiB for ping-pong's
 * 8 warps at 128x128), and the host's shared-memory check counts it: with
 * 200 KiB a block, the persistent multicast at 128x256 x 4 stages (192 KiB
 * + 1 KiB) fits, its TMA-store twin (225 KiB) is a skipped row that names
 * the staging. */
SB_TEST(gemm_tma_store_staging_counts_in_the_shared_memory_check) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  CHECK_EQ_INT(sb_gemm_store_staging_bytes(0), 4 * 2 * 2048);
  CHECK_EQ_INT(sb_gemm_store_staging_bytes(1), 8 * 2 * 2048);
  sb_device d = sb_test_hopper();
  char buf[SB_DETAIL_LEN];
  sb_point q = {f, gemm_variant(f, "ws_tma_wgmma_multicast_persistent"), {0}};
  sb_point t = {f, gemm_variant(f, "ws_tma_wgmma_multicast_persistent_tma_store"), {0}};
  sb_point pp = {f, gemm_variant(f, "ws_tma_wgmma_pingpong_tma_store"), {0}};
  CHECK(q.variant != NULL && t.variant != NULL && pp.variant != NULL);
  if (!q.variant || !t.variant || !pp.variant) return;
  CHECK((t.variant->flags & SB_VF_GEMM_TMA_STORE) && !(q.variant->flags & SB_VF_GEMM_TMA_STORE));
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = t.axis[a] = pp.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = q.axis[SB_AXIS_K] = 4096, q.axis[SB_AXIS_TILE] = 1, q.axis[SB_AXIS_WARPS] = 8;
  q.axis[SB_AXIS_STAGES] = 4, q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X1;
  memcpy(t.axis, q.axis, sizeof t.axis);
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  CHECK(f->check(&t, &d, buf, sizeof buf) == NULL); /* 4 x 48 KiB + 32 KiB + 1 KiB <= 227 KiB */
  d.smem_per_block_optin = 200 * 1024;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  CHECK(f->check(&t, &d, buf, sizeof buf) != NULL && strstr(buf, "+ 32768 C staging") != NULL);
  /* ping-pong: two warpgroups' warps stage, 6 x 32 KiB + 32 KiB + 1 KiB */
  pp.axis[SB_AXIS_M] = pp.axis[SB_AXIS_K] = 4096, pp.axis[SB_AXIS_TILE] = 0, pp.axis[SB_AXIS_WARPS] = 8;
  pp.axis[SB_AXIS_STAGES] = 6;
  d.smem_per_block_optin = 227 * 1024;
  CHECK(f->check(&pp, &d, buf, sizeof buf) == NULL);
  d.smem_per_block_optin = 6 * 32768 + 16384 + 1024; /* room for one warpgroup's staging only */
  CHECK(f->check(&pp, &d, buf, sizeof buf) != NULL && strstr(buf, "+ 32768 C staging") != NULL);
}

/* A one-warpgroup tile's geometry: BM x BN, 4 warps (one warpgroup), wgmma
 * only, its stage's bytes and its one stage count. */
static void check_one_group_geometry(int tile, int bm, int bn, int stages) {
  CHECK_EQ_INT(sb_gemm_tile_bm(tile), bm);
  CHECK_EQ_INT(sb_gemm_tile_bn(tile), bn);
  CHECK_EQ_INT(sb_gemm_tile_warps(tile), 4);
  CHECK(sb_gemm_tile_wgmma_only(tile));
  CHECK_EQ_INT(sb_gemm_stage_bytes(tile), (bm + bn) * 64 * 2);
  const sb_family *f = sb_find_family("gemm");
  CHECK_EQ_INT(compiled_stages(gemm_variant(f, "ws_tma_wgmma"), tile), 1u << stages); /* the kernels' one count */
}

/* A one-warpgroup tile's rules against the pickers: each named variant in
 * turn at (m, k) on the tile, at the tile's stage count; the first
 * `compiled` have a twin with the tile's shared memory and pass the
 * host's rules, the others get no kernel and a reason containing
 * `refusal` (ping-pong: its own). */
static void check_one_group_tile(int tile, long long m, const char *const *names, size_t count, size_t compiled,
                                 const char *refusal) {
  const sb_family *f = sb_find_family("gemm");
  const sb_device d = sb_test_hopper();
  const int stages = __builtin_ctz(compiled_stages(gemm_variant(f, "ws_tma_wgmma"), tile));
  char buf[SB_DETAIL_LEN], why[SB_SKIP_LEN];
  for (size_t i = 0; i < count; ++i) {
    sb_point q = {f, gemm_variant(f, names[i]), {0}};
    CHECK(q.variant != NULL);
    if (!q.variant) continue;
    const unsigned fl = q.variant->flags;
    for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
    q.axis[SB_AXIS_M] = m, q.axis[SB_AXIS_K] = 8192, q.axis[SB_AXIS_TILE] = tile;
    q.axis[SB_AXIS_WARPS] = (fl & SB_VF_GEMM_PINGPONG) ? 8 : 4;
    q.axis[SB_AXIS_STAGES] = (fl & SB_VF_GEMM_ONE_STAGE) ? 1 : (fl & SB_VF_GEMM_TWO_STAGES) ? 2 : stages;
    if (fl & SB_VF_GEMM_SPLIT) q.axis[SB_AXIS_SPLITS] = SB_AXIS_AUTO;
    if (fl & SB_VF_GEMM_MULTICAST) q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X1;
    const char *reason = f->check(&q, &d, buf, sizeof buf);
    sb_kernels k;
    memset(&k, 0, sizeof k);
    why[0] = 0;
    const int rc = q.variant->pick(q.axis, &k, why, sizeof why);
    if (i < compiled) {
      CHECK(reason == NULL);
      CHECK_EQ_INT(rc, 0);
      CHECK(k.raw != NULL && k.bounded != NULL && k.bounded != k.raw);
      /* the stages of (BM + BN) x 64 fp16 (+ the TMA store's staging: 4 warps x 2 x 16x32 fp32) */
      CHECK_EQ_INT(k.smem, stages * sb_gemm_stage_bytes(tile) + 1024 + ((fl & SB_VF_GEMM_TMA_STORE) ? 4 * 2 * 2048 : 0));
    } else {
      CHECK(reason != NULL && (strstr(reason, refusal) || (fl & SB_VF_GEMM_PINGPONG)));
      CHECK_EQ_INT(rc, -1);
      CHECK(why[0] != 0);
    }
  }
}

/* The 64x128x64 tile (issue 29): one wgmma warpgroup (4 consumer warps,
 * not the 2 its 64x64 pieces would give mma.sync), compiled for
 * ws_tma_wgmma (and its TMA-store and multicast forms) and the variants
 * that cut K, at their 8 stages only. The
 * host's rules and the pickers agree: a variant the rules pass has a twin
 * with the tile's shared memory; one they refuse gets no kernel, and why. */
SB_TEST(gemm_64x128_tile_is_wgmma_only_and_its_rules_match_the_pickers) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  check_one_group_geometry(SB_GEMM_TILE_64X128, 64, 128, 8);
  CHECK(!sb_gemm_tile_wgmma_only(0) && !sb_gemm_tile_wgmma_only(1));
  sb_axis_values vals;
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_TILE, "64x128x64,128x128x64", &vals, err, sizeof err), 0);
  CHECK(vals.count == 2 && vals.v[0] == SB_GEMM_TILE_64X128 && vals.v[1] == SB_GEMM_TILE_128X128);
  const sb_device d = sb_test_hopper();
  char buf[SB_DETAIL_LEN], why[SB_SKIP_LEN];
  const char *names[] = {"ws_tma_wgmma", "splitk_serial", "splitk_parallel", "splitk_reduce", "splitk_cooperative",
                         "splitk_cluster", "streamk", "ws_tma_wgmma_multicast", "ws_tma_wgmma_tma_store",
                         /* compiled; refused: */
                         "single", "swap", "ring", "ws_mbarrier", "ws_tma", "ws_tma_wgmma_pingpong"};
  check_one_group_tile(SB_GEMM_TILE_64X128, 256, names, sizeof names / sizeof *names, 9,
                       "has no kernel at a 64x128 tile (compiled: 128x128x64, 128x256x64)");
  /* ws_tma_wgmma: 8 stages and one warpgroup only, both sides. */
  sb_point q = {f, gemm_variant(f, "ws_tma_wgmma"), {0}};
  if (!q.variant) return;
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = 128, q.axis[SB_AXIS_K] = 8192, q.axis[SB_AXIS_TILE] = SB_GEMM_TILE_64X128;
  q.axis[SB_AXIS_WARPS] = 4, q.axis[SB_AXIS_STAGES] = 4;
  sb_kernels k;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL &&
        strstr(buf, "stages=4: ws_tma_wgmma is compiled with stages 8 at a 64x128 tile"));
  CHECK_EQ_INT(q.variant->pick(q.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "stages=4 has no compiled kernel (compiled: 8)") != NULL);
  q.axis[SB_AXIS_STAGES] = 8, q.axis[SB_AXIS_WARPS] = 8;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "consumer_warps=8: ws_tma_wgmma has 4 at a 64x128 tile"));
  CHECK_EQ_INT(q.variant->pick(q.axis, &k, why, sizeof why), -1);
  /* m = 192: 3 tile rows of 64, 1.5 tile columns of 128: partial tiles, it runs. */
  q.axis[SB_AXIS_WARPS] = 4, q.axis[SB_AXIS_M] = 192;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
}

/* The 128x96x64 tile (issue 39): two m64n96 wgmma slices of one warpgroup,
 * for M and N that are whole 96s where 128x128 tiles fall short of a wave
 * (1152: 108 tiles on 132 SMs where 128x128 has 81); compiled for ws_tma_wgmma, its TMA-store
 * form and the variants that cut K at 7 stages, not for multicast. Whole
 * tiles only; the default sweep's shapes have none, so its points stay. */
SB_TEST(gemm_128x96_tile_is_one_warpgroup_and_its_rules_match_the_pickers) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  check_one_group_geometry(SB_GEMM_TILE_128X96, 128, 96, 7);
  /* multicast: compiled at 64x128, not at 128x96 (the kernels' answer) */
  CHECK(compiled_stages(gemm_variant(f, "ws_tma_wgmma_multicast"), SB_GEMM_TILE_128X96) == 0);
  CHECK(compiled_stages(gemm_variant(f, "ws_tma_wgmma_multicast"), SB_GEMM_TILE_64X128) == 1u << 8);
  /* 128x96's 12 reduction blocks a tile (a thread a float4 of 12288 floats) */
  CHECK_EQ_INT(sb_gemm_reduce_blocks_per_tile(128 * 96), 12);
  sb_axis_values vals;
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_TILE, "128x96x64", &vals, err, sizeof err), 0);
  CHECK(vals.count == 1 && vals.v[0] == SB_GEMM_TILE_128X96);
  const char *names[] = {"ws_tma_wgmma", "splitk_serial", "splitk_parallel", "splitk_reduce", "splitk_cooperative",
                         "splitk_cluster", "streamk", "ws_tma_wgmma_tma_store",
                         /* compiled; refused: */
                         "ws_tma_wgmma_multicast", "single", "swap", "ring", "ws_mbarrier", "ws_tma",
                         "ws_tma_wgmma_pingpong"};
  check_one_group_tile(SB_GEMM_TILE_128X96, 1152, names, 8, 8, "");
  check_one_group_tile(SB_GEMM_TILE_128X96, 1152, names + 8, 1, 0,
                       "ws_tma_wgmma_multicast has no kernel at a 128x96 tile (compiled: 128x128x64, 128x256x64, 64x128x64)");
  check_one_group_tile(SB_GEMM_TILE_128X96, 1152, names + 9, 6, 0,
                       "has no kernel at a 128x96 tile (compiled: 128x128x64, 128x256x64)");
  const sb_device d = sb_test_hopper();
  char buf[SB_DETAIL_LEN];
  sb_point q = {f, gemm_variant(f, "ws_tma_wgmma"), {0}};
  if (!q.variant) return;
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = 1024, q.axis[SB_AXIS_K] = 8192, q.axis[SB_AXIS_TILE] = SB_GEMM_TILE_128X96;
  q.axis[SB_AXIS_WARPS] = 4, q.axis[SB_AXIS_STAGES] = 7;
  /* 1024 columns are 10.7 tiles of 96: partial tiles, it runs */
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_M] = 1152, q.axis[SB_AXIS_STAGES] = 6;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "is compiled with stages 7 at a 128x96 tile"));
}

/* Which tiles and stages a user's shape gets when --tile or --stages is not
 * given: every tile at its stage counts (partial tiles at the edges), but
 * 128x96 only where it fits whole (1152: 128x128 at 5 and 6, 128x256 at 3
 * and 4, 128x96 at 7; no 64x128 above 1024); a named one-warpgroup tile
 * its one count; a shape no tile fits (1000) the tiles of its size, every
 * row runnable; 7 stages of 128x128 a reason, not a kernel the picker lacks. */
static long gemm_sweep(char **argv, int argc, sb_point **p) {
  char err[256];
  sb_cli c;
  CHECK_EQ_INT(sb_cli_parse(argc, argv, &c, err, sizeof err), 0);
  const long n = sb_sweep_build(&c.sweeps[0].spec, p, err, sizeof err);
  sb_cli_free(&c);
  return n;
}
SB_TEST(gemm_unnamed_tiles_are_those_that_fit_the_shape) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  const sb_device d = sb_test_hopper();
  char buf[SB_DETAIL_LEN];
  sb_point *p;
  char *fits[] = {"syncbench", "--m", "1152", "--k", "8192", "--filter", "^gemm/ws_tma_wgmma/", NULL};
  long n = gemm_sweep(fits, 7, &p);
  int seen = 0;
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    const long long t = p[i].axis[SB_AXIS_TILE], s = p[i].axis[SB_AXIS_STAGES];
    CHECK((t == SB_GEMM_TILE_128X128 && (s == 5 || s == 6)) || (t == SB_GEMM_TILE_128X96 && s == 7) ||
          (t == SB_GEMM_TILE_128X256 && (s == 3 || s == 4)));
    CHECK(f->check(&p[i], &d, buf, sizeof buf) == NULL);
    seen |= t == SB_GEMM_TILE_128X96 ? 1 : t == SB_GEMM_TILE_128X128 ? 2 : 4;
  }
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma"), 5);
  CHECK_EQ_INT(seen, 7);
  free(p);
  char *named[] = {"syncbench", "--m", "1152", "--k", "8192", "--tile", "128x96x64", "--filter",
                   "^gemm/(ws_tma_wgmma|ring)/", NULL};
  n = gemm_sweep(named, 9, &p);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma"), 2); /* its one count, 7, at consumer warps 4 (and 8's row) */
  CHECK_EQ_INT(count_gemm(p, n, "ring"), 2);         /* a row that says why at each warp count, not every stage count */
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    if (!strcmp(p[i].variant->name, "ws_tma_wgmma")) {
      CHECK_EQ_INT(p[i].axis[SB_AXIS_STAGES], 7);
    } else if (p[i].axis[SB_AXIS_WARPS] == 4) {
      CHECK(f->check(&p[i], &d, buf, sizeof buf) != NULL && strstr(buf, "ring has no kernel at a 128x96 tile"));
    }
  }
  free(p);
  char *none[] = {"syncbench", "--m", "1000", "--k", "8192", "--filter", "^gemm/ws_tma_wgmma/", NULL};
  n = gemm_sweep(none, 7, &p);
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma"), 3); /* 64x128 at 8, 128x128 at 5 and 6: 1024^3's */
  for (long i = 0; i < n; ++i)
    if (!strcmp(p[i].family->name, "gemm")) {
      CHECK(f->check(&p[i], &d, buf, sizeof buf) == NULL);
      CHECK(p[i].axis[SB_AXIS_TILE] != SB_GEMM_TILE_128X96 && p[i].axis[SB_AXIS_TILE] != SB_GEMM_TILE_128X256);
    }
  free(p);
  char *seven[] = {"syncbench", "--m", "1024", "--k", "1024", "--stages", "7", "--tile", "128x128x64",
                   "--filter", "^gemm/ring/", NULL};
  n = gemm_sweep(seven, 11, &p);
  CHECK_EQ_INT(count_gemm(p, n, "ring"), 2); /* consumer warps 4 and 8: the 8 has its own reason */
  for (long i = 0; i < n; ++i)
    if (!strcmp(p[i].family->name, "gemm") && p[i].axis[SB_AXIS_WARPS] == 4)
      CHECK(f->check(&p[i], &d, buf, sizeof buf) != NULL &&
            strstr(buf, "stages=7: ring is compiled with stages 2-6 at a 128x128 tile"));
  free(p);
}

SB_TEST(gemm_multicast_points_take_any_tile_count_and_need_sm90) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  const sb_device d = sb_test_hopper(); /* the H100's limits */
  sb_point q = {f, gemm_variant(f, "ws_tma_wgmma_multicast"), {0}};
  CHECK(q.variant != NULL);
  if (!q.variant) return;
  CHECK(q.variant->min_cc == 90 && (q.variant->flags & SB_VF_GEMM_MULTICAST));
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  char buf[SB_DETAIL_LEN];
  /* 128x128, m = 1024: 8 x 8 tiles, even both ways. */
  q.axis[SB_AXIS_M] = 1024, q.axis[SB_AXIS_K] = 1024, q.axis[SB_AXIS_TILE] = 0;
  q.axis[SB_AXIS_STAGES] = 4, q.axis[SB_AXIS_WARPS] = 4;
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X1;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_1X2;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  /* m = 384: 3 x 3 tiles of 128x128, odd both ways: the edge cluster's
   * second tile lies past C (TMA's zeros in, its stores clipped); runs. */
  q.axis[SB_AXIS_M] = 384;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X1;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  /* 128x256, m = 768: 6 tile rows, 3 tile columns; m = 1000: partial tiles. */
  q.axis[SB_AXIS_M] = 768, q.axis[SB_AXIS_TILE] = 1, q.axis[SB_AXIS_WARPS] = 8;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_1X2;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_M] = 1000;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  /* stages outside the compiled list; no cluster shape. */
  q.axis[SB_AXIS_M] = 1024, q.axis[SB_AXIS_STAGES] = 2;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "compiled with stages 3-4") != NULL);
  q.axis[SB_AXIS_TILE] = 0, q.axis[SB_AXIS_WARPS] = 4, q.axis[SB_AXIS_STAGES] = 3;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "stages 4-6") != NULL);
  q.axis[SB_AXIS_STAGES] = 6, q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_AXIS_UNSET;
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "cluster_shape") != NULL);
  /* sm_80: unsupported before any rule or launch. */
  q.axis[SB_AXIS_CLUSTER_SHAPE] = SB_GEMM_CLUSTER_2X1;
  sb_device a100 = d;
  a100.cc_major = 8;
  sb_row row;
  sb_provenance prov;
  memset(&prov, 0, sizeof prov);
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&q, &a100, &row), 1);
  CHECK_EQ_INT(row.status, SB_UNSUPPORTED);
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&q, &d, &row), 0);

  /* Asked for: an odd shape runs; the rows skipped are the warp counts the tile does not have. */
  char err[256];
  char *argv[] = {"syncbench", "--m", "384", "--k", "1024", "--cluster-shape", "2x1,1x2",
                  "--tile", "128x128x64,128x256x64", "--filter", "^gemm/ws_tma_wgmma_multicast/", NULL};
  sb_cli c;
  CHECK_EQ_INT(sb_cli_parse(11, argv, &c, err, sizeof err), 0);
  sb_point *p;
  long n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  long runs = 0;
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    sb_row_init(&row, &prov);
    if (sb_point_precheck(&p[i], &d, &row) == 0) {
      ++runs;
      continue;
    }
    CHECK_EQ_INT(row.status, SB_SKIPPED);
    CHECK(strstr(row.detail, "consumer_warps") != NULL);
  }
  /* 384 = 3 x 128: both tiles (given) at the default grid's stages (128x128: 5, 6; 128x256: 4) x 2 shapes x
   * consumer_warps 4, 8 (the warps rule reads the tile, which is given: its mismatches stay as skipped rows);
   * the 6 rows of each tile's own warp count run, odd tile counts and partial 128x256 tiles alike. */
  CHECK_EQ_INT(count_gemm(p, n, "ws_tma_wgmma_multicast"), 12);
  CHECK_EQ_INT(runs, 6);
  free(p);
  sb_cli_free(&c);
}

/* The split-K schedule: every k-tile of every tile in exactly one slice,
 * slices in order and non-empty, sizes within one of each other. */
SB_TEST(gemm_split_slices_cover_every_k_tile_once) {
  const int kts_list[] = {1, 2, 7, 16, 64, 255, 256, 512};
  for (size_t a = 0; a < sizeof kts_list / sizeof kts_list[0]; ++a) {
    const int kts = kts_list[a];
    for (int splits = 1; splits <= kts && splits <= 64; ++splits) {
      int *owner = malloc((size_t)kts * sizeof *owner);
      for (int i = 0; i < kts; ++i) owner[i] = -1;
      int lo = kts, hi = 0, twice = 0;
      for (int s = 0; s < splits; ++s) {
        const int b = sb_gemm_slice_begin(kts, splits, s), e = sb_gemm_slice_begin(kts, splits, s + 1);
        lo = e - b < lo ? e - b : lo;
        hi = e - b > hi ? e - b : hi;
        for (int kt = b; kt < e; ++kt) twice += owner[kt] >= 0, owner[kt] = s;
      }
      int missing = 0;
      for (int i = 0; i < kts; ++i) missing += owner[i] < 0;
      CHECK_EQ_INT(twice, 0);
      CHECK_EQ_INT(missing, 0);
      CHECK(lo >= 1 && hi - lo <= 1);
      CHECK_EQ_INT(sb_gemm_slice_begin(kts, splits, 0), 0);
      CHECK_EQ_INT(sb_gemm_slice_begin(kts, splits, splits), kts);
      free(owner);
    }
  }
}

/* splits=auto's cost model (gemm_schedule_math.h; scripts/fit_auto_splits.py fits
 * its constants, tests/py/test_splits_auto.py checks it against the H100
 * data): exact counts at named shapes, and what holds at any input. */
static int auto_splits(long long m, long long k, int tile, int sms) {
  const int tiles = (int)((m / sb_gemm_tile_bm(tile)) * (m / sb_gemm_tile_bn(tile)));
  return sb_gemm_auto_splits(tiles, (int)(k / SB_GEMM_BK), sms);
}

SB_TEST(gemm_auto_splits_at_named_shapes) {
  /* H100 (132 SMs). 1152^2, 81 tiles of 128x128: 3 slices (243 blocks, two
   * nearly full waves) at every K the data has; 2 walks as far as 1 (two
   * waves of half slices), 4 takes three waves. */
  for (long long k = 8192; k <= 65536; k *= 2) CHECK_EQ_INT(auto_splits(1152, k, 0, 132), 3);
  /* The default sweep's K-heavy shapes keep their measured counts:
   * 1024x1024x16384, 64 tiles -> 2, 32 tiles of 128x256 -> 4;
   * 512x512x32768, 16 tiles -> 8, 8 tiles of 128x256 -> 16. */
  CHECK_EQ_INT(auto_splits(1024, 16384, 0, 132), 2);
  CHECK_EQ_INT(auto_splits(1024, 16384, 1, 132), 4);
  CHECK_EQ_INT(auto_splits(512, 32768, 0, 132), 8);
  CHECK_EQ_INT(auto_splits(512, 32768, 1, 132), 16);
  /* One tile: the slice caps bind (8k: 128 k-tiles / 8 = 16; then 32). */
  CHECK_EQ_INT(auto_splits(128, 8192, 0, 132), 16);
  CHECK_EQ_INT(auto_splits(128, 16384, 0, 132), 32);
  CHECK_EQ_INT(auto_splits(128, 65536, 0, 132), 32);
  /* Four tiles: 13 at 8k (the partials of 16 cost more than its shorter
   * slices save), 24 at 64k; two of 128x256 at 8k: 16 (the cap). */
  CHECK_EQ_INT(auto_splits(256, 8192, 0, 132), 13);
  CHECK_EQ_INT(auto_splits(256, 65536, 0, 132), 24);
  CHECK_EQ_INT(auto_splits(256, 8192, 1, 132), 16);
  /* 9 tiles: 8 at 8k, 14 (126 blocks) at 64k; 25 tiles: 4 at 8k, 5 (125
   * blocks) at 64k. */
  CHECK_EQ_INT(auto_splits(384, 8192, 0, 132), 8);
  CHECK_EQ_INT(auto_splits(384, 65536, 0, 132), 14);
  CHECK_EQ_INT(auto_splits(640, 8192, 0, 132), 4);
  CHECK_EQ_INT(auto_splits(640, 65536, 0, 132), 5);
  /* Short K: at least 8 k-tiles a slice; under 16 k-tiles no split. */
  CHECK_EQ_INT(auto_splits(256, 1024, 0, 132), 2);
  CHECK_EQ_INT(auto_splits(256, 960, 0, 132), 1);
  CHECK_EQ_INT(auto_splits(128, 64, 0, 132), 1);
  CHECK_EQ_INT(auto_splits(1024, 4096, 1, 132), 3); /* 32 tiles, 64 k-tiles: 96 blocks */
  /* Whole waves of tiles: no split; one tile past a wave: 6 slices (798
   * blocks) against two waves of which the second runs one block. */
  CHECK_EQ_INT(auto_splits(2048, 2048, 0, 132), 1); /* 256 tiles */
  CHECK_EQ_INT(sb_gemm_auto_splits(132, 1024, 132), 1);
  CHECK_EQ_INT(sb_gemm_auto_splits(264, 1024, 132), 1);
  CHECK_EQ_INT(sb_gemm_auto_splits(133, 1024, 132), 6);
  CHECK_EQ_INT(sb_gemm_auto_splits(66, 1024, 132), 2);
  /* A100 (108 SMs): 64 tiles -> 3 (192 blocks, 1.8 waves: 1152^2's case on
   * an H100), 32 of 128x256 -> 3. */
  CHECK_EQ_INT(auto_splits(1024, 16384, 0, 108), 3);
  CHECK_EQ_INT(auto_splits(1024, 16384, 1, 108), 3);
  CHECK_EQ_INT(auto_splits(512, 32768, 0, 108), 6);
  CHECK_EQ_INT(auto_splits(256, 8192, 0, 108), 10);
  CHECK_EQ_INT(auto_splits(1152, 65536, 0, 108), 4);
  /* 78 SMs: 64 tiles would take two waves with 2 -> 1. */
  CHECK_EQ_INT(auto_splits(1024, 16384, 0, 78), 1);
  CHECK_EQ_INT(auto_splits(512, 32768, 0, 78), 4);
  CHECK_EQ_INT(auto_splits(1152, 65536, 0, 78), 5);
  /* Degenerate inputs. */
  CHECK_EQ_INT(sb_gemm_auto_splits(0, 1024, 132), 1);
  CHECK_EQ_INT(sb_gemm_auto_splits(4, 0, 132), 1);
  CHECK_EQ_INT(sb_gemm_auto_splits(4, 1024, 0), 1);
}

SB_TEST(gemm_auto_splits_are_the_model_argmin_within_the_caps) {
  /* Whatever the inputs: s in [1, cap] (so within gemm_reason's
   * splits <= k / 64); the lowest estimate, the smallest s of a tie; one
   * SM, or whole waves of tiles, never split; and a split always shortens
   * what each SM walks: waves(s) ceil(kts / s) < waves(1) kts (its
   * partials cost something, so only a shorter walk pays for them). */
  const int sms_list[] = {1, 8, 78, 108, 132, 144};
  for (size_t a = 0; a < sizeof sms_list / sizeof sms_list[0]; ++a)
    for (int tiles = 1; tiles <= 300; tiles += 7)
      for (int kts = 1; kts <= 4096; kts = kts * 3 / 2 + 1) {
        const int sms = sms_list[a], s = sb_gemm_auto_splits(tiles, kts, sms);
        int cap = kts / SB_GEMM_AUTO_MIN_SLICE_KTS;
        if (cap > SB_GEMM_AUTO_MAX_SPLITS) cap = SB_GEMM_AUTO_MAX_SPLITS;
        if (cap < 1) cap = 1;
        CHECK(s >= 1 && s <= cap && s <= kts);
        const unsigned long long c = sb_gemm_auto_cost(tiles, kts, sms, s);
        for (int t = 1; t <= cap; ++t) {
          const unsigned long long ct = sb_gemm_auto_cost(tiles, kts, sms, t);
          CHECK(t < s ? ct > c : ct >= c);
        }
        if (sms == 1 || tiles % sms == 0) CHECK_EQ_INT(s, 1);
        if (s > 1) {
          const long long waves1 = (tiles + sms - 1) / sms, waves = ((long long)tiles * s + sms - 1) / sms;
          CHECK(waves * ((kts + s - 1) / s) < waves1 * kts);
        }
      }
}

/* splitk_cluster's cut (gemm_schedule_math.h): C CTAs a cluster, the largest power
 * of two up to 8 dividing splits; its own splits=auto. */
SB_TEST(gemm_cluster_split_cut_and_its_auto) {
  const int ctas[][2] = {{1, 1}, {2, 2}, {3, 1}, {4, 4}, {6, 2}, {8, 8}, {12, 4}, {16, 8}, {24, 8}, {40, 8}, {128, 8}};
  for (size_t i = 0; i < sizeof ctas / sizeof ctas[0]; ++i) CHECK_EQ_INT(sb_gemm_cluster_ctas(ctas[i][0]), ctas[i][1]);
  for (int s = 1; s <= 256; ++s) {
    const int c = sb_gemm_cluster_ctas(s);
    CHECK(c >= 1 && c <= SB_GEMM_CLUSTER_MAX_CTAS && (c & (c - 1)) == 0 && s % c == 0);
    CHECK(c == SB_GEMM_CLUSTER_MAX_CTAS || (s / c) % 2 == 1); /* no larger cluster would divide it */
  }
  /* splits=auto: the memory model's count rounded down to a power of two,
   * where the clusters fit as SMs / C do (NULL: what the device holds is
   * not known). */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(1, 8192 / 64, 132, NULL), 16);
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(1, 65536 / 64, 132, NULL), 32);
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(4, 8192 / 64, 132, NULL), 8);   /* the model's 13 */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(9, 65536 / 64, 132, NULL), 8);  /* 384^2: 14 */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(81, 8192 / 64, 132, NULL), 1);  /* 1152^2: 3, and 81 blocks fit one wave */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(64, 16384 / 64, 132, NULL), 2); /* 1024 x 1024 x 16384 */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(16, 32768 / 64, 132, NULL), 8); /* 512^2 x 32k: 16 clusters of 8 */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(1024, 4096 / 64, 132, NULL), 1);
  /* An H200's clusters at one block an SM (66 of 2, 30 of 4, 15 of 8): at
   * 512^2 x 32k the 16 clusters of 8 take two waves, 16 of 4 one. */
  const int h200[SB_GEMM_CLUSTER_MAX_CTAS + 1] = {[2] = 66, [4] = 30, [8] = 15};
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(16, 32768 / 64, 132, h200), 4);
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(64, 16384 / 64, 132, h200), 2); /* 64 clusters of 2: one wave */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(9, 65536 / 64, 132, h200), 8);  /* 9 clusters of 8 */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(81, 8192 / 64, 132, h200), 1);  /* 162 blocks two waves, 81 one */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(36, 65536 / 64, 132, h200), 2); /* 768^2 x 64k: 7, 144 blocks; 72 one wave */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(144, 131072 / 64, 132, h200), 4); /* 1536^2 x 128k: many waves either way */
  CHECK_EQ_INT(sb_gemm_cluster_auto_splits(1, 65536 / 64, 132, h200), 32);
  const int none[SB_GEMM_CLUSTER_MAX_CTAS + 1] = {0}; /* a failed query: as NULL */
  for (int tiles = 1; tiles <= 200; tiles += 11)
    for (int kts = 1; kts <= 2048; kts = kts * 3 / 2 + 1) {
      const int s = sb_gemm_cluster_auto_splits(tiles, kts, 132, NULL), m = sb_gemm_auto_splits(tiles, kts, 132);
      CHECK(s >= 1 && (s & (s - 1)) == 0 && s <= m);
      /* The largest power of two up to the model's count, but where half would fit one wave and it does not. */
      CHECK(2 * s > m || (tiles * 2 * s > 132 && tiles * s <= 132));
      CHECK_EQ_INT(sb_gemm_cluster_auto_splits(tiles, kts, 132, none), s);
      /* Never more slices than without the clusters' limit, and whole waves of them no more than of blocks. */
      const int h = sb_gemm_cluster_auto_splits(tiles, kts, 132, h200), c = sb_gemm_cluster_ctas(h);
      const int fit = c > 1 ? h200[c] : 132;
      CHECK(h >= 1 && h <= s && (h & (h - 1)) == 0);
      CHECK(h == 1 || (tiles * h / c + fit - 1) / fit <= (tiles * h + 131) / 132);
      CHECK(h == 1 || tiles * h <= 132 || tiles * h / 2 > 132); /* no two waves where half the slices take one */
    }
}

/* The default sweep runs no grouped reduction: its smallest output (512^2)
 * has 256 one-group blocks a reduction at every tile, so every default
 * point keeps one group and splits=auto's count (132 SMs, the H100's, and
 * the H200's). */
SB_TEST(gemm_default_sweep_keeps_one_group) {
  const int ms[] = {512, 1024, 2048, 4096, 8192}, ks[] = {1024, 2048, 4096, 8192, 16384, 32768};
  const int bm[] = {64, 128, 128}, bn[] = {128, 128, 256};
  for (size_t t = 0; t < 3; ++t)
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; ++i)
      for (size_t j = 0; j < sizeof ks / sizeof ks[0]; ++j) {
        const int tiles = (ms[i] / bm[t]) * (ms[i] / bn[t]), bpt = sb_gemm_reduce_blocks_per_tile(bm[t] * bn[t]);
        const int kts = ks[j] / SB_GEMM_BK;
        for (int s = 1; s <= 64; ++s) CHECK_EQ_INT(sb_gemm_reduce_groups((long long)tiles * bpt, s, 132), 1);
        CHECK_EQ_INT(sb_gemm_reduce_auto_splits(tiles, kts, 132, bpt), sb_gemm_auto_splits(tiles, kts, 132));
      }
}

/* The one-group reduction's width: at the default sweep's split points
 * (512^2 x 32k, 1024^2 x 16k; 64x128 and 128x128 tiles) with the wide
 * kernel's 4 blocks an SM (64 registers) on 132 SMs, the narrow kernel
 * runs exactly at 1024^2 (1024 blocks), the wide one at 512^2 (256). */
SB_TEST(gemm_reduce_width_at_the_default_split_points) {
  const int bm[] = {64, 128}, bn[] = {128, 128};
  for (size_t t = 0; t < 2; ++t) {
    const long long bpt = sb_gemm_reduce_blocks_per_tile(bm[t] * bn[t]);
    CHECK_EQ_INT(sb_gemm_reduce_narrow((512 / bm[t]) * (512 / bn[t]) * bpt, 4, 132), 0);
    CHECK_EQ_INT(sb_gemm_reduce_narrow((1024 / bm[t]) * (1024 / bn[t]) * bpt, 4, 132), 1);
  }
  CHECK_EQ_INT(sb_gemm_reduce_narrow(528, 4, 132), 0); /* one wave exactly */
  CHECK_EQ_INT(sb_gemm_reduce_narrow(529, 4, 132), 1);
  CHECK_EQ_INT(sb_gemm_reduce_narrow(2, 1, 1), 1);     /* occupancy unknown (1): narrow past one block an SM */
  CHECK_EQ_INT(sb_gemm_reduce_narrow(144, 4, 132), 0); /* 384^2 at 64x128: 18 tiles x 8 */
}

/* splitk_reduce's reduction (gemm_schedule_math.h): 8 slice groups (at
 * most the slices, a power of two) where 8 times the one-group grid fits in
 * one wave, else 1; and its splits=auto, the model with the combining term
 * shared by the groups. */
SB_TEST(gemm_reduce_groups_and_their_auto) {
  CHECK_EQ_INT(sb_gemm_reduce_groups(16, 16, 132), 8);   /* 128^2 at 64x128: 16 blocks -> 128 */
  CHECK_EQ_INT(sb_gemm_reduce_groups(16, 2, 132), 2);    /* no more groups than slices */
  CHECK_EQ_INT(sb_gemm_reduce_groups(16, 3, 132), 2);    /* a power of two */
  CHECK_EQ_INT(sb_gemm_reduce_groups(17, 16, 132), 1);   /* 136 blocks: two waves */
  CHECK_EQ_INT(sb_gemm_reduce_groups(64, 12, 132), 1);   /* 256^2: measured slower with 2 or 4 */
  CHECK_EQ_INT(sb_gemm_reduce_groups(1296, 3, 132), 1);  /* 1152^2 at 128x128 */
  CHECK_EQ_INT(sb_gemm_reduce_groups(1, 1, 132), 1);     /* one slice: nothing to share */
  for (long long blocks = 1; blocks <= 300; blocks += 7)
    for (int splits = 1; splits <= 64; ++splits) {
      const int g = sb_gemm_reduce_groups(blocks, splits, 132);
      CHECK(g >= 1 && g <= SB_GEMM_REDUCE_MAX_GROUPS && (g & (g - 1)) == 0 && g <= splits);
      CHECK(g == 1 || blocks * SB_GEMM_REDUCE_MAX_GROUPS <= 132); /* one wave at the most groups */
      CHECK(g == 1 || 2 * g > splits || g == SB_GEMM_REDUCE_MAX_GROUPS);
    }
  /* blocks a tile: 64x128 8, 128x128 16, 128x256 32 (BM BN / 1024) */
  CHECK_EQ_INT(sb_gemm_reduce_auto_splits(2, 16384 / 64, 132, 8), 32);  /* the plain model: 26 */
  CHECK_EQ_INT(sb_gemm_auto_splits(2, 16384 / 64, 132), 26);
  CHECK_EQ_INT(sb_gemm_reduce_auto_splits(2, 65536 / 64, 132, 8), 32);
  CHECK_EQ_INT(sb_gemm_reduce_auto_splits(1, 16384 / 64, 132, 16), 32); /* 128^2 at 128x128 */
  /* where the reduction runs one group, the plain model's count */
  for (int tiles = 1; tiles <= 200; tiles += 3)
    for (int kts = 1; kts <= 2048; kts = kts * 3 / 2 + 1)
      for (int bpt = 8; bpt <= 32; bpt *= 2) {
        const int s = sb_gemm_reduce_auto_splits(tiles, kts, 132, bpt);
        CHECK(s >= 1 && (s == 1 || s <= kts / SB_GEMM_AUTO_MIN_SLICE_KTS) && s <= SB_GEMM_AUTO_MAX_SPLITS);
        if ((long long)tiles * bpt * SB_GEMM_REDUCE_MAX_GROUPS > 132)
          CHECK_EQ_INT(s, sb_gemm_auto_splits(tiles, kts, 132));
        else
          CHECK(s >= sb_gemm_auto_splits(tiles, kts, 132)); /* a cheaper combining: never fewer slices */
      }
}

/* The cut a splitk_cluster row ran is in its detail (gemm_derive, from
 * splits_used: no GPU needed, the epilogue profile is not armed). */
SB_TEST(gemm_cluster_rows_say_their_cut) {
  const sb_family *f = sb_find_family("gemm");
  CHECK(f != NULL);
  if (!f) return;
  const sb_device d = sb_test_hopper();
  sb_point p = {f, gemm_variant(f, "splitk_cluster"), {0}};
  CHECK(p.variant && (p.variant->flags & SB_VF_GEMM_DSMEM));
  if (!p.variant) return;
  p.axis[SB_AXIS_M] = p.axis[SB_AXIS_N] = 128;
  p.axis[SB_AXIS_K] = 8192;
  p.axis[SB_AXIS_TILE] = 0;
  p.axis[SB_AXIS_STAGES] = 6;
  const int splits[] = {8, 16, 24, 12, 3};
  const char *want[] = {"8 slices a tile: one cluster of 8, summed in shared memory",
                        "16 slices a tile: 2 clusters of 8, summed in shared memory, then through the workspace",
                        "24 slices a tile: 3 clusters of 8", "12 slices a tile: 3 clusters of 4",
                        "3 slices a tile: 3 clusters of 1"};
  for (int i = 0; i < 5; ++i) {
    sb_row r;
    sb_row_init(&r, &d.prov);
    r.splits_used = splits[i];
    CHECK_EQ_INT(f->derive(&p, &d, NULL, &r), 0);
    CHECK(strstr(r.detail, want[i]) == r.detail);
  }
  /* splitk_reduce's rows carry no such line */
  sb_point q = {f, gemm_variant(f, "splitk_reduce"), {0}};
  memcpy(q.axis, p.axis, sizeof q.axis);
  sb_row r;
  sb_row_init(&r, &d.prov);
  r.splits_used = 16;
  CHECK_EQ_INT(f->derive(&q, &d, NULL, &r), 0);
  CHECK(strstr(r.detail, "clusters") == NULL);
}

SB_TEST(gemm_cooperative_auto_splits_stay_in_one_wave) {
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(1, 8192 / 64, 132), 16);
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(1, 65536 / 64, 132), 64);
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(4, 8192 / 64, 132), 16);
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(4, 16384 / 64, 132), 32);
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(81, 65536 / 64, 132), 1); /* 1152^2: 2 slices would not be resident */
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(64, 16384 / 64, 132), 2);
  CHECK_EQ_INT(sb_gemm_coop_auto_splits(0, 128, 132), 1);
  for (int tiles = 1; tiles <= 300; tiles += 13)
    for (int kts = 1; kts <= 4096; kts = kts * 3 / 2 + 1) {
      const int s = sb_gemm_coop_auto_splits(tiles, kts, 132);
      CHECK(s >= 1 && s <= kts && s <= SB_GEMM_COOP_AUTO_MAX_SPLITS);
      CHECK(s == 1 || tiles * s <= 132);
      CHECK(s == 1 || s <= kts / SB_GEMM_AUTO_MIN_SLICE_KTS);
      /* the walk never gets longer with a chosen split */
      CHECK(sb_gemm_auto_walk(tiles, kts, 132, s) <= sb_gemm_auto_walk(tiles, kts, 132, 1));
    }
}

SB_TEST(gemm_split_points_need_a_k_tile_per_slice_and_their_stages) {
  const sb_family *f = sb_find_family("gemm");
  if (!f) return;
  const sb_device d = sb_test_hopper(); /* the H100's limits */
  sb_point q = {f, gemm_variant(f, "splitk_serial"), {0}};
  CHECK(q.variant != NULL);
  if (!q.variant) return;
  for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
  q.axis[SB_AXIS_M] = 1024, q.axis[SB_AXIS_K] = 256, q.axis[SB_AXIS_TILE] = 0;
  q.axis[SB_AXIS_STAGES] = __builtin_ctz(compiled_stages(q.variant, 0)), q.axis[SB_AXIS_WARPS] = 4;
  q.axis[SB_AXIS_SPLITS] = 4; /* 4 k-tiles, 4 slices: fine */
  char buf[SB_DETAIL_LEN];
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_SPLITS] = 5; /* a slice with no k-tile */
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "splits=5") != NULL);
  q.axis[SB_AXIS_SPLITS] = 4, q.axis[SB_AXIS_STAGES] = 3; /* not compiled */
  CHECK(f->check(&q, &d, buf, sizeof buf) != NULL && strstr(buf, "compiled with") != NULL);
  /* auto: the policy keeps every slice a k-tile, at any K the tiles take. */
  q.axis[SB_AXIS_STAGES] = __builtin_ctz(compiled_stages(q.variant, 0)), q.axis[SB_AXIS_SPLITS] = SB_AXIS_AUTO;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
  q.axis[SB_AXIS_K] = 64;
  CHECK(f->check(&q, &d, buf, sizeof buf) == NULL);
}

/* splits=auto is its own point (the A/B protocol keys on names): beside
 * explicit 8 in the sweep, named splits=auto, and the default sweep has it
 * at both K-heavy shapes and both tiles. */
SB_TEST(gemm_auto_splits_is_a_point_of_its_own) {
  char err[256];
  sb_cli c;
  char *argv[] = {"syncbench", "--splits", "auto,8", "--m", "1k", "--k", "16k", "--filter",
                  "^gemm/splitk_parallel/", NULL};
  CHECK_EQ_INT(sb_cli_parse(9, argv, &c, err, sizeof err), 0);
  sb_point *p;
  long n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  CHECK_EQ_INT(count_gemm(p, n, "splitk_parallel"), 4); /* 2 tiles x (auto, 8) */
  int autos = 0, eights = 0;
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "gemm")) continue;
    char name[512];
    sb_point_name(&p[i], name, sizeof name);
    autos += strstr(name, "/splits=auto") != NULL;
    eights += strstr(name, "/splits=8") != NULL;
  }
  CHECK_EQ_INT(autos, 2);
  CHECK_EQ_INT(eights, 2);
  free(p);
  sb_cli_free(&c);
  sb_sweep_spec spec = {0};
  n = sb_sweep_build(&spec, &p, err, sizeof err);
  autos = 0;
  for (long i = 0; i < n; ++i)
    autos += !strcmp(p[i].family->name, "gemm") && p[i].axis[SB_AXIS_SPLITS] == SB_AXIS_AUTO;
  const sb_family *f = sb_find_family("gemm");
  int split_variants = 0;
  for (int v = 0; f && v < f->variants->count; ++v)
    split_variants += (f->variants->rows[v].flags & (SB_VF_GEMM_SPLIT | SB_VF_TEST_ONLY)) == SB_VF_GEMM_SPLIT;
  CHECK(split_variants >= 2);
  CHECK_EQ_INT(autos, split_variants * 4); /* x 2 K-heavy shapes x 2 tiles */
  free(p);
}

/* The stream-K schedule, simulated as the kernel walks it: every MAC
 * iteration of every tile done exactly once; every split tile has exactly
 * one owner (the piece at k = 0), which is its block's last stream-K piece;
 * a block contributes at most one partial (its first piece); and the
 * owner's scan of blocks b+1.. finds exactly the tile's contributors. */
static void check_streamk(int tiles, int kts, int grid) {
  const int sk = sb_gemm_sk_tiles(tiles, grid);
  CHECK(sk >= 0 && sk <= tiles && (sk == 0 || (tiles - sk) % grid == 0)); /* DP-only may end in a partial wave */
  const int sk_iters = sk * kts, sk_grid = sb_gemm_sk_grid(tiles, grid);
  CHECK(sk_grid >= 1 && sk_grid <= grid && (tiles >= grid || sk_grid % tiles == 0));
  int *done = calloc((size_t)tiles * kts, sizeof *done);
  int *owners = calloc((size_t)tiles, sizeof *owners), *parts = calloc((size_t)tiles, sizeof *parts);
  int *found = calloc((size_t)tiles, sizeof *found);
  int *saved = calloc((size_t)tiles * 2 * grid, sizeof *saved); /* [tile][slot] */
  for (int b = 0; b < grid; ++b) {
    const int it0 = sb_gemm_sk_begin(sk_iters, sk_grid, b), it1 = sb_gemm_sk_begin(sk_iters, sk_grid, b + 1);
    int piece = 0, contributed = 0;
    for (int it = it0; it < it1; ++piece) {
      const int tile = (int)(it / kts), k0 = (int)(it % kts);
      const int k1 = (int)(k0 + (it1 - it) < kts ? k0 + (it1 - it) : kts);
      for (int k = k0; k < k1; ++k) done[(size_t)tile * kts + k]++;
      it += k1 - k0;
      if (k0 != 0) {
        CHECK_EQ_INT(piece, 0);
        contributed++, parts[tile]++;
      } else if (k1 != kts) {
        CHECK(it == it1); /* the owner piece is the block's last */
        owners[tile]++;
        const int tile_end = (tile + 1) * kts;
        for (int c = b + 1; c < sk_grid && sb_gemm_sk_begin(sk_iters, sk_grid, c) < tile_end; ++c)
          found[tile] += sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) != sb_gemm_sk_begin(sk_iters, sk_grid, c);
      }
    }
    CHECK(contributed <= 1);
    /* The separate reduction: each split piece's slot, seen from its tile. */
    for (int it = it0; it < it1;) {
      const int tile = (int)(it / kts), k0 = (int)(it % kts);
      const int k1 = (int)(k0 + (it1 - it) < kts ? k0 + (it1 - it) : kts);
      if (k0 != 0 || k1 != kts) saved[tile * 2 * grid + sb_gemm_sk_slot(b, k0 != 0)]++;
      it += k1 - k0;
    }
    for (int t = sk + b; t < tiles; t += grid)
      for (int k = 0; k < kts; ++k) done[(size_t)t * kts + k]++;
  }
  long bad = 0;
  for (long long i = 0; i < (long long)tiles * kts; ++i) bad += done[i] != 1;
  CHECK_EQ_INT(bad, 0);
  for (int t = 0; t < tiles; ++t) {
    CHECK(owners[t] == (parts[t] > 0)); /* a split tile has one owner; a whole one none */
    CHECK_EQ_INT(found[t], parts[t]);
  }
  /* The reduction kernel's enumeration of a tile (first block, slots) reads
   * exactly the slots the blocks saved, and none for a whole tile; the
   * blocks per tile it meets are sb_gemm_sk_units_per_tile's count. */
  int most = sk ? 0 : 1;
  for (int t = 0; t < sk; ++t) {
    const int lo = t * kts, hi = lo + kts, c = sb_gemm_sk_first_block(sk_iters, sk_grid, lo);
    CHECK(sb_gemm_sk_begin(sk_iters, sk_grid, c) <= lo && sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) > lo);
    int *want = calloc((size_t)2 * grid, sizeof *want), n = 0;
    if (sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) < hi)
      for (int d = c; d < sk_grid && sb_gemm_sk_begin(sk_iters, sk_grid, d) < hi; ++d) {
        const int b0 = sb_gemm_sk_begin(sk_iters, sk_grid, d);
        if (sb_gemm_sk_begin(sk_iters, sk_grid, d + 1) > b0) want[sb_gemm_sk_slot(d, b0 > lo)]++, ++n;
      }
    else
      n = 1;
    for (int sl = 0; sl < 2 * grid; ++sl) CHECK_EQ_INT(want[sl], saved[t * 2 * grid + sl]);
    if (n > most) most = n;
    free(want);
  }
  CHECK_EQ_INT(sb_gemm_sk_units_per_tile(tiles, kts, grid), most);
  free(done), free(owners), free(parts), free(found), free(saved);
}

/* gemm_sk_block (kernels/gemm/gemm_schedulers.cuh): where fewer tiles than
 * blocks, block b = tile g + piece (the tile from blockIdx, the piece from
 * the tile's ticket). That holds only if the schedule cuts every tile in g
 * pieces of its own: blocks t g .. t g + g - 1 cover exactly tile t's
 * k-tiles, none empty, and the blocks past sk_grid nothing. */
SB_TEST(gemm_streamk_pieces_of_a_tile_are_its_g_blocks_when_tiles_are_fewer_than_blocks) {
  const int grids[] = {66, 114, 128, 132, 264};
  const int kts_list[] = {1, 2, 3, 16, 64, 255, 256, 2048};
  for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi)
    for (int tiles = 1; tiles < grids[gi]; ++tiles)
      for (size_t ki = 0; ki < sizeof kts_list / sizeof kts_list[0]; ++ki) {
        const int grid = grids[gi], kts = kts_list[ki];
        CHECK_EQ_INT(sb_gemm_sk_tiles(tiles, grid), tiles);
        const int sk_grid = sb_gemm_sk_grid(tiles, grid), g = sk_grid / tiles, iters = tiles * kts;
        CHECK_EQ_INT(sk_grid % tiles, 0);
        CHECK(sk_grid <= grid);
        for (int t = 0; t < tiles; ++t) {
          CHECK_EQ_INT(sb_gemm_sk_begin(iters, sk_grid, t * g), t * kts);
          CHECK_EQ_INT(sb_gemm_sk_begin(iters, sk_grid, t * g + g), (t + 1) * kts);
          for (int piece = 0; piece < g && g <= kts; ++piece)
            CHECK(sb_gemm_sk_begin(iters, sk_grid, t * g + piece + 1) > sb_gemm_sk_begin(iters, sk_grid, t * g + piece));
        }
        for (int b = sk_grid; b <= grid; ++b) CHECK_EQ_INT(sb_gemm_sk_begin(iters, sk_grid, b), iters);
      }
}

SB_TEST(gemm_streamk_schedule_does_every_iteration_once_and_fixes_up_every_split_tile) {
  /* 1024x16384, 4096^3, 8192^3 on 132 blocks (both tiles: 1 block/SM at
   * their stages), odd tile counts, tiny shapes with more blocks than
   * iterations. */
  const int cases[][3] = {{64, 256, 132}, {32, 256, 132}, {1024, 64, 132}, {512, 64, 132},
                          {4096, 128, 132}, {2048, 128, 132}, {16, 512, 132}, {2, 16, 264},
                          {1, 1, 3}, {264, 7, 264}, {265, 7, 264}, {527, 3, 264}, {100, 3, 132},
                          {50, 5, 132}, {140, 9, 132}, {81, 128, 132}, {81, 1024, 132}, {67, 7, 132}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_streamk(cases[i][0], cases[i][1], cases[i][2]);
  CHECK_EQ_INT(sb_gemm_sk_tiles(64, 132), 64);  /* fewer tiles than blocks: all stream-K, */
  CHECK_EQ_INT(sb_gemm_sk_grid(64, 132), 128);  /* over 2 blocks a tile */
  CHECK_EQ_INT(sb_gemm_sk_tiles(264, 132), 0);  /* whole waves: all data-parallel */
  CHECK_EQ_INT(sb_gemm_sk_tiles(512, 132), 0);  /* 4096^3, 128x256: the last wave 116/132 full: DP */
  CHECK_EQ_INT(sb_gemm_sk_tiles(4096, 132), 4 + 132); /* 8192^3, 128x128: 4 left over: DP + SK */
  CHECK_EQ_INT(sb_gemm_sk_grid(4096, 132), 132);
  /* The combining: 2 x 2 tiles on 132 blocks are fed by 33 blocks each
   * (separate reduction); 1024 x 16384 (64 tiles) by 2 (in-kernel fix-up). */
  CHECK_EQ_INT(sb_gemm_sk_units_per_tile(4, 128, 132), 33);
  CHECK(sb_gemm_sk_separate(4, 128, 132));
  CHECK_EQ_INT(sb_gemm_sk_units_per_tile(64, 256, 132), 2);
  CHECK(!sb_gemm_sk_separate(64, 256, 132));
  CHECK_EQ_INT(sb_gemm_sk_units_per_tile(512, 64, 132), 1); /* all data-parallel */
  CHECK_EQ_INT(sb_gemm_sk_grid(81, 132), 81); /* 1152^2, 128x128: a tile a block (spreading measured worse) */
  CHECK_EQ_INT(sb_gemm_sk_units_per_tile(81, 128, 132), 1);
  /* Nothing split: the launcher runs a block per tile (a grid of tiles,
   * whose own schedule is all data-parallel again) instead of the
   * persistent grid: 4096^3 and 2048^3 at 128x256, 1152^2 at 128x128, and
   * 8192^3 at 128x256 (2048 tiles, 68 left over: DP); not where a tile is
   * cut: 1024 x 16384 (64 tiles, 2 blocks each), 8192^3 at 128x128 (DP +
   * SK), a 2 x 2-tile output. */
  CHECK(sb_gemm_sk_data_parallel(512, 64, 132) && sb_gemm_sk_data_parallel(128, 32, 132));
  CHECK(sb_gemm_sk_data_parallel(81, 128, 132) && sb_gemm_sk_data_parallel(2048, 128, 132));
  CHECK(!sb_gemm_sk_data_parallel(64, 256, 132) && !sb_gemm_sk_data_parallel(4096, 128, 132));
  CHECK(!sb_gemm_sk_data_parallel(4, 128, 132));
  /* fewer tiles than blocks, but one slice a tile is splits=auto's answer:
   * 1024^3 (64 tiles of 128x128, 16 k-tiles each) runs data-parallel; 512 x
   * 512 x 32768 (16 tiles, auto 8) and 1024 x 16384 (auto 2) are cut */
  CHECK_EQ_INT(sb_gemm_sk_units_per_tile(64, 16, 132), 2);
  CHECK(sb_gemm_auto_splits(64, 16, 132) == 1 && sb_gemm_sk_data_parallel(64, 16, 132));
  CHECK(!sb_gemm_sk_data_parallel(16, 512, 132) && !sb_gemm_sk_data_parallel(64, 256, 132));
  for (int tiles = 1; tiles <= 600; ++tiles) /* the launched grid of tiles schedules all of them data-parallel */
    if (sb_gemm_sk_data_parallel(tiles, 64, 132)) CHECK_EQ_INT(sb_gemm_sk_tiles(tiles, tiles), 0);
}

/* The host's query of what is compiled (sb_gemm_compiled) is the kernels'
 * table, not a copy of it: for every kernel variant, tile, warp count,
 * stage count and cluster shape, the picker names a kernel exactly where
 * the query says it is compiled, and the host's rules (gemm_reason, at a
 * shape that breaks no other rule) refuse exactly the others, with the
 * query's lists. Also the documented facts: single 1 stage, swap 2, the
 * cut-K schedules one count a tile, ping-pong 128x128 only at 8 warps, the
 * clusters 2x1 and 1x2 for the multicast mainloop only, and 2x2, 4x2, 2x4
 * for ws_tma_wgmma_multicast's 64x128 tile only (experimental build). */
SB_TEST(gemm_host_query_of_compiled_configs_matches_the_pickers) {
  const sb_family *f = sb_find_family("gemm");
  CHECK(f != NULL);
  if (!f) return;
  const sb_device d = sb_test_hopper();
  long kernels = 0;
  for (int v = 0; v < f->variants->count; ++v) {
    const sb_variant *var = &f->variants->rows[v];
    if (var->flags & SB_VF_NO_KERNEL) continue;
    int tiles = 0;
    for (int t = 0; t < SB_GEMM_NUM_TILES; ++t) {
      sb_gemm_compiled_info c;
      tiles += sb_gemm_compiled(var, t, &c);
      const int multicast = !strcmp(var->composition.mainloop, "tma_multicast");
      CHECK_EQ_INT(c.clusters != 0, multicast && c.warps != 0);
      if (c.warps && (var->flags & SB_VF_GEMM_ONE_STAGE)) CHECK_EQ_INT(c.stages, 1u << 1);
      if (c.warps && (var->flags & SB_VF_GEMM_TWO_STAGES)) CHECK_EQ_INT(c.stages, 1u << 2);
      if (c.warps && (var->flags & (SB_VF_GEMM_SPLIT | SB_VF_GEMM_STREAMK))) CHECK_EQ_INT(popcount(c.stages), 1);
      if (var->flags & SB_VF_GEMM_PINGPONG) CHECK_EQ_INT(c.warps, t == SB_GEMM_TILE_128X128 ? 8 : 0);
      /* the clusters: 2x1 and 1x2 wherever the multicast mainloop is
       * compiled; 2x2, 4x2 and 2x4 at ws_tma_wgmma_multicast's 64x128 only,
       * in the experimental build */
      if (c.clusters) {
        const unsigned wide = (1u << SB_GEMM_CLUSTER_2X2) | (1u << SB_GEMM_CLUSTER_4X2) | (1u << SB_GEMM_CLUSTER_2X4);
#ifdef SB_EXPERIMENTAL
        const int wide_here = !strcmp(var->name, "ws_tma_wgmma_multicast") && t == SB_GEMM_TILE_64X128;
#else
        const int wide_here = 0;
#endif
        CHECK_EQ_INT(c.clusters & 3u, 3u);
        CHECK_EQ_INT(c.clusters & wide, wide_here ? wide : 0u);
      }
      for (int cs = -1; cs < SB_GEMM_NUM_CLUSTER_SHAPES; ++cs)
        for (int w = 4; w <= 8; w += 4)
          for (int s = 1; s <= SB_GEMM_MAX_STAGES; ++s) {
            sb_point q = {f, var, {0}};
            for (int a = 0; a < SB_NUM_AXES; ++a) q.axis[a] = SB_AXIS_UNSET;
            q.axis[SB_AXIS_M] = q.axis[SB_AXIS_N] = 1024, q.axis[SB_AXIS_K] = 4096;
            q.axis[SB_AXIS_TILE] = t, q.axis[SB_AXIS_WARPS] = w, q.axis[SB_AXIS_STAGES] = s;
            q.axis[SB_AXIS_CLUSTER_SHAPE] = cs < 0 ? SB_AXIS_UNSET : cs;
            if (var->flags & SB_VF_GEMM_SPLIT) q.axis[SB_AXIS_SPLITS] = SB_AXIS_AUTO;
            const int want = c.warps == w && (c.stages >> s & 1u) && (!c.clusters || (cs >= 0 && (c.clusters >> cs & 1u)));
            sb_kernels k;
            char why[SB_SKIP_LEN], buf[SB_DETAIL_LEN];
            CHECK_EQ_INT(var->pick(q.axis, &k, why, sizeof why) == 0, want);
            const char *reason = f->check(&q, &d, buf, sizeof buf);
            if (want) CHECK(reason == NULL || strstr(reason, "exceeds") != NULL);
            else CHECK(reason != NULL);
            kernels += want;
          }
    }
    CHECK(tiles >= 1);
  }
  CHECK(kernels > 100);
}
