#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paired.h"

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
"  --format csv|text    --list as text (default) or CSV: one row per variant with\n"
"                       its traits (header: family,family_flags,family_summary,\n"
"                       variant,variant_index,min_cc,flags,axes,ceiling_column,\n"
"                       ceiling_reading,summary,mainloop,consumer,schedule,\n"
"                       epilogue: a composed variant's parts, gemm's)\n"
"  --quick              every variant at a few points (< 30 s on an H100)\n"
"  --filter REGEX       keep points whose name matches, e.g. 'scan/(pingpong|mbarrier)'\n"
"                       names look like scan/pingpong/block_threads=256/iters=16/n=33554432\n"
"  --block LIST         override an axis: comma list (k/M/G = 2^10/2^20/2^30)\n"
"  --stages LIST        or a power-of-two range lo..hi, e.g. --block 32..1024\n"
"  --buffer-bytes LIST\n"
"  --iters LIST\n"
"  --intensity LIST\n"
"  --n LIST             (and --elems, --warps, --participants, --contention,\n"
"                       --cluster, --m, --k, --tile, --splits: every axis --list shows;\n"
"                       --splits also takes auto: the launcher picks the count;\n"
"                       --window, --first-sleep, --poll-sleep, --sleep-min-tiles:\n"
"                       devscan's look-back tuning, docs/devscan.md)\n"
"  --then               another sweep in the same run: the --filter and axis options\n"
"                       after it make a sweep of their own, e.g. two tiles each at\n"
"                       its stage counts; every sweep's points run in order in one\n"
"                       process, a point two sweeps name once (run options go\n"
"                       before the first --then; with no --filter or axis before\n"
"                       it, the first sweep is the whole default sweep)\n"
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
"  --serve              A/B worker (scripts/ab.py): prints \"ready <gpu_uuid>\n"
"                       <commit>\", then runs the points named on stdin, one name\n"
"                       a line, each row to --out (or --resume), and answers\n"
"                       \"<status> <median_us|-> <name>\" (or \"unknown - <name>\");\n"
"                       \"@part 1/2 <name>\" / \"@part 2/2 <name>\" take a point's\n"
"                       samples in two halves (ab.py --halves; \"partial\" after 1/2)\n"
"  --unpaired           time each variant without its paired ceiling (cuBLAS,\n"
"                       CUB): pct_of_cublas/pct_of_cub stay empty; for\n"
"                       compute-sanitizer, which would check 64+ ceiling calls\n"
"  --profile-warmup     for a profiler (scripts/explain.py, ncu --profile-from-start\n"
"                       off): each point's last warm-up launch runs alone between\n"
"                       cudaProfilerStart/Stop, after sb_profile_mark_kernel on a\n"
"                       grid of (the point's place in --benchmark_list_tests) + 1\n"
"  --seed N             base seed of the random inputs (default: fresh each run)\n"
"  --warmup N           launches between validation and timing (default 2)\n"
"  --cooldown-ms MS     leave the GPU idle MS ms before each point's warm-up, so\n"
"                       that every point starts from a GPU below its power limit\n"
"                       (default 0; the row's detail says it)\n"
"  --min-time S         minimum timed seconds per point (default 0.05, --quick 0.01;\n"
"                       a point paired with its ceiling: half for each side)\n"
"  --print-gpu-slug     print the results directory name for --device and exit\n"
"  --csv-header         print the CSV header and exit\n"
"  --version            print the version, commit, CSV schema and CUDA versions\n"
"  --help               this text\n"
"\n"
"Google Benchmark flags (docs/gbench-flags.md): --benchmark_filter=REGEX (like\n"
"--filter), --benchmark_min_time=S (like --min-time), --benchmark_list_tests\n"
"(point names, no GPU needed), --benchmark_repetitions=N (the CSV row pools the\n"
"N repetitions' samples), --benchmark_out=FILE and --benchmark_format=json\n"
"(Google Benchmark's JSON of the timed runs; the CSV is still written), and\n"
"--benchmark_time_unit, --benchmark_context, --benchmark_report_aggregates_only,\n"
"--benchmark_display_aggregates_only for that JSON. Others are refused.\n"
"The `reference` family (device-to-device copy) runs in every sweep.\n"
"\n"
"Each GPU's points run in a worker process: a trap, illegal address or crash\n"
"costs that point's row (`error` or `deadlock`) and a fresh worker carries on.\n"
"SIGINT/SIGTERM stop after the rows in progress; --resume FILE continues.\n"
"\n"
"exit status: 0 all rows ok/skipped/unsupported, 1 some point wrong or failed,\n"
"2 bad usage or output path, 3 no usable CUDA device, 130 interrupted\n");
}

