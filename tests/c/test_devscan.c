/* Devscan host side: the CPU reference against a naive sum, the exact
 * check, the swept points, and a compiled kernel (twin where the variant
 * waits on flags) behind every point the GPU would launch. No GPU. */
#include <stdint.h>
#include <stdlib.h>

#include "../../bench/families.h"
#include "../../harness/random.h"
#include "../../harness/sweep.h"
#include "../../kernels/families/devscan_flags.h"
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

/* ---- the look-back's tuning axes (window, first_sleep_ns, poll_sleep_ns,
 * sleep_min_tiles) ---- */

static int pick_tuned(const char *variant, long long b, long long e, long long window,
                      long long first, long long poll, long long min_tiles, sb_kernels *k,
                      char *why, size_t len) {
  sb_point p = devscan_point(variant, 256LL << 20);
  if (!p.variant || !p.variant->pick) return -2;
  p.axis[SB_AXIS_BLOCK] = b;
  p.axis[SB_AXIS_ELEMS] = e;
  p.axis[SB_AXIS_WINDOW] = window;
  p.axis[SB_AXIS_FIRST_SLEEP] = first;
  p.axis[SB_AXIS_POLL_SLEEP] = poll;
  p.axis[SB_AXIS_SLEEP_MIN_TILES] = min_tiles;
  why[0] = '\0';
  return p.variant->pick(p.axis, k, why, len);
}

#define U SB_AXIS_UNSET

/* Blank axes and today's values (32 words, 3000/648 ns, 500 tiles) name
 * the row's own kernel, so the default sweep runs what it ran; any other
 * value names a tuning instance of its own, a twin like the row's. */
SB_TEST(devscan_tuning_axes_pick_todays_kernel_or_an_instance) {
  const char *rows[] = {"lookback", "lookback_relaxed"};
  const void *today_raw[2] = {NULL, NULL};
  char why[SB_SKIP_LEN];
  for (int r = 0; r < 2; ++r) {
    sb_kernels blank = {0}, today = {0}, k = {0};
    CHECK_EQ_INT(pick_tuned(rows[r], 128, 32, U, U, U, U, &blank, why, sizeof why), 0);
    CHECK_EQ_INT(pick_tuned(rows[r], 128, 32, 32, 3000, 648, 500, &today, why, sizeof why), 0);
    CHECK(blank.raw != NULL && blank.raw == today.raw && blank.bounded == today.bounded);
    today_raw[r] = today.raw;
    const long long other[][6] = {
        /* b, e, window, first, poll, min_tiles: each differs from today in one place */
        {128, 32, 32, 0, 648, 500},    {128, 32, 32, 1245, 648, 500}, {128, 32, 32, 3000, 0, 500},
        {128, 32, 32, 3000, 648, 0},   {128, 24, 64, 3000, 648, 500}, {256, 16, 64, 0, 0, 500},
        {128, 32, 32, 3000, 648, 100000}};
    const void *seen[8] = {0};
    for (size_t i = 0; i < sizeof other / sizeof *other; ++i) {
      const long long *o = other[i];
      CHECK_EQ_INT(pick_tuned(rows[r], o[0], o[1], o[2], o[3], o[4], o[5], &k, why, sizeof why), 0);
      CHECK(k.raw != NULL && k.bounded != NULL && k.bounded != k.raw); /* a twin: it spins */
      CHECK(k.raw != today.raw);
      seen[i] = k.raw;
    }
    /* the threshold is read at run time: 0 and 100000 share one instance */
    CHECK(seen[3] == seen[6]);
    CHECK(seen[0] != seen[1] && seen[1] != seen[2] && seen[0] != seen[2]);
  }
  CHECK(today_raw[0] != today_raw[1]); /* the memory order stays the row's */
  sb_kernels a = {0}, b = {0};
  CHECK_EQ_INT(pick_tuned("lookback", 128, 24, 64, 0, 0, U, &a, why, sizeof why), 0);
  CHECK_EQ_INT(pick_tuned("lookback_relaxed", 128, 24, 64, 0, 0, U, &b, why, sizeof why), 0);
  CHECK(a.raw != b.raw);
}

