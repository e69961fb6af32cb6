// One name for host and device: the RMA and atomic routines of
// <gshmem/update.h> run as device code in kernels and call the host
// implementations below from host code (nvcc's host pass, or any C++
// compiler). Each helper is a host+device template; its device branch is
// the inline device routine, its host branch one call into libgshmem.
//
// Host implementation (host/rma.cpp): peers' heaps are mapped into this
// process, so a host put or get is a cudaMemcpyAsync to or from the peer's
// mapped address on one internal stream per PE (non-blocking with respect to
// the legacy default stream, so a kernel spinning there cannot hold it up),
// and an atomic is a one-thread kernel on that stream whose fetched result is
// copied back. Everything a PE's host threads issue runs on that stream in
// issue order.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/detail/update_amo.h>
#include <gshmem/detail/update_api.h>
#include <gshmem/detail/update_signal.h>
#include <gshmem/detail/update_strided.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Operations of gshmemi_host_amo, on the bit pattern of a 4- or 8-byte object. */
#define GSHMEMI_HOST_AMO_FETCH        0 /* relaxed load */
#define GSHMEMI_HOST_AMO_SET          1 /* relaxed store */
#define GSHMEMI_HOST_AMO_SWAP         2
#define GSHMEMI_HOST_AMO_COMPARE_SWAP 3 /* stores operand if the bits equal cond */
#define GSHMEMI_HOST_AMO_FETCH_ADD    4 /* integer add, modulo 2^(8 size) */
#define GSHMEMI_HOST_AMO_FETCH_AND    5
#define GSHMEMI_HOST_AMO_FETCH_OR     6
#define GSHMEMI_HOST_AMO_FETCH_XOR    7
#define GSHMEMI_HOST_AMO_COUNT        8

GSHMEM_BEGIN_EXTERN_C
/* Host halves of the RMA routines. `routine` names the public routine in
 * error messages. blocking != 0: returns when `source` may be reused (put)
 * or the data is in `dest` (get); 0 (_nbi): enqueues and returns, and the
 * next host gshmem_quiet completes it. Errors (use before init, a
 * non-symmetric remote address, a bad PE, NULL buffers): logged with the
 * routine and PE, recorded for gshmemx_get_last_error(), nothing copied. */
GSHMEM_API void gshmemi_host_putmem(void *dest, const void *source, size_t nbytes, int pe, int blocking,
                                    const char *routine);
GSHMEM_API void gshmemi_host_getmem(void *dest, const void *source, size_t nbytes, int pe, int blocking,
                                    const char *routine);
/* Host halves of the strided routines (iput / iget): element i of
 * `elem_bytes` bytes (1, 2, 4, 8 or 16) goes from source[i * sst] to
 * dest[i * dst], strides in elements. Ordering, blocking and errors as for
 * putmem / getmem; the symmetric side's whole span must lie in the heap. */
GSHMEM_API void gshmemi_host_iputmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem_bytes,
                                     size_t nelems, int pe, int blocking, const char *routine);
GSHMEM_API void gshmemi_host_igetmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem_bytes,
                                     size_t nelems, int pe, int blocking, const char *routine);
/* Host half of the atomics: operation `op` (GSHMEMI_HOST_AMO_*) on the
 * `size`-byte (4 or 8) object `dest` on PE `pe`, operands as bit patterns in
 * the low bytes. fetched != NULL: waits and stores the old value there;
 * NULL: enqueues and returns (completed by gshmem_quiet). Relaxed, atomic
 * with respect to every gshmem atomic on the object from any PE. On error
 * *fetched is 0. */
GSHMEM_API void gshmemi_host_amo(void *dest, size_t size, int op, uint64_t operand, uint64_t cond, int pe,
                                 uint64_t *fetched, const char *routine);
GSHMEM_END_EXTERN_C

#if defined(__cplusplus)
namespace gshmem {
namespace detail {

template <class T>
inline uint64_t host_bits(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "host atomics take 4- or 8-byte objects");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof(T));  // the low bytes on little-endian hosts (x86-64, AArch64)
  return bits;
}

template <class T>
inline T host_amo(int op, const T *dest, T operand, T cond, int pe, bool fetch, const char *routine) {
  uint64_t old = 0;
  gshmemi_host_amo(const_cast<T *>(dest), sizeof(T), op, host_bits(operand), host_bits(cond), pe,
                   fetch ? &old : NULL, routine);
  T out;
  memcpy(&out, &old, sizeof(T));
  return out;
}

