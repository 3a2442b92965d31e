/* syncbench: which synchronization strategy should this kernel use on this
 * GPU? See README.md. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gbench_shim.h"
#include "launch.h" /* sb_flush_method */
#include "random.h"
#include "resume.h"
#include "watchdog.h"
#include "cli.h"
#include "supervisor.h"

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

/* Whether path can be written later, missing directories included, without
 * creating anything: a bad path fails before the GPU check, and a run that
 * stops there (no GPU) leaves no trace. A {gpu} pattern is checked up to
 * the placeholder. */
static int check_output_path(const char *path, char *err, size_t errlen) {
  char buf[4096];
  struct stat st;
  if (strlen(path) >= sizeof buf) {
    snprintf(err, errlen, "the path is too long");
    return -1;
  }
  snprintf(buf, sizeof buf, "%s", path);
  char *pattern = strstr(buf, "{gpu}");
  if (pattern) {
    *pattern = '\0';
  } else if (stat(buf, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      snprintf(err, errlen, "cannot write: it is a directory; give a file name");
      return -1;
    }
    if (access(buf, W_OK) != 0) {
      snprintf(err, errlen, "cannot write: %s", strerror(errno));
      return -1;
    }
    return 0;
  } else if (buf[strlen(buf) - 1] == '/') {
    snprintf(err, errlen, "cannot write: it names a directory; give a file name");
    return -1;
  }
  /* The nearest existing ancestor must be a directory we can write in. */
  for (;;) {
    char *slash = strrchr(buf, '/');
    if (!slash) snprintf(buf, sizeof buf, ".");
    else if (slash == buf) buf[1] = '\0';
    else *slash = '\0';
    if (stat(buf, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot create a directory under %.900s: not a directory", buf);
        return -1;
      }
      if (access(buf, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot create files in %.900s: %s", buf, strerror(errno));
        return -1;
      }
      return 0;
    }
    if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(buf, ".") || !strcmp(buf, "/")) {
      snprintf(err, errlen, "%.900s: %s", buf, strerror(errno));
      return -1;
    }
  }
}

/* Creates the CSV (and its directories) once every check has passed. */
static int open_output(const char *path, char *err, size_t errlen) {
  if (make_parents(path, err, errlen) != 0) return -1;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (fd < 0) snprintf(err, errlen, "cannot write: %s", strerror(errno));
  return fd;
}

/* --benchmark_out and --benchmark_format=json: Google Benchmark's JSON
 * document of the runs recorded in this sweep. */
static int write_gbench_json(const sb_cli *cli, const char *slug) {
  char err[1024];
  int rc = 0;
  if (cli->json_out) {
    char path[4096];
    sb_expand_out_path(cli->json_out, slug, path, sizeof path);
    FILE *f = NULL;
    if (make_parents(path, err, sizeof err) == 0 && !(f = fopen(path, "w")))
      snprintf(err, sizeof err, "cannot write: %s", strerror(errno));
    if (!f || gbs_write_json(f, cli->report_aggregates_only, err, sizeof err) != 0) {
      fprintf(stderr, "syncbench: --benchmark_out=%s: %s\n", path, err);
      rc = -1;
    } else {
      fprintf(stderr, "syncbench: Google Benchmark's JSON -> %s\n", path);
    }
    if (f && fclose(f) != 0) rc = -1;
  }
  if (cli->json_stdout &&
      gbs_write_json(stdout, cli->report_aggregates_only || cli->display_aggregates_only, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: --benchmark_format=json: %s\n", err);
    rc = -1;
  }
  return rc;
}

static int write_header(int fd) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return -1;
  sb_csv_write_header(f);
  fclose(f);
  int rc = sb_write_all(fd, buf, len);
  free(buf);
  return rc;
}

/* Options that print and exit (--help, --list, --csv-header, --version):
 * their exit status, or -1 when none was given. */
static int info_only(const sb_cli *cli) {
  if (cli->help) sb_cli_usage(stdout);
  else if (cli->list) sb_cli_list(stdout, cli->list_format);
  else if (cli->csv_header) sb_csv_write_header(stdout);
  else if (cli->version) sb_print_version(stdout);
  else return -1;
  return SB_EXIT_OK;
}

/* The run's points: its sweeps' (harness/sweep.c, sb_sweeps_build), without
 * the yardstick under --no-reference; -1 with err on a bad sweep. */
