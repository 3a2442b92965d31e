/* The pipeline, pipeline_intensity and multistage kernels are compiled for
 * fixed shapes (stages x buffer_bytes x consumer warps; block_threads x
 * elems_per_thread). These tests call the variants' pickers, which only
 * name kernels (no GPU needed): every point of the default and quick sweeps
 * that the family's own rules let through must have its kernels, and a
 * point outside the compiled shapes gets a reason that says so. */
#include <stdlib.h>
#include <string.h>

#include "../../kernels/gemm/gemm_tiles.h"
#include "../../kernels/families/pipeline_tiles.h"
#include "check.h"
#include "swept.h"

/* Variants that wait on mbarriers themselves: validated with the watchdog
 * kernel, timed with the raw one (two kernels). */
static int is_twin(const char *variant) {
  return !strcmp(variant, "ws_barrier") || !strcmp(variant, "ws_tma") ||
         !strcmp(variant, "ws_tma_2d") || !strcmp(variant, "specialized_mbarrier");
}

static void expect_shape(const sb_point *p, int quick, int rc, const sb_kernels *k,
                         const char *why, void *ctx) {
  (void)quick, (void)why, (void)ctx;
  CHECK_EQ_INT(rc, 0);
  CHECK(k->raw != NULL && k->bounded != NULL);
  CHECK_EQ_INT(k->bounded != k->raw, is_twin(p->variant->name));
}

/* Returns the number of points picked; counts failures through CHECK. */
static long check_sweeps_compiled(const char *family) {
  CHECK(sb_find_family(family) != NULL);
  return sb_for_each_swept_kernel(family, expect_shape, NULL);
}

SB_TEST(pipeline_every_sweep_point_has_compiled_kernels) {
  /* pipeline: 4 stages x 7 sizes x 5 variants, minus sync_single's 21
   * stages > 1 points and the 3 x 4 staged points over 227 KB (default);
   * quick: 2 stages x 2 n x 5 variants, minus sync_single's 2 at stages 4. */
  CHECK_EQ_INT(check_sweeps_compiled("pipeline"), (4 * 7 * 5 - 21 - 3 * 4) + (2 * 2 * 5 - 2));
  /* pipeline_intensity: 5 intensities x 2 warp counts x 6 variants;
   * quick: 1 x 2 x 6. */
  CHECK_EQ_INT(check_sweeps_compiled("pipeline_intensity"), 5 * 2 * 6 + 1 * 2 * 6);
}

SB_TEST(multistage_every_sweep_point_has_compiled_kernels) {
  /* 2 blocks x 3 iters x 2 elems x 4 variants; quick 2 x 1 x 1 x 4. */
  CHECK_EQ_INT(check_sweeps_compiled("multistage"), 2 * 3 * 2 * 4 + 2 * 4);
}

static const sb_variant *variant_of(const sb_family *f, const char *name) {
  for (int v = 0; v < f->variants->count; ++v)
    if (!strcmp(f->variants->rows[v].name, name)) return &f->variants->rows[v];
  return NULL;
}

static sb_point point_of(const sb_family *f, const char *variant) {
  sb_point p = {f, variant_of(f, variant), {0}};
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  return p;
}

SB_TEST(pipeline_uncompiled_shape_is_skipped_with_the_reason) {
  const sb_family *f = sb_find_family("pipeline_intensity");
  sb_point p = point_of(f, "ws_tma");
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  p.axis[SB_AXIS_STAGES] = 3;
  p.axis[SB_AXIS_BUFFER_BYTES] = 8192;
  p.axis[SB_AXIS_WARPS] = 4;
  sb_kernels k;
  char why[SB_SKIP_LEN] = "";
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "stages=3 buffer_bytes=8192 consumer_warps=4 has no compiled kernel") != NULL);
  p.axis[SB_AXIS_STAGES] = 4; /* 4 x 8k x 4 warps: compiled */
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), 0);
  p.axis[SB_AXIS_WARPS] = 2; /* 2 warps only at 4 x 16k */
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1);

  /* sync_single compiles its one tile of stages x buffer_bytes: 4 x 16k
   * is the 64 KiB tile of 1 x 64k. */
  sb_point s = point_of(f, "sync_single");
  sb_kernels k4, k1;
  s.axis[SB_AXIS_STAGES] = 4, s.axis[SB_AXIS_BUFFER_BYTES] = 16384, s.axis[SB_AXIS_WARPS] = 4;
  CHECK_EQ_INT(s.variant->pick(s.axis, &k4, why, sizeof why), 0);
  s.axis[SB_AXIS_STAGES] = 1, s.axis[SB_AXIS_BUFFER_BYTES] = 65536;
  CHECK_EQ_INT(s.variant->pick(s.axis, &k1, why, sizeof why), 0);
  CHECK(k4.raw == k1.raw && k4.smem == 65536);

  sb_point r = point_of(f, "reference");
  r.axis[SB_AXIS_WARPS] = 1;
  CHECK_EQ_INT(r.variant->pick(r.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "consumer_warps=1 has no compiled kernel (compiled: 2,4,8)") != NULL);
  r.axis[SB_AXIS_WARPS] = 8;
  CHECK_EQ_INT(r.variant->pick(r.axis, &k, why, sizeof why), 0);
  CHECK_EQ_INT(k.smem, 0);
}

