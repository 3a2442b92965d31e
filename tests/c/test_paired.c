/* harness/paired.c: finding the ceiling by its flag (not its place in the
 * table), the ceiling point, and the paired ratio. A fake family. */
#include <math.h>
#include <stdlib.h>

#include "../../harness/paired.h"
#include "../../harness/timing.h"
#include "check.h"

static cudaError_t no_launch(sb_launch *L) {
  (void)L;
  return cudaSuccess;
}

/* The ceiling is the LAST row: no order dependence. */
static const sb_variant fake_rows[] = {
    {"plain", no_launch, NULL, 0, SB_VF_BASELINE, "a variant", {0}},
    {"other", no_launch, NULL, 0, 0, "another", {0}},
    {"lib", no_launch, NULL, 0, SB_VF_CEILING | SB_VF_NO_KERNEL, "the ceiling", {0}},
};
static const sb_variant_table fake_table = {fake_rows, 3};

/* Like gemm's: the ceiling picks its own tiles, so it leaves tile and
 * stages unset. */
static int fake_in_sweep(sb_point *p, unsigned long long user_axes) {
  (void)user_axes;
  if (p->variant->flags & SB_VF_CEILING)
    p->axis[SB_AXIS_TILE] = p->axis[SB_AXIS_STAGES] = SB_AXIS_UNSET;
  return p->axis[SB_AXIS_M] != 3; /* no point at m = 3 */
}

static const sb_family fake = {.name = "fake", .variants = &fake_table,
                               .ceiling_column = "pct_of_cub", .in_sweep = fake_in_sweep};
static const sb_family no_ceiling = {.name = "plain", .variants = &(sb_variant_table){fake_rows, 2}};

static sb_point fake_point(const sb_family *f, int variant) {
  sb_point p = {.family = f, .variant = &fake_rows[variant]};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_M] = 1024;
  p.axis[SB_AXIS_K] = 2048;
  p.axis[SB_AXIS_TILE] = 7;
  p.axis[SB_AXIS_STAGES] = 4;
  return p;
}

SB_TEST(paired_ceiling_found_by_flag_anywhere_in_the_table) {
  CHECK(sb_family_ceiling(&fake) == &fake_rows[2]);
  CHECK(sb_family_ceiling(&no_ceiling) == NULL);
}

/* A variant flagged SB_VF_P75_RATIO reads the 75th percentiles whatever
 * its family reads; the others read the family's. */
SB_TEST(paired_reading_is_the_familys_unless_the_variant_says_p75) {
  static const sb_variant placed = {"placed", no_launch, NULL, 0, SB_VF_P75_RATIO, "read at p75", {0}};
  const sb_family p01 = {.name = "p01", .variants = &fake_table, .ceiling_column = "pct_of_cublas",
                         .ceiling_reading = SB_RATIO_P01};
  CHECK(sb_variant_reading(&p01, &fake_rows[1]) == SB_RATIO_P01);
  CHECK(sb_variant_reading(&p01, &placed) == SB_RATIO_P75);
  CHECK(sb_variant_reading(&p01, NULL) == SB_RATIO_P01);
}

/* A variant read at its upper quartile takes SB_MODE_PLACES_X times the
 * places, up to SB_PLACEMENTS_MAX; the others the places asked for. */
SB_TEST(paired_p75_variant_takes_more_places_up_to_the_most) {
  static const sb_variant median = {"placed", no_launch, NULL, 0, SB_VF_P75_RATIO, "read at p75", {0}};
  CHECK_EQ_INT(sb_variant_placements(&fake_rows[1], 8), 8);
  CHECK_EQ_INT(sb_variant_placements(NULL, 8), 8);
  CHECK_EQ_INT(sb_variant_placements(&median, 8), 8 * SB_MODE_PLACES_X);
  CHECK_EQ_INT(sb_variant_placements(&median, 1), SB_MODE_PLACES_X);
  CHECK_EQ_INT(sb_variant_placements(&median, SB_PLACEMENTS_MAX), SB_PLACEMENTS_MAX);
  CHECK_EQ_INT(sb_variant_placements(&median, SB_PLACEMENTS_MAX / 2), SB_PLACEMENTS_MAX);
}

