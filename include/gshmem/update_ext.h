// Remote-update extensions (gshmemx_): cooperative warp/block RMA and
// put_signal, signal_op, sub/max/min/nanmax/nanmin atomics, bulk atomics,
// and the order/scope validation of the C++ API. Part of <gshmem/gshmemx.h>.
//
// Ordering is as in <gshmem/update.h> unless a routine says otherwise.
// Warp forms: all 32 lanes of the warp call with the same arguments. Block
// forms: all threads of the block call with the same arguments. Both end
// with a warp/block synchronization.
#pragma once

#include <gshmem/sync.h>
#include <gshmem/update.h>
#include <gshmem/detail/remote_amo.h>
#include <gshmem/detail/update_bulk.h>
#include <gshmem/detail/update_counted.h>
#include <gshmem/detail/update_order.h>

#if defined(__CUDACC__)
#include <cuda_fp16.h>  // __half for the bulk add
#define GSHMEMI_RLX_ORDER gshmem::memory_order::relaxed, gshmem::thread_scope::system

/* ------------------------------------------------------------- signal_op
 * Updates the signal *sig_addr on PE pe: GSHMEM_SIGNAL_SET stores `signal`
 * (st.relaxed.sys), GSHMEM_SIGNAL_ADD adds it (red.relaxed.sys.add.u64).
 * Relaxed: earlier puts are NOT ordered before it; use put_signal, or
 * gshmem_fence before it, when the signal announces data. Any other sig_op
 * prints a diagnostic and traps. */
GSHMEM_DEVICE void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmem::detail::on_peer(
      sig_addr, pe, "gshmemx_signal_op",
      [&](uint64_t *remote) {
        gshmem::detail::apply_signal<gshmem::memory_order::relaxed>(remote, signal, sig_op, "gshmemx_signal_op");
      },
      [&] {
        // Remote peer: a signal request, delivered after the data this PE
        // queued before it for that PE (stronger than the P2P form).
        gshmem::detail::check_signal_op(sig_op, "gshmemx_signal_op");
        gshmem::detail::remote_signal(sig_addr, signal, sig_op, pe, "gshmemx_signal_op");
      });
}

/* -------------------------------------------------- cooperative RMA forms
 * The group's threads share the copy, 16 bytes per access where both
 * addresses allow; the group synchronizes before returning. put_signal
 * forms: after that synchronization one thread updates the signal with
 * release at system scope, so the whole group's data precedes the signal. */
