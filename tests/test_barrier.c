#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/barrier.h"
#include "../kernels/barrier_layout.h"
#include "check.h"

static unsigned char *fake_out(uint32_t blocks, uint32_t iters, uint32_t reporters) {
  unsigned char *out = malloc(SB_BARRIER_OUT_BYTES);
  memset(out, 0xA5, SB_BARRIER_OUT_BYTES); /* the runner's poison */
  sb_barrier_head *h = (sb_barrier_head *)out;
  h->grid_blocks = blocks;
  h->iters = iters;
  h->magic = SB_BARRIER_MAGIC;
  sb_barrier_rec *r = (sb_barrier_rec *)(h + 1);
  for (uint32_t b = 0; b < blocks; ++b) {
    r[b].cycles = 1000ull * (b + 1);
    r[b].ok_min = r[b].ok_max = iters;
    r[b].reporters = reporters;
  }
  return out;
}

/* The table row of a variant, from any of the three families. */
static const sb_variant *row(const char *name) {
  const sb_variant_table *t[] = {&sb_barrier_variants, &sb_barrier_tma_variants,
                                 &sb_barrier_cluster_variants};
  for (int f = 0; f < 3; ++f)
    for (int i = 0; i < t[f]->count; ++i)
      if (!strcmp(t[f]->rows[i].name, name)) return &t[f]->rows[i];
  return NULL;
}

SB_TEST(barrier_check_out_accepts_a_full_tally) {
  char d[512];
  unsigned char *out = fake_out(132, 64, 256);
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 256, d, sizeof d), 132);
  free(out);
}

SB_TEST(barrier_check_out_rejects_missing_phases_reporters_and_poison) {
  char d[512];
  unsigned char *out = fake_out(8, 64, 32);
  sb_barrier_rec *r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
  r[5].ok_min = 63; /* one phase a thread could not prove */
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 32, d, sizeof d), -1);
  CHECK(strstr(d, "block 5") != NULL);
  r[5].ok_min = 64;
  r[4].ok_max = 65; /* a thread counted more than it could have */
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 32, d, sizeof d), -1);
  CHECK(strstr(d, "block 4") != NULL);
  r[4].ok_max = 64;
  r[2].reporters = 31; /* a thread never reported */
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 32, d, sizeof d), -1);
  r[2].reporters = 32;
  r[7].cycles = 0xA5A5A5A5A5A5A5A5ULL; /* block never wrote its record */
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 32, d, sizeof d), -1);
  r[7].cycles = 7;
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 32, d, sizeof d), 8);
  CHECK_EQ_INT(sb_barrier_check_out(out, 65, 64, 32, d, sizeof d), -1); /* iters differ */
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 63, 32, d, sizeof d), -1); /* another count wanted */
  ((sb_barrier_head *)out)->magic = 0xA5A5A5A5u;
  CHECK_EQ_INT(sb_barrier_check_out(out, 64, 64, 32, d, sizeof d), -1);
  free(out);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

SB_TEST(barrier_cycles_median_matches_brute_force) {
  for (uint32_t blocks = 1; blocks <= 9; ++blocks) {
    unsigned char *out = fake_out(blocks, 10, 1);
    sb_barrier_rec *r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
    double v[16];
    for (uint32_t b = 0; b < blocks; ++b) { /* scrambled order */
      r[b].cycles = (unsigned long long)((b * 7919u) % 101u + 1u) * 10u;
      v[b] = (double)r[b].cycles / 10.0;
    }
    qsort(v, blocks, sizeof *v, cmp_d);
    /* brute force: the value with as many below as above (mean of the two middles) */
    double want = 0;
    int hits = 0;
    for (uint32_t i = 0; i < blocks; ++i) {
      uint32_t below = i, above = blocks - 1 - i;
      if (below == above || below + 1 == above || above + 1 == below) { want += v[i]; ++hits; }
    }
    want /= hits;
    double med, lo, hi;
    sb_barrier_cycles(out, blocks, 10, &med, &lo, &hi);
    CHECK_NEAR(med, want, 1e-12);
    CHECK_NEAR(lo, v[0], 1e-12);
    CHECK_NEAR(hi, v[blocks - 1], 1e-12);
    free(out);
  }
}

/* Brute force over the kernel's role rules (kernels/barrier.cu): walk every
 * thread of a block and count who reports a tally. */
static long long brute_reporters(const char *v, int part, int block) {
  if (!strcmp(v, "grid_sync") || !strcmp(v, "tma_roundtrip")) return 1; /* thread 0 */
  long long n = 0;
  for (int t = 0; t < block; ++t) {
    int lane = t % 32, warp = t / 32, warps = block / 32;
    int on = part == SB_PART_ALL || (part == SB_PART_WARP && t < 32) ||
             (part == SB_PART_ELECTED && lane == 0);
    if (!strcmp(v, "arrive_and_drop")) {
      int stay = part == SB_PART_ALL ? t < block / 2 : part == SB_PART_WARP ? t < 16 : warp < warps / 2;
      on = on && stay;
    }
    n += on;
  }
  return n;
}