static long build_points(const sb_cli *cli, sb_point **points, char *err, size_t errlen) {
  const sb_sweep_spec *specs[SB_CLI_MAX_SWEEPS];
  for (int s = 0; s < cli->num_sweeps; ++s) specs[s] = &cli->sweeps[s].spec;
  long count = sb_sweeps_build(specs, cli->num_sweeps, points, err, errlen);
  if (count < 0) return -1;
  if (!cli->no_reference) return count;
  long k = 0;
  for (long i = 0; i < count; ++i)
    if (!((*points)[i].family->flags & SB_FF_YARDSTICK)) (*points)[k++] = (*points)[i];
  return k;
}

/* --benchmark_list_tests: the sweep is host logic. */
static void list_tests(const sb_point *points, long count) {
  char name[512];
  for (long i = 0; i < count; ++i) {
    sb_point_name(&points[i], name, sizeof name);
    printf("%s\n", name);
  }
}

/* Checks --out and --benchmark_out before any GPU is touched. */
static int check_outputs(const sb_cli *cli, char *err, size_t errlen) {
  if (cli->print_slug) return 0;
  if (check_output_path(cli->out_path, err, errlen) != 0) {
    fprintf(stderr, "syncbench: --out %s: %s\n", cli->out_path, err);
    return -1;
  }
  if (cli->json_out && check_output_path(cli->json_out, err, errlen) != 0) {
    fprintf(stderr, "syncbench: --benchmark_out=%s: %s\n", cli->json_out, err);
    return -1;
  }
  return 0;
}

/* Device information from a short-lived probe process: this process makes
 * no CUDA call, so its workers can be forked. Returns the GPU count, or
 * -(exit status) when there is none to run on. */
static int open_devices(const sb_cli *cli, sb_device *devs) {
  char err[1024];
  int ordinals[SB_MAX_DEVICES];
  int ndev = cli->num_devices;
  if (ndev == 0) {
    ordinals[0] = cli->device;
    ndev = 1;
  } else if (ndev > 0) {
    memcpy(ordinals, cli->devices, (size_t)ndev * sizeof ordinals[0]);
  }
  int usage = 0;
  if (cli->no_fork && ndev == 1) { /* no fork at all: sanitizers and debuggers */
    if (sb_device_open(ordinals[0], &devs[0], err, sizeof err) != 0) {
      ndev = -1;
      usage = strstr(err, "does not exist") != NULL;
    }
  } else {
    ndev = sb_probe_devices(ordinals, ndev, devs, err, sizeof err, &usage);
  }
  if (ndev <= 0) {
    if (ndev == 0) sb_no_device_message(0, NULL, NULL, getenv("CUDA_VISIBLE_DEVICES"), 0, err, sizeof err);
    fprintf(stderr, "syncbench: %s\n", err);
    return usage ? -SB_EXIT_USAGE : -SB_EXIT_NO_DEVICE;
  }
  if (cli->no_fork && ndev > 1) {
    fprintf(stderr, "syncbench: --no-fork runs one GPU; this host has %d\n", ndev);
    return -SB_EXIT_USAGE;
  }
  return ndev;
}

/* Opens the CSV (created, truncated, or resumed) with its header where it
 * needs one. Returns the fd, or -1 after one line on stderr. */
