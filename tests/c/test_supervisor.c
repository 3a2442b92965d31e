/* Fault isolation, interrupt and resume, without a GPU: the supervisor runs
 * a fake worker (test_worker) in its forked processes, which crashes, trips
 * the watchdog record, loses its context, hangs or is interrupted on
 * chosen points, and the CSV the parent writes is checked row by row. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../harness/supervisor.h"
#include "../../harness/sweep.h"
#include "check.h"

enum { FAKE_OK, FAKE_CRASH, FAKE_DEADLOCK, FAKE_LOST, FAKE_FILTERED, FAKE_INTERRUPT, FAKE_HANG,
       FAKE_WRONG, FAKE_DIE_BETWEEN_PARTS };
static int fake_mode[4096]; /* by point index; inherited by the workers */
static int fake_setup_fails;  /* the worker ends before its first point */

static int fake_worker(const sb_supervisor_options *o, int dev, const long *order, long n,
                       const sb_run_options *run, sb_watchdog_record *rec) {
  if (fake_setup_fails) return SB_WORKER_CONTEXT_LOST;
  memset(rec, 0, sizeof *rec); /* as sb_watchdog_map does in each worker */
  long waiting = -1; /* the point whose part 1 passed (runner.c's point_state) */
  for (long k = 0;; ++k) {
    if (sb_stop_requested) return 130;
    int part = SB_PART_WHOLE;
    long i = run->next_point ? run->next_point(run->ctx, &part) : k < n ? order[k] : -1;
    if (i < 0) break;
    const sb_point *p = &o->points[i];
    run->on_start(run->ctx, i);
    sb_row row;
    sb_row_init(&row, &o->devs[dev].prov);
    row.family = p->family->name;
    row.variant = p->variant->name;
    memcpy(row.axis, p->axis, sizeof row.axis);
    row.status = SB_OK;
    row.median_us = 1.5;
    snprintf(row.detail, sizeof row.detail, "fake");
    if (part == SB_PART_SECOND) { /* as runner.c: only after this worker's part 1 */
      if (waiting == i) {
        snprintf(row.detail, sizeof row.detail, "fake, in two parts");
      } else {
        row.status = SB_ERROR;
        row.median_us = NAN;
        snprintf(row.detail, sizeof row.detail, "part 2/2 without its part 1/2 on this worker");
      }
      waiting = -1;
      if (run->on_row(run->ctx, i, &row, 0) != 0) return SB_WORKER_PIPE_FAILED;
      continue;
    }
    waiting = -1;
    if (part == SB_PART_FIRST && (fake_mode[i] == FAKE_OK || fake_mode[i] == FAKE_DIE_BETWEEN_PARTS)) {
      waiting = i;
      run->on_partial(run->ctx, i);
      if (fake_mode[i] == FAKE_DIE_BETWEEN_PARTS) raise(SIGKILL);
      continue;
    }
    switch (fake_mode[i]) {
      case FAKE_WRONG:
        row.status = SB_WRONG;
        row.median_us = NAN;
        snprintf(row.detail, sizeof row.detail, "fake mismatch");
        break;
      case FAKE_CRASH: raise(SIGKILL); break;
      case FAKE_DEADLOCK:
        rec->bar = 0x400;
        rec->stage = 3;
        rec->parity = 1;
        rec->waited_ns = 1000000000ull;
        rec->fired = 1;
        raise(SIGKILL);
        break;
      case FAKE_LOST:
        row.status = SB_ERROR;
        snprintf(row.detail, sizeof row.detail, "kernel: an illegal memory access was encountered");
        run->on_row(run->ctx, i, &row, 1);
        return SB_WORKER_CONTEXT_LOST;
      case FAKE_FILTERED: continue;
      case FAKE_INTERRUPT:
        kill(getppid(), SIGINT); /* the parent passes it on to us */
        while (!sb_stop_requested) nanosleep(&(struct timespec){0, 1000000}, NULL);
        return 130;
      case FAKE_HANG: pause(); break;
    }
    if (run->on_row(run->ctx, i, &row, 0) != 0) return SB_WORKER_PIPE_FAILED;
  }
  return 0;
}

static void on_sigint(int sig) {
  (void)sig;
  sb_stop_requested = 1;
}

typedef struct fixture {
  sb_point *points;
  long count;
  sb_device devs[2];
  char path[4096];
} fixture;

