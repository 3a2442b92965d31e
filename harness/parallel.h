/* A small pthread parallel-for for the host side: CPU references, input
 * generation and result comparison over 100M+ elements must not dominate a
 * sweep's wall time. */
#ifndef SB_PARALLEL_H
#define SB_PARALLEL_H

#include <stddef.h>

/* Calls fn(ctx, begin, end) over [0, count) split into contiguous chunks,
 * each a multiple of `grain` (so chunks can align with tiles), on up to
 * sb_parallel_threads() threads. Blocks until all chunks are done. */
void sb_parallel_for(size_t count, size_t grain,
                     void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx);

/* Threads used: online CPUs, capped at 32; SB_THREADS overrides. */
int sb_parallel_threads(void);

#endif