static void list_text(FILE *f) {
  for (int i = 0; i < sb_num_families; ++i) {
    const sb_family *fam = sb_families[i];
    fprintf(f, "%s: %s\n", fam->name, fam->summary);
    for (int a = 0; a < SB_NUM_AXES; ++a)
      if (fam->default_axes[a])
        fprintf(f, "  axis %-13s default %-12s quick %-12s %s\n", sb_axes[a].name,
                fam->default_axes[a], fam->quick_axes[a] ? fam->quick_axes[a] : "-",
                sb_axes[a].help);
    for (int v = 0; v < fam->variants->count; ++v) {
      const sb_variant *var = &fam->variants->rows[v];
      fprintf(f, "  %-22s %s", var->name, var->summary);
      if (var->min_cc) fprintf(f, " [sm_%d+]", var->min_cc);
      fputc('\n', f);
    }
  }
}

/* Trait names of --list --format=csv, in this order (the contract with
 * scripts/: see SHARED interfaces and the README). */
static const struct { unsigned bit; const char *name; } variant_traits[] = {
    {SB_VF_CEILING, "ceiling"},         {SB_VF_NO_KERNEL, "no_kernel"},
    {SB_VF_BASELINE, "baseline"},       {SB_VF_PLAIN, "plain"},
    {SB_VF_WHOLE_WARPS, "whole_warps"}, {SB_VF_GENERIC, "generic"},
    {SB_VF_TEST_ONLY, "test_only"},     {SB_VF_YARDSTICK, "yardstick"},
    {SB_VF_P75_RATIO, "p75_ratio"},
};
static const struct { unsigned bit; const char *name; } family_traits[] = {
    {SB_FF_YARDSTICK, "yardstick"},
    {SB_FF_WORKSPACE_STATE, "workspace_state"},
    {SB_FF_PRICE_PER_PLACE, "price_per_place"},
    {SB_FF_TIME_ACROSS_RUNS, "time_across_runs"},
};

#define JOIN_TRAITS(out, len, table, flags)                                        \
  do {                                                                             \
    size_t used_ = 0;                                                              \
    (out)[0] = '\0';                                                               \
    for (size_t t_ = 0; t_ < sizeof table / sizeof table[0]; ++t_)                 \
      if ((flags) & table[t_].bit)                                                 \
        used_ += (size_t)snprintf((out) + used_, (len) - used_, "%s%s", used_ ? ";" : "", \
                                  table[t_].name);                                 \
  } while (0)

static void list_csv(FILE *f) {
  fputs("family,family_flags,family_summary,variant,variant_index,min_cc,flags,axes,"
        "ceiling_column,ceiling_reading,summary,mainloop,consumer,schedule,epilogue\n", f);
  for (int i = 0; i < sb_num_families; ++i) {
    const sb_family *fam = sb_families[i];
    char fflags[64], axes[256] = "", vflags[128];
    JOIN_TRAITS(fflags, sizeof fflags, family_traits, fam->flags);
    for (int a = 0, used = 0; a < SB_NUM_AXES; ++a)
      if (fam->default_axes[a])
        used += snprintf(axes + used, sizeof axes - (size_t)used, "%s%s", used ? ";" : "",
                         sb_axes[a].name);
    for (int v = 0; v < fam->variants->count; ++v) {
      const sb_variant *var = &fam->variants->rows[v];
#ifndef SB_BROKEN
      if (var->flags & SB_VF_TEST_ONLY) continue; /* only in the test build */
#endif
      JOIN_TRAITS(vflags, sizeof vflags, variant_traits, var->flags);
      for (const sb_trait_name *t = fam->variant_traits; t && t->name; ++t)
        if (var->flags & t->bit) {
          const size_t used = strlen(vflags);
          snprintf(vflags + used, sizeof vflags - used, "%s%s", used ? ";" : "", t->name);
        }
      const char *cells[] = {fam->name, fflags, fam->summary};
      for (int c = 0; c < 3; ++c) {
        sb_csv_write_field(f, cells[c]);
        fputc(',', f);
      }
      sb_csv_write_field(f, var->name);
      fprintf(f, ",%d,%d,", v, var->min_cc);
      sb_csv_write_field(f, vflags);
      fputc(',', f);
      sb_csv_write_field(f, axes);
      fputc(',', f);
      sb_csv_write_field(f, fam->ceiling_column ? fam->ceiling_column : "");
      fputc(',', f);
      sb_csv_write_field(f, fam->ceiling_column ? sb_ratio_reading_name(sb_variant_reading(fam, var)) : "");
      fputc(',', f);
      sb_csv_write_field(f, var->summary);
      const char *parts[] = {var->composition.mainloop, var->composition.consumer, var->composition.schedule,
                             var->composition.epilogue};
      for (int c = 0; c < 4; ++c) {
        fputc(',', f);
        sb_csv_write_field(f, parts[c] ? parts[c] : "");
      }
      fputc('\n', f);
    }
  }
}

