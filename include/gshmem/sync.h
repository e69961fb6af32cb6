// Point-to-point synchronization: the wait / test / signal_wait_until family.
//
// Two layers, one implementation (include/gshmem/detail/sync_scan.h):
//   * C++ templates in namespace gshmem (host and device):
//       gshmem::wait_until(T *ivar, int cmp, T value), gshmem::test(...),
//       gshmem::wait_until_{all,any,some}[_vector](...), gshmem::test_{all,any,some}[_vector](...),
//       gshmem::wait(T *ivar, T value), gshmem::signal_wait_until(uint64_t *, int, uint64_t).
//   * The OpenSHMEM C names gshmem_TYPENAME_<routine> for every TYPENAME/TYPE of
//     GSHMEM_FOR_EACH_SYNC_TYPE, and gshmem_signal_wait_until: inline __device__
//     functions, visible when the including file is compiled by nvcc. They need
//     no -rdc: call them from any kernel.
//
// ORDERING GUARANTEE (every routine of this header, and the cooperative forms
// in <gshmem/sync_ext.h>):
//   A routine reports an element satisfied only after it has read, from that
//   element, a value that satisfies the comparison; it never reports an update
//   that is not complete. When a wait returns, or a test reports success
//   (nonzero, an index other than SIZE_MAX, a count above zero), the caller
//   has performed an acquire at system scope on every element it reports
//   satisfied: every write that the updating PE or thread made before its
//   release update of that element (a release store, a release or stronger
//   atomic, or a put followed by a fence/quiet) is visible to the caller's
//   later reads. A failed test gives no ordering.
//   How: single-element polls are acquire loads (ld.acquire.sys), with no
//   fence after success; array scans use relaxed loads and order a success by
//   an acquire reload of the reported element (_any) or one acquire fence
//   (_all, _some, after the last load). The block forms of _all on at most
//   32 elements poll with acquire loads instead (one warp; no fence).
//
// Semantics (OpenSHMEM 1.5/1.6):
//   * status may be NULL (all elements included); status[i] != 0 excludes
//     element i.
//   * Empty set (nelems == 0, or every element excluded): wait_until_all
//     returns at once; test_all returns 1 (the OpenSHMEM 1.6 reading: all of
//     no elements are satisfied; NVSHMEM's text says both 0 and 1, we chose
//     1); wait_until_any and test_any return SIZE_MAX; wait_until_some and
//     test_some return 0 and write nothing.
//   * _all: each element is accepted once it has been seen satisfied;
//     elements are accepted in index order.
//   * _any: returns the index of a satisfied element. Each caller (the
//     calling thread, warp or block on the GPU, the thread on the host,
//     the stream for on-stream waits) has its own rotation cursor per array:
//     the scan starts just after the index that caller's previous _any call
//     on that array returned, so a series of calls by one caller returns
//     every element that stays satisfied within nelems calls. Cursors live
//     in a fixed table keyed by (array, caller); a caller whose slot another
//     caller took starts at a pseudo-random index instead, which still
//     returns every element that stays satisfied, with probability 1 over
//     a series of calls. No element starves, however many arrays or callers
//     exist (detail/sync_core.h, "rotation cursor").
//   * _some: waits until at least one element is satisfied, then returns the
//     number of elements found satisfied in that one full pass (every element
//     tested once) and their indices in `indices` (unique, ascending for the
//     single-thread form, unordered for the cooperative forms). `indices`
//     must have room for nelems entries.
//   * _vector: element i is compared with cmp_values[i].
//   * Comparisons are made in TYPE itself: exact at the extremes of signed
//     and unsigned types.
//   * An invalid cmp prints one line (PE, routine, cmp value) and traps. With
//     GSHMEM_WAIT_TIMEOUT=<seconds> set, a wait that lasts longer prints PE,
//     routine, address, expected (cmp and value) and the value last seen, then
//     traps. On the GPU the line is printed by the host: the kernel records the
//     failure in mapped host memory (detail/device_report.h, no printf) and
//     the runtime prints it within 20 ms, at finalize or at exit.
//     On the host the line goes to gshmem::set_sync_diagnostic_handler
//     (see detail/sync_core.h); if no handler is set it goes to stderr, and the
//     process traps unless the handler throws.
//
// Registers: every routine here, inlined into a kernel (also into its
// loop) that declares no __launch_bounds__, leaves the kernel within 64
// registers per thread, so it launches with 1024 threads per block
// (tests/launch checks every form from the compiled binary and launches
// each on a GPU). The one-thread array forms keep 24 registers' worth of
// loads in flight per batch (12 of 8-byte elements, 24 of smaller ones,
// half with per-element values): a pass over n elements costs about
// n / batch load latencies. The one-thread _any forms with one comparison
// value keep 16 loads of 8 bytes in flight (32 of smaller elements), or,
// where the translation unit defines GSHMEM_WAIT_SCAN_LOADS=32 before the
// first gshmem header (or a C++ call names 32), 32 (64): about twice as
// fast on large arrays, for kernels of at most 512 threads per block. For arrays of thousands of elements the warp
// form called by one warp (gshmemx_TYPENAME_wait_until_all_warp, ...)
// scans faster.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/sync_scan.h>
#include <gshmem/types.h>

