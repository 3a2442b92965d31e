/* The paired ceiling: a family whose variant table has a SB_VF_CEILING row
 * (gemm's cuBLAS, devscan's CUB) times every other variant's point with the
 * ceiling's samples interleaved, sample by sample, in v c c v order
 * (harness/timing.c), so both sides are sampled over the same power
 * states. Their ratio, read as the family says, is the family's
 * ceiling_column (pct_of_cublas, pct_of_cub). Pure: host-tested. */
#ifndef SB_PAIRED_H
#define SB_PAIRED_H

#include <stddef.h>

#include "family.h"

/* A paired point shares the minimum time between its two sides (half
 * each) but is timed for at least this many pairs (32 v c c v blocks),
 * whatever the minimum time (harness/runner.c). */
#define SB_MIN_PAIRS 64

/* The family's ceiling variant, found by its flag wherever it is in the
 * table; NULL if it has none. */
const sb_variant *sb_family_ceiling(const sb_family *f);

/* The ceiling point paired with p: p's axes with the ceiling as variant,
 * passed through the family's in_sweep as if every axis were the user's
 * (so it blanks what the ceiling leaves unset: gemm's tile, stages).
 * Returns 0 with *out filled; 1 when p has nothing to pair with (no
 * ceiling, or p is the ceiling); -1 when the family has no such point. */
int sb_ceiling_point(const sb_point *p, sb_point *out);

/* 100 x the ceiling's time over the variant's, from `pairs` samples of
 * each taken as pairs (variant[j] next to ceiling[j], in the order the
 * timer took them: variant first in even pairs, ceiling first in odd
 * ones), over whole v c c v blocks, read as the family says
 * (sb_family.ceiling_reading):
 * - SB_RATIO_BLOCK_MEDIAN: the median over blocks of the block's ceiling
 *   time / variant time; a block sees one power state on both sides.
 * - SB_RATIO_FASTEST: the ceiling's fastest sample / the variant's.
 *   Interleaving makes both sides sample the same stretch of power states;
 *   the fastest of each is its time in the best state of that stretch,
 *   which both saw. Under the power cap (a large GEMM) the block median
 *   follows how far into the cap's ramp a point was sampled.
 * Which reading held best between two machines was measured on real A/A
 * dumps (docs/REGRESSIONS.md): the fastest
 * samples for gemm, the block median for devscan. Leaves the arrays as
 * they are. NaN when there is no pair or no positive sample. */
double sb_paired_pct(const double *variant, const double *ceiling, size_t pairs,
                     sb_ratio_reading reading);

/* How v's paired ratio is read: SB_RATIO_P75 for a variant flagged
 * SB_VF_P75_RATIO, else its family's ceiling_reading. */
sb_ratio_reading sb_variant_reading(const sb_family *f, const sb_variant *v);

/* The places in device memory v's samples are taken over, `placements`
 * (SB_PLACEMENTS) for most: a variant read at its upper quartile
 * (SB_VF_P75_RATIO) SB_MODE_PLACES_X times as many, at most
 * SB_PLACEMENTS_MAX. Its launches run at a level that follows where its
 * operands lie, fast at some places (gemm's multicast 1x2 at 1024^2 x 16k:
 * 58 against 77 us), and a median over 8 places, then over 32, moved with
 * their share between two processes where it was large (docs/history.md). */
int sb_variant_placements(const sb_variant *v, int placements);

/* "fastest", "block_median", "p01", "p75", ... (syncbench --list's ceiling_reading). */
const char *sb_ratio_reading_name(sb_ratio_reading reading);

/* The row's cell named by a family's ceiling_column, or NULL if the name
 * is not a ceiling column of the schema. */
double *sb_ceiling_cell(sb_row *row, const char *column);

/* One JSON line (ending in a newline) with a paired point's samples in
 * the order they were taken: {"point": name, "variant_s": [...],
 * "ceiling_s": [...]}, seconds, and where mhz is given "mhz": [...], the
 * SM clock the clock witness read for each pair (null: no reading), so a
 * sample's cycles can be read beside its time. Point names hold no quote
 * or backslash.
 * The caller frees it; NULL when out of memory. SB_PAIRS_FILE=path makes
 * the runner append one per paired point (docs/REGRESSIONS.md). */
char *sb_pairs_line(const char *name, const double *variant, const double *ceiling, const double *mhz,
                    size_t pairs);

/* SB_PAIRS_FILE's path for the process `pid`: every "%p" of tmpl replaced
 * by the pid, so that the two servers of an A/B run (one environment)
 * write a file each. Returns out, or NULL when it does not fit in cap. */
char *sb_pairs_path(const char *tmpl, long pid, char *out, size_t cap);

#endif
