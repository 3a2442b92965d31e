#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/barrier.h"
#include "../../harness/sweep.h"
#include "../../kernels/families/barrier_layout.h"
#include "../../kernels/common/flag_word.h"
#include "../../kernels/common/pdl.h"
#include "check.h"
#include "swept.h"

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

/* A sweep output (flag_handoff): n SMs, probe j's sides timed 1000 + 10 j
 * and 1002 + 10 j cycles per loop of `iters` round trips, on the SMs of its
 * ranks (rank r = SM r). */
static unsigned char *fake_sweep(int n, uint32_t iters) {
  unsigned char *out = malloc(SB_HANDOFF_AREA_OFFSET);
  memset(out, 0xA5, SB_HANDOFF_AREA_OFFSET);
  sb_barrier_head *h = (sb_barrier_head *)out;
  h->grid_blocks = (uint32_t)n;
  h->iters = iters;
  h->magic = SB_BARRIER_MAGIC;
  sb_handoff_probe *q = (sb_handoff_probe *)(out + SB_HANDOFF_PROBE_OFFSET);
  for (int j = 0; j < sb_handoff_probes(n); ++j) {
    int a, b;
    sb_handoff_pair(j, n, &a, &b);
    q[j].cycles[0] = 1000ull + 10ull * (unsigned)j;
    q[j].cycles[1] = 1002ull + 10ull * (unsigned)j;
    q[j].smid[0] = (uint32_t)a, q[j].smid[1] = (uint32_t)b;
    q[j].rounds[0] = q[j].rounds[1] = iters;
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

SB_TEST(barrier_cycles_price_matches_brute_force) {
  for (uint32_t blocks = 1; blocks <= 45; ++blocks) {
    unsigned char *out = fake_out(blocks, 10, 1);
    sb_barrier_rec *r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
    double v[64];
    for (uint32_t b = 0; b < blocks; ++b) { /* scrambled order */
      r[b].cycles = (unsigned long long)((b * 7919u) % 101u + 1u) * 10u;
      v[b] = (double)r[b].cycles / 10.0;
    }
    qsort(v, blocks, sizeof *v, cmp_d);
    /* brute force: drop blocks / 10 from each end of the sorted values, average the rest */
    double want = 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < blocks; ++i)
      if (i >= blocks / 10 && i < blocks - blocks / 10) want += v[i], ++kept;
    want /= kept;
    double mid, lo, hi, spread[SB_BARRIER_SPREAD], full, unused[2];
    sb_barrier_cycles(out, blocks, 10, 0, &mid, &lo, &hi, spread);
    CHECK_NEAR(mid, want, 1e-9);
    sb_barrier_cycles(out, blocks, 10, 1, &full, &unused[0], &unused[1], NULL);
    const double h90 = (blocks - 1) * 0.90; /* full occupancy: the 90th percentile */
    const uint32_t k90 = (uint32_t)h90, k90n = k90 + 1 < blocks ? k90 + 1 : k90;
    CHECK_NEAR(full, v[k90] + (h90 - k90) * (v[k90n] - v[k90]), 1e-9);
    CHECK_NEAR(lo, v[0], 1e-12);
    CHECK_NEAR(hi, v[blocks - 1], 1e-12);
    /* the percentiles over the blocks, by linear interpolation between ranks */
    const double at[SB_BARRIER_SPREAD] = {0.10, 0.25, 0.50, 0.75, 0.90};
    for (int i = 0; i < SB_BARRIER_SPREAD; ++i) {
      const double h = (blocks - 1) * at[i];
      const uint32_t k = (uint32_t)h, k1 = k + 1 < blocks ? k + 1 : k;
      CHECK_NEAR(spread[i], v[k] + (h - k) * (v[k1] - v[k]), 1e-9);
    }
    free(out);
  }
}

/* Full occupancy on an H200: the blocks in two groups, and the share of
 * each moves from one process to the next. syncthreads at 1024 threads: 264
 * blocks at 107.84 and 134.05 cycles/op near half each, where moving four
 * blocks from one group to the other moved the median from one group to
 * the middle (12%). tma_roundtrip: 4224 blocks at 1690 and 2325, a tenth
 * to a third of them fast, which moved the trimmed mean 3-4%. The full
 * occupancy price holds within 0.5% in both, and one block delayed far
 * outside the loop does not move it. */
SB_TEST(barrier_cycles_hold_when_two_groups_trade_blocks) {
  static const struct {
    uint32_t blocks, fast[3];
    unsigned long long f, s;
  } cases[] = {{264, {134, 130, 130}, 10784, 13405}, {4224, {423, 1400, 1100}, 169000, 232500}};
  for (int c = 0; c < 2; ++c) {
    double fig[3], trimmed[3];
    const uint32_t blocks = cases[c].blocks;
    for (int k = 0; k < 3; ++k) {
      unsigned char *out = fake_out(blocks, 100, 1);
      sb_barrier_rec *r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
      for (uint32_t b = 0; b < blocks; ++b)
        r[(b * 7u) % blocks].cycles = b < cases[c].fast[k] ? cases[c].f : cases[c].s;
      if (k == 2) r[5].cycles = 100 * cases[c].s; /* one block 100x late */
      double lo, hi;
      sb_barrier_cycles(out, blocks, 100, 1, &fig[k], &lo, &hi, NULL);
      sb_barrier_cycles(out, blocks, 100, 0, &trimmed[k], &lo, &hi, NULL);
      CHECK_NEAR(lo, cases[c].f / 100.0, 1e-9);
      free(out);
    }
    CHECK(fabs(fig[1] / fig[0] - 1) < 0.005);
    CHECK(fabs(fig[2] / fig[1] - 1) < 0.005);
    if (c == 1) CHECK(fabs(trimmed[1] / trimmed[0] - 1) > 0.03); /* what the trimmed mean did */
  }
}

/* Brute force over the kernel's role rules (kernels/families/barrier.cu): walk every
 * thread of a block and count who reports a tally. */
static long long brute_reporters(const char *v, int part, int block) {
  if (!strcmp(v, "grid_sync") || !strcmp(v, "tma_roundtrip") || !strcmp(v, "tma_multicast_roundtrip"))
    return 1; /* thread 0 */
  /* the prices between SMs: thread 0 of each block (flag_handoff's spinner,
   * dsmem_handoff's arriving and waiting thread, lane 0 of the walking
   * warp, the boundary counter) */
  if (!strncmp(v, "flag_handoff", 12) || !strcmp(v, "dsmem_handoff") || !strncmp(v, "lookback_walk_", 14) ||
      !strncmp(v, "kernel_boundary_", 16))
    return 1;
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
  CHECK_EQ_INT(variants, 30); /* with dsmem_handoff and tma_multicast_roundtrip */
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
  /* both chases (index and address) walk the same chain: the same traits
   * but the calibration mark (the explain set profiles one of them) */
  CHECK(row("smem_latency_bare") &&
        row("smem_latency_bare")->flags == (chase & ~(unsigned)SB_BARRIER_VF_CALIBRATION));
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

/* ---- the prices between SMs (flag hand-off, look-back walk, kernel boundary) ---- */

/* DevFlags::look_back (kernels/common/lookback.cuh) run on the host over packed
 * words: windows of 32 from word tile-1 down (lane k reads word i - k; below
 * word 0 a P of value 0), the nearest P ends the walk, the values up to and
 * including it add up. honour_p = 0 models a broken look-back that walks
 * past the P. *windows: how many windows it read; returns the prefix, or
 * sets *spin when a lane would read X (the kernel would spin). */
static uint32_t host_look_back(const uint64_t *w, int tile, int honour_p, int *windows, int *spin) {
  uint32_t sum = 0;
  *windows = 0;
  *spin = 0;
  for (int i = tile - 1;; i -= 32) {
    ++*windows;
    uint64_t got[32];
    int stop = -1;
    for (int lane = 0; lane < 32; ++lane) {
      const int k = i - lane;
      got[lane] = k >= 0 ? w[k] : SB_FLAG_WORD(SB_FLAG_P, 0);
      if (SB_FLAG_STATUS(got[lane]) == SB_FLAG_X) *spin = 1;
      if (stop < 0 && SB_FLAG_STATUS(got[lane]) == SB_FLAG_P && (honour_p || k < 0)) stop = lane;
    }
    for (int lane = 0; lane <= (stop < 0 ? 31 : stop); ++lane) sum += SB_FLAG_VALUE(got[lane]);
    if (stop >= 0) return sum;
  }
}

/* The walk rows of the table: their w (from the flags, as the host reads it). */
static int walk_rows(int *w, int max) {
  int n = 0;
  for (int i = 0; i < sb_barrier_variants.count; ++i) {
    const int wi = SB_BARRIER_WALK_OF(sb_barrier_variants.rows[i].flags);
    if (wi > 0 && n < max) w[n++] = wi;
  }
  return n;
}

SB_TEST(barrier_walk_rows_carry_their_walk_in_name_and_flags) {
  int w[16], n = walk_rows(w, 16), multi = 0, single = 0;
  CHECK(n >= 3);
  for (int i = 0; i < n; ++i) {
    char name[64];
    snprintf(name, sizeof name, "lookback_walk_%d", w[i]);
    const sb_variant *v = row(name);
    CHECK(v != NULL); /* the name and the template agree with the flags */
    if (!v) continue;
    CHECK(v->flags & SB_BARRIER_VF_DEVICE);
    CHECK(v->flags & SB_BARRIER_VF_THREAD0);
    CHECK(w[i] >= 1 && w[i] <= SB_BARRIER_WALK_MAX);
    single += w[i] <= 32;
    multi += w[i] > 32;
  }
  /* the price of one window and of several: both ends are in the table */
  CHECK(single >= 2 && multi >= 1);
  /* every other row has no walk */
  CHECK_EQ_INT(SB_BARRIER_WALK_OF(row("grid_sync")->flags), 0);
  CHECK_EQ_INT(SB_BARRIER_WALK_OF(row("flag_handoff")->flags), 0);
}

SB_TEST(barrier_walk_input_makes_the_look_back_stop_at_its_p) {
  int w[16], n = walk_rows(w, 16);
  for (int i = 0; i < n; ++i) {
    const size_t words = sb_barrier_walk_words(w[i]);
    CHECK_EQ_INT(words, (size_t)SB_BARRIER_WALK_COPIES * SB_BARRIER_WALK_STRIDE(w[i]));
    CHECK_EQ_INT(SB_BARRIER_WALK_STRIDE(w[i]) % 16, 0); /* copies on 128-byte lines */
    uint64_t *in = malloc(words * sizeof *in);
    sb_barrier_walk_fill(in, w[i], 1234 + (uint64_t)i);
    for (int c = 0; c < SB_BARRIER_WALK_COPIES; ++c) {
      const uint64_t *copy = in + (size_t)c * SB_BARRIER_WALK_STRIDE(w[i]);
      int windows, spin;
      const uint32_t got = host_look_back(copy, SB_BARRIER_WALK_GUARD + w[i], 1, &windows, &spin);
      CHECK_EQ_INT(got, sb_barrier_walk_prefix(in, w[i], c));
      CHECK_EQ_INT(windows, (w[i] + 31) / 32); /* the window count docs/barrier.md prices */
      CHECK_EQ_INT(spin, 0);                   /* no X in reach: the walk never waits */
      /* a look-back that walks past the P adds the guard words: caught */
      const uint32_t over = host_look_back(copy, SB_BARRIER_WALK_GUARD + w[i], 0, &windows, &spin);
      CHECK(over != got);
    }
    /* another seed, other values (the check is not against a constant) */
    uint64_t *again = malloc(words * sizeof *again);
    sb_barrier_walk_fill(again, w[i], 99);
    CHECK(sb_barrier_walk_prefix(again, w[i], 0) != sb_barrier_walk_prefix(in, w[i], 0));
    free(again);
    free(in);
  }
}

SB_TEST(barrier_check_values_catches_wrong_sums_tokens_and_one_sm) {
  char d[512];
  const long long iters = 1024;
  const sb_variant *walk = row("lookback_walk_64"), *pair = row("dsmem_handoff");
  CHECK(walk != NULL && pair != NULL);
  if (!walk || !pair) return;
  const int w = SB_BARRIER_WALK_OF(walk->flags);
  uint64_t *in = malloc(sb_barrier_walk_words(w) * sizeof *in);
  sb_barrier_walk_fill(in, w, 7);
  unsigned char *out = fake_out(200, (uint32_t)iters, 1); /* more blocks than copies */
  sb_barrier_rec *r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
  for (int b = 0; b < 200; ++b)
    r[b].value = (uint32_t)iters * sb_barrier_walk_prefix(in, w, b % SB_BARRIER_WALK_COPIES);
  CHECK_EQ_INT(sb_barrier_check_values(walk->flags, in, out, 200, iters, d, sizeof d), 0);
  r[131].value += 1; /* one look-back of block 131 off by one */
  CHECK_EQ_INT(sb_barrier_check_values(walk->flags, in, out, 200, iters, d, sizeof d), -1);
  CHECK(strstr(d, "block 131") != NULL);
  r[131].value -= 1;
  r[70].value = (uint32_t)iters * sb_barrier_walk_prefix(in, w, 70 % SB_BARRIER_WALK_COPIES + 1);
  CHECK_EQ_INT(sb_barrier_check_values(walk->flags, in, out, 200, iters, d, sizeof d), -1);
  free(out);

  out = fake_out(2, (uint32_t)iters, 1);
  r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
  uint32_t *smid = (uint32_t *)sb_barrier_pair_smids(out);
  r[0].value = r[1].value = (uint32_t)iters;
  smid[0] = 3, smid[1] = 77;
  CHECK_EQ_INT(sb_barrier_check_values(pair->flags, NULL, out, 2, iters, d, sizeof d), 0);
  smid[1] = 3; /* both on one SM: no hand-off between SMs */
  CHECK_EQ_INT(sb_barrier_check_values(pair->flags, NULL, out, 2, iters, d, sizeof d), -1);
  CHECK(strstr(d, "SM 3") != NULL);
  smid[1] = 77;
  r[1].value = (uint32_t)iters - 1; /* a round trip short */
  CHECK_EQ_INT(sb_barrier_check_values(pair->flags, NULL, out, 2, iters, d, sizeof d), -1);
  r[1].value = (uint32_t)iters;
  CHECK_EQ_INT(sb_barrier_check_values(pair->flags, NULL, out, 3, iters, d, sizeof d), -1);
  /* a row without a checked result: nothing to check */
  CHECK_EQ_INT(sb_barrier_check_values(row("syncthreads")->flags, NULL, out, 2, iters, d, sizeof d), 0);
  free(out);
  free(in);
}

SB_TEST(barrier_device_rows_have_their_traits) {
  int pairs = 0, host = 0, device = 0;
  char buf[256];
  for (int i = 0; i < sb_barrier_variants.count; ++i) {
    const sb_variant *v = &sb_barrier_variants.rows[i];
    const unsigned f = v->flags;
    if (!(f & SB_BARRIER_VF_DEVICE)) {
      CHECK(!(f & (SB_BARRIER_VF_PAIR | SB_BARRIER_VF_HOST_TIMED)));
      CHECK_EQ_INT(sb_barrier_ops_per_iter(f), 1);
      continue;
    }
    ++device;
    pairs += (f & SB_BARRIER_VF_PAIR) != 0;
    host += (f & SB_BARRIER_VF_HOST_TIMED) != 0;
    CHECK_EQ_INT(sb_barrier_reporters(f, SB_PART_ALL, 256), 1);
    CHECK_EQ_INT(sb_barrier_ops_per_iter(f), f & SB_BARRIER_VF_PAIR ? 2 : 1);
    CHECK(sb_barrier_rule(v, SB_PART_ALL, 256, buf, sizeof buf) == NULL);
    CHECK(sb_barrier_rule(v, SB_PART_WARP, 256, buf, sizeof buf) != NULL);
    CHECK(sb_barrier_rule(v, SB_PART_ELECTED, 256, buf, sizeof buf) != NULL);
    /* every one is a twin: the validating kernel is not the timed one */
    sb_kernels k;
    long long axis[SB_NUM_AXES];
    for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
    axis[SB_AXIS_BLOCK] = 256;
    CHECK_EQ_INT(v->pick(axis, &k, buf, sizeof buf), 0);
    CHECK(k.bounded != NULL && k.raw != NULL && k.bounded != k.raw);
  }
  CHECK_EQ_INT(device, 9);
  CHECK_EQ_INT(pairs, 2); /* flag_handoff and its relaxed twin */
  CHECK_EQ_INT(host, 3);  /* the stream, the graph and the PDL boundary */
  CHECK(sb_barrier_device_block(32) && sb_barrier_device_block(256) && sb_barrier_device_block(1024));
  CHECK(!sb_barrier_device_block(64) && !sb_barrier_device_block(128) && !sb_barrier_device_block(512));
}

/* What the default and quick sweeps run of the rows between SMs. */
typedef struct {
  int seen[2][64]; /* [quick][variant index] */
  int bad;
} device_sweep;

static void note_device_point(const sb_point *p, int quick, int rc, const sb_kernels *k,
                              const char *why, void *ctx) {
  (void)k, (void)why;
  device_sweep *s = ctx;
  const unsigned f = p->variant->flags;
  if (!(f & SB_BARRIER_VF_DEVICE)) return;
  const int idx = (int)(p->variant - sb_barrier_variants.rows);
  if (idx >= 0 && idx < 64) ++s->seen[quick][idx];
  /* iters: round trips per probe for the sweep rows, what the launch queue
   * takes at once for the held rows, the family's own elsewhere */
  const long long iters = f & SB_BARRIER_VF_SWEEP  ? SB_HANDOFF_ROUNDS
                          : f & SB_BARRIER_VF_HELD ? SB_BARRIER_HELD_ITERS
                          : quick                  ? 1024
                                                   : 8192;
  if (rc != 0 || p->axis[SB_AXIS_PARTICIPANTS] != SB_PART_ALL ||
      !sb_barrier_device_block(p->axis[SB_AXIS_BLOCK]) || p->axis[SB_AXIS_ITERS] != iters ||
      ((f & SB_BARRIER_VF_PAIR) && p->axis[SB_AXIS_CONTENTION] != SB_CONT_ONE_BLOCK))
    ++s->bad;
}

SB_TEST(barrier_device_rows_run_in_both_sweeps_at_few_points) {
  device_sweep s;
  memset(&s, 0, sizeof s);
  sb_for_each_swept_kernel("barrier", note_device_point, &s);
  CHECK_EQ_INT(s.bad, 0);
  int total = 0;
  for (int i = 0; i < sb_barrier_variants.count; ++i) {
    const unsigned f = sb_barrier_variants.rows[i].flags;
    if (!(f & SB_BARRIER_VF_DEVICE)) continue;
    CHECK(s.seen[1][i] >= 1); /* every one in --quick */
    /* default: 3 block sizes x 2 contentions; flag_handoff one per SM only */
    CHECK_EQ_INT(s.seen[0][i], f & SB_BARRIER_VF_PAIR ? 3 : 6);
    total += s.seen[0][i];
  }
  CHECK(total <= 48); /* seconds of the default sweep, not minutes */
}

SB_TEST(barrier_pair_refuses_full_occupancy_when_asked_for_it) {
  /* --contention full_occupancy on the command line: the point is kept
   * and becomes a skipped row with its reason */
  sb_sweep_spec spec;
  memset(&spec, 0, sizeof spec);
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_CONTENTION, "full_occupancy", &spec.override[SB_AXIS_CONTENTION],
                             err, sizeof err), 0);
  sb_point *pts;
  long n = sb_sweep_build(&spec, &pts, err, sizeof err);
  CHECK(n > 0);
  const sb_device d = sb_test_hopper();
  int skipped = 0;
  for (long i = 0; i < n; ++i) {
    /* family bits mean something only in their families (barrier, barrier_cluster): gemm's bit 9 is another trait */
    if (strncmp(pts[i].family->name, "barrier", 7) || !(pts[i].variant->flags & SB_BARRIER_VF_PAIR)) continue;
    CHECK_EQ_INT(pts[i].axis[SB_AXIS_CONTENTION], SB_CONT_FULL);
    sb_row r;
    sb_row_init(&r, &d.prov);
    CHECK_EQ_INT(sb_point_precheck(&pts[i], &d, &r), 1);
    CHECK(strstr(r.detail, "one_block_per_sm") != NULL);
    ++skipped;
  }
  CHECK_EQ_INT(skipped, 3 * 3); /* flag_handoff, its relaxed twin, dsmem_handoff */
  if (n > 0) free(pts);
}