SB_TEST(barrier_reporters_match_the_role_rules) {
  const sb_variant_table *t[] = {&sb_barrier_variants, &sb_barrier_tma_variants,
                                 &sb_barrier_cluster_variants};
  char buf[256];
  int runnable = 0, variants = 0;
  for (int f = 0; f < 3; ++f)
    for (int i = 0; i < t[f]->count; ++i, ++variants) {
      const sb_variant *v = &t[f]->rows[i];
      CHECK(v->pick != NULL && v->launch != NULL && v->summary[0] != '\0');
      for (int part = 0; part < 3; ++part)
        for (int block = 32; block <= 1024; block *= 2) {
          if (sb_barrier_rule(v, part, block, buf, sizeof buf)) continue;
          ++runnable;
          long long want = brute_reporters(v->name, part, block);
          CHECK(want >= 1);
          CHECK_EQ_INT(sb_barrier_reporters(v->flags, part, block), want);
        }
    }
  CHECK_EQ_INT(variants, 19);
  CHECK(runnable > 50);
}

SB_TEST(barrier_rules_skip_what_the_primitives_forbid) {
  char buf[256];
  const char *whole[] = {"syncthreads", "syncthreads_handoff", "cg_block_sync", "grid_sync",
                         "cluster_barrier"};
  for (size_t i = 0; i < sizeof whole / sizeof *whole; ++i) {
    CHECK(row(whole[i]) != NULL);
    if (!row(whole[i])) continue;
    CHECK(sb_barrier_rule(row(whole[i]), SB_PART_WARP, 256, buf, sizeof buf) != NULL);
    CHECK(sb_barrier_rule(row(whole[i]), SB_PART_ELECTED, 256, buf, sizeof buf) != NULL);
    CHECK(sb_barrier_rule(row(whole[i]), SB_PART_ALL, 256, buf, sizeof buf) == NULL);
  }
  CHECK(strstr(sb_barrier_rule(row("grid_sync"), SB_PART_WARP, 256, buf, sizeof buf), "grid") != NULL);
  CHECK(strstr(sb_barrier_rule(row("cluster_barrier"), SB_PART_WARP, 256, buf, sizeof buf), "cluster") != NULL);
  CHECK(sb_barrier_rule(row("syncwarp"), SB_PART_ELECTED, 256, buf, sizeof buf) != NULL);
  CHECK(sb_barrier_rule(row("syncwarp"), SB_PART_WARP, 256, buf, sizeof buf) == NULL);
  CHECK(sb_barrier_rule(row("named_barrier"), SB_PART_ALL, 32, buf, sizeof buf) != NULL);
  CHECK(sb_barrier_rule(row("named_barrier"), SB_PART_ALL, 64, buf, sizeof buf) == NULL);
  /* one elected thread in a one-warp block has nobody to wait for */
  CHECK(sb_barrier_rule(row("ptx_mbarrier_parity"), SB_PART_ELECTED, 32, buf, sizeof buf) != NULL);
  CHECK(sb_barrier_rule(row("ptx_mbarrier_parity"), SB_PART_ELECTED, 64, buf, sizeof buf) == NULL);
  CHECK(sb_barrier_rule(row("ptx_mbarrier_handoff"), SB_PART_ELECTED, 64, buf, sizeof buf) == NULL);
  /* arrive_and_drop keeps half: elected needs 4 warps for 2 stayers */
  CHECK(sb_barrier_rule(row("arrive_and_drop"), SB_PART_ELECTED, 64, buf, sizeof buf) != NULL);
  CHECK(sb_barrier_rule(row("arrive_and_drop"), SB_PART_ELECTED, 128, buf, sizeof buf) == NULL);
  CHECK(sb_barrier_rule(row("syncthreads"), SB_PART_ALL, 48, buf, sizeof buf) != NULL);
}

/* smem_latency's chain as the kernel builds it (slot i holds the address
 * of slot i + 1, wrapping), walked hop by hop. */
static long long brute_chase(long long block, long long iters, long long start) {
  const long long n = SB_BARRIER_CHASE_SLOTS(block);
  long long *next = malloc((size_t)n * sizeof *next), at = start;
  for (long long i = 0; i < n; ++i) next[i] = i + 1 == n ? 0 : i + 1;
  for (long long h = 0; h < iters; ++h) at = next[at];
  free(next);
  return (at - start + n) % n;
}

SB_TEST(barrier_chase_end_matches_a_walk_of_the_chain) {
  const unsigned chase = row("smem_latency") ? row("smem_latency")->flags : 0;
  CHECK(chase & SB_BARRIER_VF_CHASE);
  /* both chases (index and address) walk the same chain */
  CHECK(row("smem_latency_bare") && row("smem_latency_bare")->flags == chase);
  const long long iters[] = {1, 7, 256, 1024, 8192, 10000};
  for (long long block = 32; block <= 1024; block *= 2) {
    /* a warp's 32 lanes never share a bank: the length is a multiple of 32 */
    CHECK_EQ_INT(SB_BARRIER_CHASE_SLOTS(block) % 32, 0);
    for (size_t k = 0; k < sizeof iters / sizeof *iters; ++k) {
      long long want = sb_barrier_want(chase, iters[k], block);
      for (long long t = 0; t < block; t += 31) CHECK_EQ_INT(brute_chase(block, iters[k], t), want);
      /* power-of-two hop counts never come back to the start: the check
       * tells a chase that went nowhere from one that went all the way */
      if ((iters[k] & (iters[k] - 1)) == 0) CHECK(want != 0);
    }
  }
  /* every other variant reports its operations */
  CHECK_EQ_INT(sb_barrier_want(row("syncthreads")->flags, 8192, 256), 8192);
}
