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
// The entry sync of every collective carries the call's signature (which
// collective and operator, the root, the size; team_sync.h): a member that
// finds another member's call different is reported (both PEs named, the
// argument that differs) and traps, in every form (thread, warp, block,
// on stream, host).
//
// Remote members (docs/remote.md: reached only through the proxy queue):
// the same syncs, which reach them with signal requests (team_sync.h), and
// the same reads and writes, moved by the device routines' remote branch
// instead of peer loads and stores: a member's source is fetched with a
// get request (remote_get), an alltoall block stored with a put request
// (remote_put), each issued by the group's rank 0 between two group syncs
// (collective_by_first_rank). A reduction over a team with a remote member
// takes its remote form as a whole (reduce_through_proxy): chunk by chunk,
// each remote member's part of the chunk is fetched into the team's
// scratch (team_scratch_at) and folded, in rank order, with the mapped
// members' parts read as before. The branch to the remote forms is cold:
// on a job without remote peers a reduction pays one constant load and a
// branch (remote_enabled), the data collectives the one compare and branch
// of on_peer that their translation always had.
// Ordering through the proxy: no member reads a source before its owner
// passed the entry sync (a get is issued after this member's entry sync
// saw the owner's announcement, and that announcement is a signal request
// queued after a release fence, so the proxy that serves the get copies
// what the owner stored before the call); no member leaves before every
// reader is done (gets are blocking: the data is in the reader's memory
// before the reader announces the last sync; alltoall's puts are complete
// at the target before the writer's last announcement, because every sync
// quiets the queue before it announces, and a remote announcement is
// delivered after the data this PE sent that member before it, P3).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/remote.h>
#include <gshmem/detail/team_ll.h>
#include <gshmem/detail/team_sync.h>
#include <gshmem/detail/update_access.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>
#include <stddef.h>

namespace gshmem {
namespace detail {

// The collectives' one-thread group copies its edges as RMA's one thread
// does (copy_bytes: pieces of up to 8 bytes). Without it the thread forms of
// broadcast, fcollect and alltoall copied their edges one byte per rank: a
// one-thread broadcast of 8 bytes made eight NVLink round trips, 12.8 us
// against 6.7 for the block form (NVIDIA's bcast_latency, 2 x H100).
template <unsigned L>
inline constexpr bool group_is_one_thread<single_group_of<L>> = true;

// The reduction operators, host and device (the CPU tests use them too).
// Integer sum and prod wrap in the type (computed in int or wider, then
// converted back); max and min compare with < (NaN handling unspecified).
struct reduce_sum {
  static constexpr unsigned kCode = 0;  // its call signature's (team_sync.h)
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a + b); }
};
struct reduce_prod {
  static constexpr unsigned kCode = 1;
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a * b); }
};
struct reduce_max {
  static constexpr unsigned kCode = 2;
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return a < b ? b : a; }
};
struct reduce_min {
  static constexpr unsigned kCode = 3;
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return b < a ? b : a; }
};
// Bitwise operators (integer types only: GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE),
// computed in int or wider and converted back, as sum and prod.
struct reduce_and {
  static constexpr unsigned kCode = 4;
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a & b); }
};
struct reduce_or {
  static constexpr unsigned kCode = 5;
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a | b); }
};
struct reduce_xor {
  static constexpr unsigned kCode = 6;
  template <class T>
  GSHMEM_HD static T apply(T a, T b) { return (T)(a ^ b); }
};