static void setup(fixture *f) {
  sb_sweep_spec spec = {.quick = 1};
  char err[256];
  f->count = sb_sweep_build(&spec, &f->points, err, sizeof err);
  memset(fake_mode, 0, sizeof fake_mode);
  memset(f->devs, 0, sizeof f->devs);
  for (int k = 0; k < 2; ++k) {
    f->devs[k].ordinal = k;
    snprintf(f->devs[k].prov.gpu_name, sizeof f->devs[k].prov.gpu_name, "Fake GPU");
    snprintf(f->devs[k].prov.gpu_uuid, sizeof f->devs[k].prov.gpu_uuid, "GPU-fake-%d", k);
  }
  int fd = sb_test_mkstemp(f->path, sizeof f->path, "sb_sup");
  FILE *h = fdopen(fd, "w");
  sb_csv_write_header(h);
  fclose(h);
}

static int supervise_io(fixture *f, int ndev, const sb_resume *resume, double timeout,
                        FILE *serve_in, FILE *serve_out, sb_supervisor_result *res) {
  int fd = open(f->path, O_WRONLY | O_APPEND);
  sb_supervisor_options o = {
      .points = f->points, .count = f->count, .resume = resume, .devs = f->devs,
      .ndev = ndev, .csv_fd = fd, .run = {.seed = 7}, .isolate = 1,
      .point_timeout_s = timeout, .test_worker = fake_worker,
      .serve_in = serve_in, .serve_out = serve_out,
  };
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old);
  sb_stop_requested = 0;
  int rc = sb_supervise(&o, res);
  sigaction(SIGINT, &old, NULL);
  sb_stop_requested = 0;
  close(fd);
  return rc;
}

static int supervise(fixture *f, int ndev, const sb_resume *resume, double timeout,
                     sb_supervisor_result *res) {
  return supervise_io(f, ndev, resume, timeout, NULL, NULL, res);
}

/* The row of point i on GPU dev: its status and detail ("" if absent);
 * returns how many rows it has. */
static int find_row(const fixture *f, int dev, long i, char *status, char *detail) {
  char name[512], line[8192], *fields[128];
  sb_point_name(&f->points[i], name, sizeof name);
  int ncol = sb_csv_num_columns(), found = 0;
  int cf = -1, cv = -1, cs = -1, cd = -1, cu = -1, ca[SB_NUM_AXES];
  for (int c = 0; c < ncol; ++c) {
    const char *n = sb_csv_column_name(c);
    if (!strcmp(n, "family")) cf = c;
    if (!strcmp(n, "variant")) cv = c;
    if (!strcmp(n, "status")) cs = c;
    if (!strcmp(n, "detail")) cd = c;
    if (!strcmp(n, "gpu_uuid")) cu = c;
    for (int a = 0; a < SB_NUM_AXES; ++a)
      if (!strcmp(n, sb_axes[a].name)) ca[a] = c;
  }
  status[0] = detail[0] = '\0';
  FILE *in = fopen(f->path, "r");
  fgets(line, sizeof line, in); /* header */
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    if (sb_csv_split(line, fields, 128) != ncol) continue;
    char got[512];
    int w = snprintf(got, sizeof got, "%s/%s", fields[cf], fields[cv]);
    for (int a = 0; a < SB_NUM_AXES; ++a)
      if (fields[ca[a]][0]) w += snprintf(got + w, sizeof got - (size_t)w, "/%s=%s", sb_axes[a].name, fields[ca[a]]);
    if (strcmp(got, name) || strcmp(fields[cu], f->devs[dev].prov.gpu_uuid)) continue;
    ++found;
    strcpy(status, fields[cs]);
    snprintf(detail, 512, "%s", fields[cd]);
  }
  fclose(in);
  return found;
}

static long file_rows(const fixture *f) {
  sb_resume r;
  char err[256];
  if (sb_resume_load(f->path, &r, err, sizeof err) != 0) return -1;
  long n = r.dropped_bytes ? -2 : r.rows;
  sb_resume_free(&r);
  return n;
}

