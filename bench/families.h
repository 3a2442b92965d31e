/* CPU references and helpers the families expose to the host tests. */
#ifndef SB_FAMILIES_H
#define SB_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

#include "../harness/launch.h"

/* Scan: out = `iters` successive inclusive scans (mod 2^32) of each tile of
 * `tile` consecutive elements of in; the last tile may be short. */
void sb_scan_reference(const uint32_t *in, uint32_t *out, size_t n, size_t tile,
                       int iters);

/* Compares got with want over n words. Returns the mismatch count and the
 * first mismatch index in *first (n if none). */
size_t sb_compare_u32(const uint32_t *got, const uint32_t *want, size_t n,
                      size_t *first);

/* Devscan (bench/devscan.c): out[i] = in[0] + ... + in[i] mod 2^32. */
void sb_devscan_reference(const uint32_t *in, uint32_t *out, size_t n);
/* Checks got against that scan of in: 0, or -1 with the mismatch count and
 * the first mismatch (index, got, want) in detail. */
int sb_devscan_check(const uint32_t *in, const uint32_t *got, size_t n, char *detail,
                     size_t len);

/* Stencil families (bench/stencil.c, kernels/families/stencil.cu). Inputs are
 * floats; the references compute in double. resid (may be NULL) gets, per
 * tile, the sum over iterations and valid elements of |new - old|.
 *
 * 1D: each tile of `tile` consecutive elements (the last may be short)
 * takes `iters` Jacobi steps x[i] <- mean of x[i-1], x[i], x[i+1] over
 * those inside the tile. */
void sb_stencil_reference(const float *in, double *out, double *resid, size_t n,
                          size_t tile, int iters);

/* 2D: an image SB_STENCIL2D_WIDTH columns wide and n / width rows, cut
 * into tiles tw x th (tiles at the bottom edge may have fewer rows), each
 * taking `iters` Jacobi steps of the 5-point mean over the valid points
 * inside the tile. resid is indexed by tile, row-major over tiles. */
#include "../kernels/families/stencil_tiles.h" /* SB_STENCIL2D_WIDTH */
void sb_stencil2d_reference(const float *in, double *out, double *resid, size_t n,
                            size_t width, size_t tw, size_t th, int iters);

/* Relative tolerance of a float stencil result after `iters` steps against
 * the double reference (see bench/stencil.c for the derivation). */
double sb_stencil_tolerance(int iters);

/* Multistage (bench/multistage.c): each tile of `tile` elements takes
 * `iters` passes of P = 1.1 x; Q[i] = mean of P[i-2..i+2] inside the tile;
 * x[i] = cascade: v = Q[i], then v = (v + Q[i+j]) / 2 for j = 1, 2, 3
 * while i + j is inside the tile. */
void sb_multistage_reference(const float *in, double *out, size_t n, size_t tile,
                             int iters);
double sb_multistage_tolerance(int iters);

/* Counts elements with |got - want| > rel_tol * |want| (or not finite);
 * *first: the first such index (n if none). */
size_t sb_compare_f32_rel(const float *got, const double *want, size_t n,
                          double rel_tol, size_t *first);

/* Pipeline: out[i] = in[i] after intensity/2 steps of x = fmaf(x, A, B)
 * (kernels/families/pipeline_tiles.h), the kernels' exact sequence. */
void sb_pipeline_cpu_reference(const float *in, float *out, size_t n, int intensity);

/* The same chain, compared as it goes with got (in parallel, no reference
 * array): the count of elements over rel as in sb_compare_f32_rel_f32,
 * the lowest such index in *first (n if none). */
size_t sb_pipeline_check(const float *in, const float *got, size_t n, int intensity, double rel,
                         size_t *first);

/* As sb_compare_f32_rel, against a float reference: counts i with |got[i] - want[i]| > rel * |want[i]| (NaN counts); the
 * first such index in *first (n if none). */
size_t sb_compare_f32_rel_f32(const float *got, const float *want, size_t n, double rel,
                          size_t *first);

/* Family flags (sb_variant.flags, from SB_VF_FAMILY0 up): the traits a
 * family's host side reads from the variant table in kernels/<family>.cu. */
/* broken: SB_BROKEN_ROTATED (kernels/families/broken_flags.h). */
#include "../kernels/families/broken_flags.h"

/* GEMM (bench/gemm.c). fp16 on the host: round to nearest even (overflow
 * to inf, NaN kept), and back (exact). */
uint16_t sb_f32_to_f16(float f);
float sb_f16_to_f32(uint16_t h);
/* |C - C_exact| bound for one element: K and sum_k |a_k b_k| (derivation
 * in bench/gemm.c and docs/gemm.md). */
double sb_gemm_tolerance(long long k, double abs_dot);
/* % of thread 0's block cycles spent in epilogues, from the last
 * validating launch of a ws_tma-based variant (kernels/gemm/gemm.cu); NaN when
 * no such launch armed the profile since the last call (the call disarms). */
double sb_gemm_epilogue_pct(void);
/* The checked elements of an m x n C (indices row * n + col): corners,
 * last row, last column, one per 64 x 64 block, 4096 more. count bounds
 * what sample_set writes; it returns how many it wrote. */
size_t sb_gemm_sample_count(long long m, long long n);
size_t sb_gemm_sample_set(long long m, long long n, uint64_t salt, long long *idx);
/* The salt of a check's sample: the whole shape, the input's seed and the
 * check (sb_check_pass: validation, timed recheck, dirty workspace), so no
 * two checks of a point, nor two shapes or inputs, read the same places. */
uint64_t sb_gemm_sample_salt(long long m, long long n, long long k, uint64_t seed, int pass);
/* C[row][col] of A (m x k row-major fp16) * B (stored n x k) in double,
 * and sum_k |a_k b_k|. */
void sb_gemm_reference_at(const uint16_t *a, const uint16_t *b, long long n, long long k,
                          long long row, long long col, double *dot, double *abs_dot);
/* Counts elements idx[0..count) of C (m x n, fp32; idx NULL: all of them)
 * outside the tolerance; *first: the first such index (-1 if none).
 * (size_t)-1 when out of memory. */
size_t sb_gemm_check(const uint16_t *a, const uint16_t *b, const float *c, long long m, long long n,
                     long long k, const long long *idx, size_t count, long long *first);
/* The shapes every GEMM variant runs (kernels/gemm/gemm_tiles.h): K a
 * multiple of SB_GEMM_K_MULTIPLE, N of SB_GEMM_N_MULTIPLE, any M >= 1.
 * NULL for such a shape, else buf: a one-line refusal that names the rule. */
const char *sb_gemm_shape_refusal(long long m, long long n, long long k, char *buf, size_t len);
/* What a gemm variant compiles at a tile (kernels/gemm/gemm.cu states it
 * once, by the variant's composition), asked of its picker: consumer warps
 * (0: nothing at this tile), a bit per stage count (bit s: s stages), a
 * bit per cluster_shape value (0: no clusters). Returns out->warps != 0. */
typedef struct sb_gemm_compiled_info {
  int warps;
  unsigned stages;
  unsigned clusters;
} sb_gemm_compiled_info;
int sb_gemm_compiled(const sb_variant *v, int tile, sb_gemm_compiled_info *out);

#endif
