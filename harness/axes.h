/* Sweep axes: the one list of every axis a family can sweep.
 *
 * Each axis becomes a CSV column of the same name (see csv_schema.h). A point
 * stores SB_AXIS_UNSET for an axis its family does not use, which the CSV
 * writes as an empty cell. Adding an axis is one line here. */
#ifndef SB_AXES_H
#define SB_AXES_H

#include <stddef.h>

/* X(id, CSV column, command-line option, min, max, labels, help)
 * labels: NULL for a numeric axis, else "a|b|c": the axis takes the values
 * 0..k-1, written and parsed by name (a categorical axis). */
#define SB_AXIS_LIST(X)                                                             \
  X(BLOCK, "block_threads", "block", 1, 1024, NULL, "threads per block")            \
  X(STAGES, "stages", "stages", 1, 64, NULL, "pipeline stages / buffers")           \
  X(BUFFER_BYTES, "buffer_bytes", "buffer-bytes", 1, 1LL << 30, NULL,               \
    "bytes per stage buffer (or per copy)")                                         \
  X(ITERS, "iters", "iters", 1, 1LL << 20, NULL,                                    \
    "passes over each tile inside shared memory / operations per loop")            \
  X(INTENSITY, "intensity", "intensity", 0, 1LL << 20, NULL, "FLOP per element")    \
  X(N, "n", "n", 1, 1LL << 34, NULL, "total elements (GEMM: columns of B and C, with --m)") \
  X(ELEMS, "elems_per_thread", "elems", 1, 64, NULL, "elements each thread owns")   \
  X(WARPS, "consumer_warps", "warps", 1, 32, NULL, "consumer warps per block")      \
  X(PARTICIPANTS, "participants", "participants", 0, 2, "all|warp|elected",        \
    "who takes part: every thread, one warp, one elected thread per warp")         \
  X(CONTENTION, "contention", "contention", 0, 1, "one_block_per_sm|full_occupancy", \
    "blocks resident per SM")                                                       \
  X(CLUSTER, "cluster", "cluster", 1, 16, NULL, "thread-block cluster size")        \
  X(M, "m", "m", 1, 1LL << 20, NULL, "GEMM rows of A and C (N = M unless --n is given with it)") \
  X(K, "k", "k", 1, 1LL << 20, NULL, "GEMM reduction length (columns of A, rows of B)") \
  X(TILE, "tile", "tile", 0, 3, "128x128x64|128x256x64|64x128x64|128x96x64", "GEMM block tile BMxBNxBK") \
  X(SPLITS, "splits", "splits", 1, 256, NULL, "GEMM K slices per output tile (split-K), or auto") \
  X(CLUSTER_SHAPE, "cluster_shape", "cluster-shape", 0, 4, "2x1|1x2|2x2|4x2|2x4",   \
    "GEMM multicast cluster of tile rows x tile columns: a column's CTAs share B, a row's A") \
  X(WINDOW, "window", "window", 1, 1024, NULL,                                      \
    "devscan lookback(_relaxed), blank unless named: flag words a look-back step reads") \
  X(FIRST_SLEEP, "first_sleep_ns", "first-sleep", 0, 1000000, NULL,                 \
    "devscan lookback(_relaxed), blank unless named: ns asleep before the first read") \
  X(POLL_SLEEP, "poll_sleep_ns", "poll-sleep", 0, 1000000, NULL,                    \
    "devscan lookback(_relaxed), blank unless named: ns asleep between polls of an X") \
  X(SLEEP_MIN_TILES, "sleep_min_tiles", "sleep-min-tiles", 0, 0x7fffffffLL, NULL,   \
    "devscan lookback(_relaxed), blank unless named: tiles from which the sleeps are on")

enum sb_axis_id {
#define SB_AXIS_ENUM(id, name, opt, lo, hi, labels, help) SB_AXIS_##id,
  SB_AXIS_LIST(SB_AXIS_ENUM)
#undef SB_AXIS_ENUM
  SB_NUM_AXES
};

#define SB_AXIS_UNSET (-1LL)
#define SB_AXIS_MAX_VALUES 64

/* `auto`: a value the kernel's launcher resolves at launch, from the shape
 * and the GPU (splits only: kernels/gemm/gemm_schedule_math.h's sb_gemm_auto_splits).
 * Stored as SB_AXIS_AUTO, below the axis' bounds (a typed 0 stays an
 * error); written and parsed as "auto", in point names and in the CSV. */
#define SB_AXIS_AUTO 0LL
/* 1 if the axis takes `auto`. */
int sb_axis_takes_auto(int axis);

typedef struct sb_axis_info {
  const char *name;   /* CSV column */
  const char *option; /* command-line option, without the leading -- */
  long long min, max;
  const char *labels; /* "a|b|c" for a categorical axis, else NULL */
  const char *help;
} sb_axis_info;

extern const sb_axis_info sb_axes[SB_NUM_AXES];

/* The values one axis takes in a sweep. count == 0 means "not swept". */
typedef struct sb_axis_values {
  int count;
  long long v[SB_AXIS_MAX_VALUES];
} sb_axis_values;

/* Returns the axis id for a column name, or -1. */
int sb_axis_by_name(const char *name);

/* Parses "128,256,1k,64M" (k/M/G are powers of 1024), a power-of-two
 * range "32..1024", or for a categorical axis "all,warp", into out, checking each value against the axis bounds;
 * "auto" where the axis takes it ("auto,4,8"), an error elsewhere.
 * Returns 0, or -1 with a one-line reason in err. */
int sb_axis_parse(int axis, const char *text, sb_axis_values *out, char *err,
                  size_t errlen);

/* Writes "32,64,128" into buf. */
void sb_axis_format(int axis, const sb_axis_values *vals, char *buf, size_t len);

/* Writes one value of an axis ("256", "warp" for a categorical axis,
 * "auto"). SB_AXIS_UNSET gives "". */
void sb_axis_value_str(int axis, long long v, char *buf, size_t len);

#endif