#define GSHMEMI_DEFINE_COOP_RMA_GROUP(NAME, TYPE, GROUP)                                             \
  GSHMEM_DEVICE void gshmemx_##NAME##_put_##GROUP(TYPE *dest, const TYPE *source, size_t nelems, int pe) { \
    gshmem::detail::putmem_group(dest, source, nelems * sizeof(TYPE), pe, gshmem::detail::group_##GROUP{}, \
                                 "gshmemx_" #NAME "_put_" #GROUP);                                 \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_##NAME##_put_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t nelems, int pe) { \
    gshmem::detail::putmem_group(dest, source, nelems * sizeof(TYPE), pe, gshmem::detail::group_##GROUP{}, \
                                 "gshmemx_" #NAME "_put_nbi_" #GROUP, false);                             \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_##NAME##_get_##GROUP(TYPE *dest, const TYPE *source, size_t nelems, int pe) { \
    gshmem::detail::getmem_group(dest, source, nelems * sizeof(TYPE), pe, gshmem::detail::group_##GROUP{}, \
                                 "gshmemx_" #NAME "_get_" #GROUP);                                 \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_##NAME##_get_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t nelems, int pe) { \
    gshmem::detail::getmem_group(dest, source, nelems * sizeof(TYPE), pe, gshmem::detail::group_##GROUP{}, \
                                 "gshmemx_" #NAME "_get_nbi_" #GROUP);                             \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_##NAME##_put_signal_##GROUP(TYPE *dest, const TYPE *source, size_t nelems, \
                                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, \
                                        gshmem::detail::group_##GROUP{}, "gshmemx_" #NAME "_put_signal_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_##NAME##_put_signal_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t nelems, \
                                                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe, \
                                        gshmem::detail::group_##GROUP{}, "gshmemx_" #NAME "_put_signal_nbi_" #GROUP, false); \
  }
#define GSHMEMI_DEFINE_COOP_RMA(NAME, TYPE)          \
  GSHMEMI_DEFINE_COOP_RMA_GROUP(NAME, TYPE, warp)    \
  GSHMEMI_DEFINE_COOP_RMA_GROUP(NAME, TYPE, block)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_COOP_RMA)
#undef GSHMEMI_DEFINE_COOP_RMA
#undef GSHMEMI_DEFINE_COOP_RMA_GROUP

#define GSHMEMI_DEFINE_COOP_MEM(GROUP)                                                               \
  GSHMEM_DEVICE void gshmemx_putmem_##GROUP(void *dest, const void *source, size_t nbytes, int pe) { \
    gshmem::detail::putmem_group(dest, source, nbytes, pe, gshmem::detail::group_##GROUP{}, "gshmemx_putmem_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_putmem_nbi_##GROUP(void *dest, const void *source, size_t nbytes, int pe) { \
    gshmem::detail::putmem_group(dest, source, nbytes, pe, gshmem::detail::group_##GROUP{}, "gshmemx_putmem_nbi_" #GROUP, false); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_getmem_##GROUP(void *dest, const void *source, size_t nbytes, int pe) { \
    gshmem::detail::getmem_group(dest, source, nbytes, pe, gshmem::detail::group_##GROUP{}, "gshmemx_getmem_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_getmem_nbi_##GROUP(void *dest, const void *source, size_t nbytes, int pe) { \
    gshmem::detail::getmem_group(dest, source, nbytes, pe, gshmem::detail::group_##GROUP{}, "gshmemx_getmem_nbi_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_putmem_signal_##GROUP(void *dest, const void *source, size_t nbytes,    \
                                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nbytes, sig_addr, signal, sig_op, pe,          \
                                        gshmem::detail::group_##GROUP{}, "gshmemx_putmem_signal_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_putmem_signal_nbi_##GROUP(void *dest, const void *source, size_t nbytes, \
                                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nbytes, sig_addr, signal, sig_op, pe,          \
                                        gshmem::detail::group_##GROUP{}, "gshmemx_putmem_signal_nbi_" #GROUP, false); \
  }
GSHMEMI_DEFINE_COOP_MEM(warp)
GSHMEMI_DEFINE_COOP_MEM(block)
#undef GSHMEMI_DEFINE_COOP_MEM

/* Sized cooperative forms (putSIZE / getSIZE [_nbi], putSIZE_signal
 * [_nbi]): the byte forms above with nelems * SIZE / 8 bytes. */
#define GSHMEMI_DEFINE_COOP_SIZED_GROUP(SIZE, BYTES, GROUP)                                          \
  GSHMEM_DEVICE void gshmemx_put##SIZE##_##GROUP(void *dest, const void *source, size_t nelems, int pe) { \
    gshmem::detail::putmem_group(dest, source, nelems * BYTES, pe, gshmem::detail::group_##GROUP{},  \
                                 "gshmemx_put" #SIZE "_" #GROUP);                                    \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_put##SIZE##_nbi_##GROUP(void *dest, const void *source, size_t nelems, int pe) { \
    gshmem::detail::putmem_group(dest, source, nelems * BYTES, pe, gshmem::detail::group_##GROUP{},  \
                                 "gshmemx_put" #SIZE "_nbi_" #GROUP, false);                         \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_get##SIZE##_##GROUP(void *dest, const void *source, size_t nelems, int pe) { \
    gshmem::detail::getmem_group(dest, source, nelems * BYTES, pe, gshmem::detail::group_##GROUP{},  \
                                 "gshmemx_get" #SIZE "_" #GROUP);                                    \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_get##SIZE##_nbi_##GROUP(void *dest, const void *source, size_t nelems, int pe) { \
    gshmem::detail::getmem_group(dest, source, nelems * BYTES, pe, gshmem::detail::group_##GROUP{},  \
                                 "gshmemx_get" #SIZE "_nbi_" #GROUP);                                \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_put##SIZE##_signal_##GROUP(void *dest, const void *source, size_t nelems, \
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe,  \
                                        gshmem::detail::group_##GROUP{}, "gshmemx_put" #SIZE "_signal_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_put##SIZE##_signal_nbi_##GROUP(void *dest, const void *source, size_t nelems, \
                                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem::detail::putmem_signal_group(dest, source, nelems * BYTES, sig_addr, signal, sig_op, pe,  \
                                        gshmem::detail::group_##GROUP{}, "gshmemx_put" #SIZE "_signal_nbi_" #GROUP, \
                                        false);                                                      \
  }
#define GSHMEMI_DEFINE_COOP_SIZED(SIZE, BYTES)        \
  GSHMEMI_DEFINE_COOP_SIZED_GROUP(SIZE, BYTES, warp)  \
  GSHMEMI_DEFINE_COOP_SIZED_GROUP(SIZE, BYTES, block)
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DEFINE_COOP_SIZED)
#undef GSHMEMI_DEFINE_COOP_SIZED
#undef GSHMEMI_DEFINE_COOP_SIZED_GROUP

/* Strided cooperative forms (TYPENAME_iput / iget, iputSIZE / igetSIZE):
 * as gshmem_TYPENAME_iput / iget (<gshmem/update.h>), with the elements
 * spread over the group's threads (element i by rank i mod group size);
 * the group synchronizes before returning, so on return every element of
 * an iget is in dest for every thread. */
#define GSHMEMI_DEFINE_COOP_STRIDED_GROUP(NAME, TYPE, GROUP)                                         \
  GSHMEM_DEVICE void gshmemx_##NAME##_iput_##GROUP(TYPE *dest, const TYPE *source, ptrdiff_t dst,    \
                                                   ptrdiff_t sst, size_t nelems, int pe) {           \
    gshmem::detail::iputmem_group<sizeof(TYPE)>(dest, source, dst, sst, nelems, pe,                  \
                                                gshmem::detail::group_##GROUP{}, "gshmemx_" #NAME "_iput_" #GROUP); \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_##NAME##_iget_##GROUP(TYPE *dest, const TYPE *source, ptrdiff_t dst,    \
                                                   ptrdiff_t sst, size_t nelems, int pe) {           \
    gshmem::detail::igetmem_group<sizeof(TYPE)>(dest, source, dst, sst, nelems, pe,                  \
                                                gshmem::detail::group_##GROUP{}, "gshmemx_" #NAME "_iget_" #GROUP); \
  }
#define GSHMEMI_DEFINE_COOP_STRIDED(NAME, TYPE)          \
  GSHMEMI_DEFINE_COOP_STRIDED_GROUP(NAME, TYPE, warp)    \
  GSHMEMI_DEFINE_COOP_STRIDED_GROUP(NAME, TYPE, block)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_COOP_STRIDED)
#undef GSHMEMI_DEFINE_COOP_STRIDED
#undef GSHMEMI_DEFINE_COOP_STRIDED_GROUP
#define GSHMEMI_DEFINE_COOP_SIZED_STRIDED_GROUP(SIZE, BYTES, GROUP)                                  \
  GSHMEM_DEVICE void gshmemx_iput##SIZE##_##GROUP(void *dest, const void *source, ptrdiff_t dst,     \
                                                  ptrdiff_t sst, size_t nelems, int pe) {            \
    gshmem::detail::iputmem_group<BYTES>(dest, source, dst, sst, nelems, pe, gshmem::detail::group_##GROUP{}, \
                                         "gshmemx_iput" #SIZE "_" #GROUP);                           \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_iget##SIZE##_##GROUP(void *dest, const void *source, ptrdiff_t dst,     \
                                                  ptrdiff_t sst, size_t nelems, int pe) {            \
    gshmem::detail::igetmem_group<BYTES>(dest, source, dst, sst, nelems, pe, gshmem::detail::group_##GROUP{}, \
                                         "gshmemx_iget" #SIZE "_" #GROUP);                           \
  }
#define GSHMEMI_DEFINE_COOP_SIZED_STRIDED(SIZE, BYTES)        \
  GSHMEMI_DEFINE_COOP_SIZED_STRIDED_GROUP(SIZE, BYTES, warp)  \
  GSHMEMI_DEFINE_COOP_SIZED_STRIDED_GROUP(SIZE, BYTES, block)
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DEFINE_COOP_SIZED_STRIDED)
#undef GSHMEMI_DEFINE_COOP_SIZED_STRIDED
#undef GSHMEMI_DEFINE_COOP_SIZED_STRIDED_GROUP

/* ------------------------------------------------------ extended atomics
 * gshmemx_TYPENAME_atomic_fetch_<op>(dest, value, pe) / _atomic_<op>:
 * sub, max, min, nanmax, nanmin for the AMO types and float/double; add
 * (and fetch_add) for float/double. Relaxed at system scope, like the
 * OpenSHMEM atomics. Integers: one atom instruction (sub wraps modulo 2^N;
 * nanmax/nanmin equal max/min). float/double add and sub: one atom.add.f32/
 * .f64. float/double max/min/nanmax/nanmin: a compare-and-swap loop on the
 * bit pattern (no write when the value would not change, at this relaxed
 * order). max/min propagate NaN (numpy.maximum): max(a, NaN) stores NaN, a
 * NaN target stays. nanmax/nanmin treat NaN as missing (numpy.fmax, C fmax):
 * nanmax(a, NaN) leaves a, nanmax(NaN, n) stores n. Both order signed zero:
 * max(-0.0, +0.0) = +0.0, min(-0.0, +0.0) = -0.0 whatever the order. */
#define GSHMEMI_RLX gshmem::memory_order::relaxed, gshmem::thread_scope::system
#define GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, op)                                                      \
  GSHMEM_DEVICE TYPE gshmemx_##NAME##_atomic_fetch_##op(TYPE *dest, TYPE value, int pe) {           \
    return gshmem::detail::checked_fetch_##op<GSHMEMI_RLX>(dest, value, pe,                         \
                                                           "gshmemx_" #NAME "_atomic_fetch_" #op);  \
  }                                                                                                 \
  GSHMEM_DEVICE void gshmemx_##NAME##_atomic_##op(TYPE *dest, TYPE value, int pe) {                 \
    (void)gshmem::detail::checked_fetch_##op<GSHMEMI_RLX>(dest, value, pe, "gshmemx_" #NAME "_atomic_" #op); \
  }
#define GSHMEMI_DEFINE_XAMO(NAME, TYPE)       \
  GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, sub)     \
  GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, max)     \
  GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, min)
#define GSHMEMI_DEFINE_XAMO_NAN(NAME, TYPE)   \
  GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, nanmax)  \
  GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, nanmin)
