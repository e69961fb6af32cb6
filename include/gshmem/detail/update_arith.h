// The arithmetic of the remote updates, apart from any memory access.
//
// Each combine_* function returns the value an atomic update stores, given the
// value it found (`old`) and the caller's operand. Device code applies them in
// a compare-and-swap loop where the GPU has no instruction of its own (float
// and double max/min/nanmax/nanmin); the CPU tests check the very same
// functions. Host and device.
#pragma once

#include <gshmem/detail/config.h>

#include <cstring>
#include <type_traits>

namespace gshmem {
namespace detail {

template <class T>
GSHMEM_HD bool is_nan(T x) {
  return x != x;  // the one IEEE value unequal to itself; no <cmath> needed on the device
}

template <class T>
GSHMEM_HD bool sign_bit(T x) {
  static_assert(std::is_floating_point<T>::value, "sign_bit needs a floating-point type");
  using U = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
  U u;
  std::memcpy(&u, &x, sizeof(u));
  return (u >> (sizeof(U) * 8 - 1)) != 0;
}

// old - v, wrapping modulo 2^N for every integral type (signed types too:
// computed in the unsigned twin, so no signed overflow happens).
template <class T>
GSHMEM_HD T combine_sub(T old, T v) {
  if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;
    return (T)(U)((U)old - (U)v);
  } else {
    return old - v;
  }
}

// Floating max and min come in two readings of NaN (the same for integers):
//   - max / min propagate NaN, like numpy.maximum / IEEE 754-2019 maximum:
//     max(a, NaN) stores NaN; max(NaN, n) leaves the stored NaN;
//   - nanmax / nanmin treat NaN as a missing value, like numpy.fmax / C fmax:
//     nanmax(a, NaN) leaves a; nanmax(NaN, n) stores n; both NaN: unchanged.
// Signed zero is ordered in both: max(-0.0, +0.0) = max(+0.0, -0.0) = +0.0
// and min(...) = -0.0, whatever the order of the arguments.
template <class T>
GSHMEM_HD T ordered_max(T old, T v) {  // neither is NaN
  if (old == v) return (old == T(0) && sign_bit(old)) ? v : old;  // prefer +0.0
  return old < v ? v : old;
}
template <class T>
GSHMEM_HD T ordered_min(T old, T v) {  // neither is NaN
  if (old == v) return (old == T(0) && !sign_bit(old)) ? v : old;  // prefer -0.0
  return v < old ? v : old;
}

template <class T>
GSHMEM_HD T combine_max(T old, T v) {
  if constexpr (std::is_floating_point<T>::value) {
    if (is_nan(old)) return old;
    if (is_nan(v)) return v;
    return ordered_max(old, v);
  } else {
    return old < v ? v : old;
  }
}

template <class T>
GSHMEM_HD T combine_min(T old, T v) {
  if constexpr (std::is_floating_point<T>::value) {
    if (is_nan(old)) return old;
    if (is_nan(v)) return v;
    return ordered_min(old, v);
  } else {
    return v < old ? v : old;
  }
}

template <class T>
GSHMEM_HD T combine_nanmax(T old, T v) {
  if constexpr (std::is_floating_point<T>::value) {
    if (is_nan(v)) return old;
    if (is_nan(old)) return v;
    return ordered_max(old, v);
  } else {
    return old < v ? v : old;
  }
}

template <class T>
GSHMEM_HD T combine_nanmin(T old, T v) {
  if constexpr (std::is_floating_point<T>::value) {
    if (is_nan(v)) return old;
    if (is_nan(old)) return v;
    return ordered_min(old, v);
  } else {
    return v < old ? v : old;
  }
}

// Bitwise identity: true when a and b have the same object representation.
// Compare-and-swap loops compare bits, not values (NaN != NaN, -0.0 == +0.0).
template <class T>
GSHMEM_HD bool same_bits(T a, T b) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "same_bits compares 4- or 8-byte values");
  using U = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
  U ua, ub;
  std::memcpy(&ua, &a, sizeof(U));
  std::memcpy(&ub, &b, sizeof(U));
  return ua == ub;
}

}  // namespace detail
}  // namespace gshmem
