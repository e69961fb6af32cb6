// Kernels behind the team routines (host/team.cpp), and their launchers
// (host/team_internal.h). Each runs the device algorithms of
// <gshmem/detail/team_sync.h> with one warp; every kernel here is loaded at
// init (preload_team_kernels), never at first launch.
#include <gshmem/detail/state.h>
#include <gshmem/detail/team_sync.h>

#include "../host/team_internal.h"
#include "kernel_loader.h"

namespace gshmemi {
namespace team {
namespace {

using gshmem::memory_order;
using gshmem::thread_scope;
namespace gd = gshmem::detail;

template <bool WithQuiet>
__global__ void __launch_bounds__(kTeamThreads) team_sync_kernel(int team) {
  gd::warp_group g;
  (void)gd::sync_team_handle<WithQuiet>(g, team, WithQuiet ? "gshmemx_team_barrier_on_stream"
                                                          : "gshmemx_team_sync_on_stream");
}

__global__ void __launch_bounds__(kTeamThreads) team_agree_kernel(int parent, unsigned long long free_mask,
                                                                  int *slot_out) {
  gd::warp_group g;
  gd::team_desc d;
  if (!gd::device_team(parent, &d)) {  // the host checked it; a stale table is a bug
    if (g.is_leader()) *slot_out = -2;
    return;
  }
  const gshmemi_device_state_t &s = gshmemi_state();
  const char *routine = "gshmem_team_split_strided";
  if (g.is_leader())
    gd::atomic_store<memory_order::relaxed, thread_scope::system>(&gd::team_area_at(s.heap_base, parent)->agreement,
                                                                  free_mask);
  gd::sync_team<false>(g, parent, d, routine);
  // Every member's mask is visible now (released by its announcement).
  // A mapped member's is read through the peer mapping; a remote member's
  // (docs/remote.md) with a get request by lane 0, one member after the
  // other (a split is rare; the request is blocking, so the second sync's
  // announcement follows the read: no member overwrites its mask before
  // every member read it).
  unsigned long long common = ~0ull;
  for (int r = (int)g.rank(); r < d.size; r += (int)g.size()) {
    const char *base = s.peer_base[gd::team_member_pe(d, r)];
    if (base != nullptr)
      common &= gd::atomic_load<memory_order::relaxed, thread_scope::system>(
          &gd::team_area_at(const_cast<char *>(base), parent)->agreement);
  }
  if (__builtin_expect(gd::team_has_remote_member(d), 0) && g.is_leader()) {
    for (int r = 0; r < d.size; ++r) {
      const int pe = gd::team_member_pe(d, r);
      if (s.peer_base[pe] != nullptr) continue;
      unsigned long long mask = 0;
      gd::remote_get(&mask, &gd::team_area_at(s.heap_base, parent)->agreement, sizeof mask, pe, routine);
      common &= mask;
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) common &= __shfl_xor_sync(gd::warp_group::kFull, common, offset);
  const int slot = gd::lowest_slot(common);
  if (slot >= 0) {
    // The new team's state starts from zero on every PE of the parent. The
    // second sync orders these stores before any member's first
    // announcement into this area (its release follows them).
    unsigned long long *area = reinterpret_cast<unsigned long long *>(gd::team_area_at(s.heap_base, slot));
    for (unsigned i = g.rank(); i < sizeof(gd::team_area) / sizeof(unsigned long long); i += g.size())
      gd::atomic_store<memory_order::relaxed, thread_scope::system>(area + i, 0ull);
  }
  gd::sync_team<false>(g, parent, d, routine);
  if (g.is_leader()) *slot_out = slot;
}

}  // namespace

cudaError_t launch_team_sync(int team, bool with_quiet, cudaStream_t stream) {
  if (with_quiet) team_sync_kernel<true><<<1, kTeamThreads, 0, stream>>>(team);
  else team_sync_kernel<false><<<1, kTeamThreads, 0, stream>>>(team);
  return cudaGetLastError();
}

cudaError_t launch_team_agree(int parent, unsigned long long free_mask, int *slot_out, cudaStream_t stream) {
  team_agree_kernel<<<1, kTeamThreads, 0, stream>>>(parent, free_mask, slot_out);
  return cudaGetLastError();
}

cudaError_t preload_team_kernels() {
  KernelLoader loader;
  loader.load(&team_sync_kernel<true>);
  loader.load(&team_sync_kernel<false>);
  loader.load(&team_agree_kernel);
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