#define GSHMEMI_DEFINE_XAMO_FLOAT_ADD(NAME, TYPE) GSHMEMI_DEFINE_XAMO_OP(NAME, TYPE, add)
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_DEFINE_XAMO)
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_DEFINE_XAMO_NAN)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_DEFINE_XAMO)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_DEFINE_XAMO_NAN)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_DEFINE_XAMO_FLOAT_ADD)
#undef GSHMEMI_DEFINE_XAMO_FLOAT_ADD
#undef GSHMEMI_DEFINE_XAMO_NAN
#undef GSHMEMI_DEFINE_XAMO
#undef GSHMEMI_DEFINE_XAMO_OP

/* ---------------------------------------------------------- bulk atomics
 * gshmemx_TYPENAME_atomic_<op>_bulk_{warp,block}: element i (0 <= i < n)
 * applies <op> with operand values[i] to dest[target(i)] on PE pe, where
 * target(i) comes from `index` (gshmemx_bulk_index_t). dest_nelems is the
 * length of the symmetric array dest; targets outside it are skipped unless
 * flags has GSHMEMX_BULK_NO_BOUNDS_CHECK. mask (may be NULL) skips elements
 * whose entry is false. fetched (may be NULL) receives each old value; for a
 * skipped element it receives conds[i] (compare_swap) or is left unwritten
 * (all others: unspecified). Each element's update is atomic and relaxed at
 * system scope; the whole is not atomic, and the order among elements is
 * unspecified. The group synchronizes before returning.
 * Operations: compare_swap and swap (AMO and float types), fetch_add (AMO
 * and float types, and __half as gshmemx_half_atomic_fetch_add_bulk_*),
 * fetch_and/or/xor (bitwise types), fetch_max/min (AMO and float).
 * A remote peer (docs/remote.md): each element is one atomic request to the
 * proxy, issued by the rank that owns the element; with fetched, the rank
 * waits for each old value; without, the requests complete at quiet. The
 * __half add has no remote form (the transport has no 16-bit atomics): one
 * diagnostic line naming it and the PE, then a trap. */
