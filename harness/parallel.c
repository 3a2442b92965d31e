#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int sb_parallel_threads(void) {
  const char *env = getenv("SB_THREADS");
  long t = env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  if (t < 1) t = 1;
  if (t > 32) t = 32;
  return (int)t;
}

typedef struct chunk {
  void (*fn)(void *, size_t, size_t);
  void *ctx;
  size_t begin, end;
} chunk;

static void *run_chunk(void *arg) {
  chunk *c = arg;
  c->fn(c->ctx, c->begin, c->end);
  return NULL;
}

void sb_parallel_for(size_t count, size_t grain,
                     void (*fn)(void *, size_t, size_t), void *ctx) {
  if (grain == 0) grain = 1;
  size_t units = (count + grain - 1) / grain;
  size_t threads = (size_t)sb_parallel_threads();
  if (threads > units) threads = units;
  if (threads <= 1) {
    if (count) fn(ctx, 0, count);
    return;
  }
  chunk chunks[32];
  pthread_t tid[32];
  int started[32] = {0};
  size_t per = (units + threads - 1) / threads * grain, begin = 0;
  for (size_t t = 0; t < threads && begin < count; ++t) {
    size_t end = begin + per < count ? begin + per : count;
    chunks[t] = (chunk){fn, ctx, begin, end};
    /* If a thread cannot start, do its chunk on this one. */
    if (pthread_create(&tid[t], NULL, run_chunk, &chunks[t]) == 0)
      started[t] = 1;
    else
      run_chunk(&chunks[t]);
    begin = end;
  }
  for (size_t t = 0; t < threads; ++t)
    if (started[t]) pthread_join(tid[t], NULL);
}
