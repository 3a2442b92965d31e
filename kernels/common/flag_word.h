/* The packed status word of the cross-block flag protocols: one aligned
 * 64-bit word, status in the high 32 bits, value in the low 32, so one load
 * sees both (kernels/common/lookback.cuh: devscan's chained and look-back scans,
 * and the barrier price list's flag_handoff and lookback_walk rows). C and
 * CUDA: the host builds such words for lookback_walk's input and checks
 * what the kernels report (bench/barrier.c). */
#ifndef SB_FLAG_WORD_H
#define SB_FLAG_WORD_H

#include <stdint.h>

/* X: not yet published; A: the value is the tile's aggregate (its own sum);
 * P: the value is its inclusive prefix (everything up to and including it). */
enum { SB_FLAG_X = 0, SB_FLAG_A = 1, SB_FLAG_P = 2 };

#define SB_FLAG_WORD(status, value) (((uint64_t)(status) << 32) | (uint32_t)(value))
#define SB_FLAG_STATUS(word) ((uint32_t)((word) >> 32))
#define SB_FLAG_VALUE(word) ((uint32_t)(word))

#endif