#define GSHMEMI_BULK_ARGS(TYPE) \
  TYPE *dest, size_t dest_nelems, gshmemx_bulk_index_t index, const TYPE *values, TYPE *fetched, size_t n, \
      const bool *mask, unsigned flags, int pe
#define GSHMEMI_DEFINE_BULK_FETCH_OP_GROUP(NAME, TYPE, op, fn, GROUP)                                   \
  GSHMEM_DEVICE void gshmemx_##NAME##_atomic_##op##_bulk_##GROUP(GSHMEMI_BULK_ARGS(TYPE)) {            \
    const char *routine = "gshmemx_" #NAME "_atomic_" #op "_bulk_" #GROUP;                             \
    const bool fetch = fetched != nullptr;                                                              \
    gshmem::detail::bulk_on_peer(                                                                       \
        dest, dest_nelems, index, mask, n, flags, fetched, (const TYPE *)nullptr, pe, routine,          \
        [values](TYPE *p, size_t i) { return gshmem::detail::fn<GSHMEMI_RLX>(p, values[i]); },         \
        [values, pe, fetch, routine](TYPE *p, size_t i) {                                               \
          return gshmem::detail::remote_##op(p, values[i], pe, fetch, gshmem::memory_order::relaxed, routine); \
        },                                                                                              \
        gshmem::detail::group_##GROUP{});                                                               \
  }
