/* Summary statistics over timing samples. Kept apart from timing so the host
 * tests can check them on known data. */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stddef.h>

typedef struct sb_stats {
  size_t count;
  double min, max, median, q1, q3; /* quartiles by linear interpolation */
  double p01, p05, p10;            /* the 1st, 5th and 10th percentiles, likewise */
  double mean, stddev, cv_pct;     /* sample stddev (n-1); cv = stddev/mean */
} sb_stats;

/* Sorts x in place and fills out. Returns 0, or -1 when count == 0. */
int sb_stats_compute(double *x, size_t count, sb_stats *out);

/* The p-quantile (0..1) of sorted data, linear interpolation (type 7, the
 * default of R and numpy). */
double sb_quantile_sorted(const double *sorted, size_t count, double p);

#endif