void sb_cli_list(FILE *f, sb_list_format format) {
  if (format == SB_LIST_CSV) list_csv(f);
  else list_text(f);
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
  for (int i = 0; i < c->num_sweeps; ++i) {
    if (c->sweeps[i].has_filter) regfree(&c->sweeps[i].filter);
    c->sweeps[i].has_filter = 0;
  }
}

/* The sweep the options read now set: the first, or the last --then's. */
static sb_cli_sweep *current_sweep(sb_cli *c) { return &c->sweeps[c->num_sweeps - 1]; }

static int set_filter(sb_cli *c, const char *re, char *err, size_t errlen) {
  sb_cli_sweep *s = current_sweep(c);
  if (s->has_filter) {
    snprintf(err, errlen, "give one --filter (or --benchmark_filter) a sweep; combine with '|'");
    return -1;
  }
  int rc = regcomp(&s->filter, re, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    regerror(rc, &s->filter, why, sizeof why);
    snprintf(err, errlen, "--filter '%s': %s", re, why);
    return -1;
  }
  s->has_filter = 1;
  s->spec.filter = &s->filter;
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


/* Google Benchmark's flags (1.7), as docs/gbench-flags.md describes them:
 * each one works the gbench way or is refused with its reason. */
enum {
  GB_FILTER = 1 << 0, GB_LIST_TESTS = 1 << 1, GB_MIN_TIME = 1 << 2, GB_REPETITIONS = 1 << 3,
  GB_FORMAT = 1 << 4, GB_OUT = 1 << 5, GB_OUT_FORMAT = 1 << 6, GB_REPORT_AGG = 1 << 7,
  GB_DISPLAY_AGG = 1 << 8, GB_TIME_UNIT = 1 << 9, GB_CONTEXT = 1 << 10, GB_COLOR = 1 << 11,
  GB_COUNTERS_TABULAR = 1 << 12, GB_INTERLEAVING = 1 << 13,
};

/* Google Benchmark's booleans: a bare flag is true. Returns 0/1, or -1. */
static int parse_bool(const char *val) {
  if (!val || !strcmp(val, "true") || !strcmp(val, "1") || !strcmp(val, "yes") || !strcmp(val, "on"))
    return 1;
  if (!strcmp(val, "false") || !strcmp(val, "0") || !strcmp(val, "no") || !strcmp(val, "off"))
    return 0;
  return -1;
}

static int pass_to_gbench(sb_cli *c, char *arg, char *err, size_t errlen) {
  if (c->gbench_argc == SB_MAX_GBENCH_ARGS) {
    snprintf(err, errlen, "too many --benchmark_ flags");
    return -1;
  }
  c->gbench_argv[c->gbench_argc++] = arg;
  return 0;
}

/* "k=v" or "k1=v1,k2=v2" with non-empty keys. */
static int valid_context(const char *s) {
  if (!*s) return 0;
  for (const char *p = s; *p;) {
    size_t n = strcspn(p, ",");
    const char *eq = memchr(p, '=', n);
    if (!eq || eq == p) return 0;
    p += n;
    if (*p == ',' && !*++p) return 0;
  }
  return 1;
}

/* ---- Google Benchmark's flags: what syncbench does with each ---- */

typedef int (*gb_fn)(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err,
                     size_t errlen);

static int gb_filter(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on, (void)arg;
  if (val[0] == '-') {
    snprintf(err, errlen, "%s=%s: negative filters ('-' first) are not supported; "
             "use a regex that matches the points to keep", opt, val);
    return -1;
  }
  return set_filter(c, val, err, errlen);
}

static int gb_list_tests(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)opt, (void)val, (void)arg, (void)err, (void)errlen;
  c->list_tests = on;
  return 0;
}

