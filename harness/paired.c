#include "paired.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
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

double sb_paired_pct(const double *variant, const double *ceiling, size_t pairs) {
  if (pairs == 0) return NAN;
  if (pairs == 1) return variant[0] > 0 ? 100.0 * ceiling[0] / variant[0] : NAN;
  /* Pair j ran the variant first when j is even, the ceiling first when
   * odd: each block of two pairs is v c c v, so whatever favours the
   * first (or the second) launch of a pair favours both sides once, and a
   * drift that is linear over the block cancels. A trailing odd pair has
   * no partner and is left out. */
  const size_t blocks = pairs / 2;
  double *ratio = malloc(blocks * sizeof *ratio);
  if (!ratio) return NAN;
  size_t kept = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const double v = variant[2 * b] + variant[2 * b + 1], c = ceiling[2 * b] + ceiling[2 * b + 1];
    if (v > 0 && c > 0) ratio[kept++] = c / v;
  }
  sb_stats s;
  const double pct = kept && sb_stats_compute(ratio, kept, &s) == 0 ? 100.0 * s.median : NAN;
  free(ratio);
  return pct;
}

double *sb_ceiling_cell(sb_row *row, const char *column) {
  if (!column) return NULL;
  if (!strcmp(column, "pct_of_cublas")) return &row->pct_of_cublas;
  if (!strcmp(column, "pct_of_cub")) return &row->pct_of_cub;
  return NULL;
}

char *sb_pairs_line(const char *name, const double *variant, const double *ceiling, size_t pairs) {
  size_t cap = strlen(name) + 64 + pairs * 2 * 18, used = 0;
  char *line = malloc(cap);
  if (!line) return NULL;
  used += (size_t)snprintf(line + used, cap - used, "{\"point\": \"%s\", \"variant_s\": [", name);
  for (size_t j = 0; j < pairs; ++j)
    used += (size_t)snprintf(line + used, cap - used, "%s%.9g", j ? ", " : "", variant[j]);
  used += (size_t)snprintf(line + used, cap - used, "], \"ceiling_s\": [");
  for (size_t j = 0; j < pairs; ++j)
    used += (size_t)snprintf(line + used, cap - used, "%s%.9g", j ? ", " : "", ceiling[j]);
  snprintf(line + used, cap - used, "]}\n");
  return line;
}
