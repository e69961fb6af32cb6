// Device-side pieces every perftest binary shares: start-up, timing of
// device-side loops with CUDA events, and the raw memory operations of the
// floors. The raw floors use the ordering layer directly (the same
// instructions gshmem is meant to compile to), never the gshmem API.
#pragma once

#include <gshmem/gshmemx.h>
#include <gshmem/detail/ordering.h>

#include <cuda.h>  // stream-memop types only: nothing here links libcuda
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "harness.h"

// A CUDA failure in a benchmark is fatal: the numbers would be meaningless.
#define PERF_CUDA(call)                                                                  \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "PE %d: %s failed at %s:%d: %s\n", gshmem_my_pe(), #call,     \
                   __FILE__, __LINE__, cudaGetErrorString(e_));                          \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

namespace gshmem_perf {

using gshmem::memory_order;
using gshmem::thread_scope;
namespace gd = gshmem::detail;

// ------------------------------------------------------------ raw accesses
// The floors' vocabulary: one PTX instruction each (see ordering.h).
__device__ __forceinline__ void raw_store_relaxed(uint64_t *p, uint64_t v) {
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(p, v);
}
__device__ __forceinline__ void raw_store_release(uint64_t *p, uint64_t v) {
  gd::atomic_store<memory_order::release, thread_scope::system>(p, v);
}
__device__ __forceinline__ uint64_t raw_load_acquire(const uint64_t *p) {
  return gd::atomic_load<memory_order::acquire, thread_scope::system>(p);
}
__device__ __forceinline__ uint64_t raw_load_relaxed(const uint64_t *p) {
  return gd::atomic_load<memory_order::relaxed, thread_scope::system>(p);
}
__device__ __forceinline__ void raw_fence_acquire() {
  gd::atomic_fence<memory_order::acquire, thread_scope::system>();
}
__device__ __forceinline__ void raw_add_relaxed(uint64_t *p, uint64_t v) {
  (void)gd::atomic_fetch_add<memory_order::relaxed, thread_scope::system>(p, v);
}
__device__ __forceinline__ void raw_wait_ge(const uint64_t *p, uint64_t v) {
  while (raw_load_acquire(p) < v) {
  }
}

// ------------------------------------------------- the waits of the floors
//
// The one-word exchanges (latency.cu) time the wait half of their floor in
// each of these sequences, in one run, and compare gshmem with the fastest
// one that is a correct wait: one that leaves the caller with an acquire
// at system scope on the value it waited for (the guarantee of
// <gshmem/sync.h>). Their SASS on sm_90 (ptxas of CUDA 13):
//   ld.acquire.sys poll        LD.E.64.STRONG.SYS, then CCTL.IVALL (an L1
//                              invalidation) on every pass, before the
//                              comparison
//   ... .global                the same with LDG (the global state space)
//   ld.relaxed.sys poll,       LD / LDG.E.64.STRONG.SYS alone in the loop;
//   acquire fence on exit      after it the library's acquire fence once:
//                              fence.acquire.sys (CCTL.IVALL alone) where
//                              GSHMEMI_SPLIT_FENCES, else fence.acq_rel.sys
//                              (MEMBAR.ALL.SYS, ERRBAR, CGAERRBAR, CCTL.IVALL).
//                              2 x H200: 0.69 us one-way with the first,
//                              1.25 with the second (same run, two trees)
//   ld.relaxed.sys poll,       LDG alone in the loop; after it CCTL.IVALL
//   ld.acquire.sys reload      alone (ptxas drops the reload's load, whose
//                              value is unused, and keeps its invalidation)
//   ld.volatile poll,          NVSHMEM's nvshmem_signal_wait_until on a P2P
//   fence.sc.gpu on exit       peer: LDG alone in the loop; after it
//                              MEMBAR.SC.GPU (its __threadfence)
//   ld.relaxed.sys poll alone  no acquire: a lower bound, not a wait
// Correct: the first four. A relaxed (strong) load followed in program
// order by an acquire (or acq_rel) fence at .sys is an acquire pattern in
// the PTX model. The acquire reload acquires the value the reload reads: the one the poll saw,
// or a later one, and a later one written by another PE (two PEs setting
// one signal) synchronizes with that PE only, so the writes released before
// the value the poll saw are not ordered; a floor for one writer, not for
// the guarantee. The gpu-scope fence of NVSHMEM's sequence does not make the
// pattern morally strong with a writer on another GPU, so it is no floor of
// a system-scope wait either (on the hardware it may well order the same;
// the row says what it costs).
enum class RawWait : int {
  acquire_poll,
  acquire_poll_global,
  relaxed_poll_fence,
  relaxed_poll_global_fence,
  relaxed_poll_global_reload,
  volatile_poll_fence_gpu,
  relaxed_poll_bare,
};
constexpr int kRawWaits = 7;

struct RawWaitInfo {
  RawWait wait;
  const char *sequence;  // the row name's tail
  bool correct;          // an acquire at system scope on exit
};

inline const RawWaitInfo &raw_wait_info(RawWait w) {
  static const RawWaitInfo table[kRawWaits] = {
      {RawWait::acquire_poll, "ld.acquire.sys poll", true},
      {RawWait::acquire_poll_global, "ld.acquire.sys.global poll", true},
      {RawWait::relaxed_poll_fence, "ld.relaxed.sys poll, acquire fence on exit", true},
      {RawWait::relaxed_poll_global_fence, "ld.relaxed.sys.global poll, acquire fence on exit", true},
      {RawWait::relaxed_poll_global_reload, "ld.relaxed.sys.global poll, ld.acquire.sys reload on exit (one writer)",
       false},
      {RawWait::volatile_poll_fence_gpu, "ld.volatile poll, fence.sc.gpu on exit (NVSHMEM's; gpu scope)", false},
      {RawWait::relaxed_poll_bare, "ld.relaxed.sys.global poll, no acquire (lower bound)", false},
  };
  return table[(int)w];
}

__device__ __forceinline__ uint64_t raw_load_relaxed_global(const uint64_t *p) {
  return gd::atomic_load_global<memory_order::relaxed, thread_scope::system>(
      reinterpret_cast<const unsigned long long *>(p));
}
__device__ __forceinline__ uint64_t raw_load_acquire_global(const uint64_t *p) {
  return gd::atomic_load_global<memory_order::acquire, thread_scope::system>(
      reinterpret_cast<const unsigned long long *>(p));
}

// Waits until *p >= v with the sequence W.
template <RawWait W>
__device__ __forceinline__ void raw_wait_ge_as(const uint64_t *p, uint64_t v) {
  if constexpr (W == RawWait::acquire_poll) {
    raw_wait_ge(p, v);
  } else if constexpr (W == RawWait::acquire_poll_global) {
    while (raw_load_acquire_global(p) < v) {
    }
  } else if constexpr (W == RawWait::relaxed_poll_fence) {
    while (raw_load_relaxed(p) < v) {
    }
    raw_fence_acquire();
  } else if constexpr (W == RawWait::relaxed_poll_global_fence) {
    while (raw_load_relaxed_global(p) < v) {
    }
    raw_fence_acquire();
  } else if constexpr (W == RawWait::relaxed_poll_global_reload) {
    while (raw_load_relaxed_global(p) < v) {
    }
    (void)raw_load_acquire_global(p);
  } else if constexpr (W == RawWait::volatile_poll_fence_gpu) {
    // A C++ volatile load (ld.volatile; .global where the compiler knows the
    // state space, as it does for a kernel's pointer argument), then
    // __threadfence(): NVSHMEM's code for it, as its headers compile.
    while (gd::atomic_load<memory_order::relaxed, thread_scope::system, gd::compiler_order::movable>(p) < v) {
    }
    gd::atomic_fence<memory_order::seq_cst, thread_scope::device>();
  } else {
    while (raw_load_relaxed_global(p) < v) {
    }
  }
}

// Copies `bytes` with `nthreads` threads (thread index `t`), 16-byte accesses
// where both pointers and the size allow, 8-byte otherwise.
__device__ __forceinline__ void raw_copy(void *dst, const void *src, size_t bytes, unsigned t,
                                         unsigned nthreads) {
  if (((uintptr_t)dst | (uintptr_t)src | bytes) % 16 == 0) {
    uint4 *d = (uint4 *)dst;
    const uint4 *s = (const uint4 *)src;
    for (size_t i = t; i < bytes / 16; i += nthreads) d[i] = s[i];
  } else {
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    for (size_t i = t; i < bytes / 8; i += nthreads) d[i] = s[i];
    char *dc = (char *)dst;
    const char *sc = (const char *)src;
    for (size_t i = bytes / 8 * 8 + t; i < bytes; i += nthreads) dc[i] = sc[i];
  }
}

// Barrier among the first `width` threads of a block (a warp or the block).
__device__ __forceinline__ void group_sync(int width) {
  if (width >= 64) __syncthreads();
  else if (width == 32) __syncwarp();
}

// ------------------------------------------------------------ host side

struct Context : perf_timing::RunContext {
  const char *program = "";
};

// Parses options, checks GPUs and PEs before touching gshmem, initializes
// gshmem. Returns 0 to go on; otherwise the process should exit with
// *exit_code (0 after --help).
inline bool perf_begin(int argc, char **argv, const char *program, int min_pes, Context &ctx,
                       int *exit_code) {
  std::string err;
  ctx.program = program;
  if (!parse_options(argc, argv, ctx.opt, err)) {
    std::fprintf(stderr, "%s: %s\n%s", program, err.c_str(), usage(program).c_str());
    *exit_code = 1;
    return false;
  }
  if (ctx.opt.help) {
    std::printf("%s", usage(program).c_str());
    *exit_code = 0;
    return false;
  }
  if (int rc = check_environment(program, min_pes)) {
    *exit_code = rc;
    return false;
  }
  int rc = gshmem_init();
  if (rc != GSHMEM_SUCCESS) {
    std::fprintf(stderr, "%s: gshmem_init failed: %s (%d)\n", program, gshmemx_error_string(rc),
                 rc);
    *exit_code = kCannotRunExitCode;
    return false;
  }
  ctx.pe = gshmem_my_pe();
  ctx.npes = gshmem_n_pes();
  PERF_CUDA(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
  PERF_CUDA(cudaEventCreate(&ctx.start));
  PERF_CUDA(cudaEventCreate(&ctx.stop));
  return true;
}

inline int perf_end(Context &ctx) {
  bool ok = !ctx.rep || ctx.rep->ok();
  cudaEventDestroy(ctx.start);
  cudaEventDestroy(ctx.stop);
  cudaStreamDestroy(ctx.stream);
  gshmem_finalize();
  return ok ? 0 : 1;
}

inline void host_barrier() { gshmemi_host_barrier_all(); }

// Every PE's copy of the symmetric `sym` as this PE maps it, in a device
// array of npes pointers (the raw floors' peer addresses; cudaFree it), or
// nullptr, saying which PE, where one is not reachable by load and store.
inline uint64_t **device_peer_table(uint64_t *sym, int npes) {
  std::vector<uint64_t *> host(npes);
  for (int p = 0; p < npes; ++p) {
    host[p] = static_cast<uint64_t *>(gshmem_ptr(sym, p));
    if (!host[p]) {
      std::fprintf(stderr, "PE %d: PE %d not reachable by load/store\n", gshmem_my_pe(), p);
      return nullptr;
    }
  }
  uint64_t **table = nullptr;
  PERF_CUDA(cudaMalloc(&table, npes * sizeof(uint64_t *)));
  PERF_CUDA(cudaMemcpy(table, host.data(), npes * sizeof(uint64_t *), cudaMemcpyHostToDevice));
  return table;
}

// Runs one measured exchange per repeat (perf_timing::time_rounds): `reset()`
// clears this PE's flags, then all PEs meet, then `launch(iters)` enqueues
// the device loop on ctx.stream. Returns the nanoseconds per iteration of
// each repeat, as this PE's events saw them (the reporting PE is the one
// whose loop spans the whole exchange).
inline void check_cuda(cudaError_t e, const char *what) { perf_timing::exit_on_cuda_error(e, what, gshmem_my_pe()); }
template <class Reset, class Launch>
std::vector<double> time_loop(Context &ctx, uint64_t iters, uint64_t warmup, Reset reset,
                              Launch launch) {
  return perf_timing::time_rounds({ctx.start, ctx.stop, ctx.stream, ctx.opt.repeats}, iters, warmup,
                                  check_cuda, host_barrier, reset, launch);
}

// Converts nanosecond samples to microseconds, scaled (1/2 for one-way).
inline Stats us_stats(const std::vector<double> &ns, double scale = 1.0) {
  std::vector<double> us;
  for (double v : ns) us.push_back(v * scale / 1000.0);
  return compute_stats(us);
}

// Adds a value row with its floor (pass an empty floor when there is none).
inline void add_row(Context &ctx, const std::string &name, const std::string &size_key,
                    uint64_t size, int threads, const std::string &metric, const Stats &value,
                    const Stats *floor, uint64_t iters, const std::string &unit = "us",
                    bool lower_is_better = true) {
  Row r;
  r.name = name;
  r.pes = ctx.npes;
  r.size_key = size_key;
  r.size = size;
  r.threads = threads;
  r.metric = metric;
  r.stats = value;
  r.unit = unit;
  r.lower_is_better = lower_is_better;
  r.iters = iters;
  if (floor) {
    r.has_floor = true;
    r.floor = floor->median;
  }
  ctx.rep->add(r);
}

// Iterations so that one repeat takes about `budget_ns` given an estimate of
// one iteration; deterministic, so every PE computes the same count.
inline uint64_t iters_for(double estimate_ns, double budget_ns, uint64_t max_iters,
                          uint64_t min_iters = 10) {
  double n = budget_ns / std::max(estimate_ns, 1.0);
  uint64_t it = n < 1 ? 1 : uint64_t(n);
  return std::max(min_iters, std::min(max_iters, it));
}

typedef CUresult (*wait_value64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
typedef CUresult (*write_value64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
typedef CUresult (*batch_memop_fn)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);
inline wait_value64_fn raw_wait_value64 = nullptr;
inline write_value64_fn raw_write_value64 = nullptr;
inline batch_memop_fn raw_batch_memop = nullptr;  // optional: null where the driver lacks it

// The raw stream memory operations of the on-stream floors, fetched through
// the runtime so the binaries need not link the driver library.
inline bool load_stream_memops() {
  cudaDriverEntryPointQueryResult q1, q2;
  if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", (void **)&raw_wait_value64, 12000,
                                       cudaEnableDefault, &q1) != cudaSuccess ||
      cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **)&raw_write_value64, 12000,
                                       cudaEnableDefault, &q2) != cudaSuccess ||
      q1 != cudaDriverEntryPointSuccess || q2 != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  cudaDriverEntryPointQueryResult q3;
  if (cudaGetDriverEntryPointByVersion("cuStreamBatchMemOp", (void **)&raw_batch_memop, 12000, cudaEnableDefault,
                                       &q3) != cudaSuccess ||
      q3 != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    raw_batch_memop = nullptr;
  }
  return true;
}

#define PERF_CU(call)                                                                   \
  do {                                                                                  \
    CUresult r_ = (call);                                                               \
    if (r_ != CUDA_SUCCESS) {                                                           \
      std::fprintf(stderr, "PE %d: %s failed: CUresult %d\n", gshmem_my_pe(), #call,    \
                   (int)r_);                                                            \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

}  // namespace gshmem_perf
