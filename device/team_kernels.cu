// Kernels behind the team routines (host/team.cpp), and their launchers
// (src/team_internal.h). Each runs the device algorithms of
// <gshmem/detail/team_sync.h> with one warp; every kernel here is loaded at
// init (preload_team_kernels), never at first launch.
#include <gshmem/detail/state.h>
#include <gshmem/detail/team_sync.h>

#include "../src/team_internal.h"
#include "kernel_loader.h"

namespace gshmemi {
namespace team {
namespace {

using gshmem::memory_order;
using gshmem::thread_scope;
namespace gd = gshmem::detail;

// A sync or barrier on the stream; with a signature, the entry sync of a
// collective's wide form (wide_collectives.cuh).
template <bool WithQuiet>
__global__ void __launch_bounds__(kTeamThreads) team_sync_kernel(int team, unsigned signature) {
  gd::warp_group g;
  (void)gd::sync_team_handle<WithQuiet>(g, team,
                                        signature != 0 ? "gshmemx_collective_on_stream (wide form)"
                                        : WithQuiet    ? "gshmemx_team_barrier_on_stream"
                                                       : "gshmemx_team_sync_on_stream",
                                        signature);
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

// ------------------------------------------------ teams from a unique id
// The members of a team made from a unique id have no parent team to sync
// over, and the bootstrap's collectives span every PE of the job (a PE that
// is not a member does not take part), so the members meet through their
// heaps instead (idea from NVSHMEM's team creation from a unique id: each
// PE publishes its index under the id, and the members look for the id in
// every PE's memory). Every PE has one uniqueid_record
// (<gshmem/detail/team_sync.h>); a PE takes part in one creation at a time
// (the host holds its team lock throughout), so one record suffices.
//
// Phase 1: publish. Lane 0 checks that the creator made the id (its
//   `issued` count covers the id's count), the warp zeroes this PE's areas
//   of every free slot (the new team's area must start from zero, and no
//   member can announce a sync into it before it found this record, which is
//   published after the zeroing: release), then lane 0 writes index, npes
//   and the free mask and release-stores the id.
// Phase 1: find. Lane 0 reads every PE's record (acquire) until it has seen
//   npes records carrying the id, each with another index. A record with
//   the id and another npes, or an index already taken by another PE, is a
//   conflict (status; the record stays published so that the other members
//   see the same conflict, and is overwritten by this PE's next creation).
//   Every member reads the same npes masks, so every member computes the same
//   slot and the same member list.
// Phase 2: release. A record must not change until every member has read
//   it. Lane 0 stores done = id, then waits for each member's record to say
//   done = id or to carry another id (that member already passed phase 2,
//   which it can only do after reading this PE's done), and clears its id.
//
// Two teams created at the same time by disjoint sets of PEs never meet:
// their ids differ (creator PE and count, <gshmem/detail/team_sync.h>), each
// PE writes only its own record, and a reader keeps only records carrying
// its id. The same PE cannot be in two creations at once (the host lock).
// An id is used by one creation only (the host refuses a second use on a
// PE): with a reused id a member still in phase 2 of the first creation
// could be mistaken for a member of the second.
// Remote members (docs/remote.md) are read with blocking gets by lane 0,
// the id first and then the fields, as the split's agreement does.
GSHMEM_DEVICE unsigned long long read_peer_word(const gshmemi_device_state_t &s, int pe,
                                                const unsigned long long *local_addr, const char *routine) {
  const char *base = s.peer_base[pe];
  if (base != nullptr) {
    const size_t offset = (const char *)local_addr - s.heap_base;
    return gd::atomic_load<memory_order::acquire, thread_scope::system>(
        reinterpret_cast<const unsigned long long *>(base + offset));
  }
  unsigned long long value = 0;
  gd::remote_get(&value, local_addr, sizeof value, pe, routine);
  return value;
}

__global__ void __launch_bounds__(kTeamThreads) uniqueid_agree_kernel(unsigned long long id, int index, int npes,
                                                                      unsigned long long free_mask,
                                                                      uniqueid_result *out) {
  const gshmemi_device_state_t &s = gshmemi_state();
  const char *routine = "gshmemx_team_init";
  const unsigned lane = threadIdx.x;
  gd::uniqueid_record *mine = gd::uniqueid_record_at(s.heap_base);
  const int creator = gd::uniqueid_creator(id);
  int bad = 0;
  if (lane == 0) {
    out->slot = -1;
    out->status = kUniqueidOk;
    out->other_pe = -1;
    out->other_value = 0;
    const unsigned long long issued = read_peer_word(s, creator, &mine->issued, routine);
    if (gd::uniqueid_count(id) > issued) {
      out->status = kUniqueidUnknown;
      out->other_pe = creator;
      out->other_value = (int)issued;
      bad = 1;
    }
  }
  if (__shfl_sync(0xffffffffu, bad, 0)) return;
  for (int slot = 0; slot < GSHMEMI_MAX_TEAMS; ++slot) {
    if (!(free_mask >> slot & 1ull)) continue;
    unsigned long long *area = reinterpret_cast<unsigned long long *>(gd::team_area_at(s.heap_base, slot));
    for (unsigned i = lane; i < sizeof(gd::team_area) / sizeof(unsigned long long); i += kTeamThreads)
      gd::atomic_store<memory_order::relaxed, thread_scope::system>(area + i, 0ull);
  }
  __syncwarp();
  if (lane != 0) return;
  __threadfence_system();  // the zeroed areas before the record (with the release below)
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(
      reinterpret_cast<unsigned long long *>(&mine->index),
      (unsigned long long)(unsigned)index | (unsigned long long)(unsigned)npes << 32);
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(&mine->free_mask, free_mask);
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(&mine->done, 0ull);
  gd::atomic_store<memory_order::release, thread_scope::system>(&mine->id, id);

  const unsigned long long timeout = s.wait_timeout_ns;
  const unsigned long long start = timeout ? gd::now_ns() : 0;
  auto gave_up = [&](int found) {
    const int lost = gd::peer_lost_word() - 1;
    if (lost >= 0) {
      out->status = kUniqueidPeerLost;
      out->other_pe = lost;
      return true;
    }
    if (timeout && gd::now_ns() - start > timeout) {
      out->status = kUniqueidTimeout;
      out->other_value = found;
      return true;
    }
    return false;
  };
  unsigned long long common = 0;
  for (;;) {
    for (int k = 0; k < npes; ++k) out->members[k] = -1;
    int found = 0;
    common = ~0ull;
    for (int pe = 0; pe < s.n_pes; ++pe) {
      if (read_peer_word(s, pe, &mine->id, routine) != id) continue;
      const unsigned long long shape =
          read_peer_word(s, pe, reinterpret_cast<const unsigned long long *>(&mine->index), routine);
      const int their_index = (int)(unsigned)(shape & 0xffffffffull), their_npes = (int)(shape >> 32);
      if (their_npes != npes) {
        out->status = kUniqueidNpesMismatch;
        out->other_pe = pe;
        out->other_value = their_npes;
        return;
      }
      if (their_index < 0 || their_index >= npes || out->members[their_index] != -1) {
        out->status = kUniqueidDuplicateIndex;
        out->other_pe = pe;
        out->other_value = their_index;
        return;
      }
      out->members[their_index] = pe;
      common &= read_peer_word(s, pe, &mine->free_mask, routine);
      ++found;
    }
    if (found == npes) break;
    if (gave_up(found)) return;
  }

  gd::atomic_store<memory_order::release, thread_scope::system>(&mine->done, id);
  for (int k = 0; k < npes; ++k) {
    const int pe = out->members[k];
    while (read_peer_word(s, pe, &mine->done, routine) != id && read_peer_word(s, pe, &mine->id, routine) == id)
      if (gave_up(npes)) return;
  }
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(&mine->id, 0ull);
  out->slot = gd::lowest_slot(common);
}

}  // namespace

cudaError_t launch_team_sync(int team, bool with_quiet, cudaStream_t stream, unsigned signature) {
  if (with_quiet) team_sync_kernel<true><<<1, kTeamThreads, 0, stream>>>(team, signature);
  else team_sync_kernel<false><<<1, kTeamThreads, 0, stream>>>(team, signature);
  return cudaGetLastError();
}

cudaError_t launch_team_agree(int parent, unsigned long long free_mask, int *slot_out, cudaStream_t stream) {
  team_agree_kernel<<<1, kTeamThreads, 0, stream>>>(parent, free_mask, slot_out);
  return cudaGetLastError();
}

cudaError_t launch_uniqueid_agree(unsigned long long id, int index, int npes, unsigned long long free_mask,
                                  uniqueid_result *out, cudaStream_t stream) {
  uniqueid_agree_kernel<<<1, kTeamThreads, 0, stream>>>(id, index, npes, free_mask, out);
  return cudaGetLastError();
}

cudaError_t preload_team_kernels() {
  KernelLoader loader;
  loader.load(&team_sync_kernel<true>);
  loader.load(&team_sync_kernel<false>);
  loader.load(&team_agree_kernel);
  loader.load(&uniqueid_agree_kernel);
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
