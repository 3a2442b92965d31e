/* GEMM family: the schedule math that the host side (bench/gemm.c, its
 * rules and tests) and the kernels (gemm_schedulers.cuh, gemm_fixups.cuh)
 * share: the split-K slices, the splits=auto cost model and its count,
 * the cluster split, and stream-K's shares of the k-tiles. C and C++.
 * It reads no tile shape: gemm_tiles.h (the tiles) includes it, not the
 * other way round. */
#ifndef SB_GEMM_SCHEDULE_MATH_H
#define SB_GEMM_SCHEDULE_MATH_H

#ifdef __CUDACC__
#define SB_GEMM_HD __host__ __device__
#else
#define SB_GEMM_HD
#endif

/* Any shape: a dimension of `size` in pieces of `piece` (a tile's rows or
 * columns, a k-tile's 64) takes ceil(size / piece) of them; the last one
 * may be partial (TMA fills its missing elements with zeros and clips its
 * stores; the cp.async loads and the direct stores take predicates). */
static inline SB_GEMM_HD int sb_gemm_cdiv(int size, int piece) { return (size + piece - 1) / piece; }
/* Split-K schedule (the kernels and tests/c/test_gemm.c share it): K slice
 * `slice` of `splits` covers k-tiles [begin(slice), begin(slice + 1)) of
 * kts; every slice gets floor or ceil of kts / splits (>= 1 when
 * splits <= kts). */
static inline SB_GEMM_HD int sb_gemm_slice_begin(int kts, int splits, int slice) {
  return (int)((long long)slice * kts / splits);
}

/* splits=auto (SB_AXIS_AUTO on the splits axis): the split count the
 * launcher runs for `tiles` output tiles of kts k-tiles each on sm_count
 * SMs (splitk_serial, splitk_parallel; splitk_reduce through
 * sb_gemm_reduce_auto_splits, below, the same count where its reduction
 * runs one group). The split variants
 * run one block per (tile, slice), one block per SM, so s slices run in
 * waves(s) = ceil(tiles s / SMs) waves of ceil(kts / s) k-tiles. A cost
 * model, in k-tiles of one block's mainloop, picks the s in [1, cap] with
 * the lowest estimate (ties: the smaller s):
 *
 *   T(s) = waves(s) ceil(kts / s) max(1, conc(s) / (MEM sqrt(tiles)))
 *        + RED tiles s / SMs
 *
 * - Memory: conc(s) = min(tiles s, SMs) blocks run at once, each streaming
 *   its tile's rows of A and columns of B. The blocks of one K slice share
 *   them over a sqrt(tiles) x sqrt(tiles) grid of tiles, so the distinct
 *   traffic is conc / sqrt(tiles) blocks' worth; past MEM blocks' worth,
 *   memory sets the pace and more slices stop shortening the mainloop
 *   (1 tile: past 48 slices; 4 tiles: past 24; 16 tiles: past 12).
 * - Combining: every block writes an fp32 partial tile that is read back
 *   (the reduction kernel, the last slice or the next one); a wave's worth
 *   (SMs partial tiles) costs RED k-tiles.
 * - cap = min(kts / SB_GEMM_AUTO_MIN_SLICE_KTS, SB_GEMM_AUTO_MAX_SPLITS):
 *   no slice under 8 k-tiles, at most 32 slices (no measured shape ran
 *   best with shorter slices or more of them).
 * No fixed cost per wave (prologue, pipeline fill): the data does not
 * call for one (4 to 32 k-tiles of it change one measured choice, 1152^2 x
 * 8192: 1 instead of 3, 80.4-80.5 % of cuBLAS against 81.4 %).
 *
 * MEM and RED are fitted by scripts/fit_auto_splits.py, which
 * tests/py/test_splits_auto.py reruns, to the H100's (132 SMs) splitk_reduce
 * rows, % of cuBLAS: results/h100-80gb-hbm3/proofs/round_075319f/splits.csv
 * (commit 075319f: m = n = 128, 256, 1152, k = 8k-64k, splits 2-64),
 * proofs/offsweep_4152772/gemm.csv (commit 4152772: m = n = 128-1152,
 * splits 2-32 and auto, both tiles), proofs/offsweep_2f31c13/gemm.csv and
 * latest.csv / baseline.csv (commit 2f31c13). Every choice there runs
 * within 3 points of the best measured count, or was not measured
 * (docs/gemm.md has the table). As rates: 48 blocks x 32 KiB a k-tile
 * at ~0.3 us a k-tile is ~5 TB/s (HBM plus L2 hits); 132 partials (8.6 MB
 * written and read) in 32 k-tiles, ~10 us.
 * On 132 SMs: 1152^2 (81 tiles of 128x128) -> 3 (243 blocks: two nearly
 * full waves; 96.5 % of cuBLAS at k = 64k, where 1 ran 78-79 %);
 * 1024x1024x16384: 64 tiles -> 2, 32 tiles of 128x256 -> 4; 512x512x32768:
 * 16 tiles -> 8, 8 tiles of 128x256 -> 16 (tests/c/test_gemm.c has more).
 * The 64x128 tile takes the same model, its tiles counted, not refitted:
 * within 3 points of the best measured count at 7 of 8 shapes of m = 128,
 * 256 x 8k-64k, but 26 slices at 128^2 x 16k where 16 ran 4.4 points
 * better (H100, edbf733, proofs/round_edbf733/splits64.csv; docs/gemm.md).
 * Integer arithmetic (the square root in 1/1024 steps), so host, device
 * and the fit's Python agree exactly. */