/* kernel_boundary_pdl: the one PDL row of the barrier families, a kernel
 * boundary like its two neighbours, sm_90 only, held like the stream row
 * (its kernels are host launches too; the graph's are one), with kernels
 * of its own. */
SB_TEST(barrier_pdl_boundary_row_has_its_traits) {
  const sb_variant *pdl = row("kernel_boundary_pdl"), *stream = row("kernel_boundary_stream"),
                   *graph = row("kernel_boundary_graph");
  CHECK(pdl != NULL && stream != NULL && graph != NULL);
  if (!pdl || !stream || !graph) return;
  const unsigned want = SB_BARRIER_VF_DEVICE | SB_BARRIER_VF_THREAD0 | SB_BARRIER_VF_HOST_TIMED |
                        SB_VF_PDL | SB_BARRIER_VF_HELD;
  CHECK_EQ_INT(pdl->flags, want);
  CHECK(stream->flags & SB_BARRIER_VF_HELD);
  CHECK_EQ_INT(graph->flags & SB_BARRIER_VF_HELD, 0);
  CHECK_EQ_INT(pdl->min_cc, 90);
  CHECK_EQ_INT(pdl->min_cc, SB_PDL_MIN_CC);
  CHECK_EQ_INT(stream->flags & SB_VF_PDL, 0);
  CHECK_EQ_INT(graph->flags & SB_VF_PDL, 0);
  CHECK_EQ_INT(stream->min_cc, 0);
  CHECK_EQ_INT(graph->min_cc, 0);
  /* its own kernels (the PDL protocol), a timed one and a counting twin */
  long long axis[SB_NUM_AXES];
  for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
  axis[SB_AXIS_BLOCK] = 1024;
  sb_kernels kp, ks;
  char why[SB_SKIP_LEN];
  CHECK_EQ_INT(pdl->pick(axis, &kp, why, sizeof why), 0);
  CHECK_EQ_INT(stream->pick(axis, &ks, why, sizeof why), 0);
  CHECK(kp.raw != ks.raw && kp.bounded != ks.bounded && kp.raw != kp.bounded);
  /* the PDL flag sits on no bit of the family's own traits or walk field */
  CHECK_EQ_INT(SB_BARRIER_WALK_OF(pdl->flags), 0);
  /* every PDL row of the three families needs sm_90 */
  const sb_variant_table *t[] = {&sb_barrier_variants, &sb_barrier_tma_variants,
                                 &sb_barrier_cluster_variants};
  int n = 0;
  for (int f = 0; f < 3; ++f)
    for (int i = 0; i < t[f]->count; ++i)
      if (t[f]->rows[i].flags & SB_VF_PDL) {
        ++n;
        CHECK(t[f]->rows[i].min_cc >= 90);
      }
  CHECK_EQ_INT(n, 1);
}

