#include "paired.h"

#include <math.h>
#include <string.h>

#include "stats.h"

const sb_variant *sb_family_ceiling(const sb_family *f) {
  for (int i = 0; f->variants && i < f->variants->count; ++i)
    if (f->variants->rows[i].flags & SB_VF_CEILING) return &f->variants->rows[i];
  return NULL;
}

int sb_ceiling_point(const sb_point *p, sb_point *out) {
  const sb_variant *c = sb_family_ceiling(p->family);
  if (!c || c == p->variant) return 1;
  *out = *p;
  out->variant = c;
  if (p->family->in_sweep && !p->family->in_sweep(out, ~0ULL)) return -1;
  return 0;
}

double sb_paired_pct(double *variant, size_t nv, double *ceiling, size_t nc) {
  sb_stats v, c;
  if (sb_stats_compute(variant, nv, &v) != 0 || sb_stats_compute(ceiling, nc, &c) != 0) return NAN;
  if (!(v.median > 0) || !(c.median > 0)) return NAN;
  return 100.0 * c.median / v.median;
}

double *sb_ceiling_cell(sb_row *row, const char *column) {
  if (!column) return NULL;
  if (!strcmp(column, "pct_of_cublas")) return &row->pct_of_cublas;
  if (!strcmp(column, "pct_of_cub")) return &row->pct_of_cub;
  return NULL;
}
