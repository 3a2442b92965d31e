/* The kernel layer's host half (harness/launch.h): every family exports a
 * variant table whose pickers name a compiled kernel for every point its
 * sweeps ask for, and the runner's rules for points without one. Pickers
 * only take the addresses of kernels, so all of this runs without a GPU. */
#include <stdlib.h>

#include "check.h"
#include "swept.h"

static const sb_variant *variant_of(const char *family, const char *name) {
  const sb_family *f = sb_find_family(family);
  if (!f) return NULL;
  for (int v = 0; v < f->variants->count; ++v)
    if (!strcmp(f->variants->rows[v].name, name)) return &f->variants->rows[v];
  return NULL;
}

static void expect_kernel(const sb_point *p, int quick, int rc, const sb_kernels *k,
                          const char *why, void *ctx) {
  (void)p, (void)k, (void)why;
  CHECK_EQ_INT(rc, 0);
  ++((long *)ctx)[quick];
}

/* The default and the quick sweep compile: every point a family does not
 * skip by its own rule has a kernel; a variant without a picker is a
 * library call (SB_VF_NO_KERNEL). */
SB_TEST(every_swept_point_has_a_compiled_kernel) {
  for (int i = 0; i < sb_num_families; ++i)
    for (int v = 0; v < sb_families[i]->variants->count; ++v) {
      const sb_variant *row = &sb_families[i]->variants->rows[v];
      CHECK(row->launch != NULL);
      CHECK((row->pick == NULL) == ((row->flags & SB_VF_NO_KERNEL) != 0));
    }
  long picked[2] = {0, 0};
  sb_for_each_swept_kernel(NULL, expect_kernel, picked);
  CHECK(picked[0] > 0 && picked[1] > 0);
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
  sb_variant hopper_only = {"v", NULL, NULL, 90, 0, "x", {0}};
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

  sb_variant any = {"w", NULL, (sb_pick_fn)1, 0, 0, "x", {0}};
  L.ptx_version = 80;
  CHECK_EQ_INT(sb_built_below_need(&any, &L, &row), 0);
  sb_variant library = {"cublas", NULL, NULL, 90, SB_VF_NO_KERNEL, "x", {0}};
  CHECK_EQ_INT(sb_built_below_need(&library, &L, &row), 0);
}