/* The A100 and the A100's code path: an sm_80 GPU never runs it, and an
 * sm_80-PTX build run on Hopper (make CUDA_ARCH=compute_80) reports it
 * `unsupported` after the query instead of launching griddepcontrol. */
SB_TEST(barrier_pdl_boundary_is_unsupported_below_sm90) {
  const sb_family *fam = sb_find_family("barrier");
  sb_point p = {fam, row("kernel_boundary_pdl"), {0}};
  CHECK(p.family != NULL && p.variant != NULL);
  if (!p.family || !p.variant) return;
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_BLOCK] = 256;
  p.axis[SB_AXIS_ITERS] = 1024;
  p.axis[SB_AXIS_PARTICIPANTS] = SB_PART_ALL;
  p.axis[SB_AXIS_CONTENTION] = SB_CONT_ONE_BLOCK;
  sb_device d = sb_test_hopper();
  sb_row r;
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &r), 0); /* Hopper: it runs */
  d.cc_major = 8;                                  /* an A100 */
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &r), 1);
  CHECK_EQ_INT(r.status, SB_UNSUPPORTED);
  CHECK(strstr(r.detail, "sm_90") != NULL);
  sb_launch L;
  memset(&L, 0, sizeof L);
  L.ptx_version = 80; /* what the query reads from a compute_80 build's kernel */
  L.binary_version = 90;
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(sb_built_below_need(p.variant, &L, &r), 1);
  CHECK_EQ_INT(r.status, SB_UNSUPPORTED);
  CHECK(strstr(r.detail, "compute_80") != NULL);
  L.ptx_version = 90; /* the sm_90a cubin: runs */
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(sb_built_below_need(p.variant, &L, &r), 0);
  /* its neighbours run anywhere */
  sb_row_init(&r, &d.prov);
  L.ptx_version = 80;
  CHECK_EQ_INT(sb_built_below_need(row("kernel_boundary_stream"), &L, &r), 0);
}

