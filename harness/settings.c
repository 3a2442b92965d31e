/* The environment's settings (SB_FLUSH, SB_HOLD, SB_TMA_PROMOTION and the
 * whole-number ones): each read where it is used, through the functions
 * harness/launch.h declares, and refused at start by main with one line
 * when its value is not one it takes. Pure: no GPU, no state. */
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "timing.h" /* the defaults: SB_HOLD_STREAMS, SB_CONTEXTS, ... */

/* SB_FLUSH: how the L2 is emptied before each sample. The default reads
 * twice the L2 (kernels/common/l2_flush.cu), which leaves it holding clean
 * lines only; `memset` overwrites the buffer instead (nvbench's flush, this
 * suite's before 2026-11-28), which leaves up to an L2 of dirty lines that
 * the timed launch writes back on the flush's behalf (docs/history.md, "The
 * L2 flush leaves its dirty lines to the timed launch"). */
int sb_flush_method(void) {
  const char *env = getenv("SB_FLUSH");
  if (!env || !*env || !strcmp(env, "read")) return SB_FLUSH_READ;
  if (!strcmp(env, "discard")) return SB_FLUSH_DISCARD;
  if (!strcmp(env, "none")) return SB_FLUSH_NONE;
  return !strcmp(env, "memset") ? SB_FLUSH_MEMSET : SB_FLUSH_UNKNOWN;
}

int sb_hold_unflushed(void) {
  const char *env = getenv("SB_HOLD");
  if (!env || !*env || !strcmp(env, "unflushed")) return 1;
  return !strcmp(env, "off") ? 0 : -1;
}

int sb_tma_promotion_bytes(void) {
  const char *env = getenv("SB_TMA_PROMOTION");
  if (!env || !*env || !strcmp(env, "auto")) return SB_TMA_PROMOTION_AUTO;
  if (!strcmp(env, "256")) return 256;
  if (!strcmp(env, "128")) return 128;
  if (!strcmp(env, "64")) return 64;
  return !strcmp(env, "none") ? 0 : -1;
}

/* A whole-number setting from the environment: dflt when unset or empty,
 * 0 when it is not a whole number in lo..hi (main refuses it at start). */
static int env_whole(const char *name, int dflt, long lo, long hi) {
  const char *env = getenv(name);
  if (!env || !*env) return dflt;
  char *end;
  const long v = strtol(env, &end, 10);
  return *end || v < lo || v > hi ? 0 : (int)v;
}

/* SB_HOLD_STREAMS: the streams a held sample rotates over, 1-32 (default
 * SB_HOLD_STREAMS, harness/timing.h); 0 when not a whole number in that
 * range (refused at start). */
int sb_hold_streams(void) { return env_whole("SB_HOLD_STREAMS", SB_HOLD_STREAMS, 1, 32); }

/* SB_PROCESS_CONTEXTS: the fresh contexts a worker's own one is chosen
 * from, 1-64 (default SB_PROCESS_CONTEXTS, harness/timing.h), or 0 for the
 * primary context; -1 when neither (refused at start). */
int sb_process_contexts(void) {
  const char *env = getenv("SB_PROCESS_CONTEXTS");
  if (env && strcmp(env, "0") == 0) return 0;
  const int v = env_whole("SB_PROCESS_CONTEXTS", SB_PROCESS_CONTEXTS, 1, 64);
  return v ? v : -1;
}

/* SB_PLACEMENTS: the places in device memory a point's samples are taken
 * over, 1-64 (default SB_PLACEMENTS, harness/timing.h); 0 when not a whole
 * number in that range (refused at start). */
int sb_placements(void) { return env_whole("SB_PLACEMENTS", SB_PLACEMENTS, 1, SB_PLACEMENTS_MAX); }

/* SB_CONTEXTS: the fresh contexts the boundary rows' one is chosen from, 1-64 (default
 * SB_CONTEXTS, harness/timing.h); 0 when not a whole number in that range
 * (refused at start). */
int sb_contexts(void) { return env_whole("SB_CONTEXTS", SB_CONTEXTS, 1, 64); }

/* SB_GRID_PROBE_THREADS: the threads of the grid-barrier probe's blocks,
 * 32-1024 (default 32: one block an SM; more: as many an SM as fit, 1024
 * being barrier/grid_sync's full-occupancy row); 0 when not a whole number
 * in that range (refused at start). A probe: the level it was to tell is
 * not told by either (docs/history.md). */
int sb_grid_probe_threads(void) { return env_whole("SB_GRID_PROBE_THREADS", 32, 32, 1024); }

/* SB_FLUSH_L2S: the flush buffer's size in L2s, 1-64 (default 2); 0 when
 * it is not a whole number in that range (refused at start). A probe of
 * whether twice the L2 empties it. */
int sb_flush_l2s(void) { return env_whole("SB_FLUSH_L2S", 2, 1, 64); }

/* SB_REPLACE (the re-placement probe, docs/gate-details.md): the
 * letters of what every point allocates anew, somewhere else, before it
 * runs: i its input, o its output (where the barrier family keeps its
 * counters), w a family's own workspace (gemm's semaphores and partial
 * tiles), f the L2 flush's buffer; p none of them, the pad alone. The new
 * buffers are taken while the old ones are still held, behind a fresh pad
 * of a random size (1 to 256 MiB plus 0 to 31 steps of 64 KiB), so that no
 * point reuses the last one's memory. With SB_REPLACE set (even empty),
 * each point logs its buffers' addresses. Unset: every buffer only grows,
 * and a process keeps one placement for all its points. */
int sb_replace_wants(char what) {
  const char *env = getenv("SB_REPLACE");
  return env && strchr(env, what) != NULL;
}
