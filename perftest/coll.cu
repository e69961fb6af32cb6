// gshmem_perf_coll: device team sync, barrier, broadcast, fcollect,
// alltoall and int64 sum reduce latency over all PEs of the job (run it
// with 2 and with 4 PEs), one caller per PE in each form (thread, warp,
// block). By default the small collectives take the LL protocol (<gshmem/detail/team_ll.h>; a
// one-thread call up to GSHMEM_COLLECTIVE_LL_THREAD_BYTES) and the rows are
// reported as gshmem_perf_coll_ll; with GSHMEM_COLLECTIVE_LL=0 they take team
// syncs around the copy and are reported as gshmem_perf_coll, so that the two
// runs print the same rows under two names. A thread-bytes setting from the
// environment is added to the name.
// The last section times the on-stream forms (broadcastmem, fcollectmem,
// alltoallmem, int sum reduce) at sizes that take the wide form
// (device/wide_collectives.cuh): calls enqueued back to back on one stream,
// time per call. Run with GSHMEM_COLLECTIVE_WIDE_ONE_LAUNCH=0 the wide form
// takes three launches instead of one cooperative kernel; where the
// variable is set, the rows carry "[WIDE_ONE_LAUNCH=<its value>]".
// Floor of the sync rows: one thread stores a counter to each peer (relaxed,
// system scope) and polls its own slots, no fence: the cheapest exchange
// that tells every PE all others arrived.
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

enum op_kind { op_sync, op_barrier, op_broadcast, op_fcollect, op_alltoall, op_reduce, op_floor };

