// Reaching a peer's symmetric object, and moving bytes to and from it.
//
// Peers' heaps are mapped into this process (CUDA IPC / NVLink P2P), so a
// remote update is an ordinary load, store or atomic on the peer's address:
// peer_base[pe] + (address - heap_base). Every data access to a peer is a
// strong (relaxed, system-scope) access: it cannot be served from a stale L1
// line, it forms a release pattern with a later fence, and an acquire poll on
// the target observes it morally strongly. Host and device where noted.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/device_report.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/state.h>

#include <cstring>
#include <cstdio>
#include <type_traits>

#if defined(__CUDACC__) || defined(__clang__)
#  define GSHMEMI_COPY_UNROLL _Pragma("unroll")
#  define GSHMEMI_COPY_NO_UNROLL _Pragma("unroll 1")
#elif defined(__GNUC__)
#  define GSHMEMI_COPY_UNROLL _Pragma("GCC unroll 4")
#  define GSHMEMI_COPY_NO_UNROLL _Pragma("GCC unroll 1")
#else
#  define GSHMEMI_COPY_UNROLL
#  define GSHMEMI_COPY_NO_UNROLL
#endif

namespace gshmem {
namespace detail {

// Bit-pattern twin of an object of 1, 2, 4 or 8 bytes.
template <size_t N> struct uint_of_size;
template <> struct uint_of_size<1> { using type = unsigned char; };
template <> struct uint_of_size<2> { using type = unsigned short; };
template <> struct uint_of_size<4> { using type = unsigned int; };
template <> struct uint_of_size<8> { using type = unsigned long long; };

template <class To, class From>
GSHMEM_HD To bit_cast(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
  To t;
  std::memcpy(&t, &f, sizeof(To));
  return t;
}

// An atomic load of any trivially copyable object of 1, 2, 4, 8 or 16 bytes
// (16: single-copy atomic as a whole, see atomic_load128, always pinned).
// C: the compiler order (ordering.h); movable only for relaxed.
template <memory_order O, thread_scope S, compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD T load_object(const T* p) {
  static_assert(std::is_trivially_copyable<T>::value, "atomic load needs a trivially copyable type");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "atomic load/store takes objects of 1, 2, 4, 8 or 16 bytes");
  if constexpr (sizeof(T) == 16) {
    return bit_cast<T>(atomic_load128<O, S>(reinterpret_cast<const wide16*>(p)));
  } else if constexpr (sizeof(T) == 1) {
    return bit_cast<T>(atomic_load8<O, S, C>(reinterpret_cast<const unsigned char*>(p)));
  } else {
    using U = typename uint_of_size<sizeof(T)>::type;
    return bit_cast<T>(atomic_load<O, S, C>(reinterpret_cast<const U*>(p)));
  }
}

template <memory_order O, thread_scope S, compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void store_object(T* p, T v) {
  static_assert(std::is_trivially_copyable<T>::value, "atomic store needs a trivially copyable type");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "atomic load/store takes objects of 1, 2, 4, 8 or 16 bytes");
  if constexpr (sizeof(T) == 16) {
    atomic_store128<O, S>(reinterpret_cast<wide16*>(p), bit_cast<wide16>(v));
  } else if constexpr (sizeof(T) == 1) {
    atomic_store8<O, S, C>(reinterpret_cast<unsigned char*>(p), bit_cast<unsigned char>(v));
  } else {
    using U = typename uint_of_size<sizeof(T)>::type;
    atomic_store<O, S, C>(reinterpret_cast<U*>(p), bit_cast<U>(v));
  }
}

// ------------------------------------------------------------ thread groups
// The cooperative forms run the same loop with a different (rank, size):
// one thread, the 32 lanes of a warp, or all threads of the block.
// Whether a group may hold several whole warps (a block, or its CPU
// stand-in): copy_bytes lets such a group's idle warps leave early.
template <class Group> inline constexpr bool group_spans_warps = false;
// Whether a group is one thread: copy_bytes then copies its edges in pieces
// of up to 8 bytes (copy_edge) instead of one byte per rank. Other
// one-thread group types say so with a specialization (team_collectives.h:
// the collectives' single_group_of).
template <class Group> inline constexpr bool group_is_one_thread = false;

