// How close does a kernel's copy come to cudaMemcpyAsync's on this GPU, and
// what closes the gap? The reference family's vector_copy (a resident grid
// striding 16-byte vectors, 4 in flight a thread) reads 92% of the d2d copy
// on an H200, and the staged pipelines sit beside it (94-95%); issue 55 asks
// for 98% of the copy.
//
// Forms of one copy of n words (in -> out, both 512 MiB by default), timed
// in rounds so every form sees the same clocks: each round times every form
// once (event-timed, one launch), rounds repeat; the median per form over
// the rounds, in GB/s of bytes read + written (the suite's pct_of_copy).
//   memcpy            cudaMemcpyAsync device to device
//   vec U L S O       grid-stride uint4 copy, U vectors in flight a thread,
//                     loads L (plain | 256B: ld.global.L2::256B prefetch |
//                     nc: ld.global.nc.L1::no_allocate), stores S (wb | cs:
//                     st.global.cs), order O (stride: consecutive threads on
//                     consecutive vectors over the whole array | chunk: each
//                     block its own contiguous chunk, in turn)
//   bulk B S          one thread a block: cp.async.bulk global->shared of B
//                     bytes into S stages, then cp.async.bulk shared->global
//                     of the same stage (bulk_group), block-cyclic chunks
//
// nvcc -O3 -std=c++17 -arch=sm_90a -o copy_forms copy_forms.cu ; ./copy_forms [words] [rounds] > forms.csv
// (the GPU, SM count, words and rounds on stderr)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

enum Load { LD_PLAIN, LD_256B, LD_NC };
enum Store { ST_WB, ST_CS };

template <Load L>
__device__ __forceinline__ uint4 load16(const uint4 *p) {
  uint4 v;
  if constexpr (L == LD_PLAIN) {
    v = *p;
  } else if constexpr (L == LD_256B) {
    asm volatile("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  }
  return v;
}

template <Store S>
__device__ __forceinline__ void store16(uint4 *p, uint4 v) {
  if constexpr (S == ST_WB)
    *p = v;
  else
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// stride order: vector i of thread t is t + i*G (G = every thread of the
// grid); chunk order: block b copies chunks b, b+grid, ... of BLOCK*U
// vectors, thread t vectors t + u*BLOCK of the chunk.
template <int U, Load L, Store S, bool CHUNK>
__global__ void __launch_bounds__(256) vec_copy(const uint4 *in, uint4 *out, long long vecs) {
  if constexpr (!CHUNK) {
    const long long G = (long long)gridDim.x * 256;
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    for (; i + (U - 1) * G < vecs; i += U * G) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load16<L>(in + i + u * G);
#pragma unroll
      for (int u = 0; u < U; ++u) store16<S>(out + i + u * G, v[u]);
    }
    for (; i < vecs; i += G) out[i] = in[i];
  } else {
    const long long C = 256LL * U;
    const long long chunks = vecs / C;
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
      const long long b = c * C + threadIdx.x;
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load16<L>(in + b + u * 256);
#pragma unroll
      for (int u = 0; u < U; ++u) store16<S>(out + b + u * 256, v[u]);
    }
    for (long long i = chunks * C + (long long)blockIdx.x * 256 + threadIdx.x; i < vecs;
         i += (long long)gridDim.x * 256)
      out[i] = in[i];
  }
}

__device__ __forceinline__ uint32_t sa(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// One thread a block moves chunk after chunk through `stages` buffers of
// `bytes`: load stage s (mbarrier, expect_tx), wait, store it (bulk_group);
// before a stage is loaded again its store must have read it
// (cp.async.bulk.wait_group.read stages-1 keeps up to stages-1 stores in
// flight).
__global__ void bulk_copy(const char *in, char *out, long long total, unsigned bytes, int stages) {
  extern __shared__ __align__(128) char sm[];
  __shared__ __align__(8) unsigned long long bar[16];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const long long chunks = total / bytes;
  unsigned phase_bits = 0;
  auto issue = [&](long long c, int s) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(&bar[s])), "r"(bytes) : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            sa(sm + (size_t)s * bytes)),
        "l"(in + c * bytes), "r"(bytes), "r"(sa(&bar[s]))
        : "memory");
  };
  // prologue: up to `stages` loads in flight
  long long c = blockIdx.x;
  int issued = 0;
  for (; issued < stages && c + (long long)issued * gridDim.x < chunks; ++issued) issue(c + (long long)issued * gridDim.x, issued);
  for (long long j = 0; c < chunks; c += gridDim.x, ++j) {
    const int s = (int)(j % stages);
    const unsigned par = (phase_bits >> s) & 1u;
    asm volatile(
        "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" ::"r"(
            sa(&bar[s])),
        "r"(par)
        : "memory");
    phase_bits ^= 1u << s;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + c * bytes),
                 "r"(sa(sm + (size_t)s * bytes)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    const long long nx = c + (long long)stages * gridDim.x;
    if (nx < chunks) {
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // stage s read by its store
      issue(nx, s);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

struct Form {
  std::string name;
  int blocks, threads;
  size_t smem;
  void (*launch)(const Form &, const void *, void *, long long, cudaStream_t);
  const void *fn;
  unsigned bytes;
  int stages;
};

template <int U, Load L, Store S, bool CHUNK>
Form vec_form(const char *lname, const char *sname, int sms) {
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, vec_copy<U, L, S, CHUNK>, 256, 0));
  Form f;
  f.name = std::string("vec U=") + std::to_string(U) + " " + lname + " " + sname + (CHUNK ? " chunk" : " stride");
  f.blocks = occ * sms;
  f.threads = 256;
  f.smem = 0;
  f.fn = (const void *)vec_copy<U, L, S, CHUNK>;
  f.launch = [](const Form &f, const void *in, void *out, long long words, cudaStream_t st) {
    vec_copy<U, L, S, CHUNK><<<f.blocks, f.threads, 0, st>>>((const uint4 *)in, (uint4 *)out, words / 4);
  };
  f.bytes = 0;
  f.stages = 0;
  return f;
}