// maxloc over (value, location) pairs (NVSHMEM's double2 maxloc: x the
// value, y the location): the larger value; on equal values the smaller
// location, as MPI_MAXLOC. NaN handling unspecified, as max.
struct reduce_maxloc {
  static constexpr unsigned kCode = 7;
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

// Whether the one-thread LL fold may take this member's own elements
// first, whatever its rank, and still give the bits of the rank-order fold:
// integers under every operator (commutative and associative: the device's
// integer adds and multiplies wrap, compares are exact), and floating sum
// and prod between two members (a + b and b + a are the same bits, IEEE
// 754; three or more associate differently).
// Floating max and min compare with < and may not commute (-0 and +0, NaN).
// Host and device (tests/team/test_team_ll_cpu.cpp checks it against the
// arithmetic).
template <class Op, class T>
GSHMEM_HD_CONSTEXPR bool ll_fold_own_first(int members) {
  return std::is_integral<T>::value ||
         ((std::is_same<Op, reduce_sum>::value || std::is_same<Op, reduce_prod>::value) && members == 2);
}

// Each collective's call signature (team_sync.h), one definition for both
// places that announce it: the entry sync of the thread, warp and block
// forms below, and the wide forms' entry kernel, whose launcher computes it
// on the host (device/wide_collectives.cuh). Sizes in bytes.
GSHMEM_HD_CONSTEXPR unsigned broadcast_signature(int root, size_t nbytes) {
  return collective_signature(collective_broadcast, root, nbytes);
}
GSHMEM_HD_CONSTEXPR unsigned alltoall_signature(size_t block_bytes) {
  return collective_signature(collective_alltoall, 0, block_bytes);
}
GSHMEM_HD_CONSTEXPR unsigned fcollect_signature(size_t nbytes) {
  return collective_signature(collective_fcollect, 0, nbytes);
}
template <class Op, bool Scatter>
GSHMEM_HD_CONSTEXPR unsigned reduction_signature(size_t bytes) {
  return collective_signature((Scatter ? collective_reducescatter : collective_reduce) + Op::kCode, 0, bytes);
}

// Whether a * b overflows 64 bits, without a division: a 64-bit division
// by a value known only at run time is a called subroutine on the GPU, and
// a kernel holding a call gets YIELD and convergence barriers in every loop
// (device_report.h).
GSHMEM_HD_CONSTEXPR bool product_overflows(unsigned long long a, unsigned long long b) {
  const unsigned long long mask = 0xffffffffull;
  if ((a >> 32) != 0 && (b >> 32) != 0) return true;
  // One of the high halves is 0, so at most one cross term.
  const unsigned long long cross = (a >> 32) * (b & mask) + (a & mask) * (b >> 32);
  if ((cross >> 32) != 0) return true;
  const unsigned long long low = (a & mask) * (b & mask);
  return (cross << 32) + low < low;
}

// Whether nelems elements of elem_bytes bytes, times `blocks`, overflow a
// size_t (the byte count of an alltoall's or fcollect's dest).
GSHMEM_HD_CONSTEXPR bool collective_bytes_overflow(size_t nelems, size_t elem_bytes, size_t blocks) {
  static_assert(sizeof(size_t) == sizeof(unsigned long long), "64-bit size_t");
  return product_overflows(nelems, elem_bytes) || product_overflows(nelems * elem_bytes, blocks);
}

// Reducescatter's source length, n_members * nreduce elements of `elem`
// bytes, in bytes; false when it does not fit a size_t (no such buffer can
// exist). Host and device checks share it.
GSHMEM_HD bool reducescatter_source_bytes(size_t nreduce, int n_members, size_t elem, size_t* bytes) {
  const size_t members = n_members > 0 ? (size_t)n_members : 0;
  if (collective_bytes_overflow(nreduce, elem, members)) return false;
  *bytes = nreduce * members * elem;
  return true;
}

// Elements per chunk of a reduction's remote form, for elements of
// elem_bytes and an accumulator type of acc_bytes (reduce_acc_t): in place,
// as many as the P2P form's chunk (kTeamStagingBytes), so that both forms
// pass the same number of team syncs (a member that maps every other member
// takes the P2P form while one with a remote member takes this one);
// otherwise as many as the accumulators that fill half the team scratch.
// The fetched chunk lies in the other half (kRemoteFetchOffset).
constexpr unsigned kRemoteFetchOffset = kTeamScratchBytes / 2;
GSHMEM_HD_CONSTEXPR size_t remote_reduce_chunk(size_t elem_bytes, size_t acc_bytes, bool in_place) {
  return in_place ? kTeamStagingBytes / elem_bytes : kRemoteFetchOffset / acc_bytes;
}

// Whether a reduction (or reducescatter) of n elements of elem_bytes over a
// team of `members` takes the push form (team_push_reduce) once the LL form
// is ruled out and no peer of the job is remote: the n elements fit one
// sender's part of the push area (team_push_part_bytes: 24 KiB at 2
// members, 8 KiB at 4). Every member decides alike from the same
// arguments. Pure arithmetic: host, device, CPU tests.
GSHMEM_HD_CONSTEXPR bool reduce_push_fits(unsigned long long n, unsigned long long elem_bytes, int members) {
  return members > 1 && n > 0 && elem_bytes > 0 && n <= team_push_part_bytes(members) / elem_bytes;
}

// The k-th peer (k = 0 .. size - 1) a member of team rank `rank` writes to,
// itself last, so that the members start on different peers: alltoall's
// order, and the push form of the reductions'.
GSHMEM_HD_CONSTEXPR int alltoall_peer(int rank, int k, int size) { return (rank + 1 + k) % size; }

#if defined(__CUDACC__)

// Where a reduction finds member r's copy of what lies at `own` in this
// PE's source: a functor (r, own) -> a pointer this PE can load from.
// mapped_copies: the same symmetric address on member r, through the peer
// mapping (the pulling form; each address translated per member:
// peer_address, invariant table loads and a compare, past the symmetric
// span the diagnostic and a trap).
struct mapped_copies {
  const team_desc& d;
  const char* routine;
  template <class U>
  GSHMEM_DEVICE const U* operator()(int r, const U* own) const {
    return peer_address(own, team_member_pe(d, r), routine);
  }
};

// pushed_copies: this PE's own source for its own rank, and for rank r the
// part of this PE's push area that member r stored (team_push_reduce), at
// the same offset from the part's start as `own` from the source's
// (`shift`: the area's first part less the source, as an address
// difference; few values held, for the 64-register launch rule).
struct pushed_copies {
  long long shift;
  unsigned part_bytes;
  int me;
  int members;
  template <class U>
  GSHMEM_DEVICE const U* operator()(int r, const U* own) const {
    if (r == me) return own;
    return reinterpret_cast<const U*>(reinterpret_cast<const char*>(own) + shift +
                                      (long long)team_push_part(r, me, members) * (long long)part_bytes);
  }
};

// Op over the element at `own` and every other member's copy of it (at),
// in rank order, loaded relaxed at system scope (never a stale L1 line).
// Accumulated in reduce_acc_t<T>, converted to T at the end.
template <class Op, class T, class Copies>
GSHMEM_DEVICE T reduce_one(int members, const T* own, const Copies& at) {
  using A = reduce_acc_t<T>;
  A acc = (A)load_object<memory_order::relaxed, thread_scope::system>(at(0, own));
  for (int r = 1; r < members; ++r)
    acc = Op::apply(acc, (A)load_object<memory_order::relaxed, thread_scope::system>(at(r, own)));
  return (T)acc;
}

// Op over element i of every member's source, in rank order (pulled).
template <class Op, class T>
GSHMEM_DEVICE T reduce_element(const team_desc& team, const T* source, size_t i, const char* routine) {
  return reduce_one<Op>(team.size, source + i, mapped_copies{team, routine});
}

// A 16-byte unit as the elements it holds, and back. The 16-bit floating
// types go through their bits (__half_as_ushort and the like): nvcc 13
// compiled a __builtin_memcpy of a __half array into a wide16 as byte
// stores whose low byte of each element was a numeric conversion of the
// value (F2I.U8.F16.TRUNC, sm_90 SASS), so every element of every unit
// came out wrong while the element path was right. Other types keep the
// memcpy, which is what their GPU tests ran.
template <class T>
struct is_16bit_float : std::integral_constant<bool, std::is_same<T, __half>::value ||
                                                        std::is_same<T, __nv_bfloat16>::value> {};
GSHMEM_DEVICE unsigned short float16_bits(__half v) { return __half_as_ushort(v); }
GSHMEM_DEVICE unsigned short float16_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
template <class T>
GSHMEM_DEVICE T float16_of_bits(unsigned short b) {
  if constexpr (std::is_same<T, __half>::value) return __ushort_as_half(b);
  else return __ushort_as_bfloat16(b);
}
template <class T, size_t L>
GSHMEM_DEVICE void unpack_unit(const wide16& w, T (&lanes)[L]) {
  static_assert(L * sizeof(T) == 16, "a unit is 16 bytes");
  if constexpr (is_16bit_float<T>::value) {
#pragma unroll
    for (size_t j = 0; j < L; ++j)
      lanes[j] = float16_of_bits<T>((unsigned short)((j < 4 ? w.lo : w.hi) >> (16 * (j % 4))));
  } else {
    __builtin_memcpy(lanes, &w, 16);
  }
}
template <class T, size_t L>
GSHMEM_DEVICE wide16 pack_unit(const T (&lanes)[L]) {
  static_assert(L * sizeof(T) == 16, "a unit is 16 bytes");
  wide16 w;
  if constexpr (is_16bit_float<T>::value) {
    w.lo = w.hi = 0;
#pragma unroll
    for (size_t j = 0; j < L; ++j)
      (j < 4 ? w.lo : w.hi) |= (unsigned long long)float16_bits(lanes[j]) << (16 * (j % 4));
  } else {
    __builtin_memcpy(&w, lanes, 16);
  }
  return w;
}

// dest[i] = Op over the members, in rank order, of their copies of
// source[i] (at: mapped_copies, pushed_copies), i < n, by the threads rank,
// rank + size, ... Where dest and source are 16-byte aligned (every copy
// shares that alignment: one symmetric offset, or a 16-byte aligned push
// part), 16 bytes of each member's copy per load, kMembersInFlight members'
// loads of a unit in flight at once; element by element otherwise and for
// the last n mod (16 / sizeof(T)) elements. Loads relaxed at system scope,
// as reduce_one's, but movable: nothing orders the elements among
// themselves. Element by element with the pinned loads of reduce_one, one
// block reduced 4 MiB of int in 4.1 ms (NVIDIA's reduction_on_stream, 2 x
// H100). Two members in flight keeps the callers' kernels within 64
// registers (tests/launch: 72-80 with four and their addresses held across
// the loop).
constexpr int kMembersInFlight = 2;
template <class Op, class T, class Copies>
GSHMEM_DEVICE void reduce_members(int members, T* dest, const T* source, size_t n, size_t rank, size_t size,
                                  const Copies& at) {
  using A = reduce_acc_t<T>;
  size_t done = 0;
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    constexpr size_t kLanes = 16 / sizeof(T);
    if (n >= kLanes && (((size_t)dest | (size_t)source) & 15u) == 0) {
      const size_t units = n / kLanes;
      const wide16* const units_of = reinterpret_cast<const wide16*>(source);
      for (size_t u = rank; u < units; u += size) {
        A acc[kLanes];
        for (int r0 = 0; r0 < members; r0 += kMembersInFlight) {
          wide16 w[kMembersInFlight];
#pragma unroll
          for (int k = 0; k < kMembersInFlight; ++k)
            if (r0 + k < members)
              w[k] = atomic_load16<memory_order::relaxed, thread_scope::system, compiler_order::movable>(
                  at(r0 + k, units_of + u));
#pragma unroll
          for (int k = 0; k < kMembersInFlight; ++k) {
            if (r0 + k < members) {
              T lanes[kLanes];
              unpack_unit(w[k], lanes);
#pragma unroll
              for (size_t j = 0; j < kLanes; ++j) acc[j] = r0 + k == 0 ? (A)lanes[j] : Op::apply(acc[j], (A)lanes[j]);
            }
          }
        }
        T out[kLanes];
#pragma unroll
        for (size_t j = 0; j < kLanes; ++j) out[j] = (T)acc[j];
        reinterpret_cast<wide16*>(dest)[u] = pack_unit(out);
      }
      done = units * kLanes;
    }
  }
  for (size_t i = done + rank; i < n; i += size) dest[i] = reduce_one<Op>(members, source + i, at);
}

