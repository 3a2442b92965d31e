/* GEMM family: host side. Kernels, launchers and the cuBLAS ceiling:
 * kernels/gemm/gemm.cu; layout and tiles: kernels/gemm/gemm_tiles.h; docs/gemm.md.
 *
 * C (M x N, fp32, row-major) = A (M x K, fp16, row-major) * B (K x N, fp16,
 * column-major), N = M. Inputs are random in [-1, 1) rounded to fp16 on the
 * host; the check compares a sample of C (every point) or all of it (the
 * smallest shapes) with a double-precision dot product of the fp16 inputs,
 * within a tolerance derived below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/parallel.h"
#include "../harness/random.h"
#include "../kernels/gemm/gemm_tiles.h"
#include "families.h"
#include "registry.h"

extern const sb_variant_table sb_gemm_variants; /* kernels/gemm/gemm.cu */

/* ---- fp16 on the host ---- */

/* Round to nearest, ties to even; overflow to infinity; NaN stays NaN. */
uint16_t sb_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u;       /* NaN: a quiet NaN */
  if (ax >= 0x477ff000u) return sign | 0x7c00u;      /* >= 65520 rounds to inf */
  if (ax < 0x38800000u) {                            /* below 2^-14: subnormal */
    float a;
    memcpy(&a, &ax, sizeof a);
    /* a * 2^24 is exact and < 2^10; rintf rounds half to even. 1024 is the
     * smallest normal's encoding, so a carry out is still right. */
    return sign | (uint16_t)rintf(a * 16777216.0f);
  }
  /* Normal: drop 13 mantissa bits, rounding half to even, and rebias the
   * exponent (127 -> 15); a carry into the exponent is the right result. */
  const uint32_t r = (ax + 0x0fffu + ((ax >> 13) & 1u)) >> 13;
  return sign | (uint16_t)(r - (112u << 10));
}

float sb_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t x;
  if (e == 0) { /* zero or subnormal: m * 2^-24, exact in float */
    float v = ldexpf((float)m, -24);
    memcpy(&x, &v, sizeof x);
    x |= sign;
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

/* Every fp16 value as a float: the reference's conversion table. */
static float f16_table[65536];
static void init_f16_table(void) {
  static int done;
  if (done) return;
  for (uint32_t h = 0; h < 65536; ++h) f16_table[h] = sb_f16_to_f32((uint16_t)h);
  done = 1;
}

/* ---- tolerance ----
 *
 * Each element of C is a sum of K products a_k * b_k of fp16 values. A
 * product of two fp16 (11-bit significands) has at most 22 significant bits,
 * so it is exact in fp32 (and in double); all the error is in the fp32
 * additions. Whatever the order of the additions, if every product passes
 * through at most d roundings of relative size u, then (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., eq. 3.5, to first order)
 *
 *     |C_computed - C_exact| <= d * u * sum_k |a_k * b_k|.
 *
 * u = 2^-23: the tensor cores align and truncate rather than round to
 * nearest (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA
 * tensor cores", PeerJ CS 2021), so one step can lose a full ulp, twice
 * RNE's 2^-24. d: the kernels accumulate K/16 mma steps per output (each
 * m16n8k16 or wgmma k16 step one fused add into the fp32 accumulator); the
 * tensor core's alignment of the 16 products and its final normalization are
 * up to 2 more truncations per step, and a wgmma may split k16 into two k8
 * halves: 4 * K/16 = K/4. A library may add a split-K reduction: + 64.
 *
 *     tol = (K/4 + 64) * 2^-23 * sum_k |a_k * b_k|
 *
 * The double reference's own error (K * 2^-53 * sum) is below this by 2^28.
 * This is a worst case: random data lands far inside it (errors of a random
 * sign grow like sqrt(d)), while a wrong element (another row or column, a
 * missing or repeated k-tile, poison) is off by the size of whole products:
 * at K = 1024 the bound is 0.03 * mean|C| scale, a dropped k-tile of 64
 * products ~2.7 (tests/c/test_gemm.c checks both sides). */
double sb_gemm_tolerance(long long k, double abs_dot) {
  return ((double)k / 4.0 + 64.0) * 0x1p-23 * abs_dot;
}

/* ---- which elements are checked ----
 *
 * The four corners, the whole last row and last column (ragged-edge and
 * indexing bugs), one element at a pseudo-random place in every 64 x 64
 * block of C (every warp tile of every block tile, hence every block and
 * every consumer warp), and 4096 more pseudo-random elements. Indices into
 * C (row * n + col); duplicates are harmless. The pseudo-random places come
 * from the salt, a hash of the whole shape, the input's seed and which
 * check reads them: the validation, the timed recheck and the dirty
 * workspace's validation each read other places. */
size_t sb_gemm_sample_count(long long m, long long n) {
  const long long blocks = ((m + 63) / 64) * ((n + 63) / 64);
  return (size_t)(4 + n + m + blocks + 4096);
}

size_t sb_gemm_sample_set(long long m, long long n, uint64_t salt, long long *idx) {
  size_t c = 0;
  idx[c++] = 0;
  idx[c++] = n - 1;
  idx[c++] = (m - 1) * n;
  idx[c++] = m * n - 1;
  for (long long j = 0; j < n; ++j) idx[c++] = (m - 1) * n + j;
  for (long long i = 0; i < m; ++i) idx[c++] = i * n + n - 1;
  uint64_t s = salt;
  for (long long bi = 0; bi < m; bi += 64)
    for (long long bj = 0; bj < n; bj += 64) {
      s = sb_splitmix64(s);
      const long long h = m - bi < 64 ? m - bi : 64, w = n - bj < 64 ? n - bj : 64;
      idx[c++] = (bi + (long long)(s % (uint64_t)h)) * n + bj + (long long)((s >> 32) % (uint64_t)w);
    }
  for (int r = 0; r < 4096; ++r) {
    s = sb_splitmix64(s);
    idx[c++] = (long long)(s % (uint64_t)(m * n));
  }
  return c;
}

uint64_t sb_gemm_sample_salt(long long m, long long n, long long k, uint64_t seed, int pass) {
  uint64_t s = sb_splitmix64(seed);
  const uint64_t parts[] = {(uint64_t)m, (uint64_t)n, (uint64_t)k, (uint64_t)pass};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) s = sb_splitmix64(s ^ parts[i]);
  return s;
}

