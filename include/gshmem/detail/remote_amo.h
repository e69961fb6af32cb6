// Remote forms of the atomics beyond the transport's own operations
// (docs/remote.md): the extended atomics (sub, max, min, nanmax, nanmin,
// floating add), the C++ interface's ordered atomics, and the checked entry
// points that pick the P2P or the remote form. Device only.
//
// The transport applies add, and, or, xor, swap, compare-and-swap and fetch
// (detail/transport_amo.h) on 4- and 8-byte objects. The others are a fetch
// request, then compare-and-swap requests on the bit pattern until one finds
// the bits its new value was computed from (each attempt a round trip
// through the proxy); an integer sub is an add of the negated operand.
//
// Order (the C++ interface's O; the OpenSHMEM forms are relaxed). A remote
// atomic is carried out by the proxy, after the requests queued before it to
// the same PE (P1). On top of that:
//   - a release part (release, acq_rel, seq_cst): fence.acq_rel.sys (fence.sc
//     for seq_cst) and a fence request first, so every store, P2P access and
//     request of this thread before it is delivered before the atomic (P4);
//   - an acquire part (consume, acquire, acq_rel, seq_cst): the thread waits
//     for the atomic's completion (a non-fetching one too), then
//     fence.acq_rel.sys, so what it does next comes after the atomic;
//   - relaxed and release forms that fetch nothing return once queued.
// The scope S only narrows the P2P form; a remote atomic is system-scope.
//
// 1-, 2- and 16-byte objects have no remote form: one diagnostic line naming
// the routine and the PE, then a trap (atomic_on_peer).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/remote.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/detail/update_amo.h>

#include <string.h>

#include <type_traits>

namespace gshmem {
namespace detail {

#if defined(__CUDACC__)

template <class T>
constexpr bool has_remote_atomics = sizeof(T) == 4 || sizeof(T) == 8;

// The order `o` is a run-time value here (a constant where the caller's is):
// the C++ interface's run-time-order overloads take the remote branch once,
// outside their dispatch over orders and scopes, so the branch is compiled
// once per call site rather than once per (order, scope) pair.
GSHMEM_DEVICE void remote_order_before(memory_order o, const char* routine) {
  if (!has_release_part(o)) return;
  if (o == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, thread_scope::system>();
  else atomic_fence<memory_order::acq_rel, thread_scope::system>();
  remote_fence(routine);
}

GSHMEM_DEVICE void remote_order_after(memory_order o) {
  if (has_acquire_part(o)) atomic_fence<memory_order::acq_rel, thread_scope::system>();
}

// One transport atomic `op` on the object at symmetric `dest` on remote pe,
// with order o; returns the old value (T() when nothing is fetched).
template <class T>
GSHMEM_DEVICE T remote_ordered_amo(T* dest, int pe, unsigned op, T operand, T compare, bool fetch, memory_order o,
                                   const char* routine) {
  using U = typename uint_of_size<sizeof(T)>::type;
  remote_order_before(o, routine);
  const U old = remote_amo<U>(reinterpret_cast<U*>(dest), pe, op, bit_cast<U>(operand), bit_cast<U>(compare),
                              fetch || has_acquire_part(o), routine);
  remote_order_after(o);
  return bit_cast<T>(old);
}

// *dest = combine(*dest, v) on remote pe by fetch and compare-and-swap
// requests; returns the old value. Order o as above.
template <class T, class Combine>
GSHMEM_DEVICE T remote_fetch_combine(T* dest, int pe, T v, Combine combine, memory_order o, const char* routine) {
  using U = typename uint_of_size<sizeof(T)>::type;
  U* bits = reinterpret_cast<U*>(dest);
  remote_order_before(o, routine);
  U seen = remote_amo<U>(bits, pe, GSHMEMI_TRANSPORT_AMO_FETCH, U(), U(), true, routine);
  T old;
  for (;;) {
    old = bit_cast<T>(seen);
    const U next = bit_cast<U>(combine(old, v));
    if (next == seen) break;  // nothing to write (the fence request above kept a release)
    const U found = remote_amo<U>(bits, pe, GSHMEMI_TRANSPORT_AMO_CSWAP, next, seen, true, routine);
    if (found == seen) break;
    seen = found;
  }
  remote_order_after(o);
  return old;
}

struct combine_add_fn { template <class T> GSHMEM_HD T operator()(T a, T b) const { return a + b; } };

// The remote fetch_<op> of order o for every op of the C++ interface
// (fetch false: the result is not needed, so a transport operation is not
// waited for unless o has an acquire part).
template <class T>
GSHMEM_DEVICE T remote_fetch_add(T* dest, T v, int pe, bool fetch, memory_order o, const char* routine) {
  if constexpr (std::is_integral<T>::value)
    return remote_ordered_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_ADD, v, T(), fetch, o, routine);
  else
    return remote_fetch_combine(dest, pe, v, combine_add_fn{}, o, routine);
}
template <class T>
GSHMEM_DEVICE T remote_fetch_sub(T* dest, T v, int pe, bool fetch, memory_order o, const char* routine) {
  if constexpr (std::is_integral<T>::value)
    return remote_ordered_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_ADD, combine_sub(T(), v), T(), fetch, o, routine);
  else
    return remote_fetch_combine(dest, pe, v, combine_sub_fn{}, o, routine);
}
#define GSHMEMI_REMOTE_BITWISE(op, OP)                                                                         \
  template <class T>                                                                                           \
  GSHMEM_DEVICE T remote_fetch_##op(T* dest, T v, int pe, bool fetch, memory_order o, const char* routine) {  \
    return remote_ordered_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_##OP, v, T(), fetch, o, routine);               \
  }