#include <gshmem/detail/type_traits.h>
#include <stddef.h>
#include <stdint.h>

namespace gshmem {
namespace detail {

// The calling PE and the configured timeout, from the runtime state.
GSHMEM_HD wait_context current_wait_context() {
  const gshmemi_device_state_t &s = gshmemi_state();
  return wait_context{s.my_pe, s.wait_timeout_ns};
}

}  // namespace detail

// ----------------------------------------------------------------- C++ API
// Each function below has the ORDERING GUARANTEE stated at the top of this
// file: on success, an acquire at system scope on the element(s) reported.

// Waits until *ivar <cmp> cmp_value. Acquire on return.
template <class T>
GSHMEM_HD void wait_until(T *ivar, int cmp, detail::nondeduced_t<T> cmp_value) {
  (void)detail::wait_one(detail::current_wait_context(), "gshmem::wait_until", ivar, cmp, cmp_value);
}

// Waits until *ivar != cmp_value. Acquire on return.
template <class T>
GSHMEM_HD void wait(T *ivar, detail::nondeduced_t<T> cmp_value) {
  (void)detail::wait_one(detail::current_wait_context(), "gshmem::wait", ivar, GSHMEM_CMP_NE, cmp_value);
}

// 1 if *ivar <cmp> cmp_value now (acquire), else 0 (no ordering).
template <class T>
GSHMEM_HD int test(T *ivar, int cmp, detail::nondeduced_t<T> cmp_value) {
  return detail::test_one(detail::current_wait_context(), "gshmem::test", ivar, cmp, cmp_value);
}

// Waits until every included element satisfies the comparison. Acquire on all of them.
template <class T>
GSHMEM_HD void wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,
                              detail::nondeduced_t<T> cmp_value) {
  detail::single_group g;
  (void)detail::scan_all<true>(g, detail::current_wait_context(), "gshmem::wait_until_all", ivars, nelems,
                               status, cmp, detail::same_value<T>{cmp_value});
}
template <class T>
GSHMEM_HD void wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) {
  detail::single_group g;
  (void)detail::scan_all<true>(g, detail::current_wait_context(), "gshmem::wait_until_all_vector", ivars,
                               nelems, status, cmp, detail::per_element_value<T>{cmp_values});
}

// Waits until some included element is satisfied; returns its index (SIZE_MAX
// for an empty set). Acquire on that element.
// ScanLoads: the loads of 8 bytes (twice as many of 4 bytes or less) the
// scan keeps in flight, 16 or 32 (default GSHMEM_WAIT_SCAN_LOADS, see
// detail/sync_group.h): 32 scans a large array about twice as fast but
// takes more registers than a 1024-thread block allows (docs/performance.md).
// The same guarantees either way.
template <class T, unsigned ScanLoads = GSHMEM_WAIT_SCAN_LOADS>
GSHMEM_HD size_t wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,
                                detail::nondeduced_t<T> cmp_value) {
  detail::single_group_of<ScanLoads> g;
  return detail::scan_any<true>(g, detail::current_wait_context(), "gshmem::wait_until_any", ivars, nelems,
                                status, cmp, detail::same_value<T>{cmp_value});
}
template <class T>
GSHMEM_HD size_t wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) {
  detail::single_group g;
  return detail::scan_any<true>(g, detail::current_wait_context(), "gshmem::wait_until_any_vector", ivars,
                                nelems, status, cmp, detail::per_element_value<T>{cmp_values});
}

// Waits until at least one included element is satisfied; returns how many
// one pass found satisfied, their indices in `indices` (0 for an empty set).
// Acquire on every element returned.
template <class T>
GSHMEM_HD size_t wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                 detail::nondeduced_t<T> cmp_value) {
  detail::single_group g;
  return detail::scan_some<true>(g, detail::current_wait_context(), "gshmem::wait_until_some", ivars, nelems,
                                 indices, status, cmp, detail::same_value<T>{cmp_value});
}
template <class T>
GSHMEM_HD size_t wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                        const T *cmp_values) {
  detail::single_group g;
  return detail::scan_some<true>(g, detail::current_wait_context(), "gshmem::wait_until_some_vector", ivars,
                                 nelems, indices, status, cmp, detail::per_element_value<T>{cmp_values});
}

