// Wide forms of the on-stream and host collectives (device/collective_kernels.cu,
// device/reduction_kernels.cu). One block of kCollectiveThreads moves about
// 16 GB/s over NVLink (NVIDIA's broadcast_on_stream at 4 MiB: 273 us against
// NVSHMEM's 38 on 2 x H100), so where every member of the team is mapped
// here and the call moves enough data, the data phase runs on a grid of up
// to two blocks per SM (group_grid) between the team's two syncs:
//   1. the team's entry sync (the same sync_team<false> as the block form's
//      first sync, with the call's signature);
//   2. the data phase;
//   3. the team's last sync.
// One launch (the default, GSHMEM_COLLECTIVE_WIDE_ONE_LAUNCH=1): one
// cooperative kernel (every block co-resident) runs all three. Block 0's
// first warp runs each sync; a grid barrier (cooperative_groups grid sync)
// follows the entry sync and precedes the last one.
// Three launches (=0, or where a cooperative launch cannot hold the grid):
// team_sync_kernel, the data phase's kernel, team_sync_kernel.
// Residency: the one kernel starts when the GPU can hold all of its blocks
// at once (at most two a SM, divided among the PEs that share the GPU), and
// its blocks wait in the grid barrier while the entry sync waits for the
// other members. Three launches need one block free at a time: a program
// whose own kernels keep the SMs busy while they wait for such a call's
// completion on another stream keeps three launches.
// Ordering is the block form's, with the grid barrier (or the kernel
// boundary) in the place of the block's barrier:
//   - every read of 2 follows the entry sync's acquires: warp 0 of block 0
//     acquired each member's announcement (system scope); the grid barrier
//     (a CTA barrier, then a device-scope fence and arrival by one thread of
//     each block, and the same in reverse on the way out) puts every
//     thread's data phase after it in causality order, so it reads what
//     each member stored before its call;
//   - every access of 2 precedes the last sync's announcements: each
//     thread's accesses are ordered before its block's arrival at the
//     second grid barrier, which precedes warp 0's release fence at system
//     scope, and a release is cumulative: no member leaves, and no root's
//     source is reused, before every reader is done.
// The same argument, with a kernel boundary for the grid barrier, holds for
// three launches. Measured on one H200 (two PEs sharing it, so no NVLink
// figure): docs/performance.md. A team with a remote member keeps the block
// form, whose data goes through the proxy. In-place reductions keep it too
// (their results wait in the team's staging area, chunk by chunk, between
// syncs).
#pragma once

#include <cooperative_groups.h>
#include <gshmem/detail/team_collectives.h>

#include "../src/env.h"
#include "../src/runtime_internal.h"
#include "../src/team_internal.h"

