// nvshmem_api: gshmem's headline point-to-point exchanges written against the
// NVSHMEM API alone (<nvshmem.h>, <nvshmemx.h>; no gshmem name), so that the
// one source builds against NVSHMEM (-rdc, NVSHMEM's libraries) and against
// gshmem's compatibility target gshmem::nvshmem (no -rdc), and the two builds
// run on the same GPUs in one invocation (scripts/bench.sh --vs-nvshmem).
//
// 2 PEs: PE 0 initiates / produces, PE 1 responds / waits; PE 0 reports.
// Rows, named as gshmem's own perftests name the same exchange so they join:
//   signal_op+signal_wait_until   device ping-pong: nvshmemx_signal_op(SET, i) /
//                                 nvshmem_signal_wait_until(EQ, i); one way, round trip
//   uint64_p+wait_until           nvshmem_uint64_p(i) / nvshmem_uint64_wait_until(GE, i)
//   wait_until_any[random]        n = 1, 32, 1024, 8192; one waiting thread:
//                                 nvshmem_uint64_wait_until_any(GE, i); the producer
//                                 sets one element per round, perm[(i-1) % n] (a fixed
//                                 pseudo-random permutation, the one gshmem_perf_wait uses)
//   wait_until_any                same, the producer sets element (i-1) % n (in order)
//   test_any[random]              n = 1024: nvshmem_uint64_test_any polled until it
//                                 returns an index
//   wait_until_all                n = 1024, 8192, one waiting thread; a 256-thread
//                                 block stores i into every element with nvshmem_uint64_p
//   wait_until_all[one_kernel]    n = 1024, 8192, as NVSHMEM-style programs write it:
//                                 one 256-thread kernel on both PEs; PE 0's threads
//                                 nvshmem_uint64_p every element, __syncthreads, thread
//                                 0 nvshmem_signal_wait_until(ack, GE, i), __syncthreads;
//                                 PE 1's thread 0 nvshmem_uint64_wait_until_all(GE, i),
//                                 then nvshmemx_signal_op(ack, i, SET, 0)
//   <wait>_on_stream+signal_op_on_stream
//                                 on-stream responder: PE 0's kernel sets PE 1's flag
//                                 and waits for the ack; PE 1 enqueues, per round, the
//                                 wait (uint64_wait_until_on_stream GE i or EQ i,
//                                 signal_wait_until_on_stream EQ i) and
//                                 nvshmemx_signal_op_on_stream(ack, i); round trip
// Every waiter checks the index it gets back against the one the producer set
// (a wrong index is counted and fails the run).
//
// Method (as in gshmem's latency.cu / wait.cu / stream.cu, and in the spirit
// of NVSHMEM's own pt-to-pt perftests): each repeat runs `iters` rounds in
// one device loop, timed with CUDA events on PE 0's stream; per-round figures
// are the median of the repeats; one-way = round trip / 2.
//
// NVSHMEM_API_IMPL (the build defines it: "gshmem" or "nvshmem") names the
// implementation; the JSON rows carry it in "binary" (nvshmem_api@gshmem,
// nvshmem_api@nvshmem), which is how scripts/summarize.py pairs the rows.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "harness.h"

#ifndef NVSHMEM_API_IMPL
#error "define NVSHMEM_API_IMPL as the implementation's name (\"gshmem\" or \"nvshmem\")"
#endif

#define BENCH_CUDA(call)                                                                       \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "PE %d: %s failed at %s:%d: %s\n", nvshmem_my_pe(), #call, __FILE__, \
                   __LINE__, cudaGetErrorString(e_));                                          \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

using gshmem_perf::Options;
using gshmem_perf::Reporter;
using gshmem_perf::Row;
using gshmem_perf::Stats;
using perf_timing::permutation;

