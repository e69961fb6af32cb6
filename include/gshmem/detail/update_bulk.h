// Bulk atomics: one atomic per element over many elements of a symmetric
// array at one PE, shared out over the ranks of a group (thread, warp,
// block). The per-element rules (mask, bounds, which result comes back) are
// here in host+device code; the CPU tests run bulk_apply itself with host
// memory and explicit ranks.
//
// Rules, element i of n:
//   - mask != NULL and mask[i] == false: masked off;
//   - the target index is index.indices[i], or, when index.indices is NULL,
//     index.base + i * index.stride (exact arithmetic: a value outside
//     [0, dest_nelems), including one that leaves the 64-bit range, is out of
//     bounds; it never wraps onto a valid element);
//   - unless GSHMEMX_BULK_NO_BOUNDS_CHECK is in flags, a target outside
//     [0, dest_nelems) is out of bounds;
//   - an element that is masked off or out of bounds is skipped: nothing is
//     read or written at the target; its result (fetched[i]) is conds[i] for
//     compare-and-swap (so "result == expected" reads as "did not conflict")
//     and unspecified for the other operations (this implementation leaves
//     fetched[i] unwritten);
//   - otherwise fetched[i] (when fetched != NULL) receives the element's old
//     value. Each element's update is atomic; the whole is not, and the order
//     among elements is unspecified. Several elements naming one target are
//     each applied (atomically, in some order).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/update_access.h>

#include <stddef.h>

/* Flags of the bulk atomics. */
#define GSHMEMX_BULK_NO_BOUNDS_CHECK 1u /* caller guarantees every target is in range */

/* Where element i of a bulk atomic goes: dest[indices[i]], or, with
 * indices == NULL, dest[base + i * stride]. */
typedef struct gshmemx_bulk_index {
  const size_t *indices;
  size_t base;
  ptrdiff_t stride;
} gshmemx_bulk_index_t;

namespace gshmem {
namespace detail {

enum class bulk_verdict : int { apply, masked, out_of_bounds };

// The fate of element i, and (for apply) its target index.
GSHMEM_HD bulk_verdict bulk_element(size_t i, const gshmemx_bulk_index_t& index, const bool* mask,
                                    size_t dest_nelems, unsigned flags, size_t* target) {
  if (mask != nullptr && !mask[i]) return bulk_verdict::masked;
  const bool check = (flags & GSHMEMX_BULK_NO_BOUNDS_CHECK) == 0;
  if (index.indices != nullptr) {
    size_t t = index.indices[i];
    if (check && t >= dest_nelems) return bulk_verdict::out_of_bounds;
    *target = t;
    return bulk_verdict::apply;
  }
  // base + i * stride in unsigned 64-bit arithmetic (defined wrap-around, no
  // signed overflow); with the bounds check, a product or sum that leaves
  // the 64-bit range is out of bounds, never a wrapped index.
  const unsigned long long magnitude = index.stride < 0 ? 0ull - (unsigned long long)index.stride
                                                        : (unsigned long long)index.stride;
  const unsigned long long base = index.base;
  if (!check) {
    const unsigned long long step = (unsigned long long)i * magnitude;
    *target = (size_t)(index.stride < 0 ? base - step : base + step);
    return bulk_verdict::apply;
  }
#if GSHMEM_IN_DEVICE_CODE
  if (__umul64hi((unsigned long long)i, magnitude) != 0) return bulk_verdict::out_of_bounds;
#else
  if ((unsigned __int128)i * magnitude > (unsigned __int128)~0ull) return bulk_verdict::out_of_bounds;
#endif
  const unsigned long long step = (unsigned long long)i * magnitude;
  unsigned long long t;
  if (index.stride < 0) {
    if (step > base) return bulk_verdict::out_of_bounds;  // below element 0
    t = base - step;
  } else {
    t = base + step;
    if (t < base) return bulk_verdict::out_of_bounds;  // past 2^64
  }
  if (t >= (unsigned long long)dest_nelems) return bulk_verdict::out_of_bounds;
  *target = (size_t)t;
  return bulk_verdict::apply;
}

// Applies `op(element_address, i) -> old` to every element the rules admit,
// rank r of g taking elements r, r + size, ... Ends with g.sync(), so the
// results are visible to the whole group on return. skip_result: the result
// for a skipped element (conds for CAS), or NULL to leave it unwritten.
template <class T, class Op, class Group>
GSHMEM_HD void bulk_apply(T* dest, size_t dest_nelems, const gshmemx_bulk_index_t& index, const bool* mask,
                          size_t n, unsigned flags, T* fetched, const T* skip_result, Op op, const Group& g) {
  for (size_t i = g.rank(); i < n; i += g.size()) {
    size_t target = 0;
    if (bulk_element(i, index, mask, dest_nelems, flags, &target) == bulk_verdict::apply) {
      T old = op(dest + target, i);
      if (fetched != nullptr) fetched[i] = old;
    } else if (fetched != nullptr && skip_result != nullptr) {
      fetched[i] = skip_result[i];
    }
  }
  g.sync();
}

#if defined(__CUDACC__)
// A bulk atomic on PE `pe`: bulk_apply over the P2P address of `dest` with
// p2p_op, or, for a remote peer, over `dest` itself with remote_op (one
// request per element, which translates the symmetric address itself).
template <class T, class P2POp, class RemoteOp, class Group>
GSHMEM_DEVICE void bulk_on_peer(T* dest, size_t dest_nelems, const gshmemx_bulk_index_t& index, const bool* mask,
                                size_t n, unsigned flags, T* fetched, const T* skip_result, int pe,
                                const char* routine, P2POp p2p_op, RemoteOp remote_op, const Group& g) {
  on_peer(
      dest, pe, routine,
      [&](T* mapped) { bulk_apply(mapped, dest_nelems, index, mask, n, flags, fetched, skip_result, p2p_op, g); },
      [&] { bulk_apply(dest, dest_nelems, index, mask, n, flags, fetched, skip_result, remote_op, g); });
}
#endif

}  // namespace detail
}  // namespace gshmem
