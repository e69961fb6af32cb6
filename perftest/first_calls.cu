// gshmem_perf_first_calls: what a job's first collectives cost, launch by
// launch, right after gshmem_init. Six launches of 50 one-thread int32 sum
// reductions of one element over the world team, each launch after a host
// barrier; a row per launch (us a call, PE 0's events). A process measures
// its first calls once: run it again for another sample, and with
// GSHMEM_WARM_PEER_PATHS=0 to see the first use of the NVLink path that
// init's first write to each peer pays for (docs/nvshmem.md: 12.5 us a call
// in the first launch, 1.9 from the fourth, 2 x H200, without that write).
// Floor: none (the steady rows of the same run are the comparison).
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

constexpr int kLaunches = 6;
constexpr int kCallsPerLaunch = 50;

__global__ void __launch_bounds__(1) first_calls_kernel(int *dest, const int *source, int calls) {
  for (int i = 0; i < calls; ++i) gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, dest, source, 1);
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_first_calls", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_first_calls", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  int *source = (int *)gshmem_malloc(sizeof(int));
  int *dest = (int *)gshmem_malloc(sizeof(int));
  if (!source || !dest) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed\n", ctx.pe);
    return 1;
  }
  PERF_CUDA(cudaMemsetAsync(source, 0, sizeof(int), ctx.stream));
  PERF_CUDA(cudaStreamSynchronize(ctx.stream));
  rep.section("the first one-thread int32 sum reductions after gshmem_init, launch by launch (us a call), " +
              std::to_string(ctx.npes) + " PEs");
  for (int launch = 1; launch <= kLaunches; ++launch) {
    gshmem_barrier_all();
    PERF_CUDA(cudaEventRecord(ctx.start, ctx.stream));
    first_calls_kernel<<<1, 1, 0, ctx.stream>>>(dest, source, kCallsPerLaunch);
    PERF_CUDA(cudaEventRecord(ctx.stop, ctx.stream));
    PERF_CUDA(cudaStreamSynchronize(ctx.stream));
    float ms = 0;
    PERF_CUDA(cudaEventElapsedTime(&ms, ctx.start, ctx.stop));
    const std::vector<double> ns{(double)ms * 1e6 / kCallsPerLaunch};
    add_row(ctx, "int_sum_reduce_thread[launch " + std::to_string(launch) + "]", "n", 1, 1, "latency",
            us_stats(ns), nullptr, kCallsPerLaunch);
  }
  gshmem_free(dest);
  gshmem_free(source);
  return perf_end(ctx);
}