SB_TEST(paired_ceiling_point_blanks_what_the_ceiling_leaves_unset) {
  sb_point p = fake_point(&fake, 1), cp;
  CHECK_EQ_INT(sb_ceiling_point(&p, &cp), 0);
  CHECK(cp.variant == &fake_rows[2]);
  CHECK(cp.axis[SB_AXIS_M] == 1024 && cp.axis[SB_AXIS_K] == 2048);
  CHECK(cp.axis[SB_AXIS_TILE] == SB_AXIS_UNSET && cp.axis[SB_AXIS_STAGES] == SB_AXIS_UNSET);
  CHECK(p.axis[SB_AXIS_TILE] == 7); /* p itself untouched */
  sb_point self = fake_point(&fake, 2);
  CHECK_EQ_INT(sb_ceiling_point(&self, &cp), 1); /* the ceiling pairs with nothing */
  sb_point lone = fake_point(&no_ceiling, 0);
  CHECK_EQ_INT(sb_ceiling_point(&lone, &cp), 1);
  p.axis[SB_AXIS_M] = 3;
  CHECK_EQ_INT(sb_ceiling_point(&p, &cp), -1); /* the family has no such point */
}

SB_TEST(paired_pct_cancels_what_favours_one_place_in_the_pair) {
  /* The second launch of every pair is 10% slower (a power state that
   * moves within the pair): v c c v blocks see it once on each side, and
   * each side's fastest sample is a first launch. */
  double v[] = {1.0, 1.1, 1.0, 1.1, 1.0, 1.1};
  double c[] = {2.2, 2.0, 2.2, 2.0, 2.2, 2.0};
  CHECK(fabs(sb_paired_pct(v, c, 6, SB_RATIO_BLOCK_MEDIAN) - 200.0) < 1e-9);
  CHECK(fabs(sb_paired_pct(v, c, 6, SB_RATIO_FASTEST) - 200.0) < 1e-9);
  /* Each pair alone reads 2.2 or 1.82: neither is the truth. */
  CHECK(v[1] == 1.1 && c[0] == 2.2); /* the arrays are left in their order */
}

SB_TEST(paired_pct_block_median_ignores_an_outlier_block_and_a_lone_pair) {
  /* Blocks of ratio 0.5, 0.5 and 3.0 (an outlier): the median is 0.5. A
   * seventh pair has no partner and does not count. */
  double v[] = {2, 2, 2, 2, 1, 1, 1};
  double c[] = {1, 1, 1, 1, 3, 3, 100};
  CHECK(fabs(sb_paired_pct(v, c, 7, SB_RATIO_BLOCK_MEDIAN) - 50.0) < 1e-9);
  /* The same samples read fastest against fastest: 1 / 1. */
  CHECK(fabs(sb_paired_pct(v, c, 7, SB_RATIO_FASTEST) - 100.0) < 1e-9);
}

SB_TEST(paired_pct_fastest_follows_neither_a_tail_nor_the_power_ramp) {
  /* A slow tail on one side (the ceiling after a cold launch): the block
   * median of the two blocks reads 375. */
  double v[] = {1, 1, 1, 1};
  double c[] = {2, 2, 9, 2};
  CHECK(fabs(sb_paired_pct(v, c, 4, SB_RATIO_FASTEST) - 200.0) < 1e-9);
  CHECK(fabs(sb_paired_pct(v, c, 4, SB_RATIO_BLOCK_MEDIAN) - 375.0) < 1e-9);
  /* A ramp into the power cap slows the variant by 30% and the ceiling by
   * 20%: the fastest of each is from the first block, before the cap. */
  double vr[] = {1.0, 1.0, 1.3, 1.3};
  double cr[] = {0.5, 0.5, 0.6, 0.6};
  CHECK(fabs(sb_paired_pct(vr, cr, 4, SB_RATIO_FASTEST) - 50.0) < 1e-9);
  /* A trailing odd pair has no partner and does not count. */
  double v3[] = {2, 2, 1}, c3[] = {1, 1, 0.1};
  CHECK(fabs(sb_paired_pct(v3, c3, 3, SB_RATIO_FASTEST) - 50.0) < 1e-9);
}