namespace {

constexpr int kProducerThreads = 256;

enum class Pattern { kInOrder, kRandom, kBlock };
enum class WaitKind { kWaitAny, kTestAny, kWaitAll };

// The element the producer sets in round i (1-based) for the one-element patterns.
__device__ __forceinline__ size_t element_of_round(Pattern p, const uint32_t *perm, size_t n,
                                                   uint64_t i) {
  const size_t k = (size_t)((i - 1) % n);
  return p == Pattern::kRandom ? perm[k] : k;
}

// ------------------------------------------------------------ one word
__global__ void __launch_bounds__(1) word_pingpong(bool signal, uint64_t *flag, int peer,
                                                   uint64_t iters, bool initiator) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (!initiator) {
      if (signal) (void)nvshmem_signal_wait_until(flag, NVSHMEM_CMP_EQ, i);
      else nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, i);
    }
    if (signal) nvshmemx_signal_op(flag, i, NVSHMEM_SIGNAL_SET, peer);
    else nvshmem_uint64_p(flag, i, peer);
    if (initiator) {
      if (signal) (void)nvshmem_signal_wait_until(flag, NVSHMEM_CMP_EQ, i);
      else nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, i);
    }
  }
}

// ------------------------------------------------------------ wait family
// PE 0: round i stores i into PE 1's ivars (one element, or every element
// with the whole block), then waits for PE 1's acknowledgement.
__global__ void __launch_bounds__(kProducerThreads)
    producer_kernel(uint64_t *ivars, size_t n, Pattern p, const uint32_t *perm, uint64_t *ack,
                    uint64_t iters) {
  const unsigned t = threadIdx.x;
  for (uint64_t i = 1; i <= iters; ++i) {
    if (p == Pattern::kBlock) {
      for (size_t j = t; j < n; j += blockDim.x) nvshmem_uint64_p(&ivars[j], i, 1);
    } else if (t == 0) {
      nvshmem_uint64_p(&ivars[element_of_round(p, perm, n, i)], i, 1);
    }
    if (t == 0) nvshmem_uint64_wait_until(ack, NVSHMEM_CMP_GE, i);
    __syncthreads();
  }
}

// PE 1, one thread: waits for round i's element(s), checks the index it got
// (the one element set in round i is the only one >= i), acknowledges.
template <WaitKind Kind>
__global__ void __launch_bounds__(1)
    waiter_kernel(uint64_t *ivars, size_t n, Pattern p, const uint32_t *perm, uint64_t *ack,
                  uint64_t iters, unsigned long long *errors) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if constexpr (Kind == WaitKind::kWaitAll) {
      nvshmem_uint64_wait_until_all(ivars, n, nullptr, NVSHMEM_CMP_GE, i);
    } else {
      size_t got;
      if constexpr (Kind == WaitKind::kWaitAny) {
        got = nvshmem_uint64_wait_until_any(ivars, n, nullptr, NVSHMEM_CMP_GE, i);
      } else {
        do {
          got = nvshmem_uint64_test_any(ivars, n, nullptr, NVSHMEM_CMP_GE, i);
        } while (got == SIZE_MAX);
      }
      if (got != element_of_round(p, perm, n, i)) atomicAdd(errors, 1ull);
    }
    nvshmem_uint64_p(ack, i, 0);
  }
}

// The _all exchange in one kernel on both PEs (the row wait_until_all[one_kernel]).
__global__ void __launch_bounds__(kProducerThreads)
    one_kernel_all(uint64_t *ivars, uint64_t *ack, size_t n, int pe, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (pe == 0) {
      for (size_t j = threadIdx.x; j < n; j += blockDim.x) nvshmem_uint64_p(ivars + j, i, 1);
      __syncthreads();
      if (threadIdx.x == 0) (void)nvshmem_signal_wait_until(ack, NVSHMEM_CMP_GE, i);
      __syncthreads();
    } else if (threadIdx.x == 0) {
      nvshmem_uint64_wait_until_all(ivars, n, nullptr, NVSHMEM_CMP_GE, i);
      nvshmemx_signal_op(ack, i, NVSHMEM_SIGNAL_SET, 0);
    }
  }
}

// ------------------------------------------------------------ on stream
// PE 0: round i sets PE 1's flag to i (nvshmem_uint64_p, or signal_op for the
// signal forms), then waits until PE 1's stream has acknowledged round i.
__global__ void __launch_bounds__(1) stream_initiator(bool signal, uint64_t *flag, uint64_t *ack,
                                                      uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (signal) nvshmemx_signal_op(flag, i, NVSHMEM_SIGNAL_SET, 1);
    else nvshmem_uint64_p(flag, i, 1);
    (void)nvshmem_signal_wait_until(ack, NVSHMEM_CMP_GE, i);
  }
}

