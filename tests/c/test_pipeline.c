#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../bench/families.h"
#include "../../harness/random.h"
#include "../../kernels/families/pipeline_tiles.h"
#include "check.h"

/* Brute force: one element at a time, the chain written out with fmaf. */
static void brute_chain(const float *in, float *out, size_t n, int intensity) {
  for (size_t i = 0; i < n; ++i) {
    float x = in[i];
    for (int k = 0; k < intensity / 2; ++k) x = fmaf(x, 0.99993896484375f, 0.000030517578125f);
    out[i] = x;
  }
}

SB_TEST(pipeline_reference_matches_brute_force_bit_for_bit) {
  const size_t sizes[] = {1, 3, 63, 64, 65, 4095, 4097, 100003};
  const int intensities[] = {0, 2, 6, 64, 300};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; ++a)
    for (size_t b = 0; b < sizeof intensities / sizeof *intensities; ++b) {
      size_t n = sizes[a];
      float *in = malloc(n * 4), *fast = malloc(n * 4), *slow = malloc(n * 4);
      sb_fill_f32(in, n, 99 + a * 10 + b, -1.0f, 1.0f);
      sb_pipeline_cpu_reference(in, fast, n, intensities[b]);
      brute_chain(in, slow, n, intensities[b]);
      CHECK(memcmp(fast, slow, n * 4) == 0); /* the same FMA sequence: same bits */
      free(in);
      free(fast);
      free(slow);
    }
}

SB_TEST(pipeline_chain_is_input_dependent_and_bounded) {
  float in[4] = {-1.0f, -0.25f, 0.5f, 0.999f}, out[4];
  sb_pipeline_cpu_reference(in, out, 4, 1024); /* 512 FMAs */
  for (int i = 0; i < 4; ++i) CHECK(out[i] >= -1.0f && out[i] <= 1.0f);
  CHECK(out[0] != out[1] && out[1] != out[3]);
  CHECK(fabsf(out[2] - 0.5f) < 1e-6f); /* 0.5 is the fixed point */
  CHECK(out[0] != in[0]);
  sb_pipeline_cpu_reference(in, out, 4, 0); /* intensity 0: a copy */
  CHECK(memcmp(in, out, sizeof in) == 0);
}

SB_TEST(pipeline_compare_catches_poison_nan_and_tail) {
  enum { N = 1001 };
  float want[N], got[N];
  sb_fill_f32(want, N, 5, -1.0f, 1.0f);
  memcpy(got, want, sizeof got);
  size_t first;
  CHECK_EQ_INT(sb_compare_f32_rel_f32(got, want, N, 1e-6, &first), 0);
  CHECK_EQ_INT(first, N);
  uint32_t poison = 0xA5A5A5A5u; /* the runner's poisoned output: ~-2.9e-16 */
  memcpy(&got[N - 1], &poison, 4);
  got[500] = NAN;
  got[7] = want[7] * (1.0f + 4e-6f); /* 4 ppm: over the tolerance */
  got[8] = nextafterf(want[8], 2.0f); /* one ulp: within it */
  CHECK_EQ_INT(sb_compare_f32_rel_f32(got, want, N, 1e-6, &first), 3);
  CHECK_EQ_INT(first, 7);
  float zero = 0.0f, tiny = 1e-30f; /* want 0 accepts only 0 */
  CHECK_EQ_INT(sb_compare_f32_rel_f32(&tiny, &zero, 1, 1e-6, &first), 1);
}

/* The fused check (what verify runs) counts and places the same bad
 * elements as the reference followed by the compare, across chunks and
 * threads, and reports n when all are good. */
SB_TEST(pipeline_fused_check_matches_reference_then_compare) {
  const size_t n = 300007; /* many 4096-element chunks, a ragged tail */
  const int intensity = 64;
  float *in = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
  sb_fill_f32(in, n, 17, -1.0f, 1.0f);
  sb_pipeline_cpu_reference(in, want, n, intensity);
  memcpy(got, want, n * 4);
  size_t first = 0;
  CHECK_EQ_INT(sb_pipeline_check(in, got, n, intensity, 1e-6, &first), 0);
  CHECK_EQ_INT(first, n);
  uint32_t poison = 0xA5A5A5A5u;
  memcpy(&got[n - 1], &poison, 4);     /* the last element */
  got[250000] = NAN;                   /* a later chunk */
  got[123457] = want[123457] * 1.001f; /* the first bad one */
  got[9] = nextafterf(want[9], 2.0f);  /* one ulp: fine */
  size_t first_ref = 0;
  const size_t bad_ref = sb_compare_f32_rel_f32(got, want, n, 1e-6, &first_ref);
  CHECK_EQ_INT(bad_ref, 3);
  CHECK_EQ_INT(sb_pipeline_check(in, got, n, intensity, 1e-6, &first), bad_ref);
  CHECK_EQ_INT(first, first_ref);
  CHECK_EQ_INT(first, 123457);
  free(in);
  free(want);
  free(got);
}

