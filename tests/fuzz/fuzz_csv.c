/* libFuzzer harness for the CSV reader and writer (harness/csv.c) and the
 * --resume loader (harness/resume.c).
 *  1. sb_csv_split on arbitrary bytes: no memory error, a sane count.
 *  2. write -> split round trip: a row whose strings and numbers come from
 *     the input is written by sb_csv_write_row and read back field for
 *     field, and the resume parser sees exactly that one row.
 *  3. sb_resume_parse on header + arbitrary bytes: the kept prefix ends on
 *     a row boundary and parses again to the same rows, with nothing to
 *     drop. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/csv_schema.h"
#include "../../harness/resume.h"

static size_t header_text(char *buf, size_t len) {
  FILE *f = fmemopen(buf, len, "w");
  sb_csv_write_header(f);
  long n = ftell(f);
  fclose(f);
  return (size_t)n;
}

/* Takes a NUL-free string of up to max bytes from the input. */
static const uint8_t *take_str(const uint8_t *p, const uint8_t *end, char *out, size_t max) {
  size_t n = 0;
  while (p < end && n + 1 < max && *p != 0) out[n++] = (char)*p++;
  out[n] = '\0';
  if (p < end) ++p; /* the separator */
  return p;
}

static void check_split(const uint8_t *data, size_t size) {
  char *line = malloc(size + 1);
  memcpy(line, data, size);
  line[size] = '\0';
  char *fields[16];
  int n = sb_csv_split(line, fields, 16);
  if (n < -1 || n > 16 || n == 0) abort();
  for (int i = 0; i < n; ++i)
    if (fields[i] < line || fields[i] > line + size) abort();
  free(line);
}

static void check_round_trip(const uint8_t *data, size_t size) {
  const uint8_t *p = data, *end = data + size;
  char family[64], variant[64];
  sb_provenance prov;
  memset(&prov, 0, sizeof prov);
  sb_row row;
  sb_row_init(&row, &prov);
  p = take_str(p, end, family, sizeof family);
  p = take_str(p, end, variant, sizeof variant);
  p = take_str(p, end, row.detail, sizeof row.detail);
  p = take_str(p, end, prov.gpu_name, sizeof prov.gpu_name);
  p = take_str(p, end, prov.gpu_uuid, sizeof prov.gpu_uuid);
  row.family = family;
  row.variant = variant;
  for (int a = 0; a < SB_NUM_AXES && p + 2 <= end; ++a, p += 2) {
    unsigned v = (unsigned)p[0] | (unsigned)p[1] << 8;
    long long span = sb_axes[a].max - sb_axes[a].min + 1;
    row.axis[a] = (v & 1) ? SB_AXIS_UNSET : sb_axes[a].min + (long long)(v >> 1) % span;
  }
  double d = 0;
  if (p + sizeof d <= end) { memcpy(&d, p, sizeof d); p += sizeof d; }
  row.median_us = d;
  row.gbps = -d;
  if (p < end) row.status = (sb_status)(*p++ % SB_NUM_STATUS);
  if (p + 8 <= end) { memcpy(&row.samples, p, 8); p += 8; }

  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sb_csv_write_header(f);
  long hdr = ftell(f);
  if (sb_csv_write_row(f, &row) != 0) abort();
  fclose(f);
  if (len < 2 || buf[len - 1] != '\n') abort();

  sb_resume r;
  char err[256];
  if (sb_resume_parse(buf, len, &r, err, sizeof err) != 0) abort();
  if (r.rows != 1 || r.good_bytes != len || r.dropped_bytes != 0) abort();
  sb_resume_free(&r);

  char *line = buf + hdr;
  buf[len - 1] = '\0';
  int ncol = sb_csv_num_columns();
  char **fields = malloc((size_t)(ncol + 1) * sizeof *fields);
  if (sb_csv_split(line, fields, ncol + 1) != ncol) abort();
  int col_detail = -1, col_family = -1, col_name = -1, col_uuid = -1;
  for (int i = 0; i < ncol; ++i) {
    const char *c = sb_csv_column_name(i);
    if (!strcmp(c, "detail")) col_detail = i;
    if (!strcmp(c, "family")) col_family = i;
    if (!strcmp(c, "gpu_name")) col_name = i;
    if (!strcmp(c, "gpu_uuid")) col_uuid = i;
  }
  if (strcmp(fields[col_detail], row.detail) || strcmp(fields[col_family], family) ||
      strcmp(fields[col_name], prov.gpu_name) || strcmp(fields[col_uuid], prov.gpu_uuid))
    abort();
  for (int a = 0; a < SB_NUM_AXES; ++a) {
    char want[64];
    sb_axis_value_str(a, row.axis[a], want, sizeof want);
    for (int i = 0; i < ncol; ++i)
      if (!strcmp(sb_csv_column_name(i), sb_axes[a].name) && strcmp(fields[i], want)) abort();
  }
  free(fields);
  free(buf);
}

static void check_resume(const uint8_t *data, size_t size) {
  char head[4096];
  size_t h = header_text(head, sizeof head);
  char *buf = malloc(h + size);
  memcpy(buf, head, h);
  memcpy(buf + h, data, size);
  sb_resume r, again;
  char err[128];
  if (sb_resume_parse(buf, h + size, &r, err, sizeof err) == 0) {
    if (r.good_bytes < h || r.good_bytes > h + size) abort();
    if (buf[r.good_bytes - 1] != '\n') abort();
    if (r.good_bytes + r.dropped_bytes != h + size) abort();
    for (long i = 1; i < r.count; ++i)
      if (strcmp(r.keys[i - 1], r.keys[i]) > 0) abort();
    if (sb_resume_parse(buf, r.good_bytes, &again, err, sizeof err) != 0) abort();
    if (again.rows != r.rows || again.dropped_bytes != 0 || again.good_bytes != r.good_bytes) abort();
    for (long i = 0; i < r.count; ++i)
      if (!sb_resume_has(&again, r.keys[i])) abort();
    sb_resume_free(&again);
    sb_resume_free(&r);
  } else if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0') {
    abort();
  }
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  switch (data[0] % 3) {
    case 0: check_split(data + 1, size - 1); break;
    case 1: check_round_trip(data + 1, size - 1); break;
    default: check_resume(data + 1, size - 1); break;
  }
  return 0;
}