// The pulling form: every member's source through the peer mapping, between
// the reduction's syncs.
template <class Op, class T>
GSHMEM_DEVICE void reduce_mapped(const team_desc& d, T* dest, const T* source, size_t n, size_t rank, size_t size,
                                 const char* routine) {
  reduce_members<Op>(d.size, dest, source, n, rank, size, mapped_copies{d, routine});
}

// A group's remote request inside a collective: the group syncs (earlier
// reads of the buffer it reuses are done), rank 0 issues, the group syncs
// again (what a get brought is then visible to every rank). As
// remote_by_first_rank (remote.h), for the groups of sync_group.h.
template <class Group, class Issue>
GSHMEM_DEVICE void collective_by_first_rank(Group& g, Issue&& issue) {
  g.sync();
  if (g.rank() == 0) issue();
  g.sync();
}

// The last element of a member's part: past the symmetric span, one
// diagnostic line and a trap, on either path (on_peer's checks).
template <class T>
GSHMEM_DEVICE void check_member_span(const T* last, int pe, const char* routine) {
  (void)on_peer(last, pe, routine, [](const T*) {}, [] {});
}

// acc[i] = p[i] (first member) or Op(acc[i], p[i]), i < m, element i by
// group rank i mod size. p: a mapped member's part or the fetched copy of a
// remote one's, read with relaxed system-scope loads (a peer's memory, or
// what the proxy's copy wrote: never a stale L1 line).
template <class Op, class T, class A, class Group>
GSHMEM_DEVICE void fold_chunk(Group& g, A* acc, const T* p, size_t m, bool first) {
  for (size_t i = g.rank(); i < m; i += g.size()) {
    const A v = (A)load_object<memory_order::relaxed, thread_scope::system>(p + i);
    acc[i] = first ? v : Op::apply(acc[i], v);
  }
}