static int gb_min_time(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on, (void)arg;
  char *end;
  errno = 0;
  double s = strtod(val, &end);
  if (end != val && *end == 'x' && end[1] == '\0') {
    snprintf(err, errlen, "%s=%s: an iteration count ('x') is not supported; give seconds", opt, val);
    return -1;
  }
  if (end != val && *end == 's' && end[1] == '\0') ++end; /* "0.5s", as gbench 1.8 writes it */
  if (end == val || errno || *end || !(s > 0 && s <= 60)) {
    snprintf(err, errlen, "%s=%s: not a number of seconds in (0, 60]", opt, val);
    return -1;
  }
  c->min_time_s = s;
  return 0;
}

static int gb_repetitions(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on;
  long long v;
  if (parse_ll(val, 1, 1000, &v)) {
    snprintf(err, errlen, "%s=%s: not a positive integer (1 to 1000)", opt, val);
    return -1;
  }
  c->repetitions = (int)v;
  return pass_to_gbench(c, arg, err, errlen);
}

static int gb_format(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on, (void)arg;
  if (!strcmp(val, "json")) c->json_stdout = 1;
  else if (strcmp(val, "console") != 0) {
    snprintf(err, errlen, "%s=%s: %s", opt, val, !strcmp(val, "csv")
             ? "not supported: syncbench's own CSV (--out FILE) is the CSV output; use console or json"
             : "not one of console, json");
    return -1;
  }
  return 0;
}

static int gb_out(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on, (void)arg;
  if (!*val) {
    snprintf(err, errlen, "%s needs a file name", opt);
    return -1;
  }
  c->json_out = val;
  return 0;
}

static int gb_out_format(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)c, (void)on, (void)arg;
  if (strcmp(val, "json") == 0) return 0;
  snprintf(err, errlen, "%s=%s: %s", opt, val,
           !strcmp(val, "csv") || !strcmp(val, "console")
               ? "not supported: --benchmark_out writes JSON (syncbench's CSV is --out FILE)"
               : "not one of json");
  return -1;
}

static int gb_report_agg(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)opt, (void)val, (void)arg, (void)err, (void)errlen;
  c->report_aggregates_only = on;
  return 0;
}

static int gb_display_agg(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)opt, (void)val, (void)arg, (void)err, (void)errlen;
  c->display_aggregates_only = on;
  return 0;
}

static int gb_time_unit(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on;
  if (strcmp(val, "ns") && strcmp(val, "us") && strcmp(val, "ms") && strcmp(val, "s")) {
    snprintf(err, errlen, "%s=%s: not one of ns, us, ms, s", opt, val);
    return -1;
  }
  return pass_to_gbench(c, arg, err, errlen);
}

static int gb_context(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)on;
  if (!valid_context(val)) {
    snprintf(err, errlen, "%s=%s: not a list like key=value,key2=value2", opt, val);
    return -1;
  }
  return pass_to_gbench(c, arg, err, errlen);
}

static int gb_color(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)c, (void)on, (void)arg;
  if (!strcmp(val, "auto") || parse_bool(val) == 0) return 0; /* syncbench prints none */
  snprintf(err, errlen, "%s=%s: %s", opt, val, parse_bool(val) == 1
           ? "not supported: syncbench's console lines have no colour"
           : "not one of auto, true, false");
  return -1;
}

static int gb_counters_tabular(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)c, (void)val, (void)arg;
  if (!on) return 0;
  snprintf(err, errlen, "%s: not supported: syncbench reports no user counters and does not "
           "print Google Benchmark's console table", opt);
  return -1;
}

static int gb_interleaving(sb_cli *c, const char *opt, const char *val, int on, char *arg, char *err, size_t errlen) {
  (void)c, (void)val, (void)arg;
  if (!on) return 0;
  snprintf(err, errlen, "%s: not supported: syncbench times one point at a time, so there is "
           "nothing to interleave", opt);
  return -1;
}