static sb_point barrier_point(const char *variant, long long block, long long iters, int cont) {
  const sb_family *f = sb_find_family("barrier");
  sb_point p = {f, row(variant), {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_BLOCK] = block;
  p.axis[SB_AXIS_ITERS] = iters;
  p.axis[SB_AXIS_PARTICIPANTS] = SB_PART_ALL;
  p.axis[SB_AXIS_CONTENTION] = cont;
  return p;
}

SB_TEST(barrier_derive_prices_hand_offs_walks_and_boundaries) {
  const sb_device d = sb_test_hopper();
  const long long iters = 4096;
  sb_row r;

  /* flag_handoff: the sweep's probes, each a round trip per loop trip, the
   * price one way; the figure is the median over probes */
  sb_point p = barrier_point("flag_handoff", 256, 32, SB_CONT_ONE_BLOCK);
  CHECK(p.family && p.variant);
  if (!p.family || !p.variant) return;
  unsigned char *out = fake_sweep(8, 32);
  sb_handoff_probe *q = (sb_handoff_probe *)sb_barrier_sweep_probes(out);
  const int probes = sb_handoff_probes(8);
  sb_row_init(&r, &d.prov);
  r.sm_clock_mhz = 2000;
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), 0);
  /* probe j one-way = (1000 + 10 j + 1002 + 10 j) / 2 / 64: the mean of 28
   * probes (j = 0..27) is probe 13.5's; so is the median here */
  CHECK_NEAR(r.cycles_per_op, (2002.0 + 20.0 * 13.5) / 2.0 / 64.0, 1e-9);
  CHECK_NEAR(r.ns_per_op, r.cycles_per_op / 2.0, 1e-9);
  CHECK(strstr(r.detail, "mean over 28 probes") != NULL);
  sb_sweep_stats st;
  q[27].cycles[0] += 64ull * 2 * 28 * 2; /* one slow probe: +56 cycles one way */
  CHECK_EQ_INT(sb_barrier_sweep_stats(out, probes, 32, &st), 0);
  CHECK_NEAR(st.mean, (2002.0 + 20.0 * 13.5) / 2.0 / 64.0 + 28.0 * 2 * 2 / 28.0 / 2.0, 1e-9);
  CHECK_NEAR(st.median, (2002.0 + 20.0 * 13.5) / 2.0 / 64.0, 1e-9); /* the median does not move */
  CHECK_EQ_INT(st.hi_probe, 27);
  CHECK_EQ_INT(st.lo_probe, 0);
  q[27].cycles[0] -= 64ull * 2 * 28 * 2;
  CHECK(strstr(r.detail, "SMs 0-1, place 0") != NULL);  /* the fastest: probe 0 */
  q[5].rounds[1] = 31; /* one round trip not proven */
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), -1);
  CHECK(strstr(r.detail, "probe 5") != NULL);
  q[5].rounds[1] = 32;
  q[probes - 1].smid[1] = q[probes - 1].smid[0]; /* both sides on one SM */
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), -1);
  CHECK(strstr(r.detail, "must cross SMs") != NULL);
  q[probes - 1].smid[1] = 7;
  q[3].cycles[0] = 0xA5A5A5A5A5A5A5A5ULL; /* a side that never timed */
  sb_row_init(&r, &d.prov);
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), -1);
  free(out);

  /* lookback_walk: the expected prefixes come from the row's seed */
  p = barrier_point("lookback_walk_256", 32, iters, SB_CONT_FULL);
  const int w = SB_BARRIER_WALK_OF(p.variant->flags);
  uint64_t *in = malloc(sb_barrier_walk_words(w) * sizeof *in);
  CHECK_EQ_INT(p.family->in_bytes(&p), sb_barrier_walk_words(w) * sizeof *in);
  p.family->make_input(&p, in, 555);
  out = fake_out(300, (uint32_t)iters, 1);
  sb_barrier_rec *rec = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
  for (int b = 0; b < 300; ++b) {
    rec[b].value = (uint32_t)iters * sb_barrier_walk_prefix(in, w, b % SB_BARRIER_WALK_COPIES);
    rec[b].cycles = 6000ull * (unsigned long long)iters;
  }
  sb_row_init(&r, &d.prov);
  r.seed = 555;
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), 0);
  CHECK_NEAR(r.cycles_per_op, 6000.0, 1e-9);
  sb_row_init(&r, &d.prov);
  r.seed = 556; /* another input: the sums no longer match */
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), -1);
  free(out);
  free(in);

  /* kernel boundary: host-timed, per boundary = median / iters; the
   * validating tally has no cycles (poisoned) and must still add up */
  p = barrier_point("kernel_boundary_graph", 256, iters, SB_CONT_ONE_BLOCK);
  out = fake_out(132, (uint32_t)iters, 1);
  rec = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
  for (int b = 0; b < 132; ++b) rec[b].cycles = 0xA5A5A5A5A5A5A5A5ULL;
  sb_row_init(&r, &d.prov);
  r.median_us = 1.25 * (double)iters; /* 1250 ns per boundary */
  r.q1_us = r.q3_us = r.median_us;
  r.sm_clock_mhz = 1980;
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), 0);
  CHECK_NEAR(r.ns_per_op, 1250.0, 1e-6);
  CHECK_NEAR(r.cycles_per_op, 2475.0, 1e-6);
  CHECK(strstr(r.detail, "host-timed") != NULL);
  rec[100].ok_min = rec[100].ok_max = (uint32_t)iters - 1; /* a boundary block 100 missed */
  sb_row_init(&r, &d.prov);
  r.median_us = 1.25 * (double)iters;
  CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), -1);
  CHECK(strstr(r.detail, "block 100") != NULL);
  rec[100].ok_min = rec[100].ok_max = (uint32_t)iters;
  CHECK_EQ_INT(sb_barrier_check_tally(out, iters, iters, 1, 0, r.detail, sizeof r.detail), 132);
  /* a timed-in-kernel row would refuse the poisoned cycles */
  CHECK_EQ_INT(sb_barrier_check_tally(out, iters, iters, 1, 1, r.detail, sizeof r.detail), -1);
  CHECK(strstr(r.detail, "PDL") == NULL);

  /* kernel_boundary_pdl: the same price, and its detail names the launches */
  p = barrier_point("kernel_boundary_pdl", 1024, iters, SB_CONT_FULL);
  CHECK(p.variant != NULL);
  if (p.variant) {
    sb_row_init(&r, &d.prov);
    r.median_us = 3.5 * (double)iters; /* 3500 ns per boundary: a host-bound stream */
    r.q1_us = 3.4 * (double)iters;
    r.q3_us = 3.6 * (double)iters;
    r.sm_clock_mhz = 1980;
    CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), 0);
    CHECK_NEAR(r.ns_per_op, 3500.0, 1e-6);
    CHECK_NEAR(r.cycles_per_op, 6930.0, 1e-6);
    CHECK(strstr(r.detail, "4096 programmatic dependent (PDL) launches of 132 blocks x 1024 threads") != NULL);
    CHECK(strstr(r.detail, "quartiles 3400.0..3600.0 ns") != NULL);
    /* a kernel that read its predecessor's tag before the wait missed a
     * boundary: the validating tally catches it */
    rec[7].ok_min = rec[7].ok_max = (uint32_t)iters - 2;
    sb_row_init(&r, &d.prov);
    r.median_us = 3.5 * (double)iters;
    CHECK_EQ_INT(p.family->derive(&p, &d, out, &r), -1);
    CHECK(strstr(r.detail, "block 7") != NULL);
  }
  free(out);
}