// The remote form of a reduction (team_reduce, team_reducescatter) between
// their entry and last syncs: dest[i] = Op over the members, in rank
// order, of source[i], i < n. Chunk by chunk (remote_reduce_chunk): for each
// member in rank order, a mapped member's part is read through the peer
// mapping, a remote member's fetched into the team scratch by a blocking get
// (rank 0 of the group), and folded into the accumulators (the scratch's
// first half, in reduce_acc_t). In place, a team sync after each chunk (as
// the P2P form: every member has read that chunk of every source) before
// the results replace it. Element i of a chunk is always handled by the
// same rank: its accumulator needs no group barrier.
template <class Op, class T, class Group>
GSHMEM_DEVICE void reduce_through_proxy(Group& g, int slot, const team_desc& d, T* dest, const T* source, size_t n,
                                        bool in_place, const char* routine) {
  using A = reduce_acc_t<T>;
  static_assert(kTeamStagingBytes / sizeof(T) * sizeof(A) <= kRemoteFetchOffset, "accumulators exceed the scratch");
  static_assert(kTeamStagingBytes <= kTeamScratchBytes - kRemoteFetchOffset, "a chunk exceeds the scratch");
  char* const scratch = team_scratch_at(gshmemi_state().heap_base, slot);
  A* const acc = reinterpret_cast<A*>(scratch);
  T* const fetched = reinterpret_cast<T*>(scratch + kRemoteFetchOffset);
  const size_t chunk = remote_reduce_chunk(sizeof(T), sizeof(A), in_place);
  for (size_t base = 0; base < n; base += chunk) {
    const size_t m = n - base < chunk ? n - base : chunk;
    const T* const part = source + base;
    for (int r = 0; r < d.size; ++r) {
      const int pe = team_member_pe(d, r);
      check_member_span(part + (m - 1), pe, routine);
      // One fold for both paths (the member's mapped chunk, or the copy
      // fetched into the scratch): the fold is the bulk of the code, and
      // every type x operator x group has its own.
      const T* from = fetched;
      on_peer(
          part, pe, routine, [&](const T* mapped) { from = mapped; },
          [&] {
            // The first group sync also keeps rank 0's get from overwriting
            // the fetched copy of the previous member before every rank
            // folded it.
            collective_by_first_rank(g, [&] { remote_get(fetched, part, m * sizeof(T), pe, routine); });
          });
      fold_chunk<Op>(g, acc, from, m, r == 0);
    }
    if (in_place) sync_team<false>(g, slot, d, routine);
    for (size_t i = g.rank(); i < m; i += g.size()) dest[base + i] = (T)acc[i];
  }
}

// An element (T of 1, 2, 4 or 8 bytes) from its bits.
template <class T>
GSHMEM_DEVICE T ll_element_of_bits(unsigned long long bits) {
  if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
    return float16_of_bits<T>((unsigned short)bits);
  } else {
    using U = std::conditional_t<sizeof(T) == 1, unsigned char,
                                 std::conditional_t<sizeof(T) == 2, unsigned short,
                                                    std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>>>;
    const U u = (U)bits;
    T v;
    __builtin_memcpy(&v, &u, sizeof(T));
    return v;
  }
}

// Element e of the block whose LL lines start at `lines` in this PE's ring:
// its line's loads issued first (an 8-byte element takes two lines, both in
// flight), then each flag checked; a line not yet there is polled by
// ll_receive. Elements narrower than a line share it.
template <class T>
GSHMEM_DEVICE T ll_receive_element(const unsigned long long* lines, size_t e, unsigned flag, int slot, int peer,
                                   const char* routine) {
  static_assert(sizeof(T) <= 8 && 8 % sizeof(T) == 0, "an element is 1, 2, 4 or 8 bytes");
  constexpr unsigned W = sizeof(T) == 8 ? 2 : 1;  // lines an element takes
  const unsigned long long at = (unsigned long long)e * sizeof(T);
  const unsigned long long* const first = lines + at / kLLPayloadBytes;
  unsigned long long w[W];
#pragma unroll
  for (unsigned h = 0; h < W; ++h)
    w[h] = atomic_load<memory_order::relaxed, thread_scope::system, compiler_order::movable>(first + h);
  unsigned long long bits = 0;
#pragma unroll
  for (unsigned h = 0; h < W; ++h) {
    const unsigned data =
        ll_word_flag(w[h]) == flag ? ll_word_data(w[h]) : ll_receive(first + h, flag, slot, peer, routine);
    bits |= (unsigned long long)data << (32 * h);
  }
  if constexpr (sizeof(T) < 4) bits = bits >> (8 * (at % kLLPayloadBytes)) & ((1ull << (8 * sizeof(T))) - 1);
  return ll_element_of_bits<T>(bits);
}

