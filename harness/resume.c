#include "resume.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axes.h"
#include "csv_schema.h"

void sb_resume_key(const char *uuid, const char *point_name, char *out, size_t len) {
  snprintf(out, len, "%s|%s", uuid, point_name);
}

void sb_resume_free(sb_resume *r) {
  for (long i = 0; i < r->count; ++i) free(r->keys[i]);
  free(r->keys);
  memset(r, 0, sizeof *r);
}

static int add_key(sb_resume *r, const char *key) {
  if (r->count == r->cap) {
    long cap = r->cap ? 2 * r->cap : 256;
    char **k = realloc(r->keys, (size_t)cap * sizeof *k);
    if (!k) return -1;
    r->keys = k;
    r->cap = cap;
  }
  char *dup = strdup(key);
  if (!dup) return -1;
  r->keys[r->count++] = dup;
  return 0;
}

static int cmp_key(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int sb_resume_has(const sb_resume *r, const char *key) {
  if (r->count == 0) return 0;
  return bsearch(&key, r->keys, (size_t)r->count, sizeof *r->keys, cmp_key) != NULL;
}

double sb_resume_copy_gbps(const sb_resume *r, const char *uuid) {
  for (int i = 0; i < r->ncopy; ++i)
    if (strcmp(r->copy[i].uuid, uuid) == 0) return r->copy[i].gbps;
  return 0;
}

static int column_index(const char *name) {
  for (int i = 0; i < sb_csv_num_columns(); ++i)
    if (strcmp(sb_csv_column_name(i), name) == 0) return i;
  return -1;
}

/* The header this binary writes, without the newline. */
static size_t expected_header(char *buf, size_t len) {
  size_t w = 0;
  for (int i = 0; i < sb_csv_num_columns(); ++i) {
    int n = snprintf(buf + w, len - w, "%s%s", i ? "," : "", sb_csv_column_name(i));
    if (n < 0 || (size_t)n >= len - w) return 0;
    w += (size_t)n;
  }
  return w;
}

/* Remembers one split row: its key, and the copy bandwidth of a reference. */
static int take_row(sb_resume *r, char **f) {
  static int col_family = -2, col_variant, col_uuid, col_status, col_gbps, col_pct_copy, col_axis[SB_NUM_AXES];
  if (col_family == -2) {
    col_family = column_index("family");
    col_variant = column_index("variant");
    col_uuid = column_index("gpu_uuid");
    col_status = column_index("status");
    col_gbps = column_index("gbps");
    col_pct_copy = column_index("pct_of_copy");
    for (int a = 0; a < SB_NUM_AXES; ++a) col_axis[a] = column_index(sb_axes[a].name);
  }
  /* The same text sb_point_name builds: family/variant/axis=value... */
  char name[2048];
  size_t w = (size_t)snprintf(name, sizeof name, "%s/%s", f[col_family], f[col_variant]);
  for (int a = 0; a < SB_NUM_AXES && w < sizeof name; ++a)
    if (f[col_axis[a]][0] != '\0')
      w += (size_t)snprintf(name + w, sizeof name - w, "/%s=%s", sb_axes[a].name, f[col_axis[a]]);
  char key[2200];
  sb_resume_key(f[col_uuid], name, key, sizeof key);
  if (add_key(r, key) != 0) return -1;
  ++r->rows;
  /* The yardstick's (SB_FF_YARDSTICK) ok rows are the ones at 100% of the
   * copy: found by the file's own column, not by a family name. */
  if (strcmp(f[col_status], "ok") == 0 && f[col_gbps][0] != '\0' &&
      strtod(f[col_pct_copy], NULL) == 100.0) {
    double g = strtod(f[col_gbps], NULL);
    int i = 0;
    while (i < r->ncopy && strcmp(r->copy[i].uuid, f[col_uuid]) != 0) ++i;
    if (i < SB_RESUME_MAX_GPUS && g > 0) {
      snprintf(r->copy[i].uuid, sizeof r->copy[i].uuid, "%s", f[col_uuid]);
      r->copy[i].gbps = g;
      if (i == r->ncopy) ++r->ncopy;
    }
  }
  return 0;
}

int sb_resume_parse(const char *buf, size_t len, sb_resume *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  char header[4096];
  size_t hlen = expected_header(header, sizeof header);
  const char *nl = memchr(buf, '\n', len);
  if (nl == NULL) {
    /* Empty, or the header itself was cut short: start the file over. */
    if (len <= hlen && memcmp(buf, header, len) == 0) {
      r->need_header = 1;
      r->dropped_bytes = len;
      return 0;
    }
    snprintf(err, errlen, "not a syncbench CSV of schema %d: the first line is not its header",
             SB_CSV_SCHEMA_VERSION);
    return -1;
  }
  if ((size_t)(nl - buf) != hlen || memcmp(buf, header, hlen) != 0) {
    snprintf(err, errlen,
             "the header differs from this binary's schema %d columns (another version or not a syncbench CSV); resume into a new file instead",
             SB_CSV_SCHEMA_VERSION);
    return -1;
  }
  const int ncol = sb_csv_num_columns();
  char **fields = malloc((size_t)(ncol + 1) * sizeof *fields);
  char *rec = NULL;
  size_t rec_cap = 0;
  if (!fields) goto oom;
  size_t pos = hlen + 1;
  long line = 2;
  r->good_bytes = pos;
  while (pos < len) {
    /* One record: up to a newline outside quotes. */
    int quoted = 0;
    size_t end = pos;
    long lines = 0;
    for (; end < len; ++end) {
      if (buf[end] == '"') quoted = !quoted;
      else if (buf[end] == '\n') {
        if (!quoted) break;
        ++lines;
      }
    }
    if (end == len) { /* no final newline: a row cut short */
      r->dropped_bytes = len - pos;
      break;
    }
    size_t n = end - pos;
    if (n + 1 > rec_cap) {
      char *p = realloc(rec, n + 1);
      if (!p) goto oom;
      rec = p;
      rec_cap = n + 1;
    }
    memcpy(rec, buf + pos, n);
    rec[n] = '\0';
    int got = memchr(rec, '\0', n) ? -1 : sb_csv_split(rec, fields, ncol + 1);
    if (got != ncol) {
      snprintf(err, errlen, "line %ld: malformed row (%d fields, want %d); fix or remove it before resuming",
               line, got, ncol);
      goto fail;
    }
    if (take_row(r, fields) != 0) goto oom;
    pos = end + 1;
    line += 1 + lines;
    r->good_bytes = pos;
  }
  free(fields);
  free(rec);
  if (r->count) qsort(r->keys, (size_t)r->count, sizeof *r->keys, cmp_key);
  return 0;
oom:
  snprintf(err, errlen, "out of memory reading the CSV");
fail:
  free(fields);
  free(rec);
  sb_resume_free(r);
  return -1;
}

int sb_resume_load(const char *path, sb_resume *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  int fd = open(path, O_RDWR);
  if (fd < 0) {
    snprintf(err, errlen, "--resume %s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  char *buf = NULL;
  size_t len = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    buf = malloc((size_t)st.st_size);
    if (!buf) {
      snprintf(err, errlen, "--resume %s: out of memory", path);
      close(fd);
      return -1;
    }
    while (len < (size_t)st.st_size) {
      ssize_t got = read(fd, buf + len, (size_t)st.st_size - len);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      len += (size_t)got;
    }
  }
  char why[512];
  int rc = sb_resume_parse(buf ? buf : "", len, r, why, sizeof why);
  free(buf);
  if (rc != 0) {
    snprintf(err, errlen, "--resume %s: %s", path, why);
    close(fd);
    return -1;
  }
  if (r->dropped_bytes && ftruncate(fd, (off_t)r->good_bytes) != 0) {
    snprintf(err, errlen, "--resume %s: cannot drop the partial last row: %s", path, strerror(errno));
    sb_resume_free(r);
    close(fd);
    return -1;
  }
  close(fd);
  return 0;
}
