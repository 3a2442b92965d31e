#include <stdlib.h>

#include "../../harness/cli.h"
#include "../../harness/runner.h"
#include "../../harness/sweep.h"
#include "check.h"

static long count_family(const sb_point *p, long n, const char *family, const char *variant) {
  long c = 0;
  for (long i = 0; i < n; ++i)
    if (!strcmp(p[i].family->name, family) && (!variant || !strcmp(p[i].variant->name, variant))) ++c;
  return c;
}

/* Product of the family's default axis list lengths, parsed independently. */
static long expected_points(const sb_family *f, int quick) {
  long prod = 1;
  for (int a = 0; a < SB_NUM_AXES; ++a) {
    const char *t = quick ? f->quick_axes[a] : f->default_axes[a];
    if (!t) continue;
    sb_axis_values v;
    char err[256];
    if (sb_axis_parse(a, t, &v, err, sizeof err)) return -1;
    prod *= v.count;
  }
  return prod * f->variants->count;
}

SB_TEST(sweep_is_the_product_of_axes_for_every_family) {
  for (int quick = 0; quick <= 1; ++quick) {
    sb_sweep_spec spec = {.quick = quick};
    sb_point *p;
    char err[256];
    long n = sb_sweep_build(&spec, &p, err, sizeof err);
    CHECK(n > 0);
    long total = 0;
    for (int i = 0; i < sb_num_families; ++i) {
      long want = expected_points(sb_families[i], quick);
      CHECK(want > 0);
      long got = count_family(p, n, sb_families[i]->name, NULL);
      if (sb_families[i]->in_sweep) { /* a subset: test_gemm.c checks which */
        CHECK(got > 0 && got <= want);
        want = got;
      }
      CHECK_EQ_INT(got, want);
      total += want;
    }
    CHECK_EQ_INT(n, total);
    CHECK_STR(p[0].family->name, "reference"); /* measured first */
    free(p);
  }
}

SB_TEST(sweep_scan_default_covers_block_and_iters) {
  sb_sweep_spec spec = {0};
  sb_point *p;
  char err[256];
  long n = sb_sweep_build(&spec, &p, err, sizeof err);
  /* 6 block sizes x 3 iters x 4 variants */
  CHECK_EQ_INT(count_family(p, n, "scan", NULL), 72);
  CHECK_EQ_INT(count_family(p, n, "scan", "mbarrier"), 18);
  for (long i = 0; i < n; ++i)
    if (!strcmp(p[i].family->name, "scan")) {
      CHECK(p[i].axis[SB_AXIS_STAGES] == SB_AXIS_UNSET);
      CHECK(p[i].axis[SB_AXIS_N] >= (8LL << 20)); /* well past a 50 MB L2 */
    }
  free(p);
}

SB_TEST(sweep_overrides_and_filter) {
  char err[256];
  char *argv[] = {"syncbench", "--block", "128,256", "--iters=1,16", "--filter", "^scan/(pingpong|mbarrier)/", NULL};
  sb_cli c;
  CHECK_EQ_INT(sb_cli_parse(6, argv, &c, err, sizeof err), 0);
  sb_point *p;
  long n = sb_sweep_build(&c.sweeps[0].spec, &p, err, sizeof err);
  CHECK_EQ_INT(count_family(p, n, "scan", NULL), 2 * 2 * 2);
  CHECK_EQ_INT(count_family(p, n, "scan", "two_barrier"), 0);
  CHECK_EQ_INT(count_family(p, n, "reference", NULL), 2); /* never filtered: d2d_copy, vector_copy */
  for (long i = 0; i < n; ++i)
    if (!strcmp(p[i].family->name, "scan"))
      CHECK(p[i].axis[SB_AXIS_BLOCK] == 128 || p[i].axis[SB_AXIS_BLOCK] == 256);
  free(p);
  sb_cli_free(&c);
}

SB_TEST(sweep_errors) {
  char err[256];
  sb_point *p;
  regex_t re;
  regcomp(&re, "nothing-matches", REG_EXTENDED | REG_NOSUB);
  sb_sweep_spec spec = {.filter = &re};
  CHECK_EQ_INT(sb_sweep_build(&spec, &p, err, sizeof err), -1);
  CHECK(strstr(err, "matches no") != NULL);
  regfree(&re);
  /* An axis override that no selected family sweeps is an error. */
  regcomp(&re, "^scan/", REG_EXTENDED | REG_NOSUB);
  sb_sweep_spec spec2 = {.filter = &re};
  sb_axis_parse(SB_AXIS_STAGES, "2", &spec2.override[SB_AXIS_STAGES], err, sizeof err);
  CHECK_EQ_INT(sb_sweep_build(&spec2, &p, err, sizeof err), -1);
  CHECK(strstr(err, "--stages") != NULL);
  regfree(&re);
}

static sb_device fake_device(int major, int minor) {
  sb_device d;
  memset(&d, 0, sizeof d);
  d.cc_major = major;
  d.cc_minor = minor;
  d.max_threads_per_block = 1024;
  d.smem_per_block_optin = 227 * 1024;
  d.l2_bytes = 50u << 20;
  return d;
}

