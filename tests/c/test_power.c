/* harness/power.c: the throttle rule, reason names, and a missing NVML. */
#include <math.h>

#include "../../harness/csv_schema.h"
#include "../../harness/power.h"
#include "check.h"

SB_TEST(throttle_flags_a_low_witness_clock) {
  CHECK_EQ_INT(sb_throttle_flagged(1400.0, 0.75 * 1980, 0), 1); /* < 1485 */
  CHECK_EQ_INT(sb_throttle_flagged(1500.0, 0.75 * 1980, 0), 0);
  CHECK_EQ_INT(sb_throttle_flagged(NAN, 0.75 * 1980, 0), 0);      /* no reading */
  CHECK_EQ_INT(sb_throttle_flagged(100.0, 0, 0), 0);              /* no threshold */
}

SB_TEST(throttle_flags_transient_reasons_not_the_power_cap) {
  CHECK_EQ_INT(sb_throttle_flagged(1900.0, 1485.0, SB_THR_HW_SLOWDOWN), 1);
  CHECK_EQ_INT(sb_throttle_flagged(NAN, 0, SB_THR_SW_THERMAL), 1);
  CHECK_EQ_INT(sb_throttle_flagged(1900.0, 1485.0, SB_THR_HW_POWER_BRAKE | SB_THR_GPU_IDLE), 1);
  /* Steady state of a compute-bound kernel, idle, app clocks: not flagged. */
  CHECK_EQ_INT(sb_throttle_flagged(1700.0, 1485.0, SB_THR_SW_POWER_CAP), 0);
  CHECK_EQ_INT(sb_throttle_flagged(1700.0, 1485.0, SB_THR_GPU_IDLE | SB_THR_APP_CLOCKS), 0);
}

SB_TEST(throttle_retakes_are_bounded) {
  int left = 2;
  CHECK_EQ_INT(sb_throttle_retake(0, &left), 0);
  CHECK_EQ_INT(left, 2);
  CHECK_EQ_INT(sb_throttle_retake(1, &left), 1);
  CHECK_EQ_INT(sb_throttle_retake(1, &left), 1);
  CHECK_EQ_INT(sb_throttle_retake(1, &left), 0); /* budget spent: kept, flagged */
  CHECK_EQ_INT(left, 0);
}

SB_TEST(throttle_reason_names) {
  char s[96];
  sb_throttle_names(0, s, sizeof s);
  CHECK_STR(s, "");
  sb_throttle_names(SB_THR_SW_POWER_CAP | SB_THR_HW_SLOWDOWN, s, sizeof s);
  CHECK_STR(s, "sw_power_cap;hw_slowdown");
  sb_throttle_names(SB_THR_GPU_IDLE | 0x10000ULL, s, sizeof s);
  CHECK_STR(s, "gpu_idle;0x10000");
  char tiny[8];
  sb_throttle_names(SB_THR_SW_POWER_CAP | SB_THR_HW_THERMAL, tiny, sizeof tiny);
  CHECK(strlen(tiny) < sizeof tiny); /* cut short, still terminated */
}

SB_TEST(nvml_missing_gives_empty_cells_not_a_failure) {
  CHECK(sb_nvml_open("libsyncbench-no-such-nvml.so.1", "0000:00:00.0") == NULL);
  sb_power_acc a;
  sb_power_acc_reset(&a);
  CHECK(sb_nvml_sample(NULL, &a) == 0); /* NULL handle: a no-op */
  CHECK_EQ_INT(a.power_n, 0);
  CHECK_EQ_INT(a.temp_max_c, -1);
  CHECK_EQ_INT(a.reasons_n, 0);
  sb_nvml_close(NULL);
  /* Without a driver (this machine, CI) the real library is absent or finds
   * no device: either way no handle and no crash. */
  sb_nvml *n = sb_nvml_open(NULL, "0000:00:00.0");
  sb_nvml_close(n);
}

#include "../../harness/timing.h"