// ------------------------------------------------------------------- RMA
// Device: p and g are one relaxed system-scope access, movable (ordering.h,
// compiler order): they promise no order with the caller's other accesses
// until a fence, quiet or barrier, so independent ones may be in flight
// together. put and get: copy_bytes (update_access.h), the same.
#define GSHMEMI_RLX_MOVABLE memory_order::relaxed, thread_scope::system, compiler_order::movable

#if GSHMEM_IN_DEVICE_CODE
// g from a remote peer: the value comes back through this thread's result word.
template <class T>
GSHMEM_DEVICE T remote_value(const T *source, int pe, const char *routine) {
  T value;
  remote_get(&value, source, sizeof(T), pe, routine);
  return value;
}
#endif

template <class T>
GSHMEM_HD void rma_p(T *dest, T value, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  on_peer(dest, pe, routine, [&](T *remote) { store_object<GSHMEMI_RLX_MOVABLE>(remote, value); },
          [&] { remote_put(dest, &value, sizeof(T), pe, false, nullptr, 0, 0, routine); });  // the value travels inline
#else
  gshmemi_host_putmem(dest, &value, sizeof(T), pe, 1, routine);
#endif
}

template <class T>
GSHMEM_HD T rma_g(const T *source, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  return on_peer(source, pe, routine, [](const T *remote) { return load_object<GSHMEMI_RLX_MOVABLE>(remote); },
                 [&] { return remote_value<T>(source, pe, routine); });
#else
  T value;
  memset(&value, 0, sizeof(T));
  gshmemi_host_getmem(&value, source, sizeof(T), pe, 1, routine);
  return value;
#endif
}

// The weak g (gshmemx_TYPENAME_g_weak): a plain load on the device, which
// the L1 may serve and the compiler may merge or hoist like any other; the
// host form is g's. From a remote peer: g's remote form.
template <class T>
GSHMEM_HD T rma_g_weak(const T *source, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  return on_peer(source, pe, routine, [](const T *remote) { return *remote; },
                 [&] { return remote_value<T>(source, pe, routine); });
#else
  return rma_g(source, pe, routine);
#endif
}

GSHMEM_HD void rma_put(void *dest, const void *source, size_t nbytes, int pe, bool blocking, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  // P2P: the stores are issued when the call returns, either way; remote:
  // blocking waits until the proxy carried the put out.
  putmem_group(dest, source, nbytes, pe, group_thread{}, routine, blocking);
#else
  gshmemi_host_putmem(dest, source, nbytes, pe, blocking ? 1 : 0, routine);
#endif
}

GSHMEM_HD void rma_get(void *dest, const void *source, size_t nbytes, int pe, bool blocking, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  (void)blocking;  // the data is in dest when the call returns, either way
  getmem_group(dest, source, nbytes, pe, group_thread{}, routine);
#else
  gshmemi_host_getmem(dest, source, nbytes, pe, blocking ? 1 : 0, routine);
#endif
}

// Strided put and get of elements of Bytes bytes. Device: one thread
// (update_strided.h), each element a relaxed system-scope access, movable
// like put's; the data is issued (iput) or in dest (iget) on return.
template <size_t Bytes>
GSHMEM_HD void rma_iput(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                        const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  iputmem_group<Bytes>(dest, source, dst, sst, nelems, pe, group_thread{}, routine);
#else
  gshmemi_host_iputmem(dest, source, dst, sst, Bytes, nelems, pe, 1, routine);
#endif
}

template <size_t Bytes>
GSHMEM_HD void rma_iget(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                        const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  igetmem_group<Bytes>(dest, source, dst, sst, nelems, pe, group_thread{}, routine);
#else
  gshmemi_host_igetmem(dest, source, dst, sst, Bytes, nelems, pe, 1, routine);
#endif
}

// --------------------------------------------------------------- atomics
// Relaxed at system scope on the device (atom/red/ld/st .relaxed.sys); on
// the host the same instructions, run by the runtime's atomic kernel. The
// accesses that return nothing to act on (fetch's load, set's store and the
// non-fetching red forms) are movable, like p and g; the fetching
// read-modify-writes are pinned (ordering.h).
#define GSHMEMI_RLX memory_order::relaxed, thread_scope::system