/* Dynamic shared memory: the stages, + the ring's full/empty (16 B per
 * stage) in the warp-specialized variants (ws_barrier's cuda::barriers
 * included): what bench/pipeline.c checks against the device's limit. */
SB_TEST(pipeline_picked_shared_memory_is_the_stages) {
  const sb_family *f = sb_find_family("pipeline");
  const char *names[] = {"double_buffer", "ws_barrier", "ws_tma", "ws_tma_2d"};
  const size_t extra[] = {0, 16 * 4, 16 * 4, 16 * 4};
  for (int i = 0; i < 4; ++i) {
    sb_point p = point_of(f, names[i]);
    CHECK(p.variant != NULL);
    if (!p.variant) continue;
    p.axis[SB_AXIS_STAGES] = 4, p.axis[SB_AXIS_BUFFER_BYTES] = 32768, p.axis[SB_AXIS_WARPS] = 4;
    sb_kernels k;
    char why[SB_SKIP_LEN];
    CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), 0);
    CHECK_EQ_INT(k.smem, 4 * 32768 + extra[i]);
  }
}

SB_TEST(pipeline_traits_come_from_the_table) {
  const sb_family *heat = sb_find_family("pipeline"), *inten = sb_find_family("pipeline_intensity");
  CHECK_EQ_INT(heat->variants->count, PL_NUM_STAGED);
  CHECK_EQ_INT(inten->variants->count, PL_NUM_STAGED + 1);
  CHECK(heat->variants->rows == inten->variants->rows); /* one table */
  for (int v = 0; v < inten->variants->count; ++v) {
    const sb_variant *r = &inten->variants->rows[v];
    CHECK_EQ_INT((r->flags & SB_VF_PL_NO_STAGES) != 0, v == PL_NUM_STAGED);
    CHECK_EQ_INT((r->flags & SB_VF_PL_WARP_SPECIALIZED) != 0, !strncmp(r->name, "ws_", 3));
  }
  /* The heatmap keeps sync_single's stages = 1 row only. */
  sb_device d = sb_test_hopper();
  sb_provenance prov;
  memset(&prov, 0, sizeof prov);
  sb_row row;
  sb_point p = point_of(heat, "sync_single");
  p.axis[SB_AXIS_STAGES] = 2, p.axis[SB_AXIS_BUFFER_BYTES] = 4096, p.axis[SB_AXIS_WARPS] = 4;
  p.axis[SB_AXIS_INTENSITY] = 0, p.axis[SB_AXIS_N] = 1 << 20, p.axis[SB_AXIS_CONTENTION] = 1;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK(strstr(row.detail, "heatmap keeps its stages=1 row") != NULL);
  p.axis[SB_AXIS_STAGES] = 1;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 0);
  /* Over the shared memory a block may use, with the barriers counted. */
  p = point_of(heat, "ws_tma");
  p.axis[SB_AXIS_STAGES] = 8, p.axis[SB_AXIS_BUFFER_BYTES] = 32768, p.axis[SB_AXIS_WARPS] = 4;
  p.axis[SB_AXIS_INTENSITY] = 0, p.axis[SB_AXIS_N] = 1 << 20, p.axis[SB_AXIS_CONTENTION] = 1;
  sb_row_init(&row, &prov);
  CHECK_EQ_INT(sb_point_precheck(&p, &d, &row), 1);
  CHECK(strstr(row.detail, "exceeds the 232448 B") != NULL);
}