static const struct { const char *name; unsigned bit; int is_bool; gb_fn set; } gbench_flags[] = {
    {"--benchmark_filter", GB_FILTER, 0, gb_filter},
    {"--benchmark_list_tests", GB_LIST_TESTS, 1, gb_list_tests},
    {"--benchmark_min_time", GB_MIN_TIME, 0, gb_min_time},
    {"--benchmark_repetitions", GB_REPETITIONS, 0, gb_repetitions},
    {"--benchmark_format", GB_FORMAT, 0, gb_format},
    {"--benchmark_out", GB_OUT, 0, gb_out},
    {"--benchmark_out_format", GB_OUT_FORMAT, 0, gb_out_format},
    {"--benchmark_report_aggregates_only", GB_REPORT_AGG, 1, gb_report_agg},
    {"--benchmark_display_aggregates_only", GB_DISPLAY_AGG, 1, gb_display_agg},
    {"--benchmark_time_unit", GB_TIME_UNIT, 0, gb_time_unit},
    {"--benchmark_context", GB_CONTEXT, 0, gb_context},
    {"--benchmark_color", GB_COLOR, 0, gb_color},
    {"--benchmark_counters_tabular", GB_COUNTERS_TABULAR, 1, gb_counters_tabular},
    {"--benchmark_enable_random_interleaving", GB_INTERLEAVING, 1, gb_interleaving},
};

/* Flags refused outright, with why. */
static int gbench_refused(const char *opt, char *err, size_t errlen) {
  if (!strcmp(opt, "--benchmark_min_warmup_time")) {
    snprintf(err, errlen, "--benchmark_min_warmup_time is not supported: its warm-up iterations "
             "would count as samples; use --warmup N (launches between validation and timing)");
    return -1;
  }
  if (!strcmp(opt, "--benchmark_perf_counters")) {
    snprintf(err, errlen, "--benchmark_perf_counters is not supported: CPU performance counters "
             "measure the host, not the GPU kernel");
    return -1;
  }
  return 0;
}

static int parse_gbench_flag(sb_cli *c, const char *opt, const char *val, char *arg,
                             unsigned *seen, char *err, size_t errlen) {
  if (gbench_refused(opt, err, errlen)) return -1;
  int k = -1;
  for (int f = 0; f < (int)(sizeof gbench_flags / sizeof gbench_flags[0]); ++f)
    if (!strcmp(opt, gbench_flags[f].name)) k = f;
  if (k < 0) {
    snprintf(err, errlen, "unknown Google Benchmark flag '%s' (docs/gbench-flags.md lists them)", opt);
    return -1;
  }
  if (*seen & gbench_flags[k].bit) {
    snprintf(err, errlen, "%s given twice", opt);
    return -1;
  }
  *seen |= gbench_flags[k].bit;
  int on = 0;
  if (gbench_flags[k].is_bool) {
    if ((on = parse_bool(val)) < 0) {
      snprintf(err, errlen, "%s=%s: not true or false", opt, val);
      return -1;
    }
  } else if (!val) {
    snprintf(err, errlen, "%s needs a value: %s=VALUE (Google Benchmark flags take --flag=value)", opt, opt);
    return -1;
  }
  return gbench_flags[k].set(c, opt, val, on, arg, err, errlen);
}

/* Flags that only shape the JSON output need one. */
static int check_gbench_combination(const sb_cli *c, unsigned seen, char *err, size_t errlen) {
  int json = c->json_out || c->json_stdout;
  if ((seen & GB_OUT_FORMAT) && !c->json_out) {
    snprintf(err, errlen, "--benchmark_out_format needs --benchmark_out=FILE");
    return -1;
  }
  if (c->display_aggregates_only && !c->json_stdout) {
    snprintf(err, errlen, "--benchmark_display_aggregates_only shapes only the JSON of "
             "--benchmark_format=json; the CSV holds one row per point");
    return -1;
  }
  static const struct { unsigned bit; const char *name; } json_only[] = {
      {GB_REPORT_AGG, "--benchmark_report_aggregates_only"},
      {GB_TIME_UNIT, "--benchmark_time_unit"},
      {GB_CONTEXT, "--benchmark_context"},
  };
  for (size_t k = 0; k < sizeof json_only / sizeof json_only[0]; ++k)
    if ((seen & json_only[k].bit) && !json &&
        (json_only[k].bit != GB_REPORT_AGG || c->report_aggregates_only)) {
      snprintf(err, errlen, "%s shapes only the JSON output: add --benchmark_out=FILE or "
               "--benchmark_format=json (the CSV is always in microseconds, one row per point)",
               json_only[k].name);
      return -1;
    }
  return 0;
}

/* ---- syncbench's own options: one handler each, found in a table ---- */

typedef int (*opt_fn)(sb_cli *c, const char *val, char *err, size_t errlen);