#define GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, op, fn)              \
  GSHMEMI_DEFINE_BULK_FETCH_OP_GROUP(NAME, TYPE, op, fn, warp)        \
  GSHMEMI_DEFINE_BULK_FETCH_OP_GROUP(NAME, TYPE, op, fn, block)
#define GSHMEMI_DEFINE_BULK_CAS_GROUP(NAME, TYPE, GROUP)                                                \
  GSHMEM_DEVICE void gshmemx_##NAME##_atomic_compare_swap_bulk_##GROUP(                                  \
      TYPE *dest, size_t dest_nelems, gshmemx_bulk_index_t index, const TYPE *conds, const TYPE *values,   \
      TYPE *fetched, size_t n, const bool *mask, unsigned flags, int pe) {                               \
    const char *routine = "gshmemx_" #NAME "_atomic_compare_swap_bulk_" #GROUP;                          \
    gshmem::detail::bulk_on_peer(                                                                         \
        dest, dest_nelems, index, mask, n, flags, fetched, conds, pe, routine,                            \
        [conds, values](TYPE *p, size_t i) {                                                              \
          TYPE expected = conds[i];                                                                       \
          gshmem::detail::addr_compare_exchange<GSHMEMI_RLX>(p, expected, values[i]);                     \
          return expected;                                                                                \
        },                                                                                                \
        [conds, values, pe, routine](TYPE *p, size_t i) {                                                 \
          TYPE expected = conds[i];                                                                       \
          (void)gshmem::detail::remote_compare_exchange(p, expected, values[i], pe,                       \
                                                        gshmem::memory_order::relaxed, routine);          \
          return expected;                                                                                \
        },                                                                                                \
        gshmem::detail::group_##GROUP{});                                                                 \
  }
#define GSHMEMI_DEFINE_BULK_BASIC(NAME, TYPE)                           \
  GSHMEMI_DEFINE_BULK_CAS_GROUP(NAME, TYPE, warp)                       \
  GSHMEMI_DEFINE_BULK_CAS_GROUP(NAME, TYPE, block)                      \
  GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, swap, addr_exchange)         \
  GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, fetch_max, addr_fetch_max)   \
  GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, fetch_min, addr_fetch_min)