/* ---- CPU reference ---- */

/* C[i][j] = sum_k A[i][k] * B[k][j] in double; abs: sum_k |A[i][k] B[k][j]|,
 * from A's row and B's column (both K contiguous values) converted to float,
 * which is exact for fp16. Four partial sums (the products of fp16 values
 * are exact in double; the sums' order moves the result by ~K * 2^-53 * abs,
 * far below the tolerance): one running sum would wait on each add. */
static void dot_f32(const float *ar, const float *bc, long long k, double *dot,
                    double *abs_dot) {
  double s[4] = {0, 0, 0, 0}, sa[4] = {0, 0, 0, 0};
  long long t = 0;
  for (; t + 4 <= k; t += 4)
    for (int u = 0; u < 4; ++u) {
      const double p = (double)ar[t + u] * (double)bc[t + u];
      s[u] += p;
      sa[u] += fabs(p);
    }
  for (; t < k; ++t) {
    const double p = (double)ar[t] * (double)bc[t];
    s[0] += p;
    sa[0] += fabs(p);
  }
  *dot = (s[0] + s[1]) + (s[2] + s[3]);
  *abs_dot = (sa[0] + sa[1]) + (sa[2] + sa[3]);
}

static void f16_row_to_f32(const uint16_t *h, long long k, float *f) {
  for (long long t = 0; t < k; ++t) f[t] = f16_table[h[t]];
}

/* One element, for the error message and the tests: converts its row and
 * column first (returns NaN when out of memory). */
void sb_gemm_reference_at(const uint16_t *a, const uint16_t *b, long long n, long long k,
                          long long row, long long col, double *dot, double *abs_dot) {
  init_f16_table();
  (void)n;
  float *ar = malloc(2 * (size_t)k * sizeof *ar);
  if (!ar) {
    *dot = *abs_dot = NAN;
    return;
  }
  f16_row_to_f32(a + row * k, k, ar);
  f16_row_to_f32(b + col * k, k, ar + k);
  dot_f32(ar, ar + k, k, dot, abs_dot);
  free(ar);
}

typedef struct f16_job {
  const uint16_t *h;
  float *f;
  long long k;
} f16_job;

static void convert_rows(void *p, size_t begin, size_t end) {
  const f16_job *j = p;
  for (size_t r = begin; r < end; ++r) f16_row_to_f32(j->h + r * j->k, j->k, j->f + r * j->k);
}

typedef struct check_job {
  const uint16_t *a, *b;
  const float *c;
  long long m, n, k;
  const long long *idx; /* NULL: every element */
  const float *bf;       /* B converted, for the full check; else NULL */
  /* Per worker chunk: results merged under no lock, one slot per chunk. */
  size_t *bad;
  long long *first;
  size_t grain;
} check_job;

/* Elements [begin, end) of the check. The table lookups cost more than the
 * products, and the full check of a 1024^3 product is 2^30 of them per
 * point: there B comes converted (j->bf) and consecutive elements share a
 * row of A, converted once. A sampled element converts its column. */
static void check_range(void *p, size_t begin, size_t end) {
  const check_job *j = p;
  size_t bad = 0;
  long long first = -1, row_in_buf = -1;
  float *ar = malloc(2 * (size_t)j->k * sizeof *ar), *bc = ar ? ar + j->k : NULL;
  for (size_t s = begin; s < end && ar; ++s) {
    const long long e = j->idx ? j->idx[s] : (long long)s, row = e / j->n;
    if (row != row_in_buf) f16_row_to_f32(j->a + row * j->k, j->k, ar);
    row_in_buf = row;
    const long long col = e % j->n;
    if (!j->bf) f16_row_to_f32(j->b + col * j->k, j->k, bc);
    double want, abs_dot;
    dot_f32(ar, j->bf ? j->bf + col * j->k : bc, j->k, &want, &abs_dot);
    const double err = fabs((double)j->c[e] - want);
    if (!(err <= sb_gemm_tolerance(j->k, abs_dot)) && bad++ == 0) first = e;
  }
  if (!ar) bad = (size_t)-1; /* out of memory: no verdict */
  free(ar);
  j->bad[begin / j->grain] = bad;
  j->first[begin / j->grain] = first;
}

size_t sb_gemm_check(const uint16_t *a, const uint16_t *b, const float *c, long long m, long long n,
                     long long k, const long long *idx, size_t count, long long *first) {
  init_f16_table();
  const size_t grain = 64;
  const size_t chunks = (count + grain - 1) / grain;
  size_t *bad = calloc(chunks ? chunks : 1, sizeof *bad);
  long long *firsts = malloc((chunks ? chunks : 1) * sizeof *firsts);
  *first = -1;
  if (!bad || !firsts) {
    free(bad);
    free(firsts);
    return (size_t)-1;
  }
  float *bf = idx ? NULL : malloc((size_t)(n * k) * sizeof *bf);
  if (bf) {
    f16_job conv = {b, bf, k};
    sb_parallel_for((size_t)n, 16, convert_rows, &conv);
  }
  check_job j = {a, b, c, m, n, k, idx, bf, bad, firsts, grain};
  sb_parallel_for(count, grain, check_range, &j);
  size_t total = 0;
  for (size_t i = 0; i < chunks && total != (size_t)-1; ++i) {
    if (bad[i] == (size_t)-1) total = (size_t)-1;
    else {
      if (bad[i] && *first < 0) *first = firsts[i];
      total += bad[i];
    }
  }
  free(bf);
  free(bad);
  free(firsts);
  return total;
}

