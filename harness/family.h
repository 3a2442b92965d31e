/* What the engine runs: the types a family fills (a point, a family) and
 * the table of families it iterates. The engine (harness/) defines them and
 * includes nothing from bench/; bench/registry.c defines the table and
 * bench/<family>.c each family. */
#ifndef SB_FAMILY_H
#define SB_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "axes.h"
#include "csv_schema.h"
#include "device.h"
#include "launch.h"

/* in_sweep's user_axes bit for the quick grid (above every axis bit). */
#define SB_QUICK_GRID (1ULL << 63)

typedef struct sb_family sb_family;

/* Which of a point's checks a verify call is: the validation, the recheck
 * of a raw twin's timed output (same input), or the validation on the dirty
 * workspace (the second seed's input). A family that reads a sample of a
 * large output draws the sample from these, so no two checks read the same
 * elements. */
typedef enum sb_check_pass { SB_CHECK_VALIDATION = 0, SB_CHECK_TIMED, SB_CHECK_DIRTY } sb_check_pass;
typedef struct sb_check {
  uint64_t seed;      /* the seed make_input drew host_in from */
  sb_check_pass pass;
} sb_check;

/* One sweep point: a variant and a value for every axis (SB_AXIS_UNSET
 * where the family does not use the axis). */
typedef struct sb_point {
  const sb_family *family;
  const sb_variant *variant;
  long long axis[SB_NUM_AXES];
} sb_point;

/* How a family's paired ceiling ratio is read from its samples
 * (harness/paired.h, sb_paired_pct). */
typedef enum sb_ratio_reading {
  SB_RATIO_BLOCK_MEDIAN = 0, /* median of v c c v block ratios */
  SB_RATIO_FASTEST,          /* fastest ceiling sample / fastest variant sample */
  SB_RATIO_LOW_QUARTILE,     /* lower quartile of the ceiling's samples / the variant's */
  SB_RATIO_P10,              /* 10th percentile of the ceiling's samples / the variant's */
  SB_RATIO_P05,              /* 5th percentile, likewise */
  SB_RATIO_P01,              /* 1st percentile, likewise */
  SB_RATIO_P75               /* 75th percentile, likewise: a variant's (SB_VF_P75_RATIO) */
} sb_ratio_reading;

/* Family traits the engine and the scripts read instead of names. */
enum sb_family_flag {
  SB_FF_YARDSTICK = 1u << 0, /* the bandwidth reference family: measured first,
                                in every sweep, on its own axes; its row with
                                SB_VF_YARDSTICK (the device-to-device copy) is
                                the 100% of every later row's pct_of_copy */
  SB_FF_WORKSPACE_STATE = 1u << 1, /* launches leave flags, counters or partials in
                                     a workspace that the next launch must reset:
                                     the runner validates once more after timing,
                                     on that dirty workspace (harness/runner.c) */
  SB_FF_PRICE_PER_PLACE = 1u << 2, /* priced at each of the SB_PLACEMENTS places on
                                     its own (harness/runner.c): its price is each
                                     block's fastest launch, and a loop that reads
                                     device memory finds a faster launch at each
                                     further place, so a minimum carried across the
                                     places would take the best of them (barrier_tma:
                                     the 90th percentile over blocks moved up to 82%
                                     at 8 places). The output is poisoned before each
                                     place, place_price reads that place's records,
                                     and the row's cycles_per_op is the median over
                                     the places (docs/history.md) */
  SB_FF_TIME_ACROSS_RUNS = 1u << 3 /* gated on its time between two runs (two
                                      chips, or two processes apart), its paired
                                      ratio only inside one A/B run: its ceiling
                                      moves between chips on its own, more than
                                      the variants' times do (devscan's CUB;
                                      docs/REGRESSIONS.md) */
};

/* A name for one of a family's own variant bits (SB_VF_FAMILY0 up), for
 * --list's flags column: the scripts read a variant's kind from the table,
 * not from its name. */
typedef struct sb_trait_name {
  unsigned bit;
  const char *name;
} sb_trait_name;

struct sb_family {
  const char *name;
  const char *summary;
  unsigned flags; /* sb_family_flag bits */
  const sb_variant_table *variants; /* exported by kernels/<family>.cu */
  /* Names of the family's own variant bits listed by --list (NULL-name
   * terminated; NULL: none listed). */
  const sb_trait_name *variant_traits;
  /* The CSV column of the paired ceiling (harness/paired.h) when the table
   * has a SB_VF_CEILING row: "pct_of_cublas" (gemm), "pct_of_cub"
   * (devscan); NULL otherwise. */
  const char *ceiling_column;
  /* How the paired samples are read into that column (harness/paired.h):
   * the block median (zero, the default) or the fastest samples. */
  sb_ratio_reading ceiling_reading;
  /* Axis value lists in sb_axis_parse syntax; NULL: the family has no such
   * axis. The quick lists must cover every variant in a few points. */
  const char *default_axes[SB_NUM_AXES];
  const char *quick_axes[SB_NUM_AXES];