enum class StreamWait { kUint64Ge, kUint64Eq, kSignalEq };

const char *stream_row_name(StreamWait w) {
  switch (w) {
    case StreamWait::kUint64Ge: return "uint64_wait_until_on_stream[GE]+signal_op_on_stream";
    case StreamWait::kUint64Eq: return "uint64_wait_until_on_stream+signal_op_on_stream";
    default: return "signal_wait_until_on_stream+signal_op_on_stream";
  }
}

// ------------------------------------------------------------ host side
using Bench = perf_timing::RunContext;

// One measured exchange per repeat (perf_timing::time_rounds): reset()
// clears this PE's words, all PEs meet, launch(iters) enqueues the rounds on
// this PE's stream. Returns the nanoseconds per round of each repeat as this
// PE's events saw them.
inline void check_cuda(cudaError_t e, const char *what) { perf_timing::exit_on_cuda_error(e, what, nvshmem_my_pe()); }
template <class Reset, class Launch>
std::vector<double> time_rounds(Bench &b, uint64_t iters, uint64_t warmup, Reset reset,
                                Launch launch) {
  return perf_timing::time_rounds({b.start, b.stop, b.stream, b.opt.repeats}, iters, warmup, check_cuda,
                                  [] { nvshmem_barrier_all(); }, reset, launch);
}

Stats us_stats(const std::vector<double> &ns, double scale = 1.0) {
  std::vector<double> us;
  for (double v : ns) us.push_back(v * scale / 1000.0);
  return gshmem_perf::compute_stats(us);
}

void add_row(Bench &b, const std::string &name, const char *size_key, uint64_t size,
             const char *metric, const Stats &s, uint64_t iters) {
  Row r;
  r.name = name;
  r.pes = b.npes;
  r.size_key = size_key;
  r.size = size;
  r.threads = 1;
  r.metric = metric;
  r.stats = s;
  r.iters = iters;
  b.rep->add(r);
}

// Rounds so that one repeat takes about `budget_ns` given an estimate of
// one round; the same on every PE.
uint64_t rounds_for(double estimate_ns, double budget_ns, uint64_t max_rounds) {
  const double r = budget_ns / std::max(estimate_ns, 1.0);
  return std::max<uint64_t>(10, std::min<uint64_t>(max_rounds, r < 1 ? 1 : uint64_t(r)));
}