// Waits until the B pairs of lines at `batch` (of which the first `avail`
// belong to the call) all carry `flag`, and leaves them in w (team_ll.h's
// ll_receive_pairs hands each pair to a callback instead, which would put a
// fold's accumulators, indexed by a late pair's run-time index, in local
// memory). As there: the pairs still missing are loaded again together,
// a round trip a pass, and after kLLBatchPasses passes the first of them is
// polled by ll_receive (with its diagnostics). The pairs past `avail` are
// not loaded.
template <unsigned B>
GSHMEM_DEVICE void ll_receive_batch(const wide16* batch, unsigned avail, wide16 (&w)[B], unsigned flag, int slot,
                                    int peer, const char* routine) {
  static_assert(B <= 32, "a bit of `missing` a pair of the batch");
  if constexpr (B == 1) {
    // One pair (a fold of 1-byte elements): its lines polled by ll_receive
    // once the first load missed (the passes took a one-thread uint8
    // reduction's user kernel to 68 registers).
    w[0] = atomic_load16<memory_order::relaxed, thread_scope::system, compiler_order::movable>(batch);
    if (!ll_pair_has(w[0], flag))
      w[0] = ll_pair_of(ll_poll_pair(reinterpret_cast<const unsigned long long*>(batch), flag, slot, peer, routine),
                        flag);
    return;
  }
  unsigned missing = 0;  // the pairs still missing
#pragma unroll
  for (unsigned k = 0; k < B; ++k) {
    if (k < avail)
      missing |= 1u << k;
    else
      w[k] = wide16{ll_word(0, flag), ll_word(0, flag)};
  }
  for (unsigned pass = 1;; ++pass) {
    // As in ll_receive_pairs: the batch's address computed again each pass.
    const wide16* at = batch;
    asm volatile("" : "+l"(at));
#pragma unroll
    for (unsigned k = 0; k < B; ++k)
      if (missing >> k & 1u)
        w[k] = atomic_load16<memory_order::relaxed, thread_scope::system, compiler_order::movable>(at + k);
#pragma unroll
    for (unsigned k = 0; k < B; ++k)
      if ((missing >> k & 1u) && ll_pair_has(w[k], flag)) missing &= ~(1u << k);
    if (missing == 0) return;
    if (pass % kLLBatchPasses == 0) {
      const unsigned late = (unsigned)__ffs(missing) - 1;
      const unsigned long long v =
          ll_poll_pair(reinterpret_cast<const unsigned long long*>(batch + late), flag, slot, peer, routine);
#pragma unroll
      for (unsigned k = 0; k < B; ++k)
        if (k == late) w[k] = ll_pair_of(v, flag);
      missing &= missing - 1;
      if (missing == 0) return;
    }
  }
}

// The fold of an LL reduction from one thread: G elements of every member
// a round trip to this PE's memory (ll_receive_batch of the B pairs of lines
// that hold them), folded into accumulators held in registers, then stored
// to dest. The fold runs in rank order, except that where ll_fold_own_first
// allows it the own G elements (`mine`) start it: their loads then fly with
// the next member's pairs, and a batch costs one round trip at 2 PEs, not
// two (2 x H200, NVLink, one-thread int32 sum of 1 KiB: 40 us, 48 with the
// loads apart, 81 with one element a trip; NVSHMEM 33). Holding the own
// elements in registers until their rank's turn, or issuing the next
// member's loads ahead of the loop, took user kernels to 68 registers.
// `blocks` is the call's first line; member r's block starts per_block lines
// on. The same bits as the group form; dest may be mine (in place): each
// element is read before it is stored.
//
// G (kLLFoldElements) is what the 64-register rule of a user kernel of 1024
// threads allows (tests/launch, ptxas, sm_90): a reduce's 4 elements of 8
// bytes (4 pairs) 64, a reducescatter's 72 (so 2 there); 8 elements of 4
// bytes 76, of 1 byte 72 (so 4). The fold is where a one-thread call's time
// goes: a one-thread int64 sum of 1 KiB took 25.7 us in the fold, 9.3 in the
// send and 0.4 in ll_begin with 2 elements a batch; 15.5 us in the fold with
// 4 and 10.1 with 8 (2 x H200, phases timed with %globaltimer).
template <class T, bool Scatter>
inline constexpr unsigned kLLFoldElements = sizeof(T) >= 8 && Scatter ? 2u : 4u;

template <class Op, unsigned G, class T>
GSHMEM_DEVICE void ll_fold_one_thread(const unsigned long long* blocks, unsigned long long per_block,
                                      const team_desc& d, const T* mine, T* dest, size_t n, unsigned flag, int slot,
                                      const char* routine) {
  using A = reduce_acc_t<T>;
  constexpr unsigned B = (G * (unsigned)sizeof(T) + kLLPairPayloadBytes - 1) / kLLPairPayloadBytes;  // pairs
  constexpr unsigned kBits = 8 * sizeof(T);
  const unsigned pairs = (unsigned)ll_pairs(n * sizeof(T));  // below kLLRingLines: 32 bits
  const bool own_first = ll_fold_own_first<Op, T>(d.size);
  for (size_t e0 = 0; e0 < n; e0 += G) {
    const unsigned p0 = (unsigned)(e0 * sizeof(T) / kLLPairPayloadBytes);
    // Byte offset of element e0 in pair p0: 0, or 4 for 1-byte elements.
    const unsigned first = (unsigned)(e0 * sizeof(T) % kLLPairPayloadBytes);
    A acc[G];
    if (own_first) {
#pragma unroll
      for (unsigned i = 0; i < G; ++i)
        if (e0 + i < n) acc[i] = (A)mine[e0 + i];
    }
    for (int r = 0; r < d.size; ++r) {
      if (r == d.my_rank) {
        if (!own_first) {
#pragma unroll
          for (unsigned i = 0; i < G; ++i)
            if (e0 + i < n) acc[i] = r == 0 ? (A)mine[e0 + i] : Op::apply(acc[i], (A)mine[e0 + i]);
        }
        continue;
      }
      const wide16* const batch = reinterpret_cast<const wide16*>(blocks + (unsigned long long)r * per_block) + p0;
      wide16 w[B];
      ll_receive_batch<B>(batch, pairs - p0, w, flag, slot, team_member_pe(d, r), routine);
#pragma unroll
      for (unsigned i = 0; i < G; ++i) {
        if (e0 + i >= n) continue;
        const unsigned at = first + i * (unsigned)sizeof(T);  // byte offset in the batch
        const unsigned k = B == 1 ? 0u : at / kLLPairPayloadBytes;
        const unsigned long long payload = ll_pair_data(w[k]);
        unsigned long long bits = payload;
        if constexpr (kBits < 64) bits = payload >> (8 * (at % kLLPairPayloadBytes)) & ((1ull << kBits) - 1);
        const A v = (A)ll_element_of_bits<T>(bits);
        acc[i] = r == 0 && !own_first ? v : Op::apply(acc[i], v);
      }
    }
#pragma unroll
    for (unsigned i = 0; i < G; ++i)
      if (e0 + i < n) dest[e0 + i] = (T)acc[i];
  }
}

