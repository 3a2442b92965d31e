/* Multistage family: the element arithmetic of the kernels
 * (kernels/families/multistage.cu), in plain C so that the host tests
 * (tests/c/test_stencil.c) run the very functions the kernels run, in float,
 * against the CPU reference (bench/multistage.c, double).
 *
 * The kernels store P and Q with zeros around the tile (P[-2], P[-1],
 * P[T], P[T+1] and Q[T..T+2] for a tile of T floats), and in a short tile
 * the elements past its valid part hold 0 as well. So every element takes
 * the same loads and operations, and only a weight depends on its position:
 *
 *   blur    Q[e] = (P[e] + P[e-1] + P[e+1] + P[e-2] + P[e+2]) * fl(1 / c)
 *           c = the valid points among the five. Adding a zero is exact,
 *           so the sum is the one over the valid points, in this order.
 *   smooth  the cascade v = Q[e]; v = (v + Q[e+j]) / 2 for j = 1, 2, 3
 *           while e + j is valid. With zeros past the valid part, each
 *           missing step only halves v (exactly), so the cascade over all
 *           three steps times 2^missing is the cascade over the valid ones,
 *           bit for bit (values here are normal and positive). The last
 *           halving and 2^missing are one weight, 0.5 * 2^missing.
 *           Written as v = Q[e] + Q[e+1]; v = fma(0.5, v, Q[e+2]);
 *           v = fma(0.5, v, Q[e+3]); v * w: fma(0.5, v, q) rounds
 *           0.5 v + q once, and 0.5 v is exact, so this equals
 *           round(round(v / 2) + q) of the cascade as defined: 4 operations
 *           instead of 6.
 *   A weight is 0 for an element past the valid part, which keeps it 0.
 */
#ifndef SB_MULTISTAGE_MATH_H
#define SB_MULTISTAGE_MATH_H

#include <math.h>

#ifdef __CUDACC__
#define SB_MS_FN static __host__ __device__ __forceinline__
#else
#define SB_MS_FN static inline
#endif

/* Zeros after P's and Q's tiles (P also has SB_MS_P_PAD zeros before it). */
#define SB_MS_P_PAD 2
#define SB_MS_Q_PAD 3

/* The weights of an element with all 5 blur points and all 3 smooth steps:
 * in a full tile of S x K (S >= 3) every element j * S + i with 0 < j < K-1. */
#define SB_MS_BLUR_INTERIOR 0.2f
#define SB_MS_SMOOTH_INTERIOR 0.5f

SB_MS_FN float sb_ms_pre(float x) { return 1.1f * x; }

/* fl(1 / c) for a mean of c = 1..5 points (constants, no division). */
SB_MS_FN float sb_ms_inv(int c) {
  return c == 5 ? SB_MS_BLUR_INTERIOR : c == 4 ? 0.25f : c == 3 ? 1.0f / 3.0f : c == 2 ? 0.5f : 1.0f;
}

/* Element e of a tile whose first len elements are valid. */
SB_MS_FN float sb_ms_blur_weight(int e, int len) {
  return e < len ? sb_ms_inv(1 + (e >= 1) + (e + 1 < len) + (e >= 2) + (e + 2 < len)) : 0.0f;
}
SB_MS_FN float sb_ms_smooth_weight(int e, int len) {
  const int ahead = len - 1 - e; /* valid elements after e */
  return ahead >= 3 ? SB_MS_SMOOTH_INTERIOR : ahead == 2 ? 1.0f : ahead == 1 ? 2.0f : ahead == 0 ? 4.0f : 0.0f;
}

/* p points at P[e], q at Q[e]; pads and zeros past the valid part as above. */
SB_MS_FN float sb_ms_blur(const float *p, float w) {
  return (p[0] + p[-1] + p[1] + p[-2] + p[2]) * w;
}
SB_MS_FN float sb_ms_smooth(const float *q, float w) {
  float v = q[0] + q[1];
  v = fmaf(0.5f, v, q[2]); /* one rounding: an FFMA on the GPU */
  v = fmaf(0.5f, v, q[3]);
  return v * w;
}

#endif