// The node-local rank the launcher announces (0 without one).
int local_rank() {
  for (const char *v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                        "PMI_LOCAL_RANK"}) {
    const char *s = std::getenv(v);
    if (s && *s) return std::atoi(s);
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string binary = std::string("nvshmem_api@") + NVSHMEM_API_IMPL;
  const char *program = "nvshmem_api_bench";
  Bench b;
  std::string error;
  if (!gshmem_perf::parse_options(argc, argv, b.opt, error)) {
    std::fprintf(stderr, "%s: %s\n%s", program, error.c_str(), gshmem_perf::usage(program).c_str());
    return 1;
  }
  if (b.opt.help) {
    std::printf("%s  (-b sets the n values of the wait rows; -t is ignored: every row has one waiting thread)\n",
                gshmem_perf::usage(program).c_str());
    return 0;
  }
  if (int rc = gshmem_perf::check_environment(program, 2)) return rc;
  // One GPU per PE, chosen before init as NVSHMEM's examples do.
  int devices = 0;
  BENCH_CUDA(cudaGetDeviceCount(&devices));
  BENCH_CUDA(cudaSetDevice(local_rank() % devices));
  nvshmem_init();
  b.pe = nvshmem_my_pe();
  b.npes = nvshmem_n_pes();
  if (b.pe < 0 || b.npes < 2) {
    std::fprintf(stderr, "%s (%s): init failed or too few PEs (PE %d of %d); run under mpirun -np 2\n",
                 program, NVSHMEM_API_IMPL, b.pe, b.npes);
    return gshmem_perf::kCannotRunExitCode;
  }
  BENCH_CUDA(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
  BENCH_CUDA(cudaEventCreate(&b.start));
  BENCH_CUDA(cudaEventCreate(&b.stop));
  Reporter rep(binary, b.opt, b.pe == 0);
  b.rep = &rep;
  rep.note(std::string("implementation: ") + NVSHMEM_API_IMPL);

  const bool quick = b.opt.quick;
  std::vector<uint64_t> n_values = b.opt.range_set ? b.opt.range.values()
                                                   : std::vector<uint64_t>{1, 32, 1024, 8192};
  const uint64_t max_n = std::max<uint64_t>(8192, *std::max_element(n_values.begin(), n_values.end()));
  if (max_n > UINT32_MAX) {
    std::fprintf(stderr, "PE %d: n above %u is not supported\n", b.pe, UINT32_MAX);
    return 1;
  }
  uint64_t *flag = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
  uint64_t *ack = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
  uint64_t *ivars = (uint64_t *)nvshmem_malloc(max_n * sizeof(uint64_t));
  if (!flag || !ack || !ivars) {
    std::fprintf(stderr, "PE %d: nvshmem_malloc failed\n", b.pe);
    return 1;
  }
  uint32_t *perm = nullptr;
  unsigned long long *errors = nullptr;
  BENCH_CUDA(cudaMalloc(&perm, max_n * sizeof(uint32_t)));
  BENCH_CUDA(cudaMalloc(&errors, sizeof(unsigned long long)));
  BENCH_CUDA(cudaMemset(errors, 0, sizeof(unsigned long long)));
  const bool active = b.pe < 2;
  const int peer = b.pe == 0 ? 1 : 0;
  auto reset_words = [&] {
    BENCH_CUDA(cudaMemsetAsync(flag, 0, sizeof(uint64_t), b.stream));
    BENCH_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), b.stream));
  };

  // ---- one word
  rep.section("one-thread ping-pong, PE 0 <-> PE 1 (us)");
  {
    const uint64_t iters = b.opt.iterations(100000, 20000);
    const uint64_t warm = b.opt.warmup_iterations(10000, 2000);
    for (bool signal : {true, false}) {
      std::vector<double> ns = time_rounds(b, iters, warm, reset_words, [&](uint64_t n) {
        if (active) word_pingpong<<<1, 1, 0, b.stream>>>(signal, flag, peer, n, b.pe == 0);
      });
      const char *name = signal ? "signal_op+signal_wait_until" : "uint64_p+wait_until";
      add_row(b, name, "size", 8, "one_way", us_stats(ns, 0.5), iters);
      add_row(b, name, "size", 8, "round_trip", us_stats(ns), iters);
    }
  }

  // ---- wait family, one waiting thread
  struct WaitRow {
    const char *name;
    WaitKind kind;
    Pattern pattern;
    bool all_n;                    // every n of the list, else only the listed ones
    std::vector<uint64_t> only_n;
    double ns_per_element;         // rough cost of one scan, only to size the loops
  };
  const std::vector<WaitRow> wait_rows = {
      {"wait_until_any[random]", WaitKind::kWaitAny, Pattern::kRandom, true, {}, 150},
      {"wait_until_any", WaitKind::kWaitAny, Pattern::kInOrder, true, {}, 150},
      {"test_any[random]", WaitKind::kTestAny, Pattern::kRandom, false, {1024}, 150},
      {"wait_until_all", WaitKind::kWaitAll, Pattern::kBlock, false, {1024, 8192}, 200},
  };
  const double budget = quick ? 8e6 : 30e6;
  for (const WaitRow &w : wait_rows) {
    rep.section(std::string(w.name) + ": round trip (us) vs n, one waiting thread");
    for (uint64_t n : n_values) {
      if (!w.all_n && std::find(w.only_n.begin(), w.only_n.end(), n) == w.only_n.end()) continue;
      std::vector<uint32_t> p = permutation(n);
      BENCH_CUDA(cudaMemcpy(perm, p.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
      const uint64_t iters = rounds_for(4000 + w.ns_per_element * double(n), budget,
                                        b.opt.iterations(20000, 2000));
      const uint64_t warm = std::max<uint64_t>(2, iters / 20);
      auto reset = [&] {
        BENCH_CUDA(cudaMemsetAsync(ivars, 0, n * sizeof(uint64_t), b.stream));
        BENCH_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), b.stream));
      };
      std::vector<double> ns = time_rounds(b, iters, warm, reset, [&](uint64_t rounds) {
        if (b.pe == 0) {
          producer_kernel<<<1, kProducerThreads, 0, b.stream>>>(ivars, n, w.pattern, perm, ack, rounds);
        } else if (b.pe == 1) {
          if (w.kind == WaitKind::kWaitAny)
            waiter_kernel<WaitKind::kWaitAny><<<1, 1, 0, b.stream>>>(ivars, n, w.pattern, perm, ack, rounds, errors);
          else if (w.kind == WaitKind::kTestAny)
            waiter_kernel<WaitKind::kTestAny><<<1, 1, 0, b.stream>>>(ivars, n, w.pattern, perm, ack, rounds, errors);
          else
            waiter_kernel<WaitKind::kWaitAll><<<1, 1, 0, b.stream>>>(ivars, n, w.pattern, perm, ack, rounds, errors);
        }
      });
      add_row(b, w.name, "n", n, "round_trip", us_stats(ns), iters);
    }
  }

  // ---- _all in one kernel on both PEs
  rep.section("wait_until_all[one_kernel]: round trip (us) vs n; one 256-thread kernel on both PEs");
  for (uint64_t n : n_values) {
    if (n != 1024 && n != 8192) continue;
    const uint64_t iters = rounds_for(4000 + 200 * double(n), budget, b.opt.iterations(20000, 2000));
    auto reset = [&] {
      BENCH_CUDA(cudaMemsetAsync(ivars, 0, n * sizeof(uint64_t), b.stream));
      BENCH_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), b.stream));
    };
    std::vector<double> ns = time_rounds(b, iters, std::max<uint64_t>(2, iters / 20), reset, [&](uint64_t rounds) {
      if (active) one_kernel_all<<<1, kProducerThreads, 0, b.stream>>>(ivars, ack, n, b.pe, rounds);
    });
    add_row(b, "wait_until_all[one_kernel]", "n", n, "round_trip", us_stats(ns), iters);
  }

  // ---- on-stream responder
  rep.section("on-stream responder round trip (us): initiator kernel on PE 0, stream operations on PE 1");
  {
    const uint64_t iters = b.opt.iterations(20000, 2000);
    const uint64_t warm = b.opt.warmup_iterations(2000, 200);
    for (StreamWait w : {StreamWait::kUint64Ge, StreamWait::kUint64Eq, StreamWait::kSignalEq}) {
      const bool signal = w == StreamWait::kSignalEq;
      std::vector<double> ns = time_rounds(b, iters, warm, reset_words, [&](uint64_t rounds) {
        if (b.pe == 0) {
          stream_initiator<<<1, 1, 0, b.stream>>>(signal, flag, ack, rounds);
        } else if (b.pe == 1) {
          for (uint64_t i = 1; i <= rounds; ++i) {
            if (w == StreamWait::kUint64Ge) nvshmemx_uint64_wait_until_on_stream(flag, NVSHMEM_CMP_GE, i, b.stream);
            else if (w == StreamWait::kUint64Eq) nvshmemx_uint64_wait_until_on_stream(flag, NVSHMEM_CMP_EQ, i, b.stream);
            else nvshmemx_signal_wait_until_on_stream(flag, NVSHMEM_CMP_EQ, i, b.stream);
            nvshmemx_signal_op_on_stream(ack, i, NVSHMEM_SIGNAL_SET, 0, b.stream);
          }
        }
      });
      add_row(b, stream_row_name(w), "n", 1, "round_trip", us_stats(ns), iters);
    }
  }

  // ---- the waiters' checks: PE 1 counted; its non-zero exit fails the job.
  unsigned long long wrong = 0;
  BENCH_CUDA(cudaMemcpy(&wrong, errors, sizeof wrong, cudaMemcpyDeviceToHost));
  if (wrong) {
    std::fprintf(stderr, "PE %d (%s): %llu wait(s) returned an index the producer had not set\n",
                 b.pe, NVSHMEM_API_IMPL, wrong);
  }
  nvshmem_barrier_all();
  const bool ok = rep.ok() && wrong == 0;

  cudaFree(errors);
  cudaFree(perm);
  nvshmem_free(ivars);
  nvshmem_free(ack);
  nvshmem_free(flag);
  cudaEventDestroy(b.start);
  cudaEventDestroy(b.stop);
  cudaStreamDestroy(b.stream);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