#define SB_GEMM_AUTO_MIN_SLICE_KTS 8
#define SB_GEMM_AUTO_MAX_SPLITS 32
#define SB_GEMM_AUTO_MEM_BLOCKS 48 /* MEM */
#define SB_GEMM_AUTO_RED_KTS 32    /* RED */
static inline SB_GEMM_HD unsigned long long sb_gemm_isqrt(unsigned long long x) {
  unsigned long long r = 0, bit = 1ULL << 62;
  while (bit > x) bit >>= 2;
  for (; bit; bit >>= 2) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
  }
  return r;
}
/* T(s) of the comment above, times 1024 x sm_count (an integer): the
 * mainloop's walk, then the combining of `partials` fp32 tiles. */
static inline SB_GEMM_HD unsigned long long sb_gemm_auto_walk(int tiles, int kts, int sm_count, int s) {
  const unsigned long long blocks = (unsigned long long)tiles * (unsigned long long)s;
  const unsigned long long sms = (unsigned long long)sm_count, mem = SB_GEMM_AUTO_MEM_BLOCKS;
  const unsigned long long conc = blocks < sms ? blocks : sms, waves = (blocks + sms - 1) / sms;
  const unsigned long long slice = ((unsigned long long)kts + (unsigned long long)s - 1) / (unsigned long long)s;
  unsigned long long pace = sb_gemm_isqrt((conc * conc << 20) / (mem * mem * (unsigned long long)tiles));
  if (pace < 1024) pace = 1024; /* 1024 = the tensor cores' pace */
  return waves * slice * pace * sms;
}
static inline SB_GEMM_HD unsigned long long sb_gemm_auto_combine(unsigned long long partials) {
  return (unsigned long long)SB_GEMM_AUTO_RED_KTS * 1024 * partials;
}
static inline SB_GEMM_HD unsigned long long sb_gemm_auto_cost(int tiles, int kts, int sm_count, int s) {
  return sb_gemm_auto_walk(tiles, kts, sm_count, s) +
         sb_gemm_auto_combine((unsigned long long)tiles * (unsigned long long)s);
}
/* splitk_reduce's separate reduction (gemm_fixups.cuh, gemm_reduce_partials):
 * a block of SB_GEMM_REDUCE_THREADS sums (threads / groups) float4s of one
 * tile, `groups` threads a float4, each over its contiguous share of the
 * slices, the shares then added in slice order through shared memory.
 * With one group a float4 a one-tile output (128^2) runs 16 blocks, 16-32
 * slices' loads each, on 16 SMs; cuBLAS's reduction there runs 32 blocks
 * of 512 threads (one thread a float of C). The count: 8 groups (at most
 * the slices, a power of two) where 8 times the one-group grid fits in one
 * wave, else 1. Measured against one group (H200, A/B; docs/history.md,
 * "the separate reduction's slice groups"): 8 groups at 128^2 x 16k-64k
 * 4.0-12.5% faster at 24-32 slices (four A/B runs); 2 or 4 groups at
 * 256^2 (64 blocks) up to 9.4% slower at 8-13 slices, and 2 at 384^2 (72
 * blocks) 3.5-8.5% slower at 7. A share's loads batched (926afa2): 128^2
 * 2.7-5.7% faster again at auto slices. */