// 1 if every included element is satisfied now (1 for an empty set), else 0.
template <class T>
GSHMEM_HD int test_all(T *ivars, size_t nelems, const int *status, int cmp, detail::nondeduced_t<T> cmp_value) {
  detail::single_group g;
  return detail::scan_all<false>(g, detail::current_wait_context(), "gshmem::test_all", ivars, nelems, status,
                                 cmp, detail::same_value<T>{cmp_value})
             ? 1
             : 0;
}
template <class T>
GSHMEM_HD int test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) {
  detail::single_group g;
  return detail::scan_all<false>(g, detail::current_wait_context(), "gshmem::test_all_vector", ivars, nelems,
                                 status, cmp, detail::per_element_value<T>{cmp_values})
             ? 1
             : 0;
}

// The index of a satisfied included element, or SIZE_MAX if none now.
// ScanLoads: as for wait_until_any.
template <class T, unsigned ScanLoads = GSHMEM_WAIT_SCAN_LOADS>
GSHMEM_HD size_t test_any(T *ivars, size_t nelems, const int *status, int cmp, detail::nondeduced_t<T> cmp_value) {
  detail::single_group_of<ScanLoads> g;
  return detail::scan_any<false>(g, detail::current_wait_context(), "gshmem::test_any", ivars, nelems, status,
                                 cmp, detail::same_value<T>{cmp_value});
}
template <class T>
GSHMEM_HD size_t test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) {
  detail::single_group g;
  return detail::scan_any<false>(g, detail::current_wait_context(), "gshmem::test_any_vector", ivars, nelems,
                                 status, cmp, detail::per_element_value<T>{cmp_values});
}

// How many included elements are satisfied now (their indices in `indices`).
template <class T>
GSHMEM_HD size_t test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                           detail::nondeduced_t<T> cmp_value) {
  detail::single_group g;
  return detail::scan_some<false>(g, detail::current_wait_context(), "gshmem::test_some", ivars, nelems,
                                  indices, status, cmp, detail::same_value<T>{cmp_value});
}
template <class T>
GSHMEM_HD size_t test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                  const T *cmp_values) {
  detail::single_group g;
  return detail::scan_some<false>(g, detail::current_wait_context(), "gshmem::test_some_vector", ivars, nelems,
                                  indices, status, cmp, detail::per_element_value<T>{cmp_values});
}

// Waits until *sig_addr <cmp> cmp_value; returns the value that satisfied it.
// Acquire on return.
GSHMEM_HD uint64_t signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return detail::wait_one(detail::current_wait_context(), "gshmem::signal_wait_until", sig_addr, cmp, cmp_value);
}

}  // namespace gshmem

// ------------------------------------------------------------ C-style names
#if defined(__CUDACC__)

#define GSHMEMI_SYNC_C_API(TYPENAME, TYPE)                                                                   \
  static __device__ __forceinline__ void gshmem_##TYPENAME##_wait(TYPE *ivar, TYPE cmp_value) {              \
    (void)gshmem::detail::wait_one(gshmem::detail::current_wait_context(), "gshmem_" #TYPENAME "_wait", ivar, \
                                   GSHMEM_CMP_NE, cmp_value);                                                \
  }                                                                                                          \
  static __device__ __forceinline__ void gshmem_##TYPENAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value) { \
    (void)gshmem::detail::wait_one(gshmem::detail::current_wait_context(),                                   \
                                   "gshmem_" #TYPENAME "_wait_until", ivar, cmp, cmp_value);                 \
  }                                                                                                          \
  static __device__ __forceinline__ int gshmem_##TYPENAME##_test(TYPE *ivar, int cmp, TYPE cmp_value) {       \
    return gshmem::detail::test_one(gshmem::detail::current_wait_context(), "gshmem_" #TYPENAME "_test",     \
                                    ivar, cmp, cmp_value);                                                   \
  }                                                                                                          \
  GSHMEMI_SYNC_C_ARRAY(gshmem_, TYPENAME, TYPE, wait_until, true, , single_group g;, any_scan_group g;)                                   \
  GSHMEMI_SYNC_C_ARRAY(gshmem_, TYPENAME, TYPE, test, false, , single_group g;, any_scan_group g;)

