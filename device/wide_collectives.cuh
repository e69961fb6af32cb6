// Wide forms of the on-stream and host collectives (device/collective_kernels.cu,
// device/reduction_kernels.cu). One block of kCollectiveThreads moves about
// 16 GB/s over NVLink (NVIDIA's broadcast_on_stream at 4 MiB: 273 us against
// NVSHMEM's 38 on 2 x H100), so where every member of the team is mapped
// here and the call moves enough data, the call runs as three kernels on the
// stream instead of one block:
//   1. the team's entry sync (team_sync_kernel: the same sync_team<false> as
//      the block form's first sync);
//   2. the data phase, in a grid of up to two blocks per SM (group_grid);
//   3. the team's last sync.
// Ordering is the block form's: the stream runs 2 after every acquire of 1
// (so it reads what each member stored before its call) and 3 after every
// access of 2 (no member leaves, and no root's source is reused, before
// every reader is done). A team with a remote member keeps the block form,
// whose data goes through the proxy. In-place reductions keep it too (their
// results wait in the team's staging area, chunk by chunk, between syncs).
#pragma once

#include <gshmem/detail/team_collectives.h>

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

// The three kernels; `data` enqueues the data phase and returns its launch
// status. The entry sync carries the call's signature (`signature`, as the
// block form's entry sync: a member that calls with other arguments, in
// either form, is reported). A failed launch of the data phase leaves the
// entry sync queued: the members then wait in the last sync of their own
// calls (launch failures are configuration errors, the same on every
// member).
template <class Data>
cudaError_t run(int team, cudaStream_t stream, unsigned signature, Data data) {
  cudaError_t err = launch_team_sync(team, false, stream, signature);
  if (err == cudaSuccess) err = data();
  if (err == cudaSuccess) err = launch_team_sync(team, false, stream);
  return err;
}

// A data collective's launcher's wide path: where the call moves at least
// kMinBytes and every member is mapped, the three kernels with `kernel` (a
// data phase of device/collective_kernels.cu) on a grid for `bytes`; true
// (and *err) where it ran. `signature`: the call's (the block form's entry
// sync computes the same from the same arguments).
template <class... Params, class... Args>
bool try_data(int team, size_t bytes, unsigned signature, void (*kernel)(Params...), cudaStream_t stream,
              cudaError_t *err, Args... args) {
  if (bytes < kMinBytes || !all_members_mapped(team)) return false;
  *err = run(team, stream, signature, [&] {
    kernel<<<blocks_for(bytes), kThreads, 0, stream>>>(args...);
    return cudaGetLastError();
  });
  return true;
}

// The reductions' data phase (the data collectives' are in
// device/collective_kernels.cu). Arguments were checked on the host; an
// invalid handle here (a team destroyed in between) does nothing.
// Reduction (Scatter false) or reducescatter (true: this member's block of
// n elements of every member's source).
template <class Op, class T, bool Scatter>
__global__ void __launch_bounds__(kThreads) reduce_kernel(int team, T *dest, const T *source, size_t n) {
  gd::team_desc d;
  if (!gd::device_team(team, &d)) return;
  const T *from = Scatter ? source + (size_t)d.my_rank * n : source;
  const gd::group_grid g;
  gd::reduce_mapped<Op>(d, dest, from, n, g.rank(), g.size(),
                        Scatter ? "gshmemx_reducescatter_on_stream" : "gshmemx_reduce_on_stream");
}

// The reduction launchers' wide path: true (and *err) where it ran.
template <class Op, class T, bool Scatter>
bool try_reduce(int team, T *dest, const T *source, size_t n, cudaStream_t stream, cudaError_t *err) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kMinReduceBytes || (!Scatter && (const void *)dest == (const void *)source) ||
      !all_members_mapped(team))
    return false;
  *err = run(team, stream, gd::reduction_signature<Op, Scatter>(bytes), [&] {
    reduce_kernel<Op, T, Scatter><<<blocks_for(bytes, kReduceBytesPerBlock), kThreads, 0, stream>>>(team, dest,
                                                                                                    source, n);
    return cudaGetLastError();
  });
  return true;
}

}  // namespace wide
}  // namespace team
}  // namespace gshmemi
