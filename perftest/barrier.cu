// gshmem_perf_barrier: barrier_all latency on the device, on the host and on
// a stream, for all PEs of the job (run it with 2 and with 4 PEs).
// Floors: device: every PE adds 1 (release, system scope) to a counter on
// each peer and polls its own with acquire loads; on-stream, the raw form of
// what the library enqueues: at 2 PEs a cuStreamWriteValue64 to the peer,
// then a cuStreamWaitValue64 on its slot (the waits flagged as the library
// flags its own), on more PEs a one-thread kernel a sync.
// The host barrier has no floor here (it is the host half of the runtime).
//
// sync_all_on_stream, three ways, beside three raw forms of the same job
// (write this PE's round to each peer's slot, wait for each peer's round
// here; or a one-thread kernel per round, as NVSHMEM's on-stream sync
// launches): "latency", back-to-back calls timed by events while the host
// enqueues them (whichever of host and GPU is slower sets the pace, as in
// NVIDIA's sync_all_on_stream); "gpu_rate", the same calls enqueued behind a
// kernel that holds the stream until every PE has enqueued them all, so the
// events time the GPU alone; "enqueue", the host time per call of that
// held enqueue.
#include "perf_common.cuh"

#include <cstring>
#include <vector>

using namespace gshmem_perf;

namespace {

// One round of the raw barrier: a release add (system scope) to each peer's
// counter, then an acquire poll of this PE's until round i's arrivals.
__device__ void raw_barrier_round(uint64_t *arrive, uint64_t **peer_arrive, int npes, int me, uint64_t i) {
  for (int p = 0; p < npes; ++p)
    if (p != me) (void)gd::atomic_fetch_add<memory_order::release, thread_scope::system>(peer_arrive[p], (uint64_t)1);
  raw_wait_ge(arrive, i * (uint64_t)(npes - 1));
}

__global__ void __launch_bounds__(32) device_barrier_loop(bool raw, uint64_t *arrive, uint64_t **peer_arrive, int npes,
                                    int me, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (raw) {
      if (threadIdx.x == 0) raw_barrier_round(arrive, peer_arrive, npes, me, i);
      __syncthreads();
    } else {
      gshmem_barrier_all();
    }
  }
}

// Round i of the raw barrier as its own one-thread kernel (NVSHMEM's
// on-stream sync launches one).
__global__ void raw_sync_kernel(uint64_t *arrive, uint64_t **peer_arrive, int npes, int me, uint64_t i) {
  if (threadIdx.x == 0) raw_barrier_round(arrive, peer_arrive, npes, me, i);
}

// Holds its stream until the host sets *gate (mapped host memory) to 1.
__global__ void hold_stream(const uint64_t *gate) { raw_wait_ge(gate, 1); }

