// Per-round time of a device loop, measured with CUDA events. Shared by the
// gshmem perftests (perf_common.cuh) and the NVSHMEM-API benchmark
// (nvshmem_api/), which must name no gshmem routine: the PE barrier, the
// reset and the handling of a failed CUDA call come in as callables.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace perf_timing {

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
