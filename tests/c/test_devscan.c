/* Devscan host side: the CPU reference against a naive sum, the exact
 * check, the swept points, and a compiled kernel (twin where the variant
 * waits on flags) behind every point the GPU would launch. No GPU. */
#include <stdint.h>
#include <stdlib.h>

#include "../../bench/families.h"
#include "../../harness/random.h"
#include "../../kernels/common/pdl.h"
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
  const sb_check check = {5, SB_CHECK_VALIDATION};
  CHECK_EQ_INT(p.family->verify(&p, &check, in, out, detail, sizeof detail), 0);
  const uint32_t right = out[4321];
  out[4321] += 1;
  CHECK_EQ_INT(p.family->verify(&p, &check, in, out, detail, sizeof detail), -1);
  char want[160];
  snprintf(want, sizeof want, "1 of 10000 elements differ from the CPU scan; first at 4321: got %u, want %u",
           right + 1, right);
  CHECK_STR(detail, want);
  free(in);
  free(out);
}

/* The check runs in 1M-element chunks, each starting from the sum of the
 * chunks before it: an error in a later chunk, and right at a chunk's
 * first element, is found with the right expected value. */
SB_TEST(devscan_check_across_chunks_finds_each_wrong_element) {
  const size_t n = (5u << 20) / 2 + 17; /* 2.5M + 17: a short last chunk */
  uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
  sb_fill_u32(in, n, 9);
  sb_devscan_reference(in, out, n);
  char detail[256] = "";
  CHECK_EQ_INT(sb_devscan_check(in, out, n, detail, sizeof detail), 0);
  const size_t at[] = {1u << 20, n - 1, 2100000};
  char want[200];
  for (size_t t = 0; t < 3; ++t) {
    const uint32_t right = out[at[t]];
    out[at[t]] ^= 0x100;
    CHECK_EQ_INT(sb_devscan_check(in, out, n, detail, sizeof detail), -1);
    snprintf(want, sizeof want,
             "1 of %zu elements differ from the CPU scan; first at %zu: got %u, want %u", n,
             at[t], right ^ 0x100, right);
    CHECK_STR(detail, want);
    out[at[t]] = right;
  }
  out[3] += 1; /* two wrong: the count and the first */
  out[2u << 20] += 1;
  CHECK_EQ_INT(sb_devscan_check(in, out, n, detail, sizeof detail), -1);
  CHECK(strncmp(detail, "2 of ", 5) == 0 && strstr(detail, "first at 3:") != NULL);
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

/* The sweep's devscan points that launch a kernel of ours, per sweep
 * (0 default, 1 quick). */
typedef struct counts {
  int total, main_shape, at_16m, twins, uncompiled;
} counts;

static void count_point(const sb_point *p, int quick, int rc, const sb_kernels *k,
                        const char *why, void *ctx) {
  (void)why;
  counts *c = (counts *)ctx + quick;
  ++c->total;
  c->main_shape += p->axis[SB_AXIS_BLOCK] == 128 && p->axis[SB_AXIS_ELEMS] == 32;
  c->at_16m += p->axis[SB_AXIS_N] == 16LL << 20;
  c->uncompiled += rc != 0;
  c->twins += rc == 0 && k->bounded != k->raw;
}

SB_TEST(devscan_default_and_quick_points) {
  /* Default: 7 variants x (128x32 at 1M, 16M, 256M + the 6 other compiled
   * shapes at 16M). Quick: every variant once, at 1M, 128x32. */
  counts c[2] = {{0}, {0}};
  sb_for_each_swept_kernel("devscan", count_point, c);
  CHECK_EQ_INT(c[0].total, 7 * 9);
  CHECK_EQ_INT(c[0].main_shape, 7 * 3);
  CHECK_EQ_INT(c[0].at_16m, 7 * 7);
  CHECK_EQ_INT(c[0].uncompiled, 0);
  CHECK_EQ_INT(c[0].twins, 4 * 9); /* chained, lookback, lookback_relaxed, cluster_lookback */
  CHECK_EQ_INT(c[1].total, 7);
  CHECK_EQ_INT(c[1].main_shape, 7);
  CHECK_EQ_INT(c[1].uncompiled, 0);
  CHECK_EQ_INT(c[1].twins, 4);
}

SB_TEST(devscan_ceiling_row_has_no_tile_shape) {
  /* cub's point keeps n and blanks the tile axes, so the sweep measures it
   * once per n whatever shapes the others run. */
  sb_point p = devscan_point("cub", 16LL << 20);
  CHECK(p.variant != NULL && p.family->in_sweep != NULL);
  if (!p.variant) return;
  CHECK_EQ_INT(p.family->in_sweep(&p, 0), 1);
  CHECK(p.axis[SB_AXIS_BLOCK] == SB_AXIS_UNSET && p.axis[SB_AXIS_ELEMS] == SB_AXIS_UNSET);
  CHECK_EQ_INT(p.axis[SB_AXIS_N], 16LL << 20);
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
  const char *want[] = {"cub",      "three_kernel",     "grid_sync",        "chained",
                        "lookback", "lookback_relaxed", "cluster_lookback", "three_kernel_pdl"};
  CHECK_EQ_INT(f->variants->count, 8);
  for (int v = 0; v < f->variants->count && v < 8; ++v) {
    const sb_variant *r = &f->variants->rows[v];
    CHECK_STR(r->name, want[v]);
    CHECK_EQ_INT(r->flags & (SB_VF_NO_KERNEL | SB_VF_CEILING),
                 v == 0 ? (SB_VF_NO_KERNEL | SB_VF_CEILING) : 0);
    CHECK_EQ_INT(r->min_cc, v >= 6 ? 90 : 0);
    CHECK_EQ_INT((r->flags & SB_VF_BASELINE) != 0, v == 1);
    CHECK_EQ_INT((r->flags & SB_VF_PDL) != 0, v == 7); /* PDL: sm_90 (min_cc above) */
    CHECK_EQ_INT(r->pick == NULL, v == 0);
  }
}

/* three_kernel_pdl: three_kernel's shapes, each its own kernel (the PDL
 * protocol), no twin (nothing spins: griddepcontrol.wait is the only
 * wait), skipped where three_kernel is. */
SB_TEST(devscan_pdl_variant_has_three_kernels_shapes_and_kernels_of_its_own) {
  sb_point pdl = devscan_point("three_kernel_pdl", 1LL << 20),
           plain = devscan_point("three_kernel", 1LL << 20);
  CHECK(pdl.variant != NULL && plain.variant != NULL);
  if (!pdl.variant || !plain.variant) return;
  const long long shapes[][2] = {{128, 16}, {128, 24}, {128, 32}, {256, 8},
                                 {256, 16}, {256, 24}, {512, 8},  {1024, 24}};
  char why[SB_SKIP_LEN], why2[SB_SKIP_LEN];
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i) {
    pdl.axis[SB_AXIS_BLOCK] = plain.axis[SB_AXIS_BLOCK] = shapes[i][0];
    pdl.axis[SB_AXIS_ELEMS] = plain.axis[SB_AXIS_ELEMS] = shapes[i][1];
    sb_kernels kp = {0}, kt = {0};
    const int rp = pdl.variant->pick(pdl.axis, &kp, why, sizeof why);
    const int rt = plain.variant->pick(plain.axis, &kt, why2, sizeof why2);
    CHECK_EQ_INT(rp, rt);
    CHECK_EQ_INT(rp, shapes[i][0] == 1024 ? -1 : 0);
    if (rp != 0) continue;
    CHECK(kp.raw != NULL && kp.raw == kp.bounded); /* one kernel: no spin to bound */
    CHECK(kp.raw != kt.raw);
    CHECK_EQ_INT(kp.smem, kt.smem);
  }
}

/* An A100 never runs it; a compute_80 build run on Hopper reports it
 * `unsupported` after the query (its kernel's PTX is 8.0) instead of
 * launching griddepcontrol. */
SB_TEST(devscan_pdl_variant_is_unsupported_below_sm90) {
  sb_point p = devscan_point("three_kernel_pdl", 1LL << 20);
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  sb_device d = sb_test_hopper();
  sb_row row;
  sb_row_init(&row, &d.prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 0);
  d.cc_major = 8;
  sb_row_init(&row, &d.prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK_EQ_INT(row.status, SB_UNSUPPORTED);
  sb_launch L;
  memset(&L, 0, sizeof L);
  L.ptx_version = 80;
  L.binary_version = 90;
  sb_row_init(&row, &d.prov);
  CHECK_EQ_INT(sb_built_below_need(p.variant, &L, &row), 1);
  CHECK(strstr(row.detail, "compute_80") != NULL);
  sb_point three = devscan_point("three_kernel", 1LL << 20);
  sb_row_init(&row, &d.prov);
  CHECK_EQ_INT(sb_built_below_need(three.variant, &L, &row), 0);
}