SB_TEST(barrier_sweep_pairs_every_sm_with_sm0_and_across_the_chip_at_distinct_places) {
  const int sizes[] = {2, 3, 8, 132, SB_HANDOFF_MAX_SMS};
  for (int i = 0; i < 5; ++i) {
    const int n = sizes[i], probes = sb_handoff_probes(n);
    CHECK(probes <= SB_HANDOFF_MAX_PROBES);
    int *with0 = calloc((size_t)n, sizeof *with0), across = 0;
    for (int j = 0; j < probes; ++j) {
      int a, b;
      sb_handoff_pair(j, n, &a, &b);
      CHECK(a >= 0 && a < n && b >= 0 && b < n && a != b);
      if (j < 2 * (n - 1)) {
        CHECK_EQ_INT(a, 0);
        ++with0[b];
      } else {
        across += a != 0 && b != 0;
      }
    }
    for (int k = 1; k < n; ++k) CHECK_EQ_INT(with0[k], 2); /* every SM with SM 0, twice */
    if (n >= 8) CHECK(across >= 2 * (n - 1) - 4); /* the rest pairs SMs across the chip */
    free(with0);
  }
  /* places: inside the area, on their own 512 bytes (four 128-byte lines),
   * consecutive probes on different 2 MiB pages, and no two probes share one */
  size_t *seen = malloc(SB_HANDOFF_MAX_PROBES * sizeof *seen);
  for (int j = 0; j < SB_HANDOFF_MAX_PROBES; ++j) {
    const size_t o = sb_handoff_place(j);
    CHECK(o % 128 == 0 && o + 512 <= SB_HANDOFF_AREA_BYTES);
    CHECK(o / SB_HANDOFF_PAGE == (size_t)j % SB_HANDOFF_PAGES);
    seen[j] = o;
  }
  int clashes = 0;
  for (int j = 0; j < 4 * 131; ++j) /* the H200's sweep: every place its own */
    for (int i = 0; i < j; ++i) clashes += seen[i] / 512 == seen[j] / 512;
  CHECK_EQ_INT(clashes, 0);
  free(seen);
  CHECK(SB_HANDOFF_AREA_OFFSET >= SB_HANDOFF_PROBE_OFFSET + SB_HANDOFF_MAX_PROBES * sizeof(sb_handoff_probe));
}