SB_TEST(supervisor_one_fault_costs_one_row_on_every_gpu) {
  fixture f;
  setup(&f);
  CHECK(f.count >= 10);
  fake_mode[1] = FAKE_CRASH;
  fake_mode[2] = FAKE_DEADLOCK;
  fake_mode[4] = FAKE_LOST;
  fake_mode[5] = FAKE_FILTERED;
  sb_supervisor_result res;
  CHECK_EQ_INT(supervise(&f, 2, NULL, 0, &res), 0);
  CHECK_EQ_INT(file_rows(&f), 2 * (f.count - 1)); /* every point but the filtered one */
  CHECK_EQ_INT(res.by_status[SB_OK], 2 * (f.count - 4));
  CHECK_EQ_INT(res.by_status[SB_ERROR], 4);
  CHECK_EQ_INT(res.by_status[SB_DEADLOCK], 2);
  CHECK_EQ_INT(res.restarts, 6);
  CHECK_EQ_INT(res.interrupted, 0);
  char st[64], detail[512];
  for (int dev = 0; dev < 2; ++dev) {
    CHECK_EQ_INT(find_row(&f, dev, 1, st, detail), 1);
    CHECK_STR(st, "error");
    CHECK(strstr(detail, "signal 9") != NULL);
    CHECK_EQ_INT(find_row(&f, dev, 2, st, detail), 1);
    CHECK_STR(st, "deadlock");
    CHECK(strstr(detail, "watchdog") && strstr(detail, "stage 3") && strstr(detail, "parity 1"));
    CHECK_EQ_INT(find_row(&f, dev, 4, st, detail), 1);
    CHECK_STR(st, "error");
    CHECK(strstr(detail, "illegal memory access") != NULL);
    CHECK_EQ_INT(find_row(&f, dev, 5, st, detail), 0);
    CHECK_EQ_INT(find_row(&f, dev, f.count - 1, st, detail), 1);
    CHECK_STR(st, "ok");
  }
  unlink(f.path);
  free(f.points);
}

SB_TEST(supervisor_interrupt_then_resume_gives_every_row_once) {
  fixture f;
  setup(&f);
  fake_mode[6] = FAKE_INTERRUPT;
  sb_supervisor_result res;
  CHECK_EQ_INT(supervise(&f, 1, NULL, 0, &res), 0);
  CHECK_EQ_INT(res.interrupted, 1);
  CHECK_EQ_INT(file_rows(&f), 6); /* points 0..5 finished; 6 was in flight */
  /* A torn last row, as if the process had died inside a write(). */
  int fd = open(f.path, O_WRONLY | O_APPEND);
  CHECK_EQ_INT(write(fd, "1,scan,pingpong,128,,\"half", 26), 26);
  close(fd);
  memset(fake_mode, 0, sizeof fake_mode);
  sb_resume r;
  char err[256];
  CHECK_EQ_INT(sb_resume_load(f.path, &r, err, sizeof err), 0);
  CHECK_EQ_INT(r.rows, 6);
  CHECK_EQ_INT(r.dropped_bytes, 26);
  CHECK_EQ_INT(supervise(&f, 1, &r, 0, &res), 0);
  CHECK_EQ_INT(res.resumed, 6);
  CHECK_EQ_INT(res.by_status[SB_OK], f.count - 6);
  sb_resume_free(&r);
  CHECK_EQ_INT(file_rows(&f), f.count);
  char st[64], detail[512];
  for (long i = 0; i < f.count; ++i) CHECK_EQ_INT(find_row(&f, 0, i, st, detail), 1);
  unlink(f.path);
  free(f.points);
}

SB_TEST(supervisor_kills_a_silent_worker) {
  fixture f;
  setup(&f);
  fake_mode[3] = FAKE_HANG;
  sb_supervisor_result res;
  CHECK_EQ_INT(supervise(&f, 1, NULL, 0.6, &res), 0);
  CHECK_EQ_INT(file_rows(&f), f.count);
  char st[64], detail[512];
  CHECK_EQ_INT(find_row(&f, 0, 3, st, detail), 1);
  CHECK_STR(st, "error");
  CHECK(strstr(detail, "no word from the worker") != NULL);
  CHECK_EQ_INT(find_row(&f, 0, 4, st, detail), 1);
  CHECK_STR(st, "ok");
  unlink(f.path);
  free(f.points);
}

SB_TEST(supervisor_gives_up_on_a_worker_that_cannot_start) {
  fixture f;
  setup(&f);
  fake_setup_fails = 1;
  sb_supervisor_result res;
  /* The supervisor tells stderr why it gives up: catch that line here, so
   * the test output stays clean and the message itself is checked. */
  FILE *said = tmpfile();
  CHECK(said != NULL);
  fflush(stderr);
  int saved_stderr = dup(2);
  dup2(fileno(said), 2);
  int rc = supervise(&f, 1, NULL, 0, &res);
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  CHECK_EQ_INT(rc, 0); /* returns: no restart loop */
  fake_setup_fails = 0;
  char line[512] = "";
  rewind(said);
  CHECK(fgets(line, sizeof line, said) != NULL);
  CHECK_STR(line, "syncbench: the worker ended 3 times in a row without finishing a point (exit status 4); giving up on this GPU\n");
  CHECK(fgets(line, sizeof line, said) == NULL); /* and nothing else */
  fclose(said);
  CHECK_EQ_INT(res.device_failed, 1);
  CHECK_EQ_INT(res.restarts, 2); /* three tries in all */
  CHECK_EQ_INT(file_rows(&f), 0);
  unlink(f.path);
  free(f.points);
}