/* ---- the points the family sweeps ---- */

static int is_cublas(const sb_point *p) { return (p->variant->flags & SB_VF_NO_KERNEL) != 0; }

#define AXIS_BIT(a) (1ULL << SB_AXIS_##a)

const char *sb_gemm_shape_refusal(long long m, long long n, long long k, char *buf, size_t len) {
  if (m >= 1 && n >= 1 && k >= 1 && k % SB_GEMM_K_MULTIPLE == 0 && n % SB_GEMM_N_MULTIPLE == 0) return NULL;
  snprintf(buf, len,
           "gemm: m=%lld, n=%lld, k=%lld is outside the shapes it runs: K a multiple of %d and N a multiple of %d "
           "(16-byte rows: A and B hold K fp16 a row, C N fp32), any M >= 1",
           m, n, k, SB_GEMM_K_MULTIPLE, SB_GEMM_N_MULTIPLE);
  return buf;
}

/* ---- what the kernels compile: asked of them ----
 *
 * kernels/gemm/gemm.cu states once, by each variant's composition, the
 * tiles, consumer warps, stage counts and cluster shapes it compiles; its
 * pickers dispatch over exactly those. The host asks the picker (no GPU, no
 * launch: a picker only names kernels) instead of restating any of it. */
#define GEMM_CACHE_ROWS 64
int sb_gemm_compiled(const sb_variant *v, int tile, sb_gemm_compiled_info *out) {
  static const sb_variant *rows[GEMM_CACHE_ROWS];
  static sb_gemm_compiled_info cache[GEMM_CACHE_ROWS][SB_GEMM_NUM_TILES];
  memset(out, 0, sizeof *out);
  if (!v->pick || tile < 0 || tile >= SB_GEMM_NUM_TILES) return 0;
  int slot = -1;
  for (int i = 0; i < GEMM_CACHE_ROWS && slot < 0; ++i)
    if (rows[i] == v) slot = i;
  if (slot >= 0) {
    *out = cache[slot][tile];
    return out->warps != 0;
  }
  sb_gemm_compiled_info info[SB_GEMM_NUM_TILES];
  memset(info, 0, sizeof info);
  for (int t = 0; t < SB_GEMM_NUM_TILES; ++t)
    for (int c = -1; c < SB_GEMM_NUM_CLUSTER_SHAPES; ++c) /* -1: no cluster shape */
      for (int w = 4; w <= 8; w += 4)
        for (int st = 1; st <= SB_GEMM_MAX_STAGES; ++st) {
          long long axis[SB_NUM_AXES];
          for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
          axis[SB_AXIS_TILE] = t, axis[SB_AXIS_WARPS] = w, axis[SB_AXIS_STAGES] = st;
          axis[SB_AXIS_CLUSTER_SHAPE] = c < 0 ? SB_AXIS_UNSET : c;
          sb_kernels k;
          char why[SB_SKIP_LEN];
          if (v->pick(axis, &k, why, sizeof why) != 0) continue;
          info[t].warps = w;
          info[t].stages |= 1u << st;
          if (c >= 0) info[t].clusters |= 1u << c;
        }
  /* a variant compiled without a cluster shape has none: every shape "took" it */
  for (int t = 0; t < SB_GEMM_NUM_TILES; ++t)
    if (info[t].clusters == (1u << SB_GEMM_NUM_CLUSTER_SHAPES) - 1u) {
      long long axis[SB_NUM_AXES];
      for (int a = 0; a < SB_NUM_AXES; ++a) axis[a] = SB_AXIS_UNSET;
      axis[SB_AXIS_TILE] = t, axis[SB_AXIS_WARPS] = info[t].warps;
      for (int st = 1; st <= SB_GEMM_MAX_STAGES; ++st)
        if (info[t].stages >> st & 1u) axis[SB_AXIS_STAGES] = st;
      sb_kernels k;
      char why[SB_SKIP_LEN];
      if (v->pick(axis, &k, why, sizeof why) == 0) info[t].clusters = 0;
    }
  for (int i = 0; i < GEMM_CACHE_ROWS; ++i)
    if (!rows[i]) {
      rows[i] = v;
      memcpy(cache[i], info, sizeof info);
      break;
    }
  *out = info[tile];
  return out->warps != 0;
}

/* "2-6", "3-4", "8", "1": the stage counts of a bit set, as ranges. */
static void stages_str(unsigned stages, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int s = 1; s <= SB_GEMM_MAX_STAGES && at < len; ++s) {
    if (!(stages >> s & 1u) || (stages >> (s - 1) & 1u)) continue;
    int e = s;
    while (e < SB_GEMM_MAX_STAGES && (stages >> (e + 1) & 1u)) ++e;
    at += (size_t)(e > s ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", s, e)
                         : snprintf(buf + at, len - at, "%s%d", at ? "," : "", s));
  }
}

/* Why a kernel variant cannot take the point, or NULL: the first rule it
 * breaks. *unasked (may be NULL) is set when some broken rule reads none of
 * the axes in user_axes: a combination the default grid produced, not one
 * the user asked for. What is compiled is the kernels' answer
 * (sb_gemm_compiled); the rules here are the shape, the schedule's own
 * limits and the device's shared memory. */