struct group_thread {
  GSHMEM_HD unsigned rank() const { return 0; }
  GSHMEM_HD unsigned size() const { return 1; }
  GSHMEM_HD void sync() const {}
};
template <> inline constexpr bool group_is_one_thread<group_thread> = true;

// A group given by explicit (rank, size): the CPU tests use it to play the
// lanes of a warp or the threads of a block one after another.
struct group_explicit {
  unsigned r, n;
  GSHMEM_HD unsigned rank() const { return r; }
  GSHMEM_HD unsigned size() const { return n; }
  GSHMEM_HD void sync() const {}
};
template <> inline constexpr bool group_spans_warps<group_explicit> = true;

#if defined(__CUDACC__)
// Every lane of the warp must call (full warp). A lane's rank is its lane
// in the warp: the linear thread index modulo 32 (warps are formed from
// linear indices, so in a 16x2 or 4x4x2 block threadIdx.x alone would give
// two lanes the same rank).
struct group_warp {
  GSHMEM_DEVICE unsigned rank() const {
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;
  }
  GSHMEM_DEVICE unsigned size() const { return 32u; }
  // bar.warp.sync: also orders memory among the lanes (CUDA programming guide).
  GSHMEM_DEVICE void sync() const { __syncwarp(); }
};

// Every thread of the block must call.
struct group_block {
  GSHMEM_DEVICE unsigned rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  GSHMEM_DEVICE unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  GSHMEM_DEVICE void sync() const { __syncthreads(); }
};
template <> inline constexpr bool group_spans_warps<group_block> = true;

// Every thread of a one-dimensional grid, as one group for the data loops
// (the wide kernels of the on-stream collectives, device/collective_kernels.cu).
// No sync(): threads of different blocks cannot wait for each other here.
struct group_grid {
  GSHMEM_DEVICE unsigned rank() const { return blockIdx.x * blockDim.x + threadIdx.x; }
  GSHMEM_DEVICE unsigned size() const { return gridDim.x * blockDim.x; }
};
template <> inline constexpr bool group_spans_warps<group_grid> = true;
#endif

// ---------------------------------------------------- address translation
#if defined(__CUDACC__)
// Where symmetric object `sym` (a local heap address) lies on PE `pe`: its
// heap offset and the PE's mapped heap base (NULL where the PE is not
// mapped: a remote peer, or no PE at all).
struct peer_lookup_result {
  unsigned long long offset;
  char* base;
  bool mapped;  // offset inside the symmetric span and base not NULL
};

GSHMEM_DEVICE peer_lookup_result peer_lookup(const void* sym, int pe) {
  const gshmemi_device_state_t& s = gshmemi_state();
  // One compare decides: the offset against the bytes that reach the PE
  // through its mapping (peer_reach: the symmetric span for a mapped PE, 0
  // for a remote or unreachable one). Both table entries, at a variable
  // index, are read with the index clamped into the table (the range check
  // applied after) as invariant loads (gshmemi_state_invariant), which are
  // not tied to the memory clobbers of the polls around them: in a
  // ping-pong they are issued once, before the loop, and the test in the
  // loop compares registers. (With the span as a scalar of the state and a
  // NULL test on the base, ptxas re-issued the span's immediate-offset
  // constant load after every poll, a dependent load ahead of the store
  // that answers it; SASS sm_90.) The heap base stays an immediate-offset
  // load: the offset it gives is computed once per call site.
  peer_lookup_result r;
  r.offset = (unsigned long long)((const char*)sym - (const char*)s.heap_base);
  // Every pe outside the table reads the table's last entry, 0; a PE past
  // n_pes has 0 of its own (state.h). The base is read only for a mapped
  // PE, so the index it is read at may wrap.
  const unsigned at = (unsigned)pe < (unsigned)GSHMEMI_MAX_PES ? (unsigned)pe : (unsigned)GSHMEMI_MAX_PES;
  const unsigned long long reach = gshmemi_state_invariant(s.peer_reach[at]);
  r.base = gshmemi_state_invariant(s.peer_base[at & (GSHMEMI_MAX_PES - 1u)]);
  r.mapped = r.offset < reach;
  return r;
}

