// Argument checks of the host RMA and atomic routines, as pure functions
// (the CPU tests call them with a made-up heap range). Each returns a
// Verdict naming the problem; host/rma.cpp adds the routine and the PE.
#pragma once

#include <gshmem/detail/update_host.h>
#include <gshmem/runtime.h>

#include <cstddef>

#include "stream_validate.h"

namespace gshmemi {
namespace rma {

using stream::fail;
using stream::HeapRange;
using stream::Verdict;

// The remote side: `bytes` bytes at `p` inside this PE's user heap (their
// copy on the target PE is what moves), aligned to `alignment`. NULL only
// with bytes == 0.
inline Verdict check_remote(const void *p, std::size_t bytes, std::size_t alignment, HeapRange heap,
                            const char *which) {
  const bool is_dest = which[0] == 'd';
  return stream::check_symmetric_array(
      p, bytes, 1, alignment, heap, is_dest ? "dest is NULL" : "source is NULL",
      is_dest ? "dest is not a symmetric address: [dest, dest + size) is not inside the symmetric heap "
                "(use gshmem_malloc memory or a registered buffer)"
              : "source is not a symmetric address: [source, source + size) is not inside the symmetric heap "
                "(use gshmem_malloc memory or a registered buffer)",
      is_dest ? "dest is not aligned to its type's size" : "source is not aligned to its type's size");
}

// The local side: any host or device memory; NULL only with bytes == 0.
inline Verdict check_local(const void *p, std::size_t bytes, const char *which) {
  if (bytes == 0 || p != nullptr) return Verdict{};
  return fail(GSHMEMX_ERROR_INVALID_VALUE,
              which[0] == 'd' ? "dest is NULL with a non-zero size" : "source is NULL with a non-zero size");
}

// The symmetric side of a strided routine (iput's dest, iget's source):
// every element's bytes, the span gshmem::detail::strided_span gives (it may
// start below p with a negative stride), inside this PE's user heap, and p
// aligned to the element's access unit (min(elem_bytes, 8)). NULL only with
// nelems == 0.
inline Verdict check_remote_strided(const void *p, std::ptrdiff_t stride, std::size_t elem_bytes,
                                    std::size_t nelems, HeapRange heap, const char *which) {
  if (nelems == 0) return Verdict{};
  const bool is_dest = which[0] == 'd';
  if (p == nullptr)
    return fail(GSHMEMX_ERROR_INVALID_VALUE, is_dest ? "dest is NULL with nelems > 0" : "source is NULL with nelems > 0");
  long long lowest = 0;
  unsigned long long length = 0;
  if (!gshmem::detail::strided_span(nelems, stride, elem_bytes, &lowest, &length))
    return fail(GSHMEMX_ERROR_INVALID_VALUE, "(nelems - 1) * stride * element size overflows");
  const std::size_t unit = elem_bytes > 8 ? 8 : elem_bytes;
  if (reinterpret_cast<std::uintptr_t>(p) % unit != 0)
    return fail(GSHMEMX_ERROR_MISALIGNED,
                is_dest ? "dest is not aligned to its element's size" : "source is not aligned to its element's size");
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) + (std::intptr_t)lowest;
  if (lowest < 0 && first > reinterpret_cast<std::uintptr_t>(p))
    return fail(GSHMEMX_ERROR_NOT_SYMMETRIC, is_dest ? "dest's strided span is not inside the symmetric heap"
                                                     : "source's strided span is not inside the symmetric heap");
  return check_remote(reinterpret_cast<const void *>(first), (std::size_t)length, 1, heap, which);
}

inline Verdict check_amo(int op, std::size_t size) {
  if (op < 0 || op >= GSHMEMI_HOST_AMO_COUNT) return fail(GSHMEMX_ERROR_INVALID_VALUE, "unknown atomic operation");
  if (size != 4 && size != 8) return fail(GSHMEMX_ERROR_INVALID_VALUE, "atomics take 4- or 8-byte objects");
  return Verdict{};
}

}  // namespace rma
}  // namespace gshmemi