static int opt_help(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->help = 1; return 0; }
static int opt_list(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->list = 1; return 0; }
static int opt_quick(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->quick = 1; return 0; }
static int opt_csv_header(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->csv_header = 1; return 0; }
static int opt_version(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->version = 1; return 0; }
static int opt_slug(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->print_slug = 1; return 0; }
static int opt_no_fork(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->no_fork = 1; return 0; }
static int opt_unpaired(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->unpaired = 1; return 0; }
static int opt_profile_warmup(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->profile_warmup = 1; return 0; }
static int opt_serve(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->serve = 1; return 0; }
static int opt_no_reference(sb_cli *c, const char *v, char *e, size_t n) { (void)v, (void)e, (void)n; c->no_reference = 1; return 0; }

static int opt_format(sb_cli *c, const char *val, char *err, size_t errlen) {
  if (!strcmp(val, "csv")) c->list_format = SB_LIST_CSV;
  else if (!strcmp(val, "text")) c->list_format = SB_LIST_TEXT;
  else { snprintf(err, errlen, "--format '%s': expected csv or text", val); return -1; }
  c->format_given = 1;
  return 0;
}

static int opt_filter(sb_cli *c, const char *val, char *err, size_t errlen) {
  return set_filter(c, val, err, errlen);
}

static int opt_out(sb_cli *c, const char *val, char *err, size_t errlen) {
  if (!*val) { snprintf(err, errlen, "--out needs a file name"); return -1; }
  c->out_path = val;
  c->out_given = 1;
  return 0;
}

static int opt_resume(sb_cli *c, const char *val, char *err, size_t errlen) {
  if (!*val) { snprintf(err, errlen, "--resume needs a file name"); return -1; }
  c->resume_path = val;
  return 0;
}

static int opt_device(sb_cli *c, const char *val, char *err, size_t errlen) {
  long long v;
  if (parse_ll(val, 0, 1023, &v)) { snprintf(err, errlen, "--device '%s' is not a device ordinal (0, 1, ...)", val); return -1; }
  c->device = (int)v;
  c->device_given = 1;
  return 0;
}

static int opt_devices(sb_cli *c, const char *val, char *err, size_t errlen) {
  return parse_devices(val, c, err, errlen);
}

static int opt_watchdog(sb_cli *c, const char *val, char *err, size_t errlen) {
  long long v;
  if (parse_ll(val, 0, 3600000, &v)) { snprintf(err, errlen, "--watchdog-ms '%s' is not an integer in [0, 3600000] (0: no bound)", val); return -1; }
  c->watchdog_ms = v;
  return 0;
}

static int opt_point_timeout(sb_cli *c, const char *val, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double s = strtod(val, &end);
  if (errno || *end || !(s >= 0 && s <= 86400)) { snprintf(err, errlen, "--point-timeout '%s' is not a number of seconds in [0, 86400] (0: never)", val); return -1; }
  c->point_timeout_s = s;
  return 0;
}

static int opt_cooldown(sb_cli *c, const char *val, char *err, size_t errlen) {
  long long v;
  if (parse_ll(val, 0, 10000, &v)) {
    snprintf(err, errlen, "--cooldown-ms '%s' is not a whole number of milliseconds in [0, 10000]", val);
    return -1;
  }
  c->cooldown_s = (double)v * 1e-3;
  return 0;
}

static int opt_warmup(sb_cli *c, const char *val, char *err, size_t errlen) {
  long long v;
  if (parse_ll(val, 0, 1000, &v)) { snprintf(err, errlen, "--warmup '%s' is not an integer in [0, 1000]", val); return -1; }
  c->warmup = (int)v;
  return 0;
}

static int opt_seed(sb_cli *c, const char *val, char *err, size_t errlen) {
  long long v;
  if (parse_ll(val, 1, 0x7fffffffffffffffLL, &v)) { snprintf(err, errlen, "--seed '%s' is not a positive integer", val); return -1; }
  c->seed = (unsigned long long)v;
  c->has_seed = 1;
  return 0;
}

static int opt_min_time(sb_cli *c, const char *val, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double s = strtod(val, &end);
  if (errno || *end || !(s > 0 && s <= 60)) { snprintf(err, errlen, "--min-time '%s' is not a number of seconds in (0, 60]", val); return -1; }
  if (c->min_time_given++) { snprintf(err, errlen, "--min-time given twice"); return -1; }
  c->min_time_s = s;
  return 0;
}

/* Every option but the axes (--block, ...: from axes.h) and Google
 * Benchmark's (--benchmark_*: parse_gbench_flag). One of each a run (--filter: one a
 * sweep); a flag takes no "=v". */
