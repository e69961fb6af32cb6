// Atomic operations on an address, with explicit order and scope: the layer
// beneath both the C++ API (namespace gshmem, symmetric object + PE) and the
// C-style gshmem_TYPENAME_atomic_* names. Host and device: the CPU tests run
// these with host threads on host memory.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/detail/update_arith.h>
#include <gshmem/detail/update_order.h>

#include <type_traits>

namespace gshmem {
namespace detail {

// Whether order o has a release part (release, acq_rel, seq_cst), or an
// acquire part (consume, acquire, acq_rel, seq_cst).
GSHMEM_HD constexpr bool has_release_part(memory_order o) {
  return o == memory_order::release || o == memory_order::acq_rel || o == memory_order::seq_cst;
}
GSHMEM_HD constexpr bool has_acquire_part(memory_order o) {
  return o == memory_order::consume || o == memory_order::acquire || o == memory_order::acq_rel ||
         o == memory_order::seq_cst;
}

// The order of the load that starts a compare-and-swap loop, and of a loop
// that ends without writing: the read part of O.
GSHMEM_HD constexpr memory_order read_part(memory_order o) {
  return o == memory_order::release ? memory_order::relaxed
         : o == memory_order::acq_rel ? memory_order::acquire
                                      : o;
}

// Replaces *p by combine(*p, v) atomically and returns the old value, by
// compare-and-swap on the bit pattern in a retry loop (for operations the GPU
// has no instruction for: float/double max, min, nanmax, nanmin, sub). The
// operation keeps order O in every outcome: when combine leaves the bits
// unchanged, a relaxed or acquire operation returns after its load (a load
// with that order is all it promises), while an order with a release part
// (release, acq_rel, seq_cst) still writes the unchanged bits with a
// compare-and-swap of order O, so its release is never lost.
template <memory_order O, thread_scope S, class T, class Combine>
GSHMEM_HD T fetch_combine(T* p, T v, Combine combine) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "compare-and-swap loops need 4- or 8-byte objects");
  using U = typename uint_of_size<sizeof(T)>::type;
  U* up = reinterpret_cast<U*>(p);
  U seen = atomic_load<read_part(O), S>(up);
  for (;;) {
    T old = bit_cast<T>(seen);
    U next = bit_cast<U>(combine(old, v));
    if (!has_release_part(O) && next == seen) return old;
    if (atomic_compare_exchange<O, S>(up, seen, next)) return old;  // else `seen` is refreshed
  }
}

struct combine_sub_fn { template <class T> GSHMEM_HD T operator()(T a, T b) const { return combine_sub(a, b); } };
struct combine_max_fn { template <class T> GSHMEM_HD T operator()(T a, T b) const { return combine_max(a, b); } };
struct combine_min_fn { template <class T> GSHMEM_HD T operator()(T a, T b) const { return combine_min(a, b); } };
struct combine_nanmax_fn { template <class T> GSHMEM_HD T operator()(T a, T b) const { return combine_nanmax(a, b); } };
struct combine_nanmin_fn { template <class T> GSHMEM_HD T operator()(T a, T b) const { return combine_nanmin(a, b); } };

template <class T>
constexpr bool is_amo_value = (std::is_integral<T>::value || std::is_floating_point<T>::value) &&
                              (sizeof(T) == 4 || sizeof(T) == 8);

// ----------------------------------------- read-modify-write on an address
// Integers use the GPU's own atomic instruction (atom.<op>.<sem>.<scope>);
// floating point goes through fetch_combine. These are the only definitions
// of the arithmetic on memory; everything public forwards here.

template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_exchange(T* p, T v) {
  static_assert(sizeof(T) <= 8 || sizeof(T) == 16, "exchange takes objects of 1, 2, 4, 8 or 16 bytes");
  if constexpr (sizeof(T) == 16) {
    return bit_cast<T>(atomic_exchange128<O, S>(reinterpret_cast<wide16*>(p), bit_cast<wide16>(v)));
  } else if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using U = typename uint_of_size<sizeof(T)>::type;
    return bit_cast<T>(atomic_exchange<O, S>(reinterpret_cast<U*>(p), bit_cast<U>(v)));
  } else {
    return atomic_exchange<O, S>(p, v);
  }
}

