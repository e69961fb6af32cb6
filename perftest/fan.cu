// gshmem_perf_fan: fan-in to PE 0 from the N-1 other PEs, then fan-out
// (PE 0 releases them); one round trip per iteration, for all PEs of the job
// (run it with 2 and with 4 PEs).
//   add:      every PE signal_op(ADD 1) on one counter at PE 0; PE 0
//             signal_wait_until(counter >= i*(N-1))
//   set_all:  PE p signal_op(SET i) on ivar p-1 at PE 0; PE 0
//             uint64_wait_until_all(N-1 ivars >= i)
//   release:  PE 0 signal_op(SET i) on each PE's release word; they wait >= i.
// And every PE signalling every other (all_to_all): PE p signal_op(SET i)
// on ivar p of each other PE, then uint64_wait_until_all over the N ivars
// with its own masked out by the status array (a barrier made of signals;
// at 2 PEs a ping-pong, the rows that differ start at 3).
// Floor: the same exchange with red.add.relaxed.sys / st.relaxed.sys and
// ld.acquire.sys polls.
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

struct FanArgs {
  uint64_t *counter;   // symmetric (used at PE 0)
  uint64_t *ivars;     // symmetric, N-1 elements (used at PE 0)
  uint64_t *release;   // symmetric (used at PEs 1..N-1)
  uint64_t *root_counter, *root_ivars;  // PE 0's words as mapped here
  uint64_t **peer_release;              // each PE's release word as mapped here (device array)
  uint64_t **peer_ivars;                // each PE's ivars as mapped here (device array)
  const int *others;                    // status array: 1 at this PE's own ivar (device)
  int npes, me;
  bool set_all, raw, all_to_all;
};

__global__ void __launch_bounds__(1) fan_kernel(FanArgs a, uint64_t iters) {
  const uint64_t others = (uint64_t)(a.npes - 1);
  for (uint64_t i = 1; i <= iters; ++i) {
    if (a.all_to_all) {
      for (int p = 0; p < a.npes; ++p) {
        if (p == a.me) continue;
        if (a.raw) raw_store_relaxed(&a.peer_ivars[p][a.me], i);
        else gshmemx_signal_op(&a.ivars[a.me], i, GSHMEM_SIGNAL_SET, p);
      }
      if (a.raw) {
        for (int p = 0; p < a.npes; ++p)
          if (p != a.me) raw_wait_ge(&a.ivars[p], i);
      } else {
        gshmem_uint64_wait_until_all(a.ivars, (size_t)a.npes, a.others, GSHMEM_CMP_GE, i);
      }
      continue;
    }
    if (a.me == 0) {
      if (a.raw) {
        if (a.set_all) {
          for (int p = 0; p < a.npes - 1; ++p) raw_wait_ge(&a.ivars[p], i);
        } else {
          raw_wait_ge(a.counter, i * others);
        }
        for (int p = 1; p < a.npes; ++p) raw_store_relaxed(a.peer_release[p], i);
      } else {
        if (a.set_all) gshmem_uint64_wait_until_all(a.ivars, others, nullptr, GSHMEM_CMP_GE, i);
        else (void)gshmem_signal_wait_until(a.counter, GSHMEM_CMP_GE, i * others);
        for (int p = 1; p < a.npes; ++p) gshmemx_signal_op(a.release, i, GSHMEM_SIGNAL_SET, p);
      }
    } else {
      if (a.raw) {
        if (a.set_all) raw_store_relaxed(&a.root_ivars[a.me - 1], i);
        else raw_add_relaxed(a.root_counter, 1);
        raw_wait_ge(a.release, i);
      } else {
        if (a.set_all) gshmemx_signal_op(&a.ivars[a.me - 1], i, GSHMEM_SIGNAL_SET, 0);
        else gshmemx_signal_op(a.counter, 1, GSHMEM_SIGNAL_ADD, 0);
        (void)gshmem_signal_wait_until(a.release, GSHMEM_CMP_GE, i);
      }
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_fan", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_fan", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  const int npes = ctx.npes;
  uint64_t *counter = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  uint64_t *ivars = (uint64_t *)gshmem_malloc(GSHMEMI_MAX_PES * sizeof(uint64_t));
  uint64_t *release = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  if (!counter || !ivars || !release) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed\n", ctx.pe);
    return 1;
  }
  uint64_t **d_peer_release = device_peer_table(release, npes);
  uint64_t **d_peer_ivars = device_peer_table(ivars, npes);
  if (!d_peer_release || !d_peer_ivars) return 1;
  std::vector<int> others(npes, 0);  // the status array: this PE's own ivar left out
  others[ctx.pe] = 1;
  int *d_others = nullptr;
  PERF_CUDA(cudaMalloc(&d_others, npes * sizeof(int)));
  PERF_CUDA(cudaMemcpy(d_others, others.data(), npes * sizeof(int), cudaMemcpyHostToDevice));
  FanArgs a{counter, ivars, release, (uint64_t *)gshmem_ptr(counter, 0),
            (uint64_t *)gshmem_ptr(ivars, 0), d_peer_release, d_peer_ivars, d_others, npes, ctx.pe,
            false, false, false};
  if (!a.root_counter || !a.root_ivars) {
    std::fprintf(stderr, "PE %d: PE 0 not reachable by load/store\n", ctx.pe);
    return 1;
  }
  auto reset = [&] {
    PERF_CUDA(cudaMemsetAsync(counter, 0, sizeof(uint64_t), ctx.stream));
    PERF_CUDA(cudaMemsetAsync(ivars, 0, GSHMEMI_MAX_PES * sizeof(uint64_t), ctx.stream));
    PERF_CUDA(cudaMemsetAsync(release, 0, sizeof(uint64_t), ctx.stream));
  };
  const uint64_t iters = ctx.opt.iterations(50000, 5000);
  const uint64_t warm = ctx.opt.warmup_iterations(2000, 200);
  rep.section("fan-in to PE 0 + fan-out from PE 0, round trip (us), " + std::to_string(npes) + " PEs");
  for (bool set_all : {false, true}) {
    const char *name = set_all ? "fanin_set_wait_until_all+fanout" : "fanin_add_signal_wait_until+fanout";
    auto run = [&](bool raw) {
      FanArgs b = a;
      b.set_all = set_all;
      b.raw = raw;
      return time_loop(ctx, iters, warm, reset, [&](uint64_t n) {
        fan_kernel<<<1, 1, 0, ctx.stream>>>(b, n);
      });
    };
    Stats f = us_stats(run(true));
    add_row(ctx, name, "n", npes - 1, 1, "round_trip", us_stats(run(false)), &f, iters);
  }
  rep.section("every PE signalling every other, then waiting for all of them (us a round), " +
              std::to_string(npes) + " PEs");
  {
    auto run = [&](bool raw) {
      FanArgs b = a;
      b.all_to_all = true;
      b.raw = raw;
      return time_loop(ctx, iters, warm, reset, [&](uint64_t n) { fan_kernel<<<1, 1, 0, ctx.stream>>>(b, n); });
    };
    Stats f = us_stats(run(true));
    add_row(ctx, "all_to_all_signal+wait_until_all", "n", npes - 1, 1, "round", us_stats(run(false)), &f, iters);
  }
  cudaFree(d_others);
  cudaFree(d_peer_ivars);
  cudaFree(d_peer_release);
  gshmem_free(release);
  gshmem_free(ivars);
  gshmem_free(counter);
  return perf_end(ctx);
}
