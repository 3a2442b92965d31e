/* The paired ceiling: a family whose variant table has a SB_VF_CEILING row
 * (gemm's cuBLAS, devscan's CUB) times every other variant's point with the
 * ceiling's samples interleaved, sample by sample (harness/timing.c), so
 * both see the same power state. The ratio of the two medians is the
 * family's ceiling_column (pct_of_cublas, pct_of_cub). Pure: host-tested. */
#ifndef SB_PAIRED_H
#define SB_PAIRED_H

#include <stddef.h>

#include "family.h"

/* The family's ceiling variant, found by its flag wherever it is in the
 * table; NULL if it has none. */
const sb_variant *sb_family_ceiling(const sb_family *f);

/* The ceiling point paired with p: p's axes with the ceiling as variant,
 * passed through the family's in_sweep as if every axis were the user's
 * (so it blanks what the ceiling leaves unset: gemm's tile, stages).
 * Returns 0 with *out filled; 1 when p has nothing to pair with (no
 * ceiling, or p is the ceiling); -1 when the family has no such point. */
int sb_ceiling_point(const sb_point *p, sb_point *out);

/* 100 * median(ceiling) / median(variant) over paired samples (seconds);
 * sorts both arrays. NaN when either is empty or a median is not > 0. */
double sb_paired_pct(double *variant, size_t nv, double *ceiling, size_t nc);

/* The row's cell named by a family's ceiling_column, or NULL if the name
 * is not a ceiling column of the schema. */
double *sb_ceiling_cell(sb_row *row, const char *column);

#endif