// The LL forms of reduce (Scatter false: every member's n elements go to
// every other member's ring, as fcollect's blocks) and reducescatter
// (Scatter true: block r of every member's source goes to member r, as
// alltoall's), by every member of `g`, after team_reduce's or
// team_reducescatter's validation. Each member then folds, element by
// element and in rank order as reduce_element does (so the LL and two-sync
// forms give the same bits, floating point included), its own contribution
// and the lines it received. The ordering argument is team_ll.h's (points 1
// to 4); the group sync between sending and folding lets dest be source
// (every line is packed before any dest element is stored).
template <class Op, bool Scatter, class T, class Group>
GSHMEM_DEVICE int team_ll_reduce(Group& g, int slot, const team_desc& d, T* dest, const T* source, size_t n,
                                 const char* routine) {
  using A = reduce_acc_t<T>;
  const gshmemi_device_state_t& s = gshmemi_state();
  const size_t nbytes = n * sizeof(T);
  const unsigned long long per_block = ll_lines(nbytes);
  unsigned flag = 0;
  const unsigned long long start = ll_begin(g, slot, d, ll_call_lines(ll_fcollect, nbytes, d.size),
                                            reduction_signature<Op, Scatter>(nbytes), &flag, routine);
  const int me = d.my_rank;
  ll_send<Scatter>(g, slot, d, reinterpret_cast<const unsigned char*>(source), nbytes,
                   (unsigned)(start + (unsigned long long)me * per_block), flag,
                   [](unsigned long long, unsigned long long) {});
  g.sync();
  const unsigned long long* const ring = ll_ring_at(s.heap_base, slot);
  const T* const mine = Scatter ? source + (size_t)me * n : source;
  if constexpr (group_is_one_thread<Group>) {
    ll_fold_one_thread<Op, kLLFoldElements<T, Scatter>>(ring + start, per_block, d, mine, dest, n, flag, slot, routine);
  } else {
    // A group: one element at a time per thread, the group's threads sharing
    // the elements out (a batch of loads in flight per thread, as one
    // thread's fold has, doubled the compile time of every reduction
    // instantiation, nvcc 13, sm_90).
    for (size_t e = g.rank(); e < n; e += g.size()) {
      A acc{};
      for (int r = 0; r < d.size; ++r) {
        const T v = r == me ? mine[e]
                            : ll_receive_element<T>(ring + start + (unsigned long long)r * per_block, e, flag, slot,
                                                    team_member_pe(d, r), routine);
        acc = r == 0 ? (A)v : Op::apply(acc, (A)v);
      }
      dest[e] = (T)acc;
    }
  }
  g.sync();  // dest complete for the whole group (team_ll.h, 4.)
  return 0;
}

// Whether a reduction of n elements of T takes the LL path (the same
// decision on every member: same arguments, same agreed setting).
template <class T, class Group>
GSHMEM_DEVICE bool ll_reduce_fits(size_t n, int members) {
  return ll_enabled() && ll_reduce_chooses(n, sizeof(T), members, group_is_one_thread<Group>,
                                           gshmemi_state().collective_ll_thread_bytes);
}

