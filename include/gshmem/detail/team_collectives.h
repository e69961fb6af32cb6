// The small collectives over a team (reductions and fcollect), for every
// execution group: correct and simple rather than fast. Public names:
// <gshmem/collectives.h>, <gshmem/collectives_ext.h>.
//
// Reduction: the team syncs (every member's source is complete: the syncs
// release what each caller stored before it), then each member reads every
// member's source through the peer mappings (relaxed loads at system scope)
// and reduces them, in team-rank order, into its own dest; a last team sync
// keeps every source in place until no member reads it any more. dest ==
// source (in place) goes chunk by chunk: a chunk's results wait in the team's
// local staging area until a team sync says every member has read that chunk
// of every source, then replace it. Any other overlap of dest and source is
// an error (diagnostic, -1, nothing done).
// Reducescatter: the same syncs and peer loads, each member reducing only
// its own block of n elements (rank x n) of every member's source into dest;
// no overlap of dest and source at all.
// fcollect: the same syncs around copies of every member's source into dest
// at member rank x nelems.
// Every member calls with the same team, nelems and symmetric addresses; one
// collective (or sync) per team and PE at a time (<gshmem/detail/team_sync.h>).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/team_sync.h>
#include <gshmem/detail/update_access.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stddef.h>

namespace gshmem {
namespace detail {

// The reduction operators, host and device (the CPU tests use them too).
// Integer sum and prod wrap in the type (computed in int or wider, then
// converted back); max and min compare with < (NaN handling unspecified).
struct reduce_sum {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a + b); }
};
struct reduce_prod {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a * b); }
};
struct reduce_max {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return a < b ? b : a; }
};
struct reduce_min {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return b < a ? b : a; }
};
// Bitwise operators (integer types only: GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE),
// computed in int or wider and converted back, as sum and prod.
struct reduce_and {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a & b); }
};
struct reduce_or {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a | b); }
};
struct reduce_xor {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a ^ b); }
};

// maxloc over (value, location) pairs (NVSHMEM's double2 maxloc: x the
// value, y the location): the larger value; on equal values the smaller
// location, as MPI_MAXLOC. NaN handling unspecified, as max.
struct reduce_maxloc {
  template <class T>
  GSHMEM_HD static T apply(T a, T b) {
    if (a.x < b.x) return b;
    if (b.x < a.x) return a;
    return b.y < a.y ? b : a;
  }
};

// The type a reduction adds up in: the element type itself, but float for
// the 16-bit floating types (__half, __nv_bfloat16), whose own arithmetic
// would round at every member; the result is rounded to the type once.
// Integers keep their own type (sum and prod wrap in it, as above).
template <class T> struct reduce_acc { using type = T; };
template <> struct reduce_acc<__half> { using type = float; };
template <> struct reduce_acc<__nv_bfloat16> { using type = float; };
template <class T> using reduce_acc_t = typename reduce_acc<T>::type;

// Reducescatter's source length, n_members * nreduce elements of `elem`
// bytes, in bytes; false when it does not fit a size_t (no such buffer can
// exist). Host and device checks share it.
GSHMEM_HD bool reducescatter_source_bytes(size_t nreduce, int n_members, size_t elem, size_t* bytes) {
  const size_t members = n_members > 0 ? (size_t)n_members : 0;
  if (members != 0 && nreduce > (~(size_t)0) / elem / members) return false;
  *bytes = nreduce * members * elem;
  return true;
}

#if defined(__CUDACC__)

// Op over element i of every member's source, in rank order.
// Accumulated in reduce_acc_t<T>, converted to T at the end.
template <class Op, class T>
GSHMEM_DEVICE T reduce_element(const team_desc& team, const T* source, size_t i, const char* routine) {
  using A = reduce_acc_t<T>;
  A acc = (A)load_object<memory_order::relaxed, thread_scope::system>(
      peer_address(source + i, team_member_pe(team, 0), routine));
  for (int r = 1; r < team.size; ++r)
    acc = Op::apply(acc, (A)load_object<memory_order::relaxed, thread_scope::system>(
                             peer_address(source + i, team_member_pe(team, r), routine)));
  return (T)acc;
}

template <class Op, class T, class Group>
GSHMEM_DEVICE int team_reduce(Group& g, int team, T* dest, const T* source, size_t n, const char* routine) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  const bool in_place = (const void*)dest == (const void*)source;
  if (!in_place && n > 0 && (const char*)dest < (const char*)(source + n) &&
      (const char*)source < (const char*)(dest + n)) {
    if (g.is_leader()) {
      device_failure f;
      f.kind = GSHMEMI_FAIL_OVERLAP;
      f.u0 = (unsigned long long)(const void*)dest;
      f.u1 = (unsigned long long)(const void*)source;
      report_device_failure(routine, f);
    }
    return -1;
  }
  sync_team<false>(g, team, d, routine);
  if (!in_place) {
    for (size_t i = g.rank(); i < n; i += g.size()) dest[i] = reduce_element<Op>(d, source, i, routine);
  } else {
    T* staging = reinterpret_cast<T*>(team_area_at(gshmemi_state().heap_base, team)->staging);
    constexpr size_t kChunk = kTeamStagingBytes / sizeof(T);
    for (size_t base = 0; base < n; base += kChunk) {
      const size_t m = n - base < kChunk ? n - base : kChunk;
      // Element i of a chunk is always handled by the same member: no group
      // barrier is needed between its staging store and its later load.
      for (size_t i = g.rank(); i < m; i += g.size()) staging[i] = reduce_element<Op>(d, source, base + i, routine);
      sync_team<false>(g, team, d, routine);
      for (size_t i = g.rank(); i < m; i += g.size()) dest[base + i] = staging[i];
    }
  }
  sync_team<false>(g, team, d, routine);
  return 0;
}