/* --devices all must mean 0..count-1: it once left the ordinals
 * uninitialized, and on a 2-GPU H200 host both workers ran on GPU 0. */
SB_TEST(supervisor_devices_all_means_every_gpu_in_order) {
  int out[SB_MAX_DEVICES];
  int junk[SB_MAX_DEVICES];
  for (int i = 0; i < SB_MAX_DEVICES; ++i) junk[i] = 0; /* what main's stack held */
  CHECK(sb_resolve_ordinals(junk, -1, 2, out) == 2);
  CHECK(out[0] == 0 && out[1] == 1);
  CHECK(sb_resolve_ordinals(NULL, -1, 4, out) == 4);
  CHECK(out[0] == 0 && out[1] == 1 && out[2] == 2 && out[3] == 3);
  CHECK(sb_resolve_ordinals(NULL, -1, SB_MAX_DEVICES + 5, out) == SB_MAX_DEVICES);
  CHECK(out[SB_MAX_DEVICES - 1] == SB_MAX_DEVICES - 1);
  const int list[2] = {1, 0}; /* an explicit list keeps its order */
  CHECK(sb_resolve_ordinals(list, 2, 2, out) == 2);
  CHECK(out[0] == 1 && out[1] == 0);
}

/* --serve over in/out with the supervisor's lines about faults kept off
 * the test's stderr. Returns supervise_io's status. */
static int serve_quietly(fixture *f, FILE *in, FILE *out, sb_supervisor_result *res) {
  FILE *said = tmpfile();
  fflush(stderr);
  int saved_stderr = dup(2);
  dup2(fileno(said), 2);
  int rc = supervise_io(f, 1, NULL, 0, in, out, res);
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  fclose(said);
  return rc;
}

/* What a --serve run printed: "ready" (the fake device has no commit),
 * "started" (@start: the worker set up, nothing ran), then one answer per
 * request, expect[k] followed by names[k], and nothing more. */
static void check_serve_answers(FILE *out, const char *expect[], const char *names[], int n) {
  char line[1024], want[1100];
  rewind(out);
  CHECK(fgets(line, sizeof line, out) != NULL);
  CHECK_STR(line, "ready GPU-fake-0 \n");
  CHECK(fgets(line, sizeof line, out) != NULL);
  CHECK_STR(line, "started\n");
  for (int k = 0; k < n; ++k) {
    CHECK(fgets(line, sizeof line, out) != NULL);
    snprintf(want, sizeof want, "%s%s\n", expect[k], names[k]);
    CHECK_STR(line, want);
  }
  CHECK(fgets(line, sizeof line, out) == NULL);
}

/* --serve (scripts/ab.py's worker): "@start" sets the worker up first; then
 * only the points asked for, in the order asked, one answer line each; a crash or deadlock costs that request only
 * and a fresh worker takes the next one. */
