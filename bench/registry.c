#include "registry.h"

#include <stdio.h>
#include <string.h>

extern const sb_family sb_family_reference;
extern const sb_family sb_family_scan;
extern const sb_family sb_family_stencil;
extern const sb_family sb_family_stencil2d;
extern const sb_family sb_family_multistage;
extern const sb_family sb_family_barrier;
extern const sb_family sb_family_barrier_tma;
extern const sb_family sb_family_barrier_cluster;
extern const sb_family sb_family_pipeline;
extern const sb_family sb_family_pipeline_intensity;
extern const sb_family sb_family_gemm;
extern const sb_family sb_family_devscan;
#ifdef SB_BROKEN
extern const sb_family sb_family_broken; /* tests only: make SB_BROKEN=1 */
#endif

/* Every family that exists. Add a family: one line here. */
const sb_family *const sb_families[] = {
    &sb_family_reference,
#ifdef SB_BROKEN
    &sb_family_broken, /* early, so healthy families run after its faults */
#endif
    &sb_family_scan,
    &sb_family_stencil,
    &sb_family_stencil2d,
    &sb_family_multistage,
    &sb_family_barrier,
    &sb_family_barrier_tma,
    &sb_family_barrier_cluster,
    &sb_family_pipeline,
    &sb_family_pipeline_intensity,
    &sb_family_gemm,
    &sb_family_devscan,
};
const int sb_num_families = (int)(sizeof sb_families / sizeof sb_families[0]);

const sb_family *sb_find_family(const char *name) {
  for (int i = 0; i < sb_num_families; ++i)
    if (strcmp(sb_families[i]->name, name) == 0) return sb_families[i];
  return NULL;
}