enum class SyncForm { library_sync, library_barrier, raw_per_op, raw_batch, raw_kernel };

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
  uint64_t **d_peer_arrive = device_peer_table(arrive, npes);
  if (!d_peer_arrive) return 1;
  // The memop floors' targets, on the host (device_peer_table checked that
  // every PE maps the heap).
  std::vector<uint64_t *> peer_slots(npes);
  for (int p = 0; p < npes; ++p) peer_slots[p] = (uint64_t *)gshmem_ptr(slots, p);
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

  // On a stream. Every PE enqueues its own barriers and syncs; each is
  // released by the peers' enqueues, so no PE's host waits on work nobody
  // will release. The raw memop forms wait as the library does (GEQ, plus
  // FLUSH where the device offers it).
  const uint64_t stream_iters = std::min<uint64_t>(iters, ctx.opt.quick ? 300 : 2000);
  int device = 0, can_flush = 0;
  PERF_CUDA(cudaGetDevice(&device));
  PERF_CUDA(cudaDeviceGetAttribute(&can_flush, cudaDevAttrCanFlushRemoteWrites, device));
  const unsigned wait_flags = CU_STREAM_WAIT_VALUE_GEQ | (can_flush ? CU_STREAM_WAIT_VALUE_FLUSH : 0u);
  std::vector<CUstreamBatchMemOpParams> ops(2 * (size_t)npes);
  auto enqueue_sync = [&](SyncForm form, uint64_t i) {
    switch (form) {
      case SyncForm::library_sync: gshmemx_sync_all_on_stream(ctx.stream); return;
      case SyncForm::library_barrier: gshmemx_barrier_all_on_stream(ctx.stream); return;
      case SyncForm::raw_kernel: raw_sync_kernel<<<1, 32, 0, ctx.stream>>>(arrive, d_peer_arrive, npes, me, i); return;
      case SyncForm::raw_per_op:
        for (int p = 0; p < npes; ++p)
          if (p != me)
            PERF_CU(raw_write_value64((CUstream)ctx.stream, (CUdeviceptr)(peer_slots[p] + me), i,
                                      CU_STREAM_WRITE_VALUE_DEFAULT));
        for (int p = 0; p < npes; ++p)
          if (p != me) PERF_CU(raw_wait_value64((CUstream)ctx.stream, (CUdeviceptr)(slots + p), i, wait_flags));
        return;
      case SyncForm::raw_batch: {  // the same operations, in the same order, as one batch
        unsigned n = 0;
        for (int p = 0; p < npes; ++p)
          if (p != me) {
            CUstreamBatchMemOpParams &op = ops[n++];
            std::memset(&op, 0, sizeof(op));
            op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
            op.writeValue.address = (CUdeviceptr)(peer_slots[p] + me);
            op.writeValue.value64 = i;
            op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
          }
        for (int p = 0; p < npes; ++p)
          if (p != me) {
            CUstreamBatchMemOpParams &op = ops[n++];
            std::memset(&op, 0, sizeof(op));
            op.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
            op.waitValue.address = (CUdeviceptr)(slots + p);
            op.waitValue.value64 = i;
            op.waitValue.flags = wait_flags;
          }
        PERF_CU(raw_batch_memop((CUstream)ctx.stream, n, ops.data(), 0));
        return;
      }
    }
  };
  auto back_to_back = [&](SyncForm form) {
    return us_stats(time_loop(ctx, stream_iters, std::min<uint64_t>(warm, 50), reset, [&](uint64_t n) {
      for (uint64_t i = 1; i <= n; ++i) enqueue_sync(form, i);
    }));
  };
  uint64_t *gate = nullptr, *d_gate = nullptr;
  PERF_CUDA(cudaHostAlloc((void **)&gate, sizeof(uint64_t), cudaHostAllocMapped));
  PERF_CUDA(cudaHostGetDevicePointer((void **)&d_gate, gate, 0));
  // Few enough calls that the held stream's queue never fills (the host
  // would then wait for a release that comes only after the enqueue).
  const uint64_t held_calls = 64;
  auto held = [&](SyncForm form, std::vector<double> *gpu_ns, std::vector<double> *host_ns) {
    for (int r = -1; r < ctx.opt.repeats; ++r) {  // r == -1: warm-up
      reset();
      __atomic_store_n(gate, 0ull, __ATOMIC_RELEASE);
      PERF_CUDA(cudaDeviceSynchronize());
      host_barrier();
      hold_stream<<<1, 1, 0, ctx.stream>>>(d_gate);
      PERF_CUDA(cudaEventRecord(ctx.start, ctx.stream));
      const auto t0 = std::chrono::steady_clock::now();
      for (uint64_t i = 1; i <= held_calls; ++i) enqueue_sync(form, i);
      const auto t1 = std::chrono::steady_clock::now();
      PERF_CUDA(cudaEventRecord(ctx.stop, ctx.stream));
      // Every PE enqueued everything: the host sync, not host_barrier,
      // whose device synchronization would wait for the held stream.
      gshmemi_host_sync_all();
      __atomic_store_n(gate, 1ull, __ATOMIC_RELEASE);
      PERF_CUDA(cudaEventSynchronize(ctx.stop));
      float ms = 0;
      PERF_CUDA(cudaEventElapsedTime(&ms, ctx.start, ctx.stop));
      if (r >= 0) {
        gpu_ns->push_back(ms * 1e6 / double(held_calls));
        host_ns->push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(held_calls));
      }
      host_barrier();
    }
  };
  struct Measured {
    Stats latency, gpu_rate, enqueue;
  };
  auto measure = [&](SyncForm form) {
    Measured m;
    m.latency = back_to_back(form);
    std::vector<double> gpu_ns, host_ns;
    held(form, &gpu_ns, &host_ns);
    m.gpu_rate = us_stats(gpu_ns);
    m.enqueue = us_stats(host_ns);
    return m;
  };
  // The floor of the library's barrier and sync alike is the raw form of
  // what it enqueues: at 2 PEs the raw write + wait a peer (one driver call
  // each; the batch of the same operations is the slower GPU rate on H200,
  // which is why the library does not use it), on more PEs a one-thread
  // kernel a sync (the library's memop syncs serve teams of 2 members by
  // default: host/stream.cpp).
  const Measured per_op = measure(SyncForm::raw_per_op);
  const Measured kernel = measure(SyncForm::raw_kernel);
  const Measured &floor = npes <= 2 ? per_op : kernel;
  add_row(ctx, "barrier_all_on_stream", "n", 0, 1, "latency", back_to_back(SyncForm::library_barrier),
          &floor.latency, stream_iters);

  // sync_all_on_stream, back to back, GPU alone, host enqueue (see the top).
  {
    rep.section(std::string("sync_all_on_stream (us), all ") + std::to_string(npes) +
                " PEs; raw memop waits GEQ" + (can_flush ? " | FLUSH" : "") +
                (raw_batch_memop ? "" : "; no cuStreamBatchMemOp in this driver"));
    auto add_rows = [&](const std::string &name, const Measured &m, const Measured *floor) {
      add_row(ctx, name, "n", 0, 1, "latency", m.latency, floor ? &floor->latency : nullptr, stream_iters);
      add_row(ctx, name, "n", 0, 1, "gpu_rate", m.gpu_rate, floor ? &floor->gpu_rate : nullptr, held_calls);
      add_row(ctx, name, "n", 0, 1, "enqueue", m.enqueue, floor ? &floor->enqueue : nullptr, held_calls);
    };
    Measured batch{};
    if (raw_batch_memop) batch = measure(SyncForm::raw_batch);
    add_rows("sync_all_on_stream", measure(SyncForm::library_sync), &floor);
    add_rows("raw_floor:memop_sync_per_op", per_op, nullptr);
    if (raw_batch_memop) add_rows("raw_floor:memop_sync_batch", batch, nullptr);
    add_rows("raw_floor:kernel_sync", kernel, nullptr);
  }
  cudaFreeHost(gate);

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