SB_TEST(devscan_tuning_axes_refuse_what_is_not_compiled_with_one_line) {
  const long long bad[][6] = {
      {128, 32, 48, 3000, 648, 500},  /* a window not compiled */
      {128, 32, 64, 3000, 648, 500},  /* window 64 at 128x32: spills, not compiled */
      {128, 32, 32, 2000, 648, 500},  /* a first sleep not compiled */
      {128, 32, 32, 3000, 300, 500},  /* a poll sleep not compiled */
      {512, 8, 32, 0, 0, 500},        /* a shape without tuning instances */
      {128, 16, 32, 3000, 0, 500}};
  char why[SB_SKIP_LEN];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    const long long *o = bad[i];
    sb_kernels k = {0};
    CHECK_EQ_INT(pick_tuned("lookback_relaxed", o[0], o[1], o[2], o[3], o[4], o[5], &k, why, sizeof why), -1);
    char want[64];
    snprintf(want, sizeof want, "window=%lld first_sleep_ns=%lld poll_sleep_ns=%lld at %lldx%lld", o[2],
             o[3], o[4], o[0], o[1]);
    CHECK(strstr(why, want) != NULL);
    CHECK(strstr(why, "compiled: window 32,64") != NULL);
    CHECK(strchr(why, '\n') == NULL);
  }
}

/* The default sweep leaves the axes blank (its points and names are
 * schema 9's); a command line that names one fills all four on the
 * look-back rows only, with today's values where it named none. */
SB_TEST(devscan_tuning_axes_are_swept_only_when_named_and_only_on_lookback_rows) {
  const sb_family *f = sb_find_family("devscan");
  CHECK(f != NULL && f->in_sweep != NULL);
  if (!f || !f->in_sweep) return;
  const int tuning[] = {SB_AXIS_WINDOW, SB_AXIS_FIRST_SLEEP, SB_AXIS_POLL_SLEEP,
                        SB_AXIS_SLEEP_MIN_TILES};
  const long long today[] = {32, 3000, 648, 500};
  for (int a = 0; a < 4; ++a) {
    char err[128];
    sb_axis_values v;
    CHECK_EQ_INT(sb_axis_parse(tuning[a], f->default_axes[tuning[a]], &v, err, sizeof err), 0);
    CHECK(v.count == 1 && v.v[0] == today[a]);
  }
  const char *variants[] = {"lookback", "lookback_relaxed", "three_kernel", "chained", "cub"};
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i) {
    const int takes = i < 2;
    for (int named = 0; named <= 1; ++named) {
      sb_point p = devscan_point(variants[i], 256LL << 20);
      p.axis[SB_AXIS_ELEMS] = 32;
      for (int a = 0; a < 4; ++a) p.axis[tuning[a]] = today[a];
      p.axis[SB_AXIS_WINDOW] = 64;
      const unsigned long long user = named ? 1ull << SB_AXIS_WINDOW : 0;
      CHECK_EQ_INT(f->in_sweep(&p, user), 1);
      for (int a = 0; a < 4; ++a)
        CHECK_EQ_INT(p.axis[tuning[a]], named && takes ? (a == 0 ? 64 : today[a]) : SB_AXIS_UNSET);
    }
  }
  /* the whole sweep: --window 32,64 at 256M, 128x24 adds the look-back
   * rows' window 64 points, and no other row's */
  sb_sweep_spec spec = {0};
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_WINDOW, "32,64", &spec.override[SB_AXIS_WINDOW], err, sizeof err), 0);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "256M", &spec.override[SB_AXIS_N], err, sizeof err), 0);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, "128", &spec.override[SB_AXIS_BLOCK], err, sizeof err), 0);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_ELEMS, "24", &spec.override[SB_AXIS_ELEMS], err, sizeof err), 0);
  sb_point *pts;
  const long n = sb_sweep_build(&spec, &pts, err, sizeof err);
  CHECK(n > 0);
  int lookback = 0, tuned = 0, others = 0;
  for (long i = 0; i < n; ++i) {
    if (strcmp(pts[i].family->name, "devscan")) continue;
    const int takes = (pts[i].variant->flags & SB_VF_DEVSCAN_TUNING) != 0;
    lookback += takes;
    tuned += takes && pts[i].axis[SB_AXIS_WINDOW] == 64 && pts[i].axis[SB_AXIS_FIRST_SLEEP] == 3000;
    others += !takes && pts[i].axis[SB_AXIS_WINDOW] != SB_AXIS_UNSET;
  }
  CHECK_EQ_INT(lookback, 2 * 2);
  CHECK_EQ_INT(tuned, 2);
  CHECK_EQ_INT(others, 0);
  free(pts);
  /* the default and quick sweeps: every devscan point's tuning cells blank */
  for (int quick = 0; quick <= 1; ++quick) {
    sb_sweep_spec plain = {.quick = quick};
    const long m = sb_sweep_build(&plain, &pts, err, sizeof err);
    CHECK(m > 0);
    int filled = 0, seen = 0;
    for (long i = 0; i < m; ++i) {
      if (strcmp(pts[i].family->name, "devscan")) continue;
      ++seen;
      for (int a = 0; a < 4; ++a) filled += pts[i].axis[tuning[a]] != SB_AXIS_UNSET;
    }
    CHECK(seen > 0);
    CHECK_EQ_INT(filled, 0);
    free(pts);
  }
}
#undef U
