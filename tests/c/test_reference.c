/* The reference family: d2d_copy is the yardstick (the 100% of every
 * pct_of_copy); vector_copy, a kernel of ours on the same bytes, is
 * measured against it like any other row. */
#include <math.h>
#include <stdlib.h>

#include "../../harness/runner.h"
#include "check.h"

static sb_point reference_point(const char *variant) {
  const sb_family *f = sb_find_family("reference");
  sb_point p = {f, NULL, {0}};
  for (int v = 0; f && v < f->variants->count; ++v)
    if (!strcmp(f->variants->rows[v].name, variant)) p.variant = &f->variants->rows[v];
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_N] = 128LL << 20;
  return p;
}

SB_TEST(reference_table_has_the_yardstick_first_and_a_kernel_copy) {
  const sb_family *f = sb_find_family("reference");
  CHECK(f != NULL && (f->flags & SB_FF_YARDSTICK));
  if (!f) return;
  CHECK_EQ_INT(f->variants->count, 2);
  const sb_variant *d2d = &f->variants->rows[0], *vec = &f->variants->rows[1];
  CHECK_STR(d2d->name, "d2d_copy");
  CHECK_STR(vec->name, "vector_copy");
  CHECK(d2d->flags & SB_VF_YARDSTICK);
  CHECK(d2d->pick == NULL && (d2d->flags & SB_VF_NO_KERNEL));
  CHECK(!(vec->flags & (SB_VF_YARDSTICK | SB_VF_NO_KERNEL)));
  CHECK(vec->pick != NULL);
  if (!vec->pick) return;
  sb_point p = reference_point("vector_copy");
  sb_kernels k = {0};
  char why[SB_SKIP_LEN] = "";
  CHECK_EQ_INT(vec->pick(p.axis, &k, why, sizeof why), 0);
  CHECK(k.raw != NULL && k.bounded == k.raw && k.smem == 0); /* nothing spins: one kernel */
}

/* Both rows move 2 x 4n bytes (read once, written once); gbps is those
 * bytes over the median, pct_of_copy that over the run's copy. */
SB_TEST(reference_rows_derive_gbps_and_pct_of_copy_from_their_bytes) {
  sb_provenance prov;
  memset(&prov, 0, sizeof prov);
  sb_point d2d = reference_point("d2d_copy"), vec = reference_point("vector_copy");
  CHECK(d2d.variant != NULL && vec.variant != NULL);
  if (!d2d.variant || !vec.variant) return;
  CHECK_EQ_INT(vec.family->bytes_moved(&vec), 2 * 4 * (128LL << 20));

  sb_row row;
  sb_row_init(&row, &prov);
  row.status = SB_OK;
  sb_row_bandwidth(&d2d, 1e-3, 0, &row); /* the first row: no copy yet */
  CHECK(fabs(row.gbps - 2 * 4 * 134217728.0 / 1e-3 * 1e-9) < 1e-6);
  CHECK(isnan(row.pct_of_copy));
  double copy = sb_take_yardstick(&d2d, &row, 0);
  CHECK(copy == row.gbps && row.pct_of_copy == 100.0);

  sb_row_init(&row, &prov);
  row.status = SB_OK;
  sb_row_bandwidth(&vec, 0.8e-3, copy, &row); /* 20% less time than the copy */
  CHECK(fabs(row.pct_of_copy - 125.0) < 1e-9);
  CHECK(sb_take_yardstick(&vec, &row, copy) == copy); /* not the yardstick */
  CHECK(fabs(row.pct_of_copy - 125.0) < 1e-9);

  sb_row_init(&row, &prov);
  row.status = SB_WRONG; /* a failed copy sets nothing */
  row.gbps = 1;
  CHECK(sb_take_yardstick(&d2d, &row, copy) == copy);
}