template <class T>
GSHMEM_HD T amo_fetch(const T *source, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  return on_peer(source, pe, routine, [](const T *remote) { return load_object<GSHMEMI_RLX_MOVABLE>(remote); },
                 [&] { return remote_amo(const_cast<T *>(source), pe, GSHMEMI_TRANSPORT_AMO_FETCH, T(), T(), true, routine); });
#else
  return host_amo<T>(GSHMEMI_HOST_AMO_FETCH, source, T(), T(), pe, true, routine);
#endif
}

template <class T>
GSHMEM_HD void amo_set(T *dest, T value, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  on_peer(dest, pe, routine, [&](T *remote) { store_object<GSHMEMI_RLX_MOVABLE>(remote, value); },
          [&] { (void)remote_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_SWAP, value, T(), false, routine); });
#else
  (void)host_amo<T>(GSHMEMI_HOST_AMO_SET, dest, value, T(), pe, false, routine);
#endif
}

template <class T>
GSHMEM_HD T amo_swap(T *dest, T value, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  return on_peer(dest, pe, routine, [&](T *remote) { return addr_exchange<GSHMEMI_RLX>(remote, value); },
                 [&] { return remote_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_SWAP, value, T(), true, routine); });
#else
  return host_amo<T>(GSHMEMI_HOST_AMO_SWAP, dest, value, T(), pe, true, routine);
#endif
}

// Stores value if *dest has the bit pattern of cond; returns the old value.
template <class T>
GSHMEM_HD T amo_compare_swap(T *dest, T cond, T value, int pe, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  return on_peer(
      dest, pe, routine,
      [&](T *remote) {
        T expected = cond;
        addr_compare_exchange<GSHMEMI_RLX>(remote, expected, value);
        return expected;
      },
      [&] { return remote_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_CSWAP, value, cond, true, routine); });
#else
  return host_amo<T>(GSHMEMI_HOST_AMO_COMPARE_SWAP, dest, value, cond, pe, true, routine);
#endif
}

// fetch: returns the old value (one atom); otherwise a single `red` on the
// device, and a kernel the host does not wait for.
template <class T>
GSHMEM_HD T amo_add(T *dest, T value, int pe, bool fetch, const char *routine) {
#if GSHMEM_IN_DEVICE_CODE
  return on_peer(
      dest, pe, routine,
      [&](T *remote) {
        if (fetch) return addr_fetch_add<GSHMEMI_RLX>(remote, value);
        addr_add<GSHMEMI_RLX_MOVABLE>(remote, value);
        return T();
      },
      [&] { return remote_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_ADD, value, T(), fetch, routine); });
#else
  return host_amo<T>(GSHMEMI_HOST_AMO_FETCH_ADD, dest, value, T(), pe, fetch, routine);
#endif
}

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_AMO_BITWISE_HELPER(op, OP)                                         \
  template <class T>                                                               \
  GSHMEM_HD T amo_##op(T *dest, T value, int pe, bool fetch, const char *routine) { \
    return on_peer(                                                                \
        dest, pe, routine,                                                         \
        [&](T *remote) {                                                           \
          if (fetch) return addr_fetch_##op<GSHMEMI_RLX>(remote, value);           \
          addr_##op<GSHMEMI_RLX_MOVABLE>(remote, value);                           \
          return T();                                                              \
        },                                                                         \
        [&] { return remote_amo(dest, pe, GSHMEMI_TRANSPORT_AMO_##OP, value, T(), fetch, routine); }); \
  }
#else
#define GSHMEMI_AMO_BITWISE_HELPER(op, OP)                                         \
  template <class T>                                                               \
  GSHMEM_HD T amo_##op(T *dest, T value, int pe, bool fetch, const char *routine) { \
    return host_amo<T>(GSHMEMI_HOST_AMO_FETCH_##OP, dest, value, T(), pe, fetch, routine); \
  }
#endif
GSHMEMI_AMO_BITWISE_HELPER(and, AND)
GSHMEMI_AMO_BITWISE_HELPER(or, OR)
GSHMEMI_AMO_BITWISE_HELPER(xor, XOR)
#undef GSHMEMI_AMO_BITWISE_HELPER
#undef GSHMEMI_RLX
#undef GSHMEMI_RLX_MOVABLE

}  // namespace detail
}  // namespace gshmem
#endif  // __cplusplus