#ifndef SB_GEMM_REDUCE_THREADS
#define SB_GEMM_REDUCE_THREADS 256
#endif
#define SB_GEMM_REDUCE_MAX_GROUPS 8
/* The one-group reduction's blocks a tile of bm x bn: a thread a float4. */
static inline SB_GEMM_HD int sb_gemm_reduce_blocks_per_tile(long long bm_bn) {
  return (int)(bm_bn / 4 / SB_GEMM_REDUCE_THREADS);
}
static inline SB_GEMM_HD int sb_gemm_reduce_groups(long long blocks, int splits, int sm_count) {
  if (blocks * SB_GEMM_REDUCE_MAX_GROUPS > sm_count) return 1;
  int g = 1;
  while (2 * g <= SB_GEMM_REDUCE_MAX_GROUPS && 2 * g <= splits) g *= 2;
  return g;
}
/* The one-group reduction's width (kernels/gemm/gemm_fixups.cuh): the
 * narrow kernel (4 loads a thread in flight, 6 blocks an SM) where the grid
 * of `blocks` is over one wave of the wide one (8 loads, `wide_per_sm`
 * blocks an SM: its occupancy, read from the runtime), else the wide one. */
static inline SB_GEMM_HD int sb_gemm_reduce_narrow(long long blocks, int wide_per_sm, int sm_count) {
  return blocks > (long long)wide_per_sm * sm_count;
}
/* The model's argmin over s in [1, min(kts / SB_GEMM_AUTO_MIN_SLICE_KTS,
 * max_splits)], the smaller s of a tie, for one of the combining schemes:
 * SB_GEMM_COMBINE_MEMORY, a partial tile through memory per block
 * (sb_gemm_auto_cost); SB_GEMM_COMBINE_COOPERATIVE, splitk_cooperative's:
 * every block of a tile reads 1/s of every partial, one partial's worth a
 * block whatever s, so the combining term does not grow with s, and s
 * stops at one wave (a cooperative grid is resident: tiles x s <= SMs, one
 * block per SM at the split stages). reduce_blocks: for
 * SB_GEMM_COMBINE_MEMORY through splitk_reduce's separate reduction, its
 * one-group grid (tiles x BM BN / 4 / SB_GEMM_REDUCE_THREADS), whose
 * groups (sb_gemm_reduce_groups, above) share the combining term: the
 * partials read on that many times the SMs; 0 for the other schemes. */
enum { SB_GEMM_COMBINE_MEMORY, SB_GEMM_COMBINE_COOPERATIVE };
static inline SB_GEMM_HD int sb_gemm_argmin_splits(int tiles, int kts, int sm_count, int max_splits, int combine,
                                                   long long reduce_blocks) {
  if (tiles < 1 || kts < 1 || sm_count < 1) return 1;
  int cap = kts / SB_GEMM_AUTO_MIN_SLICE_KTS;
  if (cap > max_splits) cap = max_splits;
  if (combine == SB_GEMM_COMBINE_COOPERATIVE && cap > sm_count / tiles) cap = sm_count / tiles;
  int best = 1;
  unsigned long long best_cost = 0;
  for (int s = 1; s <= cap || s == 1; ++s) {
    const unsigned groups = reduce_blocks > 0 ? (unsigned)sb_gemm_reduce_groups(reduce_blocks, s, sm_count) : 1u;
    const unsigned long long c =
        sb_gemm_auto_walk(tiles, kts, sm_count, s) +
        (combine == SB_GEMM_COMBINE_COOPERATIVE
             ? sb_gemm_auto_combine((unsigned long long)tiles)
             : sb_gemm_auto_combine((unsigned long long)tiles * (unsigned long long)s) / groups);
    if (s == 1 || c < best_cost) best = s, best_cost = c;
  }
  return best;
}
static inline SB_GEMM_HD int sb_gemm_auto_splits(int tiles, int kts, int sm_count) {
  return sb_gemm_argmin_splits(tiles, kts, sm_count, SB_GEMM_AUTO_MAX_SPLITS, SB_GEMM_COMBINE_MEMORY, 0);
}
/* splitk_reduce's splits=auto: the same model, its combining term shared by
 * its reduction's groups; blocks_per_tile = the one-group reduction blocks
 * a tile (BM BN / 4 / SB_GEMM_REDUCE_THREADS). Where the reduction runs one
 * group, the same count as sb_gemm_auto_splits. At 128^2 x 16k (2 tiles of
 * 64x128): 32 slices, where the model without groups says 26 (H200,
 * 1e06a2e: 90.4 against 87.7% of cuBLAS). */