// A translated address, with the promise that it lies in global memory
// (a peer's heap or registered buffer as mapped here: never shared or local
// memory). The compiler then emits the atomics on it with the .global state
// space; on a generic address a 64-bit atomic also gets a path for shared
// memory (a state-space test and a compare-and-swap loop), and that loop
// alone gives every other loop of the kernel YIELDs and convergence
// barriers (SASS sm_90; remote.h, remote_issue, says what they cost).
template <class T>
GSHMEM_DEVICE T* global_address(T* p) {
  if (!__isGlobal(p)) __builtin_unreachable();
  return p;
}

// The cold half of a translation that found no mapping: returns for a
// remote peer (docs/remote.md: peer_base NULL, a pe below n_pes, the proxy
// queue present) when RemoteOk and the routines' remote branch is compiled
// in; otherwise one diagnostic line (not symmetric, or no remote form of
// the routine), then a trap.
template <bool RemoteOk>
GSHMEM_DEVICE void peer_unmapped(const void* sym, int pe, unsigned long long offset, const char* routine) {
#if GSHMEM_IN_DEVICE_CODE
  const gshmemi_device_state_t& s = gshmemi_state();
  const bool remote = offset < s.symmetric_span && (unsigned)pe < (unsigned)s.n_pes && s.proxy.slots != nullptr;
  if (RemoteOk && GSHMEM_DEVICE_REMOTE && remote) return;
  device_failure f;
  f.kind = remote ? GSHMEMI_FAIL_REMOTE_UNSUPPORTED : GSHMEMI_FAIL_NOT_SYMMETRIC;
  f.u0 = (unsigned long long)sym;
  f.i0 = pe;
  f.i1 = s.n_pes;
  fail_device(routine, f);
  // fail_device traps: nothing after this point runs.
  __builtin_unreachable();
#else
  (void)sym, (void)pe, (void)offset, (void)routine;
#endif
}

// The address of symmetric object `sym` on P2P PE `pe`, for a routine
// without a remote form. A non-symmetric address or an unreachable PE is a
// programming error that cannot return a status from the device: one
// diagnostic line, then a trap; so is a remote peer (the diagnostic names
// the routine as having no remote form). A routine with a remote form
// takes on_peer instead.
template <class T>
GSHMEM_DEVICE T* peer_address(T* sym, int pe, const char* routine) {
  const peer_lookup_result r = peer_lookup(sym, pe);
  if (__builtin_expect(!r.mapped, 0)) peer_unmapped<false>(sym, pe, r.offset, routine);
  return global_address(reinterpret_cast<T*>(r.base + r.offset));
}

// A routine with a remote form: on_mapped(address of `sym` on `pe`) for a
// P2P peer, on_remote() for a remote one (after the checks of
// peer_unmapped, which end anything else in its diagnostic); returns what
// the one called returns. The P2P path pays one compare and branch, as
// with a routine that has no remote form: the mapping test and the remote
// test share it, and the remote branch sits after it, cold. (Returning
// NULL for the caller to test again, as this file's translation did before,
// put a second branch and a second convergence region into every call: the
// loop of NVIDIA's shmem_g_latency runs 27 instructions an iteration this
// way against 34 that way, SASS sm_90; 18 without the remote branch.)
// With GSHMEM_DEVICE_REMOTE=0 on_remote is never called and its code is
// not emitted.
template <class T, class OnMapped, class OnRemote>
GSHMEM_DEVICE auto on_peer(T* sym, int pe, const char* routine, OnMapped&& on_mapped, OnRemote&& on_remote)
    -> decltype(on_mapped(sym)) {
  const peer_lookup_result r = peer_lookup(sym, pe);
  if (__builtin_expect(!r.mapped, 0)) {
    peer_unmapped<true>(sym, pe, r.offset, routine);
#if GSHMEM_DEVICE_REMOTE
    return on_remote();
#else
    (void)on_remote;
    __builtin_unreachable();
#endif
  }
  return on_mapped(global_address(reinterpret_cast<T*>(r.base + r.offset)));
}
#endif