static const char *gemm_reason(const sb_point *p, size_t smem_limit, char *buf, size_t len,
                               unsigned long long user_axes, int *unasked) {
  const long long m = p->axis[SB_AXIS_M], n = sb_gemm_cols(p->axis), k = p->axis[SB_AXIS_K];
  const char *first = NULL;
  if (unasked) *unasked = 0;
  if (is_cublas(p)) return NULL;
  const int t = (int)p->axis[SB_AXIS_TILE];
  const int bm = sb_gemm_tile_bm(t), bn = sb_gemm_tile_bn(t);
  const long long s = p->axis[SB_AXIS_STAGES], w = p->axis[SB_AXIS_WARPS];
  const unsigned f = p->variant->flags;
  const char *name = p->variant->name;
  sb_gemm_compiled_info c;
  const int compiled = sb_gemm_compiled(p->variant, t, &c);
#define BROKEN(axes, ...)                                          \
  do {                                                             \
    if (unasked && !((axes) & user_axes)) *unasked = 1;            \
    if (!first) first = buf, snprintf(buf, len, __VA_ARGS__);      \
  } while (0)
  char shape[SB_DETAIL_LEN];
  if (sb_gemm_shape_refusal(m, n, k, shape, sizeof shape))
    BROKEN(AXIS_BIT(M) | AXIS_BIT(N) | AXIS_BIT(K), "%s", shape);
  if (!compiled) {
    char tiles[128] = "";
    for (int o = 0, at = 0; o < SB_GEMM_NUM_TILES; ++o) {
      sb_gemm_compiled_info other;
      if (sb_gemm_compiled(p->variant, o, &other))
        at += snprintf(tiles + at, sizeof tiles - (size_t)at, "%s%dx%dx%d", at ? ", " : "", sb_gemm_tile_bm(o),
                       sb_gemm_tile_bn(o), SB_GEMM_BK);
    }
    BROKEN(AXIS_BIT(TILE), "%s has no kernel at a %dx%d tile (compiled: %s)", name, bm, bn, tiles);
  } else if (w != c.warps) {
    BROKEN(AXIS_BIT(WARPS) | AXIS_BIT(TILE), "consumer_warps=%lld: %s has %d at a %dx%d tile", w, name, c.warps, bm,
           bn);
  }
  const long long tiles = sb_gemm_tile_count(t, m, n), kts = sb_gemm_k_tiles(k);
  if ((f & SB_VF_GEMM_STREAMK) && tiles * kts > SB_GEMM_SK_MAX_ITERS)
    BROKEN(AXIS_BIT(M) | AXIS_BIT(N) | AXIS_BIT(K) | AXIS_BIT(TILE),
           "%s: tiles x k-tiles = %lld exceeds %d (the schedule's 32-bit arithmetic)", name, tiles * kts,
           SB_GEMM_SK_MAX_ITERS);
  if (f & SB_VF_GEMM_SPLIT) {
    const long long sp = p->axis[SB_AXIS_SPLITS]; /* auto: sb_gemm_auto_splits keeps the rule */
    if (sp == SB_AXIS_UNSET || (sp != SB_AXIS_AUTO && (sp < 1 || sp > kts)))
      BROKEN(AXIS_BIT(SPLITS) | AXIS_BIT(K),
             "splits=%lld: each K slice needs at least one %d-wide k-tile (k=%lld: %lld k-tiles)", sp, SB_GEMM_BK, k,
             kts);
  }
  /* Multicast: clusters of CM x CN tiles; where the tile count along a side
   * is not a multiple of it, the edge cluster's last tiles lie past C (their
   * loads are TMA's zeros, their stores clipped): any shape runs. */
  const long long cs = p->axis[SB_AXIS_CLUSTER_SHAPE];
  if (compiled && c.clusters && (cs < 0 || cs >= SB_GEMM_NUM_CLUSTER_SHAPES || !(c.clusters >> cs & 1u))) {
    char shapes[64] = "";
    for (int o = 0, at = 0; o < SB_GEMM_NUM_CLUSTER_SHAPES; ++o)
      if (c.clusters >> o & 1u)
        at += snprintf(shapes + at, sizeof shapes - (size_t)at, "%s%dx%d", at ? ", " : "", sb_gemm_cluster_m(o),
                       sb_gemm_cluster_n(o));
    BROKEN(AXIS_BIT(CLUSTER_SHAPE), "%s at a %dx%d tile needs cluster_shape %s", name, bm, bn, shapes);
  }
  /* The stages' bytes, and the TMA-store epilogue's staging after them (two
   * 16x32 fp32 pieces per consumer warp). */
  const long long staging = (f & SB_VF_GEMM_TMA_STORE) ? (long long)(compiled ? c.warps : sb_gemm_tile_warps(t)) * 2 * 16 * 32 * 4 : 0;
  const long long smem = s * sb_gemm_stage_bytes(t) + staging + SB_GEMM_ALIGN_SLACK;
  if ((size_t)smem > smem_limit)
    BROKEN(AXIS_BIT(STAGES) | AXIS_BIT(TILE),
           "stages x stage bytes = %lld x %lld (+ %lld C staging + %d alignment) exceeds the %zu B of shared memory "
           "a block may use", s, sb_gemm_stage_bytes(t), staging, SB_GEMM_ALIGN_SLACK, smem_limit);
  /* After the memory rule: where both apply (7 of 128x128 fits 227 KiB but
   * has no kernel; 5 of 128x256 neither), that one. */
  if (compiled && (s < 1 || s > SB_GEMM_MAX_STAGES || !(c.stages >> s & 1u))) {
    char list[64];
    stages_str(c.stages, list, sizeof list);
    BROKEN(AXIS_BIT(STAGES) | AXIS_BIT(TILE), "stages=%lld: %s is compiled with stages %s at a %dx%d tile", s, name,
           list, bm, bn);
  }
#undef BROKEN
  return first;
}

static const char *gemm_check(const sb_point *p, const sb_device *d, char *buf, size_t len) {
  return gemm_reason(p, d->smem_per_block_optin, buf, len, 0, NULL);
}

/* The shape rule, for every row the sweep selects, cuBLAS's too: one
 * refusal for the whole command line, not a skipped row per variant. */
static const char *gemm_refuse(const sb_point *p, char *buf, size_t len) {
  return sb_gemm_shape_refusal(p->axis[SB_AXIS_M], sb_gemm_cols(p->axis), p->axis[SB_AXIS_K], buf, len);
}

