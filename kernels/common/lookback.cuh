// Flags between blocks on different SMs: GPU-scope status words packed
// with their values (kernels/common/flag_word.h), the policies they are published
// and read with, and the decoupled look-back over them (Merrill & Garland
// 2016). One definition for every user:
//   devscan (kernels/families/devscan.cu)  chained, lookback, lookback_relaxed and
//                                 cluster_lookback hand prefixes over with them
//   barrier (kernels/families/barrier.cu)  the price list times them on their own:
//                                 flag_handoff(_relaxed) (publish + wait_for,
//                                 ping-pong between two SMs) and
//                                 lookback_walk_<w> (look_back over w words)
// so a price and the scan that it explains run the same instructions.
#ifndef SB_KERNELS_LOOKBACK_CUH
#define SB_KERNELS_LOOKBACK_CUH

#include <stdint.h>

#include "flag_word.h"
#include "mbarrier.cuh"  // the deadlock watchdog's clock check (sb_wd_check)

// Sleeps only in a grid of many tiles (as CUB: 500 or more): a small grid
// is resident at once and its few polls contend little.
#define DEV_SLEEP_MIN_TILES 500

// How the flags are published, read and waited on: memory order, a sleep
// before the first window read (time for the predecessors' flags to land in
// L2) and between polls of a window that still holds X (less polling
// traffic on the flags' L2 lines). CUB's sm_90 tuning for 4-byte sums is
// 1245 ns and 648 ns (fixed_delay_constructor_t<648, 1245>); this suite's
// first sleep is longer: 3000 ns, the middle of the plateau that the sleep
// sweep found on an H100 and an H200 (2500-3500 ns: 3 points of copy over
// 1245 ns at 256M; docs/devscan.md, "Sleeps").
// Window: flag words a look-back step reads (32 x R: each lane reads R
// words, R loads in flight). MinTiles: the grid size from which the sleeps
// are on; DEV_SLEEP_MIN_TILES_RUNTIME reads it from DevFlags::sleep_min (the
// devscan tuning instances, whose threshold is an axis), so one instance
// serves every threshold.
#define DEV_SLEEP_MIN_TILES_RUNTIME (-1)
template <bool Relaxed, int FirstNs, int PollNs, int Window = 32, int MinTiles = DEV_SLEEP_MIN_TILES>
struct DevLookPolicy {
  static_assert(Window % 32 == 0 && Window >= 32, "whole warps of flag words");
  static constexpr bool relaxed = Relaxed;
  static constexpr int first_ns = FirstNs, poll_ns = PollNs, window = Window, min_tiles = MinTiles;
};
// Measured on an H100 (docs/devscan.md): without the sleeps the look-back
// reached 65-76% of copy at 256M, with CUB's 82-87%.
using DevLookAcqRel = DevLookPolicy<false, 3000, 648>;
using DevLookRelaxed = DevLookPolicy<true, 3000, 648>;

// The protocol object of the single-pass variants: one 64-bit word per tile
// (or cluster tile), status in the high half, value in the low half, so one
// load sees both. X = not yet published, A = the value is the tile's
// aggregate, P = its inclusive prefix. The words are numbered by launch
// (devscan: zeroed once by the point's query, never inside a timed launch):
// launch e publishes status (e << 2) + A or + P in the high half, so every
// word an earlier launch left is below this launch's A words and reads as X
// (a0, p0: this launch's A and P words of value 0; the defaults, launch 0,
// serve the price list's rows, whose words are set up per launch). Two
// compares against kernel parameters, as cheap as the test of the status.
// Bounded (validating launch): a wait that keeps failing for the watchdog's
// bound traps with a record (stage = the word waited on), so a broken
// protocol is a `deadlock` row; raw (timed): a plain spin.
template <class Pol, bool Bounded>
struct DevFlags {
  static constexpr unsigned long long X = SB_FLAG_X, A = SB_FLAG_A, P = SB_FLAG_P;
  unsigned long long *word;
  int count;         // words in use: Pol::min_tiles or more turn the sleeps on
  unsigned long long a0 = A << 32, p0 = P << 32;  // this launch's A and P words, value 0
  int sleep_min = DEV_SLEEP_MIN_TILES;  // Pol::min_tiles, when that is DEV_SLEEP_MIN_TILES_RUNTIME

  __device__ bool is_x(unsigned long long w) const { return w < a0; }
  __device__ bool is_p(unsigned long long w) const { return w >= p0; }

