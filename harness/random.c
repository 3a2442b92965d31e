#include "random.h"

#include <time.h>
#include <unistd.h>

#include "parallel.h"

typedef struct fill_ctx {
  void *dst;
  uint64_t seed;
  float lo, hi;
} fill_ctx;

static void fill_u32_range(void *p, size_t b, size_t e) {
  fill_ctx *c = p;
  uint32_t *d = c->dst;
  for (size_t i = b; i < e; ++i) d[i] = (uint32_t)(sb_splitmix64(c->seed ^ (i * 0xD1B54A32D192ED03ULL)) >> 32);
}

static void fill_f32_range(void *p, size_t b, size_t e) {
  fill_ctx *c = p;
  float *d = c->dst;
  for (size_t i = b; i < e; ++i) {
    uint32_t bits = (uint32_t)(sb_splitmix64(c->seed ^ (i * 0xD1B54A32D192ED03ULL)) >> 40);
    d[i] = c->lo + (c->hi - c->lo) * ((float)bits * (1.0f / 16777216.0f));
  }
}

void sb_fill_u32(uint32_t *dst, size_t n, uint64_t seed) {
  fill_ctx c = {dst, seed, 0, 0};
  sb_parallel_for(n, 4096, fill_u32_range, &c);
}

void sb_fill_f32(float *dst, size_t n, uint64_t seed, float lo, float hi) {
  fill_ctx c = {dst, seed, lo, hi};
  sb_parallel_for(n, 4096, fill_f32_range, &c);
}

uint64_t sb_fresh_seed(void) {
  static uint64_t counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return sb_splitmix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                       ((uint64_t)getpid() << 48) ^ ++counter * 0x9E37ULL);
}
