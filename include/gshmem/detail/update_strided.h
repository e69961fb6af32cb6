// Strided RMA (iput / iget, OpenSHMEM's shmem_TYPENAME_iput): the element
// arithmetic as host+device templates (the CPU tests run them on host
// memory with explicit ranks), and the device routines over a thread group.
//
// Element i of a strided copy goes from source[i * sst] to dest[i * dst]
// (strides in elements, not bytes; either may be zero or negative, as
// ptrdiff_t allows), i in [0, nelems). nelems == 0 copies nothing and reads
// neither address. An element of E bytes (1, 2, 4, 8 or 16) moves as
// E / U units of U = min(E, 8) bytes, so both addresses must be aligned to
// U; a 16-byte element is two 8-byte accesses (each single-copy atomic, the
// element as a whole not), as the 16-byte units of a contiguous copy are.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/remote.h>
#include <gshmem/detail/update_access.h>

#include <stddef.h>
#include <stdint.h>

namespace gshmem {
namespace detail {

// The unit an element of Bytes bytes moves in, and how many per element.
template <size_t Bytes> struct strided_unit {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16,
                "strided copies take elements of 1, 2, 4, 8 or 16 bytes");
  using type = typename uint_of_size<(Bytes > 8 ? 8 : Bytes)>::type;
  static constexpr size_t per_element = Bytes > 8 ? Bytes / 8 : 1;
};

// The bytes a strided array spans: the lowest byte offset from its base
// that element 0..nelems-1 touches (0, or negative with a negative stride)
// and the length of [lowest, highest element's end). Returns false when the
// span does not fit in the address space (the caller reports the call as
// invalid); nelems == 0 spans nothing.
GSHMEM_HD bool strided_span(size_t nelems, ptrdiff_t stride, size_t elem_bytes, long long* lowest,
                            unsigned long long* length) {
  *lowest = 0;
  *length = 0;
  if (nelems == 0) return true;
  const unsigned long long magnitude =
      stride < 0 ? 0ull - (unsigned long long)stride : (unsigned long long)stride;
  const unsigned long long last = (unsigned long long)(nelems - 1);
  // (nelems - 1) * |stride| * elem_bytes + elem_bytes must stay below 2^63.
  const unsigned long long limit = 1ull << 62;
  if (magnitude != 0 && last > limit / magnitude) return false;
  const unsigned long long steps = last * magnitude;
  if (steps > limit / elem_bytes) return false;
  const unsigned long long reach = steps * elem_bytes;
  *length = reach + elem_bytes;
  *lowest = stride < 0 ? -(long long)reach : 0;
  return true;
}

// Copies element i = rank, rank + size, ... of a strided copy from src to
// dst: StrongDst / StrongSrc as in copy_bytes (the peer's side relaxed at
// system scope, the local side plain). No synchronization of the group.
template <bool StrongDst, bool StrongSrc, size_t Bytes>
GSHMEM_HD void strided_copy(void* dst_v, const void* src_v, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                            size_t nelems, size_t rank, size_t size) {
  using U = typename strided_unit<Bytes>::type;
  constexpr size_t K = strided_unit<Bytes>::per_element;
  U* dst = static_cast<U*>(dst_v);
  const U* src = static_cast<const U*>(src_v);
  GSHMEMI_COPY_NO_UNROLL
  for (size_t i = rank; i < nelems; i += size) {
    U* d = dst + (ptrdiff_t)i * dst_stride * (ptrdiff_t)K;
    const U* s = src + (ptrdiff_t)i * src_stride * (ptrdiff_t)K;
    if constexpr (K == 1) {
      copy_store<StrongDst, StrongSrc>(d, copy_load<StrongDst, StrongSrc>(s));
    } else {
      U v[K];
      for (size_t k = 0; k < K; ++k) v[k] = copy_load<StrongDst, StrongSrc>(s + k);
      for (size_t k = 0; k < K; ++k) copy_store<StrongDst, StrongSrc>(d + k, v[k]);
    }
  }
}

#if defined(__CUDACC__)
// iput over a group: rank r of g copies elements r, r + size, ... to the
// peer, then the group synchronizes. P2P: relaxed system-scope stores
// through the peer's mapped heap. Remote peer (docs/remote.md): each rank
// sends its elements as p does, one inline request of up to 8 bytes per
// unit (correct, one request per unit: slow), so the source may be reused
// on return.
template <size_t Bytes, class Group>
GSHMEM_DEVICE void iputmem_group(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                 int pe, const Group& g, const char* routine) {
  if (nelems == 0) return;
  on_peer(
      dest, pe, routine,
      [&](void* mapped) {
        strided_copy<true, false, Bytes>(mapped, source, dst, sst, nelems, g.rank(), g.size());
        g.sync();
      },
      [&] {
        using U = typename strided_unit<Bytes>::type;
        constexpr size_t K = strided_unit<Bytes>::per_element;
        for (size_t i = g.rank(); i < nelems; i += g.size()) {
          U* d = static_cast<U*>(dest) + (ptrdiff_t)i * dst * (ptrdiff_t)K;
          const U* s = static_cast<const U*>(source) + (ptrdiff_t)i * sst * (ptrdiff_t)K;
          for (size_t k = 0; k < K; ++k) {
            const U v = s[k];  // travels inline
            remote_put(d + k, &v, sizeof(U), pe, false, nullptr, 0, 0, routine);
          }
        }
        g.sync();
      });
}

// iget over a group: rank r of g copies elements r, r + size, ... from the
// peer, then the group synchronizes (every element in dest for every rank).
// P2P: relaxed system-scope loads; remote peer: one get per element, each
// waiting for its data.
template <size_t Bytes, class Group>
GSHMEM_DEVICE void igetmem_group(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                 int pe, const Group& g, const char* routine) {
  if (nelems == 0) return;
  on_peer(
      source, pe, routine,
      [&](const void* mapped) {
        strided_copy<false, true, Bytes>(dest, mapped, dst, sst, nelems, g.rank(), g.size());
        g.sync();
      },
      [&] {
        for (size_t i = g.rank(); i < nelems; i += g.size())
          remote_get(static_cast<char*>(dest) + (ptrdiff_t)i * dst * (ptrdiff_t)Bytes,
                     static_cast<const char*>(source) + (ptrdiff_t)i * sst * (ptrdiff_t)Bytes, Bytes, pe, routine);
        g.sync();
      });
}
#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
