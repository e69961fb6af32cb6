// gshmem_perf_bw: one-directional put / put_signal bandwidth from PE 0 to
// PE 1, 64 KiB .. 64 MiB, issued by one block or by many blocks (each block
// moves its slice with the block-cooperative routine; put_signal adds 1 to
// one signal per slice). Floor: a hand-written copy kernel with 16-byte
// stores to the peer's mapped memory and a block barrier per call (plus a
// release add per slice for put_signal), same grid. Reported in GB/s (higher
// is better).
// Counted exchange: the blocks of every PE but PE 1 each write a slice and
// add its byte count to one counter on PE 1 (gshmemx_putmem_signal_counted_block, or the same
// exchange with gshmemx_putmem_signal_block and GSHMEM_SIGNAL_ADD of the
// slice's bytes); PE 1 waits until the counter reaches the round's total
// (gshmemx_signal_counted_wait_until, or gshmem_signal_wait_until GE) and
// answers each producer with a signal that its blocks wait for before the
// next round.
// Floor: 16-byte stores, a block barrier, one red.release add per slice; an
// acquire poll and a release store back. GB/s of payload per round trip.
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

__global__ void __launch_bounds__(1024) bw_kernel(bool raw, bool signal, char *dst, const char *src, char *peer_dst,
                          uint64_t *sig, uint64_t *peer_sig, size_t bytes, uint64_t iters) {
  const size_t slice = (bytes / gridDim.x) & ~size_t(15);
  const size_t off = slice * blockIdx.x;
  const size_t len = blockIdx.x == gridDim.x - 1 ? bytes - off : slice;
  for (uint64_t it = 0; it < iters; ++it) {
    if (raw) {
      raw_copy(peer_dst + off, src + off, len, threadIdx.x, blockDim.x);
      // A block-cooperative put returns once the whole block's share is
      // issued (the source may be reused): the floor ends each call with the
      // same block barrier.
      __syncthreads();
      if (signal && threadIdx.x == 0)
        (void)gd::atomic_fetch_add<memory_order::release, thread_scope::system>(peer_sig, (uint64_t)1);
    } else {
      if (signal)
        gshmemx_putmem_signal_block(dst + off, src + off, len, sig, 1, GSHMEM_SIGNAL_ADD, 1);
      else
        gshmemx_putmem_block(dst + off, src + off, len, 1);
    }
  }
  // Completion: the copy is done when the kernel ends (raw); gshmem's puts
  // are completed by quiet.
  if (!raw && threadIdx.x == 0) gshmem_quiet();
}

