// gshmem_perf_barrier: barrier_all latency on the device, on the host and on
// a stream, for all PEs of the job (run it with 2 and with 4 PEs).
// Floors: device: every PE adds 1 (release, system scope) to a counter on
// each peer and polls its own with acquire loads; on-stream: the same with
// cuStreamWriteValue64 to each peer and cuStreamWaitValue64 on each slot.
// The host barrier has no floor here (it is the host half of the runtime).
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

__global__ void __launch_bounds__(32) device_barrier_loop(bool raw, uint64_t *arrive, uint64_t **peer_arrive, int npes,
                                    int me, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (raw) {
      if (threadIdx.x == 0) {
        for (int p = 0; p < npes; ++p)
          if (p != me)
            (void)gd::atomic_fetch_add<memory_order::release, thread_scope::system>(peer_arrive[p],
                                                                                  (uint64_t)1);
        raw_wait_ge(arrive, i * (uint64_t)(npes - 1));
      }
      __syncthreads();
    } else {
      gshmem_barrier_all();
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_barrier", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_barrier", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  if (!load_stream_memops()) {
    std::fprintf(stderr, "PE %d: stream memory operations not available\n", ctx.pe);
    return 1;
  }
  const int npes = ctx.npes, me = ctx.pe;
  uint64_t *arrive = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  uint64_t *slots = (uint64_t *)gshmem_malloc(GSHMEMI_MAX_PES * sizeof(uint64_t));
  if (!arrive || !slots) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed\n", me);
    return 1;
  }
  std::vector<uint64_t *> peer_arrive(npes), peer_slots(npes);
  for (int p = 0; p < npes; ++p) {
    peer_arrive[p] = (uint64_t *)gshmem_ptr(arrive, p);
    peer_slots[p] = (uint64_t *)gshmem_ptr(slots, p);
    if (!peer_arrive[p] || !peer_slots[p]) {
      std::fprintf(stderr, "PE %d: PE %d not reachable by load/store\n", me, p);
      return 1;
    }
  }
  uint64_t **d_peer_arrive = nullptr;
  PERF_CUDA(cudaMalloc(&d_peer_arrive, npes * sizeof(uint64_t *)));
  PERF_CUDA(cudaMemcpy(d_peer_arrive, peer_arrive.data(), npes * sizeof(uint64_t *),
                       cudaMemcpyHostToDevice));
  auto reset = [&] {
    PERF_CUDA(cudaMemsetAsync(arrive, 0, sizeof(uint64_t), ctx.stream));
    PERF_CUDA(cudaMemsetAsync(slots, 0, GSHMEMI_MAX_PES * sizeof(uint64_t), ctx.stream));
  };
  const uint64_t iters = ctx.opt.iterations(20000, 2000);
  const uint64_t warm = ctx.opt.warmup_iterations(1000, 100);

  rep.section("barrier_all latency (us), all " + std::to_string(npes) + " PEs");
  // Device.
  auto dev = [&](bool raw) {
    return time_loop(ctx, iters, warm, reset, [&](uint64_t n) {
      device_barrier_loop<<<1, 32, 0, ctx.stream>>>(raw, arrive, d_peer_arrive, npes, me, n);
    });
  };
  Stats dfloor = us_stats(dev(true));
  add_row(ctx, "barrier_all_device", "n", 0, 32, "latency", us_stats(dev(false)), &dfloor, iters);

  // On a stream. Every PE enqueues its own barriers; each is released by the
  // peers' enqueues, so no PE's host waits on work nobody will release.
  const uint64_t stream_iters = std::min<uint64_t>(iters, ctx.opt.quick ? 300 : 2000);
  auto on_stream = [&](bool raw) {
    return time_loop(ctx, stream_iters, std::min<uint64_t>(warm, 50), reset, [&](uint64_t n) {
      for (uint64_t i = 1; i <= n; ++i) {
        if (raw) {
          for (int p = 0; p < npes; ++p)
            if (p != me)
              PERF_CU(raw_write_value64((CUstream)ctx.stream, (CUdeviceptr)(peer_slots[p] + me), i,
                                        CU_STREAM_WRITE_VALUE_DEFAULT));
          for (int p = 0; p < npes; ++p)
            if (p != me)
              PERF_CU(raw_wait_value64((CUstream)ctx.stream, (CUdeviceptr)(slots + p), i,
                                       CU_STREAM_WAIT_VALUE_GEQ));
        } else {
          gshmemx_barrier_all_on_stream(ctx.stream);
        }
      }
    });
  };
  Stats sfloor = us_stats(on_stream(true));
  add_row(ctx, "barrier_all_on_stream", "n", 0, 1, "latency", us_stats(on_stream(false)), &sfloor,
          stream_iters);

  // Host.
  {
    const uint64_t host_iters = ctx.opt.quick ? 500 : 5000;
    std::vector<double> samples;
    for (int w = 0; w < 50; ++w) gshmem_barrier_all();
    for (int r = 0; r < ctx.opt.repeats; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      for (uint64_t i = 0; i < host_iters; ++i) gshmem_barrier_all();
      auto t1 = std::chrono::steady_clock::now();
      samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / host_iters);
    }
    add_row(ctx, "barrier_all_host", "n", 0, 1, "latency", compute_stats(samples), nullptr, host_iters);
  }
  cudaFree(d_peer_arrive);
  gshmem_free(slots);
  gshmem_free(arrive);
  return perf_end(ctx);
}