/* Is (m, k) a shape of the default grid? The squares up to 4096 (1000^3
 * among them: the shape a user asks about, partial tiles at every edge) and
 * K-heavy 1024 x 16384 for every variant; 8192^3 and 512 x 512 x 32768
 * (M*N smaller still) only for cuBLAS, ws_tma_wgmma and the variants built
 * on its mainloop, whose question they are (split-K only at the K-heavy
 * shapes; stream-K at all). The mma.sync variants answer the staging
 * question up to 4096^3 (52-65% of cuBLAS at 8192^3 as at 4096^3, H100,
 * 4152772): their 26 points at 8192^3 were 5% of the 5-minute sweep. */
/* The variants on ws_tma_wgmma's mainloop (every one but the mma.sync
 * staging variants single .. ws_tma and cuBLAS): their composition's
 * consumer is wgmma warpgroups (wgmma, wgmma_pingpong). */
static int on_wgmma(const sb_variant *v) {
  return v->composition.consumer && !strncmp(v->composition.consumer, "wgmma", 5);
}

static int default_shape(const sb_point *p, long long m, long long k) {
  const unsigned f = p->variant->flags;
  const int wgmma_question = is_cublas(p) || on_wgmma(p->variant);
  if ((m == k && m < 8192) || (m == 1024 && k == 16384)) return 1;
  if (m == 8192 && k == 8192) return wgmma_question;
  const int split_question = is_cublas(p) || (f & (SB_VF_GEMM_SPLIT | SB_VF_GEMM_STREAMK | SB_VF_GEMM_WGMMA_TILE));
  return m == 512 && k == 32768 && split_question;
}

/* The default grid's tiles, stages and cluster shapes: at each shape the
 * ones that can win there, and every one where a question is asked of them
 * (the 4096^3 stages table and heatmap); each rule gives way where the user
 * named its axis (--tile, --stages, --cluster-shape, --splits ask for any
 * compiled one). What the rules left out was measured first (H100,
 * results/h100-80gb-hbm3/proofs/tiles_9249a8b):
 *  - the mma.sync staging variants (single .. ws_tma): every tile and stage
 *    count at 4096^3; elsewhere one stage count per tile (128x128: 4,
 *    128x256: 3; single's 1, swap's 2), within 2 points of their best;
 *  - the wgmma variants: 64x128 and 128x128 where M = N <= 1024 (at 1024^3
 *    the 128 tiles of 64x128 fill the SMs, 32 of 128x256 leave 100 idle),
 *    128x128 and 128x256 above; ws_tma_wgmma every compiled tile that fits and stage
 *    count at 4096^3; elsewhere stages 5-6 of 128x128 and 3-4 of 128x256
 *    (ws_tma_wgmma's best; the others were 2-10 points lower), 8 of 64x128
 *    (7 of 128x96, which fits none of the default shapes);
 *  - multicast at 4 stages of 128x256 (3 measured 2-6 points lower) and 8
 *    of 64x128, never 128x128 (65-85% of cuBLAS where 128x256 took 93-100%,
 *    proofs/persistent_multicast_f8b7c70);
 *  - ping-pong (128x128 only) from 2048^2 on: at 1024 x 1024 its 64 tiles
 *    leave one warpgroup of each block idle; at 2 and 3 stages it measured
 *    44-73% of cuBLAS where 4-6 took 86-94% (proofs/first_run_aee9a22);
 *    its clusters 2x1 (1x2 measured 1-5 points lower);
 *  - the split variants: 64x128 (and 128x96) at splits=auto only. */
static int tile_fits(int t, long long m, long long n) {
  return m % sb_gemm_tile_bm(t) == 0 && n % sb_gemm_tile_bn(t) == 0;
}

static int default_config(const sb_point *p, long long m, long long k, unsigned long long user_axes) {
  const unsigned f = p->variant->flags;
  const int t = (int)p->axis[SB_AXIS_TILE];
  const long long s = p->axis[SB_AXIS_STAGES];
  if (user_axes & SB_QUICK_GRID) return 1; /* --quick's few points, picked by hand */
  const int tile_free = !(user_axes & AXIS_BIT(TILE)), stages_free = !(user_axes & AXIS_BIT(STAGES));
  const int table = m == 4096 && k == 4096;
  /* Every tile runs every shape (partial tiles at the edges); 128x96, the
   * tile of shapes that are whole 96s where 128-wide tiles fall short of a
   * wave, is a point only where it fits the shape whole (1152, not 1000 or
   * 1024), unless the user names it. */
  const long long n = sb_gemm_cols(p->axis);
  if (tile_free && t == SB_GEMM_TILE_128X96 && !tile_fits(t, m, n)) return 0;
  if (!on_wgmma(p->variant)) {
    if (table || !stages_free || (f & (SB_VF_GEMM_ONE_STAGE | SB_VF_GEMM_TWO_STAGES))) return 1;
    return s == (t == SB_GEMM_TILE_128X256 ? 3 : 4);
  }
  /* A one-warpgroup tile the user named without --stages: its one compiled
   * count, not a skipped row for each of the others (the mma.sync variants
   * keep their one stage count, above, and its row that says why not). */
  sb_gemm_compiled_info c;
  if (stages_free && sb_gemm_tile_wgmma_only(t) && sb_gemm_compiled(p->variant, t, &c) && !(c.stages >> s & 1u))
    return 0;
  if ((f & SB_VF_GEMM_SPLIT) && sb_gemm_tile_wgmma_only(t) && !(user_axes & AXIS_BIT(SPLITS)) &&
      p->axis[SB_AXIS_SPLITS] != SB_AXIS_AUTO)
    return 0;
  if (table && (f & SB_VF_GEMM_WGMMA_TILE)) return 1;
  const int small = m <= 1024;
  if (tile_free && t == (small ? SB_GEMM_TILE_128X256 : SB_GEMM_TILE_64X128)) return 0;
  if ((f & SB_VF_GEMM_MULTICAST) && !(f & SB_VF_GEMM_PINGPONG) && tile_free && t == SB_GEMM_TILE_128X128) return 0;
  /* A persistent multicast grid has something to persist over from 2048^2
   * on; at 1024 x 1024 it keeps the square (--quick's shape), not 1024 x 16384. */
  if ((f & SB_VF_GEMM_PERSISTENT) && !(user_axes & (AXIS_BIT(M) | AXIS_BIT(K))) && m != k) return 0;
  if (f & SB_VF_GEMM_PINGPONG) {
    if (small && !(user_axes & (AXIS_BIT(M) | AXIS_BIT(K)))) return 0;
    if ((f & SB_VF_GEMM_MULTICAST) && !(user_axes & AXIS_BIT(CLUSTER_SHAPE)) &&
        p->axis[SB_AXIS_CLUSTER_SHAPE] != SB_GEMM_CLUSTER_2X1)
      return 0;
  }
  if (!stages_free) return 1;
  if (t == SB_GEMM_TILE_128X256) return (f & SB_VF_GEMM_MULTICAST) && !(f & SB_VF_GEMM_PINGPONG) ? s == 4 : s == 3 || s == 4;
  if (t == SB_GEMM_TILE_128X128) return s == 5 || s == 6;
  return 1; /* 64x128, 128x96: their one compiled count (gemm_reason) */
}