Form bulk_form(unsigned bytes, int stages, int per_sm, int sms) {
  Form f;
  f.name = "bulk B=" + std::to_string(bytes) + " S=" + std::to_string(stages) + " blocks/SM=" + std::to_string(per_sm);
  f.blocks = per_sm * sms;
  f.threads = 32;
  f.smem = (size_t)bytes * stages;
  f.bytes = bytes;
  f.stages = stages;
  f.fn = (const void *)bulk_copy;
  CK(cudaFuncSetAttribute(bulk_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  f.launch = [](const Form &f, const void *in, void *out, long long words, cudaStream_t st) {
    bulk_copy<<<f.blocks, f.threads, f.smem, st>>>((const char *)in, (char *)out, words * 4, f.bytes, f.stages);
  };
  return f;
}

int main(int argc, char **argv) {
  const long long words = argc > 1 ? atoll(argv[1]) : (128LL << 20);
  const int rounds = argc > 2 ? atoi(argv[2]) : 15;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const size_t bytes = (size_t)words * 4;
  void *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  std::vector<uint32_t> h(words);
  for (long long i = 0; i < words; ++i) h[i] = (uint32_t)(i * 2654435761u);
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));

  std::vector<Form> forms;
  Form mc;
  mc.name = "memcpy";
  mc.launch = [](const Form &, const void *in, void *out, long long words, cudaStream_t st) {
    CK(cudaMemcpyAsync(out, in, (size_t)words * 4, cudaMemcpyDeviceToDevice, st));
  };
  forms.push_back(mc);
  forms.push_back(vec_form<4, LD_PLAIN, ST_WB, false>("plain", "wb", sms));
  forms.push_back(vec_form<8, LD_PLAIN, ST_WB, false>("plain", "wb", sms));
  forms.push_back(vec_form<4, LD_256B, ST_WB, false>("256B", "wb", sms));
  forms.push_back(vec_form<4, LD_NC, ST_WB, false>("nc", "wb", sms));
  forms.push_back(vec_form<4, LD_PLAIN, ST_CS, false>("plain", "cs", sms));
  forms.push_back(vec_form<4, LD_NC, ST_CS, false>("nc", "cs", sms));
  forms.push_back(vec_form<8, LD_NC, ST_CS, false>("nc", "cs", sms));
  forms.push_back(vec_form<4, LD_PLAIN, ST_WB, true>("plain", "wb", sms));
  forms.push_back(vec_form<8, LD_PLAIN, ST_WB, true>("plain", "wb", sms));
  forms.push_back(vec_form<4, LD_NC, ST_CS, true>("nc", "cs", sms));
  forms.push_back(vec_form<8, LD_NC, ST_CS, true>("nc", "cs", sms));
  forms.push_back(vec_form<16, LD_NC, ST_WB, true>("nc", "wb", sms));
  for (unsigned b : {8192u, 16384u, 32768u})
    for (int s : {2, 4})
      for (int per : {1, 2}) {
        if ((size_t)b * s * per > 200 * 1024) continue;
        forms.push_back(bulk_form(b, s, per, sms));
      }

  // check every form once
  std::vector<uint32_t> g(words);
  for (auto &f : forms) {
    CK(cudaMemset(out, 0xff, bytes));
    f.launch(f, in, out, words, st);
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    CK(cudaMemcpy(g.data(), out, bytes, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (long long i = 0; i < words; ++i) bad += g[i] != h[i];
    if (bad) {
      fprintf(stderr, "%s: %lld words wrong\n", f.name.c_str(), bad);
      return 2;
    }
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> ms(forms.size());
  for (int r = 0; r < rounds + 2; ++r)
    for (size_t i = 0; i < forms.size(); ++i) {
      CK(cudaEventRecord(e0, st));
      forms[i].launch(forms[i], in, out, words, st);
      CK(cudaEventRecord(e1, st));
      CK(cudaEventSynchronize(e1));
      float t;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 2) ms[i].push_back(t);  // two rounds of warm-up
    }
  fprintf(stderr, "copy_forms: %s, %d SMs, %lld words, %d rounds\n", prop.name, sms, words, rounds);
  printf("form,blocks,threads,median_ms,min_ms,gbps_median,pct_of_memcpy\n");
  std::vector<double> med(forms.size());
  for (size_t i = 0; i < forms.size(); ++i) {
    auto v = ms[i];
    std::sort(v.begin(), v.end());
    med[i] = v[v.size() / 2];
  }
  for (size_t i = 0; i < forms.size(); ++i) {
    const double gbps = 2.0 * bytes / (med[i] * 1e-3) / 1e9;
    printf("%s,%d,%d,%.4f,%.4f,%.1f,%.2f\n", forms[i].name.c_str(), forms[i].blocks, forms[i].threads, med[i],
           *std::min_element(ms[i].begin(), ms[i].end()), gbps, 100.0 * med[0] / med[i]);
  }
  return 0;
}