SB_TEST(multistage_uncompiled_shape_is_skipped_with_the_reason) {
  const sb_family *f = sb_find_family("multistage");
  sb_point p = point_of(f, "specialized_mbarrier");
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  sb_kernels k;
  char why[SB_SKIP_LEN] = "";
  p.axis[SB_AXIS_BLOCK] = 256, p.axis[SB_AXIS_ELEMS] = 2;
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "block_threads=256 has no compiled kernel (compiled: 128,1024)") != NULL);
  p.axis[SB_AXIS_BLOCK] = 1024, p.axis[SB_AXIS_ELEMS] = 4;
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "elems_per_thread=4 has no compiled kernel (compiled: 2,3,8)") != NULL);
  p.axis[SB_AXIS_ELEMS] = 8;
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), 0);
  CHECK_EQ_INT(k.smem, (3 * 1024 * 8 + 2 + 2 + 3) * 4); /* A, P, Q; P's 2 + 2 and Q's 3 zero pads */
  CHECK(k.bounded != k.raw);
}

/* gemm/ws_tma_wgmma_multicast: every point of its default and quick grid
 * has a twin (bounded + raw) for its tile, stages and cluster shape, the
 * two shapes different kernels; outside them the picker says why. */
typedef struct multicast_seen {
  long points;
  const void *raw[SB_GEMM_NUM_CLUSTER_SHAPES]; /* one kernel of each cluster shape, to compare */
} multicast_seen;

static void expect_multicast(const sb_point *p, int quick, int rc, const sb_kernels *k,
                             const char *why, void *ctx) {
  (void)quick, (void)why;
  multicast_seen *s = ctx;
  if (!(p->variant->flags & SB_VF_GEMM_MULTICAST)) return;
  ++s->points;
  CHECK_EQ_INT(rc, 0);
  CHECK(k->raw != NULL && k->bounded != NULL && k->bounded != k->raw);
  const long long cs = p->axis[SB_AXIS_CLUSTER_SHAPE];
  CHECK(cs == SB_GEMM_CLUSTER_2X1 || cs == SB_GEMM_CLUSTER_1X2); /* the sweeps' shapes */
  if ((cs == SB_GEMM_CLUSTER_2X1 || cs == SB_GEMM_CLUSTER_1X2) && p->axis[SB_AXIS_TILE] == SB_GEMM_TILE_64X128 &&
      !strcmp(p->variant->name, "ws_tma_wgmma_multicast"))
    s->raw[cs] = k->raw;
}

SB_TEST(gemm_multicast_sweep_points_have_compiled_kernels) {
  CHECK(sb_find_family("gemm") != NULL);
  multicast_seen s = {0, {NULL}};
  sb_for_each_swept_kernel("gemm", expect_multicast, &s);
  /* default (tests/c/test_gemm.c: 12 + 10 + 10, ping-pong's 6) + quick (1024^3 at 4 stages, its hand-picked
   * grid: 128x128 and 128x256 x 2 shapes, 4 per variant; ping-pong's 128x128 only, 2) */
  CHECK_EQ_INT(s.points, 12 + 10 + 10 + 6 + 3 * 4 + 2);
  CHECK(s.raw[0] != NULL && s.raw[1] != NULL && s.raw[0] != s.raw[1]); /* a kernel per cluster shape */

  const sb_family *f = sb_find_family("gemm");
  sb_point p = point_of(f, "ws_tma_wgmma_multicast");
  CHECK(p.variant != NULL);
  if (!p.variant) return;
  sb_kernels k;
  char why[SB_SKIP_LEN] = "";
  p.axis[SB_AXIS_TILE] = 0, p.axis[SB_AXIS_WARPS] = 4, p.axis[SB_AXIS_STAGES] = 4;
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1); /* no cluster shape */
  CHECK(strstr(why, "cluster_shape=-1 has no compiled kernel") != NULL);
  p.axis[SB_AXIS_CLUSTER_SHAPE] = 1, p.axis[SB_AXIS_STAGES] = 3;
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), -1);
  CHECK(strstr(why, "stages=3 has no compiled kernel (compiled: 4,5,6)") != NULL);
  p.axis[SB_AXIS_TILE] = 1, p.axis[SB_AXIS_WARPS] = 8;
  CHECK_EQ_INT(p.variant->pick(p.axis, &k, why, sizeof why), 0);
  CHECK_EQ_INT(k.smem, 3 * 49152 + 1024);
}
