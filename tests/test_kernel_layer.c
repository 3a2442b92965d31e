/* The kernel layer's host half (harness/launch.h): every family exports a
 * variant table whose pickers name a compiled kernel for every point its
 * sweeps ask for, and the runner's rules for points without one. Pickers
 * only take the addresses of kernels, so all of this runs without a GPU. */
#include <stdlib.h>

#include "../harness/runner.h"
#include "../harness/sweep.h"
#include "check.h"

/* An H100 as the families' validity rules see it. */
static sb_device hopper(void) {
  sb_device d;
  memset(&d, 0, sizeof d);
  d.cc_major = 9;
  d.max_threads_per_block = 1024;
  d.sm_count = 132;
  d.smem_per_block_optin = 227 * 1024;
  d.l2_bytes = 50u << 20;
  d.global_mem_bytes = 80ull << 30;
  return d;
}

static const sb_variant *variant_of(const char *family, const char *name) {
  const sb_family *f = sb_find_family(family);
  if (!f) return NULL;
  for (int v = 0; v < f->variants->count; ++v)
    if (!strcmp(f->variants->rows[v].name, name)) return &f->variants->rows[v];
  return NULL;
}

/* The default and the quick sweep compile: every point a family does not
 * skip by its own rule has a kernel, and a non-twin variant's bounded
 * kernel is its raw one. */
SB_TEST(every_swept_point_has_a_compiled_kernel) {
  sb_device d = hopper();
  for (int quick = 0; quick <= 1; ++quick) {
    sb_sweep_spec spec = {.quick = quick};
    sb_point *p;
    char err[256];
    long n = sb_sweep_build(&spec, &p, err, sizeof err);
    CHECK(n > 0);
    long picked = 0;
    for (long i = 0; i < n; ++i) {
      const sb_variant *v = p[i].variant;
      CHECK(v->launch != NULL);
      CHECK((v->pick == NULL) == ((v->flags & SB_VF_NO_KERNEL) != 0));
      if (!v->pick) continue;
      sb_row row;
      sb_row_init(&row, &d.prov);
      if (sb_point_precheck(&p[i], &d, &row)) continue; /* the family's own skip */
      sb_kernels k = {0};
      char why[SB_SKIP_LEN] = "";
      int rc = v->pick(p[i].axis, &k, why, sizeof why);
      if (rc != 0 || !k.raw || !k.bounded) {
        char name[512];
        sb_point_name(&p[i], name, sizeof name);
        fprintf(stderr, "  %s sweep: %s has no kernel: %s\n", quick ? "quick" : "default",
                name, why);
      }
      CHECK_EQ_INT(rc, 0);
      ++picked;
    }
    CHECK(picked > 0);
    free(p);
  }
}

SB_TEST(a_block_size_without_an_instantiation_is_a_reason_not_a_kernel) {
  const sb_variant *v = variant_of("scan", "pingpong");
  CHECK(v && v->pick);
  if (!v || !v->pick) return;
  long long axis[SB_NUM_AXES];
  for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
  axis[SB_AXIS_BLOCK] = 96;
  axis[SB_AXIS_N] = 1 << 20;
  axis[SB_AXIS_ITERS] = 1;
  sb_kernels k = {0};
  char why[SB_SKIP_LEN] = "";
  CHECK_EQ_INT(v->pick(axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "block_threads=96") != NULL);
  CHECK(strstr(why, "32,64,128,256,512,1024") != NULL);
  axis[SB_AXIS_BLOCK] = 128;
  CHECK_EQ_INT(v->pick(axis, &k, why, sizeof why), 0);
  CHECK(k.raw != NULL && k.bounded == k.raw); /* no mbarrier wait: one kernel */
}

SB_TEST(an_mbarrier_variant_validates_with_its_bounded_twin) {
  const sb_variant *v = variant_of("scan", "mbarrier");
  CHECK(v && v->pick);
  if (!v || !v->pick) return;
  long long axis[SB_NUM_AXES];
  for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
  axis[SB_AXIS_BLOCK] = 256;
  sb_kernels k = {0};
  char why[SB_SKIP_LEN];
  CHECK_EQ_INT(v->pick(axis, &k, why, sizeof why), 0);
  CHECK(k.raw != NULL && k.bounded != NULL && k.bounded != k.raw);
}

SB_TEST(a_hopper_variant_built_from_older_ptx_is_unsupported) {
  sb_variant hopper_only = {"v", NULL, NULL, 90, 0, "x"};
  sb_provenance prov;
  memset(&prov, 0, sizeof prov);
  sb_row row;
  sb_launch L;
  memset(&L, 0, sizeof L);
  hopper_only.pick = (sb_pick_fn)1; /* never called: only "has a kernel" matters */
  L.ptx_version = 80; /* make CUDA_ARCH=compute_80, JIT-compiled on an H100 */
  L.binary_version = 90;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_built_below_need(&hopper_only, &L, &row), 1);
  CHECK_EQ_INT(row.status, SB_UNSUPPORTED);
  CHECK(strstr(row.detail, "compute_80") != NULL && strstr(row.detail, "sm_90") != NULL);

  L.ptx_version = 90; /* the sm_90a cubin */
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_built_below_need(&hopper_only, &L, &row), 0);
  CHECK_EQ_INT(row.status, SB_OK);

  sb_variant any = {"w", NULL, (sb_pick_fn)1, 0, 0, "x"};
  L.ptx_version = 80;
  CHECK_EQ_INT(sb_built_below_need(&any, &L, &row), 0);
  sb_variant library = {"cublas", NULL, NULL, 90, SB_VF_NO_KERNEL, "x"};
  CHECK_EQ_INT(sb_built_below_need(&library, &L, &row), 0);
}