// ------------------------------------------------------------- byte copies
//
// Copies n bytes with every rank of `g` taking a share. The widest unit that
// both addresses allow (16, 8, 4, 2 or 1 bytes, from their relative
// alignment) carries the body; the bytes before the first aligned unit and
// after the last one (fewer than 16 each) go one byte per rank in a warp or
// block, and in the widest pieces their addresses allow for one thread
// (copy_edge). A strong side
// (the peer's side) uses relaxed system-scope accesses; the local side plain
// ones. Four units per thread are in flight before the first is stored, so a
// single thread does not pay one NVLink round trip per unit on a get.
// 16-byte units are vector accesses (atomic per 8-byte half, one instruction,
// no round trip): a copy promises no more per element.
//
// Registers: the routines are inlined into the caller's kernel, often into
// its loop, and what they compute from loop-invariant arguments may be
// hoisted out and stay live across it. So the unit is picked once (one of
// five body loops runs), head and tail share one byte loop, and the
// leftover loops are not unrolled: a get or put stays within 64 registers
// per thread in a 1024-thread kernel (tests/launch).
//
// The strong accesses are movable (ordering.h, compiler order): a copy
// promises no order among its elements nor with the caller's other
// accesses until a fence, quiet or barrier (all pinned), so the compiler
// may issue the loads of several units before the first store.
template <bool StrongDst, bool StrongSrc, class Unit>
GSHMEM_HD Unit copy_load(const Unit* p) {
  constexpr memory_order R = memory_order::relaxed;
  constexpr compiler_order M = compiler_order::movable;
  if constexpr (!StrongSrc) return *p;
  else if constexpr (std::is_same<Unit, wide16>::value) return atomic_load16<R, thread_scope::system, M>(p);
  else return load_object<R, thread_scope::system, M>(p);
}
template <bool StrongDst, bool StrongSrc, class Unit>
GSHMEM_HD void copy_store(Unit* p, Unit v) {
  constexpr memory_order R = memory_order::relaxed;
  constexpr compiler_order M = compiler_order::movable;
  if constexpr (!StrongDst) *p = v;
  else if constexpr (std::is_same<Unit, wide16>::value) atomic_store16<R, thread_scope::system, M>(p, v);
  else store_object<R, thread_scope::system, M>(p, v);
}

// OneThread: the caller is a single thread (group_thread). Its leftover
// 16-byte units (fewer than kInFlight) are then all loaded before the first
// is stored, so a one-thread get of 32 bytes costs one NVLink round trip,
// not two (NVIDIA's shmem_get_latency, Thread, 32 B: 1.46x NVSHMEM's time
// before). Only the 16-byte loop: the same tail for the 8-byte units too
// took the launch test's kernels from 56 to 64 registers (tests/launch), all
// unit sizes to 72. A warp or block keeps the plain leftover loop: its
// ranks already take the leftover units side by side.
template <bool StrongDst, bool StrongSrc, bool OneThread = false, class Unit>
GSHMEM_HD void copy_units(Unit* dst, const Unit* src, size_t n, size_t rank, size_t size) {
  constexpr unsigned kInFlight = 4;
  size_t i = rank;
  for (; i + (kInFlight - 1) * size < n; i += kInFlight * size) {
    Unit v[kInFlight];
    GSHMEMI_COPY_UNROLL
    for (unsigned k = 0; k < kInFlight; ++k) v[k] = copy_load<StrongDst, StrongSrc>(src + i + k * size);
    GSHMEMI_COPY_UNROLL
    for (unsigned k = 0; k < kInFlight; ++k) copy_store<StrongDst, StrongSrc>(dst + i + k * size, v[k]);
  }
  if constexpr (OneThread && std::is_same<Unit, wide16>::value) {
    const size_t left = n - i;  // < kInFlight (size is 1)
    Unit v[kInFlight - 1];
    GSHMEMI_COPY_UNROLL
    for (unsigned k = 0; k < kInFlight - 1; ++k)
      if (k < left) v[k] = copy_load<StrongDst, StrongSrc>(src + i + k);
    GSHMEMI_COPY_UNROLL
    for (unsigned k = 0; k < kInFlight - 1; ++k)
      if (k < left) copy_store<StrongDst, StrongSrc>(dst + i + k, v[k]);
  } else {
    GSHMEMI_COPY_NO_UNROLL
    for (; i < n; i += size) copy_store<StrongDst, StrongSrc>(dst + i, copy_load<StrongDst, StrongSrc>(src + i));
  }
}