/* Each element is covered once by the 1D tiling under the persistent
 * round-robin schedule, as the kernels walk it: vector part + <= 3 tail. */
SB_TEST(pipeline_1d_tiles_cover_ragged_n_exactly_once) {
  const long long ns[] = {1, 3, 4, 255, 256, 257, 1000003, 262144 * 3 + 5};
  const long long tiles_elems[] = {256, 1024, 4096, 16384};
  const long long grids[] = {1, 7, 132};
  for (size_t a = 0; a < sizeof ns / sizeof *ns; ++a)
    for (size_t b = 0; b < sizeof tiles_elems / sizeof *tiles_elems; ++b)
      for (size_t c = 0; c < sizeof grids / sizeof *grids; ++c) {
        long long n = ns[a], tile = tiles_elems[b], grid = grids[c];
        unsigned char *seen = calloc((size_t)n, 1);
        long long tiles = pl_num_tiles(n, tile), total_tiles = 0;
        for (long long blk = 0; blk < grid; ++blk) {
          long long mine = pl_block_tiles(tiles, grid, blk);
          total_tiles += mine;
          for (long long i = 0; i < mine; ++i) {
            long long k = blk + i * grid, len = pl_tile_len(n, tile, k);
            CHECK(k < tiles && len >= 1 && len <= tile);
            long long vec = pl_vec_elems(len);
            CHECK(vec % 4 == 0 && len - vec <= 3 && (k * tile) % 4 == 0);
            for (long long j = 0; j < len; ++j) seen[k * tile + j]++;
          }
        }
        CHECK_EQ_INT(total_tiles, tiles);
        long long once = 0;
        for (long long i = 0; i < n; ++i) once += seen[i] == 1;
        CHECK_EQ_INT(once, n);
        free(seen);
      }
  CHECK_EQ_INT(pl_tile_len(1000003, 4096, 244), 1000003 - 244 * 4096); /* 579 */
  CHECK_EQ_INT(pl_vec_elems(579), 576);
}

/* The 2D variant: boxes inside the matrix + the tail after it cover every
 * element once; boxes of the last band may reach past the last row. */
SB_TEST(pipeline_2d_boxes_and_tail_cover_ragged_n_exactly_once) {
  const long long ns[] = {1, 4095, 4096, 4097, 20003, 1000003, 4096LL * 67 + 9};
  const long long box_bytes[] = {1024, 4096, 16384, 65536};
  for (size_t a = 0; a < sizeof ns / sizeof *ns; ++a)
    for (size_t b = 0; b < sizeof box_bytes / sizeof *box_bytes; ++b) {
      long long n = ns[a], rows = pl_2d_box_rows(box_bytes[b]);
      CHECK_EQ_INT(rows * PL_2D_BOX_COLS * 4, box_bytes[b]);
      unsigned char *seen = calloc((size_t)n, 1);
      long long tiles = pl_2d_tiles(n, rows);
      for (long long k = 0; k < tiles; ++k) {
        long long r0 = pl_2d_row0(k, rows), c0 = pl_2d_col0(k);
        long long valid = pl_2d_valid_rows(n, rows, k);
        CHECK(valid >= 1 && valid <= rows);
        for (long long r = 0; r < valid; ++r)
          for (long long c = 0; c < PL_2D_BOX_COLS; ++c) seen[(r0 + r) * PL_2D_WIDTH + c0 + c]++;
      }
      for (long long j = pl_2d_rows(n) * PL_2D_WIDTH; j < n; ++j) seen[j]++; /* tail */
      long long once = 0;
      for (long long i = 0; i < n; ++i) once += seen[i] == 1;
      CHECK_EQ_INT(once, n);
      free(seen);
    }
  CHECK_EQ_INT(pl_2d_tiles(4095, 1), 0); /* no full row: all tail */
  CHECK_EQ_INT(pl_2d_valid_rows(4096LL * 67 + 9, 16, 4 * 16), 3); /* band 4: rows 64..66 */
}
