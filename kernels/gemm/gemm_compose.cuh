// GEMM family, the composition: a variant is a choice of four parts, in the
// manner of CUTLASS 3's GemmUniversal<ProblemShape, CollectiveMainloop,
// CollectiveEpilogue, TileScheduler>:
//   mainloop  how a stage is loaded and handed over (gemm_mainloop.cuh):
//             cp.async by every thread in 1, 2 or S buffers, a cp.async
//             producer warp, an elected TMA producer, TMA multicast in
//             clusters of 2;
//   consumer  what computes a full stage (gemm_consumers.cuh): mma.sync
//             warps, wgmma warpgroups, or two wgmma warpgroups in ping-pong;
//   schedule  which tiles and k-tiles a block takes, and where partial
//             tiles meet (gemm_schedulers.cuh, gemm_fixups.cuh): data-
//             parallel, clusters of tiles, persistent, split-K with each of
//             its fix-ups, stream-K; its host side (gemm_launch.cuh) gives
//             the grid and the workspace;
//   epilogue  how C is written: direct stores, or TMA stores from shared memory.
// Each part is a tag: its name (the CSV's mainloop / consumer / schedule /
// epilogue columns, --list's) and the facts the kernel, the stage lists,
// the launch and the table's flags read from it. A variant
// (kernels/gemm/gemm.cu) names its four parts once (GemmComposition) and
// writes only its synchronization; nothing else restates them.
#ifndef SB_KERNELS_GEMM_COMPOSE_CUH
#define SB_KERNELS_GEMM_COMPOSE_CUH

#include <type_traits>

#include "../../harness/launch.h"
#include "gemm_consumers.cuh"
#include "gemm_mainloop.cuh"
#include "gemm_params.cuh"

// ---- mainloops ----
// ws: warp-specialized (consumer warps, then one producer warp), hence an
// mbarrier ring whose waits the validating twin bounds; tma: the stages
// arrive by TMA (sm_90); fixed_stages: the stage count the loop is (0: the
// stages axis); cluster_m x cluster_n: the CTAs that share a stage's loads.
// A warp-specialized mainloop is also its producer (gemm_mainloop.cuh:
// GemmProduceCpAsync, GemmProduceTma, GemmProduceTmaMulticast), which the
// one warp-specialized body (gemm_ws_body) runs.
struct GemmMainloopBase {
  static constexpr bool ws = false, tma = false;
  static constexpr int fixed_stages = 0, cluster_m = 1, cluster_n = 1;
  static constexpr int producer_warps = 1;  // ws: the producer's warps, after the consumers'
};
struct GemmCpAsyncOneBuffer : GemmMainloopBase {  // single
  static constexpr const char *name = "cp_async_1buf";
  static constexpr int fixed_stages = 1;
};
struct GemmCpAsyncTwoBuffers : GemmMainloopBase {  // swap
  static constexpr const char *name = "cp_async_2buf";
  static constexpr int fixed_stages = 2;
};
struct GemmCpAsyncRing : GemmMainloopBase {  // ring
  static constexpr const char *name = "cp_async_ring";
};
struct GemmCpAsyncProducer : GemmMainloopBase, GemmProduceCpAsync {  // ws_mbarrier
  static constexpr const char *name = "cp_async_ws";
  static constexpr bool ws = true;
};
#ifdef SB_EXPERIMENTAL
struct GemmCpAsyncWarpgroup : GemmMainloopBase, GemmProduceCpAsyncT<4> {  // ws_cp_async_wg_wgmma
  static constexpr const char *name = "cp_async_wg";
  static constexpr bool ws = true;
  static constexpr int producer_warps = 4;
};
#endif
struct GemmTmaLoads : GemmMainloopBase, GemmProduceTma {  // the elected TMA producer
  static constexpr const char *name = "tma";
  static constexpr bool ws = true, tma = true;
};
template <int CM, int CN>
struct GemmTmaMulticast : GemmMainloopBase, GemmProduceTmaMulticast<CM, CN> {  // clusters of CM x CN CTAs share operands
  static constexpr const char *name = "tma_multicast";
  static constexpr bool ws = true, tma = true;
  static constexpr int cluster_m = CM, cluster_n = CN;
};

// ---- consumers ----
// groups: consumer warpgroups (or warp sets) a block, each a whole tile;
// wgmma: sm_90a's warpgroup MMA (one warpgroup may hold a tile of fewer
// than 4 64x64 pieces: the one-warpgroup tiles); Math: what a consumer
// computes and stores (gemm_consumers.cuh).
struct GemmMmaSyncWarps {
  static constexpr const char *name = "mma_sync";
  template <class T>
  using Math = GemmWarpMma<T>;
  static constexpr int groups = 1;
  static constexpr bool wgmma = false;
};
struct GemmWgmmaWarpgroups {
  static constexpr const char *name = "wgmma";
  template <class T>
  using Math = GemmWarpgroupMma<T>;
  static constexpr int groups = 1;
  static constexpr bool wgmma = true;
};
struct GemmWgmmaPingpong {
  static constexpr const char *name = "wgmma_pingpong";
  template <class T>
  using Math = GemmWarpgroupMma<T>;
  static constexpr int groups = 2;
  static constexpr bool wgmma = true;
};

// ---- epilogues ----
struct GemmDirectStores {
  static constexpr const char *name = "direct";
  static constexpr bool tma_store = false;
};
struct GemmTmaStores {
  static constexpr const char *name = "tma_store";
  static constexpr bool tma_store = true;
};

// ---- the composition ----
// The schedules are gemm_schedulers.cuh's (GemmSchedule*): each has its
// name, whether it cuts K (split-K, stream-K), whether its grid is
// persistent, and its host side.
template <class Mainloop_, class Consumer_, class Schedule_, class Epilogue_>
struct GemmComposition {
  using Mainloop = Mainloop_;
  using Consumer = Consumer_;
  using Schedule = Schedule_;
  using Epilogue = Epilogue_;
  static constexpr bool ws = Mainloop::ws;
  // The mbarrier-waiting variants (the warp-specialized ones) validate with
  // their Bounded twin and time the raw kernel.
  static constexpr bool twin = Mainloop::ws;
  static constexpr int groups = Consumer::groups;
  static constexpr int cluster_m = Mainloop::cluster_m, cluster_n = Mainloop::cluster_n;
  static constexpr bool tma_store = Epilogue::tma_store;
  // wgmma needs sm_90a's arch-specific features; cp.async, sm_80; TMA, sm_90.
  static constexpr bool sm90a = Consumer::wgmma;
  static constexpr int min_cc = Mainloop::tma ? 90 : 0;
  // ws_tma_wgmma: the plain composition the others vary.
  static constexpr bool plain_wgmma = std::is_same<Mainloop, GemmTmaLoads>::value &&
                                      std::is_same<Consumer, GemmWgmmaWarpgroups>::value &&
                                      Schedule::data_parallel && !Epilogue::tma_store;
};

// The composition's part names, in the table row (harness/launch.h's
// sb_composition: the CSV's mainloop, consumer, schedule, epilogue columns).
template <class V>
constexpr sb_composition gemm_composition_names() {
  return {V::Mainloop::name, V::Consumer::name, V::Schedule::name, V::Epilogue::name};
}

#endif  // SB_KERNELS_GEMM_COMPOSE_CUH