// Reducescatter (NVSHMEM's nvshmem_TYPENAME_OP_reducescatter): source holds
// n_members * n elements on every member; the member of team rank k gets
// dest[i] = Op over the members, in rank order, of their source[k * n + i],
// i < n. The syncs and the peer loads are those of team_reduce; dest may not
// overlap source at all (equal included): reported as an overlap, -1, nothing
// done. A count whose source cannot fit the address space is reported too.
template <class Op, class T, class Group>
GSHMEM_DEVICE int team_reducescatter(Group& g, int team, T* dest, const T* source, size_t n, const char* routine) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  size_t source_bytes = 0;
  if (!reducescatter_source_bytes(n, d.size, sizeof(T), &source_bytes)) {
    if (g.is_leader()) {
      device_failure f;
      f.kind = GSHMEMI_FAIL_COUNT_TOO_LARGE;
      f.u0 = n;
      f.u1 = sizeof(T);
      f.i0 = d.size;
      report_device_failure(routine, f);
    }
    return -1;
  }
  if (n > 0 && (const char*)dest < (const char*)source + source_bytes &&
      (const char*)source < (const char*)(dest + n)) {
    if (g.is_leader()) {
      device_failure f;
      f.kind = GSHMEMI_FAIL_OVERLAP;
      f.i0 = 1;  // no overlap allowed, dest == source included
      f.u0 = (unsigned long long)(const void*)dest;
      f.u1 = (unsigned long long)(const void*)source;
      report_device_failure(routine, f);
    }
    return -1;
  }
  sync_team<false>(g, team, d, routine);
  const T* block = source + (size_t)d.my_rank * n;
  for (size_t i = g.rank(); i < n; i += g.size()) dest[i] = reduce_element<Op>(d, block, i, routine);
  sync_team<false>(g, team, d, routine);
  return 0;
}


#endif  // __CUDACC__

// ---------------------------------------------------------------------------
// broadcast, alltoall (and the byte forms of fcollect): data movement only,
// so one template per algorithm serves every type and the *mem forms.
//
// broadcast: every member pulls the root's source through the peer mapping
// into its own dest, between two team syncs. Pull rather than the root
// pushing: each member's own threads copy its dest (one copy per PE, all in
// parallel) where a pushing root would make n - 1 copies in turn with its
// one group while the others wait; dest then needs only local stores, and
// the root's source only reads, which the last sync keeps in place.
// dest == source is allowed (the root then copies nothing; a non-root's
// source is not read); any other overlap is an error.
// alltoall: every member pushes block r of its source (nelems elements at
// r * nelems) to dest + my_rank * nelems on team rank r, starting with the
// rank after its own so that the members start on different peers; stores
// to a peer are posted (a load waits for its round trip), and the last team
// sync (its release store) makes them visible to every member that passes
// it. The first sync keeps every member's dest untouched until its owner
// entered the call. dest and source may not overlap at all.
// Every member calls with the same team, nelems, PE_root and symmetric
// addresses (not checked: docs/api.md says what happens otherwise).

// Whether [dest, dest + dest_bytes) and [source, source + source_bytes)
// overlap in a way the routine forbids: equal_ok lets dest == source pass
// (broadcast, in-place reductions), any other shared byte is an overlap.
// Empty ranges never overlap. Pure arithmetic: host, device, CPU tests.
GSHMEM_HD_CONSTEXPR bool collective_overlap(unsigned long long dest, unsigned long long dest_bytes,
                                            unsigned long long source, unsigned long long source_bytes,
                                            bool equal_ok) {
  // Differences, not ends: a range that ends at the top of the address
  // space does not wrap to a false "no overlap".
  return dest_bytes != 0 && source_bytes != 0 && !(equal_ok && dest == source) &&
         (dest >= source ? dest - source < source_bytes : source - dest < dest_bytes);
}

// alltoall's order: the k-th peer (k = 0 .. size - 1) a member of team
// rank `rank` writes to (itself last).
GSHMEM_HD_CONSTEXPR int alltoall_peer(int rank, int k, int size) { return (rank + 1 + k) % size; }

