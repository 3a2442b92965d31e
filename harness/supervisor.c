#define _GNU_SOURCE /* strsignal, prctl */
#include "supervisor.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "random.h"
#include "watchdog.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sb_write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    buf += w;
    len -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len > 0) {
    ssize_t r = read(fd, p, len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    len -= (size_t)r;
  }
  return 0;
}

char *sb_format_row(const sb_row *row, size_t *len) {
  char *buf = NULL;
  *len = 0;
  FILE *f = open_memstream(&buf, len);
  if (!f) return NULL;
  int rc = sb_csv_write_row(f, row);
  if (fclose(f) != 0 || rc != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* ---- device probe ---- */

typedef struct probe_reply {
  int rc, usage, n;
  char err[1024];
} probe_reply;

int sb_resolve_ordinals(const int *requested, int n, int count, int *out) {
  if (n < 0) { /* --devices all: every GPU the driver reports, in order */
    n = count < SB_MAX_DEVICES ? count : SB_MAX_DEVICES;
    for (int i = 0; i < n; ++i) out[i] = i;
    return n;
  }
  if (n > SB_MAX_DEVICES) n = SB_MAX_DEVICES;
  for (int i = 0; i < n; ++i) out[i] = requested[i];
  return n;
}

int sb_probe_devices(int *ordinals, int n, sb_device *devs, char *err, size_t errlen,
                     int *usage) {
  *usage = 0;
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) { /* the probe: the only CUDA this side of the workers */
    close(fds[0]);
    probe_reply rep = {0};
    int count = sb_device_count(rep.err, sizeof rep.err);
    if (count < 0) rep.rc = -1;
    int ords[SB_MAX_DEVICES];
    rep.n = rep.rc == 0 ? sb_resolve_ordinals(ordinals, n, count, ords) : 0;
    static sb_device d[SB_MAX_DEVICES];
    for (int i = 0; i < rep.n && rep.rc == 0; ++i) {
      if (sb_device_open(ords[i], &d[i], rep.err, sizeof rep.err) != 0) {
        rep.rc = -1;
        rep.usage = strstr(rep.err, "does not exist") != NULL;
      }
    }
    if (rep.rc != 0) rep.n = 0;
    int bad = sb_write_all(fds[1], (const char *)&rep, sizeof rep) ||
              sb_write_all(fds[1], (const char *)d, (size_t)rep.n * sizeof d[0]);
    _exit(bad ? 1 : 0);
  }
  close(fds[1]);
  probe_reply rep;
  int rc = read_all(fds[0], &rep, sizeof rep);
  if (rc == 0 && rep.rc == 0 && rep.n > 0) rc = read_all(fds[0], devs, (size_t)rep.n * sizeof devs[0]);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (rc != 0) {
    snprintf(err, errlen, "the device probe process died (%s)",
             WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no reply");
    return -1;
  }
  if (rep.rc != 0) {
    snprintf(err, errlen, "%s", rep.err);
    *usage = rep.usage;
    return -1;
  }
  if (ordinals)
    for (int i = 0; i < rep.n; ++i) ordinals[i] = devs[i].ordinal;
  return rep.n;
}

/* ---- messages from a worker ---- */

/* MSG_IDLE (--serve): the worker is set up (its CUDA context, stream and
 * buffers exist) and waits for a request. MSG_PARTIAL (--serve): part 1
 * of a point passed; its state waits in the worker for part 2 (no row). */
enum { MSG_START = 1, MSG_ROW = 2, MSG_FATAL = 3, MSG_IDLE = 4, MSG_PARTIAL = 5 };

typedef struct msg_head {
  int32_t type, status, lost;
  uint32_t len;       /* payload bytes: the CSV line, or an error message */
  int64_t index;      /* point index */
  double gbps;        /* a reference row's copy bandwidth */
  double median_us;   /* the row's median (NaN: not timed) */
} msg_head;

static int send_msg(int fd, int type, long index, int status, int lost, double gbps,
                    double median_us, const char *payload, size_t len) {
  msg_head h = {type, status, lost, (uint32_t)len, index, gbps, median_us};
  char small[4096];
  /* Head and payload in one write() when they fit: the parent never sees
   * half a message from a worker that is still alive. */
  if (sizeof h + len <= sizeof small) {
    memcpy(small, &h, sizeof h);
    if (len) memcpy(small + sizeof h, payload, len);
    return sb_write_all(fd, small, sizeof h + len);
  }
  return sb_write_all(fd, (const char *)&h, sizeof h) || sb_write_all(fd, payload, len);
}

/* ---- one worker per GPU ---- */

typedef struct worker {
  int dev;                  /* index into o->devs */
  pid_t pid;
  int fd;                   /* read end of its pipe; -1: not running */
  long *order;              /* point indices this GPU still runs */
  long n, next;             /* order[next..n) have no row yet */
  long inflight;            /* started, no row yet; -1 */
  double copy_gbps;
  sb_watchdog_record *rec;  /* MAP_SHARED: readable after the worker dies */
  char *buf;
  size_t len, cap;
  double last_msg, stop_sent;
  int killed_for_silence;
  int fruitless;            /* deaths in a row without a finished row */
  long rows_this_run;       /* rows from the current worker process */
  int cmd_fd;               /* --serve: write end of the worker's request pipe; -1 */
  int idle;                 /* --serve: the worker said it waits for a request */
  int part;                 /* --serve: the part (SB_PART_*) of the request in hand */
  int partial;              /* --serve: the request's part 1 passed (MSG_PARTIAL) */
  char prefix[32];
} worker;

typedef struct parent {
  const sb_supervisor_options *o;
  sb_supervisor_result *res;
  worker *w;
  int nw;
  int last_status;          /* --serve: the last row's status, and median */
  double last_median_us;
  long decided;             /* --serve: a point whose part 1 ended it (its row is */
  int decided_status;       /* written): part 2 answers this, runs nothing; -1 */
} parent;

/* The worker process's side of the pipe. */
typedef struct child_ctx {
  int fd;
  int csv_fd;               /* in-process mode: write rows here directly */
  int cmd_fd;               /* --serve: requests (point indices) from the parent; -1 */
  sb_supervisor_result *res;
} child_ctx;

/* --serve: a request from the parent to its worker. */
typedef struct request {
  int64_t index;            /* point index */
  int64_t part;             /* SB_PART_* (runner.h) */
} request;

/* --serve: the next requested point, or -1 at end of requests. */
static long child_next_point(void *ctx, int *part) {
  child_ctx *c = ctx;
  request q;
  if (send_msg(c->fd, MSG_IDLE, -1, 0, 0, 0, NAN, NULL, 0) != 0) return -1;
  if (read_all(c->cmd_fd, &q, sizeof q) != 0) return -1;
  *part = (int)q.part;
  return (long)q.index;
}

static void child_on_partial(void *ctx, long index) {
  child_ctx *c = ctx;
  send_msg(c->fd, MSG_PARTIAL, index, 0, 0, 0, NAN, NULL, 0);
}

static void child_on_start(void *ctx, long index) {
  child_ctx *c = ctx;
  if (c->fd >= 0) send_msg(c->fd, MSG_START, index, 0, 0, 0, NAN, NULL, 0);
}

static int child_on_row(void *ctx, long index, const sb_row *row, int lost) {
  child_ctx *c = ctx;
  size_t len;
  char *line = sb_format_row(row, &len);
  if (!line) return -1;
  int rc;
  if (c->fd >= 0) {
    rc = send_msg(c->fd, MSG_ROW, index, (int)row->status, lost, row->gbps, row->median_us, line, len);
  } else {
    rc = sb_write_all(c->csv_fd, line, len);
    if (rc == 0) ++c->res->by_status[row->status];
  }
  free(line);
  return rc;
}

/* Opens the device, maps the watchdog record, runs order[next..n). */
static int worker_run(const sb_supervisor_options *o, worker *w, child_ctx *ctx) {
  sb_run_options run = o->run;
  run.copy_gbps = w->copy_gbps;
  run.log_prefix = w->prefix;
  run.progress_done = w->next;
  run.progress_total = w->n;
  run.on_start = child_on_start;
  run.on_row = child_on_row;
  if (ctx->cmd_fd >= 0) {
    run.next_point = child_next_point;
    run.on_partial = child_on_partial;
    run.progress_done = 0;
    run.progress_total = o->count;
  }
  run.ctx = ctx;
  if (o->test_worker)
    return o->test_worker(o, w->dev, w->order + w->next, w->n - w->next, &run, w->rec);
  const sb_device *probed = &o->devs[w->dev];
  sb_device d;
  char err[1024];
  if (sb_device_open(probed->ordinal, &d, err, sizeof err) != 0) {
    if (ctx->fd >= 0) send_msg(ctx->fd, MSG_FATAL, -1, 0, 0, 0, NAN, err, strlen(err));
    else fprintf(stderr, "syncbench: %s\n", err);
    return SB_WORKER_NO_DEVICE;
  }
  d.prov = probed->prov; /* one run: same run_utc and seed in every worker */
  cudaError_t e = sb_watchdog_map(w->rec, (size_t)sysconf(_SC_PAGESIZE), o->watchdog_ns);
  if (e != cudaSuccess) {
    fprintf(stderr, "%ssyncbench: the deadlock watchdog's record cannot be mapped (%s); a timed-out wait will read as `error`\n",
            w->prefix, cudaGetErrorString(e));
    cudaGetLastError();
    sb_watchdog_configure(o->watchdog_ns, NULL);
  }
  sb_run_summary sum;
  int rc = sb_run_sweep(o->points, w->order + w->next, w->n - w->next, &d, &run, &sum);
  if (ctx->cmd_fd >= 0) close(ctx->cmd_fd);
  if (rc != 0) return SB_WORKER_PIPE_FAILED;
  if (sum.context_lost) return SB_WORKER_CONTEXT_LOST;
  if (sum.interrupted) return 130;
  return 0;
}

/* --serve: hands the worker the point (and part) it should run next. */
static int send_request(worker *w, long index) {
  request q = {index, w->part};
  return sb_write_all(w->cmd_fd, (const char *)&q, sizeof q);
}

static int start_worker(parent *P, worker *w) {
  const sb_supervisor_options *o = P->o;
  int fds[2], cmd[2] = {-1, -1};
  if (pipe(fds) != 0 || (o->serve_in && pipe(cmd) != 0)) {
    fprintf(stderr, "syncbench: pipe: %s\n", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "syncbench: fork: %s\n", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    if (cmd[0] >= 0) close(cmd[0]), close(cmd[1]);
    return -1;
  }
  if (pid == 0) {
    /* Die with the parent; never touch its files. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1) _exit(130);
    close(fds[0]);
    close(o->csv_fd);
    for (int i = 0; i < P->nw; ++i)
      if (P->w[i].fd >= 0) close(P->w[i].fd);
    if (cmd[1] >= 0) close(cmd[1]);
    child_ctx ctx = {.fd = fds[1], .csv_fd = -1, .cmd_fd = cmd[0]};
    int code = worker_run(o, w, &ctx);
    fflush(NULL);
    _exit(code);
  }
  close(fds[1]);
  if (cmd[0] >= 0) close(cmd[0]);
  w->cmd_fd = cmd[1];
  w->pid = pid;
  w->fd = fds[0];
  w->len = 0;
  w->inflight = -1;
  w->last_msg = now_s();
  w->killed_for_silence = 0;
  w->stop_sent = 0;
  w->rows_this_run = 0;
  w->idle = 0;
  /* A fresh server worker takes the request in hand, if any. */
  if (w->cmd_fd >= 0 && w->next < w->n) send_request(w, w->order[w->next]);
  return 0;
}

static int write_row_line(parent *P, const char *line, size_t len, sb_status st) {
  if (sb_write_all(P->o->csv_fd, line, len) != 0) {
    if (!P->res->write_failed)
      fprintf(stderr, "syncbench: writing the CSV failed: %s; stopping\n", strerror(errno));
    P->res->write_failed = 1;
    sb_stop_requested = 1;
    return -1;
  }
  ++P->res->by_status[st];
  P->last_status = (int)st;
  return 0;
}

/* Moves w->next past point `index` (order is increasing). */
static void advance_past(worker *w, long index) {
  long k = w->next;
  while (k < w->n && w->order[k] != index) ++k;
  if (k < w->n) w->next = k + 1;
}

static void handle_msg(parent *P, worker *w, const msg_head *h, const char *payload) {
  w->last_msg = now_s();
  if (h->type == MSG_START) {
    /* A point started after another without a row: that one was excluded
     * by --benchmark_filter (a part 2 starts the point its part 1 left in
     * flight). */
    if (w->inflight >= 0 && w->inflight != h->index) advance_past(w, w->inflight);
    w->inflight = h->index;
  } else if (h->type == MSG_ROW) {
    if (h->status < 0 || h->status >= SB_NUM_STATUS) return;
    write_row_line(P, payload, h->len, (sb_status)h->status);
    P->last_median_us = h->median_us;
    const sb_point *p = &P->o->points[h->index];
    if ((p->variant->flags & SB_VF_YARDSTICK) && h->status == SB_OK && h->gbps > 0)
      w->copy_gbps = h->gbps;
    advance_past(w, h->index);
    w->inflight = -1;
    w->fruitless = 0;
    ++w->rows_this_run;
  } else if (h->type == MSG_IDLE) {
    w->idle = 1;
  } else if (h->type == MSG_PARTIAL) {
    /* The point stays in flight: a worker that dies before its part 2
     * costs it an `error` row, as a crash inside it does. */
    w->partial = 1;
    advance_past(w, h->index);
  } else if (h->type == MSG_FATAL) {
    fprintf(stderr, "%ssyncbench: %.*s\n", w->prefix, (int)h->len, payload);
    P->res->device_failed = 1;
  }
}

/* Reads what the worker sent; returns 0 at end of file. */
static int pump(parent *P, worker *w) {
  if (w->cap - w->len < 65536) {
    size_t cap = w->cap ? 2 * w->cap : 131072;
    char *b = realloc(w->buf, cap);
    if (!b) return -1;
    w->buf = b;
    w->cap = cap;
  }
  ssize_t got = read(w->fd, w->buf + w->len, w->cap - w->len);
  if (got < 0) return errno == EINTR ? 1 : 0;
  if (got == 0) return 0;
  w->len += (size_t)got;
  size_t pos = 0;
  while (w->len - pos >= sizeof(msg_head)) {
    msg_head h;
    memcpy(&h, w->buf + pos, sizeof h);
    if (w->len - pos - sizeof h < h.len) break;
    handle_msg(P, w, &h, w->buf + pos + sizeof h);
    pos += sizeof h + h.len;
  }
  memmove(w->buf, w->buf + pos, w->len - pos);
  w->len -= pos;
  return 1;
}

/* The worker's pipe closed: reap it, record the point it died on, and
 * start a new one for the rest of its points if there are any. */
static void worker_ended(parent *P, worker *w) {
  const sb_supervisor_options *o = P->o;
  close(w->fd);
  w->fd = -1;
  if (w->cmd_fd >= 0) close(w->cmd_fd);
  w->cmd_fd = -1;
  int status = 0;
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0 || code == SB_WORKER_NO_DEVICE || code == SB_WORKER_PIPE_FAILED) {
    if (code != 0) P->res->device_failed = 1;
    w->next = w->n;
    return;
  }
  if (code == 130) sb_stop_requested = 1; /* someone interrupted the worker */
  if (sb_stop_requested) { /* interrupted: the point in flight is not done */
    w->next = w->n;
    return;
  }
  if (w->inflight >= 0) {
    const sb_point *p = &o->points[w->inflight];
    sb_row row;
    sb_row_init(&row, &o->devs[w->dev].prov);
    sb_row_of_point(&row, p);
    row.seed = sb_splitmix64(o->run.seed + (unsigned long long)w->inflight);
    char why[160];
    if (w->killed_for_silence)
      snprintf(why, sizeof why, "no word from the worker for %.0f s (a hang the mbarrier watchdog does not cover?); killed",
               o->point_timeout_s);
    else if (WIFSIGNALED(status))
      snprintf(why, sizeof why, "the worker process died of signal %d (%s) running this point",
               WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
      snprintf(why, sizeof why, "the worker process exited with status %d running this point", code);
    char wd[SB_DETAIL_LEN];
    if (sb_watchdog_describe(w->rec, wd, sizeof wd)) {
      row.status = SB_DEADLOCK;
      snprintf(row.detail, sizeof row.detail, "%.300s; %.200s", wd, why);
    } else {
      row.status = SB_ERROR;
      snprintf(row.detail, sizeof row.detail, "%s", why);
    }
    size_t len;
    char *line = sb_format_row(&row, &len);
    if (line) write_row_line(P, line, len, row.status);
    P->last_median_us = NAN;
    free(line);
    char name[512];
    sb_point_name(p, name, sizeof name);
    if (o->run.log)
      fprintf(o->run.log, "%s%-11s %s  (%s)\n", w->prefix, sb_status_names[row.status], name, row.detail);
    advance_past(w, w->inflight);
    w->inflight = -1;
    w->fruitless = 0;
  } else if (w->rows_this_run == 0 && ++w->fruitless >= 3) {
    /* Nothing in flight and no row since it started: the worker cannot
     * even set up. Restarting would loop. */
    fprintf(stderr, "%ssyncbench: the worker ended %d times in a row without finishing a point (exit status %d); giving up on this GPU\n",
            w->prefix, w->fruitless, code);
    P->res->device_failed = 1;
    w->next = w->n;
    return;
  }
  if (w->next < w->n && !P->res->write_failed) {
    ++P->res->restarts;
    if (o->run.log)
      fprintf(o->run.log, "%ssyncbench: starting a fresh worker process for the %ld remaining points\n",
              w->prefix, w->n - w->next);
    if (start_worker(P, w) != 0) {
      P->res->device_failed = 1;
      w->next = w->n;
    }
  }
}

/* The points of device `dev` that the resume file does not hold yet. */
static long plan(const sb_supervisor_options *o, const sb_device *dev, long *order, long *resumed) {
  long n = 0;
  for (long i = 0; i < o->count; ++i) {
    if (o->resume) {
      char name[512], key[600];
      sb_point_name(&o->points[i], name, sizeof name);
      sb_resume_key(dev->prov.gpu_uuid, name, key, sizeof key);
      if (sb_resume_has(o->resume, key)) {
        ++*resumed;
        continue;
      }
    }
    order[n++] = i;
  }
  return n;
}

/* Each GPU's worker: its share of the points and its shared page. */
static int setup_workers(parent *P, size_t page) {
  const sb_supervisor_options *o = P->o;
  for (int k = 0; k < o->ndev; ++k) {
    worker *w = &P->w[k];
    w->dev = k;
    w->fd = -1;
    w->cmd_fd = -1;
    w->inflight = -1;
    w->order = malloc((size_t)(o->count ? o->count : 1) * sizeof *w->order);
    w->rec = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!w->order || w->rec == MAP_FAILED) {
      fprintf(stderr, "syncbench: out of memory\n");
      return -1;
    }
    w->n = plan(o, &o->devs[k], w->order, &P->res->resumed);
    if (o->resume) w->copy_gbps = sb_resume_copy_gbps(o->resume, o->devs[k].prov.gpu_uuid);
    if (o->ndev > 1) snprintf(w->prefix, sizeof w->prefix, "[gpu %d] ", o->devs[k].ordinal);
  }
  return 0;
}

/* One GPU, in this process (--no-fork): a fault ends the sweep. */
static void run_in_process(parent *P) {
  sb_supervisor_result *res = P->res;
  worker *w = &P->w[0];
  child_ctx ctx = {.fd = -1, .csv_fd = P->o->csv_fd, .cmd_fd = -1, .res = res};
  int code = w->n ? worker_run(P->o, w, &ctx) : 0;
  if (code == SB_WORKER_NO_DEVICE) res->device_failed = 1;
  if (code == SB_WORKER_PIPE_FAILED) res->write_failed = 1;
  if (code == SB_WORKER_CONTEXT_LOST)
    fprintf(stderr, "syncbench: the CUDA context is unusable after that error; stopping (run without --no-fork to carry on past faults)\n");
  res->interrupted = sb_stop_requested != 0;
}

/* After a poll: reads what a worker sent, and kills one that ignores a stop
 * or has been silent past the point timeout. */
static void tend_worker(parent *P, worker *w, int readable, double t) {
  if (readable && pump(P, w) == 0) {
    worker_ended(P, w);
    return;
  }
  if (w->stop_sent > 0 && t - w->stop_sent > 30) {
    kill(w->pid, SIGKILL); /* stuck inside one long kernel */
    w->stop_sent = t;
  } else if (!sb_stop_requested && P->o->point_timeout_s > 0 && w->inflight >= 0 &&
             t - w->last_msg > P->o->point_timeout_s && !w->killed_for_silence) {
    w->killed_for_silence = 1;
    kill(w->pid, SIGKILL);
  }
}

/* One forked worker per GPU, restarted past faults, until all are done. */
static void run_workers(parent *P) {
  for (int k = 0; k < P->nw; ++k)
    if (P->w[k].n > 0 && start_worker(P, &P->w[k]) != 0) P->res->device_failed = 1;
  struct pollfd pfd[SB_MAX_DEVICES];
  int forwarded = 0;
  for (;;) {
    int active = 0;
    for (int k = 0; k < P->nw; ++k)
      if (P->w[k].fd >= 0) {
        pfd[active].fd = P->w[k].fd;
        pfd[active].events = POLLIN;
        pfd[active].revents = 0;
        ++active;
      }
    if (active == 0) break;
    int ready = poll(pfd, (nfds_t)active, 500);
    double t = now_s();
    if (sb_stop_requested && !forwarded) {
      /* Workers get the terminal's SIGINT themselves; a signal sent to
       * this process alone is passed on. */
      for (int k = 0; k < P->nw; ++k)
        if (P->w[k].fd >= 0) {
          kill(P->w[k].pid, SIGINT);
          P->w[k].stop_sent = t;
        }
      forwarded = 1;
    }
    int a = 0;
    for (int k = 0; k < P->nw; ++k) {
      worker *w = &P->w[k];
      if (w->fd < 0) continue;
      int idx = a++;
      tend_worker(P, w, ready > 0 && pfd[idx].revents, t);
    }
  }
  P->res->interrupted = sb_stop_requested != 0 && !P->res->write_failed;
}

/* --serve: the index of the point called name, or -1. */
static long find_point(const sb_supervisor_options *o, const char *name) {
  char buf[512];
  for (long i = 0; i < o->count; ++i) {
    sb_point_name(&o->points[i], buf, sizeof buf);
    if (strcmp(buf, name) == 0) return i;
  }
  return -1;
}

/* --serve: runs point `index` (or its `part`, SB_PART_*) on the one worker
 * (started if none runs) and waits until its row is written or the point
 * is lost. Returns the row's status, -3 when part 1 passed (no row yet),
 * or -1 when no row came (the GPU could not be set up). */
static int serve_point(parent *P, long index, int part) {
  worker *w = &P->w[0];
  w->order[0] = index;
  w->n = 1;
  w->next = 0;
  w->part = part;
  w->partial = 0;
  /* Between a point's two parts the other build ran: that silence is not
   * this worker's. */
  w->last_msg = now_s();
  long rows = P->res->by_status[0];
  for (int s = 1; s < SB_NUM_STATUS; ++s) rows += P->res->by_status[s];
  if (w->fd < 0) {
    if (w->pid) ++P->res->restarts; /* after a fault: a fresh worker */
    if (start_worker(P, w) != 0) return -1;
  } else if ((w->idle = 0, send_request(w, index)) != 0) {
    kill(w->pid, SIGKILL); /* the request pipe broke: the worker is gone */
  }
  while (w->next < w->n && w->fd >= 0) {
    struct pollfd pfd = {.fd = w->fd, .events = POLLIN};
    int ready = poll(&pfd, 1, 500);
    tend_worker(P, w, ready > 0 && pfd.revents, now_s());
    if (sb_stop_requested && w->fd >= 0 && w->stop_sent == 0) {
      kill(w->pid, SIGINT);
      w->stop_sent = now_s();
    }
  }
  long after = 0;
  for (int s = 0; s < SB_NUM_STATUS; ++s) after += P->res->by_status[s];
  if (after > rows) return P->last_status;
  return w->partial ? -3 : -1;
}

/* --serve's "@start": starts the worker (if none runs) and waits until it
 * is set up, so that scripts/ab.py decides in which order the two builds
 * (and a spacer) create their CUDA contexts. 0, or -1 if it died first. */
static int serve_start(parent *P) {
  worker *w = &P->w[0];
  w->n = w->next = 0; /* no request in hand */
  if (w->fd < 0) {
    if (w->pid) ++P->res->restarts;
    if (start_worker(P, w) != 0) return -1;
  }
  while (!w->idle && w->fd >= 0 && !sb_stop_requested) {
    struct pollfd pfd = {.fd = w->fd, .events = POLLIN};
    int ready = poll(&pfd, 1, 500);
    tend_worker(P, w, ready > 0 && pfd.revents, now_s());
  }
  return w->idle ? 0 : -1;
}

/* --serve: answers requests on serve_in until end of input or a stop. */
static void run_serve(parent *P) {
  const sb_supervisor_options *o = P->o;
  signal(SIGPIPE, SIG_IGN); /* a dead worker's request pipe: seen as its death */
  fprintf(o->serve_out, "ready %s %s\n", o->devs[0].prov.gpu_uuid, o->devs[0].prov.commit);
  fflush(o->serve_out);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while (!sb_stop_requested && !P->res->write_failed && (len = getline(&line, &cap, o->serve_in)) >= 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (len == 0) continue;
    if (strcmp(line, "@start") == 0) { /* set the worker up now, run nothing */
      fprintf(o->serve_out, "%s\n", serve_start(P) == 0 ? "started" : "error - @start");
      fflush(o->serve_out);
      continue;
    }
    /* "@part 1/2 NAME", "@part 2/2 NAME": the point in two parts
     * (runner.h's SB_PART_*), for scripts/ab.py's A B B A halves. */
    int part = SB_PART_WHOLE;
    const char *name = line;
    if (strncmp(line, "@part 1/2 ", 10) == 0) part = SB_PART_FIRST, name = line + 10;
    else if (strncmp(line, "@part 2/2 ", 10) == 0) part = SB_PART_SECOND, name = line + 10;
    long index = find_point(o, name);
    int st;
    if (index < 0) {
      st = -2;
    } else if (part == SB_PART_SECOND && index == P->decided) {
      st = P->decided_status; /* part 1 decided it and wrote its row */
      P->last_median_us = NAN;
    } else {
      st = serve_point(P, index, part);
    }
    P->decided = -1;
    if (part == SB_PART_FIRST && index >= 0 && st != -3) {
      P->decided = index;
      P->decided_status = st;
    }
    if (sb_stop_requested && st < 0) break; /* interrupted mid-point: no answer */
    if (st == -3)
      fprintf(o->serve_out, "partial - %s\n", name);
    else if (st >= 0 && !isnan(P->last_median_us))
      fprintf(o->serve_out, "%s %.4f %s\n", sb_status_names[st], P->last_median_us, name);
    else
      fprintf(o->serve_out, "%s - %s\n", st >= 0 ? sb_status_names[st] : st == -2 ? "unknown" : "error", name);
    fflush(o->serve_out);
  }
  free(line);
  worker *w = &P->w[0];
  if (w->cmd_fd >= 0) { /* end of requests: the worker finishes and exits */
    close(w->cmd_fd);
    w->cmd_fd = -1;
  }
  w->next = w->n;
  w->inflight = -1; /* a part 1 whose part 2 never came: no row */
  while (w->fd >= 0) {
    struct pollfd pfd = {.fd = w->fd, .events = POLLIN};
    int ready = poll(&pfd, 1, 500);
    tend_worker(P, w, ready > 0 && pfd.revents, now_s());
  }
  P->res->interrupted = sb_stop_requested != 0 && !P->res->write_failed;
}

int sb_supervise(const sb_supervisor_options *o, sb_supervisor_result *res) {
  memset(res, 0, sizeof *res);
  parent P = {o, res, calloc((size_t)o->ndev, sizeof(worker)), o->ndev, 0, NAN, -1, -1};
  if (!P.w) return -1;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (setup_workers(&P, page) != 0) return -1;
  if (o->serve_in) run_serve(&P);
  else if (!o->isolate) run_in_process(&P);
  else run_workers(&P);
  for (int k = 0; k < P.nw; ++k) {
    free(P.w[k].order);
    free(P.w[k].buf);
    munmap(P.w[k].rec, page);
  }
  free(P.w);
  return res->write_failed ? -1 : 0;
}
