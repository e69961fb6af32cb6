// One simple kernel per device routine form, gshmem names, no
// __launch_bounds__ (see launch_cases.h). Each runs as one block of 1024
// threads on one PE; `pe` is that PE, so every "remote" access goes through
// the peer mapping of the PE's own heap. Comparisons, status arrays and run-time
// orders are read from the arena, as a real caller's would be: constants
// would let the compiler drop the general paths whose registers count.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include "launch_cases.h"

using namespace launch_test;

namespace {

__device__ __forceinline__ size_t elem(int k) { return (size_t)tid() * kPerThread + (size_t)k; }
__device__ __forceinline__ size_t warp_first() { return (size_t)warp() * kPerWarp; }

}  // namespace

// =================================================================== RMA
// ---- one thread: 4 elements per thread (kPerThread)

LAUNCH_KERNEL(rma_thread_double_p, check_copy) {
  for (int k = 0; k < (int)kPerThread; ++k) gshmem_double_p(&a->dst[elem(k)], a->src[elem(k)], pe);
}
LAUNCH_KERNEL(rma_thread_double_g, check_copy) {
  for (int k = 0; k < (int)kPerThread; ++k) a->dst[elem(k)] = gshmem_double_g(&a->src[elem(k)], pe);
}
LAUNCH_KERNEL(rma_thread_int_p, check_icopy) {
  for (int k = 0; k < (int)kPerThread; ++k) gshmem_int_p(&a->idst[elem(k)], a->isrc[elem(k)], pe);
}
LAUNCH_KERNEL(rma_thread_int_g, check_icopy) {
  for (int k = 0; k < (int)kPerThread; ++k) a->idst[elem(k)] = gshmem_int_g(&a->isrc[elem(k)], pe);
}
LAUNCH_KERNEL(rma_thread_uint8_p, check_bcopy) { gshmem_uint8_p(&a->bdst[tid()], a->bsrc[tid()], pe); }
LAUNCH_KERNEL(rma_thread_uint8_g, check_bcopy) { a->bdst[tid()] = gshmem_uint8_g(&a->bsrc[tid()], pe); }
LAUNCH_KERNEL(rma_thread_double_put, check_copy) {
  gshmem_double_put(&a->dst[elem(0)], &a->src[elem(0)], kPerThread, pe);
}
LAUNCH_KERNEL(rma_thread_double_put_nbi, check_copy) {
  gshmem_double_put_nbi(&a->dst[elem(0)], &a->src[elem(0)], kPerThread, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_thread_double_get, check_copy) {
  gshmem_double_get(&a->dst[elem(0)], &a->src[elem(0)], kPerThread, pe);
}
LAUNCH_KERNEL(rma_thread_double_get_nbi, check_copy) {
  gshmem_double_get_nbi(&a->dst[elem(0)], &a->src[elem(0)], kPerThread, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_thread_putmem, check_copy) {
  gshmem_putmem(&a->dst[elem(0)], &a->src[elem(0)], kPerThread * sizeof(double), pe);
}
LAUNCH_KERNEL(rma_thread_putmem_nbi, check_copy) {
  gshmem_putmem_nbi(&a->dst[elem(0)], &a->src[elem(0)], kPerThread * sizeof(double), pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_thread_getmem, check_copy) {
  gshmem_getmem(&a->dst[elem(0)], &a->src[elem(0)], kPerThread * sizeof(double), pe);
}
LAUNCH_KERNEL(rma_thread_getmem_nbi, check_copy) {
  gshmem_getmem_nbi(&a->dst[elem(0)], &a->src[elem(0)], kPerThread * sizeof(double), pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_thread_double_put_signal, check_copy_sig<kThreads>) {
  gshmem_double_put_signal(&a->dst[elem(0)], &a->src[elem(0)], kPerThread, &a->sig, 1, GSHMEM_SIGNAL_ADD, pe);
}
LAUNCH_KERNEL(rma_thread_double_put_signal_nbi, check_copy_sig<5>) {
  gshmem_double_put_signal_nbi(&a->dst[elem(0)], &a->src[elem(0)], kPerThread, &a->sig, 5, GSHMEM_SIGNAL_SET, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_thread_putmem_signal, check_copy_sig<kThreads>) {
  gshmem_putmem_signal(&a->dst[elem(0)], &a->src[elem(0)], kPerThread * sizeof(double), &a->sig, 1,
                       GSHMEM_SIGNAL_ADD, pe);
}
LAUNCH_KERNEL(rma_thread_putmem_signal_nbi, check_copy_sig<7>) {
  gshmem_putmem_signal_nbi(&a->dst[elem(0)], &a->src[elem(0)], kPerThread * sizeof(double), &a->sig, 7,
                           GSHMEM_SIGNAL_SET, pe);
  gshmem_quiet();
}

// ---- warp: 128 elements per warp (kPerWarp)

LAUNCH_KERNEL(rma_warp_double_put, check_copy) {
  gshmemx_double_put_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp, pe);
}
LAUNCH_KERNEL(rma_warp_double_put_nbi, check_copy) {
  gshmemx_double_put_nbi_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_warp_double_get, check_copy) {
  gshmemx_double_get_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp, pe);
}
LAUNCH_KERNEL(rma_warp_double_get_nbi, check_copy) {
  gshmemx_double_get_nbi_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_warp_putmem, check_copy) {
  gshmemx_putmem_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp * sizeof(double), pe);
}
LAUNCH_KERNEL(rma_warp_putmem_nbi, check_copy) {
  gshmemx_putmem_nbi_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp * sizeof(double), pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_warp_getmem, check_copy) {
  gshmemx_getmem_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp * sizeof(double), pe);
}
LAUNCH_KERNEL(rma_warp_getmem_nbi, check_copy) {
  gshmemx_getmem_nbi_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp * sizeof(double), pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_warp_double_put_signal, check_copy_sig<kWarps>) {
  gshmemx_double_put_signal_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp, &a->sig, 1,
                                 GSHMEM_SIGNAL_ADD, pe);
}
LAUNCH_KERNEL(rma_warp_putmem_signal_nbi, check_copy_sig<3>) {
  gshmemx_putmem_signal_nbi_warp(&a->dst[warp_first()], &a->src[warp_first()], kPerWarp * sizeof(double),
                                 &a->sig, 3, GSHMEM_SIGNAL_SET, pe);
  gshmem_quiet();
}