SB_TEST(witness_clock_is_weighted_by_the_sample_time_it_covers) {
  sb_timer t;
  memset(&t, 0, sizeof t);
  sb_timer_reset(&t);
  CHECK(isnan(sb_timer_clock_mhz(&t))); /* no reading yet: empty cell */
  /* 3 ms of samples after a 1800 MHz reading, then 1 ms after a 1400 MHz one
   * (closed into the sums as timing.c's close_window does), the last window
   * still open. */
  t.clk_sum = 1800.0 * 3e-3;
  t.clk_weight = 3e-3;
  t.window_mhz = 1400.0;
  t.since_witness_s = 1e-3;
  CHECK(fabs(sb_timer_clock_mhz(&t) - 1700.0) < 1e-9);
  t.since_witness_s = 0; /* a reading that covers no sample weighs nothing */
  CHECK(fabs(sb_timer_clock_mhz(&t) - 1800.0) < 1e-9);
}

SB_TEST(median_cycles_reads_each_sample_at_its_own_clock) {
  sb_timer t;
  memset(&t, 0, sizeof t);
  sb_timer_reset(&t);
  CHECK(isnan(sb_timer_median_kcycles(&t))); /* no sample: empty cell */
  /* Two clock levels: the slow launches ran at the low clock, so every
   * sample is the same 3000 kcycles although the median time is either
   * level's; the samples stay in the order taken. */
  double s[] = {2e-3, 1.5e-3, 2e-3, 1.5e-3, 1.5e-3}, mhz[] = {1500, 2000, 1500, 2000, 2000};
  t.samples = s, t.sample_mhz = mhz;
  t.count = t.mhz_count = 5;
  CHECK(fabs(sb_timer_median_kcycles(&t) - 3000.0) < 1e-9);
  CHECK(s[0] == 2e-3 && s[1] == 1.5e-3);
  mhz[3] = 1000; /* one at half the clock: the median is the others' */
  CHECK(fabs(sb_timer_median_kcycles(&t) - 3000.0) < 1e-9);
  mhz[4] = NAN; /* a sample with no reading: no figure */
  CHECK(isnan(sb_timer_median_kcycles(&t)));
  t.mhz_count = 4, mhz[4] = 2000; /* the clocks out of step with the samples */
  CHECK(isnan(sb_timer_median_kcycles(&t)));
}

/* sb_context_adopt's choice over contexts probed one after another: each
 * row {launch probe ns, grid-barrier probe ns}; the index kept. */
static int context_kept(const double (*probe)[2], int n) {
  double fast = INFINITY, best_ns = NAN, best_grid = NAN;
  int kept = -1;
  for (int i = 0; i < n; ++i) {
    fast = fmin(fast, probe[i][0]);
    if (sb_context_prefer(probe[i][0], probe[i][1], best_ns, best_grid, fast))
      kept = i, best_ns = probe[i][0], best_grid = probe[i][1];
  }
  return kept;
}

SB_TEST(context_kept_has_the_fastest_barrier_on_the_fastest_launch_level) {
  /* Two launch levels about 9% apart: the fastest barrier overall sits on
   * the slow level and is passed over; of the fast level's, the fastest
   * barrier, not the fastest launch probe. */
  const double two_levels[][2] = {{1500, 980}, {1640, 930}, {1520, 960}, {1495, 990}, {1650, 940}};
  CHECK_EQ_INT(context_kept(two_levels, 5), 2);
  /* The fast level turns up late: the first context on it wins over a
   * faster barrier off it. */
  const double late[][2] = {{1640, 900}, {1650, 910}, {1500, 1000}};
  CHECK_EQ_INT(context_kept(late, 3), 2);
  /* A new fastest probe moves the level down past the kept context: one
   * on the new level replaces it whatever its barrier. */
  const double lower[][2] = {{1546, 900}, {1500, 1000}}; /* 1546 > 1500 x 1.03 */
  CHECK_EQ_INT(context_kept(lower, 2), 1);
  const double within[][2] = {{1546, 900}, {1502, 1000}}; /* 1546 <= 1502 x 1.03: still on it */
  CHECK_EQ_INT(context_kept(within, 2), 0);
  /* No barrier figure (a cooperative launch refused): the launch probe alone. */
  const double none[][2] = {{1510, NAN}, {1500, NAN}, {1505, 900}};
  CHECK_EQ_INT(context_kept(none, 3), 1);
  CHECK(sb_context_prefer(1500, 900, NAN, NAN, 1500)); /* the first context is kept */
}