// The edges of a one-thread copy: the bytes before the first aligned unit
// or after the last one (fewer than 16 each), or a whole copy shorter than
// one unit. They go in pieces of 8, 4, 2 or 1 bytes, each the widest that
// the destination address, the relative alignment of the two sides
// (max_unit) and the bytes left allow: a get of 8 bytes is one NVLink round
// trip, not eight (one per byte). A piece of width u is aligned on both
// sides: u <= max_unit, and the two addresses agree modulo max_unit. Kept a
// plain loop (each piece loaded, then stored): the routines are inlined at
// every call site, and unrolled edge code multiplied the code of a block
// put by 2.5 and slowed NVIDIA's shmem_put_bw by about 10% although it never
// ran there (instruction fetch).
GSHMEM_HD unsigned edge_piece(size_t dst_addr, size_t left, unsigned max_unit) {
  if (left == 0) return 0u;
  unsigned u = max_unit > 8u ? 8u : max_unit;
  while (u > 1u && (u > left || (dst_addr & (u - 1u)) != 0)) u >>= 1;
  return u;
}
template <bool StrongDst, bool StrongSrc>
GSHMEM_HD void copy_edge(unsigned char* dst, const unsigned char* src, size_t len, unsigned max_unit) {
  GSHMEMI_COPY_NO_UNROLL
  for (size_t pos = 0; pos < len;) {
    const unsigned u = edge_piece((size_t)(dst + pos), len - pos, max_unit);
    switch (u) {
      case 8u:
        copy_store<StrongDst, StrongSrc>(reinterpret_cast<unsigned long long*>(dst + pos),
                                         copy_load<StrongDst, StrongSrc>(reinterpret_cast<const unsigned long long*>(src + pos)));
        break;
      case 4u:
        copy_store<StrongDst, StrongSrc>(reinterpret_cast<unsigned int*>(dst + pos),
                                         copy_load<StrongDst, StrongSrc>(reinterpret_cast<const unsigned int*>(src + pos)));
        break;
      case 2u:
        copy_store<StrongDst, StrongSrc>(reinterpret_cast<unsigned short*>(dst + pos),
                                         copy_load<StrongDst, StrongSrc>(reinterpret_cast<const unsigned short*>(src + pos)));
        break;
      default: copy_store<StrongDst, StrongSrc>(dst + pos, copy_load<StrongDst, StrongSrc>(src + pos)); break;
    }
    pos += u;
  }
}

