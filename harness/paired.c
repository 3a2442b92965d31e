#include "paired.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>


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
  /* Pair j ran the variant first when j is even, the ceiling first when
   * odd: over whole v c c v blocks each side has as many samples in either
   * place of a pair, so whatever favours one place favours both sides
   * alike. A trailing odd pair has no partner and is left out. */
  const size_t used = pairs > 1 ? pairs - pairs % 2 : pairs;
  double v_min = INFINITY, c_min = INFINITY;
  for (size_t j = 0; j < used; ++j) {
    if (variant[j] > 0 && variant[j] < v_min) v_min = variant[j];
    if (ceiling[j] > 0 && ceiling[j] < c_min) c_min = ceiling[j];
  }
  return isfinite(v_min) && isfinite(c_min) ? 100.0 * c_min / v_min : NAN;
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
