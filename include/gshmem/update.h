// Remote updates, the OpenSHMEM names: RMA (p, g, put, get), atomics,
// signals, fence, quiet and the barrier. Part of <gshmem/gshmem.h>;
// extensions (gshmemx_) are in <gshmem/update_ext.h>.
//
// Every device routine is inline here, so a kernel in any .cu file calls it
// without -rdc. A peer is reached by plain loads, stores and atomics through
// its mapped heap (NVLink P2P); `dest`/`source`/`sig_addr` naming the remote
// side are symmetric addresses (as returned by gshmem_malloc on this PE).
//
// ORDERING, as OpenSHMEM states it: RMA and atomics are unordered with respect
// to each other, even to the same PE, except through gshmem_fence (orders
// this thread's earlier puts, AMOs and signals to each PE before its later
// ones to that PE), gshmem_quiet (completes them: visible to every PE and the
// host before anything the thread does next) and put_signal (the data before
// the signal). Blocking routines return when the local buffers may be reused
// (here, when the stores are issued); _nbi forms promise less and are the
// same code here. fence and quiet order the calling thread's operations; the
// warp/block forms end with a warp/block synchronization, so a fence or quiet
// by any thread of the group after the call covers the whole group's stores.
// The PTX behind each routine is listed in <gshmem/detail/update_signal.h>.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/runtime.h>
#include <gshmem/types.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/detail/update_amo.h>
#include <gshmem/detail/update_api.h>
#include <gshmem/detail/update_signal.h>
#include <gshmem/detail/update_host.h>

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------- RMA
 * Host and device: the same name runs as device code in kernels and as a
 * host routine in host code (<gshmem/detail/update_host.h>).
 *
 * Device:
 * gshmem_TYPENAME_p(dest, value, pe): one relaxed system-scope store
 *   (st.relaxed.sys) of value into dest on PE pe. No ordering.
 * gshmem_TYPENAME_g(source, pe): one relaxed system-scope load. No ordering.
 * gshmem_TYPENAME_put[_nbi](dest, source, nelems, pe): copies nelems elements
 *   from local `source` to `dest` on PE pe with relaxed system-scope stores,
 *   16 bytes wide where the alignment allows. No ordering among elements.
 * gshmem_TYPENAME_get[_nbi](dest, source, nelems, pe): copies from `source` on
 *   PE pe into local `dest` (relaxed system-scope loads). Data is in `dest`
 *   when the call returns (also for _nbi).
 *
 * Host (source/dest on this side: host memory or this PE's device memory):
 * p, put, putmem return when the data has arrived at PE pe (the copy on the
 *   runtime's stream is complete), so `source` may be reused at once.
 * g, get, getmem return with the data in `dest`.
 * put_nbi, putmem_nbi, get_nbi, getmem_nbi enqueue the copy and return;
 *   `source` must stay unchanged and `dest` unread until the next host
 *   gshmem_quiet, which completes every host RMA and atomic the PE issued.
 * A PE's host RMA and atomics (all its host threads) run one after another
 *   in issue order on one stream, so host gshmem_fence needs to add nothing.
 *   None waits for the PE's kernels, and no kernel waits for them: a kernel
 *   that polls for a host put's data sees it arrive. Errors (use before
 *   init, an address outside the symmetric heap, a bad or unreachable PE,
 *   NULL buffers) are logged naming the routine and the PE, recorded for
 *   gshmemx_get_last_error(), and copy nothing. */
#define GSHMEMI_DEFINE_RMA(NAME, TYPE)                                                             \
  GSHMEM_HD void gshmem_##NAME##_p(TYPE *dest, TYPE value, int pe) {                               \
    gshmem::detail::rma_p(dest, value, pe, "gshmem_" #NAME "_p");                                  \
  }                                                                                                \
  GSHMEM_HD TYPE gshmem_##NAME##_g(const TYPE *source, int pe) {                                   \
    return gshmem::detail::rma_g(source, pe, "gshmem_" #NAME "_g");                                \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe) {      \
    gshmem::detail::rma_put(dest, source, nelems * sizeof(TYPE), pe, true, "gshmem_" #NAME "_put"); \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) {  \
    gshmem::detail::rma_put(dest, source, nelems * sizeof(TYPE), pe, false, "gshmem_" #NAME "_put_nbi"); \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe) {      \
    gshmem::detail::rma_get(dest, source, nelems * sizeof(TYPE), pe, true, "gshmem_" #NAME "_get"); \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) {  \
    gshmem::detail::rma_get(dest, source, nelems * sizeof(TYPE), pe, false, "gshmem_" #NAME "_get_nbi"); \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_RMA)
#undef GSHMEMI_DEFINE_RMA

/* Extension, host and device (device semantics; on the host it is g):
 * gshmemx_TYPENAME_g_weak(source, pe): a plain (weak) load of `source` on PE
 *   pe, as NVSHMEM's g is over NVLink. The L1 may serve it, so reading an
 *   unchanged remote word again costs an L1 hit instead of an NVLink round
 *   trip, and the compiler may merge or hoist repeated reads. Correct where
 *   the program is free of data races: the value read is the one written
 *   before a synchronization this thread observed with an acquire (a wait,
 *   test, barrier, or an acquire fence), which also drops stale L1 lines.
 *   Not for polling a word another PE is changing (a loop may never see the
 *   change): use wait_until, or gshmem_TYPENAME_g, one relaxed system-scope
 *   load on every call. No ordering. nvshmem_TYPENAME_g of
 *   <gshmem/compat/nvshmem.h> is this form, as NVSHMEM's is. */
#define GSHMEMI_DEFINE_WEAK_G(NAME, TYPE)                                                          \
  GSHMEM_HD TYPE gshmemx_##NAME##_g_weak(const TYPE *source, int pe) {                             \
    return gshmem::detail::rma_g_weak(source, pe, "gshmemx_" #NAME "_g_weak");                    \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_WEAK_G)
#undef GSHMEMI_DEFINE_WEAK_G

/* Byte forms of put/get; ordering as the typed forms, host and device. */
GSHMEM_HD void gshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  gshmem::detail::rma_put(dest, source, nbytes, pe, true, "gshmem_putmem");
}
GSHMEM_HD void gshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  gshmem::detail::rma_put(dest, source, nbytes, pe, false, "gshmem_putmem_nbi");
}
GSHMEM_HD void gshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  gshmem::detail::rma_get(dest, source, nbytes, pe, true, "gshmem_getmem");
}
GSHMEM_HD void gshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  gshmem::detail::rma_get(dest, source, nbytes, pe, false, "gshmem_getmem_nbi");
}

/* Sized forms (OpenSHMEM's shmem_putSIZE / getSIZE): nelems elements of
 * SIZE bits, SIZE in GSHMEM_FOR_EACH_RMA_SIZE (8, 16, 32, 64, 128). The
 * byte forms above with nelems * SIZE / 8 bytes: the same copy, ordering,
 * host behaviour and errors; no alignment is required. Host and device. */
#define GSHMEMI_DEFINE_SIZED_RMA(SIZE, BYTES)                                                      \
  GSHMEM_HD void gshmem_put##SIZE(void *dest, const void *source, size_t nelems, int pe) {         \
    gshmem::detail::rma_put(dest, source, nelems * BYTES, pe, true, "gshmem_put" #SIZE);          \
  }                                                                                                \
  GSHMEM_HD void gshmem_put##SIZE##_nbi(void *dest, const void *source, size_t nelems, int pe) {   \
    gshmem::detail::rma_put(dest, source, nelems * BYTES, pe, false, "gshmem_put" #SIZE "_nbi");  \
  }                                                                                                \
  GSHMEM_HD void gshmem_get##SIZE(void *dest, const void *source, size_t nelems, int pe) {         \
    gshmem::detail::rma_get(dest, source, nelems * BYTES, pe, true, "gshmem_get" #SIZE);          \
  }                                                                                                \
  GSHMEM_HD void gshmem_get##SIZE##_nbi(void *dest, const void *source, size_t nelems, int pe) {   \
    gshmem::detail::rma_get(dest, source, nelems * BYTES, pe, false, "gshmem_get" #SIZE "_nbi");  \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DEFINE_SIZED_RMA)
#undef GSHMEMI_DEFINE_SIZED_RMA

/* Strided forms (OpenSHMEM's shmem_TYPENAME_iput / iget, shmem_iputSIZE /
 * igetSIZE): element i goes from source[i * sst] to dest[i * dst], i in
 * [0, nelems); the strides count elements (TYPE, or SIZE bits) and may be
 * zero or negative; nelems == 0 is a no-op. `dest` (iput) or `source`
 * (iget) is symmetric, the other side local. Blocking, as put and get:
 * iput returns when `source` may be reused, iget with the data in `dest`.
 * No ordering among elements nor with other RMA (as put / get).
 * Device (detail/update_strided.h): a P2P peer is written or read through
 *   its mapped heap, one relaxed system-scope access per element (two 8-byte
 *   ones for 128-bit elements; addresses aligned to min(element, 8) bytes);
 *   a remote peer (docs/remote.md) element by element through the proxy,
 *   as p and g (correct, one request per element).
 * Host: one strided copy (cudaMemcpy2DAsync) on the runtime's host RMA
 *   stream for positive strides, else one copy per element; a remote peer
 *   one request per element. The symmetric side's whole span must lie in
 *   the symmetric heap; errors as for put / get. */
#define GSHMEMI_DEFINE_STRIDED_RMA(NAME, TYPE)                                                     \
  GSHMEM_HD void gshmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t nelems, int pe) {                                     \
    gshmem::detail::rma_iput<sizeof(TYPE)>(dest, source, dst, sst, nelems, pe, "gshmem_" #NAME "_iput"); \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t nelems, int pe) {                                     \
    gshmem::detail::rma_iget<sizeof(TYPE)>(dest, source, dst, sst, nelems, pe, "gshmem_" #NAME "_iget"); \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_STRIDED_RMA)
#undef GSHMEMI_DEFINE_STRIDED_RMA
#define GSHMEMI_DEFINE_SIZED_STRIDED_RMA(SIZE, BYTES)                                              \
  GSHMEM_HD void gshmem_iput##SIZE(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                   size_t nelems, int pe) {                                        \
    gshmem::detail::rma_iput<BYTES>(dest, source, dst, sst, nelems, pe, "gshmem_iput" #SIZE);     \
  }                                                                                                \
  GSHMEM_HD void gshmem_iget##SIZE(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                   size_t nelems, int pe) {                                        \
    gshmem::detail::rma_iget<BYTES>(dest, source, dst, sst, nelems, pe, "gshmem_iget" #SIZE);     \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DEFINE_SIZED_STRIDED_RMA)
#undef GSHMEMI_DEFINE_SIZED_STRIDED_RMA

/* ---------------------------------------------------------------- atomics
 * The OpenSHMEM atomics, host and device. Each is atomic with respect to
 * every other gshmem atomic on the same object from any PE, and relaxed at
 * system scope (atom/red/ld/st .relaxed.sys): no ordering with other
 * operations except through gshmem_fence / gshmem_quiet. (For explicit
 * orders use the C++ forms gshmem::atomic_*<order, scope>, device only.)
 * Device: the non-fetching forms (inc, add, and, or, xor) are a single
 * `red` instruction that does not wait for the peer.
 * Host: the same instructions in a one-thread kernel on the runtime's
 * stream (see RMA above for its ordering and errors). Fetching forms (fetch,
 * swap, compare_swap, fetch_*) wait for the kernel and return the old value
 * (0 on error); set and the non-fetching forms enqueue it and return, and
 * the next host gshmem_quiet completes them. The kernel needs a free SM: a
 * host atomic waits behind kernels that fill the GPU. */
#define GSHMEMI_DEFINE_AMO_BASIC(NAME, TYPE)                                                       \
  GSHMEM_HD TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe) {                        \
    return gshmem::detail::amo_fetch(source, pe, "gshmem_" #NAME "_atomic_fetch");                 \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe) {                      \
    gshmem::detail::amo_set(dest, value, pe, "gshmem_" #NAME "_atomic_set");                       \
  }                                                                                                \
  GSHMEM_HD TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe) {                     \
    return gshmem::detail::amo_swap(dest, value, pe, "gshmem_" #NAME "_atomic_swap");              \
  }                                                                                                \
  /* Stores value if *dest has the bit pattern of cond; returns the old value. */                 \
  GSHMEM_HD TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe) {  \
    return gshmem::detail::amo_compare_swap(dest, cond, value, pe, "gshmem_" #NAME "_atomic_compare_swap"); \
  }
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_DEFINE_AMO_BASIC)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_DEFINE_AMO_BASIC)
#undef GSHMEMI_DEFINE_AMO_BASIC

/* inc, add and their fetching forms: AMO types. */
#define GSHMEMI_DEFINE_AMO_ARITH(NAME, TYPE)                                                       \
  GSHMEM_HD TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe) {                            \
    return gshmem::detail::amo_add(dest, (TYPE)1, pe, true, "gshmem_" #NAME "_atomic_fetch_inc");  \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe) {                                  \
    (void)gshmem::detail::amo_add(dest, (TYPE)1, pe, false, "gshmem_" #NAME "_atomic_inc");        \
  }                                                                                                \
  GSHMEM_HD TYPE gshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe) {                \
    return gshmem::detail::amo_add(dest, value, pe, true, "gshmem_" #NAME "_atomic_fetch_add");    \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe) {                      \
    (void)gshmem::detail::amo_add(dest, value, pe, false, "gshmem_" #NAME "_atomic_add");          \
  }
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_DEFINE_AMO_ARITH)
#undef GSHMEMI_DEFINE_AMO_ARITH

/* and, or, xor and their fetching forms: bitwise AMO types. */
#define GSHMEMI_DEFINE_AMO_BITWISE_OP(NAME, TYPE, op)                                              \
  GSHMEM_HD TYPE gshmem_##NAME##_atomic_fetch_##op(TYPE *dest, TYPE value, int pe) {               \
    return gshmem::detail::amo_##op(dest, value, pe, true, "gshmem_" #NAME "_atomic_fetch_" #op);  \
  }                                                                                                \
  GSHMEM_HD void gshmem_##NAME##_atomic_##op(TYPE *dest, TYPE value, int pe) {                     \
    (void)gshmem::detail::amo_##op(dest, value, pe, false, "gshmem_" #NAME "_atomic_" #op);        \
  }
#define GSHMEMI_DEFINE_AMO_BITWISE(NAME, TYPE)    \
  GSHMEMI_DEFINE_AMO_BITWISE_OP(NAME, TYPE, and) \
  GSHMEMI_DEFINE_AMO_BITWISE_OP(NAME, TYPE, or)  \
  GSHMEMI_DEFINE_AMO_BITWISE_OP(NAME, TYPE, xor)
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(GSHMEMI_DEFINE_AMO_BITWISE)
#undef GSHMEMI_DEFINE_AMO_BITWISE
#undef GSHMEMI_DEFINE_AMO_BITWISE_OP

#if defined(__CUDACC__)

/* ------------------------------------------------------ put with signal
 * Device only. A put with a signal: data first, then the signal with
 * release at system scope (st.release.sys for SET, red.release.sys.add for
 * ADD): a PE that observes the signal observes the data. (Host code uses
 * gshmemx_*put_signal_on_stream.) */
#define GSHMEMI_DEFINE_PUT_SIGNAL(NAME, TYPE)                                                      \
  GSHMEM_DEVICE void gshmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,     \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, \
                                        gshmem::detail::group_thread{}, "gshmem_" #NAME "_put_signal"); \
  }                                                                                                \
  GSHMEM_DEVICE void gshmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems, \
                                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, \
                                        gshmem::detail::group_thread{}, "gshmem_" #NAME "_put_signal_nbi", false); \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_PUT_SIGNAL)
#undef GSHMEMI_DEFINE_PUT_SIGNAL

/* Sized forms: nelems elements of SIZE bits, as putmem_signal. */
#define GSHMEMI_DEFINE_SIZED_PUT_SIGNAL(SIZE, BYTES)                                               \
  GSHMEM_DEVICE void gshmem_put##SIZE##_signal(void *dest, const void *source, size_t nelems,      \
                                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe, \
                                        gshmem::detail::group_thread{}, "gshmem_put" #SIZE "_signal"); \
  }                                                                                                \
  GSHMEM_DEVICE void gshmem_put##SIZE##_signal_nbi(void *dest, const void *source, size_t nelems,  \
                                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe, \
                                        gshmem::detail::group_thread{}, "gshmem_put" #SIZE "_signal_nbi", false); \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DEFINE_SIZED_PUT_SIGNAL)
#undef GSHMEMI_DEFINE_SIZED_PUT_SIGNAL

GSHMEM_DEVICE void gshmem_putmem_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe) {
  gshmem::detail::putmem_signal_group(dest, source, nbytes, sig_addr, signal, sig_op, pe,
                                      gshmem::detail::group_thread{}, "gshmem_putmem_signal");
}
GSHMEM_DEVICE void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                            uint64_t signal, int sig_op, int pe) {
  gshmem::detail::putmem_signal_group(dest, source, nbytes, sig_addr, signal, sig_op, pe,
                                      gshmem::detail::group_thread{}, "gshmem_putmem_signal_nbi", false);
}

#endif  // __CUDACC__

/* ---------------------------------------------------------------- signals */

/* The value of this PE's signal object *sig_addr (symmetric). Host and
 * device.
 * Device: loaded with acquire at system scope (ld.acquire.sys): data that a
 * put_signal delivered before the signal value read here is visible to the
 * caller's later reads.
 * Host: read atomically (a relaxed system-scope load by a one-thread kernel)
 * on the runtime's host RMA stream, so after this PE's earlier host RMA and
 * atomics and before its later ones; returns once the value is read. Errors
 * (use before init, an address outside the symmetric heap or not 8-byte
 * aligned): logged, recorded for gshmemx_get_last_error(), 0 returned. */
GSHMEM_HD uint64_t gshmem_signal_fetch(const uint64_t *sig_addr) {
#if GSHMEM_IN_DEVICE_CODE
  return (uint64_t)gshmem::detail::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(
      reinterpret_cast<const unsigned long long *>(sig_addr));
#else
  return gshmem::detail::amo_fetch(sig_addr, gshmemi_host_my_pe(), "gshmem_signal_fetch");
#endif
}

/* ------------------------------------------------- fence, quiet, barrier
 * Host and device. */

/* Orders the calling thread's earlier puts, AMOs and signals to each PE
 * before its later ones to that PE (device: fence.acq_rel.sys, which in fact
 * orders them towards all PEs; with remote peers also a fence request to the
 * proxy, which orders the queued requests before it, to every PE, before
 * those after it). Host: gshmemi_host_fence. */
GSHMEM_HD void gshmem_fence(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::atomic_fence<gshmem::memory_order::acq_rel, gshmem::thread_scope::system>();
  if (__builtin_expect(gshmem::detail::remote_enabled(), 0)) gshmem::detail::remote_fence("gshmem_fence");
#else
  gshmemi_host_fence();
#endif
}

/* Completes the calling thread's earlier puts, AMOs and signals: they are
 * visible to every PE and the host before any later memory operation of the
 * thread (device: fence.sc.sys; with remote peers it then waits until the
 * proxy carried out every request queued before, the thread's own and those
 * of other threads that happen before the call). Host: gshmemi_host_quiet. */
GSHMEM_HD void gshmem_quiet(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::atomic_fence<gshmem::memory_order::seq_cst, gshmem::thread_scope::system>();
  if (__builtin_expect(gshmem::detail::remote_enabled(), 0)) gshmem::detail::remote_quiet("gshmem_quiet");
#else
  gshmemi_host_quiet();
#endif
}

/* Device: every thread of exactly one block on every PE calls it; returns
 * when all PEs have entered. Every store the calling block made before the
 * call (local or remote) is visible to every PE after it (a release fence
 * at system scope, then the announcements; the waits are acquire loads). One
 * caller per PE at a time; gshmemx_sync_all_thread / _warp (<gshmem/
 * update_ext.h>) are the same barrier called by one thread or one warp.
 * Host: gshmemi_host_sync_all. */
GSHMEM_HD void gshmem_sync_all(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::block_sync_all<false>("gshmem_sync_all");
#else
  gshmemi_host_sync_all();
#endif
}

/* Device: gshmem_quiet by the block, then gshmem_sync_all: every update the
 * block issued before the call is complete and visible to all PEs when any
 * PE returns. One block per PE, as sync_all (gshmemx_barrier_all_thread /
 * _warp for other callers). Host: gshmemi_host_barrier_all (waits for this
 * PE's device work first). */
GSHMEM_HD void gshmem_barrier_all(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::block_sync_all<true>("gshmem_barrier_all");
#else
  gshmemi_host_barrier_all();
#endif
}