SB_TEST(precheck_skip_and_unsupported_rules) {
  const sb_family *scan = sb_find_family("scan");
  CHECK(scan != NULL);
  if (!scan) return;
  sb_device d = fake_device(8, 0);
  sb_provenance prov;
  memset(&prov, 0, sizeof prov);
  sb_row row;
  const sb_variant *shuffle = NULL;
  for (int i = 0; i < scan->variants->count; ++i)
    if (!strcmp(scan->variants->rows[i].name, "warp_shuffle")) shuffle = &scan->variants->rows[i];
  CHECK(shuffle != NULL);
  sb_point p = {scan, shuffle, {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_N] = 1 << 20;
  p.axis[SB_AXIS_ITERS] = 1;
  p.axis[SB_AXIS_BLOCK] = 256;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 0);
  p.axis[SB_AXIS_BLOCK] = 48; /* not whole warps */
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK_EQ_INT(row.status, SB_SKIPPED);
  CHECK(strstr(row.detail, "multiple of 32") != NULL);
  d.max_threads_per_block = 512; /* a GPU with a smaller limit */
  p.axis[SB_AXIS_BLOCK] = 1024;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK_EQ_INT(row.status, SB_SKIPPED);
  CHECK(strstr(row.detail, "512 threads per block") != NULL);
  /* A variant that needs sm_90 on an sm_80 GPU. */
  sb_variant hopper = *shuffle;
  hopper.min_cc = 90;
  p.variant = &hopper;
  p.axis[SB_AXIS_BLOCK] = 256;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK_EQ_INT(row.status, SB_UNSUPPORTED);
  CHECK(strstr(row.detail, "sm_90") != NULL);
  sb_device h = fake_device(9, 0);
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &h, &row), 0);
}

SB_TEST(registry_is_well_formed) {
  CHECK(sb_num_families >= 2);
  CHECK_STR(sb_families[0]->name, "reference");
  for (int i = 0; i < sb_num_families; ++i) {
    const sb_family *f = sb_families[i];
    CHECK(f->name && f->summary && f->variants->count > 0);
    CHECK(f->in_bytes && f->out_bytes && f->make_input && f->verify);
    CHECK(sb_find_family(f->name) == f);
    for (int a = 0; a < SB_NUM_AXES; ++a)
      CHECK((f->default_axes[a] == NULL) == (f->quick_axes[a] == NULL));
    for (int v = 0; v < f->variants->count; ++v) {
      CHECK(f->variants->rows[v].launch != NULL);
      CHECK(f->variants->rows[v].summary && f->variants->rows[v].summary[0]);
      for (int w = v + 1; w < f->variants->count; ++w)
        CHECK(strcmp(f->variants->rows[v].name, f->variants->rows[w].name) != 0);
    }
  }
}

SB_TEST(point_name_is_filterable) {
  const sb_family *scan = sb_find_family("scan");
  sb_point p = {scan, &scan->variants->rows[0], {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_BLOCK] = 256;
  p.axis[SB_AXIS_ITERS] = 16;
  p.axis[SB_AXIS_PARTICIPANTS] = 1;
  char name[256];
  sb_point_name(&p, name, sizeof name);
  CHECK_STR(name, "scan/two_barrier/block_threads=256/iters=16/participants=warp");
}

/* The re-placement probe's switch (harness/settings.c, docs/gate-details.md):
 * each letter of SB_REPLACE, nothing when it is unset or empty. */
SB_TEST(sweep_replace_probe_reads_its_letters) {
  unsetenv("SB_REPLACE");
  CHECK(!sb_replace_wants('o') && !sb_replace_wants('w'));
  setenv("SB_REPLACE", "", 1);
  CHECK(!sb_replace_wants('o'));
  setenv("SB_REPLACE", "iw", 1);
  CHECK(sb_replace_wants('i') && sb_replace_wants('w') && !sb_replace_wants('o') && !sb_replace_wants('f'));
  unsetenv("SB_REPLACE");
}

/* syncbench --then's run: each sweep's points in turn, a point a later
 * sweep names again dropped there (kept where it first came), and a bad
 * sweep named by its place. */
SB_TEST(sweeps_run_in_order_and_a_point_once) {
  char err[256];
  char *argv[] = {"syncbench", "--filter", "^scan/pingpong/", "--block", "128,256", "--iters", "1",
                  "--then", "--filter", "^scan/(pingpong|mbarrier)/", "--block", "256", "--iters", "1", NULL};
  sb_cli c;
  CHECK_EQ_INT(sb_cli_parse(14, argv, &c, err, sizeof err), 0);
  const sb_sweep_spec *specs[] = {&c.sweeps[0].spec, &c.sweeps[1].spec};
  sb_point *p;
  const long n = sb_sweeps_build(specs, 2, &p, err, sizeof err);
  /* the first sweep: 2 copies, pingpong at 128 and 256; the second adds
   * mbarrier at 256 (its pingpong at 256 and the copies came already) */
  CHECK_EQ_INT(n, 5);
  char name[512];
  const char *want[] = {"reference/d2d_copy/", "reference/vector_copy/", "scan/pingpong/block_threads=128/",
                        "scan/pingpong/block_threads=256/", "scan/mbarrier/block_threads=256/"};
  for (long i = 0; i < n && i < 5; ++i) {
    sb_point_name(&p[i], name, sizeof name);
    CHECK(strncmp(name, want[i], strlen(want[i])) == 0);
  }
  free(p);
  regex_t none;
  CHECK_EQ_INT(regcomp(&none, "^nothing/", REG_EXTENDED | REG_NOSUB), 0);
  sb_sweep_spec bad = c.sweeps[1].spec;
  bad.filter = &none;
  const sb_sweep_spec *with_bad[] = {&c.sweeps[0].spec, &bad};
  CHECK_EQ_INT(sb_sweeps_build(with_bad, 2, &p, err, sizeof err), -1);
  CHECK(p == NULL);
  CHECK(strstr(err, "the sweep after --then #1: the filter matches no benchmark point") == err);
  regfree(&none);
  sb_cli_free(&c);
}