// The push form of reduce (Scatter false) and reducescatter (Scatter true),
// for sizes past the LL form's and up to a part of the push area
// (reduce_push_fits), in a job without remote peers. Pulling, a group waits
// an NVLink round trip for every unit each of its threads loads from a
// peer (a warp reducing 8 KiB of int64 over 2 PEs: 16 in turn a lane);
// stores are posted, so every member stores its source (reducescatter: its
// block r) into its part of member r's push area (team_sync.h:
// team_push_at, team_push_part), then reduces from local memory: its own
// source and the parts the others stored. Two team syncs, as the pulling
// form has, and no third: the ordering argument.
//   1. The entry sync (with the call's signature, so members that disagree
//      are still reported): no member stores into a push area before its
//      owner entered the call, and the owner entered it after its earlier
//      calls on the team (one caller per team and PE, calls in the same
//      order), so it read every part of its area that an earlier push form
//      stored there before its announcement, and a release orders earlier
//      loads too.
//   2. The stores (copy_bytes: weak, posted), then the second sync, whose
//      release fence makes every store the group made before it visible to
//      a member that passes it (sync_team, team_sync.h; the same argument as
//      team_push_block's).
//   3. Each member reduces, element by element in rank order as the pulling
//      form does (the same bits, floating point included), with relaxed
//      system-scope loads of its area (written by other GPUs; never a stale
//      L1 line). Nobody reads this member's source or dest after the second
//      sync, so the call returns without a third: the next call's entry
//      sync (1.) keeps its area until it is read. dest may be source: each
//      element is loaded and stored by the same thread.
// A group sync at the end: dest complete for the whole group.
template <class Op, bool Scatter, class T, class Group>
GSHMEM_DEVICE int team_push_reduce(Group& g, int slot, const team_desc& d, T* dest, const T* source, size_t n,
                                   const char* routine) {
  const gshmemi_device_state_t& s = gshmemi_state();
  const size_t nbytes = n * sizeof(T);
  const unsigned long long part_bytes = team_push_part_bytes(d.size);
  sync_team<false>(g, slot, d, routine, reduction_signature<Op, Scatter>(nbytes));
  for (int k = 1; k < d.size; ++k) {
    const int r = alltoall_peer(d.my_rank, k - 1, d.size);
    const T* from = Scatter ? source + (size_t)r * n : source;
    char* to = team_push_at(s.peer_base[team_member_pe(d, r)], slot) + team_push_part(d.my_rank, r, d.size) * part_bytes;
    copy_bytes<true, false>(to, from, nbytes, g);
  }
  sync_team<false>(g, slot, d, routine);
  const T* const mine = Scatter ? source + (size_t)d.my_rank * n : source;
  const long long shift = team_push_at(s.heap_base, slot) - reinterpret_cast<const char*>(mine);
  reduce_members<Op>(d.size, dest, mine, n, g.rank(), g.size(),
                     pushed_copies{shift, (unsigned)part_bytes, d.my_rank, d.size});
  g.sync();
  return 0;
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
  if constexpr (sizeof(T) <= 8 && 8 % sizeof(T) == 0) {
    if (ll_reduce_fits<T, Group>(n, d.size)) return team_ll_reduce<Op, false>(g, team, d, dest, source, n, routine);
  }
  if constexpr (!group_is_one_thread<Group>) {
    if (!remote_enabled() && reduce_push_fits(n, sizeof(T), d.size))
      return team_push_reduce<Op, false>(g, team, d, dest, source, n, routine);
  }
  sync_team<false>(g, team, d, routine, reduction_signature<Op, false>(n * sizeof(T)));
  if (__builtin_expect(team_has_remote_member(d), 0)) {
    reduce_through_proxy<Op>(g, team, d, dest, source, n, in_place, routine);
  } else if (!in_place) {
    reduce_mapped<Op>(d, dest, source, n, g.rank(), g.size(), routine);
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
  if constexpr (sizeof(T) <= 8 && 8 % sizeof(T) == 0) {
    if (ll_reduce_fits<T, Group>(n, d.size)) return team_ll_reduce<Op, true>(g, team, d, dest, source, n, routine);
  }
  if constexpr (!group_is_one_thread<Group>) {
    if (!remote_enabled() && reduce_push_fits(n, sizeof(T), d.size))
      return team_push_reduce<Op, true>(g, team, d, dest, source, n, routine);
  }
  sync_team<false>(g, team, d, routine, reduction_signature<Op, true>(n * sizeof(T)));
  const T* block = source + (size_t)d.my_rank * n;
  if (__builtin_expect(team_has_remote_member(d), 0))
    reduce_through_proxy<Op>(g, team, d, dest, block, n, false, routine);
  else
    reduce_mapped<Op>(d, dest, block, n, g.rank(), g.size(), routine);
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
// the root's source only reads, which the last sync keeps in place. That
// holds for large sizes, where the copy's bandwidth counts; up to
// kPushMaxBytes the root pushes instead (team_push_block): a group's loads
// wait a round trip each, its stores are posted.
// dest == source is allowed (the root then copies nothing; a non-root's
// source is not read); any other overlap is an error. A remote root's
// source comes with one get request into dest (rank 0 of the group).
// alltoall: every member pushes block r of its source (nelems elements at
// r * nelems) to dest + my_rank * nelems on team rank r, starting with the
// rank after its own so that the members start on different peers; stores
// to a peer are posted (a load waits for its round trip), and the last team
// sync (its release store) makes them visible to every member that passes
// it. The first sync keeps every member's dest untouched until its owner
// entered the call. dest and source may not overlap at all. A block for a
// remote member goes as one put request (rank 0 of the group), complete
// before the last sync's announcements (the sync quiets the queue first).
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

// Whether [p, p + nbytes) lies in this PE's symmetric addresses.
GSHMEM_DEVICE bool in_symmetric_span(const void* p, size_t nbytes) {
  const gshmemi_device_state_t& s = gshmemi_state();
  const size_t offset = (size_t)(static_cast<const char*>(p) - s.heap_base);
  return static_cast<const char*>(p) >= s.heap_base && offset <= s.symmetric_span &&
         nbytes <= s.symmetric_span - offset;
}

// Whether a broadcast (blocks 1) or fcollect (blocks = members) of
// block_bytes a block into dest pushes: a job without remote peers, a dest
// in the symmetric addresses (every member passes the same dest, so every
// member decides alike, whatever its form; a local dest, which the pulling
// form accepts, is pulled into), and a block of at most kPushMaxBytes.
constexpr size_t kPushMaxBytes = 16u << 10;
GSHMEM_DEVICE bool push_fits(const void* dest, size_t block_bytes, size_t blocks) {
  return block_bytes > 0 && block_bytes <= kPushMaxBytes && !remote_enabled() &&
         !collective_bytes_overflow(block_bytes, 1, blocks) && in_symmetric_span(dest, block_bytes * blocks);
}

// Small broadcasts and fcollects push (every form: thread, warp, block):
// the root, or each member its own block, stores nbytes of `source` to
// `at` (a symmetric address) on every member of the team, the member after
// `first_rank` first, this PE last (locally; nothing when at == source).
// A group that pulls waits one NVLink round trip per load it has in flight
// (one thread: per 64 bytes); stores are posted, many in flight (NVSHMEM's
// collectives push too). Called between the two team syncs of a job with
// no remote peer: the entry sync keeps every member's dest untouched until
// its owner entered the call, and the last sync's fence orders these
// stores before this PE's announcement, so a member that passes it reads
// them. Past kPushMaxBytes a block pulls (team_broadcast_bytes says why).
template <class Group>
GSHMEM_DEVICE void team_push_block(Group& g, const team_desc& d, void* at, const void* source, size_t nbytes,
                                   int first_rank, const char* routine) {
  if (nbytes == 0) return;
  for (int k = 1; k <= d.size; ++k) {
    const int r = (first_rank + k) % d.size;
    if (r == d.my_rank) {
      if (at != source) copy_bytes<false, false>(at, source, nbytes, g);
      continue;
    }
    const int pe = team_member_pe(d, r);
    (void)peer_address(static_cast<const char*>(at) + (nbytes - 1), pe, routine);  // past the heap: trap
    copy_bytes<true, false>(peer_address(static_cast<char*>(at), pe, routine), source, nbytes, g);
  }
}

// fcollect of nbytes a member: every member pulls each member's source
// into its block of dest (up to kPushMaxBytes a block, each member pushes
// its source into its block of every member's dest instead:
// team_push_block). dest and source may not overlap at all (as the host
// form checks).
template <class Group>
GSHMEM_DEVICE int team_fcollect_bytes(Group& g, int team, unsigned char* dest, const unsigned char* source,
                                      size_t nbytes, const char* routine) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  const bool overflows = collective_bytes_overflow(nbytes, 1, (size_t)d.size);
  if (!overflows && collective_overlap((unsigned long long)dest, (unsigned long long)(nbytes * (size_t)d.size),
                                       (unsigned long long)source, (unsigned long long)nbytes, false)) {
    report_overlap(g, dest, source, false, routine);
    return -1;
  }
  if (!overflows && ll_takes<Group>(ll_fcollect, nbytes, d.size))
    return team_ll_collective<ll_fcollect>(g, team, d, dest, source, nbytes, 0, fcollect_signature(nbytes), routine);
  sync_team<false>(g, team, d, routine, fcollect_signature(nbytes));
  if (push_fits(dest, nbytes, (size_t)d.size)) {
    team_push_block(g, d, dest + (size_t)d.my_rank * nbytes, source, nbytes, d.my_rank, routine);
    sync_team<false>(g, team, d, routine);
    return 0;
  }
  for (int r = 0; r < d.size && nbytes > 0; ++r) {
    const int pe = team_member_pe(d, r);
    unsigned char* const block = dest + (size_t)r * nbytes;
    on_peer(
        source, pe, routine, [&](const unsigned char* mapped) { copy_bytes<false, true>(block, mapped, nbytes, g); },
        [&] {
          check_member_span(source + (nbytes - 1), pe, routine);
          collective_by_first_rank(g, [&] { remote_get(block, source, nbytes, pe, routine); });
        });
  }
  sync_team<false>(g, team, d, routine);
  return 0;
}

// fcollect of any element type: the bytes of its elements (one body for
// every type; a block form of its own per type took a user kernel of
// run-time size to 70 registers, the byte body 56). An element count
// whose bytes overflow a size_t stays an overflowing byte count.
template <class T, class Group>
GSHMEM_DEVICE int team_fcollect(Group& g, int team, T* dest, const T* source, size_t nelems, const char* routine) {
  const size_t nbytes = product_overflows(nelems, sizeof(T)) ? ~(size_t)0 : nelems * sizeof(T);
  return team_fcollect_bytes(g, team, reinterpret_cast<unsigned char*>(dest),
                             reinterpret_cast<const unsigned char*>(source), nbytes, routine);
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
  if (ll_takes<Group>(ll_broadcast, nbytes, d.size))
    return team_ll_collective<ll_broadcast>(g, team, d, dest, source, nbytes, root,
                                            broadcast_signature(root, nbytes), routine);
  sync_team<false>(g, team, d, routine, broadcast_signature(root, nbytes));
  if (push_fits(dest, nbytes, 1)) {
    if (d.my_rank == root) team_push_block(g, d, dest, source, nbytes, root, routine);
    sync_team<false>(g, team, d, routine);
    return 0;
  }
  if (nbytes > 0 && !(d.my_rank == root && dest == source)) {
    const int root_pe = team_member_pe(d, root);
    // The last byte too: a source that runs past the symmetric heap traps
    // with a diagnostic instead of reading the root's other memory.
    const char* const last = static_cast<const char*>(source) + (nbytes - 1);
    on_peer(
        source, root_pe, routine,
        [&](const void* mapped) {
          (void)peer_address(last, root_pe, routine);
          copy_bytes<false, true>(dest, mapped, nbytes, g);
        },
        [&] {
          check_member_span(last, root_pe, routine);
          collective_by_first_rank(g, [&] { remote_get(dest, source, nbytes, root_pe, routine); });
        });
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
  if (ll_takes<Group>(ll_alltoall, block_bytes, d.size))
    return team_ll_collective<ll_alltoall>(g, team, d, dest, source, block_bytes, 0,
                                           alltoall_signature(block_bytes), routine);
  sync_team<false>(g, team, d, routine, alltoall_signature(block_bytes));
  if (block_bytes > 0) {
    char* const my_block = static_cast<char*>(dest) + (size_t)d.my_rank * block_bytes;
    for (int k = 0; k < d.size; ++k) {
      const int r = alltoall_peer(d.my_rank, k, d.size);
      const int pe = team_member_pe(d, r);
      const char* const from = static_cast<const char*>(source) + (size_t)r * block_bytes;
      on_peer(
          my_block, pe, routine,
          [&](char* mapped) {
            (void)peer_address(my_block + (block_bytes - 1), pe, routine);  // past the heap: trap, as above
            copy_bytes<true, false>(mapped, from, block_bytes, g);
          },
          [&] {
            // Not blocking: the last sync quiets the queue before it
            // announces (the puts complete, source untouched until then).
            check_member_span(my_block + (block_bytes - 1), pe, routine);
            collective_by_first_rank(
                g, [&] { remote_put(my_block, from, block_bytes, pe, false, nullptr, 0, 0, routine); });
          });
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
