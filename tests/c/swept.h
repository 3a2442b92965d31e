/* For the kernel-layer tests: every point of the default and the quick
 * sweep that the runner would launch on an H100-like device, with the
 * kernels its variant's picker names (pickers only take kernel addresses,
 * so no GPU is needed). */
#ifndef SB_TESTS_SWEPT_H
#define SB_TESTS_SWEPT_H

#include "../../harness/runner.h"

/* rc, k, why: what p->variant->pick returned for the point. */
typedef void (*sb_swept_fn)(const sb_point *p, int quick, int rc, const sb_kernels *k,
                            const char *why, void *ctx);

/* An H100 as the validity rules see it. */
sb_device sb_test_hopper(void);

/* Calls fn for each point of `family` (NULL: every family) whose variant
 * has a picker and that passes sb_point_precheck (the family's own skips
 * and the runner's generic ones). Returns how many points fn saw; a sweep
 * that cannot be built is a CHECK failure. */
long sb_for_each_swept_kernel(const char *family, sb_swept_fn fn, void *ctx);

#endif
