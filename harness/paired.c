#include "paired.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "timing.h" /* SB_MODE_PLACES_X, SB_PLACEMENTS_MAX */


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

/* The median over v c c v blocks of the block's ceiling / variant time. */
static double block_median_ratio(const double *variant, const double *ceiling, size_t pairs) {
  if (pairs == 1) return variant[0] > 0 && ceiling[0] > 0 ? ceiling[0] / variant[0] : NAN;
  const size_t blocks = pairs / 2;
  double *ratio = malloc(blocks * sizeof *ratio);
  if (!ratio) return NAN;
  size_t kept = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const double v = variant[2 * b] + variant[2 * b + 1], c = ceiling[2 * b] + ceiling[2 * b + 1];
    if (v > 0 && c > 0) ratio[kept++] = c / v;
  }
  sb_stats s;
  const double r = kept && sb_stats_compute(ratio, kept, &s) == 0 ? s.median : NAN;
  free(ratio);
  return r;
}

/* The ceiling's fastest sample over the variant's. */
static double fastest_ratio(const double *variant, const double *ceiling, size_t pairs) {
  double v_min = INFINITY, c_min = INFINITY;
  for (size_t j = 0; j < pairs; ++j) {
    if (variant[j] > 0 && variant[j] < v_min) v_min = variant[j];
    if (ceiling[j] > 0 && ceiling[j] < c_min) c_min = ceiling[j];
  }
  return isfinite(v_min) && isfinite(c_min) ? c_min / v_min : NAN;
}

/* The ceiling's p-quantile over the variant's (p = 0.25: the lower quartile). */
static double quantile_ratio(const double *variant, const double *ceiling, size_t pairs, double p) {
  double *v = malloc(pairs * sizeof *v), *c = malloc(pairs * sizeof *c);
  size_t nv = 0, nc = 0;
  for (size_t j = 0; v && c && j < pairs; ++j) {
    if (variant[j] > 0) v[nv++] = variant[j];
    if (ceiling[j] > 0) c[nc++] = ceiling[j];
  }
  sb_stats sv, sc; /* sorts v and c in place: the quantiles read them sorted */
  const double r = nv && nc && sb_stats_compute(v, nv, &sv) == 0 && sb_stats_compute(c, nc, &sc) == 0
                       ? sb_quantile_sorted(c, nc, p) / sb_quantile_sorted(v, nv, p)
                       : NAN;
  free(v), free(c);
  return r;
}

double sb_paired_pct(const double *variant, const double *ceiling, size_t pairs,
                     sb_ratio_reading reading) {
  if (pairs == 0) return NAN;
  /* Pair j ran the variant first when j is even, the ceiling first when
   * odd: over whole v c c v blocks each side has as many samples in either
   * place of a pair, so whatever favours one place favours both sides
   * alike (and in a block, a drift linear over it cancels). A trailing odd
   * pair has no partner and is left out. */
  const size_t used = pairs > 1 ? pairs - pairs % 2 : pairs;
  const double r = reading == SB_RATIO_FASTEST        ? fastest_ratio(variant, ceiling, used)
                   : reading == SB_RATIO_LOW_QUARTILE ? quantile_ratio(variant, ceiling, used, 0.25)
                   : reading == SB_RATIO_P10          ? quantile_ratio(variant, ceiling, used, 0.10)
                   : reading == SB_RATIO_P05          ? quantile_ratio(variant, ceiling, used, 0.05)
                   : reading == SB_RATIO_P01          ? quantile_ratio(variant, ceiling, used, 0.01)
                   : reading == SB_RATIO_P75          ? quantile_ratio(variant, ceiling, used, 0.75)
                                                      : block_median_ratio(variant, ceiling, used);
  return 100.0 * r;
}

sb_ratio_reading sb_variant_reading(const sb_family *f, const sb_variant *v) {
  return v && (v->flags & SB_VF_P75_RATIO) ? SB_RATIO_P75 : f->ceiling_reading;
}

int sb_variant_placements(const sb_variant *v, int placements) {
  if (!v || !(v->flags & SB_VF_P75_RATIO)) return placements;
  return placements * SB_MODE_PLACES_X < SB_PLACEMENTS_MAX ? placements * SB_MODE_PLACES_X : SB_PLACEMENTS_MAX;
}

const char *sb_ratio_reading_name(sb_ratio_reading reading) {
  return reading == SB_RATIO_FASTEST        ? "fastest"
         : reading == SB_RATIO_LOW_QUARTILE ? "low_quartile"
         : reading == SB_RATIO_P10          ? "p10"
         : reading == SB_RATIO_P05          ? "p05"
         : reading == SB_RATIO_P01          ? "p01"
         : reading == SB_RATIO_P75          ? "p75"
                                            : "block_median";
}

double *sb_ceiling_cell(sb_row *row, const char *column) {
  if (!column) return NULL;
  if (!strcmp(column, "pct_of_cublas")) return &row->pct_of_cublas;
  if (!strcmp(column, "pct_of_cub")) return &row->pct_of_cub;
  return NULL;
}

char *sb_pairs_path(const char *tmpl, long pid, char *out, size_t cap) {
  size_t used = 0;
  for (const char *s = tmpl; *s; ++s) {
    char buf[24];
    const char *piece = buf;
    if (s[0] == '%' && s[1] == 'p')
      snprintf(buf, sizeof buf, "%ld", pid), ++s;
    else
      buf[0] = *s, buf[1] = '\0';
    const size_t len = strlen(piece);
    if (used + len >= cap) return NULL;
    memcpy(out + used, piece, len);
    used += len;
  }
  if (cap == 0) return NULL;
  out[used] = '\0';
  return out;
}

char *sb_pairs_line(const char *name, const double *variant, const double *ceiling, const double *mhz,
                    size_t pairs) {
  size_t cap = strlen(name) + 80 + pairs * 3 * 18, used = 0;
  char *line = malloc(cap);
  if (!line) return NULL;
  used += (size_t)snprintf(line + used, cap - used, "{\"point\": \"%s\", \"variant_s\": [", name);
  for (size_t j = 0; j < pairs; ++j)
    used += (size_t)snprintf(line + used, cap - used, "%s%.9g", j ? ", " : "", variant[j]);
  used += (size_t)snprintf(line + used, cap - used, "], \"ceiling_s\": [");
  for (size_t j = 0; j < pairs; ++j)
    used += (size_t)snprintf(line + used, cap - used, "%s%.9g", j ? ", " : "", ceiling[j]);
  used += (size_t)snprintf(line + used, cap - used, "]");
  if (mhz) {
    used += (size_t)snprintf(line + used, cap - used, ", \"mhz\": [");
    for (size_t j = 0; j < pairs; ++j)
      used += isnan(mhz[j]) ? (size_t)snprintf(line + used, cap - used, "%snull", j ? ", " : "")
                            : (size_t)snprintf(line + used, cap - used, "%s%.6g", j ? ", " : "", mhz[j]);
    used += (size_t)snprintf(line + used, cap - used, "]");
  }
  snprintf(line + used, cap - used, "}\n");
  return line;
}