/* The default grid: square shapes plus the K-heavy shapes (default_shape);
 * of stages, tiles and warps only what each variant can take (an H100's
 * 227 KiB of shared memory). A combination that breaks a rule is dropped
 * unless every rule it breaks reads an axis the user gave (then check()
 * makes it a skipped row with the reason). buffer_bytes is derived (one
 * stage's bytes); cuBLAS picks its own tiles, so it has only the shape. */
int sb_gemm_in_sweep(sb_point *p, unsigned long long user_axes) {
  const long long m = p->axis[SB_AXIS_M], k = p->axis[SB_AXIS_K];
  if (!(user_axes & (AXIS_BIT(M) | AXIS_BIT(K))) && !default_shape(p, m, k)) return 0;
  /* N = M (square C, derived, so the CSV's n is filled) unless --n is given
   * together with --m: n alone is other families' element count. */
  if ((user_axes & (AXIS_BIT(M) | AXIS_BIT(N))) != (AXIS_BIT(M) | AXIS_BIT(N)) || p->axis[SB_AXIS_N] <= 0)
    p->axis[SB_AXIS_N] = m;
  if (!(p->variant->flags & SB_VF_GEMM_MULTICAST))
    p->axis[SB_AXIS_CLUSTER_SHAPE] = SB_AXIS_UNSET; /* only the multicast variant has clusters */
  if (!(p->variant->flags & SB_VF_GEMM_SPLIT)) {
    p->axis[SB_AXIS_SPLITS] = SB_AXIS_UNSET; /* one point per shape, not per splits value */
  } else if (!(user_axes & (AXIS_BIT(M) | AXIS_BIT(K))) && m == k) {
    return 0; /* split-K is the K-heavy shapes' answer (stream-K would take the squares) */
  } else if ((p->variant->flags & SB_VF_GEMM_COOPERATIVE) && !(user_axes & AXIS_BIT(SPLITS)) &&
             p->axis[SB_AXIS_SPLITS] != SB_AXIS_AUTO) {
    /* splitk_cooperative at splits=auto only (--splits asks for the others:
     * its grid must be resident, and at 1024^2 x 16384 four slices are not).
     * splitk_cluster runs every default count, as the other split variants
     * do: the count is its cluster's size (2, 4, 8 CTAs summing in
     * distributed shared memory), and at auto alone its 4 points were too
     * few for the gate's whole-variant rule (docs/history.md). */
    return 0;
  }
  if (is_cublas(p)) {
    p->axis[SB_AXIS_STAGES] = p->axis[SB_AXIS_TILE] = p->axis[SB_AXIS_WARPS] = SB_AXIS_UNSET;
    p->axis[SB_AXIS_BUFFER_BYTES] = SB_AXIS_UNSET;
    return 1;
  }
  p->axis[SB_AXIS_BUFFER_BYTES] = sb_gemm_stage_bytes((int)p->axis[SB_AXIS_TILE]);
  if (!default_config(p, m, k, user_axes)) return 0;
  char why[SB_DETAIL_LEN];
  int unasked;
  gemm_reason(p, 227 * 1024, why, sizeof why, user_axes, &unasked);
  return !unasked;
}

/* ---- family hooks ---- */

static size_t gemm_in_bytes(const sb_point *p) {
  const long long m = p->axis[SB_AXIS_M], n = sb_gemm_cols(p->axis), k = p->axis[SB_AXIS_K];
  return (size_t)((m + n) * k) * sizeof(uint16_t); /* A (m x k), then B (n x k) */
}

static size_t gemm_out_bytes(const sb_point *p) {
  return (size_t)(p->axis[SB_AXIS_M] * sb_gemm_cols(p->axis)) * sizeof(float);
}

static long long gemm_flops(const sb_point *p) {
  return 2 * p->axis[SB_AXIS_M] * sb_gemm_cols(p->axis) * p->axis[SB_AXIS_K];
}

typedef struct fill_job {
  uint16_t *dst;
  uint64_t seed;
} fill_job;

static void fill_f16(void *p, size_t begin, size_t end) {
  const fill_job *j = p;
  for (size_t i = begin; i < end; ++i) {
    const uint32_t bits = (uint32_t)(sb_splitmix64(j->seed ^ (i * 0xD1B54A32D192ED03ULL)) >> 40);
    j->dst[i] = sb_f32_to_f16(-1.0f + 2.0f * ((float)bits * (1.0f / 16777216.0f)));
  }
}

static void gemm_make_input(const sb_point *p, void *host_in, uint64_t seed) {
  fill_job j = {host_in, seed};
  sb_parallel_for(gemm_in_bytes(p) / sizeof(uint16_t), 4096, fill_f16, &j);
}

/* Every element of C when the check costs at most 2^30 multiply-adds
 * (1024^3), else the sample set. */
