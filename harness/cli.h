/* Command-line parsing: pure, so the host tests can exercise every error. */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <regex.h>
#include <stddef.h>

#include "sweep.h"

/* Exit codes: the contract with scripts and CI. */
enum {
  SB_EXIT_OK = 0,          /* every row ok, skipped or unsupported */
  SB_EXIT_FAILED = 1,      /* some point was wrong or errored */
  SB_EXIT_USAGE = 2,       /* bad command line or output path */
  SB_EXIT_NO_DEVICE = 3,   /* no usable CUDA device / driver */
  SB_EXIT_INTERRUPTED = 130
};

#define SB_MAX_GBENCH_ARGS 32
#define SB_CLI_MAX_DEVICES 64
#define SB_CLI_MAX_SWEEPS 32 /* the first sweep and 31 after --then */

typedef enum sb_list_format { SB_LIST_TEXT = 0, SB_LIST_CSV } sb_list_format;

/* One sweep of the run: its filter and axis overrides. */
typedef struct sb_cli_sweep {
  sb_sweep_spec spec;
  regex_t filter;
  int has_filter;
} sb_cli_sweep;

typedef struct sb_cli {
  int help, list, csv_header, print_slug, version;
  sb_list_format list_format; /* --format: how --list prints */
  int format_given;
  unsigned long long options_seen; /* syncbench's own options given so far (a bit each) */
  int quick;                  /* --quick: every sweep on the families' quick lists */
  /* The run's sweeps: the first, then one after each --then, each its own
   * --filter and axes; their points run in this order, a point named twice
   * once, where it first comes. */
  sb_cli_sweep sweeps[SB_CLI_MAX_SWEEPS];
  int num_sweeps;
  const char *out_path;    /* may hold {gpu} */
  int out_given;
  int min_time_given;       /* --min-time seen (given twice is an error) */
  const char *resume_path; /* --resume FILE: append to FILE, skip its rows */
  int device;              /* --device N */
  int device_given;
  int devices[SB_CLI_MAX_DEVICES]; /* --devices LIST */
  int num_devices;         /* 0: just --device; -1: --devices all */
  int no_fork;             /* run points in this process (sanitizers, gdb) */
  int no_reference;        /* leave the reference copy out */
  int unpaired;            /* time variants without their paired ceiling */
  int profile_warmup;      /* --profile-warmup: the last warm-up launch of each
                              point alone between cudaProfilerStart/Stop,
                              after a marker kernel (scripts/explain.py) */
  int serve;               /* --serve: run the points named on stdin (scripts/ab.py) */
  long long watchdog_ms;   /* mbarrier wait bound; 0: none */
  double point_timeout_s;  /* kill a silent worker after this; 0: never */
  int warmup;
  double cooldown_s;       /* --cooldown-ms: the GPU idle this long before each point's warm-up */
  double min_time_s;       /* -1: default for the mode */
  unsigned long long seed; /* 0: fresh */
  int has_seed;
  /* Google Benchmark's flags (docs/gbench-flags.md). */
  int list_tests;          /* --benchmark_list_tests: print point names, exit */
  int repetitions;         /* --benchmark_repetitions=N; 0: not given */
  const char *json_out;    /* --benchmark_out=FILE (JSON; may hold {gpu}) */
  int json_stdout;         /* --benchmark_format=json */
  int report_aggregates_only, display_aggregates_only;
  int gbench_argc;         /* argv[0] + flags handed to Google Benchmark */
  char *gbench_argv[SB_MAX_GBENCH_ARGS + 1];
} sb_cli;

/* Parses argv into c. Returns 0, or -1 with a one-line message in err. */
int sb_cli_parse(int argc, char **argv, sb_cli *c, char *err, size_t errlen);
void sb_cli_free(sb_cli *c);
void sb_cli_usage(FILE *f);
/* --list: families, variants and their axes. Needs no GPU. As CSV, one
 * row per variant: family,family_flags,family_summary,variant,
 * variant_index,min_cc,flags,axes,ceiling_column,ceiling_reading,summary;
 * flags are ;-joined trait names (ceiling, no_kernel, baseline, plain, whole_warps,
 * generic, test_only; family: yardstick, workspace_state, price_per_place,
 * time_across_runs), axes the
 * family's default axes; test_only rows only in the SB_BROKEN build. */
void sb_cli_list(FILE *f, sb_list_format format);

/* Replaces "{gpu}" in pattern with slug. */
void sb_expand_out_path(const char *pattern, const char *slug, char *out, size_t len);

#endif