static const struct { const char *name; int takes_value; opt_fn set; } options[] = {
    {"--help", 0, opt_help},           {"-h", 0, opt_help},
    {"--list", 0, opt_list},           {"--format", 1, opt_format},
    {"--quick", 0, opt_quick},         {"--csv-header", 0, opt_csv_header},
    {"--version", 0, opt_version},     {"--print-gpu-slug", 0, opt_slug},
    {"--filter", 1, opt_filter},       {"--out", 1, opt_out},
    {"--resume", 1, opt_resume},       {"--no-fork", 0, opt_no_fork},
    {"--no-reference", 0, opt_no_reference}, {"--unpaired", 0, opt_unpaired},
    {"--serve", 0, opt_serve},         {"--profile-warmup", 0, opt_profile_warmup},
    {"--device", 1, opt_device},
    {"--devices", 1, opt_devices},     {"--watchdog-ms", 1, opt_watchdog},
    {"--point-timeout", 1, opt_point_timeout}, {"--warmup", 1, opt_warmup},
    {"--cooldown-ms", 1, opt_cooldown},
    {"--seed", 1, opt_seed},           {"--min-time", 1, opt_min_time},
};

/* An axis override (--block LIST, or the axis' CSV name). */
static int opt_axis(sb_cli *c, int axis, const char *opt, const char *val, char *err, size_t errlen) {
  sb_axis_values *v = &current_sweep(c)->spec.override[axis];
  if (v->count) { snprintf(err, errlen, "%s given twice%s", opt, c->num_sweeps > 1 ? " in one sweep" : ""); return -1; }
  return sb_axis_parse(axis, val, v, err, errlen);
}

static int find_axis_option(const char *opt) {
  if (strncmp(opt, "--", 2) != 0) return -1;
  for (int k = SB_NUM_AXES - 1; k >= 0; --k)
    if (!strcmp(opt + 2, sb_axes[k].option) || !strcmp(opt + 2, sb_axes[k].name)) return k;
  return -1;
}

/* Whether a sweep says what it sweeps: a filter or an axis. */
static int sweep_named(const sb_cli_sweep *s) {
  for (int a = 0; a < SB_NUM_AXES; ++a)
    if (s->spec.override[a].count) return 1;
  return s->has_filter;
}

/* Rules across options, once all are read. */
static int check_combinations(sb_cli *c, unsigned seen, char *err, size_t errlen) {
  const int prints = c->help + c->list + c->csv_header + c->print_slug + c->version;
  if (prints > 1) {
    snprintf(err, errlen, "give one of --help, --list, --csv-header, --print-gpu-slug, --version: each prints "
             "and exits");
    return -1;
  }
  if (c->format_given && !c->list) {
    snprintf(err, errlen, "--format says how --list prints: give it with --list");
    return -1;
  }
  if (c->list && (c->num_sweeps > 1 || sweep_named(&c->sweeps[0]))) {
    snprintf(err, errlen, "--list prints every family and variant; --filter and axis options choose a "
             "sweep's points (list those with --benchmark_list_tests)");
    return -1;
  }
  if ((seen & GB_MIN_TIME) && c->min_time_given) {
    snprintf(err, errlen, "give --min-time or --benchmark_min_time, not both (they are the same)");
    return -1;
  }
  if (check_gbench_combination(c, seen, err, errlen)) return -1;
  if (c->num_devices != 0 && c->device_given) {
    snprintf(err, errlen, "give --device N or --devices LIST, not both");
    return -1;
  }
  if (c->no_fork && (c->num_devices < 0 || c->num_devices > 1)) {
    snprintf(err, errlen, "--no-fork runs one GPU; drop --devices or --no-fork");
    return -1;
  }
  if (c->serve && (c->no_fork || c->num_devices < 0 || c->num_devices > 1)) {
    snprintf(err, errlen, "--serve runs one GPU in a worker process; drop %s",
             c->no_fork ? "--no-fork" : "--devices");
    return -1;
  }
  if (c->profile_warmup && c->warmup < 1) {
    snprintf(err, errlen, "--profile-warmup profiles the last warm-up launch: give --warmup 1 or more");
    return -1;
  }
  if (c->resume_path && c->out_given && strcmp(c->resume_path, c->out_path) != 0) {
    snprintf(err, errlen, "--resume %s appends to that file; --out %s names another (give one of them)",
             c->resume_path, c->out_path);
    return -1;
  }
  if (c->resume_path && strstr(c->resume_path, "{gpu}")) {
    snprintf(err, errlen, "--resume needs the file's real name, not a {gpu} pattern");
    return -1;
  }
  return 0;
}

