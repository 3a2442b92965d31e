#include <stdint.h>
#include <stdlib.h>

#include "../../bench/families.h"
#include "../../harness/random.h"
#include "check.h"

/* Brute force: element i of one scan is the sum of its tile's elements
 * 0..i; iterate. O(tile^2) per pass, independent of the fast reference. */
static void brute_scan(const uint32_t *in, uint32_t *out, size_t n, size_t tile, int iters) {
  uint32_t *cur = malloc(n * sizeof *cur), *nxt = malloc(n * sizeof *nxt);
  memcpy(cur, in, n * sizeof *cur);
  for (int it = 0; it < iters; ++it) {
    for (size_t i = 0; i < n; ++i) {
      size_t start = i / tile * tile;
      uint32_t s = 0;
      for (size_t j = start; j <= i; ++j) s += cur[j];
      nxt[i] = s;
    }
    memcpy(cur, nxt, n * sizeof *cur);
  }
  memcpy(out, cur, n * sizeof *cur);
  free(cur);
  free(nxt);
}

SB_TEST(scan_reference_matches_brute_force) {
  const size_t sizes[] = {1, 31, 32, 33, 1000, 4096, 5000};
  const size_t tiles[] = {1, 32, 48, 256, 1024};
  const int iters[] = {1, 2, 5};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; ++a)
    for (size_t b = 0; b < sizeof tiles / sizeof *tiles; ++b)
      for (size_t c = 0; c < sizeof iters / sizeof *iters; ++c) {
        size_t n = sizes[a];
        uint32_t *in = malloc(n * 4), *fast = malloc(n * 4), *slow = malloc(n * 4);
        sb_fill_u32(in, n, 1234 + a * 100 + b * 10 + c);
        sb_scan_reference(in, fast, n, tiles[b], iters[c]);
        brute_scan(in, slow, n, tiles[b], iters[c]);
        size_t first;
        CHECK_EQ_INT(sb_compare_u32(fast, slow, n, &first), 0);
        free(in);
        free(fast);
        free(slow);
      }
}

SB_TEST(scan_reference_wraps_and_restarts_each_tile) {
  uint32_t in[6] = {0xFFFFFFFFu, 2, 3, 0xFFFFFFFFu, 1, 1}, out[6];
  sb_scan_reference(in, out, 6, 3, 1);
  CHECK_EQ_INT(out[0], 0xFFFFFFFFu);
  CHECK_EQ_INT(out[1], 1); /* wraps mod 2^32 */
  CHECK_EQ_INT(out[2], 4);
  CHECK_EQ_INT(out[3], 0xFFFFFFFFu); /* new tile starts from zero */
  CHECK_EQ_INT(out[5], 1);
}

SB_TEST(compare_reports_first_mismatch) {
  uint32_t a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 9, 4, 0};
  size_t first;
  CHECK_EQ_INT(sb_compare_u32(a, b, 5, &first), 2);
  CHECK_EQ_INT(first, 2);
  CHECK_EQ_INT(sb_compare_u32(a, a, 5, &first), 0);
  CHECK_EQ_INT(first, 5);
}

SB_TEST(random_fill_is_reproducible_and_fresh) {
  uint32_t a[4096], b[4096], c[4096];
  sb_fill_u32(a, 4096, 42);
  sb_fill_u32(b, 4096, 42);
  sb_fill_u32(c, 4096, 43);
  CHECK(memcmp(a, b, sizeof a) == 0);
  CHECK(memcmp(a, c, sizeof a) != 0);
  size_t zeros = 0;
  for (int i = 0; i < 4096; ++i) zeros += a[i] == 0;
  CHECK(zeros < 4); /* never test on zeros */
  CHECK(sb_fresh_seed() != sb_fresh_seed());
  float f[1000];
  sb_fill_f32(f, 1000, 7, -1.0f, 1.0f);
  for (int i = 0; i < 1000; ++i) CHECK(f[i] >= -1.0f && f[i] < 1.0f);
}