namespace gshmemi {
namespace team {
namespace wide {

namespace gd = gshmem::detail;

constexpr unsigned kThreads = 512;
// Bytes a block of the data phase takes (grid = bytes / this, at most two
// blocks per SM): a copy keeps four 16-byte units per thread in flight
// (copy_units), a reduction one unit of every member (reduce_mapped), so a
// block of either covers its share in one pass. With 32 KiB a reduction
// block's threads took four passes, one NVLink round trip each: 31 us for
// 32 KiB to 1 MiB of int on a stream (NVSHMEM 18-28).
constexpr size_t kBytesPerBlock = size_t{32} << 10;
constexpr size_t kReduceBytesPerBlock = size_t{kThreads} * 16;
// The least data a call must move to take the wide form: below it the two
// extra launches (about 6 us on the stream) cost more than one block's copy.
// Measured on 2 x H100 (NVIDIA's *_on_stream perftests): broadcast 64 KiB
// 18.9 us with one block, 22.8 wide; 128 KiB 24.5 / 22.6; 256 KiB 32.4 /
// 23.1. fcollect and alltoall count every block they move. A reduction's
// one block is slower per byte (each element is read from every member and
// combined), so its bound is lower: 16 KiB of int took 22 us with one block.
constexpr size_t kMinBytes = size_t{128} << 10;
constexpr size_t kMinReduceBytes = size_t{32} << 10;

inline unsigned blocks_for(size_t bytes, size_t bytes_per_block = kBytesPerBlock) {
  static const int sms = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      n = 1;
    return n > 0 ? n : 1;
  }();
  const size_t want = (bytes + bytes_per_block - 1) / bytes_per_block, cap = 2 * (size_t)sms;
  return (unsigned)(want < 1 ? 1 : want > cap ? cap : want);
}

// The number of members of `team` (0 for an invalid handle).
inline size_t team_size(int team) {
  gd::team_desc d;
  return find_team(team, &d) ? (size_t)d.size : 0;
}

// Whether every member of `team` is mapped here (no remote member).
inline bool all_members_mapped(int team) {
  gd::team_desc d;
  if (!find_team(team, &d)) return false;
  const gshmemi_device_state_t *s = gshmemi_host_state();
  for (int r = 0; r < d.size; ++r)
    if (s->peer_base[gd::team_member_pe(d, r)] == nullptr) return false;
  return true;
}

// The wide form's kernel for data phase `Phase` (a copyable struct with
// `routine` and `run(const team_desc&)`, which the grid's threads call
// together). With `one_launch` (launched cooperatively by launch_phase) the
// whole call: entry sync with `signature`, grid barrier, data phase, grid
// barrier, last sync. Without, only the data phase, between two
// team_sync_kernel launches. Arguments were checked on the host; an invalid
// handle here (a team destroyed in between) does nothing.
template <class Phase>
__global__ void __launch_bounds__(kThreads) phase_kernel(int team, unsigned signature, bool one_launch, Phase phase) {
  gd::team_desc d;
  if (!gd::device_team(team, &d)) return;  // the same on every block: none waits at a grid barrier
  if (!one_launch) {
    phase.run(d);
    return;
  }
  // One sync site for both syncs (two inlined team syncs in each of the
  // reductions' many instances cost compile time): pass 0 is the entry
  // sync, grid barrier, data phase, grid barrier; pass 1 the last sync.
  for (int pass = 0;; ++pass) {
    if (blockIdx.x == 0 && threadIdx.x < 32) {
      gd::warp_group g;
      gd::sync_team<false>(g, team, d, "gshmemx_collective_on_stream (wide form)", pass == 0 ? signature : 0u);
    }
    if (pass == 1) return;
    cooperative_groups::this_grid().sync();
    phase.run(d);
    cooperative_groups::this_grid().sync();
  }
}

// Enqueues the wide form of one call: data phase `phase` on a grid of
// `blocks` (fewer where a cooperative launch holds fewer), one launch or
// three (the header says which). `signature`: the call's (the block form's
// entry sync computes the same from the same arguments: a member that calls
// with other arguments, in either form, is reported). A failed launch of
// the data phase after the entry sync was queued leaves that sync queued:
// the members then wait in the last sync of their own calls (launch
// failures are configuration errors, the same on every member).
template <class Phase>
cudaError_t launch_phase(int team, unsigned signature, unsigned blocks, const Phase &phase, cudaStream_t stream) {
  if (env().COLLECTIVE_WIDE_ONE_LAUNCH) {
    // The GPU's side is the kernel's for good (queried once); a PE that
    // shares its GPU with k - 1 others counts on 1/k of it: their
    // cooperative kernels, each waiting in its entry sync for the others,
    // must be resident together (blocks_for_this_pe).
    static const CooperativeFit gpu = [] {
      CooperativeFit fit;
      if (query_cooperative_fit(reinterpret_cast<const void *>(&phase_kernel<Phase>), kThreads, 0, &fit) !=
          cudaSuccess)
        fit.cooperative = false;
      return fit;
    }();
    const long long most = gpu.cooperative ? blocks_for_this_pe(gpu) : 0;
    if (most > 0) {
      cudaLaunchAttribute cooperative = {};
      cooperative.id = cudaLaunchAttributeCooperative;
      cooperative.val.cooperative = 1;
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3((long long)blocks < most ? blocks : (unsigned)most);
      config.blockDim = dim3(kThreads);
      config.stream = stream;
      config.attrs = &cooperative;
      config.numAttrs = 1;
      return cudaLaunchKernelEx(&config, &phase_kernel<Phase>, team, signature, true, phase);
    }
  }
  cudaError_t err = launch_team_sync(team, false, stream, signature);
  if (err == cudaSuccess) {
    phase_kernel<Phase><<<blocks, kThreads, 0, stream>>>(team, 0u, false, phase);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = launch_team_sync(team, false, stream);
  return err;
}

// A data collective's launcher's wide path: where the call moves at least
// kMinBytes and every member is mapped, the wide form of `phase` (a data
// phase of device/collective_kernels.cu) on a grid for `bytes`; true (and
// *err) where it ran.
template <class Phase>
bool try_data(int team, size_t bytes, unsigned signature, const Phase &phase, cudaStream_t stream, cudaError_t *err) {
  if (bytes < kMinBytes || !all_members_mapped(team)) return false;
  *err = launch_phase(team, signature, blocks_for(bytes), phase, stream);
  return true;
}

// The reductions' data phase (the data collectives' are in
// device/collective_kernels.cu): reduction (Scatter false) or reducescatter
// (true: this member's block of n elements of every member's source).
template <class Op, class T, bool Scatter>
struct reduce_phase {
  static constexpr const char *routine = Scatter ? "gshmemx_reducescatter_on_stream" : "gshmemx_reduce_on_stream";
  T *dest;
  const T *source;
  size_t n;
  GSHMEM_DEVICE void run(const gd::team_desc &d) const {
    const T *from = Scatter ? source + (size_t)d.my_rank * n : source;
    const gd::group_grid g;
    gd::reduce_mapped<Op>(d, dest, from, n, g.rank(), g.size(), routine);
  }
};

// The reduction launchers' wide path: true (and *err) where it ran.
template <class Op, class T, bool Scatter>
bool try_reduce(int team, T *dest, const T *source, size_t n, cudaStream_t stream, cudaError_t *err) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kMinReduceBytes || (!Scatter && (const void *)dest == (const void *)source) ||
      !all_members_mapped(team))
    return false;
  *err = launch_phase(team, gd::reduction_signature<Op, Scatter>(bytes), blocks_for(bytes, kReduceBytesPerBlock),
                      reduce_phase<Op, T, Scatter>{dest, source, n}, stream);
  return true;
}

}  // namespace wide
}  // namespace team
}  // namespace gshmemi