SB_TEST(supervisor_serve_runs_the_named_points_in_order) {
  fixture f;
  setup(&f);
  CHECK(f.count >= 6);
  fake_mode[1] = FAKE_CRASH;
  fake_mode[2] = FAKE_DEADLOCK;
  char n[5][512]; /* n[i]: point i's name, the protocol's key */
  for (int i = 1; i <= 4; ++i) sb_point_name(&f.points[i], n[i], sizeof n[i]);
  FILE *in = tmpfile(), *out = tmpfile();
  CHECK(in && out);
  fprintf(in, "@start\n%s\n%s\nscan/nope/n=1\n\n%s\n%s\n%s\n", n[3], n[1], n[2], n[4], n[1]);
  rewind(in);
  sb_supervisor_result res;
  CHECK_EQ_INT(serve_quietly(&f, in, out, &res), 0);
  fake_mode[1] = fake_mode[2] = FAKE_OK;
  const char *expect[] = {"ok 1.5000 ", "error - ", "unknown - ", "deadlock - ", "ok 1.5000 ", "error - "};
  const char *names[] = {n[3], n[1], "scan/nope/n=1", n[2], n[4], n[1]};
  check_serve_answers(out, expect, names, 6);
  fclose(in);
  fclose(out);
  CHECK_EQ_INT(file_rows(&f), 5);
  CHECK_EQ_INT(res.by_status[SB_OK], 2);
  CHECK_EQ_INT(res.by_status[SB_ERROR], 2);
  CHECK_EQ_INT(res.by_status[SB_DEADLOCK], 1);
  CHECK_EQ_INT(res.restarts, 2); /* before the requests after the two faults */
  char st[64], detail[512];
  CHECK_EQ_INT(find_row(&f, 0, 0, st, detail), 0); /* never asked for */
  CHECK_EQ_INT(find_row(&f, 0, 1, st, detail), 2);
  CHECK_EQ_INT(find_row(&f, 0, 3, st, detail), 1);
  CHECK_STR(st, "ok");
  CHECK_EQ_INT(find_row(&f, 0, 2, st, detail), 1);
  CHECK_STR(st, "deadlock");
  unlink(f.path);
  free(f.points);
}

/* --serve's parts (scripts/ab.py --halves): "@part 1/2 NAME" answers
 * "partial" and keeps the point in the worker; "@part 2/2 NAME" finishes
 * it, one row. A part 1 that decides the point (wrong) answers its status
 * and part 2 repeats it without running; a worker that dies between the
 * parts costs that point an error row, and a fresh worker takes the next
 * request; a part 2 whose part 1 this worker did not run is an error. */
SB_TEST(supervisor_serve_runs_a_point_in_two_parts) {
  fixture f;
  setup(&f);
  CHECK(f.count >= 6);
  fake_mode[1] = FAKE_WRONG;
  fake_mode[2] = FAKE_DIE_BETWEEN_PARTS;
  char n[5][512]; /* n[i]: point i's name, the protocol's key */
  for (int i = 1; i <= 4; ++i) sb_point_name(&f.points[i], n[i], sizeof n[i]);
  FILE *in = tmpfile(), *out = tmpfile();
  CHECK(in && out);
  fprintf(in, "@start\n@part 1/2 %s\n@part 2/2 %s\n@part 1/2 %s\n@part 2/2 %s\n@part 1/2 %s\n@part 2/2 %s\n"
              "@part 1/2 %s\n@part 2/2 %s\n@part 2/2 %s\n%s\n@part 1/2 scan/nope/n=1\n",
          n[3], n[3], n[1], n[1], n[2], n[2], n[4], n[4], n[3], n[4]);
  rewind(in);
  sb_supervisor_result res;
  CHECK_EQ_INT(serve_quietly(&f, in, out, &res), 0);
  fake_mode[1] = fake_mode[2] = FAKE_OK;
  const char *expect[] = {"partial - ", "ok 1.5000 ", "wrong - ", "wrong - ", "partial - ", "error - ",
                          "partial - ", "ok 1.5000 ", "error - ", "ok 1.5000 ", "unknown - "};
  const char *names[] = {n[3], n[3], n[1], n[1], n[2], n[2], n[4], n[4], n[3], n[4], "scan/nope/n=1"};
  check_serve_answers(out, expect, names, 11);
  fclose(in);
  fclose(out);
  CHECK_EQ_INT(file_rows(&f), 6);
  CHECK_EQ_INT(res.by_status[SB_OK], 3);
  CHECK_EQ_INT(res.by_status[SB_WRONG], 1);
  CHECK_EQ_INT(res.by_status[SB_ERROR], 2);
  CHECK_EQ_INT(res.restarts, 1); /* the request after the death between parts */
  char st[64], detail[512];
  CHECK_EQ_INT(find_row(&f, 0, 1, st, detail), 1); /* part 2 of a decided point: no row */
  CHECK_STR(st, "wrong");
  CHECK_EQ_INT(find_row(&f, 0, 2, st, detail), 1);
  CHECK_STR(st, "error");
  CHECK(strstr(detail, "signal 9") != NULL);
  CHECK_EQ_INT(find_row(&f, 0, 4, st, detail), 2);
  CHECK_STR(st, "ok");
  CHECK_EQ_INT(find_row(&f, 0, 3, st, detail), 2); /* the last: part 2 without part 1 */
  CHECK_STR(st, "error");
  CHECK(strstr(detail, "without its part 1/2") != NULL);
  unlink(f.path);
  free(f.points);
}
