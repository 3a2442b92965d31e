#include "swept.h"

#include <stdlib.h>

#include "../../harness/sweep.h"
#include "check.h"

sb_device sb_test_hopper(void) {
  sb_device d;
  memset(&d, 0, sizeof d);
  d.cc_major = 9;
  d.max_threads_per_block = 1024;
  d.sm_count = 132;
  d.smem_per_block_optin = 227 * 1024;
  d.l2_bytes = 50u << 20;
  d.global_mem_bytes = 80ull << 30;
  return d;
}

long sb_for_each_swept_kernel(const char *family, sb_swept_fn fn, void *ctx) {
  const sb_device d = sb_test_hopper();
  long seen = 0;
  for (int quick = 0; quick <= 1; ++quick) {
    sb_sweep_spec spec = {.quick = quick};
    sb_point *p;
    char err[256];
    long n = sb_sweep_build(&spec, &p, err, sizeof err);
    CHECK(n > 0);
    for (long i = 0; i < n; ++i) {
      if ((family && strcmp(p[i].family->name, family)) || !p[i].variant->pick) continue;
      sb_row row;
      sb_row_init(&row, &d.prov);
      if (sb_point_precheck(&p[i], &d, &row)) continue;
      sb_kernels k;
      memset(&k, 0, sizeof k);
      char why[SB_SKIP_LEN] = "";
      const int rc = p[i].variant->pick(p[i].axis, &k, why, sizeof why);
      if (rc != 0) {
        char name[512];
        sb_point_name(&p[i], name, sizeof name);
        fprintf(stderr, "  %s sweep: %s has no kernel: %s\n", quick ? "quick" : "default", name,
                why);
      }
      fn(&p[i], quick, rc, &k, why, ctx);
      ++seen;
    }
    if (n > 0) free(p);
  }
  return seen;
}
