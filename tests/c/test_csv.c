#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "../../bench/registry.h"
#include "../../harness/csv_schema.h"
#include "../../harness/runner.h"
#include "check.h"

static sb_provenance test_prov(void) {
  sb_provenance p;
  memset(&p, 0, sizeof p);
  snprintf(p.gpu_name, sizeof p.gpu_name, "NVIDIA Test, \"GPU\"");
  snprintf(p.cc, sizeof p.cc, "9.0");
  p.sm_count = 132;
  return p;
}

/* Writes one row through the real writer and reads the record back. */
static int write_and_split(const sb_row *row, char *buf, size_t len, char **fields, int max) {
  FILE *f = tmpfile();
  sb_csv_write_row(f, row);
  rewind(f);
  size_t got = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[got] = '\0';
  if (got && buf[got - 1] == '\n') buf[got - 1] = '\0';
  return sb_csv_split(buf, fields, max);
}

static int column(const char *name) {
  for (int i = 0; i < sb_csv_num_columns(); ++i)
    if (!strcmp(sb_csv_column_name(i), name)) return i;
  return -1;
}

SB_TEST(csv_every_axis_has_its_column) {
  for (int a = 0; a < SB_NUM_AXES; ++a) CHECK(column(sb_axes[a].name) >= 0);
  const char *required[] = {"family", "variant", "status", "detail", "samples", "median_us",
                            "min_us", "max_us", "cv_pct", "bytes_moved", "gbps", "pct_of_copy",
                            "gpu_name", "gpu_uuid", "cc", "sm_count", "sm_clock_mhz", "driver",
                            "cuda", "commit", "run_utc", "q1_us", "q3_us", "schema_version",
                            /* schema 3 */
                            "sm_clock_after_mhz", "power_w", "temp_c", "throttle_reasons",
                            "throttled", "pct_of_cub", "pct_of_cublas", "m", "k", "tile",
                            /* schema 4, 5, 7 */
                            "ceiling_us", "epilogue_pct", "splits", "splits_used",
                            /* schema 10 */
                            "mainloop", "consumer", "schedule", "epilogue"};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i)
    CHECK(column(required[i]) >= 0);
  for (int i = 0; i < sb_csv_num_columns(); ++i)
    for (int j = i + 1; j < sb_csv_num_columns(); ++j)
      CHECK(strcmp(sb_csv_column_name(i), sb_csv_column_name(j)) != 0);
}

SB_TEST(csv_row_round_trips_with_quoting_and_empty_cells) {
  sb_provenance prov = test_prov();
  sb_row row;
  sb_row_init(&row, &prov);
  row.family = "scan";
  row.variant = "pingpong";
  row.axis[SB_AXIS_BLOCK] = 256;
  row.axis[SB_AXIS_PARTICIPANTS] = 2;
  row.status = SB_SKIPPED;
  snprintf(row.detail, sizeof row.detail, "a, \"quoted\"\nline");
  row.median_us = 12.5;
  char buf[4096], *fields[128];
  int n = write_and_split(&row, buf, sizeof buf, fields, 128);
  CHECK_EQ_INT(n, sb_csv_num_columns());
  if (n != sb_csv_num_columns()) return;
  CHECK_STR(fields[column("family")], "scan");
  CHECK_STR(fields[column("block_threads")], "256");
  CHECK_STR(fields[column("stages")], "");          /* unset axis: empty */
  CHECK_STR(fields[column("participants")], "elected"); /* categorical by name */
  CHECK_STR(fields[column("status")], "skipped");
  CHECK_STR(fields[column("detail")], "a, \"quoted\"\nline");
  CHECK_STR(fields[column("median_us")], "12.5000");
  CHECK_STR(fields[column("min_us")], "");          /* NaN: empty */
  CHECK_STR(fields[column("samples")], "");         /* -1: empty */
  CHECK_STR(fields[column("placements")], "");      /* not timed: empty */
  CHECK_STR(fields[column("gpu_name")], "NVIDIA Test, \"GPU\"");
  CHECK_STR(fields[column("schema_version")], "18");
  CHECK_STR(fields[column("mainloop")], "");        /* not a composed variant: empty */
  CHECK_STR(fields[column("epilogue")], "");
  CHECK_STR(fields[column("epilogue_pct")], "");    /* not a gemm row: empty */
  CHECK_STR(fields[column("ceiling_us")], "");      /* no paired ceiling: empty */
  CHECK_STR(fields[column("power_w")], "");         /* no NVML: empty */
  CHECK_STR(fields[column("temp_c")], "");
  CHECK_STR(fields[column("throttle_reasons")], "");
  CHECK_STR(fields[column("throttled")], "");       /* not timed: empty */
  CHECK_STR(fields[column("regs_per_thread")], ""); /* -1: empty */
  CHECK_STR(fields[column("splits")], "");          /* no splits axis */
  CHECK_STR(fields[column("splits_used")], "");
}

/* Schema 10: a row's composition columns come from its variant's table row
 * (sb_row_of_point): every gemm kernel variant has all four parts, named
 * as its composition states them; cuBLAS and the other families none. */
