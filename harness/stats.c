#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double sb_quantile_sorted(const double *s, size_t n, double p) {
  if (n == 0) return NAN;
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)floor(h);
  size_t hi = lo + 1 < n ? lo + 1 : lo;
  return s[lo] + (h - (double)lo) * (s[hi] - s[lo]);
}

int sb_stats_compute(double *x, size_t n, sb_stats *out) {
  if (n == 0) return -1;
  qsort(x, n, sizeof *x, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += x[i];
  double mean = sum / (double)n, ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
  out->count = n;
  out->min = x[0];
  out->max = x[n - 1];
  out->median = sb_quantile_sorted(x, n, 0.5);
  out->q1 = sb_quantile_sorted(x, n, 0.25);
  out->q3 = sb_quantile_sorted(x, n, 0.75);
  out->p01 = sb_quantile_sorted(x, n, 0.01);
  out->p05 = sb_quantile_sorted(x, n, 0.05);
  out->p10 = sb_quantile_sorted(x, n, 0.10);
  out->mean = mean;
  out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
  out->cv_pct = mean > 0 ? 100.0 * out->stddev / mean : NAN;
  return 0;
}
