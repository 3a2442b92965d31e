#include "../../harness/cli.h"
#include "check.h"

static int parse(char **argv, sb_cli *c, char *err) {
  int argc = 0;
  while (argv[argc]) ++argc;
  return sb_cli_parse(argc, argv, c, err, 256);
}

SB_TEST(cli_parses_options_and_passes_gbench_flags) {
  char err[256];
  sb_cli c;
  char *argv[] = {"sb", "--quick", "--out", "r/{gpu}/x.csv", "--device=1", "--seed", "99",
                  "--benchmark_repetitions=3", "--iters", "1,16", "--min-time", "0.5", NULL};
  CHECK_EQ_INT(parse(argv, &c, err), 0);
  CHECK_EQ_INT(c.quick, 1);
  CHECK_STR(c.out_path, "r/{gpu}/x.csv");
  CHECK_EQ_INT(c.device, 1);
  CHECK_EQ_INT(c.seed, 99);
  CHECK_EQ_INT(c.gbench_argc, 2);
  CHECK_STR(c.gbench_argv[1], "--benchmark_repetitions=3");
  CHECK_EQ_INT(c.sweeps[0].spec.override[SB_AXIS_ITERS].count, 2);
  CHECK_NEAR(c.min_time_s, 0.5, 0);
  sb_cli_free(&c);
}

