/* Programmatic dependent launch (PDL): the trait flag of the rows whose
 * kernels are chained by it (kernel-side verbs and launch: kernels/common/pdl.cuh).
 * Host and device code read it: bench/barrier.c's derive names the launch
 * kind, the tests check that every such row needs sm_90 (min_cc 90), and
 * kernels/families/barrier.cu takes the PDL launch from it.
 *
 * It lives in the family bits (SB_VF_FAMILY0 and up, harness/launch.h) at a
 * bit no family uses: the barrier families' SB_BARRIER_VF_* take
 * SB_VF_FAMILY0 << 0..10 and bits 20..29 (the walk length,
 * kernels/families/barrier_layout.h; kernels/families/barrier.cu asserts the bit is free);
 * devscan has no flags of its own. */
#ifndef SB_KERNELS_PDL_H
#define SB_KERNELS_PDL_H

#include "../../harness/launch.h"

#define SB_VF_PDL (SB_VF_FAMILY0 << 11) /* kernels launched as PDL secondaries: sm_90+ */
#define SB_PDL_MIN_CC 90                /* griddepcontrol: PTX ISA 7.8, sm_90 */

#endif
