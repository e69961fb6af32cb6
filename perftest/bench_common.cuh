// What the gshmem perftests (perf_common.cuh) and the NVSHMEM-API benchmark
// (nvshmem_api/) share. The latter must name no gshmem routine, so nothing
// here does: the PE barrier, the reset and the PE number come in from the
// caller.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "harness.h"

namespace perf_timing {

// What a benchmark binary keeps for its run: options, this PE and the PE
// count, the timing stream and events, the reporter (PE 0 prints).
struct RunContext {
  gshmem_perf::Options opt;
  int pe = -1;
  int npes = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  gshmem_perf::Reporter *rep = nullptr;
};

// Ends the benchmark when a CUDA call failed, naming the call and the PE.
inline void exit_on_cuda_error(cudaError_t e, const char *what, int pe) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "PE %d: %s failed: %s\n", pe, what, cudaGetErrorString(e));
  std::exit(1);
}

// Every PE, and both builds of the NVSHMEM-API benchmark, build the same
// permutations from this seed.
constexpr uint64_t kPermutationSeed = 0x9e3779b97f4a7c15ull;

// A fixed pseudo-random permutation of 0..n-1: Fisher-Yates driven by
// mt19937_64, whose output the standard fixes.
inline std::vector<uint32_t> permutation(size_t n) {
  std::vector<uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  std::mt19937_64 rng(kPermutationSeed);
  for (size_t k = n - 1; k > 0 && n > 0; --k) std::swap(p[k], p[rng() % (k + 1)]);
  return p;
}

struct EventLoop {
  cudaEvent_t start, stop;
  cudaStream_t stream;
  int repeats;
};

// One measured exchange per repeat, after one untimed exchange of `warmup`
// rounds (if any): reset() clears this PE's words, the device drains, every
// PE meets (barrier()), launch(n) enqueues n rounds on the stream between
// the two events, and every PE meets again. Returns the nanoseconds per
// round of each repeat as this PE's events saw them. check(err, what) is
// given every CUDA result (the callers print it and exit on failure).
template <class Check, class Barrier, class Reset, class Launch>
std::vector<double> time_rounds(const EventLoop &loop, uint64_t iters, uint64_t warmup, Check check,
                                Barrier barrier, Reset reset, Launch launch) {
  std::vector<double> per_round;
  auto one = [&](uint64_t n, bool timed) {
    reset();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    barrier();
    check(cudaEventRecord(loop.start, loop.stream), "cudaEventRecord(start)");
    launch(n);
    check(cudaGetLastError(), "the launch of the measured loop");
    check(cudaEventRecord(loop.stop, loop.stream), "cudaEventRecord(stop)");
    check(cudaEventSynchronize(loop.stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, loop.start, loop.stop), "cudaEventElapsedTime");
    if (timed) per_round.push_back(ms * 1e6 / double(n));
    barrier();
  };
  if (warmup) one(warmup, false);
  for (int r = 0; r < loop.repeats; ++r) one(iters, true);
  return per_round;
}

}  // namespace perf_timing