/* barrier_tma is priced at each place on its own (SB_FF_PRICE_PER_PLACE):
 * place_price reads one place's records as derive does (the 90th
 * percentile over blocks at full occupancy, the trimmed mean at one block
 * per SM), and a block whose record still holds the runner's poison, or an
 * output with no header, gives no price rather than a figure. */
SB_TEST(barrier_tma_prices_each_place_from_its_own_records) {
  const sb_family *f = sb_find_family("barrier_tma");
  CHECK(f && (f->flags & SB_FF_PRICE_PER_PLACE) && f->place_price);
  if (!f || !f->place_price) return;
  sb_point p = {f, row("tma_roundtrip"), {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_BLOCK] = 32;
  p.axis[SB_AXIS_BUFFER_BYTES] = 16384;
  p.axis[SB_AXIS_ITERS] = 10;
  const uint32_t blocks = 40;
  unsigned char *out = fake_out(blocks, 10, 1); /* block b: 1000 (b + 1) cycles */
  const long long ops = 10 * sb_barrier_ops_per_iter(p.variant->flags);
  double price = -1, want, lo, hi;
  for (int cont = SB_CONT_ONE_BLOCK; cont <= SB_CONT_FULL; ++cont) {
    p.axis[SB_AXIS_CONTENTION] = cont;
    CHECK_EQ_INT(f->place_price(&p, out, &price), 0);
    sb_barrier_cycles(out, blocks, ops, cont == SB_CONT_FULL, &want, &lo, &hi, NULL);
    CHECK_NEAR(price, want, 1e-9);
  }
  /* the 90th percentile of 1000..40000 / ops: rank 35.1 of 0..39 */
  CHECK_NEAR(price, (36000.0 + 0.1 * 1000.0) / (double)ops, 1e-9);
  sb_barrier_rec *r = (sb_barrier_rec *)((sb_barrier_head *)out + 1);
  r[17].cycles = 0xA5A5A5A5A5A5A5A5ULL; /* no launch at this place recorded block 17 */
  CHECK_EQ_INT(f->place_price(&p, out, &price), -1);
  r[17].cycles = 18000;
  CHECK_EQ_INT(f->place_price(&p, out, &price), 0);
  ((sb_barrier_head *)out)->magic = 0xA5A5A5A5u; /* the header still poisoned */
  CHECK_EQ_INT(f->place_price(&p, out, &price), -1);
  free(out);
}
