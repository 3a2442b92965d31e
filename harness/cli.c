#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_cli_usage(FILE *f) {
  fprintf(f,
"usage: syncbench [options] [--benchmark_<flag>=<value> ...]\n"
"\n"
"Which synchronization strategy should this kernel use on this GPU? Runs every\n"
"family's variants over a sweep of axes, checks each point against a CPU\n"
"reference, times it with CUDA events through Google Benchmark, and writes one\n"
"CSV row per point as soon as it finishes.\n"
"\n"
"  --list               families, variants and axes (no GPU needed)\n"
"  --quick              every variant at a few points (< 30 s on an H100)\n"
"  --filter REGEX       keep points whose name matches, e.g. 'scan/(pingpong|mbarrier)'\n"
"                       names look like scan/pingpong/block_threads=256/iters=16/n=33554432\n"
"  --block LIST         override an axis: comma list (k/M/G = 2^10/2^20/2^30)\n"
"  --stages LIST        or a power-of-two range lo..hi, e.g. --block 32..1024\n"
"  --buffer-bytes LIST\n"
"  --iters LIST\n"
"  --intensity LIST\n"
"  --n LIST\n"
"  --out FILE           CSV path (default syncbench.csv); {gpu} becomes the GPU slug,\n"
"                       missing directories are created\n"
"  --resume FILE        append to FILE (a CSV of this schema), skipping the points\n"
"                       it already holds; a partial last row is cut off first\n"
"  --device N           CUDA device ordinal (default 0)\n"
"  --devices LIST|all   run the whole sweep on each of these GPUs at once, one\n"
"                       worker process per GPU, rows merged into one CSV\n"
"  --watchdog-ms MS     an mbarrier wait longer than this traps and the point is\n"
"                       `deadlock` (default 1000; 0: never)\n"
"  --point-timeout S    kill a worker silent for S seconds, point `error`\n"
"                       (default 600; 0: never)\n"
"  --no-fork            run points in this process: no fault isolation, first\n"
"                       fault ends the sweep (for compute-sanitizer, gdb)\n"
"  --no-reference       leave out the reference copy (pct_of_copy stays empty)\n"
"  --seed N             base seed of the random inputs (default: fresh each run)\n"
"  --warmup N           launches between validation and timing (default 2)\n"
"  --min-time S         minimum timed seconds per point (default 0.05, --quick 0.02)\n"
"  --print-gpu-slug     print the results directory name for --device and exit\n"
"  --csv-header         print the CSV header and exit\n"
"  --help               this text\n"
"\n"
"Google Benchmark flags pass through, e.g. --benchmark_repetitions=3 or\n"
"--benchmark_min_time=0.5; --benchmark_filter is a regex like --filter.\n"
"The `reference` family (device-to-device copy) runs in every sweep.\n"
"\n"
"Each GPU's points run in a worker process: a trap, illegal address or crash\n"
"costs that point's row (`error` or `deadlock`) and a fresh worker carries on.\n"
"SIGINT/SIGTERM stop after the rows in progress; --resume FILE continues.\n"
"\n"
"exit status: 0 all rows ok/skipped/unsupported, 1 some point wrong or failed,\n"
"2 bad usage or output path, 3 no usable CUDA device, 130 interrupted\n");
}

void sb_cli_list(FILE *f) {
  for (int i = 0; i < sb_num_families; ++i) {
    const sb_family *fam = sb_families[i];
    fprintf(f, "%s: %s\n", fam->name, fam->summary);
    for (int a = 0; a < SB_NUM_AXES; ++a)
      if (fam->default_axes[a])
        fprintf(f, "  axis %-13s default %-12s quick %s\n", sb_axes[a].name,
                fam->default_axes[a], fam->quick_axes[a] ? fam->quick_axes[a] : "-");
    for (int v = 0; v < fam->variants->count; ++v) {
      const sb_variant *var = &fam->variants->rows[v];
      fprintf(f, "  %-22s %s", var->name, var->summary);
      if (var->min_cc) fprintf(f, " [sm_%d+]", var->min_cc);
      fputc('\n', f);
    }
  }
}

