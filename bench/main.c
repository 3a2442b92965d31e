/* syncbench: which synchronization strategy should this kernel use on this
 * GPU? See README.md. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/gbench_shim.h"
#include "../harness/random.h"
#include "cli.h"
#include "runner.h"

static void on_signal(int sig) {
  (void)sig;
  sb_stop_requested = 1;
}

/* mkdir -p of the directories leading to path. */
static int make_parents(const char *path, char *err, size_t errlen) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "cannot create directory %.900s: %s", buf, strerror(errno));
      return -1;
    }
    *p = '/';
  }
  return 0;
}

int main(int argc, char **argv) {
  sb_cli cli;
  char err[1024];
  if (sb_cli_parse(argc, argv, &cli, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }
  if (cli.help) { sb_cli_usage(stdout); return SB_EXIT_OK; }
  if (cli.list) { sb_cli_list(stdout); return SB_EXIT_OK; }
  if (cli.csv_header) { sb_csv_write_header(stdout); return SB_EXIT_OK; }
  if (gbs_initialize(cli.gbench_argc, cli.gbench_argv, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }

  /* Build the sweep before touching the GPU: bad axes fail fast. */
  sb_point *points = NULL;
  long count = sb_sweep_build(&cli.spec, &points, err, sizeof err);
  if (count < 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }

  sb_device dev;
  if (sb_device_open(cli.device, &dev, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return strstr(err, "does not exist") ? SB_EXIT_USAGE : SB_EXIT_NO_DEVICE;
  }
  char slug[128];
  sb_gpu_slug(dev.prov.gpu_name, slug, sizeof slug);
  if (cli.print_slug) { printf("%s\n", slug); return SB_EXIT_OK; }

  char out_path[4096];
  sb_expand_out_path(cli.out_path, slug, out_path, sizeof out_path);
  if (make_parents(out_path, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: --out %s: %s\n", out_path, err);
    return SB_EXIT_USAGE;
  }
  FILE *csv = fopen(out_path, "w");
  if (!csv) {
    fprintf(stderr, "syncbench: --out %s: cannot write: %s\n", out_path, strerror(errno));
    return SB_EXIT_USAGE;
  }
  sb_csv_write_header(csv);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  dev.prov.seed = cli.has_seed ? cli.seed : sb_fresh_seed() & 0x7fffffffffffffffULL;
  sb_run_options opt = {
      .warmup = cli.warmup,
      .min_time_s = cli.min_time_s > 0 ? cli.min_time_s : (cli.spec.quick ? 0.02 : 0.1),
      .seed = dev.prov.seed,
      .csv = csv,
      .log = stderr,
  };
  /* --benchmark_min_time, if given, wins over our default. */
  for (int i = 1; i < cli.gbench_argc; ++i)
    if (strncmp(cli.gbench_argv[i], "--benchmark_min_time", 20) == 0 && cli.min_time_s <= 0)
      opt.min_time_s = 0;

  fprintf(stderr, "syncbench: %s (sm_%d%d, %d SMs, %zu MiB L2, driver %s, CUDA %s), commit %s\n",
          dev.prov.gpu_name, dev.cc_major, dev.cc_minor, dev.sm_count, dev.l2_bytes >> 20,
          dev.prov.driver, dev.prov.cuda, dev.prov.commit);
  fprintf(stderr, "syncbench: %ld points -> %s (seed %llu)\n", count, out_path, dev.prov.seed);

  sb_run_summary sum;
  int rc = sb_run_sweep(points, count, &dev, &opt, &sum);
  if (fclose(csv) != 0) rc = -1;
  free(points);
  sb_cli_free(&cli);

  printf("syncbench: %ld ok, %ld skipped, %ld unsupported, %ld wrong, %ld error -> %s\n",
         sum.by_status[SB_OK], sum.by_status[SB_SKIPPED], sum.by_status[SB_UNSUPPORTED],
         sum.by_status[SB_WRONG], sum.by_status[SB_ERROR], out_path);
  if (rc != 0) return SB_EXIT_FAILED;
  if (sum.interrupted) {
    fprintf(stderr, "syncbench: interrupted; the finished rows are in %s\n", out_path);
    return SB_EXIT_INTERRUPTED;
  }
  if (sum.context_lost || sum.by_status[SB_WRONG] || sum.by_status[SB_ERROR]) return SB_EXIT_FAILED;
  return SB_EXIT_OK;
}
