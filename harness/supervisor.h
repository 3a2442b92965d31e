/* Fault isolation and every GPU of a host.
 *
 * A trap (the mbarrier watchdog), an illegal address or a crash poisons the
 * CUDA context of the whole process. So the points run in worker processes,
 * one per GPU, forked before this process makes any CUDA call; the parent
 * owns the CSV. A worker sends "starting point i" and each finished row
 * (already formatted) over a pipe; the parent writes every row with one
 * write() to a file opened O_APPEND. When a worker dies, or stops after a
 * sticky CUDA error, the parent records the point in flight (`deadlock`
 * with the watchdog's report, or `error` with the CUDA error or the signal)
 * and starts a new worker for the rest of that GPU's points.
 *
 * Device information comes from a short-lived probe process, for the same
 * reason: CUDA does not survive fork(). */
#ifndef SB_SUPERVISOR_H
#define SB_SUPERVISOR_H

#include "resume.h"
#include "watchdog.h"
#include "runner.h"

#define SB_MAX_DEVICES 64

/* Exit codes of a worker process (besides 0, done, and 130, interrupted). */
#define SB_WORKER_CONTEXT_LOST 4 /* a row's error left the CUDA context unusable */
#define SB_WORKER_PIPE_FAILED 5  /* could not send to the parent */
#define SB_WORKER_NO_DEVICE 6    /* could not open its GPU (message sent) */

/* The GPU ordinals a sweep runs on: requested[0..n), or, when n < 0
 * (--devices all), 0..count-1. Writes out[] and returns how many (at most
 * SB_MAX_DEVICES). requested is not read when n < 0. */
int sb_resolve_ordinals(const int *requested, int n, int count, int *out);

/* Opens each device in a child process and returns their descriptions.
 * ordinals[0..n) (n < 0: every device; the ordinals are filled in).
 * Returns the device count, or -1 with err and *usage = 1 when an ordinal
 * does not exist (a usage error) or 0 when no device is usable. */
int sb_probe_devices(int *ordinals, int n, sb_device *devs, char *err, size_t errlen,
                     int *usage);

typedef struct sb_supervisor_options sb_supervisor_options;
struct sb_supervisor_options {
  const sb_point *points;
  long count;
  const sb_resume *resume;      /* rows already in the CSV, or NULL */
  const sb_device *devs;        /* from sb_probe_devices (run provenance set) */
  int ndev;
  int csv_fd;                   /* opened O_APPEND; header written */
  sb_run_options run;           /* warmup, min_time_s, seed, log */
  int isolate;                  /* 0: run in this process (one GPU, no restarts) */
  double point_timeout_s;       /* a worker silent this long is killed; 0: never */
  unsigned long long watchdog_ns; /* mbarrier wait bound; 0: unbounded */
  /* --serve (one GPU, isolated): instead of the sweep, the points named on
   * serve_in, one name a line, in the order asked; after "ready <gpu_uuid>
   * <commit>", one line on serve_out per name: "<status> <median_us|->
   * <name>" once its row is in the CSV, or "unknown - <name>". "@part 1/2
   * <name>" runs the point's checks and half its samples and answers
   * "partial - <name>"; "@part 2/2 <name>" takes the other half into the
   * same pool and writes the row (scripts/ab.py --halves). A fault costs
   * that point only; a fresh worker takes the next request. */
  FILE *serve_in, *serve_out;
  /* Tests only: runs in the worker process instead of opening the GPU,
   * with run's on_start/on_row wired to the pipe, and the watchdog record
   * the parent reads after a death. Returns the worker's exit code. */
  int (*test_worker)(const sb_supervisor_options *o, int dev, const long *order, long n,
                     const sb_run_options *run, sb_watchdog_record *rec);
};

typedef struct sb_supervisor_result {
  long by_status[SB_NUM_STATUS];
  long resumed;                 /* points skipped: already in the resume file */
  long restarts;                /* workers started again after a fault */
  int interrupted;              /* SIGINT/SIGTERM */
  int write_failed;             /* the CSV could not be written */
  int device_failed;            /* a GPU could not be opened or set up */
} sb_supervisor_result;

/* Runs every point on every device. Returns 0, or -1 if the CSV could not
 * be written. */
int sb_supervise(const sb_supervisor_options *o, sb_supervisor_result *res);

/* Writes buf[0, len) with as few write() calls as the kernel allows
 * (normally one), retrying after EINTR. Returns 0 or -1. */
int sb_write_all(int fd, const char *buf, size_t len);

/* Formats one row as its CSV line into a malloc'ed buffer (*len bytes). */
char *sb_format_row(const sb_row *row, size_t *len);

#endif