static int parse_ll(const char *s, long long lo, long long hi, long long *out) {
  if (!s || !*s) return -1;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

void sb_cli_free(sb_cli *c) {
  if (c->has_filter) regfree(&c->filter);
  c->has_filter = 0;
}

static int set_filter(sb_cli *c, const char *re, char *err, size_t errlen) {
  if (c->has_filter) {
    snprintf(err, errlen, "give one --filter (or --benchmark_filter); combine with '|'");
    return -1;
  }
  int rc = regcomp(&c->filter, re, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    regerror(rc, &c->filter, why, sizeof why);
    snprintf(err, errlen, "--filter '%s': %s", re, why);
    return -1;
  }
  c->has_filter = 1;
  c->spec.filter = &c->filter;
  return 0;
}

/* "all", or "0,1,3": distinct ordinals. */
static int parse_devices(const char *val, sb_cli *c, char *err, size_t errlen) {
  if (c->num_devices != 0) {
    snprintf(err, errlen, "--devices given twice");
    return -1;
  }
  if (!strcmp(val, "all")) {
    c->num_devices = -1;
    return 0;
  }
  char buf[512];
  if (!*val || strlen(val) >= sizeof buf) {
    snprintf(err, errlen, "--devices '%s' is not 'all' or a list like 0,1", val);
    return -1;
  }
  strcpy(buf, val);
  int n = 0;
  for (char *tok = buf, *next; tok; tok = next) {
    next = strchr(tok, ',');
    if (next) *next++ = '\0';
    long long v;
    if (parse_ll(tok, 0, 1023, &v)) {
      snprintf(err, errlen, "--devices '%s': '%s' is not a device ordinal (0, 1, ...)", val, tok);
      return -1;
    }
    for (int i = 0; i < n; ++i)
      if (c->devices[i] == v) {
        snprintf(err, errlen, "--devices '%s': device %lld is listed twice", val, v);
        return -1;
      }
    if (n == SB_CLI_MAX_DEVICES) {
      snprintf(err, errlen, "--devices: more than %d devices", SB_CLI_MAX_DEVICES);
      return -1;
    }
    c->devices[n++] = (int)v;
  }
  c->num_devices = n;
  return 0;
}

int sb_cli_parse(int argc, char **argv, sb_cli *c, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  c->out_path = "syncbench.csv";
  c->watchdog_ms = 1000;
  c->point_timeout_s = 600;
  c->warmup = 2;
  c->min_time_s = -1;
  c->gbench_argv[0] = argv[0];
  c->gbench_argc = 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *val = NULL;
    /* Options that take a value accept "--opt v" and "--opt=v". */
    char opt[64];
    const char *eq = strchr(a, '=');
    if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof opt) {
      memcpy(opt, a, (size_t)(eq - a));
      opt[eq - a] = '\0';
      val = eq + 1;
    } else {
      snprintf(opt, sizeof opt, "%s", a);
    }
#define TAKE_VALUE()                                                  \
  do {                                                                \
    if (!val) {                                                       \
      if (i + 1 >= argc) {                                            \
        snprintf(err, errlen, "%s needs a value", opt);               \
        goto fail;                                                    \
      }                                                               \
      val = argv[++i];                                                \
    }                                                                 \
  } while (0)
    if (strncmp(a, "--benchmark_", 12) == 0) {
      if (strncmp(a, "--benchmark_filter", 18) == 0) {
        if (!val) { snprintf(err, errlen, "use --benchmark_filter=REGEX"); goto fail; }
        if (set_filter(c, val, err, errlen)) goto fail;
        continue;
      }
      if (strncmp(a, "--benchmark_out", 15) == 0 || strncmp(a, "--benchmark_format", 18) == 0) {
        snprintf(err, errlen, "%s is not supported: syncbench writes its own CSV (--out)", opt);
        goto fail;
      }
      if (c->gbench_argc == SB_MAX_GBENCH_ARGS) { snprintf(err, errlen, "too many --benchmark_ flags"); goto fail; }
      c->gbench_argv[c->gbench_argc++] = argv[i];
      continue;
    }
    if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) { c->help = 1; continue; }
    if (!strcmp(opt, "--list")) { c->list = 1; continue; }
    if (!strcmp(opt, "--quick")) { c->spec.quick = 1; continue; }
    if (!strcmp(opt, "--csv-header")) { c->csv_header = 1; continue; }
    if (!strcmp(opt, "--print-gpu-slug")) { c->print_slug = 1; continue; }
    if (!strcmp(opt, "--filter")) {
      TAKE_VALUE();
      if (set_filter(c, val, err, errlen)) goto fail;
      continue;
    }
    if (!strcmp(opt, "--out")) {
      TAKE_VALUE();
      if (!*val) { snprintf(err, errlen, "--out needs a file name"); goto fail; }
      c->out_path = val;
      c->out_given = 1;
      continue;
    }
    if (!strcmp(opt, "--resume")) {
      TAKE_VALUE();
      if (!*val) { snprintf(err, errlen, "--resume needs a file name"); goto fail; }
      c->resume_path = val;
      continue;
    }
    if (!strcmp(opt, "--no-fork")) { c->no_fork = 1; continue; }
    if (!strcmp(opt, "--no-reference")) { c->no_reference = 1; continue; }
    long long v;
    if (!strcmp(opt, "--device")) {
      TAKE_VALUE();
      if (parse_ll(val, 0, 1023, &v)) { snprintf(err, errlen, "--device '%s' is not a device ordinal (0, 1, ...)", val); goto fail; }
      c->device = (int)v;
      c->device_given = 1;
      continue;
    }
    if (!strcmp(opt, "--devices")) {
      TAKE_VALUE();
      if (parse_devices(val, c, err, errlen)) goto fail;
      continue;
    }
    if (!strcmp(opt, "--watchdog-ms")) {
      TAKE_VALUE();
      if (parse_ll(val, 0, 3600000, &v)) { snprintf(err, errlen, "--watchdog-ms '%s' is not an integer in [0, 3600000] (0: no bound)", val); goto fail; }
      c->watchdog_ms = v;
      continue;
    }
    if (!strcmp(opt, "--point-timeout")) {
      TAKE_VALUE();
      char *end;
      errno = 0;
      double s = strtod(val, &end);
      if (errno || *end || !(s >= 0 && s <= 86400)) { snprintf(err, errlen, "--point-timeout '%s' is not a number of seconds in [0, 86400] (0: never)", val); goto fail; }
      c->point_timeout_s = s;
      continue;
    }
    if (!strcmp(opt, "--warmup")) {
      TAKE_VALUE();
      if (parse_ll(val, 0, 1000, &v)) { snprintf(err, errlen, "--warmup '%s' is not an integer in [0, 1000]", val); goto fail; }
      c->warmup = (int)v;
      continue;
    }
    if (!strcmp(opt, "--seed")) {
      TAKE_VALUE();
      if (parse_ll(val, 1, 0x7fffffffffffffffLL, &v)) { snprintf(err, errlen, "--seed '%s' is not a positive integer", val); goto fail; }
      c->seed = (unsigned long long)v;
      c->has_seed = 1;
      continue;
    }
    if (!strcmp(opt, "--min-time")) {
      TAKE_VALUE();
      char *end;
      errno = 0;
      double s = strtod(val, &end);
      if (errno || *end || !(s > 0 && s <= 60)) { snprintf(err, errlen, "--min-time '%s' is not a number of seconds in (0, 60]", val); goto fail; }
      c->min_time_s = s;
      continue;
    }
    int axis = -1;
    if (strncmp(opt, "--", 2) == 0)
      for (int k = 0; k < SB_NUM_AXES; ++k)
        if (!strcmp(opt + 2, sb_axes[k].option) || !strcmp(opt + 2, sb_axes[k].name)) axis = k;
    if (axis >= 0) {
      TAKE_VALUE();
      if (c->spec.override[axis].count) { snprintf(err, errlen, "%s given twice", opt); goto fail; }
      if (sb_axis_parse(axis, val, &c->spec.override[axis], err, errlen)) goto fail;
      continue;
    }
    snprintf(err, errlen, "unknown option '%s' (see --help)", a);
    goto fail;
