// Cooperative wait/test forms (gshmem extensions): the _all, _any and _some
// routines (and their _vector forms), in their wait_until and test kinds,
// executed by a whole warp or a whole block together. (The scalar wait_until
// and test have no cooperative forms: one thread polls one word.)
//
//   gshmemx_TYPENAME_<routine>_warp   called by all 32 lanes of a converged warp
//   gshmemx_TYPENAME_<routine>_block  called by every thread of the block
//                                     (like __syncthreads: never from divergent code)
//
// Parameters are those of the single-thread routine; every member passes the
// same arguments and every member receives the same result. The elements are
// spread over the members (coalesced: member r loads r, r + size, ...), so a
// block scans thousands of elements in a few memory latencies. _some forms
// write the indices cooperatively: unique, in unspecified order.
//
// ORDERING GUARANTEE: that of <gshmem/sync.h>, for every member. When the
// routine succeeds, every member of the warp/block has acquire ordering at
// system scope on every element reported: the member(s) that read the
// satisfying values perform the acquire (an acquire reload for _any, an
// acquire fence for _all/_some; for the block forms of _all on at most 32
// elements, which warp 0 polls alone, acquire loads), then the group barrier
// (bar.warp.sync / bar.sync / bar.red, which order memory among their
// participants; PTX causality order is transitive) passes it to every other
// member.
//
// Semantics (empty sets, rotation of _any, status masks, diagnostics) are
// those of <gshmem/sync.h>. Only the leader (lane 0 / thread 0) prints a
// diagnostic; the whole group traps.
//
// C++: gshmem::wait_until_all_warp(...), gshmem::test_any_block(...), etc.,
// same parameters as the single-thread templates.
#pragma once

#include <gshmem/sync.h>

#if defined(__CUDACC__)

#define GSHMEMI_SYNC_GROUP_WARP gshmem::detail::warp_group g;
#define GSHMEMI_SYNC_GROUP_BLOCK                    \
  __shared__ gshmem::detail::block_scratch scratch; \
  gshmem::detail::block_group g(&scratch);

namespace gshmem {

#define GSHMEMI_SYNC_CXX_GROUP(SUFFIX, GROUP_DECL)                                                              \
  template <class T>                                                                                            \
  __device__ __forceinline__ void wait_until_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp,   \
                                                         detail::nondeduced_t<T> cmp_value) {                     \
    GROUP_DECL(void) detail::scan_all<true>(g, detail::current_wait_context(), "gshmem::wait_until_all" #SUFFIX, \
                                            ivars, nelems, status, cmp, detail::same_value<T>{cmp_value});      \
  }                                                                                                             \
  template <class T>                                                                                            \
  __device__ __forceinline__ void wait_until_all_vector##SUFFIX(T *ivars, size_t nelems, const int *status,     \
                                                                int cmp, const T *cmp_values) {                 \
    GROUP_DECL(void) detail::scan_all<true>(g, detail::current_wait_context(),                                  \
                                            "gshmem::wait_until_all_vector" #SUFFIX, ivars, nelems, status, cmp, \
                                            detail::per_element_value<T>{cmp_values});                          \
  }                                                                                                             \
  template <class T>                                                                                            \
  __device__ __forceinline__ int test_all##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp,          \
                                                  detail::nondeduced_t<T> cmp_value) {                            \
    GROUP_DECL return detail::scan_all<false>(g, detail::current_wait_context(), "gshmem::test_all" #SUFFIX,    \
                                              ivars, nelems, status, cmp, detail::same_value<T>{cmp_value})     \
        ? 1                                                                                                     \
        : 0;                                                                                                    \
  }                                                                                                             \
  template <class T>                                                                                            \
  __device__ __forceinline__ int test_all_vector##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp,   \
                                                         const T *cmp_values) {                                 \
    GROUP_DECL return detail::scan_all<false>(g, detail::current_wait_context(),                                \
                                              "gshmem::test_all_vector" #SUFFIX, ivars, nelems, status, cmp,    \
                                              detail::per_element_value<T>{cmp_values})                         \
        ? 1                                                                                                     \
        : 0;                                                                                                    \
  }                                                                                                             \
  GSHMEMI_SYNC_CXX_GROUP_ANY_SOME(wait_until, true, SUFFIX, GROUP_DECL)                                         \
  GSHMEMI_SYNC_CXX_GROUP_ANY_SOME(test, false, SUFFIX, GROUP_DECL)