SB_TEST(csv_composition_columns_come_from_the_variant) {
  const sb_family *f = sb_find_family("gemm");
  CHECK(f != NULL);
  if (!f) return;
  sb_provenance prov = test_prov();
  int composed = 0;
  for (int v = 0; v < f->variants->count; ++v) {
    sb_point p = {f, &f->variants->rows[v], {0}};
    sb_row row;
    sb_row_init(&row, &prov);
    sb_row_of_point(&row, &p);
    char buf[8192], *fields[128];
    const int n = write_and_split(&row, buf, sizeof buf, fields, 128);
    CHECK_EQ_INT(n, sb_csv_num_columns());
    if (n != sb_csv_num_columns()) return;
    CHECK_STR(fields[column("variant")], p.variant->name);
    const int library = (p.variant->flags & SB_VF_NO_KERNEL) != 0;
    const char *parts[] = {"mainloop", "consumer", "schedule", "epilogue"};
    for (int c = 0; c < 4; ++c) CHECK_EQ_INT(fields[column(parts[c])][0] == '\0', library);
    composed += !library;
  }
  CHECK(composed >= 19);
  const sb_variant *ring = NULL, *reduce = NULL;
  for (int v = 0; v < f->variants->count; ++v) {
    if (!strcmp(f->variants->rows[v].name, "ring")) ring = &f->variants->rows[v];
    if (!strcmp(f->variants->rows[v].name, "splitk_reduce")) reduce = &f->variants->rows[v];
  }
  CHECK(ring && reduce);
  if (!ring || !reduce) return;
  CHECK_STR(ring->composition.mainloop, "cp_async_ring");
  CHECK_STR(ring->composition.consumer, "mma_sync");
  CHECK_STR(reduce->composition.schedule, "split_k_reduce");
  CHECK_STR(reduce->composition.epilogue, "direct");
  const sb_family *scan = sb_find_family("scan");
  if (scan) CHECK(scan->variants->rows[0].composition.mainloop == NULL);
}

/* Schema 8: elapsed_s is empty until the sweep's start is set, then the
 * seconds since it (a run's wall time is its largest cell). */
SB_TEST(csv_elapsed_s_counts_from_the_sweep_start) {
  sb_provenance prov = test_prov();
  sb_row row;
  sb_row_init(&row, &prov);
  row.family = "scan";
  row.variant = "pingpong";
  char buf[4096], *fields[128];
  int n = write_and_split(&row, buf, sizeof buf, fields, 128);
  CHECK_EQ_INT(n, sb_csv_num_columns());
  if (n != sb_csv_num_columns()) return;
  CHECK_STR(fields[column("elapsed_s")], "");
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  sb_csv_set_sweep_start((double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - 5.0);
  n = write_and_split(&row, buf, sizeof buf, fields, 128);
  CHECK_EQ_INT(n, sb_csv_num_columns());
  if (n != sb_csv_num_columns()) return;
  const double elapsed = atof(fields[column("elapsed_s")]);
  CHECK(elapsed >= 5.0 && elapsed < 60.0);
  sb_csv_set_sweep_start(NAN); /* other tests write rows without a sweep */
}

/* Schema 7: a splits=auto point's splits cell reads "auto" and
 * splits_used the count the kernel ran with; an explicit count has both. */
SB_TEST(csv_auto_splits_cell_and_splits_used) {
  sb_provenance prov = test_prov();
  sb_row row;
  sb_row_init(&row, &prov);
  row.family = "gemm";
  row.variant = "splitk_parallel";
  row.axis[SB_AXIS_M] = 1024;
  row.axis[SB_AXIS_K] = 16384;
  row.axis[SB_AXIS_SPLITS] = SB_AXIS_AUTO;
  row.splits_used = 4;
  char buf[4096], *fields[128];
  int n = write_and_split(&row, buf, sizeof buf, fields, 128);
  CHECK_EQ_INT(n, sb_csv_num_columns());
  if (n != sb_csv_num_columns()) return;
  CHECK_STR(fields[column("splits")], "auto");
  CHECK_STR(fields[column("splits_used")], "4");
  row.axis[SB_AXIS_SPLITS] = 8;
  row.splits_used = 8;
  n = write_and_split(&row, buf, sizeof buf, fields, 128);
  CHECK_EQ_INT(n, sb_csv_num_columns());
  if (n != sb_csv_num_columns()) return;
  CHECK_STR(fields[column("splits")], "8");
  CHECK_STR(fields[column("splits_used")], "8");
  CHECK(column("splits_used") > column("status")); /* a reading, not an axis (not in a point's key) */
}

SB_TEST(csv_header_matches_columns) {
  FILE *f = tmpfile();
  sb_csv_write_header(f);
  rewind(f);
  char buf[4096], *fields[128];
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[got] = '\0';
  CHECK(got > 0 && buf[got - 1] == '\n');
  buf[got - 1] = '\0';
  int n = sb_csv_split(buf, fields, 128);
  CHECK_EQ_INT(n, sb_csv_num_columns());
  for (int i = 0; i < n && i < sb_csv_num_columns(); ++i) CHECK_STR(fields[i], sb_csv_column_name(i));
}

SB_TEST(csv_split_rejects_malformed_records) {
  char *fields[8];
  char a[] = "x,\"unterminated";
  CHECK_EQ_INT(sb_csv_split(a, fields, 8), -1);
  char b[] = "x,\"q\"tail";
  CHECK_EQ_INT(sb_csv_split(b, fields, 8), -1);
  char c[] = "x,a\"b";
  CHECK_EQ_INT(sb_csv_split(c, fields, 8), -1);
  char d[] = "1,2,3,4,5,6,7,8,9";
  CHECK_EQ_INT(sb_csv_split(d, fields, 8), -1); /* more fields than room */
  char e[] = ",,";
  CHECK_EQ_INT(sb_csv_split(e, fields, 8), 3);
  char g[] = "\"\"\"\"";
  CHECK_EQ_INT(sb_csv_split(g, fields, 8), 1);
  CHECK_STR(fields[0], "\"");
}

SB_TEST(csv_status_names_cover_every_status) {
  for (int s = 0; s < SB_NUM_STATUS; ++s) CHECK(sb_status_names[s] && sb_status_names[s][0]);
  CHECK_STR(sb_status_names[SB_OK], "ok");
  CHECK_STR(sb_status_names[SB_UNSUPPORTED], "unsupported");
}
