/* Sweep generation: for each family, the cartesian product of its axes
 * (defaults or --quick lists, with command-line overrides), for each of its
 * variants, filtered by a regular expression over the point name. */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H

#include <regex.h>

#include "family.h"

typedef struct sb_sweep_spec {
  int quick;                              /* use the families' quick lists */
  sb_axis_values override[SB_NUM_AXES];   /* count 0: no override */
  const regex_t *filter;                  /* NULL: every point */
} sb_sweep_spec;

/* The axis lists family f sweeps under spec. Returns 0 or -1 with err. */
int sb_family_axes(const sb_family *f, const sb_sweep_spec *spec,
                   sb_axis_values out[SB_NUM_AXES], char *err, size_t errlen);

/* Builds every point, families in registry order. The `reference` family
 * is always included and never overridden: each run needs its copy
 * bandwidth. Returns the point count (>= 0) with *points malloc'ed, or -1
 * with err (an override no selected family uses, a filter that matches
 * nothing, a bad default list). */
long sb_sweep_build(const sb_sweep_spec *spec, sb_point **points, char *err,
                    size_t errlen);

/* The points of a run of several sweeps (syncbench --then): each sweep's
 * in turn, a point whose name came earlier dropped (it runs once, where it
 * first comes). Returns the count with *points malloc'ed, or -1 with err,
 * which names the sweep by its place when there are several. */
long sb_sweeps_build(const sb_sweep_spec *const *specs, int nspecs, sb_point **points, char *err,
                     size_t errlen);

#endif