#define GSHMEMI_SYNC_CXX_GROUP_ANY_SOME(KIND, WAIT, SUFFIX, GROUP_DECL)                                           \
  template <class T>                                                                                              \
  __device__ __forceinline__ size_t KIND##_any##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp,       \
                                                       detail::nondeduced_t<T> cmp_value) {                         \
    GROUP_DECL return detail::scan_any<WAIT>(g, detail::current_wait_context(), "gshmem::" #KIND "_any" #SUFFIX,  \
                                             ivars, nelems, status, cmp, detail::same_value<T>{cmp_value});       \
  }                                                                                                               \
  template <class T>                                                                                              \
  __device__ __forceinline__ size_t KIND##_any_vector##SUFFIX(T *ivars, size_t nelems, const int *status, int cmp, \
                                                              const T *cmp_values) {                              \
    GROUP_DECL return detail::scan_any<WAIT>(g, detail::current_wait_context(),                                   \
                                             "gshmem::" #KIND "_any_vector" #SUFFIX, ivars, nelems, status, cmp,  \
                                             detail::per_element_value<T>{cmp_values});                           \
  }                                                                                                               \
  template <class T>                                                                                              \
  __device__ __forceinline__ size_t KIND##_some##SUFFIX(T *ivars, size_t nelems, size_t *indices,                 \
                                                        const int *status, int cmp,                               \
                                                        detail::nondeduced_t<T> cmp_value) {                        \
    GROUP_DECL return detail::scan_some<WAIT>(g, detail::current_wait_context(),                                  \
                                              "gshmem::" #KIND "_some" #SUFFIX, ivars, nelems, indices, status,   \
                                              cmp, detail::same_value<T>{cmp_value});                             \
  }                                                                                                               \
  template <class T>                                                                                              \
  __device__ __forceinline__ size_t KIND##_some_vector##SUFFIX(T *ivars, size_t nelems, size_t *indices,          \
                                                               const int *status, int cmp, const T *cmp_values) { \
    GROUP_DECL return detail::scan_some<WAIT>(g, detail::current_wait_context(),                                  \
                                              "gshmem::" #KIND "_some_vector" #SUFFIX, ivars, nelems, indices,    \
                                              status, cmp, detail::per_element_value<T>{cmp_values});             \
  }

GSHMEMI_SYNC_CXX_GROUP(_warp, GSHMEMI_SYNC_GROUP_WARP)
GSHMEMI_SYNC_CXX_GROUP(_block, GSHMEMI_SYNC_GROUP_BLOCK)

}  // namespace gshmem

// C names: gshmemx_TYPENAME_{wait_until,test}_{all,any,some}[_vector]_{warp,block}.
#define GSHMEMI_SYNC_C_GROUP_API(TYPENAME, TYPE)                                                          \
  GSHMEMI_SYNC_C_ARRAY(gshmemx_, TYPENAME, TYPE, wait_until, true, _warp, GSHMEMI_SYNC_GROUP_WARP, GSHMEMI_SYNC_GROUP_WARP)       \
  GSHMEMI_SYNC_C_ARRAY(gshmemx_, TYPENAME, TYPE, test, false, _warp, GSHMEMI_SYNC_GROUP_WARP, GSHMEMI_SYNC_GROUP_WARP)            \
  GSHMEMI_SYNC_C_ARRAY(gshmemx_, TYPENAME, TYPE, wait_until, true, _block, GSHMEMI_SYNC_GROUP_BLOCK, GSHMEMI_SYNC_GROUP_BLOCK)     \
  GSHMEMI_SYNC_C_ARRAY(gshmemx_, TYPENAME, TYPE, test, false, _block, GSHMEMI_SYNC_GROUP_BLOCK, GSHMEMI_SYNC_GROUP_BLOCK)

GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_SYNC_C_GROUP_API)

#endif  // __CUDACC__