template <bool StrongDst, bool StrongSrc, class Group>
GSHMEM_HD void copy_bytes(void* dst_v, const void* src_v, size_t n, const Group& g) {
  // Opaque copies (config.h): the per-call setup of the five unit loops
  // (strides from the group size, bounds from n) is not hoisted into the
  // caller's loop to sit in registers across it.
  n = gshmemi_opaque(n);
  const size_t rank = g.rank(), size = gshmemi_opaque((size_t)g.size());
  unsigned char* dst = static_cast<unsigned char*>(dst_v);
  const unsigned char* src = static_cast<const unsigned char*>(src_v);
  // One thread: its edges in pieces (copy_edge). RMA's one thread
  // (group_thread) also keeps its leftover units in flight (copy_units'
  // OneThread); the collectives' one-thread group does not: with that tail
  // their thread forms took 68-80 registers (a kernel calling broadcast,
  // fcollect or alltoall in a loop, sm_90), past the 64 that let a kernel
  // launch with 1024 threads; with the edges alone 54-64.
  constexpr bool kOne = group_is_one_thread<Group>;
  constexpr bool kTail = std::is_same<Group, group_thread>::value;
  // The warps of a block whose ranks all lie at or past the n-th have
  // nothing to copy (there are at most n units and n edge bytes): they
  // leave before the setup below, instead of running it on the same four
  // schedulers as the warps that copy. Whole warps only, so that no warp
  // splits; a thread or a warp group never leaves here. Measured against
  // the same tree without it, in one run (2 x H200, NVIDIA's perftests):
  // shmem_put_latency Block 4-256 B 8% faster, shmem_get_latency Block
  // 4-256 B 7%, shmem_put_bw 4 B-2 KiB 7-21%; Block copies of 1-64 KiB,
  // where every warp stays, 1-3% slower (the test, paid by 32 warps).
  if constexpr (group_spans_warps<Group>) {
    if ((rank & ~(size_t)31) >= n) return;
  }
  const size_t rel = (size_t)dst ^ (size_t)src;
  const unsigned shift = (rel & 15u) == 0   ? 4u
                         : (rel & 7u) == 0  ? 3u
                         : (rel & 3u) == 0  ? 2u
                         : (rel & 1u) == 0  ? 1u
                                            : 0u;
  size_t head = (0 - (size_t)dst) & (((size_t)1 << shift) - 1);  // bytes before dst is aligned
  if (head > n) head = n;
  const size_t units = (n - head) >> shift;
  const size_t body_end = head + (units << shift);
  unsigned char* bd = dst + head;
  const unsigned char* bs = src + head;
  switch (shift) {
    case 4u:
      copy_units<StrongDst, StrongSrc, kTail>(reinterpret_cast<wide16*>(bd), reinterpret_cast<const wide16*>(bs), units, rank,
                                       size);
      break;
    case 3u:
      copy_units<StrongDst, StrongSrc, kTail>(reinterpret_cast<unsigned long long*>(bd),
                                       reinterpret_cast<const unsigned long long*>(bs), units, rank, size);
      break;
    case 2u:
      copy_units<StrongDst, StrongSrc, kTail>(reinterpret_cast<unsigned int*>(bd), reinterpret_cast<const unsigned int*>(bs),
                                       units, rank, size);
      break;
    case 1u:
      copy_units<StrongDst, StrongSrc, kTail>(reinterpret_cast<unsigned short*>(bd),
                                       reinterpret_cast<const unsigned short*>(bs), units, rank, size);
      break;
    default: copy_units<StrongDst, StrongSrc, kTail>(bd, bs, units, rank, size); break;
  }
  // Head and tail (fewer than 16 bytes each). One thread: in pieces as wide
  // as the alignment allows. A warp or block: one byte per rank, all at once.
  if constexpr (kOne) {
    copy_edge<StrongDst, StrongSrc>(dst, src, head, 1u << shift);
    copy_edge<StrongDst, StrongSrc>(dst + body_end, src + body_end, n - body_end, 1u << shift);
  } else {
    const size_t edges = head + (n - body_end);
    GSHMEMI_COPY_NO_UNROLL
    for (size_t k = rank; k < edges; k += size) {
      const size_t at = k < head ? k : body_end + (k - head);
      copy_store<StrongDst, StrongSrc>(dst + at, copy_load<StrongDst, StrongSrc>(src + at));
    }
  }
}

}  // namespace detail
}  // namespace gshmem
