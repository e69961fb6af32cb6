// Small type utilities shared by the device API headers.
#pragma once

namespace gshmem {
namespace detail {

// Blocks template argument deduction for a parameter, so that
// wait_until(int64_t*, cmp, 5) deduces T from the pointer alone.
template <class T> struct type_identity { using type = T; };
template <class T> using nondeduced_t = typename type_identity<T>::type;

}  // namespace detail
}  // namespace gshmem
