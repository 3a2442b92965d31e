/* The runner's validation on the dirty workspace (harness/runner.c,
 * revalidate_on_dirty_workspace), host side: which families get it, the
 * second seed, and that the second input tells a stale output from a
 * fresh one. The launch itself needs a GPU (scripts/gpu_round.sh step b). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/families.h"
#include "../../harness/family.h"
#include "../../harness/random.h"
#include "check.h"

SB_TEST(workspace_state_is_set_for_exactly_gemm_and_devscan) {
  char names[256] = "";
  size_t used = 0;
  for (int i = 0; i < sb_num_families; ++i)
    if (sb_families[i]->flags & SB_FF_WORKSPACE_STATE)
      used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? "," : "",
                               sb_families[i]->name);
  CHECK_STR(names, "gemm,devscan");
}

/* Which points of those families keep state: the variants that zero a
 * workspace in every launch (split-K and stream-K semaphores, tickets and
 * partials; devscan's tile counter and status words); the others would
 * only pay for a second validation that cannot fail differently. */
static int keeps(const char *family, const char *variant) {
  const sb_family *f = sb_find_family(family);
  for (int v = 0; f && v < f->variants->count; ++v)
    if (!strcmp(f->variants->rows[v].name, variant)) {
      sb_point p = {.family = f, .variant = &f->variants->rows[v]};
      return f->keeps_state ? f->keeps_state(&p) : 1;
    }
  return -1; /* no such variant: the test names one that exists */
}

SB_TEST(workspace_state_is_checked_on_the_variants_that_keep_it) {
  const char *gemm_yes[] = {"splitk_serial", "splitk_parallel", "splitk_reduce", "streamk"};
  const char *gemm_no[] = {"cublas", "single", "ring", "ws_tma_wgmma", "ws_tma_wgmma_pingpong"};
  const char *dev_yes[] = {"chained", "lookback", "lookback_relaxed", "cluster_lookback"};
  const char *dev_no[] = {"cub", "three_kernel", "three_kernel_pdl", "grid_sync"};
  for (size_t i = 0; i < 4; ++i) CHECK_EQ_INT(keeps("gemm", gemm_yes[i]), 1);
  for (size_t i = 0; i < 5; ++i) CHECK_EQ_INT(keeps("gemm", gemm_no[i]), 0);
  for (size_t i = 0; i < 4; ++i) CHECK_EQ_INT(keeps("devscan", dev_yes[i]), 1);
  for (size_t i = 0; i < 4; ++i) CHECK_EQ_INT(keeps("devscan", dev_no[i]), 0);
}

SB_TEST(second_seed_is_deterministic_and_never_the_first) {
  /* Pinned: a failing row's detail names the second seed, and the next
   * build must derive the same one from the row's seed. */
  CHECK(sb_second_seed(0) == 0xE220A8397B1DCDAFULL);
  const uint64_t edges[] = {0, 1, 2, 0x7fffffffffffffffULL, UINT64_MAX};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; ++i) {
    CHECK(sb_second_seed(edges[i]) != edges[i]);
    CHECK(sb_second_seed(edges[i]) == sb_second_seed(edges[i]));
  }
  /* The seeds the runner gives points (sb_splitmix64(base + i)). */
  int same = 0, unstable = 0;
  for (uint64_t i = 0; i < 100000; ++i) {
    const uint64_t first = sb_splitmix64(42 + i), second = sb_second_seed(first);
    same += second == first;
    unstable += second != sb_second_seed(first);
  }
  CHECK_EQ_INT(same, 0);
  CHECK_EQ_INT(unstable, 0);
}

static sb_point point_of(const char *family) {
  sb_point p = {sb_find_family(family), NULL, {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  if (p.family) p.variant = &p.family->variants->rows[0];
  return p;
}

/* What the dirty check rests on: an output left from the first input fails
 * against the second (a launch that reused stale partials or skipped its
 * work is caught), and so does the poison (a launch that wrote nothing). */
static void check_second_input_rejects_stale_output(const sb_point *p, void *first_out) {
  const sb_family *f = p->family;
  const size_t in_bytes = f->in_bytes(p), out_bytes = f->out_bytes(p);
  const uint64_t seed = sb_splitmix64(7);
  unsigned char *in1 = malloc(in_bytes), *in2 = malloc(in_bytes), *poison = malloc(out_bytes);
  f->make_input(p, in1, seed);
  f->make_input(p, in2, sb_second_seed(seed));
  size_t differ = 0;
  for (size_t i = 0; i < in_bytes; ++i) differ += in1[i] != in2[i];
  CHECK(differ > in_bytes / 2);
  memset(poison, 0xA5, out_bytes); /* the runner's poison */
  char detail[SB_DETAIL_LEN];
  const sb_check first = {seed, SB_CHECK_VALIDATION}, second = {sb_second_seed(seed), SB_CHECK_DIRTY};
  CHECK_EQ_INT(f->verify(p, &first, in1, first_out, detail, sizeof detail), 0);
  CHECK_EQ_INT(f->verify(p, &second, in2, first_out, detail, sizeof detail), -1);
  CHECK_EQ_INT(f->verify(p, &second, in2, poison, detail, sizeof detail), -1);
  free(in1);
  free(in2);
  free(poison);
}

SB_TEST(gemm_second_input_rejects_the_first_inputs_output) {
  sb_point p = point_of("gemm");
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  const long long m = 128, k = 64;
  p.axis[SB_AXIS_M] = p.axis[SB_AXIS_N] = m;
  p.axis[SB_AXIS_K] = k;
  uint16_t *a = malloc(p.family->in_bytes(&p));
  p.family->make_input(&p, a, sb_splitmix64(7));
  float *c = malloc(p.family->out_bytes(&p));
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < m; ++j) {
      double dot, abs_dot;
      sb_gemm_reference_at(a, a + m * k, m, k, i, j, &dot, &abs_dot);
      c[i * m + j] = (float)dot;
    }
  check_second_input_rejects_stale_output(&p, c);
  free(a);
  free(c);
}

SB_TEST(devscan_second_input_rejects_the_first_inputs_output) {
  sb_point p = point_of("devscan");
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  const size_t n = 10000;
  p.axis[SB_AXIS_N] = (long long)n;
  p.axis[SB_AXIS_BLOCK] = 128;
  p.axis[SB_AXIS_ELEMS] = 24;
  uint32_t *in = malloc(p.family->in_bytes(&p)), *out = malloc(p.family->out_bytes(&p));
  p.family->make_input(&p, in, sb_splitmix64(7));
  sb_devscan_reference(in, out, n);
  check_second_input_rejects_stale_output(&p, out);
  free(in);
  free(out);
}
