#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csv_schema.h"

const char *const sb_status_names[SB_NUM_STATUS] = {
    "ok", "skipped", "unsupported", "wrong", "error", "deadlock"};

static const char *const column_names[] = {
#define SB_COL_NAME(name, fmt, val) name,
    SB_CSV_COLUMNS(SB_COL_NAME)
#undef SB_COL_NAME
};

int sb_csv_num_columns(void) {
  return (int)(sizeof column_names / sizeof column_names[0]);
}
const char *sb_csv_column_name(int i) { return column_names[i]; }

static double sweep_start_s = NAN;

void sb_csv_set_sweep_start(double monotonic_s) { sweep_start_s = monotonic_s; }

double sb_csv_elapsed_s(void) {
  if (isnan(sweep_start_s)) return NAN;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - sweep_start_s;
}

void sb_row_init(sb_row *row, const sb_provenance *prov) {
  memset(row, 0, sizeof *row);
  for (int a = 0; a < SB_NUM_AXES; ++a) row->axis[a] = SB_AXIS_UNSET;
  row->family = row->variant = "";
  row->mainloop = row->consumer = row->schedule = row->epilogue = "";
  row->samples = row->placements = row->bytes_moved = -1;
  row->blocks_per_sm = -1;
  row->regs_per_thread = -1;
  row->smem_per_block = -1;
  row->splits_used = -1;
  row->median_us = row->min_us = row->max_us = NAN;
  row->q1_us = row->q3_us = row->p01_us = row->p05_us = row->p10_us = row->cv_pct = NAN;
  row->median_kcycles = NAN;
  row->gbps = row->pct_of_copy = row->sm_clock_mhz = NAN;
  row->gflops = row->pct_of_cublas = row->cycles_per_op = row->ns_per_op = NAN;
  row->pct_of_cub = row->ceiling_us = row->epilogue_pct = row->sm_clock_after_mhz = row->power_w = NAN;
  row->temp_c = -1;
  row->throttled = -1;
  row->bytes_in_flight_per_sm = -1;
  row->prov = prov;
}

void sb_csv_write_field(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void emit_sep(FILE *f, int *first) {
  if (!*first) fputc(',', f);
  *first = 0;
}
static void emit_STR(FILE *f, const char *s, int *first) {
  emit_sep(f, first);
  sb_csv_write_field(f, s ? s : "");
}
static void emit_INT(FILE *f, long long v, int *first) {
  emit_sep(f, first);
  if (v >= 0) fprintf(f, "%lld", v);
}
static void emit_fmt(FILE *f, const char *fmt, double v, int *first) {
  emit_sep(f, first);
  if (!isnan(v) && !isinf(v)) fprintf(f, fmt, v);
}
static void emit_F2(FILE *f, double v, int *first) { emit_fmt(f, "%.2f", v, first); }
static void emit_F4(FILE *f, double v, int *first) { emit_fmt(f, "%.4f", v, first); }
static void emit_AXIS_value(FILE *f, int axis, long long v, int *first) {
  char s[64];
  emit_sep(f, first);
  sb_axis_value_str(axis, v, s, sizeof s);
  sb_csv_write_field(f, s);
}
#define emit_AXIS(f, id, first) emit_AXIS_value(f, id, r->axis[id], first)

void sb_csv_write_header(FILE *f) {
  for (int i = 0; i < sb_csv_num_columns(); ++i) {
    if (i) fputc(',', f);
    fputs(column_names[i], f);
  }
  fputc('\n', f);
  fflush(f);
}

int sb_csv_write_row(FILE *f, const sb_row *r) {
  int first = 1;
#define SB_COL_EMIT(name, fmt, val) emit_##fmt(f, val, &first);
  SB_CSV_COLUMNS(SB_COL_EMIT)
#undef SB_COL_EMIT
  fputc('\n', f);
  if (fflush(f) != 0 || ferror(f)) return -1;
  return 0;
}

int sb_csv_split(char *line, char **fields, int max) {
  int count = 0;
  char *p = line;
  for (;;) {
    if (count == max) return -1;
    if (*p == '"') { /* quoted: unescape "" in place */
      char *w = ++p;
      fields[count++] = w;
      for (;;) {
        if (*p == '\0') return -1; /* unterminated quote */
        if (*p == '"') {
          if (p[1] == '"') { *w++ = '"'; p += 2; continue; }
          ++p;
          break;
        }
        *w++ = *p++;
      }
      *w = '\0';
      if (*p != ',' && *p != '\0') return -1; /* text after closing quote */
    } else {
      fields[count++] = p;
      while (*p != ',' && *p != '\0') {
        if (*p == '"') return -1; /* stray quote inside an unquoted field */
        ++p;
      }
    }
    if (*p == '\0') break;
    *p++ = '\0';
  }
  return count;
}