SB_TEST(paired_pct_of_one_pair_none_or_no_positive_sample) {
  for (int reading = SB_RATIO_BLOCK_MEDIAN; reading <= SB_RATIO_P75; ++reading) {
    const sb_ratio_reading r = (sb_ratio_reading)reading;
    double v1[] = {1.0}, c1[] = {2.0};
    CHECK(fabs(sb_paired_pct(v1, c1, 1, r) - 200.0) < 1e-9); /* one pair: its own ratio */
    CHECK(isnan(sb_paired_pct(v1, c1, 0, r)));                /* ceiling failed: empty */
    double z[] = {0.0, 0.0};
    CHECK(isnan(sb_paired_pct(z, z, 2, r)));
    CHECK(isnan(sb_paired_pct(z, c1, 1, r)));
    CHECK(isnan(sb_paired_pct(v1, z, 1, r)));
  }
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_FASTEST), "fastest");
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_BLOCK_MEDIAN), "block_median");
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_LOW_QUARTILE), "low_quartile");
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_P10), "p10");
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_P05), "p05");
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_P01), "p01");
  CHECK_STR(sb_ratio_reading_name(SB_RATIO_P75), "p75");
}

SB_TEST(paired_pct_p75_reads_the_slow_level_whatever_the_share_of_fast_places) {
  /* A variant whose launches are fast (0.75) at some places and slow (1.0)
   * at the rest, the share of fast ones 6, 25 or 44 of 100 by process (the
   * multicast 1x2 point's three processes at ccb87e3 took 2, 8 and 29% of
   * their samples fast), spread over the blocks: the block median moves
   * with the share; the 75th percentile reads the slow level (70%) while
   * under three quarters of the samples are fast. */
  double v[100], c[100];
  for (int j = 0; j < 100; ++j) c[j] = 0.7;
  double median_at[3];
  for (int i = 0, share = 6; share <= 44; share += 19, ++i) {
    for (int j = 0; j < 100; ++j) v[j] = (j * 7) % 100 < share ? 0.75 : 1.0;
    CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_P75) - 70.0) < 1e-9);
    median_at[i] = sb_paired_pct(v, c, 100, SB_RATIO_BLOCK_MEDIAN);
  }
  CHECK(median_at[2] > median_at[0] + 1.0); /* the median did move */
  for (int j = 0; j < 100; ++j) v[j] = (j * 7) % 100 < 80 ? 0.75 : 1.0; /* most samples fast */
  CHECK(sb_paired_pct(v, c, 100, SB_RATIO_P75) > 90.0);                 /* then p75 reads them */
}

SB_TEST(paired_pct_low_percentiles_read_a_common_fast_mode_not_a_rare_one) {
  /* The variant's launches: a fast mode (0.8) in a share that differs by
   * process (30 or 40 of 100) beside a slow one (1.0), and in one process
   * a rare faster mode (one launch at 0.6). The lower quartile moves with
   * the share where it crosses 25%; the 5th and 10th percentiles stay on
   * the fast mode; the fastest sample follows the rare one. */
  double v[100], c[100];
  for (int j = 0; j < 100; ++j) c[j] = 0.9;
  for (int share = 30; share <= 40; share += 10) {
    for (int j = 0; j < 100; ++j) v[j] = (j * 7) % 100 < share ? 0.8 : 1.0;
    CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_P05) - 112.5) < 1e-9);
    CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_P10) - 112.5) < 1e-9);
  }
  for (int j = 0; j < 100; ++j) v[j] = (j * 7) % 100 < 20 ? 0.8 : 1.0; /* a share under 25% */
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_LOW_QUARTILE) - 90.0) < 1e-9);
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_P10) - 112.5) < 1e-9);
  v[3] = 0.6; /* one rare faster launch */
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_FASTEST) - 150.0) < 1e-9);
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_P05) - 112.5) < 1e-9);
  /* The 1st percentile of 100 lies between the fastest and the next: the
   * one rare launch pulls it a hundredth of the way, not to itself. */
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_P01) - 100.0 * 0.9 / (0.8 - 0.01 * 0.2)) < 1e-9);
}

SB_TEST(paired_pct_low_quartile_does_not_follow_a_rare_fast_mode) {
  /* One launch in 100 of the variant lands in a rare fast mode (25% faster:
   * a placement some processes get and others do not): the fastest sample
   * follows it, the lower quartile stays on the bulk of the samples. */
  double v[100], c[100];
  for (int j = 0; j < 100; ++j) v[j] = 1.0, c[j] = 0.9;
  v[37] = 0.75;
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_FASTEST) - 120.0) < 1e-9);
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_LOW_QUARTILE) - 90.0) < 1e-9);
  CHECK(v[37] == 0.75 && v[0] == 1.0); /* the arrays are left in their order */
  /* A slow tail on either side moves it no more than the fastest reading */
  for (int j = 90; j < 100; ++j) c[j] = 5.0;
  CHECK(fabs(sb_paired_pct(v, c, 100, SB_RATIO_LOW_QUARTILE) - 90.0) < 1e-9);
}