#define GSHMEMI_DEFINE_BULK_ADD(NAME, TYPE) GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, fetch_add, addr_fetch_add)
#define GSHMEMI_DEFINE_BULK_BITWISE(NAME, TYPE)                         \
  GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, fetch_and, addr_fetch_and)   \
  GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, fetch_or, addr_fetch_or)     \
  GSHMEMI_DEFINE_BULK_FETCH_OP(NAME, TYPE, fetch_xor, addr_fetch_xor)
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_DEFINE_BULK_BASIC)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_DEFINE_BULK_BASIC)
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_DEFINE_BULK_ADD)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_DEFINE_BULK_ADD)
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(GSHMEMI_DEFINE_BULK_BITWISE)
// __half: fetch_add only (the spec's bulk add for 16-bit floats), one
// `atom.relaxed.sys.add.noftz.f16` per element.
#define GSHMEMI_DEFINE_BULK_HALF_ADD_GROUP(GROUP)                                                        \
  GSHMEM_DEVICE void gshmemx_half_atomic_fetch_add_bulk_##GROUP(GSHMEMI_BULK_ARGS(__half)) {             \
    __half *remote = gshmem::detail::peer_address(dest, pe, "gshmemx_half_atomic_fetch_add_bulk_" #GROUP); \
    gshmem::detail::bulk_apply(remote, dest_nelems, index, mask, n, flags, fetched, (const __half *)nullptr, \
                               [values](__half *p, size_t i) {                                          \
                                 return __ushort_as_half(gshmem::detail::atomic_fetch_add_f16_bits<GSHMEMI_RLX>( \
                                     reinterpret_cast<unsigned short *>(p), __half_as_ushort(values[i]))); \
                               },                                                                       \
                               gshmem::detail::group_##GROUP{});                                        \
  }
GSHMEMI_DEFINE_BULK_HALF_ADD_GROUP(warp)
GSHMEMI_DEFINE_BULK_HALF_ADD_GROUP(block)
#undef GSHMEMI_DEFINE_BULK_HALF_ADD_GROUP
#undef GSHMEMI_DEFINE_BULK_BITWISE
#undef GSHMEMI_DEFINE_BULK_ADD
#undef GSHMEMI_DEFINE_BULK_BASIC
#undef GSHMEMI_DEFINE_BULK_CAS_GROUP
#undef GSHMEMI_DEFINE_BULK_FETCH_OP
#undef GSHMEMI_DEFINE_BULK_FETCH_OP_GROUP
#undef GSHMEMI_BULK_ARGS
#undef GSHMEMI_RLX

/* --------------------------------------------------------- counted writes
 * gshmemx_putmem_signal_counted[_nbi][_warp|_block](dest, source, nbytes,
 * counter, pe): puts nbytes from source to dest on PE pe, then adds nbytes
 * to the 64-bit symmetric counter *counter on PE pe (NVSHMEM 3.8's counted
 * write, on every GPU and through the remote path). Many producers (threads,
 * blocks, PEs) may write disjoint regions and add to one counter; the
 * receiver waits with gshmemx_signal_counted_wait_until for the sum it
 * expects.
 * ORDERING: the whole group's payload before the add (a group sync, then a
 * red.release.sys.add by one rank); a PE whose acquire load or wait sees a
 * counter value that includes this call's bytes sees this call's payload,
 * whichever producer's add it read (the argument for several producers is
 * in <gshmem/detail/update_counted.h>). Nothing is ordered between two
 * producers' payloads. Thread form: one thread; warp / block forms: every
 * thread of the warp / block with the same arguments, ending with the
 * group's synchronization. Remote peer: one put_signal request with an ADD
 * of nbytes; the blocking forms return once the proxy carried it out (the
 * source is reusable), the _nbi forms once queued (complete at quiet); on
 * P2P both return with the stores issued. No alignment is required here
 * (NVSHMEM's 16-byte and 256-byte rules are checked by its names in the
 * compatibility layer). nbytes 0 adds 0. */
#define GSHMEMI_DEFINE_COUNTED(SUFFIX, GROUP)                                                         \
  GSHMEM_DEVICE void gshmemx_putmem_signal_counted##SUFFIX(void *dest, const void *source, size_t nbytes, \
                                                           uint64_t *counter, int pe) {               \
    gshmem::detail::putmem_signal_counted_group(dest, source, nbytes, counter, pe, GROUP{},           \
                                                "gshmemx_putmem_signal_counted" #SUFFIX, true);       \
  }                                                                                                   \
  GSHMEM_DEVICE void gshmemx_putmem_signal_counted_nbi##SUFFIX(void *dest, const void *source, size_t nbytes, \
                                                               uint64_t *counter, int pe) {           \
    gshmem::detail::putmem_signal_counted_group(dest, source, nbytes, counter, pe, GROUP{},           \
                                                "gshmemx_putmem_signal_counted_nbi" #SUFFIX, false);  \
  }
GSHMEMI_DEFINE_COUNTED(, gshmem::detail::group_thread)
GSHMEMI_DEFINE_COUNTED(_warp, gshmem::detail::group_warp)
GSHMEMI_DEFINE_COUNTED(_block, gshmem::detail::group_block)
#undef GSHMEMI_DEFINE_COUNTED

/* This PE's counter *counter, read with acquire at system scope: the
 * payload of every counted write whose bytes the value includes is visible
 * to the caller's later reads. */
GSHMEM_DEVICE uint64_t gshmemx_signal_counted_load(const uint64_t *counter) {
  return (uint64_t)gshmem::detail::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(
      reinterpret_cast<const unsigned long long *>(counter));
}

/* Waits until this PE's counter *counter has reached `expected` (bytes),
 * compared modulo 2^64 as NVSHMEM 3.8 does: reached when (value - expected)
 * mod 2^64 < 2^63, so a counter that wraps keeps working. Returns the value
 * seen. Acquire at system scope on return (as gshmemx_signal_counted_load).
 * Called by any number of threads, each waiting on its own. A wait longer
 * than GSHMEM_WAIT_TIMEOUT, or one whose producer's process ended, prints
 * one line (as a wait for GE expected) and traps. */
GSHMEM_DEVICE uint64_t gshmemx_signal_counted_wait_until(const uint64_t *counter, uint64_t expected) {
  return gshmem::detail::wait_counted(gshmem::detail::current_wait_context(), "gshmemx_signal_counted_wait_until",
                                      counter, expected);
}

/* ------------------------------------------------------------------ flush
 * gshmemx_flush[_warp|_block]: the source buffers of the caller's earlier
 * non-blocking puts (put_nbi, putmem_signal_nbi, counted _nbi, ...) may be
 * reused on return. Orders and completes nothing else (NVSHMEM 3.8's flush:
 * gshmem_quiet remains what makes the data visible). P2P: a no-op (the
 * stores read their source when issued). Remote peers: waits until the
 * proxy carried out the requests queued before (it reads sources then),
 * as remote quiet does. Warp / block forms: the group synchronizes, then
 * one rank waits, then the group synchronizes again. */
GSHMEM_DEVICE void gshmemx_flush(void) {
  if (__builtin_expect(gshmem::detail::remote_enabled(), 0)) gshmem::detail::remote_quiet("gshmemx_flush");
}
GSHMEM_DEVICE void gshmemx_flush_warp(void) {
  if (__builtin_expect(gshmem::detail::remote_enabled(), 0)) {
    gshmem::detail::group_warp g;
    g.sync();
    if (g.rank() == 0) gshmem::detail::remote_quiet("gshmemx_flush_warp");
    g.sync();
  }
}
GSHMEM_DEVICE void gshmemx_flush_block(void) {
  if (__builtin_expect(gshmem::detail::remote_enabled(), 0)) {
    gshmem::detail::group_block g;
    g.sync();
    if (g.rank() == 0) gshmem::detail::remote_quiet("gshmemx_flush_block");
    g.sync();
  }
}

/* ------------------------------------------------- half-precision atomics
 * gshmemx_half_atomic_{fetch,set,swap,fetch_add,add}(dest, ..., pe) on a
 * __half at P2P PE pe, relaxed at system scope as the other atomics: fetch
 * ld.relaxed.sys.b16, set st.relaxed.sys.b16, swap a loop of
 * atom.relaxed.sys.cas.b16 (PTX has no 16-bit exchange), add
 * atom.relaxed.sys.add.noftz.f16 (round to nearest, subnormals kept). The
 * transport has no 16-bit atomics: for a remote peer one line naming the
 * routine and the PE, then a trap. */
GSHMEM_DEVICE __half gshmemx_half_atomic_fetch(const __half *source, int pe) {
  const __half *p = gshmem::detail::peer_address(source, pe, "gshmemx_half_atomic_fetch");
  return __ushort_as_half(gshmem::detail::atomic_load_b16<GSHMEMI_RLX_ORDER>(
      reinterpret_cast<const unsigned short *>(p)));
}
GSHMEM_DEVICE void gshmemx_half_atomic_set(__half *dest, __half value, int pe) {
  __half *p = gshmem::detail::peer_address(dest, pe, "gshmemx_half_atomic_set");
  gshmem::detail::atomic_store_b16<GSHMEMI_RLX_ORDER>(reinterpret_cast<unsigned short *>(p), __half_as_ushort(value));
}
GSHMEM_DEVICE __half gshmemx_half_atomic_swap(__half *dest, __half value, int pe) {
  __half *p = gshmem::detail::peer_address(dest, pe, "gshmemx_half_atomic_swap");
  return __ushort_as_half(gshmem::detail::atomic_exchange_b16<GSHMEMI_RLX_ORDER>(
      reinterpret_cast<unsigned short *>(p), __half_as_ushort(value)));
}
GSHMEM_DEVICE __half gshmemx_half_atomic_fetch_add(__half *dest, __half value, int pe) {
  __half *p = gshmem::detail::peer_address(dest, pe, "gshmemx_half_atomic_fetch_add");
  return __ushort_as_half(gshmem::detail::atomic_fetch_add_f16_bits<GSHMEMI_RLX_ORDER>(
      reinterpret_cast<unsigned short *>(p), __half_as_ushort(value)));
}
GSHMEM_DEVICE void gshmemx_half_atomic_add(__half *dest, __half value, int pe) {
  __half *p = gshmem::detail::peer_address(dest, pe, "gshmemx_half_atomic_add");
  (void)gshmem::detail::atomic_fetch_add_f16_bits<GSHMEMI_RLX_ORDER>(reinterpret_cast<unsigned short *>(p),
                                                                     __half_as_ushort(value));
}

/* ------------------------------------------- device barrier, any caller
 * The device gshmem_barrier_all / gshmem_sync_all (<gshmem/update.h>) are
 * called by a whole block; these are the same barrier for other callers:
 *   _thread  one thread (NVSHMEM's device nvshmem_barrier_all/sync_all)
 *   _warp    all 32 lanes of a converged warp, together
 *   _block   every thread of the block (= gshmem_barrier_all / sync_all)
 * One caller per PE at a time (a thread, a warp or a block), and every PE
 * calls the barrier the same number of times, in any mix of forms: forms
 * share one epoch counter, so PE 0 may pass a barrier with the thread form
 * while PE 1 passes the same barrier with the block form. Concurrent calls
 * by several blocks (or warps, or threads) of one PE are not allowed, as in
 * NVSHMEM: they share the counter and may pass early or hang. State and
 * algorithm: <gshmem/detail/team_sync.h>.
 * ORDERING. sync_all: returns when every PE has entered; every store the
 * caller (the whole group) made before the call, local or remote, is
 * visible to every PE after it returns there (release announcements,
 * acquire polls at system scope). barrier_all: gshmem_quiet first (every
 * announcing member executes fence.sc.sys after the group synchronized), so
 * the group's earlier puts, atomics and signals are complete and visible to
 * all PEs when any PE returns. */
#define GSHMEMI_DEFINE_BARRIER_GROUP(SUFFIX, GROUP_DECL)                                             \
  GSHMEM_DEVICE void gshmemx_barrier_all##SUFFIX(void) {                                             \
    GROUP_DECL gshmem::detail::sync_world<true>(g, "gshmemx_barrier_all" #SUFFIX);                   \
  }                                                                                                  \
  GSHMEM_DEVICE void gshmemx_sync_all##SUFFIX(void) {                                                \
    GROUP_DECL gshmem::detail::sync_world<false>(g, "gshmemx_sync_all" #SUFFIX);                     \
  }
#define GSHMEMI_BARRIER_GROUP_THREAD gshmem::detail::single_group g;
#define GSHMEMI_BARRIER_GROUP_WARP gshmem::detail::warp_group g;
#define GSHMEMI_BARRIER_GROUP_BLOCK                 \
  __shared__ gshmem::detail::block_scratch scratch; \
  gshmem::detail::block_group g(&scratch);
GSHMEMI_DEFINE_BARRIER_GROUP(_thread, GSHMEMI_BARRIER_GROUP_THREAD)
GSHMEMI_DEFINE_BARRIER_GROUP(_warp, GSHMEMI_BARRIER_GROUP_WARP)
GSHMEMI_DEFINE_BARRIER_GROUP(_block, GSHMEMI_BARRIER_GROUP_BLOCK)
#undef GSHMEMI_DEFINE_BARRIER_GROUP

#undef GSHMEMI_RLX_ORDER
#endif  // __CUDACC__

/* Sets this PE's counter *counter to 0, for the next round of counted
 * writes. Device: st.relaxed.sys (orders nothing: the program orders the
 * reset before the producers' next adds, e.g. by the acknowledgement they
 * wait for). Host: the same store by a one-thread kernel on the runtime's
 * host RMA stream, complete when the call returns (a host quiet follows).
 * Errors (host: not symmetric, before init) are logged and recorded for
 * gshmemx_get_last_error(). */
GSHMEM_HD void gshmemx_signal_counted_reset(uint64_t *counter) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::atomic_store<gshmem::memory_order::relaxed, gshmem::thread_scope::system>(
      reinterpret_cast<unsigned long long *>(counter), 0ull);
#else
  gshmem_uint64_atomic_set(counter, 0, gshmemi_host_my_pe());
  gshmemi_host_quiet();
#endif
}