GSHMEMI_REMOTE_BITWISE(and, AND)
GSHMEMI_REMOTE_BITWISE(or, OR)
GSHMEMI_REMOTE_BITWISE(xor, XOR)
#undef GSHMEMI_REMOTE_BITWISE
#define GSHMEMI_REMOTE_COMBINE(op)                                                                     \
  template <class T>                                                                                   \
  GSHMEM_DEVICE T remote_fetch_##op(T* dest, T v, int pe, bool, memory_order o, const char* routine) { \
    return remote_fetch_combine(dest, pe, v, combine_##op##_fn{}, o, routine);                        \
  }
GSHMEMI_REMOTE_COMBINE(max)
GSHMEMI_REMOTE_COMBINE(min)
GSHMEMI_REMOTE_COMBINE(nanmax)
GSHMEMI_REMOTE_COMBINE(nanmin)
#undef GSHMEMI_REMOTE_COMBINE
// swap, in the form of the fetch_<op>s: the bulk atomics' swap
// (update_ext.h), and the one request behind store and exchange below.
template <class T>
GSHMEM_DEVICE T remote_swap(T* dest, T v, int pe, bool fetch, memory_order o, const char* routine) {
  return remote_ordered_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_SWAP, v, T(), fetch, o, routine);
}

// The remote forms of load, store, exchange and compare-exchange.
template <class T>
GSHMEM_DEVICE T remote_load(const T* source, int pe, memory_order o, const char* routine) {
  return remote_ordered_amo(const_cast<T*>(source), pe, GSHMEMI_TRANSPORT_AMO_FETCH, T(), T(), true, o, routine);
}
template <class T>
GSHMEM_DEVICE void remote_store(T* dest, T v, int pe, memory_order o, const char* routine) {
  // A seq_cst store waits for its completion (as an acquire would).
  (void)remote_swap(dest, v, pe, o == memory_order::seq_cst, o, routine);
}
template <class T>
GSHMEM_DEVICE T remote_exchange(T* dest, T v, int pe, memory_order o, const char* routine) {
  return remote_swap(dest, v, pe, true, o, routine);
}
template <class T>
GSHMEM_DEVICE bool remote_compare_exchange(T* dest, T& expected, T desired, int pe, memory_order o,
                                           const char* routine) {
  using U = typename uint_of_size<sizeof(T)>::type;
  const T found = remote_ordered_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_CSWAP, desired, expected, true, o, routine);
  if (bit_cast<U>(found) == bit_cast<U>(expected)) return true;
  expected = found;
  return false;
}

// ------------------------------------------------ checked entry points
// Each translates the target: P2P, the address form of order O at scope S;
// a remote peer, the remote form above (a cold, inline branch); an object
// size without a remote form, the diagnostic and a trap.

// An atomic on a T at `sym` on PE `pe`: on_peer (update_access.h) where T
// has remote atomics; otherwise on_mapped with the P2P address, and the
// diagnostic (no remote form) for a remote peer. on_remote takes one
// argument that it ignores (write it `[&](auto) { ... }`): a generic
// lambda's body is compiled only where it is called, so the remote forms
// are never instantiated for the sizes that have none.
template <class T, class OnMapped, class OnRemote>
GSHMEM_DEVICE auto atomic_on_peer(T* sym, int pe, const char* routine, OnMapped&& on_mapped, OnRemote&& on_remote)
    -> decltype(on_mapped(sym)) {
  if constexpr (has_remote_atomics<T>) {
    return on_peer(sym, pe, routine, on_mapped, [&] { return on_remote(0); });
  } else {
    (void)on_remote;
    return on_mapped(peer_address(sym, pe, routine));
  }
}

// checked_fetch_<op>: *dest = op(*dest, v) on PE pe, returning the old
// value: order O at scope S on P2P; order O on a remote peer. The entry of
// the OpenSHMEM extended atomics (relaxed) and of the C++ interface.
#define GSHMEMI_CHECKED_FETCH(op)                                                                   \
  template <memory_order O, thread_scope S, class T>                                                \
  GSHMEM_DEVICE T checked_fetch_##op(T* dest, T v, int pe, const char* routine) {                  \
    return on_peer(                                                                                 \
        dest, pe, routine, [&](T* target) { return addr_fetch_##op<O, S>(target, v); },              \
        [&] { return remote_fetch_##op(dest, v, pe, true, O, routine); });                          \
  }
GSHMEMI_CHECKED_FETCH(add)
GSHMEMI_CHECKED_FETCH(sub)
GSHMEMI_CHECKED_FETCH(and)
GSHMEMI_CHECKED_FETCH(or)
GSHMEMI_CHECKED_FETCH(xor)
GSHMEMI_CHECKED_FETCH(max)
GSHMEMI_CHECKED_FETCH(min)
GSHMEMI_CHECKED_FETCH(nanmax)
GSHMEMI_CHECKED_FETCH(nanmin)
#undef GSHMEMI_CHECKED_FETCH

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