static int prepare_csv(const sb_cli *cli, const sb_resume *resume, const char *out_path) {
  char err[1024];
  if ((cli->json_out || cli->json_stdout) && gbs_record_json(err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: Google Benchmark's JSON output: %s\n", err);
    return -1;
  }
  int fd = open_output(out_path, err, sizeof err);
  if (fd < 0) {
    fprintf(stderr, "syncbench: --out %s: %s\n", out_path, err);
    return -1;
  }
  if ((!cli->resume_path && ftruncate(fd, 0) != 0) ||
      ((!cli->resume_path || resume->need_header) && write_header(fd) != 0)) {
    fprintf(stderr, "syncbench: --out %s: cannot write: %s\n", out_path, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

static void print_banner(const sb_cli *cli, const sb_device *devs, int ndev, long count,
                         const sb_resume *resume, const char *out_path, unsigned long long seed) {
  for (int k = 0; k < ndev; ++k) {
    const sb_device *d = &devs[k];
    fprintf(stderr, "syncbench: GPU %d: %s (sm_%d%d, %d SMs, %zu MiB L2, driver %s, CUDA %s), commit %s\n",
            d->ordinal, d->prov.gpu_name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes >> 20,
            d->prov.driver, d->prov.cuda, d->prov.commit);
  }
  if (sb_watchdog_units() == 0)
    fprintf(stderr, "syncbench: mbarrier deadlock watchdog compiled out (SB_WATCHDOG=0)\n");
  else if (cli->watchdog_ms == 0)
    fprintf(stderr, "syncbench: mbarrier deadlock watchdog off (--watchdog-ms 0)\n");
  if (cli->resume_path)
    fprintf(stderr, "syncbench: resuming %s: %ld rows there%s\n", out_path, resume->rows,
            resume->dropped_bytes ? "; dropped a partial last row" : "");
  if (cli->repetitions > 1)
    fprintf(stderr, "syncbench: --benchmark_repetitions=%d: each point is timed %d times (each at least "
            "the minimum time); its CSV row pools the samples of all %d (samples, median_us, cv_pct, ...)%s\n",
            cli->repetitions, cli->repetitions, cli->repetitions,
            cli->json_out || cli->json_stdout ? "; the JSON holds each repetition and the aggregates"
                                              : "; add --benchmark_out=FILE for each repetition and the aggregates");
  fprintf(stderr, "syncbench: %ld points x %d GPU%s -> %s (seed %llu)%s%s%s\n", count, ndev,
          ndev == 1 ? "" : "s", out_path, seed,
          cli->serve ? ", each run when stdin names it (--serve)" : "",
          cli->no_fork ? ", in this process (--no-fork)" : "",
          cli->unpaired ? ", ceilings not paired (--unpaired: pct_of_cublas/pct_of_cub empty)" : "");
}

/* The last line (counts, time, file) and the exit status of the run. */
static int report(const sb_cli *cli, const sb_supervisor_result *res, int rc, long took,
                  const char *out_path) {
  /* With --benchmark_format=json, stdout is the JSON document alone; with
   * --serve, the answers alone. */
  FILE *summary = cli->json_stdout || cli->serve ? stderr : stdout;
  fprintf(summary, "syncbench: %ld ok, %ld skipped, %ld unsupported, %ld wrong, %ld error, %ld deadlock",
         res->by_status[SB_OK], res->by_status[SB_SKIPPED], res->by_status[SB_UNSUPPORTED],
         res->by_status[SB_WRONG], res->by_status[SB_ERROR], res->by_status[SB_DEADLOCK]);
  if (res->resumed) fprintf(summary, ", %ld already done", res->resumed);
  if (res->restarts) fprintf(summary, ", %ld worker restart%s", res->restarts, res->restarts == 1 ? "" : "s");
  fprintf(summary, " in %ld:%02ld -> %s\n", took / 60, took % 60, out_path);
  if (rc != 0) return SB_EXIT_FAILED;
  if (res->interrupted) {
    fprintf(stderr, "syncbench: interrupted; the finished rows are in %s (continue with --resume %s)\n",
            out_path, out_path);
    return SB_EXIT_INTERRUPTED;
  }
  if (res->device_failed || res->by_status[SB_WRONG] || res->by_status[SB_ERROR] ||
      res->by_status[SB_DEADLOCK])
    return SB_EXIT_FAILED;
  return SB_EXIT_OK;
}

/* Runs the sweep on the GPUs through the supervisor; returns its status
 * after closing the CSV and writing the JSON (0, or -1 if a write failed). */
static int run_sweep(const sb_cli *cli, sb_point *points, long count, sb_resume *resume,
                     sb_device *devs, int ndev, int csv_fd, const char *out_path,
                     const char *slug, sb_supervisor_result *res, long *took) {
  unsigned long long seed = cli->has_seed ? cli->seed : sb_fresh_seed() & 0x7fffffffffffffffULL;
  sb_share_run_provenance(devs, ndev, seed);
  struct timespec t_start, t_end;
  clock_gettime(CLOCK_MONOTONIC, &t_start);
  sb_csv_set_sweep_start((double)t_start.tv_sec + 1e-9 * (double)t_start.tv_nsec);
  sb_supervisor_options so = {
      .points = points,
      .count = count,
      .resume = cli->resume_path ? resume : NULL,
      .devs = devs,
      .ndev = ndev,
      .csv_fd = csv_fd,
      .run = {
          .warmup = cli->warmup,
          .cooldown_s = cli->cooldown_s,
          .min_time_s = cli->min_time_s > 0 ? cli->min_time_s : (cli->quick ? 0.01 : 0.05),
          .unpaired = cli->unpaired,
          .profile_warmup = cli->profile_warmup,
          .seed = seed,
          .log = stderr,
          .sweep_start_s = (double)t_start.tv_sec + 1e-9 * (double)t_start.tv_nsec,
      },
      .isolate = !cli->no_fork,
      .point_timeout_s = cli->point_timeout_s,
      .watchdog_ns = (unsigned long long)cli->watchdog_ms * 1000000ull,
      .serve_in = cli->serve ? stdin : NULL,
      .serve_out = cli->serve ? stdout : NULL,
  };
  print_banner(cli, devs, ndev, count, resume, out_path, seed);
  int rc = sb_supervise(&so, res);
  clock_gettime(CLOCK_MONOTONIC, &t_end);
  *took = (long)(t_end.tv_sec - t_start.tv_sec);
  /* Rows went out with one write() each as they finished; fsync once at
   * the end (and after an interrupt) so they also survive a power loss. */
  if (fsync(csv_fd) != 0 && errno != EINVAL) rc = -1;
  if (close(csv_fd) != 0) rc = -1;
  if ((cli->json_out || cli->json_stdout) && write_gbench_json(cli, slug) != 0) rc = -1;
  return rc;
}

/* Says why the environment's `var` is refused (its value and what it
 * takes) when `bad`; returns bad. */
static int refused_env(int bad, const char *var, const char *takes) {
  if (bad) fprintf(stderr, "syncbench: %s=%s: %s\n", var, getenv(var), takes);
  return bad;
}

int main(int argc, char **argv) {
  sb_cli cli;
  char err[1024];
  if (sb_cli_parse(argc, argv, &cli, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }
  int info = info_only(&cli);
  if (info >= 0) return info;
  /* The environment's settings: the first bad one is refused with one line
   * naming the variable, its value and what it takes, before the GPU check. */
  if (refused_env(sb_flush_method() == SB_FLUSH_UNKNOWN, "SB_FLUSH",
                  "the L2 flush is `read` (the default), `memset`, `discard` or `none`") ||
      refused_env(sb_hold_unflushed() < 0, "SB_HOLD",
                  "the stream hold before unflushed samples is `unflushed` (the default) or `off`") ||
      refused_env(sb_tma_promotion_bytes() < 0, "SB_TMA_PROMOTION",
                  "the TMA maps' L2 promotion is `auto` (the default), `256`, `128`, `64` or `none`") ||
      refused_env(sb_hold_streams() == 0, "SB_HOLD_STREAMS",
                  "the streams a held sample rotates over are a whole number 1-32") ||
      refused_env(sb_contexts() == 0, "SB_CONTEXTS",
                  "the fresh contexts the boundary rows' one is chosen from are a whole number 1-64") ||
      refused_env(sb_process_contexts() < 0, "SB_PROCESS_CONTEXTS",
                  "the fresh contexts a worker's own one is chosen from are a whole number 0-64 (0: the primary "
                  "context)") ||
      refused_env(sb_grid_probe_threads() == 0, "SB_GRID_PROBE_THREADS",
                  "the grid-barrier probe's block size is a whole number 32-1024") ||
      refused_env(sb_placements() == 0, "SB_PLACEMENTS",
                  "the places in device memory a point's samples are taken over are a whole number 1-64") ||
      refused_env(sb_flush_l2s() == 0, "SB_FLUSH_L2S", "the flush buffer's size in L2s is a whole number 1-64"))
    return SB_EXIT_USAGE;

  /* Everything that can be checked without a GPU comes first: the sweep,
   * the resume file and the output paths; nothing is created before the
   * GPU check has passed. */
  sb_point *points = NULL;
  long count = build_points(&cli, &points, err, sizeof err);
  if (count < 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }
  if (cli.list_tests) {
    list_tests(points, count);
    free(points);
    sb_cli_free(&cli);
    return SB_EXIT_OK;
  }
  if (gbs_initialize(cli.gbench_argc, cli.gbench_argv, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }
  sb_resume resume;
  memset(&resume, 0, sizeof resume);
  if (cli.resume_path && sb_resume_load(cli.resume_path, &resume, err, sizeof err) != 0) {
    fprintf(stderr, "syncbench: %s\n", err);
    return SB_EXIT_USAGE;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  if (check_outputs(&cli, err, sizeof err) != 0) return SB_EXIT_USAGE;

  static sb_device devs[SB_MAX_DEVICES];
  int ndev = open_devices(&cli, devs);
  if (ndev < 0) return -ndev;
  char slug[128], out_path[4096];
  sb_gpu_slug(devs[0].prov.gpu_name, slug, sizeof slug);
  if (cli.print_slug) { printf("%s\n", slug); return SB_EXIT_OK; }
  sb_expand_out_path(cli.out_path, slug, out_path, sizeof out_path);
  int csv_fd = prepare_csv(&cli, &resume, out_path);
  if (csv_fd < 0) return SB_EXIT_USAGE;

  sb_supervisor_result res;
  long took = 0;
  int rc = run_sweep(&cli, points, count, &resume, devs, ndev, csv_fd, out_path, slug, &res, &took);
  free(points);
  sb_resume_free(&resume);
  sb_cli_free(&cli);
  return report(&cli, &res, rc, took, out_path);
}