static void cli_defaults(sb_cli *c, char *argv0) {
  memset(c, 0, sizeof *c);
  c->out_path = "syncbench.csv";
  c->watchdog_ms = 1000;
  c->point_timeout_s = 600;
  c->warmup = 2;
  c->min_time_s = -1;
  c->gbench_argv[0] = argv0;
  c->gbench_argc = 1;
  c->num_sweeps = 1;
}

/* "--then" at argv[i]: the sweep before it must name something (an empty
 * one after a --then would be the whole default sweep again), and the next
 * one begins. */
static int start_sweep(sb_cli *c, int i, char *err, size_t errlen) {
  if (c->num_sweeps > 1 && !sweep_named(current_sweep(c))) {
    snprintf(err, errlen, "--then (argument %d) follows an empty sweep: give each sweep after a --then "
             "its --filter or axis options", i);
    return -1;
  }
  if (c->num_sweeps == SB_CLI_MAX_SWEEPS) {
    snprintf(err, errlen, "at most %d sweeps a run (%d --then)", SB_CLI_MAX_SWEEPS, SB_CLI_MAX_SWEEPS - 1);
    return -1;
  }
  ++c->num_sweeps;
  return 0;
}

/* One argument (and its value, which may be the next one: *i advances). */
static int parse_one(sb_cli *c, int argc, char **argv, int *i, unsigned *seen, char *err,
                     size_t errlen) {
  const char *a = argv[*i];
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
  if (!strcmp(a, "--then")) return start_sweep(c, *i, err, errlen);
  if (strncmp(a, "--benchmark_", 12) == 0 && c->num_sweeps == 1)
    return parse_gbench_flag(c, opt, val, argv[*i], seen, err, errlen);
  int k = 0, n = (int)(sizeof options / sizeof options[0]);
  while (k < n && strcmp(opt, options[k].name) != 0) ++k;
  const int axis = k < n ? -1 : find_axis_option(opt);
  if (k == n && axis < 0 && strncmp(a, "--benchmark_", 12) != 0) {
    snprintf(err, errlen, "unknown option '%s' (see --help)", a);
    return -1;
  }
  if (k < n && options[k].set != opt_filter && options[k].set != opt_devices && options[k].set != opt_min_time) {
    /* one of each a run (the others say so themselves: --filter is a
       sweep's own, --devices and --min-time check their values) */
    const unsigned long long bit = 1ull << (options[k].set == opt_help ? 0 : k);
    if (c->options_seen & bit) {
      snprintf(err, errlen, "%s given twice", opt);
      return -1;
    }
    c->options_seen |= bit;
  }
  if (k < n && !options[k].takes_value && val) {
    snprintf(err, errlen, "%s takes no value ('%s')", opt, a);
    return -1;
  }
  if (c->num_sweeps > 1 && axis < 0 && strcmp(opt, "--filter") != 0) {
    snprintf(err, errlen, "%s after --then: a sweep takes only --filter and axis options (--m, --tile, ...); "
             "give the run's options before the first --then", opt);
    return -1;
  }
  if ((axis >= 0 || options[k].takes_value) && !val) {
    if (*i + 1 >= argc) {
      snprintf(err, errlen, "%s needs a value", opt);
      return -1;
    }
    val = argv[++*i];
  }
  return axis >= 0 ? opt_axis(c, axis, opt, val, err, errlen) : options[k].set(c, val, err, errlen);
}

int sb_cli_parse(int argc, char **argv, sb_cli *c, char *err, size_t errlen) {
  cli_defaults(c, argv[0]);
  unsigned seen = 0; /* Google Benchmark flags given so far */
  for (int i = 1; i < argc; ++i)
    if (parse_one(c, argc, argv, &i, &seen, err, errlen) != 0) goto fail;
  c->gbench_argv[c->gbench_argc] = NULL;
  if (c->num_sweeps > 1 && !sweep_named(current_sweep(c))) {
    snprintf(err, errlen, "the last --then starts an empty sweep: give it its --filter or axis options");
    goto fail;
  }
  for (int s = 0; s < c->num_sweeps; ++s) c->sweeps[s].spec.quick = c->quick;
  if (check_combinations(c, seen, err, errlen) != 0) goto fail;
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
