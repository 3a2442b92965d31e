#include <math.h>

#include "../../harness/stats.h"
#include "check.h"

SB_TEST(stats_known_values) {
  double x[] = {5, 1, 4, 2, 3}; /* unsorted on purpose */
  sb_stats s;
  CHECK_EQ_INT(sb_stats_compute(x, 5, &s), 0);
  CHECK_NEAR(s.min, 1, 0);
  CHECK_NEAR(s.max, 5, 0);
  CHECK_NEAR(s.median, 3, 0);
  CHECK_NEAR(s.q1, 2, 1e-12);
  CHECK_NEAR(s.q3, 4, 1e-12);
  CHECK_NEAR(s.p01, 1.04, 1e-12); /* numpy.percentile(x, 1) */
  CHECK_NEAR(s.p05, 1.2, 1e-12); /* numpy.percentile(x, 5) */
  CHECK_NEAR(s.p10, 1.4, 1e-12);
  CHECK_NEAR(s.mean, 3, 1e-12);
  CHECK_NEAR(s.stddev, sqrt(2.5), 1e-12); /* sample stddev, n-1 */
  CHECK_NEAR(s.cv_pct, 100 * sqrt(2.5) / 3, 1e-9);
}

SB_TEST(stats_even_count_interpolates) {
  double x[] = {10, 20, 30, 40};
  sb_stats s;
  sb_stats_compute(x, 4, &s);
  CHECK_NEAR(s.median, 25, 1e-12);
  CHECK_NEAR(s.q1, 17.5, 1e-12); /* numpy.percentile(x, 25) */
  CHECK_NEAR(s.q3, 32.5, 1e-12);
}

SB_TEST(stats_single_and_empty) {
  double x[] = {7};
  sb_stats s;
  CHECK_EQ_INT(sb_stats_compute(x, 1, &s), 0);
  CHECK_NEAR(s.median, 7, 0);
  CHECK_NEAR(s.q1, 7, 0);
  CHECK_NEAR(s.stddev, 0, 0);
  CHECK_EQ_INT(sb_stats_compute(x, 0, &s), -1);
}

SB_TEST(stats_quantile_endpoints) {
  double x[] = {1, 2, 3, 4, 100};
  CHECK_NEAR(sb_quantile_sorted(x, 5, 0.0), 1, 0);
  CHECK_NEAR(sb_quantile_sorted(x, 5, 1.0), 100, 0);
  CHECK_NEAR(sb_quantile_sorted(x, 5, 0.5), 3, 0); /* robust to the outlier */
}
