/* The Google Benchmark shim without a GPU: a fake iteration stands in for
 * the CUDA-event timing, so --benchmark_out's JSON (gbench's own
 * JSONReporter) and --benchmark_repetitions are checked on any host. */
#include <stdlib.h>

#include "../../harness/gbench_shim.h"
#include "check.h"

static int fake_calls;

static int fake_iteration(void *ctx, double *seconds, char *err, size_t errlen) {
  (void)ctx, (void)err, (void)errlen;
  ++fake_calls;
  *seconds = 2e-6;
  return 0;
}

static int failing_iteration(void *ctx, double *seconds, char *err, size_t errlen) {
  (void)ctx, (void)seconds;
  snprintf(err, errlen, "kernel: an illegal memory access was encountered");
  return -1;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) ++n;
  return n;
}

static char *json_of(int aggregates_only) {
  FILE *f = tmpfile();
  char err[256];
  CHECK(f != NULL);
  CHECK_EQ_INT(gbs_write_json(f, aggregates_only, err, sizeof err), 0);
  long len = ftell(f);
  rewind(f);
  char *text = calloc((size_t)len + 1, 1);
  CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
  fclose(f);
  return text;
}

SB_TEST(gbench_json_records_repetitions_and_keeps_the_retake) {
  char err[256];
  char *argv[] = {"syncbench", "--benchmark_repetitions=2", "--benchmark_time_unit=us",
                  "--benchmark_context=host_note=ci", NULL};
  CHECK_EQ_INT(gbs_initialize(4, argv, err, sizeof err), 0);
  CHECK_EQ_INT(gbs_record_json(err, sizeof err), 0);
  gbs_set_label("GPU 0: Fake GPU");
  fake_calls = 0;
  CHECK_EQ_INT(gbs_run_one("fam/a/n=1", fake_iteration, NULL, 0.001, err, sizeof err), 0);
  int first_calls = fake_calls;
  CHECK(first_calls >= 2); /* two repetitions, each one at least one iteration */
  /* A re-take of the same point (runner.c, low SM clock) replaces it. */
  CHECK_EQ_INT(gbs_run_one("fam/a/n=1", fake_iteration, NULL, 0.001, err, sizeof err), 0);
  /* Timed, then its output failed the check: out of the JSON. */
  CHECK_EQ_INT(gbs_run_one("fam/c/n=1", fake_iteration, NULL, 0.001, err, sizeof err), 0);
  gbs_discard_last("fam/c/n=1");
  CHECK_EQ_INT(gbs_run_one("fam/b/n=1", failing_iteration, NULL, 0.001, err, sizeof err), 1);
  CHECK(strstr(err, "illegal memory access") != NULL);

  char *all = json_of(0);
  if (getenv("SB_SHOW_JSON")) fputs(all, stderr);
  CHECK(strncmp(all, "{\n  \"context\": {", 16) == 0);
  CHECK(strstr(all, "\"host_note\": \"ci\"") != NULL);    /* --benchmark_context */
  CHECK(strstr(all, "\"benchmarks\": [") != NULL);
  CHECK(strstr(all, "fam/c/") == NULL);
  CHECK(strstr(all, "\n  ]\n}\n") != NULL);
  /* fam/a: 2 repetitions + mean, median, stddev, cv, once (the re-take). */
  CHECK_EQ_INT(count(all, "\"run_name\": \"fam/a/n=1/min_time:0.001/manual_time\""), 6);
  CHECK_EQ_INT(count(all, "\"repetition_index\": 1,"), 2); /* fam/a's and fam/b's */
  CHECK_EQ_INT(count(all, "\"aggregate_name\": \"mean\""), 1);
  /* fam/a's 6 and fam/b's 2 failed repetitions (no aggregates) */
  CHECK_EQ_INT(count(all, "\"time_unit\": \"us\""), 8);        /* --benchmark_time_unit */
  CHECK_EQ_INT(count(all, "\"label\": \"GPU 0: Fake GPU\""), 8);
  CHECK(strstr(all, "\"real_time\": 2.00000000000") != NULL); /* 2 us: the manual time */
  /* fam/b failed: gbench's error run is there. */
  CHECK(strstr(all, "\"error_occurred\": true") != NULL);
  CHECK(strstr(all, "illegal memory access") != NULL);
  free(all);

  char *agg = json_of(1); /* --benchmark_report_aggregates_only */
  CHECK_EQ_INT(count(agg, "\"run_name\": \"fam/a/n=1/min_time:0.001/manual_time\""), 4);
  CHECK_EQ_INT(count(agg, "\"run_type\": \"iteration\""), 2); /* fam/b: no aggregates, its runs stay */
  free(agg);

  /* The flags stay set for the process: no other host test runs gbench. */
  gbs_set_label(NULL);
}