// One round per iteration (see the top of the file). mode 0: floor, 1:
// gshmemx_putmem_signal_counted_block + gshmemx_signal_counted_wait_until,
// 2: gshmemx_putmem_signal_block ADD + gshmem_signal_wait_until GE.
// Producer `index` of `producers` (every PE but PE 1), gridDim.x blocks each:
// block b writes slice (index * gridDim.x + b) of the round's bytes.
__global__ void __launch_bounds__(1024) counted_producer(int mode, int index, int producers, char *dst,
                                                         const char *src, char *peer_dst, uint64_t *counter,
                                                         uint64_t *peer_counter, uint64_t *ack, size_t bytes,
                                                         uint64_t iters) {
  const unsigned slices = gridDim.x * (unsigned)producers, k = (unsigned)index * gridDim.x + blockIdx.x;
  const size_t slice = (bytes / slices) & ~size_t(15);
  const size_t off = slice * k;
  const size_t len = k == slices - 1 ? bytes - off : slice;
  for (uint64_t it = 0; it < iters; ++it) {
    if (mode == 0) {
      raw_copy(peer_dst + off, src + off, len, threadIdx.x, blockDim.x);
      __syncthreads();
      if (threadIdx.x == 0) gd::atomic_reduce<gd::reduce_op::add, memory_order::release, thread_scope::system>(
          reinterpret_cast<unsigned long long *>(peer_counter), (unsigned long long)len);
    } else if (mode == 1) {
      gshmemx_putmem_signal_counted_block(dst + off, src + off, len, counter, 1);
    } else {
      gshmemx_putmem_signal_block(dst + off, src + off, len, counter, len, GSHMEM_SIGNAL_ADD, 1);
    }
    if (threadIdx.x == 0) {
      if (mode == 0) raw_wait_ge(ack, it + 1);
      else (void)gshmem_signal_wait_until(ack, GSHMEM_CMP_GE, it + 1);
    }
    __syncthreads();
  }
}
// PE 1: waits for the round's bytes, then answers every producer.
__global__ void counted_receiver(int mode, uint64_t *counter, uint64_t *ack, size_t bytes, uint64_t iters) {
  const int n = gshmem_n_pes();
  uint64_t *peer_ack[8] = {};
  if (mode == 0)
    for (int pe = 0; pe < n && pe < 8; ++pe) peer_ack[pe] = (uint64_t *)gshmem_ptr(ack, pe);
  for (uint64_t it = 0; it < iters; ++it) {
    const uint64_t total = (it + 1) * bytes;
    if (mode == 0) {
      raw_wait_ge(counter, total);
      for (int pe = 0; pe < n && pe < 8; ++pe)
        if (pe != 1) raw_store_release(peer_ack[pe], it + 1);
    } else {
      if (mode == 1) (void)gshmemx_signal_counted_wait_until(counter, total);
      else (void)gshmem_signal_wait_until(counter, GSHMEM_CMP_GE, total);
      for (int pe = 0; pe < n; ++pe)
        if (pe != 1) gshmemx_signal_op(ack, it + 1, GSHMEM_SIGNAL_SET, pe);
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_bw", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_bw", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  const bool quick = ctx.opt.quick;
  Range sizes = ctx.opt.range_set ? ctx.opt.range : Range{64u << 10, 64u << 20, quick ? 16u : 4u};
  const size_t max_bytes = sizes.max;
  char *src = (char *)gshmem_malloc(max_bytes);
  char *dst = (char *)gshmem_malloc(max_bytes);
  uint64_t *sig = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  if (!src || !dst || !sig) {
    std::fprintf(stderr, "PE %d: gshmem_malloc(%zu) failed\n", ctx.pe, max_bytes);
    return 1;
  }
  PERF_CUDA(cudaMemset(src, 0x3c, max_bytes));
  char *peer_dst = ctx.pe == 0 ? (char *)gshmem_ptr(dst, 1) : nullptr;
  uint64_t *peer_sig = ctx.pe == 0 ? (uint64_t *)gshmem_ptr(sig, 1) : nullptr;
  // A remote peer (GSHMEM_REMOTE_PEERS, docs/remote.md): gshmem's puts go
  // through the proxy and its transport; rows get a "[remote]" suffix and
  // have no load/store floor.
  // Decided alike on both PEs: the rounds (and their host barriers) must match.
  // (PEs past 1, idle in the PE 0 -> PE 1 sections, look at PE 0.)
  const int other = ctx.pe == 0 ? 1 : 0;
  const bool remote = gshmem_ptr(dst, other) == nullptr || gshmem_ptr(sig, other) == nullptr;
  if (remote && ctx.pe == 0) std::printf("# PE 1 is remote (no mapped address): gshmem rows only, through the proxy; no floor\n");
  auto reset = [&] { PERF_CUDA(cudaMemsetAsync(sig, 0, sizeof(uint64_t), ctx.stream)); };
  // Issuers: one block of 1024 threads; 32 blocks of 1024 (reported as the
  // total thread count).
  const int grids[] = {1, 32};
  for (bool signal : {false, true}) {
    rep.section(std::string(signal ? "putmem_signal" : "putmem") + " bandwidth PE 0 -> PE 1 (GB/s)");
    for (int grid : grids) {
      for (uint64_t bytes : sizes.values()) {
        // Through the proxy a block's put is a queued request with a round
        // trip (about 50 us on one node) and a few GB/s at most, and the 32
        // blocks' requests take turns: estimated so, a remote row keeps to
        // the same time budget as a P2P one.
        double est_ns = remote ? grid * 60000.0 + double(bytes) / 1.0
                               : 2000 + double(bytes) / (grid == 1 ? 100.0 : 350.0);
        uint64_t iters = iters_for(est_ns, quick ? 10e6 : 50e6, ctx.opt.iterations(10000, 1000), 3);
        auto run = [&](bool raw) {
          std::vector<double> ns = time_loop(ctx, iters, 1, reset, [&](uint64_t n) {
            if (ctx.pe == 0)
              bw_kernel<<<grid, 1024, 0, ctx.stream>>>(raw, signal, dst, src, peer_dst, sig,
                                                       peer_sig, bytes, n);
          });
          std::vector<double> gbs;
          for (double v : ns) gbs.push_back(double(bytes) / v);  // bytes/ns = GB/s
          return compute_stats(gbs);
        };
        std::string name = std::string(signal ? "putmem_signal" : "putmem") +
                           (grid == 1 ? "_block" : "_block_x32") + (remote ? "[remote]" : "");
        Stats f = remote ? Stats{} : run(true);
        add_row(ctx, name, "size", bytes, grid * 1024, "bandwidth", run(false), remote ? nullptr : &f, iters, "GB/s",
                false);
      }
    }
  }
  // Counted exchange (see the top of the file): 32 blocks of 1024 threads
  // on every PE but PE 1 (at most 8 PEs), one receiving thread on PE 1.
  if (ctx.npes <= 8) {
    uint64_t *ack = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
    if (!ack) {
      std::fprintf(stderr, "PE %d: gshmem_malloc(ack) failed\n", ctx.pe);
      return 1;
    }
    const int producers = ctx.npes - 1;
    const int index = ctx.pe == 0 ? 0 : ctx.pe - 1;  // PE 1 produces nothing
    char *to_dst = ctx.pe != 1 ? (char *)gshmem_ptr(dst, 1) : nullptr;
    uint64_t *to_sig = ctx.pe != 1 ? (uint64_t *)gshmem_ptr(sig, 1) : nullptr;
    // The floor needs every producer mapped to PE 1 and PE 1 to every
    // producer: decided alike on every PE.
    bool all_mapped = true;
    for (int pe = 0; pe < ctx.npes; ++pe) all_mapped = all_mapped && gshmem_ptr(dst, pe) != nullptr;
    const bool no_floor = remote || !all_mapped;
    auto reset_both = [&] {
      PERF_CUDA(cudaMemsetAsync(sig, 0, sizeof(uint64_t), ctx.stream));
      PERF_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), ctx.stream));
    };
    const int grid = 32;
    rep.section("counted exchange: 32 blocks on each of " + std::to_string(producers) +
                " PE(s) -> PE 1, one counter, signal back (GB/s)");
    Range exchange = ctx.opt.range_set ? ctx.opt.range : Range{64u << 10, 16u << 20, quick ? 16u : 4u};
    for (uint64_t bytes : exchange.values()) {
      if (bytes > max_bytes) continue;
      double est_ns = remote ? grid * producers * 60000.0 + double(bytes) / 1.0 : 5000 + double(bytes) / 300.0;
      uint64_t iters = iters_for(est_ns, quick ? 10e6 : 50e6, ctx.opt.iterations(10000, 1000), 3);
      auto run = [&](int mode) {
        std::vector<double> ns = time_loop(ctx, iters, 1, reset_both, [&](uint64_t n) {
          if (ctx.pe != 1)
            counted_producer<<<grid, 1024, 0, ctx.stream>>>(mode, index, producers, dst, src, to_dst, sig, to_sig,
                                                            ack, bytes, n);
          else
            counted_receiver<<<1, 1, 0, ctx.stream>>>(mode, sig, ack, bytes, n);
        });
        std::vector<double> gbs;
        for (double v : ns) gbs.push_back(double(bytes) / v);
        return compute_stats(gbs);
      };
      const std::string suffix = remote ? "[remote]" : "";
      Stats f = no_floor ? Stats{} : run(0);
      add_row(ctx, "putmem_signal_counted_block_x32" + suffix, "size", bytes, grid * 1024 * producers, "bandwidth",
              run(1), no_floor ? nullptr : &f, iters, "GB/s", false);
      add_row(ctx, "putmem_signal_add_block_x32" + suffix, "size", bytes, grid * 1024 * producers, "bandwidth",
              run(2), no_floor ? nullptr : &f, iters, "GB/s", false);
    }
    gshmem_free(ack);
  }
  gshmem_free(sig);
  gshmem_free(dst);
  gshmem_free(src);
  return perf_end(ctx);
}