// Whether nelems elements of elem_bytes bytes, times `blocks`, overflow a
// size_t (the byte count of an alltoall's or fcollect's dest).
GSHMEM_HD_CONSTEXPR bool collective_bytes_overflow(size_t nelems, size_t elem_bytes, size_t blocks) {
  return blocks != 0 && elem_bytes != 0 && nelems > ((size_t)-1) / elem_bytes / blocks;
}

#if defined(__CUDACC__)

// One diagnostic line (from the group's leader) for a PE_root that is not a
// rank of the team.
template <class Group>
GSHMEM_DEVICE void report_invalid_root(Group& g, int root, int size, const char* routine) {
  if (g.is_leader()) {
    device_failure f;
    f.kind = GSHMEMI_FAIL_INVALID_ROOT;
    f.i0 = root;
    f.i1 = size;
    report_device_failure(routine, f);
  }
}

// One diagnostic line for overlapping dest and source; equal_ok says
// whether dest == source would have been allowed (the line's wording).
template <class Group>
GSHMEM_DEVICE void report_overlap(Group& g, const void* dest, const void* source, bool equal_ok,
                                  const char* routine) {
  if (g.is_leader()) {
    device_failure f;
    f.kind = GSHMEMI_FAIL_OVERLAP;
    f.i0 = equal_ok ? 0 : 1;
    f.u0 = (unsigned long long)dest;
    f.u1 = (unsigned long long)source;
    report_device_failure(routine, f);
  }
}

// fcollect: every member pulls each member's source into its block of
// dest. dest and source may not overlap at all (as the host form checks).
template <class T, class Group>
GSHMEM_DEVICE int team_fcollect(Group& g, int team, T* dest, const T* source, size_t nelems, const char* routine) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  if (!collective_bytes_overflow(nelems, sizeof(T), (size_t)d.size) &&
      collective_overlap((unsigned long long)dest, (unsigned long long)(nelems * sizeof(T) * (size_t)d.size),
                         (unsigned long long)source, (unsigned long long)(nelems * sizeof(T)), false)) {
    report_overlap(g, dest, source, false, routine);
    return -1;
  }
  sync_team<false>(g, team, d, routine);
  for (int r = 0; r < d.size && nelems > 0; ++r)
    copy_bytes<false, true>(dest + (size_t)r * nelems, peer_address(source, team_member_pe(d, r), routine),
                            nelems * sizeof(T), g);
  sync_team<false>(g, team, d, routine);
  return 0;
}

template <class Group>
GSHMEM_DEVICE int team_broadcast_bytes(Group& g, int team, void* dest, const void* source, size_t nbytes, int root,
                                       const char* routine) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  if (root < 0 || root >= d.size) {
    report_invalid_root(g, root, d.size, routine);
    return -1;
  }
  if (collective_overlap((unsigned long long)dest, nbytes, (unsigned long long)source, nbytes, true)) {
    report_overlap(g, dest, source, true, routine);
    return -1;
  }
  sync_team<false>(g, team, d, routine);
  if (nbytes > 0 && !(d.my_rank == root && dest == source)) {
    const int root_pe = team_member_pe(d, root);
    // The last byte too: a source that runs past the symmetric heap traps
    // with a diagnostic instead of reading the root's other memory.
    (void)peer_address(static_cast<const char*>(source) + (nbytes - 1), root_pe, routine);
    copy_bytes<false, true>(dest, peer_address(source, root_pe, routine), nbytes, g);
  }
  sync_team<false>(g, team, d, routine);
  return 0;
}

template <class Group>
GSHMEM_DEVICE int team_alltoall_bytes(Group& g, int team, void* dest, const void* source, size_t block_bytes,
                                      const char* routine) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  const size_t total = block_bytes * (size_t)d.size;
  if (collective_overlap((unsigned long long)dest, total, (unsigned long long)source, total, false)) {
    report_overlap(g, dest, source, false, routine);
    return -1;
  }
  sync_team<false>(g, team, d, routine);
  if (block_bytes > 0) {
    char* const my_block = static_cast<char*>(dest) + (size_t)d.my_rank * block_bytes;
    for (int k = 0; k < d.size; ++k) {
      const int r = alltoall_peer(d.my_rank, k, d.size);
      const int pe = team_member_pe(d, r);
      (void)peer_address(my_block + (block_bytes - 1), pe, routine);  // past the heap: trap, as above
      copy_bytes<true, false>(peer_address(my_block, pe, routine),
                              static_cast<const char*>(source) + (size_t)r * block_bytes, block_bytes, g);
    }
  }
  sync_team<false>(g, team, d, routine);
  return 0;
}

template <class T, class Group>
GSHMEM_DEVICE int team_broadcast(Group& g, int team, T* dest, const T* source, size_t nelems, int root,
                                 const char* routine) {
  return team_broadcast_bytes(g, team, dest, source, nelems * sizeof(T), root, routine);
}
template <class T, class Group>
GSHMEM_DEVICE int team_alltoall(Group& g, int team, T* dest, const T* source, size_t nelems, const char* routine) {
  return team_alltoall_bytes(g, team, dest, source, nelems * sizeof(T), routine);
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
