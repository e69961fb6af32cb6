// Helpers shared by the CPU conformance suite of the wait/test families.
//
// The suite runs the very algorithms the GPU runs (include/gshmem/detail/
// sync_*.h) with host threads playing the remote PEs. Values are drawn from
// a sorted set of distinct values of each type that includes its extremes;
// the expected outcome of a comparison is computed on the positions in that
// set, never by converting values to a wider type.
#pragma once

#include <gshmem/sync.h>
#include <gshmem/types.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "catch.hpp"

namespace sync_test {

// ---- the type list, generated from the one type table
template <class Tuple>
struct drop_first;
template <class First, class... Rest>
struct drop_first<std::tuple<First, Rest...>> {
  using type = std::tuple<Rest...>;
};
#define SYNC_TEST_COMMA_TYPE(TYPENAME, TYPE) , TYPE
using sync_types = typename drop_first<std::tuple<void GSHMEM_FOR_EACH_SYNC_TYPE(SYNC_TEST_COMMA_TYPE)>>::type;
#undef SYNC_TEST_COMMA_TYPE

constexpr int kAllCmps[] = {GSHMEM_CMP_EQ, GSHMEM_CMP_NE, GSHMEM_CMP_GT,
                            GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE};

// Distinct values of T in ascending order, extremes included.
template <class T>
std::vector<T> ladder() {
  using L = std::numeric_limits<T>;
  if (L::is_signed)
    return {L::min(), (T)(L::min() + 1), (T)-1, (T)0, (T)1, (T)(L::max() - 1), L::max()};
  return {(T)0, (T)1, (T)2, (T)(L::max() / 2), (T)(L::max() - 1), L::max()};
}

// The reference comparison on ladder positions.
inline bool cmp_positions(int cmp, int a, int b) {
  switch (cmp) {
    case GSHMEM_CMP_EQ: return a == b;
    case GSHMEM_CMP_NE: return a != b;
    case GSHMEM_CMP_GT: return a > b;
    case GSHMEM_CMP_GE: return a >= b;
    case GSHMEM_CMP_LT: return a < b;
    default: return a <= b;
  }
}

// A position whose value satisfies (or, with want=false, fails) cmp against
// position q; q must be an inner position so that both exist.
inline int pick_position(int cmp, int q, bool want, int salt, int levels) {
  for (int k = 0; k < levels; ++k) {
    int p = (salt + k) % levels;
    if (cmp_positions(cmp, p, q) == want) return p;
  }
  FAIL("no ladder position satisfies the request");
  return 0;
}

// ---- diagnostics: the host hook throws so that tests can observe it
struct sync_failure_seen : std::runtime_error {
  gshmem::sync_diagnostic diag;
  explicit sync_failure_seen(const gshmem::sync_diagnostic &d) : std::runtime_error(d.line), diag(d) {}
};
inline void throwing_handler(const gshmem::sync_diagnostic &d) { throw sync_failure_seen(d); }

struct throwing_handler_scope {
  gshmem::sync_diagnostic_handler previous;
  throwing_handler_scope() : previous(gshmem::set_sync_diagnostic_handler(&throwing_handler)) {}
  ~throwing_handler_scope() { gshmem::set_sync_diagnostic_handler(previous); }
};

// ---- the "remote PE": stores with release, as a peer's put + fence would
template <class T>
void release_store(T *p, T v) {
  gshmem::detail::atomic_store<gshmem::memory_order::release, gshmem::thread_scope::system>(p, v);
}
template <class T>
void relaxed_store(T *p, T v) {
  gshmem::detail::atomic_store<gshmem::memory_order::relaxed, gshmem::thread_scope::system>(p, v);
}

inline void pause_briefly() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

// One array case: values by ladder position, optional status mask, scalar or
// per-element comparison values, and the reference outcome.
template <class T>
struct array_case {
  std::vector<T> ivars;
  std::vector<int> status;       // empty: pass NULL
  std::vector<T> cmp_values;     // empty: scalar case
  T cmp_value{};
  std::vector<bool> satisfied;   // reference: included and satisfied
  std::vector<bool> included;

  const int *status_ptr() const { return status.empty() ? nullptr : status.data(); }
  size_t count_satisfied() const {
    size_t c = 0;
    for (bool s : satisfied) c += s;
    return c;
  }
  size_t count_included() const {
    size_t c = 0;
    for (bool s : included) c += s;
    return c;
  }
  bool all_satisfied() const { return count_satisfied() == count_included(); }
};

// n elements; element i at position (i*5+salt) % levels; comparison value
// at position q (or q_i = (i*3+salt) % levels for vectors); every third
// element excluded when masked.
template <class T>
array_case<T> make_case(size_t n, int cmp, bool masked, bool vector, int salt) {
  const std::vector<T> lad = ladder<T>();
  const int levels = (int)lad.size();
  array_case<T> c;
  const int q = levels / 2;
  c.cmp_value = lad[q];
  for (size_t i = 0; i < n; ++i) {
    int p = (int)((i * 5 + (size_t)salt) % (size_t)levels);
    int qi = vector ? (int)((i * 3 + (size_t)salt) % (size_t)levels) : q;
    c.ivars.push_back(lad[p]);
    if (vector) c.cmp_values.push_back(lad[qi]);
    bool inc = !(masked && i % 3 == 1);
    if (masked) c.status.push_back(inc ? 0 : 7);
    c.included.push_back(inc);
    c.satisfied.push_back(inc && cmp_positions(cmp, p, qi));
  }
  return c;
}

}  // namespace sync_test
