#include "../bench/cli.h"
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
  CHECK_EQ_INT(c.spec.quick, 1);
  CHECK_STR(c.out_path, "r/{gpu}/x.csv");
  CHECK_EQ_INT(c.device, 1);
  CHECK_EQ_INT(c.seed, 99);
  CHECK_EQ_INT(c.gbench_argc, 2);
  CHECK_STR(c.gbench_argv[1], "--benchmark_repetitions=3");
  CHECK_EQ_INT(c.spec.override[SB_AXIS_ITERS].count, 2);
  CHECK_NEAR(c.min_time_s, 0.5, 0);
  sb_cli_free(&c);
}

SB_TEST(cli_rejects_bad_input_with_one_line) {
  char *cases[][4] = {
      {"sb", "--bogus", NULL},          {"sb", "--block", "0", NULL},
      {"sb", "--block", "abc", NULL},   {"sb", "--block", "", NULL},
      {"sb", "--iters", "1,1", NULL},   {"sb", "--filter", "(", NULL},
      {"sb", "--device", "-1", NULL},   {"sb", "--device", "x", NULL},
      {"sb", "--out", NULL},            {"sb", "--benchmark_out=f.json", NULL},
      {"sb", "--seed", "0", NULL},      {"sb", "--min-time", "nan", NULL},
      {"sb", "--warmup", "-3", NULL},   {"sb", "--block", "64", "--block"},
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

SB_TEST(cli_expands_gpu_placeholder) {
  char out[128];
  sb_expand_out_path("results/{gpu}/latest.csv", "h100-80gb-hbm3", out, sizeof out);
  CHECK_STR(out, "results/h100-80gb-hbm3/latest.csv");
  sb_expand_out_path("plain.csv", "x", out, sizeof out);
  CHECK_STR(out, "plain.csv");
}
