/* Devscan host side: the CPU reference against a naive sum, the exact
 * check, the swept points, and a compiled kernel (twin where the variant
 * waits on flags) behind every point the GPU would launch. No GPU. */
#include <stdint.h>
#include <stdlib.h>

#include "../bench/families.h"
#include "../harness/random.h"
#include "../harness/sweep.h"
#include "check.h"
#include "swept.h"

SB_TEST(devscan_reference_matches_naive_sums_with_wraparound) {
  const size_t sizes[] = {1, 2, 3, 1000, 4097};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; ++a) {
    size_t n = sizes[a];
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    sb_fill_u32(in, n, 77 + a);
    sb_devscan_reference(in, out, n);
    size_t bad = 0;
    unsigned long long total = 0;
    for (size_t i = 0; i < n; ++i) { /* naive: sum in[0..i] in 64 bits, then mod 2^32 */
      unsigned long long s = 0;
      for (size_t j = 0; j <= i; ++j) s += in[j];
      bad += out[i] != (uint32_t)s;
      total = s;
    }
    CHECK_EQ_INT(bad, 0);
    if (n >= 1000) CHECK(total > 0xffffffffull); /* the case wrapped */
    free(in);
    free(out);
  }
}

static sb_point devscan_point(const char *variant, long long n) {
  const sb_family *f = sb_find_family("devscan");
  sb_point p = {f, NULL, {0}};
  for (int v = 0; f && v < f->variants->count; ++v)
    if (!strcmp(f->variants->rows[v].name, variant)) p.variant = &f->variants->rows[v];
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_N] = n;
  p.axis[SB_AXIS_BLOCK] = 128;
  p.axis[SB_AXIS_ELEMS] = 24;
  return p;
}

SB_TEST(devscan_verify_reports_a_single_wrong_element) {
  const size_t n = 10000;
  sb_point p = devscan_point("lookback", (long long)n);
  CHECK(p.family != NULL && p.variant != NULL);
  if (!p.variant) return;
  uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
  sb_fill_u32(in, n, 5);
  sb_devscan_reference(in, out, n);
  char detail[256] = "";
  CHECK_EQ_INT(p.family->verify(&p, in, out, detail, sizeof detail), 0);
  const uint32_t right = out[4321];
  out[4321] += 1;
  CHECK_EQ_INT(p.family->verify(&p, in, out, detail, sizeof detail), -1);
  char want[160];
  snprintf(want, sizeof want, "1 of 10000 elements differ from the CPU scan; first at 4321: got %u, want %u",
           right + 1, right);
  CHECK_STR(detail, want);
  free(in);
  free(out);
}

SB_TEST(devscan_counts_bytes_as_one_read_and_one_write) {
  sb_point p = devscan_point("cub", 1LL << 20);
  CHECK(p.family != NULL);
  if (!p.family) return;
  CHECK_EQ_INT(p.family->bytes_moved(&p), 8LL << 20);
  CHECK_EQ_INT(p.family->in_bytes(&p), 4LL << 20);
  CHECK_EQ_INT(p.family->out_bytes(&p), 4LL << 20);
}

/* The sweep's devscan points, as "variant/block/elems/n" counts. */
typedef struct counts {
  int total, cub, main_shape, at_16m, twins, uncompiled;
} counts;

static counts sweep_counts(int quick) {
  counts c = {0};
  sb_sweep_spec spec = {.quick = quick};
  sb_point *p;
  char err[256];
  long n = sb_sweep_build(&spec, &p, err, sizeof err);
  CHECK(n > 0);
  for (long i = 0; i < n; ++i) {
    if (strcmp(p[i].family->name, "devscan")) continue;
    ++c.total;
    if (!p[i].variant->pick) {
      ++c.cub;
      CHECK(p[i].axis[SB_AXIS_BLOCK] == SB_AXIS_UNSET && p[i].axis[SB_AXIS_ELEMS] == SB_AXIS_UNSET);
      continue;
    }
    c.main_shape += p[i].axis[SB_AXIS_BLOCK] == 128 && p[i].axis[SB_AXIS_ELEMS] == 24;
    c.at_16m += p[i].axis[SB_AXIS_N] == 16LL << 20;
    sb_kernels k;
    char why[SB_SKIP_LEN] = "";
    if (p[i].variant->pick(p[i].axis, &k, why, sizeof why) != 0) {
      ++c.uncompiled;
      continue;
    }
    c.twins += k.bounded != k.raw;
  }
  if (n > 0) free(p);
  return c;
}

SB_TEST(devscan_default_and_quick_points) {
  /* Default: cub at 1M, 16M, 256M; 6 variants x (128x24 at the 3 n + the
   * 6 other compiled shapes at 16M). Quick: every variant once, at 1M. */
  counts d = sweep_counts(0);
  CHECK_EQ_INT(d.total, 3 + 6 * 9);
  CHECK_EQ_INT(d.cub, 3);
  CHECK_EQ_INT(d.main_shape, 6 * 3);
  CHECK_EQ_INT(d.at_16m, 6 * 7);
  CHECK_EQ_INT(d.uncompiled, 0);
  CHECK_EQ_INT(d.twins, 4 * 9); /* chained, lookback, lookback_relaxed, cluster_lookback */
  counts q = sweep_counts(1);
  CHECK_EQ_INT(q.total, 7);
  CHECK_EQ_INT(q.cub, 1);
  CHECK_EQ_INT(q.main_shape, 6);
  CHECK_EQ_INT(q.uncompiled, 0);
  CHECK_EQ_INT(q.twins, 4);
}

SB_TEST(devscan_uncompiled_shape_is_skipped_with_the_reason) {
  sb_point p = devscan_point("grid_sync", 1LL << 20);
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  p.axis[SB_AXIS_BLOCK] = 1024;
  sb_kernels k;
  char why[SB_SKIP_LEN] = "";
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "block_threads=1024 elems_per_thread=24 has no compiled kernel") != NULL);
  const sb_device d = sb_test_hopper();
  sb_row row;
  sb_row_init(&row, &d.prov);
  p.axis[SB_AXIS_ELEMS] = 6;
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK(strstr(row.detail, "multiple of 4") != NULL);
}

SB_TEST(devscan_table_flags) {
  const sb_family *f = sb_find_family("devscan");
  CHECK(f != NULL);
  if (!f) return;
  const char *want[] = {"cub",      "three_kernel",     "grid_sync",       "chained",
                        "lookback", "lookback_relaxed", "cluster_lookback"};
  CHECK_EQ_INT(f->variants->count, 7);
  for (int v = 0; v < f->variants->count && v < 7; ++v) {
    const sb_variant *r = &f->variants->rows[v];
    CHECK_STR(r->name, want[v]);
    CHECK_EQ_INT(r->flags & (SB_VF_NO_KERNEL | SB_VF_CEILING),
                 v == 0 ? (SB_VF_NO_KERNEL | SB_VF_CEILING) : 0);
    CHECK_EQ_INT(r->min_cc, v == 6 ? 90 : 0);
    CHECK_EQ_INT((r->flags & SB_VF_BASELINE) != 0, v == 1);
    CHECK_EQ_INT(r->pick == NULL, v == 0);
  }
}