static inline SB_GEMM_HD int sb_gemm_reduce_auto_splits(int tiles, int kts, int sm_count, int blocks_per_tile) {
  return sb_gemm_argmin_splits(tiles, kts, sm_count, SB_GEMM_AUTO_MAX_SPLITS, SB_GEMM_COMBINE_MEMORY,
                               (long long)tiles * blocks_per_tile);
}
/* splitk_cooperative's splits=auto (above): at most 128 slices. */
#define SB_GEMM_COOP_AUTO_MAX_SPLITS 128
static inline SB_GEMM_HD int sb_gemm_coop_auto_splits(int tiles, int kts, int sm_count) {
  return sb_gemm_argmin_splits(tiles, kts, sm_count, SB_GEMM_COOP_AUTO_MAX_SPLITS, SB_GEMM_COMBINE_COOPERATIVE, 0);
}

/* splitk_cluster (kernels/gemm/gemm_schedulers.cuh, GemmClusterEpi): the blocks
 * of one tile's K slices in clusters of C CTAs that sum their partials in
 * distributed shared memory; C = the largest power of two up to 8 (the
 * portable cluster size) that divides splits, so a tile has splits / C
 * clusters (groups), whose sums meet in the workspace. */
#define SB_GEMM_CLUSTER_MAX_CTAS 8
static inline SB_GEMM_HD int sb_gemm_cluster_ctas(int splits) {
  int c = 1;
  while (c < SB_GEMM_CLUSTER_MAX_CTAS && splits % (2 * c) == 0) c *= 2;
  return c;
}
/* splitk_cluster's splits=auto: sb_gemm_auto_splits's count rounded down
 * to a power of two (whole clusters, one a tile up to 8 slices), then
 * halved while its clusters would take more waves than as many blocks
 * unclustered: a GPC holds whole clusters only, so fewer blocks of a
 * cluster grid run at once than SMs. clusters_at_once[c]: the clusters of
 * c blocks the device holds at once (cudaOccupancyMaxActiveClusters, c =
 * 2, 4, 8; SB_GEMM_CLUSTER_MAX_CTAS + 1 entries); NULL or <= 0:
 * sm_count / c. On an H200 (132 SMs, one block
 * an SM) 66 of 2, 30 of 4, 15 of 8 (scripts/probes/cluster_map.cu): at
 * 512^2 x 32k the model's 8 slices are 16 clusters of 8, two waves, where
 * 4 slices (16 of 4) run in one: 51-54% of cuBLAS against 66-67%
 * (results/h200/proofs/splitk_counts_630d789). Also halved while half
 * the slices would run in one wave of blocks where these need more: at
 * 768^2 x 64k the model's 7 round to 4, 144 blocks on 132 SMs, 54% of
 * cuBLAS where 2 slices read 68% (proofs/splitk_auto_3d5fb10); at 1152^2
 * (81 tiles of 128x128) no split, as ws_tma_wgmma's 82% against 2 slices'
 * 62-64% (proofs/offsweep_9df5b23).
 * The rounding: the cluster's own cost model (the combining term for the
 * partials that leave a cluster only) chose more slices, and lost. A
 * likely reason, not profiled: the CTAs of a cluster share one GPC, so a
 * cluster of 8 streams A and B through one GPC's path to L2 where 8 blocks
 * of splitk_reduce spread over the GPU (under ncu its kernel took 15.7 us
 * at 128^2 x 8k, 16 slices, where splitk_reduce's GEMM kernel took 9.9).
 * Measured (H100, 7bc533a, proofs/cluster_7bc533a/probe.csv; % of
 * cuBLAS): 384^2 x 64k 8 slices 83.3 against the model's 40 at 65.4,
 * 640^2 x 64k 4 at 66.3 against 24 at 51.8, 256^2 x 8k 8 at 77.1 against
 * 16 at 70.6. */