// ---- block: all 4096 elements

LAUNCH_KERNEL(rma_block_double_put, check_copy) { gshmemx_double_put_block(a->dst, a->src, kElems, pe); }
LAUNCH_KERNEL(rma_block_double_put_nbi, check_copy) {
  gshmemx_double_put_nbi_block(a->dst, a->src, kElems, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_block_double_get, check_copy) { gshmemx_double_get_block(a->dst, a->src, kElems, pe); }
LAUNCH_KERNEL(rma_block_double_get_nbi, check_copy) {
  gshmemx_double_get_nbi_block(a->dst, a->src, kElems, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_block_putmem, check_copy) { gshmemx_putmem_block(a->dst, a->src, sizeof a->src, pe); }
LAUNCH_KERNEL(rma_block_putmem_nbi, check_copy) {
  gshmemx_putmem_nbi_block(a->dst, a->src, sizeof a->src, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_block_getmem, check_copy) { gshmemx_getmem_block(a->dst, a->src, sizeof a->src, pe); }
LAUNCH_KERNEL(rma_block_getmem_nbi, check_copy) {
  gshmemx_getmem_nbi_block(a->dst, a->src, sizeof a->src, pe);
  gshmem_quiet();
}
LAUNCH_KERNEL(rma_block_double_put_signal, check_copy_sig<1>) {
  gshmemx_double_put_signal_block(a->dst, a->src, kElems, &a->sig, 1, GSHMEM_SIGNAL_ADD, pe);
}
LAUNCH_KERNEL(rma_block_putmem_signal_nbi, check_copy_sig<9>) {
  gshmemx_putmem_signal_nbi_block(a->dst, a->src, sizeof a->src, &a->sig, 9, GSHMEM_SIGNAL_SET, pe);
  gshmem_quiet();
}

// =============================================================== atomics
// ---- one thread, each on its own slot (slot[t] = t before)

LAUNCH_KERNEL(amo_thread_ulonglong_fetch, check_amo_fetch) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch(&a->slot[tid()], pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_set, check_amo_set) {
  gshmem_ulonglong_atomic_set(&a->slot[tid()], 7ull * tid(), pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_swap, check_amo_swap) {
  a->result[tid()] = gshmem_ulonglong_atomic_swap(&a->slot[tid()], tid() + 1ull, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_compare_swap, check_amo_compare_swap) {
  a->result[tid()] = gshmem_ulonglong_atomic_compare_swap(&a->slot[tid()], (unsigned long long)tid(),
                                                          tid() + 5000ull, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_inc, check_amo_fetch_inc) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch_inc(&a->slot[tid()], pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_inc, check_amo_inc) { gshmem_ulonglong_atomic_inc(&a->slot[tid()], pe); }
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_add, check_amo_fetch_add) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch_add(&a->slot[tid()], 3, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_add, check_amo_add) { gshmem_ulonglong_atomic_add(&a->slot[tid()], 3, pe); }
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_and, check_amo_fetch_and) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch_and(&a->slot[tid()], ~1ull, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_and, check_amo_and) { gshmem_ulonglong_atomic_and(&a->slot[tid()], ~1ull, pe); }
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_or, check_amo_fetch_or) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch_or(&a->slot[tid()], 0x100ull, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_or, check_amo_or) { gshmem_ulonglong_atomic_or(&a->slot[tid()], 0x100ull, pe); }
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_xor, check_amo_fetch_xor) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch_xor(&a->slot[tid()], 0xffull, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_xor, check_amo_xor) { gshmem_ulonglong_atomic_xor(&a->slot[tid()], 0xffull, pe); }
// Every thread on one counter: the old values are 0 .. 1023, once each.
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_add_shared, check_counter_distinct) {
  a->result[tid()] = gshmem_ulonglong_atomic_fetch_add(&a->counter, 1, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_inc_shared, check_counter<kThreads>) {
  gshmem_ulonglong_atomic_inc(&a->counter, pe);
}
LAUNCH_KERNEL(amo_thread_int_fetch_add, check_amo_int_fetch_add) {
  a->result[tid()] = (unsigned long long)gshmem_int_atomic_fetch_add(&a->isrc[elem(0)], 1, pe);
}
LAUNCH_KERNEL(amo_thread_double_fetch, check_amo_double_fetch) {
  a->result[tid()] = (unsigned long long)gshmem_double_atomic_fetch(&a->fslot[tid()], pe);
}
LAUNCH_KERNEL(amo_thread_double_compare_swap, check_amo_double_compare_swap) {
  a->result[tid()] = (unsigned long long)gshmem_double_atomic_compare_swap(&a->fslot[tid()], tid() + 0.25, -1.0, pe);
}
// Extended atomics (gshmemx_): sub, max, min, and the floating-point
// compare-and-swap loops.
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_sub, check_amo_fetch_sub) {
  a->result[tid()] = gshmemx_ulonglong_atomic_fetch_sub(&a->slot[tid()], 1, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_max, check_amo_fetch_max) {
  a->result[tid()] = gshmemx_ulonglong_atomic_fetch_max(&a->slot[tid()], 500, pe);
}
LAUNCH_KERNEL(amo_thread_ulonglong_fetch_min, check_amo_fetch_min) {
  a->result[tid()] = gshmemx_ulonglong_atomic_fetch_min(&a->slot[tid()], 500, pe);
}
LAUNCH_KERNEL(amo_thread_double_fetch_max, check_amo_double_fetch_max) {
  a->result[tid()] = (unsigned long long)gshmemx_double_atomic_fetch_max(&a->fslot[tid()], 500.0, pe);
}
LAUNCH_KERNEL(amo_thread_double_fetch_nanmin, check_amo_double_fetch_nanmin) {
  a->result[tid()] = (unsigned long long)gshmemx_double_atomic_fetch_nanmin(&a->fslot[tid()], 500.0, pe);
}
LAUNCH_KERNEL(amo_thread_double_fetch_add, check_amo_double_fetch_add) {
  a->result[tid()] = (unsigned long long)gshmemx_double_atomic_fetch_add(&a->fslot[tid()], 1.0, pe);
}

// ---- bulk atomics (warp: its 32 elements; block: all 1024)

LAUNCH_KERNEL(amo_warp_ulonglong_fetch_add_bulk, check_amo_bulk_add) {
  const size_t first = (size_t)warp() * 32;
  gshmemx_bulk_index_t index{nullptr, first, 1};
  gshmemx_ulonglong_atomic_fetch_add_bulk_warp(a->slot, kThreads, index, a->values + first, a->result + first, 32,
                                               nullptr, 0, pe);
}
LAUNCH_KERNEL(amo_block_ulonglong_fetch_add_bulk, check_amo_bulk_add) {
  gshmemx_bulk_index_t index{nullptr, 0, 1};
  gshmemx_ulonglong_atomic_fetch_add_bulk_block(a->slot, kThreads, index, a->values, a->result, kThreads, nullptr, 0,
                                                pe);
}
// conds[i] = i + 1 never matches slot[i] = i: nothing stored, the value found comes back.
LAUNCH_KERNEL(amo_block_ulonglong_compare_swap_bulk, check_amo_fetch) {
  gshmemx_bulk_index_t index{nullptr, 0, 1};
  gshmemx_ulonglong_atomic_compare_swap_bulk_block(a->slot, kThreads, index, a->values, a->values, a->result,
                                                   kThreads, nullptr, 0, pe);
}

// ---- C++ forms with explicit orders and scopes

LAUNCH_KERNEL(amo_cxx_load_acquire, check_amo_fetch) {
  a->result[tid()] = gshmem::atomic_load<gshmem::memory_order::acquire>(&a->slot[tid()], pe);
}
LAUNCH_KERNEL(amo_cxx_store_release, check_cxx_store) {
  gshmem::atomic_store<gshmem::memory_order::release>(&a->slot[tid()], 2ull * tid(), pe);
}
LAUNCH_KERNEL(amo_cxx_fetch_max_seq_cst, check_amo_fetch_max) {
  a->result[tid()] = gshmem::atomic_fetch_max(&a->slot[tid()], 500ull, pe);
}
LAUNCH_KERNEL(amo_cxx_load16, check_amo_fetch) {
  a->result[tid()] = gshmem::atomic_load(&a->wslot[tid()], pe).lo;
}
LAUNCH_KERNEL(amo_cxx_exchange16, check_wslot_exchanged) {
  const unsigned long long t = tid();
  a->result[t] = gshmem::atomic_exchange(&a->wslot[t], wide{t + 1, t + 2}, pe).lo;
}
LAUNCH_KERNEL(amo_cxx_compare_exchange16, check_wslot_exchanged) {
  const unsigned long long t = tid();
  wide expected{t, ~t};
  gshmem::atomic_compare_exchange(&a->wslot[t], expected, wide{t + 1, t + 2}, pe);
  a->result[t] = expected.lo;
}
// Order and scope as run-time values: every valid combination is compiled in.
LAUNCH_KERNEL(amo_cxx_runtime_fetch_add, check_amo_fetch_add) {
  const auto order = (gshmem::memory_order)a->rt_order;
  const auto scope = (gshmem::thread_scope)a->rt_scope;
  a->result[tid()] = gshmem::atomic_fetch_add(&a->slot[tid()], 3ull, pe, order, scope);
}
LAUNCH_KERNEL(amo_cxx_runtime_fetch_nanmax, check_amo_double_fetch_max) {
  const auto order = (gshmem::memory_order)a->rt_order;
  const auto scope = (gshmem::thread_scope)a->rt_scope;
  a->result[tid()] = (unsigned long long)gshmem::atomic_fetch_nanmax(&a->fslot[tid()], 500.0, pe, order, scope);
}
LAUNCH_KERNEL(amo_cxx_runtime_fence, (check_result<1>)) {
  gshmem::atomic_fence((gshmem::memory_order)a->rt_fence_order, (gshmem::thread_scope)a->rt_scope);
  a->result[tid()] = 1;
}

// =============================================================== signals

LAUNCH_KERNEL(signal_op_add, check_sig<kThreads>) { gshmemx_signal_op(&a->sig, 1, GSHMEM_SIGNAL_ADD, pe); }
LAUNCH_KERNEL(signal_op_set, check_sig<5>) { gshmemx_signal_op(&a->sig, 5, GSHMEM_SIGNAL_SET, pe); }
LAUNCH_KERNEL(signal_fetch, check_result<0>) { a->result[tid()] = gshmem_signal_fetch(&a->sig); }

// ========================================================= waits and tests
// ivars: 1 everywhere but 2 at kHit; cmp_values: ivars, but one less at
// kVectorHit. Every wait below is satisfied when the kernel starts.

// ---- single element, every thread
LAUNCH_KERNEL(wait_thread_wait_until, check_result<1>) {
  gshmem_longlong_wait_until(&a->ivars[tid()], a->cmp_ge, 1);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_thread_wait, check_result<1>) {
  gshmem_longlong_wait(&a->ivars[tid()], 0);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_thread_test, check_result<1>) {
  a->result[tid()] = (unsigned long long)gshmem_longlong_test(&a->ivars[tid()], a->cmp_ge, 1);
}
LAUNCH_KERNEL(wait_thread_signal_wait_until, check_result<0>) {
  a->result[tid()] = gshmem_signal_wait_until(&a->sig, a->cmp_ge, 0);
}
LAUNCH_KERNEL(wait_thread_cxx_wait_until, check_result<1>) {
  gshmem::wait_until(&a->ivars[tid()], a->cmp_ge, 1ll);
  a->result[tid()] = 1;
}

// ---- arrays, one thread: every thread scans the whole array (_some: thread 0)
LAUNCH_KERNEL(wait_thread_wait_until_all, check_result<1>) {
  gshmem_longlong_wait_until_all(a->ivars, kWait, a->status, a->cmp_ge, 1);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_thread_wait_until_all_vector, check_result<1>) {
  gshmem_longlong_wait_until_all_vector(a->ivars, kWait, a->status, a->cmp_ge, a->cmp_values);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_thread_wait_until_any, check_result<kHit>) {
  a->result[tid()] = gshmem_longlong_wait_until_any(a->ivars, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_wait_until_any_vector, check_result<kVectorHit>) {
  a->result[tid()] = gshmem_longlong_wait_until_any_vector(a->ivars, kWait, a->status, a->cmp_gt, a->cmp_values);
}
LAUNCH_KERNEL(wait_thread_wait_until_some, check_some<kHit>) {
  if (tid() == 0) a->result[0] = gshmem_longlong_wait_until_some(a->ivars, kWait, a->indices, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_wait_until_some_vector, check_some<kVectorHit>) {
  if (tid() == 0)
    a->result[0] =
        gshmem_longlong_wait_until_some_vector(a->ivars, kWait, a->indices, a->status, a->cmp_gt, a->cmp_values);
}
LAUNCH_KERNEL(wait_thread_test_all, check_result<1>) {
  a->result[tid()] = (unsigned long long)gshmem_longlong_test_all(a->ivars, kWait, a->status, a->cmp_ge, 1);
}
LAUNCH_KERNEL(wait_thread_test_all_vector, check_result<1>) {
  a->result[tid()] =
      (unsigned long long)gshmem_longlong_test_all_vector(a->ivars, kWait, a->status, a->cmp_ge, a->cmp_values);
}
LAUNCH_KERNEL(wait_thread_test_any, check_result<kHit>) {
  a->result[tid()] = gshmem_longlong_test_any(a->ivars, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_test_any_vector, check_result<kVectorHit>) {
  a->result[tid()] = gshmem_longlong_test_any_vector(a->ivars, kWait, a->status, a->cmp_gt, a->cmp_values);
}
LAUNCH_KERNEL(wait_thread_test_some, check_some<kHit>) {
  if (tid() == 0) a->result[0] = gshmem_longlong_test_some(a->ivars, kWait, a->indices, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_test_some_vector, check_some<kVectorHit>) {
  if (tid() == 0)
    a->result[0] = gshmem_longlong_test_some_vector(a->ivars, kWait, a->indices, a->status, a->cmp_gt, a->cmp_values);
}
// At most 32 elements: the one-batch path of the one-thread _any (the 32
// elements around kVectorHit, whose position 16 is the only one satisfied).
LAUNCH_KERNEL(wait_thread_wait_until_any_vector_small, check_result<16>) {
  a->result[tid()] = gshmem_longlong_wait_until_any_vector(a->ivars + kVectorHit - 16, 32, a->status, a->cmp_gt,
                                                           a->cmp_values + kVectorHit - 16);
}

// The element size sets how many loads one thread keeps in flight: the
// same scans on 4- and 2-byte elements.
LAUNCH_KERNEL(wait_thread_int_wait_until_all, check_result<1>) {
  gshmem_int_wait_until_all(a->ivars32, kWait, a->status, a->cmp_ge, 1);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_thread_int_wait_until_any, check_result<kHit>) {
  a->result[tid()] = gshmem_int_wait_until_any(a->ivars32, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_int_wait_until_any_vector, check_result<kVectorHit>) {
  a->result[tid()] = gshmem_int_wait_until_any_vector(a->ivars32, kWait, a->status, a->cmp_gt, a->cmp_values32);
}
LAUNCH_KERNEL(wait_thread_int_test_all_vector, check_result<1>) {
  a->result[tid()] =
      (unsigned long long)gshmem_int_test_all_vector(a->ivars32, kWait, a->status, a->cmp_ge, a->cmp_values32);
}
LAUNCH_KERNEL(wait_thread_int_wait_until_some, check_some<kHit>) {
  if (tid() == 0) a->result[0] = gshmem_int_wait_until_some(a->ivars32, kWait, a->indices, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_int_wait_until_any_small, check_result<16>) {
  a->result[tid()] = gshmem_int_wait_until_any(a->ivars32 + kHit - 16, 32, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_short_wait_until_any, check_result<kHit>) {
  a->result[tid()] = gshmem_short_wait_until_any(a->ivars16, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_thread_short_test_all, check_result<1>) {
  a->result[tid()] = (unsigned long long)gshmem_short_test_all(a->ivars16, kWait, a->status, a->cmp_ge, 1);
}

// ---- arrays, warp: every warp scans the whole array (_some: warp 0)
LAUNCH_KERNEL(wait_warp_wait_until_all, check_result<1>) {
  gshmemx_longlong_wait_until_all_warp(a->ivars, kWait, a->status, a->cmp_ge, 1);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_warp_wait_until_all_vector, check_result<1>) {
  gshmemx_longlong_wait_until_all_vector_warp(a->ivars, kWait, a->status, a->cmp_ge, a->cmp_values);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_warp_wait_until_any, check_result<kHit>) {
  a->result[tid()] = gshmemx_longlong_wait_until_any_warp(a->ivars, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_warp_wait_until_any_vector, check_result<kVectorHit>) {
  a->result[tid()] = gshmemx_longlong_wait_until_any_vector_warp(a->ivars, kWait, a->status, a->cmp_gt, a->cmp_values);
}
LAUNCH_KERNEL(wait_warp_wait_until_some, check_some<kHit>) {
  if (warp() == 0) {
    const size_t found = gshmemx_longlong_wait_until_some_warp(a->ivars, kWait, a->indices, a->status, a->cmp_eq, 2);
    if (tid() == 0) a->result[0] = found;
  }
}
LAUNCH_KERNEL(wait_warp_test_all_vector, check_result<1>) {
  a->result[tid()] =
      (unsigned long long)gshmemx_longlong_test_all_vector_warp(a->ivars, kWait, a->status, a->cmp_ge, a->cmp_values);
}
LAUNCH_KERNEL(wait_warp_test_any, check_result<kHit>) {
  a->result[tid()] = gshmemx_longlong_test_any_warp(a->ivars, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_warp_test_some_vector, check_some<kVectorHit>) {
  if (warp() == 0) {
    const size_t found =
        gshmemx_longlong_test_some_vector_warp(a->ivars, kWait, a->indices, a->status, a->cmp_gt, a->cmp_values);
    if (tid() == 0) a->result[0] = found;
  }
}

// ---- arrays, block
LAUNCH_KERNEL(wait_block_wait_until_all, check_result<1>) {
  gshmemx_longlong_wait_until_all_block(a->ivars, kWait, a->status, a->cmp_ge, 1);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_block_wait_until_all_vector, check_result<1>) {
  gshmemx_longlong_wait_until_all_vector_block(a->ivars, kWait, a->status, a->cmp_ge, a->cmp_values);
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(wait_block_wait_until_any, check_result<kHit>) {
  a->result[tid()] = gshmemx_longlong_wait_until_any_block(a->ivars, kWait, a->status, a->cmp_eq, 2);
}
LAUNCH_KERNEL(wait_block_wait_until_any_vector, check_result<kVectorHit>) {
  a->result[tid()] =
      gshmemx_longlong_wait_until_any_vector_block(a->ivars, kWait, a->status, a->cmp_gt, a->cmp_values);
}
LAUNCH_KERNEL(wait_block_wait_until_some, check_some<kHit>) {
  const size_t found = gshmemx_longlong_wait_until_some_block(a->ivars, kWait, a->indices, a->status, a->cmp_eq, 2);
  if (tid() == 0) a->result[0] = found;
}
LAUNCH_KERNEL(wait_block_test_all, check_result<1>) {
  a->result[tid()] = (unsigned long long)gshmemx_longlong_test_all_block(a->ivars, kWait, a->status, a->cmp_ge, 1);
}
LAUNCH_KERNEL(wait_block_test_any_vector, check_result<kVectorHit>) {
  a->result[tid()] = gshmemx_longlong_test_any_vector_block(a->ivars, kWait, a->status, a->cmp_gt, a->cmp_values);
}
LAUNCH_KERNEL(wait_block_test_some_vector, check_some<kVectorHit>) {
  const size_t found =
      gshmemx_longlong_test_some_vector_block(a->ivars, kWait, a->indices, a->status, a->cmp_gt, a->cmp_values);
  if (tid() == 0) a->result[0] = found;
}
// At most 32 elements: the block's first warp polls them alone.
LAUNCH_KERNEL(wait_block_wait_until_all_small, check_result<1>) {
  gshmemx_longlong_wait_until_all_vector_block(a->ivars, 32, a->status, a->cmp_ge, a->cmp_values);
  a->result[tid()] = 1;
}

// ================================================ fence, quiet, barriers

LAUNCH_KERNEL(order_fence_quiet, check_result<1>) {
  gshmem_fence();
  gshmem_quiet();
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(order_barrier_all_block, check_result<1>) {
  gshmem_barrier_all();
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(order_sync_all_block, check_result<1>) {
  gshmem_sync_all();
  a->result[tid()] = 1;
}
LAUNCH_KERNEL(order_barrier_all_thread, (check_result<1, 1>)) {
  if (tid() == 0) {
    gshmemx_barrier_all_thread();
    a->result[0] = 1;
  }
}
LAUNCH_KERNEL(order_sync_all_thread, (check_result<1, 1>)) {
  if (tid() == 0) {
    gshmemx_sync_all_thread();
    a->result[0] = 1;
  }
}
LAUNCH_KERNEL(order_barrier_all_warp, (check_result<1, 32>)) {
  if (warp() == 0) {
    gshmemx_barrier_all_warp();
    a->result[tid()] = 1;
  }
}
LAUNCH_KERNEL(order_sync_all_warp, (check_result<1, 32>)) {
  if (warp() == 0) {
    gshmemx_sync_all_warp();
    a->result[tid()] = 1;
  }
}
LAUNCH_KERNEL(order_team_sync_block, check_result<0>) {
  a->result[tid()] = (unsigned long long)gshmemx_team_sync_block(GSHMEM_TEAM_WORLD);
}
LAUNCH_KERNEL(order_team_barrier_warp, (check_result<0, 32>)) {
  if (warp() == 0) a->result[tid()] = (unsigned long long)gshmemx_team_barrier_warp(GSHMEM_TEAM_WORLD);
}
LAUNCH_KERNEL(order_team_sync_thread, (check_result<0, 1>)) {
  if (tid() == 0) a->result[0] = (unsigned long long)gshmem_team_sync(GSHMEM_TEAM_WORLD);
}

// ========================================================== collectives
// One PE: a sum over the team is the source itself, fcollect a copy.

LAUNCH_KERNEL(coll_thread_double_sum_reduce, check_copy) {
  if (tid() == 0) gshmem_double_sum_reduce(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
LAUNCH_KERNEL(coll_warp_double_max_reduce, check_copy) {
  if (warp() == 0) gshmemx_double_max_reduce_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
LAUNCH_KERNEL(coll_block_double_sum_reduce, check_copy) {
  gshmemx_double_sum_reduce_block(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
LAUNCH_KERNEL(coll_block_double_fcollect, check_copy) {
  gshmemx_double_fcollect_block(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
// The data collectives' thread forms: their one-thread copies take the edge
// pieces of RMA's one thread but not its in-flight tail, which took them to
// 68-80 registers.
LAUNCH_KERNEL(coll_thread_double_broadcast, check_copy) {
  if (tid() == 0) gshmem_double_broadcast(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems, 0);
}
LAUNCH_KERNEL(coll_thread_double_fcollect, check_copy) {
  if (tid() == 0) gshmem_double_fcollect(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
LAUNCH_KERNEL(coll_thread_double_alltoall, check_copy) {
  if (tid() == 0) gshmem_double_alltoall(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
// The warp and block alltoall (NVIDIA's alltoall_latency calls them in a
// timing loop, where they took 72 registers): one member, a copy.
LAUNCH_KERNEL(coll_warp_double_alltoall, check_copy) {
  if (warp() == 0) gshmemx_double_alltoall_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
LAUNCH_KERNEL(coll_block_double_alltoall, check_copy) {
  gshmemx_double_alltoall_block(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
// One PE: and/xor over one member and a reducescatter's only block are the
// source itself too (bit for bit through the uint64 forms).
LAUNCH_KERNEL(coll_thread_uint64_xor_reduce, check_copy) {
  if (tid() == 0)
    gshmem_uint64_xor_reduce(GSHMEM_TEAM_WORLD, (uint64_t *)a->dst, (const uint64_t *)a->src, kElems);
}
LAUNCH_KERNEL(coll_warp_double_sum_reducescatter, check_copy) {
  if (warp() == 0) gshmemx_double_sum_reducescatter_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, kElems);
}
LAUNCH_KERNEL(coll_block_uint64_and_reducescatter, check_copy) {
  gshmemx_uint64_and_reducescatter_block(GSHMEM_TEAM_WORLD, (uint64_t *)a->dst, (const uint64_t *)a->src, kElems);
}