SB_TEST(paired_samples_line_is_json_in_the_order_taken) {
  double v[] = {0.5, 0.25}, c[] = {1.5, 0.125};
  char *line = sb_pairs_line("gemm/ring/m=8192", v, c, NULL, 2);
  CHECK(line != NULL);
  CHECK_STR(line, "{\"point\": \"gemm/ring/m=8192\", \"variant_s\": [0.5, 0.25], "
                     "\"ceiling_s\": [1.5, 0.125]}\n");
  free(line);
  line = sb_pairs_line("x", v, c, NULL, 0);
  CHECK_STR(line, "{\"point\": \"x\", \"variant_s\": [], \"ceiling_s\": []}\n");
  free(line);
  /* each pair's witness clock beside it: a missing reading is JSON's null */
  double mhz[] = {1980.5, NAN};
  line = sb_pairs_line("x", v, c, mhz, 2);
  CHECK_STR(line, "{\"point\": \"x\", \"variant_s\": [0.5, 0.25], \"ceiling_s\": [1.5, 0.125], "
                  "\"mhz\": [1980.5, null]}\n");
  free(line);
}

SB_TEST(paired_samples_path_takes_the_process_id) {
  char out[32];
  CHECK_STR(sb_pairs_path("pairs_%p.jsonl", 4242, out, sizeof out), "pairs_4242.jsonl");
  CHECK_STR(sb_pairs_path("a%pb%p", 7, out, sizeof out), "a7b7");
  CHECK_STR(sb_pairs_path("plain.jsonl", 7, out, sizeof out), "plain.jsonl");
  CHECK_STR(sb_pairs_path("100%", 7, out, sizeof out), "100%");
  CHECK(sb_pairs_path("pairs_%p.jsonl", 4242, out, 16) == NULL); /* 16 chars and its end do not fit 16 */
  CHECK(sb_pairs_path("x", 1, out, 0) == NULL);
}

SB_TEST(paired_ceiling_cell_by_column_name) {
  sb_row row;
  sb_row_init(&row, NULL);
  CHECK(sb_ceiling_cell(&row, "pct_of_cublas") == &row.pct_of_cublas);
  CHECK(sb_ceiling_cell(&row, "pct_of_cub") == &row.pct_of_cub);
  CHECK(sb_ceiling_cell(&row, "gbps") == NULL);
  CHECK(sb_ceiling_cell(&row, NULL) == NULL);
}

SB_TEST(paired_gemm_pairs_with_cublas_at_the_same_shape) {
  const sb_family *g = sb_find_family("gemm");
  CHECK(g && g->ceiling_column && !strcmp(g->ceiling_column, "pct_of_cublas"));
  if (!g) return;
  const sb_variant *c = sb_family_ceiling(g);
  CHECK(c && (c->flags & SB_VF_NO_KERNEL));
  const sb_variant *other = NULL;
  for (int i = 0; i < g->variants->count; ++i)
    if (!(g->variants->rows[i].flags & SB_VF_CEILING)) other = &g->variants->rows[i];
  if (!c || !other) return;
  sb_point p = {.family = g, .variant = other}, cp;
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_M] = p.axis[SB_AXIS_K] = 2048;
  p.axis[SB_AXIS_TILE] = 0;
  p.axis[SB_AXIS_STAGES] = 3;
  p.axis[SB_AXIS_WARPS] = 8;
  CHECK(g->in_sweep(&p, ~0ULL)); /* as if the user gave every axis: kept */
  CHECK(p.axis[SB_AXIS_N] == 2048); /* n filled: N = M */
  CHECK_EQ_INT(sb_ceiling_point(&p, &cp), 0);
  CHECK(cp.variant == c);
  CHECK(cp.axis[SB_AXIS_M] == 2048 && cp.axis[SB_AXIS_K] == 2048 && cp.axis[SB_AXIS_N] == 2048);
  CHECK(cp.axis[SB_AXIS_TILE] == SB_AXIS_UNSET && cp.axis[SB_AXIS_STAGES] == SB_AXIS_UNSET);
}