// The six array routines of one KIND (wait_until or test) of one TYPENAME
// for one group: PREFIX is gshmem_ or gshmemx_, SUFFIX empty, _warp or
// _block, GROUP_DECL declares the group `g`, ANY_GROUP_DECL the group of
// the _any routine with one comparison value (one thread: the one of
// GSHMEM_WAIT_SCAN_LOADS; the names are static, so each translation unit
// has its own).
#define GSHMEMI_SYNC_C_ARRAY(PREFIX, TYPENAME, TYPE, KIND, WAIT, SUFFIX, GROUP_DECL, ANY_GROUP_DECL)      \
  static __device__ __forceinline__ GSHMEMI_SYNC_ALL_RET_##KIND PREFIX##TYPENAME##_##KIND##_all##SUFFIX(    \
      TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) {                              \
    using namespace gshmem::detail;                                                                          \
    GROUP_DECL                                                                                               \
    GSHMEMI_SYNC_ALL_RETURN_##KIND scan_all<WAIT>(g, current_wait_context(),                                 \
                                                  #PREFIX #TYPENAME "_" #KIND "_all" #SUFFIX, ivars, nelems, \
                                                  status, cmp, same_value<TYPE>{cmp_value});                 \
  }                                                                                                          \
  static __device__ __forceinline__ GSHMEMI_SYNC_ALL_RET_##KIND                                              \
      PREFIX##TYPENAME##_##KIND##_all_vector##SUFFIX(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                                      const TYPE *cmp_values) {                              \
    using namespace gshmem::detail;                                                                          \
    GROUP_DECL                                                                                               \
    GSHMEMI_SYNC_ALL_RETURN_##KIND scan_all<WAIT>(g, current_wait_context(),                                 \
                                                  #PREFIX #TYPENAME "_" #KIND "_all_vector" #SUFFIX, ivars, \
                                                  nelems, status, cmp, per_element_value<TYPE>{cmp_values}); \
  }                                                                                                          \
  static __device__ __forceinline__ size_t PREFIX##TYPENAME##_##KIND##_any##SUFFIX(                         \
      TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) {                              \
    using namespace gshmem::detail;                                                                          \
    ANY_GROUP_DECL                                                                                           \
    return scan_any<WAIT>(g, current_wait_context(), #PREFIX #TYPENAME "_" #KIND "_any" #SUFFIX, ivars,    \
                          nelems, status, cmp, same_value<TYPE>{cmp_value});                                 \
  }                                                                                                          \
  static __device__ __forceinline__ size_t PREFIX##TYPENAME##_##KIND##_any_vector##SUFFIX(                  \
      TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values) {                      \
    using namespace gshmem::detail;                                                                          \
    GROUP_DECL                                                                                               \
    return scan_any<WAIT>(g, current_wait_context(), #PREFIX #TYPENAME "_" #KIND "_any_vector" #SUFFIX,    \
                          ivars, nelems, status, cmp, per_element_value<TYPE>{cmp_values});                  \
  }                                                                                                          \
  static __device__ __forceinline__ size_t PREFIX##TYPENAME##_##KIND##_some##SUFFIX(                        \
      TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, TYPE cmp_value) {             \
    using namespace gshmem::detail;                                                                          \
    GROUP_DECL                                                                                               \
    return scan_some<WAIT>(g, current_wait_context(), #PREFIX #TYPENAME "_" #KIND "_some" #SUFFIX, ivars,  \
                           nelems, indices, status, cmp, same_value<TYPE>{cmp_value});                       \
  }                                                                                                          \
  static __device__ __forceinline__ size_t PREFIX##TYPENAME##_##KIND##_some_vector##SUFFIX(                 \
      TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const TYPE *cmp_values) {     \
    using namespace gshmem::detail;                                                                          \
    GROUP_DECL                                                                                               \
    return scan_some<WAIT>(g, current_wait_context(), #PREFIX #TYPENAME "_" #KIND "_some_vector" #SUFFIX,  \
                           ivars, nelems, indices, status, cmp, per_element_value<TYPE>{cmp_values});        \
  }

// wait_until_all returns void; test_all returns int.
#define GSHMEMI_SYNC_ALL_RET_wait_until void
#define GSHMEMI_SYNC_ALL_RET_test int
#define GSHMEMI_SYNC_ALL_RETURN_wait_until (void)
#define GSHMEMI_SYNC_ALL_RETURN_test return (int)

GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_SYNC_C_API)

// Waits until *sig_addr <cmp> cmp_value; returns the satisfying value. Acquire on return.
static __device__ __forceinline__ uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp,
                                                                    uint64_t cmp_value) {
  return gshmem::detail::wait_one(gshmem::detail::current_wait_context(), "gshmem_signal_wait_until", sig_addr,
                                  cmp, cmp_value);
}

#endif  // __CUDACC__