static int checks_whole(long long m, long long n, long long k) { return m * n * k <= (1LL << 30); }

/* Halves the whole pieces (tiles, clusters of tiles, k-tiles) of a
 * dimension of *size in pieces of `unit` and keeps its partial piece, the
 * edge (1000 in 128s: 7 whole + 104 -> 3 + 104 = 488), so that the whole
 * check of a shrunk shape still reads the kernel's partial tiles; at least
 * `least` pieces stay, the partial one counted. Returns 0 where it cannot
 * shrink. */
static int halve_whole(long long *size, long long unit, long long least) {
  const long long whole = *size / unit, rest = *size % unit, partial = rest > 0;
  long long keep = whole / 2;
  if (keep + partial < least) keep = least - partial;
  if (keep >= whole) return 0;
  *size = keep * unit + rest;
  return 1;
}

/* A point whose check is a sample: the same kernel (variant, tile, stages,
 * cluster shape, splits: every axis but M, N and K) at a shape whose check
 * reads the whole C, which the runner validates once per process before
 * the first such point of the kernel (not timed) unless a point of the
 * kernel was checked whole already. M and N give way first, by halving
 * their tile counts (in whole clusters), the larger first, so K and its
 * k-loop stay the point's where they can; then K, down to a k-tile per
 * slice. */
static int gemm_whole_check(const sb_point *p, sb_point *whole, sb_point *kernel) {
  if (is_cublas(p)) return -1;
  *kernel = *whole = *p;
  kernel->axis[SB_AXIS_M] = kernel->axis[SB_AXIS_N] = kernel->axis[SB_AXIS_K] = SB_AXIS_UNSET;
  long long *ax = whole->axis, m = ax[SB_AXIS_M], n = sb_gemm_cols(ax), k = ax[SB_AXIS_K];
  if (checks_whole(m, n, k)) return 0;
  const int t = (int)ax[SB_AXIS_TILE];
  const long long cs = ax[SB_AXIS_CLUSTER_SHAPE], sp = ax[SB_AXIS_SPLITS];
  const long long um = (long long)sb_gemm_tile_bm(t) * (cs == SB_AXIS_UNSET ? 1 : sb_gemm_cluster_m((int)cs));
  const long long un = (long long)sb_gemm_tile_bn(t) * (cs == SB_AXIS_UNSET ? 1 : sb_gemm_cluster_n((int)cs));
  const long long kmin = sp > 1 ? sp : 1; /* k-tiles: one a slice */
  while (!checks_whole(m, n, k)) {
    if (m >= n && halve_whole(&m, um, 1)) continue;
    if (halve_whole(&n, un, 1) || halve_whole(&m, um, 1) || halve_whole(&k, SB_GEMM_BK, kmin)) continue;
    break; /* one cluster of tiles, a k-tile per slice: the smallest there is */
  }
  ax[SB_AXIS_M] = m, ax[SB_AXIS_N] = n, ax[SB_AXIS_K] = k;
  return 1;
}

static int gemm_verify(const sb_point *p, const sb_check *check, const void *host_in,
                       const void *host_out, char *detail, size_t len) {
  const long long m = p->axis[SB_AXIS_M], n = sb_gemm_cols(p->axis), k = p->axis[SB_AXIS_K];
  const uint16_t *a = host_in, *b = a + m * k;
  const float *c = host_out;
  const int full = checks_whole(m, n, k);
  long long *idx = NULL;
  size_t count = (size_t)(m * n);
  if (!full) {
    idx = malloc(sb_gemm_sample_count(m, n) * sizeof *idx);
    if (!idx) {
      snprintf(detail, len, "out of host memory for the sample set");
      return -1;
    }
    count = sb_gemm_sample_set(m, n, sb_gemm_sample_salt(m, n, k, check->seed, check->pass), idx);
  }
  long long first;
  const size_t bad = sb_gemm_check(a, b, c, m, n, k, idx, count, &first);
  free(idx);
  if (bad == (size_t)-1) {
    snprintf(detail, len, "out of host memory for the check");
    return -1;
  }
  if (bad) {
    double want, abs_dot;
    sb_gemm_reference_at(a, b, n, k, first / n, first % n, &want, &abs_dot);
    snprintf(detail, len,
             "%zu of %zu %s elements of C differ from the double reference by more than the tolerance; "
             "first at row %lld col %lld: got %.9g, want %.9g (tolerance %.3g)",
             bad, count, full ? "(all)" : "sampled", first / n, first % n, (double)c[first], want,
             sb_gemm_tolerance(k, abs_dot));
    return -1;
  }
  return 0;
}