  // GPU scope: writer and reader are blocks on different SMs. Release /
  // acquire: a reader that sees the word also sees everything the writer
  // wrote before it. Relaxed: the word itself is still read whole (64-bit
  // single-copy atomicity), all the packed protocol needs (docs/devscan.md).
  __device__ void publish(int i, unsigned long long status, uint32_t v) const {
    const unsigned long long w = (status == P ? p0 : a0) | v;
    if constexpr (Pol::relaxed)
      asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(word + i), "l"(w) : "memory");
    else
      asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(word + i), "l"(w) : "memory");
  }
  __device__ unsigned long long read(int i) const {
    unsigned long long w;
    if constexpr (Pol::relaxed)
      asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(word + i) : "memory");
    else
      asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(word + i) : "memory");
    return w;
  }

  // One thread (chained): spins until word i holds P; returns its value.
  __device__ uint32_t wait_inclusive(int i) const {
    unsigned long long w = read(i), t0 = 0;
    while (!is_p(w)) {
      failed_poll(&t0, i);
      w = read(i);
    }
    return (uint32_t)w;
  }

  // One thread (the price list's flag_handoff): spins until word i holds
  // exactly `want` (a status and a value: a token that changes every round).
  __device__ void wait_for(int i, unsigned long long want) const {
    unsigned long long t0 = 0;
    while (read(i) != want) failed_poll(&t0, i);
  }

  // Warp 0 of tile `tile` (> 0), after lane 0 published A: the decoupled
  // look-back over words tile-1, tile-2, ... 32 at a time (lane k reads
  // word i - k). Spins while any lane reads X; then the nearest P ends the
  // look-back, and the A values before it (and that P) add up to the tile's
  // exclusive prefix, returned to every lane. A window wider than 32:
  // look_back_wide.
  __device__ uint32_t look_back(int tile) const {
    if constexpr (Pol::window > 32) return look_back_wide(tile);
    const int lane = threadIdx.x & 31;
    const bool sleep = sleeps();
    uint32_t exclusive = 0;
    unsigned long long t0 = 0;
    if (Pol::first_ns > 0 && sleep) __nanosleep(Pol::first_ns);
    for (int i = tile - 1;; i -= 32) {
      const int k = i - lane;
      unsigned long long w = k >= 0 ? read(k) : p0;
      while (__any_sync(0xffffffffu, is_x(w))) {
        if (Pol::poll_ns > 0 && sleep) __nanosleep(Pol::poll_ns);
        if (is_x(w)) {
          failed_poll(&t0, k);
          w = read(k);
        }
      }
      const unsigned p_lanes = __ballot_sync(0xffffffffu, is_p(w));
      const int stop = p_lanes ? __ffs(p_lanes) - 1 : 31;  // the nearest P, or all 32
      exclusive += __reduce_add_sync(0xffffffffu, lane <= stop ? (uint32_t)w : 0u);
      if (p_lanes) return exclusive;
    }
  }

  // The same over a window of 32 x R words: lane k reads words i - k,
  // i - 32 - k, ... (R loads in flight); the nearest P is the first set bit
  // of the first ballot that has one.
  __device__ uint32_t look_back_wide(int tile) const {
    constexpr int R = Pol::window / 32;
    const int lane = threadIdx.x & 31;
    const bool sleep = sleeps();
    uint32_t exclusive = 0;
    unsigned long long t0 = 0;
    if (Pol::first_ns > 0 && sleep) __nanosleep(Pol::first_ns);
    for (int i = tile - 1;; i -= Pol::window) {
      unsigned long long w[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int k = i - 32 * r - lane;
        w[r] = k >= 0 ? read(k) : p0;
      }
      for (;;) {
        bool any_x = false;
#pragma unroll
        for (int r = 0; r < R; ++r) any_x |= is_x(w[r]);
        if (!__any_sync(0xffffffffu, any_x)) break;
        if (Pol::poll_ns > 0 && sleep) __nanosleep(Pol::poll_ns);
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (is_x(w[r])) {
            const int k = i - 32 * r - lane;
            failed_poll(&t0, k);
            w[r] = read(k);
          }
      }
      bool found = false;  // a P in an earlier (nearer) row: this row adds nothing
      uint32_t mine = 0;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const unsigned p_lanes = __ballot_sync(0xffffffffu, is_p(w[r]));
        const int stop = p_lanes ? __ffs(p_lanes) - 1 : 31;
        mine += !found && lane <= stop ? (uint32_t)w[r] : 0u;
        found |= p_lanes != 0;
      }
      exclusive += __reduce_add_sync(0xffffffffu, mine);
      if (found) return exclusive;
    }
  }

 private:
  __device__ bool sleeps() const {
    return count >= (Pol::min_tiles == DEV_SLEEP_MIN_TILES_RUNTIME ? sleep_min : Pol::min_tiles);
  }
  __device__ static void failed_poll(unsigned long long *t0, int waited_on) {
#if SB_WATCHDOG
    if constexpr (Bounded) sb_wd_check(sb_wd_now_ns(), t0, 0u, 0u, waited_on);
#endif
    (void)t0, (void)waited_on;
  }
};

#endif