static inline SB_GEMM_HD int sb_gemm_cluster_auto_splits(int tiles, int kts, int sm_count,
                                                         const int *clusters_at_once) {
  const int s = sb_gemm_auto_splits(tiles, kts, sm_count);
  int p = 1;
  while (2 * p <= s) p *= 2;
  for (; p > 1; p /= 2) {
    const int c = sb_gemm_cluster_ctas(p);
    int fit = clusters_at_once ? clusters_at_once[c] : 0;
    if (fit <= 0) fit = sm_count / c > 0 ? sm_count / c : 1;
    const long long blocks = (long long)tiles * p, clusters = blocks / c;
    const long long block_waves = (blocks + sm_count - 1) / sm_count;
    /* Half the slices in one wave take a tile's K in as long as these in
     * two or more do (K / (p/2) against waves x K / p), with less to combine. */
    const int half_in_one_wave = block_waves > 1 && blocks / 2 <= sm_count;
    if ((clusters + fit - 1) / fit <= block_waves && !half_in_one_wave) break;
  }
  return p;
}

/* Stream-K schedule over a persistent grid of `grid` blocks: the first
 * sk_tiles tiles (in the grouped tile order) are stream-K, their
 * sk_tiles * kts MAC iterations (k-tiles) split evenly over the first
 * sk_grid blocks, block b taking [begin(b), begin(b + 1)); the other tiles,
 * a whole number of waves, are data-parallel (block b: tiles
 * sk_tiles + b + j * grid).
 * - Fewer tiles than blocks: all stream-K, over the largest multiple of the
 *   tile count (sk_grid), so that every tile is split at the same k-tiles
 *   and the blocks running at once read the same k-slices of A and B (L2
 *   reuse; an uneven split lost it: 60 % of cuBLAS at 1024x1024x16384
 *   against split-K's 83-91 %, H100, commit 5007426). Also when more than
 *   half the blocks would hold a tile each (grid / 2 < tiles < grid): the
 *   multiple is then the tile count, nothing is split and up to half the
 *   SMs idle (81 tiles of 1152^2 on 132), yet spreading the tiles over
 *   every block, 1-3 a tile, measured worse: 1152^2 x 8k-64k 58-71 % of
 *   cuBLAS against 77-84 % (proofs/offsweep_2f31c13 and _4152772), 2048^2
 *   (128 tiles of 128x256) 77.8-78.1 % against 88.7 % (the committed
 *   2f31c13 pair against proofs/round_4152772/latest.csv; H100).
 * - Otherwise hybrid DP + SK: the last full wave plus the partial one are
 *   stream-K, unless the partial wave is at least half full: then the
 *   quantization costs less than the stream-K fix-up and its lost L2 reuse
 *   did (4096^3: 79 % against 92 % of cuBLAS for DP; 8192^3: 93 % against
 *   100 %), and every tile is data-parallel. */
static inline SB_GEMM_HD int sb_gemm_sk_tiles(int tiles, int grid) {
  if (tiles < grid) return tiles;
  const int rem = tiles % grid;
  return rem == 0 || 2 * rem >= grid ? 0 : rem + grid;
}
static inline SB_GEMM_HD int sb_gemm_sk_grid(int tiles, int grid) {
  return tiles < grid ? grid / tiles * tiles : grid;
}
/* Stream-K's combining: how many blocks feed the most-shared stream-K tile
 * (1 when every tile is data-parallel). The in-kernel fix-up has the tile's
 * last k-piece wait for the blocks before it and add their partials one
 * after another, one block reading them all: fine for a few, not for the
 * 33 blocks per tile that a 2 x 2-tile output gets on 132 SMs. Beyond
 * SB_GEMM_SK_FIXUP_MAX feeding blocks every block only saves its partial
 * and a separate reduction kernel (a PDL secondary, one thread per float4
 * of a tile) sums each split tile: CUTLASS's separate reduction, cuBLASLt's
 * CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE. */