SB_TEST(cli_rejects_bad_input_with_one_line) {
  char *cases[][4] = {
      {"sb", "--bogus", NULL},          {"sb", "--block", "0", NULL},
      {"sb", "--block", "abc", NULL},   {"sb", "--block", "", NULL},
      {"sb", "--iters", "1,1", NULL},   {"sb", "--filter", "(", NULL},
      {"sb", "--device", "-1", NULL},   {"sb", "--device", "x", NULL},
      {"sb", "--out", NULL},            {"sb", "--benchmark_repetitions=abc", NULL},
      {"sb", "--seed", "0", NULL},      {"sb", "--min-time", "nan", NULL},
      {"sb", "--warmup", "-3", NULL},   {"sb", "--cooldown-ms", "10001", NULL},
      {"sb", "--cooldown-ms", "1.5", NULL}, {"sb", "--block", "64", "--block"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char *argv[6] = {0};
    for (int k = 0; k < 4 && cases[i][k]; ++k) argv[k] = cases[i][k];
    if (i == sizeof cases / sizeof cases[0] - 1) argv[4] = "128";
    char err[256] = "";
    sb_cli c;
    CHECK_EQ_INT(parse(argv, &c, err), -1);
    CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
  }
}

SB_TEST(cli_profile_warmup_sets_the_runs_flag_and_needs_a_warmup) {
  char err[256];
  sb_cli c;
  char *ok[] = {"sb", "--profile-warmup", "--warmup", "1", NULL};
  CHECK_EQ_INT(parse(ok, &c, err), 0);
  CHECK_EQ_INT(c.profile_warmup, 1);
  sb_cli_free(&c);
  char *plain[] = {"sb", NULL};
  CHECK_EQ_INT(parse(plain, &c, err), 0);
  CHECK_EQ_INT(c.profile_warmup, 0);
  sb_cli_free(&c);
  char *bad[] = {"sb", "--warmup", "0", "--profile-warmup", NULL};
  CHECK_EQ_INT(parse(bad, &c, err), -1);
  CHECK(strstr(err, "--warmup 1 or more") != NULL);
}

SB_TEST(cli_cooldown_is_milliseconds_kept_in_seconds) {
  char err[256];
  sb_cli c;
  char *ok[] = {"sb", "--cooldown-ms", "250", NULL};
  CHECK_EQ_INT(parse(ok, &c, err), 0);
  CHECK(c.cooldown_s > 0.2499 && c.cooldown_s < 0.2501);
  sb_cli_free(&c);
  char *plain[] = {"sb", NULL};
  CHECK_EQ_INT(parse(plain, &c, err), 0);
  CHECK(c.cooldown_s == 0);
  sb_cli_free(&c);
}

SB_TEST(cli_splits_take_auto_and_other_axes_refuse_it) {
  char err[256];
  sb_cli c;
  char *ok[] = {"sb", "--splits", "auto,4,8", NULL};
  CHECK_EQ_INT(parse(ok, &c, err), 0);
  CHECK_EQ_INT(c.sweeps[0].spec.override[SB_AXIS_SPLITS].count, 3);
  CHECK_EQ_INT(c.sweeps[0].spec.override[SB_AXIS_SPLITS].v[0], SB_AXIS_AUTO);
  sb_cli_free(&c);
  char *bad[][3] = {{"--splits", "0"}, {"--splits", "-1"}, {"--m", "auto"}, {"--tile", "auto"},
                    {"--stages", "auto"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char *argv[] = {"sb", bad[i][0], bad[i][1], NULL};
    err[0] = '\0';
    CHECK_EQ_INT(parse(argv, &c, err), -1);
    CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
    if (i >= 2) CHECK(strstr(err, "only splits takes auto") != NULL);
  }
}

SB_TEST(cli_then_starts_a_sweep_of_its_own_filter_and_axes) {
  char err[256];
  sb_cli c;
  char *argv[] = {"sb", "--quick", "--filter", "^gemm/", "--m", "1000", "--out", "x.csv", "--then",
                  "--tile", "64x128x64", "--then", "--filter", "^scan/", "--block", "64", NULL};
  CHECK_EQ_INT(parse(argv, &c, err), 0);
  CHECK_EQ_INT(c.num_sweeps, 3);
  CHECK_EQ_INT(c.sweeps[0].has_filter, 1);
  CHECK_EQ_INT(c.sweeps[0].spec.override[SB_AXIS_M].count, 1);
  CHECK_EQ_INT(c.sweeps[1].has_filter, 0); /* nothing of the first carries over */
  CHECK(c.sweeps[1].spec.filter == NULL);
  CHECK_EQ_INT(c.sweeps[1].spec.override[SB_AXIS_M].count, 0);
  CHECK_EQ_INT(c.sweeps[1].spec.override[SB_AXIS_TILE].count, 1);
  CHECK(c.sweeps[2].spec.filter == &c.sweeps[2].filter);
  CHECK_EQ_INT(c.sweeps[2].spec.override[SB_AXIS_BLOCK].v[0], 64);
  for (int s = 0; s < 3; ++s) CHECK_EQ_INT(c.sweeps[s].spec.quick, 1); /* --quick is the run's */
  CHECK_STR(c.out_path, "x.csv");
  sb_cli_free(&c);
  char *one[] = {"sb", "--filter", "^scan/", NULL};
  CHECK_EQ_INT(parse(one, &c, err), 0);
  CHECK_EQ_INT(c.num_sweeps, 1);
  sb_cli_free(&c);
}

SB_TEST(cli_expands_gpu_placeholder) {
  char out[128];
  sb_expand_out_path("results/{gpu}/latest.csv", "h100-80gb-hbm3", out, sizeof out);
  CHECK_STR(out, "results/h100-80gb-hbm3/latest.csv");
  sb_expand_out_path("plain.csv", "x", out, sizeof out);
  CHECK_STR(out, "plain.csv");
}

SB_TEST(cli_reliability_options) {
  char err[256];
  sb_cli c;
  char *a[] = {"sb", "--devices", "0,2,1", "--watchdog-ms", "250", "--point-timeout", "30",
               "--resume", "r.csv", "--no-reference", NULL};
  CHECK_EQ_INT(parse(a, &c, err), 0);
  CHECK_EQ_INT(c.num_devices, 3);
  CHECK_EQ_INT(c.devices[1], 2);
  CHECK_EQ_INT(c.watchdog_ms, 250);
  CHECK_NEAR(c.point_timeout_s, 30, 0);
  CHECK_STR(c.out_path, "r.csv"); /* --resume appends to its file */
  CHECK_EQ_INT(c.no_reference, 1);
  sb_cli_free(&c);
  char *b[] = {"sb", "--devices=all", NULL};
  CHECK_EQ_INT(parse(b, &c, err), 0);
  CHECK_EQ_INT(c.num_devices, -1);
  sb_cli_free(&c);
  char *d[] = {"sb", NULL};
  CHECK_EQ_INT(parse(d, &c, err), 0);
  CHECK_EQ_INT(c.watchdog_ms, 1000); /* the default bound: 1 s */
  CHECK_EQ_INT(c.num_devices, 0);
  CHECK_EQ_INT(c.no_fork, 0);        /* isolation is the default */
  CHECK_EQ_INT(c.unpaired, 0);       /* ceilings are paired by default */
  sb_cli_free(&c);
  char *u[] = {"sb", "--unpaired", "--no-fork", NULL}; /* the sanitizer's run */
  CHECK_EQ_INT(parse(u, &c, err), 0);
  CHECK_EQ_INT(c.unpaired, 1);
  CHECK_EQ_INT(c.no_fork, 1);
  sb_cli_free(&c);
  char *e[] = {"sb", "--resume", "r.csv", "--out", "r.csv", NULL}; /* same file: fine */
  CHECK_EQ_INT(parse(e, &c, err), 0);
  sb_cli_free(&c);
}

SB_TEST(cli_rejects_bad_reliability_options) {
  char *cases[][6] = {
      {"sb", "--devices", "", NULL},
      {"sb", "--devices", "0,0", NULL},
      {"sb", "--devices", "0,", NULL},
      {"sb", "--devices", "one", NULL},
      {"sb", "--devices", "0", "--device", "1", NULL},
      {"sb", "--devices", "0", "--devices", "1", NULL},
      {"sb", "--devices", "all", "--no-fork", NULL},
      {"sb", "--watchdog-ms", "-5", NULL},
      {"sb", "--watchdog-ms", "1e3", NULL},
      {"sb", "--point-timeout", "-1", NULL},
      {"sb", "--resume", "", NULL},
      {"sb", "--resume", "a.csv", "--out", "b.csv", NULL},
      {"sb", "--resume", "results/{gpu}/x.csv", NULL},
      {"sb", "--resume", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char err[256] = "";
    sb_cli c;
    CHECK_EQ_INT(parse(cases[i], &c, err), -1);
    CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
  }
}

SB_TEST(cli_gbench_flags_set_what_they_mean) {
  char err[256];
  sb_cli c;
  char *a[] = {"sb", "--benchmark_list_tests", "--benchmark_repetitions=4",
               "--benchmark_out=r/{gpu}.json", "--benchmark_out_format=json",
               "--benchmark_format=json", "--benchmark_report_aggregates_only=false",
               "--benchmark_display_aggregates_only=yes", "--benchmark_min_time=0.25s",
               "--benchmark_time_unit=ms", "--benchmark_context=a=1,b=2",
               "--benchmark_color=auto", "--benchmark_filter=^scan/", NULL};
  CHECK_EQ_INT(parse(a, &c, err), 0);
  CHECK_EQ_INT(c.list_tests, 1);
  CHECK_EQ_INT(c.repetitions, 4);
  CHECK_STR(c.json_out, "r/{gpu}.json");
  CHECK_EQ_INT(c.json_stdout, 1);
  CHECK_EQ_INT(c.report_aggregates_only, 0);
  CHECK_EQ_INT(c.display_aggregates_only, 1);
  CHECK_NEAR(c.min_time_s, 0.25, 0); /* the same as --min-time */
  CHECK_EQ_INT(c.sweeps[0].has_filter, 1); /* the same as --filter */
  /* Only what Google Benchmark itself acts on is handed to it. */
  CHECK_EQ_INT(c.gbench_argc, 4);
  CHECK_STR(c.gbench_argv[1], "--benchmark_repetitions=4");
  CHECK_STR(c.gbench_argv[2], "--benchmark_time_unit=ms");
  CHECK_STR(c.gbench_argv[3], "--benchmark_context=a=1,b=2");
  CHECK(c.gbench_argv[4] == NULL);
  sb_cli_free(&c);
}

SB_TEST(cli_gbench_bad_value_names_flag_and_value) {
  struct { char *arg; const char *want; } cases[] = {
      {"--benchmark_repetitions=abc", "--benchmark_repetitions=abc: not a positive integer (1 to 1000)"},
      {"--benchmark_repetitions=-2", "--benchmark_repetitions=-2: not a positive integer (1 to 1000)"},
      {"--benchmark_min_time=fast", "--benchmark_min_time=fast: not a number of seconds in (0, 60]"},
      {"--benchmark_list_tests=perhaps", "--benchmark_list_tests=perhaps: not true or false"},
      {"--benchmark_time_unit=min", "--benchmark_time_unit=min: not one of ns, us, ms, s"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char err[256] = "";
    sb_cli c;
    char *argv[] = {"sb", cases[i].arg, NULL};
    CHECK_EQ_INT(parse(argv, &c, err), -1);
    CHECK_STR(err, cases[i].want);
  }
}