#undef TAKE_VALUE
  }
  c->gbench_argv[c->gbench_argc] = NULL;
  if (c->num_devices != 0 && c->device_given) {
    snprintf(err, errlen, "give --device N or --devices LIST, not both");
    goto fail;
  }
  if (c->no_fork && (c->num_devices < 0 || c->num_devices > 1)) {
    snprintf(err, errlen, "--no-fork runs one GPU; drop --devices or --no-fork");
    goto fail;
  }
  if (c->resume_path && c->out_given && strcmp(c->resume_path, c->out_path) != 0) {
    snprintf(err, errlen, "--resume %s appends to that file; --out %s names another (give one of them)",
             c->resume_path, c->out_path);
    goto fail;
  }
  if (c->resume_path && strstr(c->resume_path, "{gpu}")) {
    snprintf(err, errlen, "--resume needs the file's real name, not a {gpu} pattern");
    goto fail;
  }
  if (c->resume_path) c->out_path = c->resume_path;
  return 0;
fail:
  sb_cli_free(c);
  return -1;
}

void sb_expand_out_path(const char *pattern, const char *slug, char *out, size_t len) {
  size_t w = 0;
  for (const char *p = pattern; *p && w + 1 < len;) {
    if (strncmp(p, "{gpu}", 5) == 0) {
      for (const char *s = slug; *s && w + 1 < len; ++s) out[w++] = *s;
      p += 5;
    } else {
      out[w++] = *p++;
    }
  }
  out[w] = '\0';
}
