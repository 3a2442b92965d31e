/* CPU references and helpers the families expose to the host tests. */
#ifndef SB_FAMILIES_H
#define SB_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

/* Scan: out = `iters` successive inclusive scans (mod 2^32) of each tile of
 * `tile` consecutive elements of in; the last tile may be short. */
void sb_scan_reference(const uint32_t *in, uint32_t *out, size_t n, size_t tile,
                       int iters);

/* Compares got with want over n words. Returns the mismatch count and the
 * first mismatch index in *first (n if none). */
size_t sb_compare_u32(const uint32_t *got, const uint32_t *want, size_t n,
                      size_t *first);

/* Pipeline: out[i] = in[i] after intensity/2 steps of x = fmaf(x, A, B)
 * (kernels/pipeline_tiles.h), the kernels' exact sequence. */
void sb_pipeline_cpu_reference(const float *in, float *out, size_t n, int intensity);

/* Counts i with |got[i] - want[i]| > rel * |want[i]| (NaN counts); the
 * first such index in *first (n if none). */
size_t sb_compare_f32_rel(const float *got, const float *want, size_t n, double rel,
                          size_t *first);

#endif