  /* Which combinations of the DEFAULT (or quick) grid the family sweeps:
   * returns 0 to drop the point from the sweep. user_axes has bit a set
   * when axis a was given on the command line: a combination that involves
   * a user-given axis is kept, so check() turns it into a `skipped` row with
   * its reason. May rewrite axes the family derives from the others (e.g.
   * blank those a variant ignores); identical points of one variant are
   * then swept once. May be NULL (the full product). In the quick grid
   * user_axes also has SB_QUICK_GRID: its axes are picked by hand, so rules
   * that choose among the default grid's values may stand aside. */
  int (*in_sweep)(sb_point *p, unsigned long long user_axes);

  /* Family validity rule: NULL if the point can run, else a reason written
   * into buf (the point becomes a `skipped` row). Generic limits (threads
   * per block, compute capability, occupancy, memory) are checked by the
   * runner; only what is specific to the family belongs here. May be NULL. */
  const char *(*check)(const sb_point *p, const sb_device *d, char *buf,
                       size_t len);
  /* A point outside what the family runs on any device (a shape its rule
   * refuses, e.g. gemm's K not a multiple of 8): NULL, or a one-line reason
   * in buf, and the sweep that selects the point is refused (exit status
   * SB_EXIT_USAGE) instead of producing rows. Called on the selected points
   * after in_sweep. May be NULL. */
  const char *(*refuse)(const sb_point *p, char *buf, size_t len);
  /* Device/host buffer sizes the point needs. */
  size_t (*in_bytes)(const sb_point *p);
  size_t (*out_bytes)(const sb_point *p);
  /* Bytes one launch must move through device memory at least (reads +
   * writes): the numerator of gbps. NULL: the family reports no GB/s. */
  long long (*bytes_moved)(const sb_point *p);
  /* FLOP one launch performs: the numerator of gflops. May be NULL. */
  long long (*flops)(const sb_point *p);
  /* After timing, with the output of the last timed launch copied back to
   * the host: fills family-specific columns (cycles_per_op, ns_per_op,
   * bytes_in_flight_per_sm, ...) from it and from the row so far (timing,
   * blocks_per_sm, sm_clock_mhz). Returns 0, or -1 with row->detail set to
   * mark the point wrong (e.g. an in-kernel tally that does not add up).
   * May be NULL. */
  int (*derive)(const sb_point *p, const sb_device *d, const void *host_out,
                sb_row *row);
  /* SB_FF_PRICE_PER_PLACE: one place's figure in cycles_per_op's unit, from
   * the output its own launches left (poisoned before that place's warm-up),
   * into *price. Returns 0, or -1 when the output holds no price (a block
   * that never recorded). */
  int (*place_price)(const sb_point *p, const void *host_out, double *price);
  /* 1: the runner does not re-check a raw twin's timed output with verify
   * (harness/launch.h, raw_twin), because derive checks that output itself
   * (barrier) or because the CPU reference costs more than the point
   * (pipeline's long FMA chains; the validating launch checked the same
   * protocol). 0: every raw twin's timed output is verified too. */
  int skip_timed_recheck;
  /* SB_FF_WORKSPACE_STATE families whose variants differ: 1 when this
   * point's launches keep state between launches (gemm: the split-K and
   * stream-K variants, not the one-tile-per-block ones). NULL: every point
   * of the family does. */
  int (*keeps_state)(const sb_point *p);
  /* Fills the host input from seed (fresh for every point). */
  void (*make_input)(const sb_point *p, void *host_in, uint64_t seed);
  /* Compares the host output with the CPU reference computed from host_in
   * (drawn from check->seed; check->pass: which check this is). Returns 0
   * when it matches, else writes the first mismatches and their count into
   * detail. */
  int (*verify)(const sb_point *p, const sb_check *check, const void *host_in, const void *host_out,
                char *detail, size_t len);
  /* A family whose verify reads only a sample of a large output: the point
   * of p's kernel at a size whose verify reads all of it, into *whole, and
   * p with only the axes that pick its kernel, into *kernel. Returns 1 when
   * p's own check is a sample, 0 when it reads all of it, -1 when p has no
   * kernel of ours. The runner checks each kernel whole once per process:
   * at p itself (0), or before p, in a launch that is never timed, at
   * *whole (1). May be NULL: every check reads all of it. */
  int (*whole_check)(const sb_point *p, sb_point *whole, sb_point *kernel);
};

/* The table: registry.c. The `reference` family comes first, because every
 * run measures it and the other rows are expressed as a share of it. */
extern const sb_family *const sb_families[];
extern const int sb_num_families;

const sb_family *sb_find_family(const char *name);

/* "scan/pingpong/block_threads=256/iters=16/n=33554432": the point's name
 * for filters, Google Benchmark and messages. */
void sb_point_name(const sb_point *p, char *buf, size_t len);

#endif
