/* Command-line options of the reliability features: resume, devices,
 * watchdog, timeouts. */
#include "../bench/cli.h"
#include "check.h"

static int parse(char **argv, sb_cli *c, char *err) {
  int argc = 0;
  while (argv[argc]) ++argc;
  return sb_cli_parse(argc, argv, c, err, 256);
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