// Compares bit patterns. On failure `expected` receives the value found.
template <memory_order O, thread_scope S, class T>
GSHMEM_HD bool addr_compare_exchange(T* p, T& expected, T desired) {
  static_assert(sizeof(T) <= 8 || sizeof(T) == 16, "compare-exchange takes objects of 1, 2, 4, 8 or 16 bytes");
  if constexpr (sizeof(T) == 16) {
    const wide16 e = bit_cast<wide16>(expected);
    const wide16 found = atomic_compare_exchange128<O, S>(reinterpret_cast<wide16*>(p), e, bit_cast<wide16>(desired));
    expected = bit_cast<T>(found);
    return found.lo == e.lo && found.hi == e.hi;
  } else if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using U = typename uint_of_size<sizeof(T)>::type;
    U e = bit_cast<U>(expected);
    bool ok = atomic_compare_exchange<O, S>(reinterpret_cast<U*>(p), e, bit_cast<U>(desired));
    expected = bit_cast<T>(e);
    return ok;
  } else {
    return atomic_compare_exchange<O, S>(p, expected, desired);
  }
}

// add and sub: integers wrap modulo 2^N; float and double use the GPU's own
// floating add (atom.add.f32 / .f64, round to nearest even; sub is the add
// of the negated operand, which IEEE defines to give the same result).
template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_fetch_add(T* p, T v) {
  static_assert(is_amo_value<T>, "fetch_add is for 4- and 8-byte integral and floating types");
  if constexpr (std::is_integral<T>::value) return atomic_fetch_add<O, S>(p, v);
  else return ref<T, S>(p).fetch_add(v, to_cuda(O));
}

template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_fetch_sub(T* p, T v) {
  static_assert(is_amo_value<T>, "fetch_sub is for 4- and 8-byte integral and floating types");
  if constexpr (std::is_integral<T>::value) return atomic_fetch_sub<O, S>(p, v);
  else return ref<T, S>(p).fetch_add(-v, to_cuda(O));
}

#define GSHMEMI_ADDR_BITWISE(op)                                                         \
  template <memory_order O, thread_scope S, class T>                                    \
  GSHMEM_HD T addr_fetch_##op(T* p, T v) {                                               \
    static_assert(std::is_integral<T>::value, "fetch_" #op " is for integral types");   \
    return atomic_fetch_##op<O, S>(p, v);                                                \
  }
GSHMEMI_ADDR_BITWISE(and)
GSHMEMI_ADDR_BITWISE(or)
GSHMEMI_ADDR_BITWISE(xor)
#undef GSHMEMI_ADDR_BITWISE

template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_fetch_max(T* p, T v) {
  static_assert(is_amo_value<T>, "fetch_max is for 4- and 8-byte integral and floating types");
  if constexpr (std::is_integral<T>::value) return atomic_fetch_max<O, S>(p, v);
  else return fetch_combine<O, S>(p, v, combine_max_fn{});
}

template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_fetch_min(T* p, T v) {
  static_assert(is_amo_value<T>, "fetch_min is for 4- and 8-byte integral and floating types");
  if constexpr (std::is_integral<T>::value) return atomic_fetch_min<O, S>(p, v);
  else return fetch_combine<O, S>(p, v, combine_min_fn{});
}

// nanmax / nanmin: for integers (no NaN) the same as max / min.
template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_fetch_nanmax(T* p, T v) {
  static_assert(is_amo_value<T>, "fetch_nanmax is for 4- and 8-byte integral and floating types");
  if constexpr (std::is_integral<T>::value) return atomic_fetch_max<O, S>(p, v);
  else return fetch_combine<O, S>(p, v, combine_nanmax_fn{});
}

template <memory_order O, thread_scope S, class T>
GSHMEM_HD T addr_fetch_nanmin(T* p, T v) {
  static_assert(is_amo_value<T>, "fetch_nanmin is for 4- and 8-byte integral and floating types");
  if constexpr (std::is_integral<T>::value) return atomic_fetch_min<O, S>(p, v);
  else return fetch_combine<O, S>(p, v, combine_nanmin_fn{});
}

// No-return add/and/or/xor: one `red` instruction for relaxed and release.
// C: the compiler order (ordering.h); the OpenSHMEM forms pass movable, the
// C++ API keeps pinned.
template <memory_order O, thread_scope S, compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void addr_add(T* p, T v) {
  if constexpr (std::is_floating_point<T>::value) (void)addr_fetch_add<O, S>(p, v);
  else atomic_reduce<reduce_op::add, O, S, C>(p, v);
}
template <memory_order O, thread_scope S, compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void addr_and(T* p, T v) { atomic_reduce<reduce_op::and_, O, S, C>(p, v); }
template <memory_order O, thread_scope S, compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void addr_or(T* p, T v) { atomic_reduce<reduce_op::or_, O, S, C>(p, v); }
template <memory_order O, thread_scope S, compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void addr_xor(T* p, T v) { atomic_reduce<reduce_op::xor_, O, S, C>(p, v); }

}  // namespace detail
}  // namespace gshmem