static int gemm_derive(const sb_point *p, const sb_device *d, const void *host_out, sb_row *row) {
  (void)d;
  (void)host_out; /* the runner verifies a raw twin's timed output (skip_timed_recheck 0) */
  if (!is_cublas(p) && row->blocks_per_sm > 0)
    row->bytes_in_flight_per_sm = p->axis[SB_AXIS_STAGES] *
                                  sb_gemm_stage_bytes((int)p->axis[SB_AXIS_TILE]) * row->blocks_per_sm;
  /* The validating launch's epilogue profile (ws_tma-based variants;
   * NaN, an empty cell, for the others). Read always: it is consumed. */
  const double epilogue = sb_gemm_epilogue_pct();
  if (!is_cublas(p)) row->epilogue_pct = epilogue;
  if ((p->variant->flags & SB_VF_GEMM_DSMEM) && row->splits_used > 0) {
    /* The cut this row ran (sb_gemm_cluster_ctas): clusters, and what meets in memory. */
    const int c = sb_gemm_cluster_ctas(row->splits_used), g = row->splits_used / c;
    if (g > 1)
      snprintf(row->detail, sizeof row->detail,
               "%d slices a tile: %d clusters of %d, summed in shared memory, then through the workspace",
               row->splits_used, g, c);
    else
      snprintf(row->detail, sizeof row->detail, "%d slices a tile: one cluster of %d, summed in shared memory",
               row->splits_used, c);
  }
  if ((p->variant->flags & SB_VF_GEMM_STREAMK) && row->blocks_per_sm > 0) {
    /* Which cut and which combining this row ran (the launcher's rule,
     * gemm_tiles.h): the persistent grid is SMs x blocks/SM. */
    const int t = (int)p->axis[SB_AXIS_TILE], grid = d->sm_count * row->blocks_per_sm;
    const long long m = p->axis[SB_AXIS_M], n = sb_gemm_cols(p->axis);
    const int tiles = (int)sb_gemm_tile_count(t, m, n);
    const int kts = (int)sb_gemm_k_tiles(p->axis[SB_AXIS_K]), sk = sb_gemm_sk_tiles(tiles, grid);
    const int units = sb_gemm_sk_units_per_tile(tiles, kts, grid);
    if (sb_gemm_sk_data_parallel(tiles, kts, grid))
      snprintf(row->detail, sizeof row->detail,
               "stream-K: nothing to split on %d blocks: all %d tiles data-parallel, ws_tma_wgmma's kernel, a block per tile",
               grid, tiles);
    else
      snprintf(row->detail, sizeof row->detail,
               "stream-K: %d of %d tiles split over %d blocks, up to %d per tile, combined by %s", sk, tiles,
               sb_gemm_sk_grid(tiles, grid), units,
               units > SB_GEMM_SK_FIXUP_MAX ? "the separate reduction kernel" : "the in-kernel fix-up");
  }
  return 0;
}

/* The variants whose launches leave semaphores, tickets or partials behind
 * (the runner re-validates them on that dirty workspace): split-K and
 * stream-K. The others hold nothing between launches. */
static int gemm_keeps_state(const sb_point *p) {
  return (p->variant->flags & (SB_VF_GEMM_SPLIT | SB_VF_GEMM_STREAMK)) != 0;
}

/* The kinds the scripts read from --list (scripts/answers.py's tables). */
static const sb_trait_name gemm_traits[] = {
    {SB_VF_GEMM_SPLIT, "split"},        /* split-K: the splits axis */
    {SB_VF_GEMM_STREAMK, "stream_k"},   /* stream-K: persistent, combines partial tiles */
    {SB_VF_GEMM_PINGPONG, "pingpong"},  /* two consumer warpgroups take turns */
    {SB_VF_GEMM_MULTICAST, "multicast"},/* clusters of 2: the shared operand multicast */
    {SB_VF_GEMM_PERSISTENT, "persistent"},/* a persistent grid walks the tiles */
    {SB_VF_GEMM_TMA_STORE, "tma_store"},/* C through shared memory and TMA stores */
    {SB_VF_GEMM_DSMEM, "dsmem"},        /* split-K clusters: partials summed in distributed shared memory */
    {SB_VF_GEMM_COOPERATIVE, "cooperative"}, /* a cooperative grid: slices of a tile wait for each other */
    {SB_VF_GEMM_WGMMA_TILE, "wgmma_tile"}, /* ws_tma_wgmma: the mainloop the others build on */
    {0, NULL}};

const sb_family sb_family_gemm = {
    .name = "gemm",
    .summary = "C(fp32, row-major) = A(fp16, row-major) * B(fp16, column-major), N = M (or --n with --m): "
               "how the K loop is staged and synchronized, against cuBLAS",
    .flags = SB_FF_WORKSPACE_STATE, /* split-K/stream-K semaphores, tickets and partials */
    .variants = &sb_gemm_variants,
    .variant_traits = gemm_traits,
    .default_axes = {[SB_AXIS_M] = "512,1000,1k,2k,4k,8k", /* 1000: an odd shape, partial tiles at every edge */
                     [SB_AXIS_K] = "1000,1k,2k,4k,8k,16k,32k",
                     [SB_AXIS_N] = "1", /* = m (sb_gemm_in_sweep): --n with --m sets it */
                     [SB_AXIS_SPLITS] = "auto,2,4,8",
                     /* 128x96x64: in the default sweep only where M and N are whole 96s (none of the default shapes) */
                     [SB_AXIS_TILE] = "64x128x64,128x128x64,128x256x64,128x96x64",
                     [SB_AXIS_STAGES] = "1,2,3,4,5,6,7,8", /* 8: the 64x128 tile's, 7: 128x96's */
                     [SB_AXIS_WARPS] = "4,8",
                     [SB_AXIS_CLUSTER_SHAPE] = "2x1,1x2"},
    .quick_axes = {[SB_AXIS_M] = "512,1k",
                   [SB_AXIS_K] = "1k,32k",
                   [SB_AXIS_N] = "1",
                   [SB_AXIS_SPLITS] = "auto",
                   [SB_AXIS_TILE] = "128x128x64,128x256x64",
                   [SB_AXIS_STAGES] = "1,2,4",
                   [SB_AXIS_WARPS] = "4,8",
                   [SB_AXIS_CLUSTER_SHAPE] = "2x1,1x2"},
    .ceiling_column = "pct_of_cublas",
    /* Under the power cap the block median follows how far into the cap's
     * ramp a point was sampled; the fastest samples follow a rare fast mode
     * (the 1x2 multicast tile at 1024^2 x 16k: 57.6 us in one process of
     * three, 77.2-77.4 in the others, medians 77.4-78.3). The lower
     * quartiles of the interleaved samples follow neither (docs/REGRESSIONS.md). */
    .ceiling_reading = SB_RATIO_P01,
    .in_sweep = sb_gemm_in_sweep,
    .check = gemm_check,
    .refuse = gemm_refuse,
    .in_bytes = gemm_in_bytes,
    .out_bytes = gemm_out_bytes,
    .flops = gemm_flops,
    .derive = gemm_derive,
    .keeps_state = gemm_keeps_state,
    .make_input = gemm_make_input,
    .verify = gemm_verify,
    .whole_check = gemm_whole_check,
};