#define SB_GEMM_SK_FIXUP_MAX 4
static inline SB_GEMM_HD int sb_gemm_sk_begin(int sk_iters, int sk_grid, int b);
static inline int sb_gemm_sk_units_per_tile(int tiles, int kts, int grid) {
  const int sk_tiles = sb_gemm_sk_tiles(tiles, grid), sk_grid = sb_gemm_sk_grid(tiles, grid);
  const int sk_iters = sk_tiles * kts;
  int most = sk_tiles ? 0 : 1, c = 0;
  for (int t = 0; t < sk_tiles; ++t) {
    const int lo = t * kts, hi = lo + kts;
    while (c < sk_grid && sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) <= lo) ++c;
    int n = 0;
    for (int d = c; d < sk_grid && sb_gemm_sk_begin(sk_iters, sk_grid, d) < hi; ++d)
      n += sb_gemm_sk_begin(sk_iters, sk_grid, d + 1) > sb_gemm_sk_begin(sk_iters, sk_grid, d);
    if (n > most) most = n;
  }
  return most;
}
static inline int sb_gemm_sk_separate(int tiles, int kts, int grid) {
  return sb_gemm_sk_units_per_tile(tiles, kts, grid) > SB_GEMM_SK_FIXUP_MAX;
}
/* Nothing to split on a persistent grid of `grid` blocks: one block feeds
 * every tile (all data-parallel, or as many tiles as blocks or more than
 * half as many). Stream-K then launches the data-parallel kernel it is
 * there, ws_tma_wgmma's own (same tile and stages), a block per tile, not
 * its persistent grid: at 1912426 its own kernel on a block-per-tile grid
 * still ran 0.5 us behind ws_tma_wgmma at 1024^3 and 2048^3 (76.8 and 91.8
 * % of cuBLAS against 79.9 and 93.5 %, H100). At the squares the
 * persistent one took fewer cycles than ws_tma_wgmma at locked clocks yet
 * ran 4-6 points behind it in the sweep, under the power cap (H100,
 * a973f88; docs/gemm.md, "Off the default sweep"). Also where fewer tiles
 * than blocks would be cut but splits=auto's cost model
 * (sb_gemm_auto_splits, above) says one slice a tile is best: at 1024^3
 * the 2-way cut of 16 k-tiles ran 61.9 % of cuBLAS against ws_tma_wgmma's
 * 79.1 % (H100, ba6bb64). */
static inline int sb_gemm_sk_data_parallel(int tiles, int kts, int grid) {
  return sb_gemm_sk_units_per_tile(tiles, kts, grid) == 1 ||
         (tiles < grid && sb_gemm_auto_splits(tiles, kts, grid) == 1);
}

/* 32-bit arithmetic (a 64-bit division in the kernel's fix-up costs
 * registers the accumulators need): b * sk_iters < 2^32 holds while
 * sk_iters <= SB_GEMM_SK_MAX_ITERS and grid <= 1024 (bench/gemm.c checks).
 * Blocks from sk_grid on have empty ranges. */
#define SB_GEMM_SK_MAX_ITERS (1 << 22)
static inline SB_GEMM_HD int sb_gemm_sk_begin(int sk_iters, int sk_grid, int b) {
  return b >= sk_grid ? sk_iters : (int)((unsigned)b * (unsigned)sk_iters / (unsigned)sk_grid);
}

/* The separate reduction's bookkeeping (kernels/gemm/gemm_schedulers.cuh), here
 * so that tests/c/test_gemm.c checks it against the kernel's walk.
 * Block b's piece of a split tile goes to workspace slot 2b when it starts
 * inside the tile (its first piece), else 2b + 1 (its last piece, from the
 * tile's start): a block's range meets at most two split tiles that way. */
static inline SB_GEMM_HD int sb_gemm_sk_slot(int b, int starts_inside) { return 2 * b + (starts_inside ? 0 : 1); }
/* The last block whose range starts at or before iteration lo (block 0
 * starts at 0): the first block that feeds the tile starting at lo. */
static inline SB_GEMM_HD int sb_gemm_sk_first_block(int sk_iters, int sk_grid, int lo) {
  int c = (int)((long long)lo * sk_grid / sk_iters);
  while (c + 1 < sk_grid && sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) <= lo) ++c;
  while (c > 0 && sb_gemm_sk_begin(sk_iters, sk_grid, c) > lo) --c;
  return c;
}

#endif