__global__ void coll_loop(int op, int form, char *dest, const char *source, size_t nbytes, uint64_t *slots,
                          uint64_t **peer_slots, int npes, int me, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (op == op_floor) {
      if (threadIdx.x == 0) {
        for (int p = 0; p < npes; ++p)
          if (p != me) gd::atomic_store<memory_order::relaxed, thread_scope::system>(peer_slots[p] + me, i);
        for (int p = 0; p < npes; ++p)
          if (p != me)
            while (gd::atomic_load<memory_order::relaxed, thread_scope::system>(slots + p) < i) {
            }
      }
      __syncthreads();
      continue;
    }
    const bool call = form == 2 || (form == 1 && threadIdx.x < 32) || (form == 0 && threadIdx.x == 0);
    if (call) {
      const int root = (int)(i % (uint64_t)npes);
      if (op == op_sync) {
        if (form == 0) gshmem_team_sync(GSHMEM_TEAM_WORLD);
        else if (form == 1) gshmemx_team_sync_warp(GSHMEM_TEAM_WORLD);
        else gshmemx_team_sync_block(GSHMEM_TEAM_WORLD);
      } else if (op == op_barrier) {
        if (form == 0) gshmemx_team_barrier(GSHMEM_TEAM_WORLD);
        else if (form == 1) gshmemx_team_barrier_warp(GSHMEM_TEAM_WORLD);
        else gshmemx_team_barrier_block(GSHMEM_TEAM_WORLD);
      } else if (op == op_broadcast) {
        if (form == 0) gshmem_broadcastmem(GSHMEM_TEAM_WORLD, dest, source, nbytes, root);
        else if (form == 1) gshmemx_broadcastmem_warp(GSHMEM_TEAM_WORLD, dest, source, nbytes, root);
        else gshmemx_broadcastmem_block(GSHMEM_TEAM_WORLD, dest, source, nbytes, root);
      } else if (op == op_fcollect) {
        if (form == 0) gshmem_fcollectmem(GSHMEM_TEAM_WORLD, dest, source, nbytes);
        else if (form == 1) gshmemx_fcollectmem_warp(GSHMEM_TEAM_WORLD, dest, source, nbytes);
        else gshmemx_fcollectmem_block(GSHMEM_TEAM_WORLD, dest, source, nbytes);
      } else if (op == op_reduce) {
        int64_t *const to = reinterpret_cast<int64_t *>(dest);
        const int64_t *const from = reinterpret_cast<const int64_t *>(source);
        const size_t n = nbytes / sizeof(int64_t);
        if (form == 0) gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, to, from, n);
        else if (form == 1) gshmemx_int64_sum_reduce_warp(GSHMEM_TEAM_WORLD, to, from, n);
        else gshmemx_int64_sum_reduce_block(GSHMEM_TEAM_WORLD, to, from, n);
      } else {
        if (form == 0) gshmem_alltoallmem(GSHMEM_TEAM_WORLD, dest, source, nbytes);
        else if (form == 1) gshmemx_alltoallmem_warp(GSHMEM_TEAM_WORLD, dest, source, nbytes);
        else gshmemx_alltoallmem_block(GSHMEM_TEAM_WORLD, dest, source, nbytes);
      }
    }
    __syncthreads();
  }
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_coll", 2, ctx, &exit_code)) return exit_code;
  std::string name_text = gshmemi_state().collective_ll ? "gshmem_perf_coll_ll" : "gshmem_perf_coll";
  if (const char *thread_bytes = std::getenv("GSHMEM_COLLECTIVE_LL_THREAD_BYTES"))
    name_text += std::string("[THREAD_BYTES=") + thread_bytes + "]";
  const char *name = name_text.c_str();
  Reporter rep(name, ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  const int npes = ctx.npes, me = ctx.pe;
  const size_t max_bytes = 32768;  // the largest reduction row
  char *source = (char *)gshmem_malloc(max_bytes * npes);
  char *dest = (char *)gshmem_malloc(max_bytes * npes);
  uint64_t *slots = (uint64_t *)gshmem_malloc(GSHMEMI_MAX_PES * sizeof(uint64_t));
  if (!source || !dest || !slots) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed\n", me);
    return 1;
  }
  uint64_t **d_peer_slots = device_peer_table(slots, npes);
  if (!d_peer_slots) return 1;
  PERF_CUDA(cudaMemset(source, 1, max_bytes * npes));
  auto reset = [&] { PERF_CUDA(cudaMemsetAsync(slots, 0, GSHMEMI_MAX_PES * sizeof(uint64_t), ctx.stream)); };
  const uint64_t iters = ctx.opt.iterations(10000, 1000);
  const uint64_t warm = ctx.opt.warmup_iterations(500, 50);
  const int threads[3] = {1, 32, 256};
  const char *form_name[3] = {"thread", "warp", "block"};
  auto run = [&](int op, int form, size_t nbytes) {
    return us_stats(time_loop(ctx, iters, warm, reset, [&](uint64_t n) {
      coll_loop<<<1, 256, 0, ctx.stream>>>(op, form, dest, source, nbytes, slots, d_peer_slots, npes, me, n);
    }));
  };
  rep.section(std::string(name) + ": team sync / barrier latency (us), all " + std::to_string(npes) + " PEs");
  Stats floor = run(op_floor, 0, 0);
  for (int form = 0; form < 3; ++form) {
    add_row(ctx, std::string("team_sync_") + form_name[form], "n", 0, threads[form], "latency",
            run(op_sync, form, 0), &floor, iters);
    add_row(ctx, std::string("team_barrier_") + form_name[form], "n", 0, threads[form], "latency",
            run(op_barrier, form, 0), &floor, iters);
  }
  rep.section(std::string(name) + ": broadcast / fcollect / alltoall latency (us), bytes per block");
  const char *op_name[3] = {"broadcast", "fcollect", "alltoall"};
  for (int op = op_broadcast; op <= op_alltoall; ++op)
    for (int form = 0; form < 3; ++form)
      for (size_t nbytes : {size_t{8}, size_t{64}, size_t{128}, size_t{256}, size_t{512}, size_t{2048},
                             size_t{4096}, size_t{8192}})
        add_row(ctx, std::string(op_name[op - op_broadcast]) + "_" + form_name[form], "bytes", nbytes,
                threads[form], "latency", run(op, form, nbytes), nullptr, iters);
  // int64 sum reductions, bytes a member (NVIDIA's reduction_latency sizes
  // to 2 KiB, and past the LL bound: 16 and 32 KiB lie on both sides of the
  // push form's bound at 2 PEs, 24 KiB; at 4 PEs it is 8 KiB): the
  // one-thread rows are where that perftest found gshmem furthest behind.
  rep.section(std::string(name) + ": int64 sum reduce latency (us), bytes per member");
  for (int form = 0; form < 3; ++form)
    for (size_t nbytes : {size_t{8}, size_t{64}, size_t{256}, size_t{512}, size_t{1024}, size_t{2048}, size_t{8192},
                          size_t{16384}, size_t{32768}}) {
      if (form == 0 && nbytes > 8192) continue;  // one thread pulls past the LL bound: milliseconds a call
      add_row(ctx, std::string("reduce_int64_") + form_name[form], "bytes", nbytes, threads[form], "latency",
              run(op_reduce, form, nbytes), nullptr, iters);
    }
  // On-stream, the wide form's sizes (bytes a member contributes).
  // The rows carry the setting as the environment gave it (the library
  // parses it; a second parser here could disagree).
  const char *wide_env = std::getenv("GSHMEM_COLLECTIVE_WIDE_ONE_LAUNCH");
  const std::string suffix = wide_env ? std::string("[WIDE_ONE_LAUNCH=") + wide_env + "]" : "";
  const size_t stream_max = size_t{4} << 20;
  char *big_source = (char *)gshmem_malloc(stream_max * npes);
  char *big_dest = (char *)gshmem_malloc(stream_max * npes);
  if (!big_source || !big_dest) {
    std::fprintf(stderr, "PE %d: gshmem_malloc of %zu bytes failed\n", me, 2 * stream_max * npes);
    return 1;
  }
  PERF_CUDA(cudaMemset(big_source, 1, stream_max * npes));
  PERF_CUDA(cudaDeviceSynchronize());
  rep.section(std::string(name) + ": on-stream broadcast / fcollect / alltoall / int sum reduce, time per call (us), "
              "bytes per member" + suffix);
  const uint64_t stream_iters = ctx.opt.iterations(200, 50), stream_warm = ctx.opt.warmup_iterations(20, 5);
  const char *stream_name[4] = {"broadcast_on_stream", "fcollect_on_stream", "alltoall_on_stream",
                                "int_sum_reduce_on_stream"};
  for (int which = 0; which < 4; ++which)
    for (size_t nbytes : {size_t{32} << 10, size_t{128} << 10, size_t{512} << 10, size_t{2} << 20, stream_max}) {
      int rc = 0;
      const Stats t = us_stats(time_loop(ctx, stream_iters, stream_warm, [] {}, [&](uint64_t n) {
        for (uint64_t i = 0; i < n; ++i) {
          switch (which) {
            case 0: rc |= gshmemx_broadcastmem_on_stream(GSHMEM_TEAM_WORLD, big_dest, big_source, nbytes, 0, ctx.stream); break;
            case 1: rc |= gshmemx_fcollectmem_on_stream(GSHMEM_TEAM_WORLD, big_dest, big_source, nbytes, ctx.stream); break;
            case 2: rc |= gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, big_dest, big_source, nbytes, ctx.stream); break;
            default:
              rc |= gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, (int *)big_dest, (const int *)big_source,
                                                     nbytes / sizeof(int), ctx.stream);
          }
        }
      }));
      if (rc != 0) {
        std::fprintf(stderr, "PE %d: %s of %zu bytes returned %d\n", me, stream_name[which], nbytes, rc);
        return 1;
      }
      add_row(ctx, std::string(stream_name[which]) + suffix, "bytes", nbytes, 0, "latency", t, nullptr,
              stream_iters);
    }
  gshmem_free(big_dest);
  gshmem_free(big_source);
  cudaFree(d_peer_slots);
  gshmem_free(slots);
  gshmem_free(dest);
  gshmem_free(source);
  return perf_end(ctx);
}
