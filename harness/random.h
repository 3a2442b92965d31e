/* Reproducible, fast random inputs: element i of a fill depends only on
 * (seed, i), so fills are parallel and a failing point can be replayed
 * from the seed in its CSV row. */
#ifndef SB_RANDOM_H
#define SB_RANDOM_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t sb_splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* The seed of a point's second input (the runner's validation on the dirty
 * workspace): a function of the first, so a failure replays, and never
 * equal to it, so the second input differs from the one the workspace saw.
 * sb_splitmix64 is a bijection; on one of its rare fixed points, flip a bit. */
static inline uint64_t sb_second_seed(uint64_t seed) {
  const uint64_t second = sb_splitmix64(seed);
  return second != seed ? second : seed ^ 1;
}

/* Uniform 32-bit words. */
void sb_fill_u32(uint32_t *dst, size_t n, uint64_t seed);
/* Uniform floats in [lo, hi). */
void sb_fill_f32(float *dst, size_t n, uint64_t seed, float lo, float hi);
/* A fresh seed per call: time, pid and a counter, mixed. */
uint64_t sb_fresh_seed(void);

#endif
