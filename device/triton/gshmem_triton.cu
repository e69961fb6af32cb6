// gshmem's device routines under a plain C ABI, for kernels that Triton
// compiles: this file is compiled to LLVM bitcode (clang, CUDA device side
// only; see CMakeLists.txt beside it) and linked into each Triton kernel as
// an extern library (python/gshmem/triton.py). The idea of a bitcode device
// library called through Triton's extern_elementwise comes from Triton's own
// libdevice bindings and from Triton-distributed's NVSHMEM bindings.
//
// Each function forwards to gshmem's own inline device routine
// (<gshmem/gshmem.h>, <gshmem/gshmemx.h>); nothing is reimplemented, and each
// keeps that routine's ordering guarantee, restated at the function.
//
// Who calls. Triton runs a kernel's scalar code on every thread of the
// program (the CTA), so a routine called with scalar arguments is called by
// every thread with the same arguments. The routines are written for that:
//   per thread  my_pe, n_pes, ptr, the waits, fence, quiet: each thread does
//               what the routine says for itself (element-wise on tensors).
//   per CTA     put, put_signal (the CTA synchronizes first, so the source
//               may be what its threads just stored (tl.store), then
//               gshmemx_putmem*_block: the threads share the copy and
//               synchronize; one thread writes the signal),
//               signal_op (the CTA synchronizes, then its thread 0 updates
//               the signal), barrier_all (gshmemx_barrier_all_block): every
//               thread of the CTA calls them, with scalar arguments, in
//               converged code (not inside a warp-specialized partition).
// Every function returns a value (0 where the routine returns nothing):
// Triton's extern calls are built as value-returning operations.
//
// The runtime state: GSHMEMI_STATE_EXPORTED gives the module one copy of it
// under the unmangled name gshmemi_device_state; gshmemx_cumodule_init
// (<gshmem/launch.h>) fills it after the module is loaded and keeps it
// current (gshmem.triton does that for every Triton kernel it sees loaded).
#define GSHMEMI_STATE_EXPORTED 1
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <stdint.h>

#define GSHMEMT_API extern "C" __device__

namespace {
// The CTA's thread 0 (Triton launches 1-D blocks; y and z tested anyway).
__device__ __forceinline__ bool cta_leader() { return (threadIdx.x | threadIdx.y | threadIdx.z) == 0; }
}  // namespace

/* This PE's number (gshmem_my_pe). No memory access but the state's. */
GSHMEMT_API int32_t gshmem_triton_my_pe(void) { return gshmem_my_pe(); }

/* Number of PEs (gshmem_n_pes). */
GSHMEMT_API int32_t gshmem_triton_n_pes(void) { return gshmem_n_pes(); }

/* gshmem_ptr: the address at which this thread loads and stores the
 * symmetric address `dest` as it lives on PE `pe`, or 0 where that PE is not
 * directly reachable (remote) or `dest` not symmetric. Loads and stores
 * through it are ordinary memory operations: they are ordered towards that PE
 * by fence/quiet, or announced by a later put_signal/signal_op of the same
 * CTA (put_signal's release covers them once the CTA synchronized). */
GSHMEMT_API uint64_t gshmem_triton_ptr(uint64_t dest, int32_t pe) {
  return (uint64_t)(uintptr_t)gshmem_ptr((const void *)(uintptr_t)dest, pe);
}

/* Per CTA: a CTA barrier (the CTA's earlier stores to source are visible to
 * all its threads), then gshmemx_putmem_block. Copies nbytes from source (local) to dest
 * (symmetric) on PE pe, the CTA's threads sharing the copy; returns when
 * source may be reused. Delivery is ordered by fence/quiet as any put; the
 * CTA synchronizes before returning. */
GSHMEMT_API int32_t gshmem_triton_putmem_block(uint64_t dest, uint64_t source, uint64_t nbytes, int32_t pe) {
  __syncthreads();  // the source may be what other threads of the CTA just stored
  gshmemx_putmem_block((void *)(uintptr_t)dest, (const void *)(uintptr_t)source, (size_t)nbytes, pe);
  return 0;
}

/* Per CTA: gshmemx_putmem_nbi_block: as putmem_block, but source may be
 * reused only after quiet. */
GSHMEMT_API int32_t gshmem_triton_putmem_nbi_block(uint64_t dest, uint64_t source, uint64_t nbytes, int32_t pe) {
  __syncthreads();  // the source may be what other threads of the CTA just stored
  gshmemx_putmem_nbi_block((void *)(uintptr_t)dest, (const void *)(uintptr_t)source, (size_t)nbytes, pe);
  return 0;
}

/* Per CTA: a CTA barrier, then gshmemx_putmem_signal_block. The CTA copies nbytes to PE pe, then
 * synchronizes, then one thread updates the signal sig on PE pe (sig_op
 * GSHMEM_SIGNAL_SET: st.release.sys; GSHMEM_SIGNAL_ADD: red.release.sys.add)
 * with release at system scope: a PE that observes the signal (with acquire:
 * signal_wait_until) observes the data, and every store the CTA made before
 * the call. */
GSHMEMT_API int32_t gshmem_triton_putmem_signal_block(uint64_t dest, uint64_t source, uint64_t nbytes, uint64_t sig,
                                                      uint64_t signal, int32_t sig_op, int32_t pe) {
  __syncthreads();  // the source may be what other threads of the CTA just stored
  gshmemx_putmem_signal_block((void *)(uintptr_t)dest, (const void *)(uintptr_t)source, (size_t)nbytes,
                              (uint64_t *)(uintptr_t)sig, signal, sig_op, pe);
  return 0;
}

/* Per CTA: gshmemx_putmem_signal_nbi_block: the same ordering between data
 * and signal; source may be reused only after quiet. */
GSHMEMT_API int32_t gshmem_triton_putmem_signal_nbi_block(uint64_t dest, uint64_t source, uint64_t nbytes,
                                                          uint64_t sig, uint64_t signal, int32_t sig_op, int32_t pe) {
  __syncthreads();  // the source may be what other threads of the CTA just stored
  gshmemx_putmem_signal_nbi_block((void *)(uintptr_t)dest, (const void *)(uintptr_t)source, (size_t)nbytes,
                                  (uint64_t *)(uintptr_t)sig, signal, sig_op, pe);
  return 0;
}

/* Per CTA: the CTA synchronizes (bar.sync), then its thread 0 calls
 * gshmemx_signal_op: SET stores signal (st.relaxed.sys), ADD adds it
 * (red.relaxed.sys.add). Relaxed: earlier stores and puts are NOT ordered
 * before it; use put_signal (release) when the signal announces data, or
 * quiet before it. */
GSHMEMT_API int32_t gshmem_triton_signal_op(uint64_t sig, uint64_t signal, int32_t sig_op, int32_t pe) {
  __syncthreads();
  if (cta_leader()) gshmemx_signal_op((uint64_t *)(uintptr_t)sig, signal, sig_op, pe);
  return 0;
}

/* Per thread: gshmem_signal_wait_until. Waits until *sig (this PE's signal)
 * <cmp> value and returns the satisfying value; acquire at system scope on
 * return (ld.acquire.sys polls): what a put_signal delivered before that
 * value is visible to the thread's later loads. */
GSHMEMT_API uint64_t gshmem_triton_signal_wait_until(uint64_t sig, int32_t cmp, uint64_t value) {
  return gshmem_signal_wait_until((uint64_t *)(uintptr_t)sig, cmp, value);
}

/* Per thread: gshmem_TYPE_wait_until for int32, int64 and uint64: waits
 * until *ivar <cmp> value; acquire at system scope on return, as
 * signal_wait_until. Returns 0. */
GSHMEMT_API int32_t gshmem_triton_int32_wait_until(uint64_t ivar, int32_t cmp, int32_t value) {
  gshmem_int32_wait_until((int32_t *)(uintptr_t)ivar, cmp, value);
  return 0;
}
GSHMEMT_API int32_t gshmem_triton_int64_wait_until(uint64_t ivar, int32_t cmp, int64_t value) {
  gshmem_int64_wait_until((int64_t *)(uintptr_t)ivar, cmp, value);
  return 0;
}
GSHMEMT_API int32_t gshmem_triton_uint64_wait_until(uint64_t ivar, int32_t cmp, uint64_t value) {
  gshmem_uint64_wait_until((uint64_t *)(uintptr_t)ivar, cmp, value);
  return 0;
}

/* Per thread: gshmem_fence. Orders the thread's earlier puts, AMOs and
 * signals to each PE before its later ones to that PE (fence.acq_rel.sys). */
GSHMEMT_API int32_t gshmem_triton_fence(void) {
  gshmem_fence();
  return 0;
}

/* Per thread: gshmem_quiet. The thread's earlier puts, AMOs, signals (and
 * stores through ptr) are complete and visible to every PE before any later
 * memory operation of the thread (fence.sc.sys). */
GSHMEMT_API int32_t gshmem_triton_quiet(void) {
  gshmem_quiet();
  return 0;
}

/* Per CTA: gshmemx_barrier_all_block (= the device gshmem_barrier_all):
 * quiet by the CTA, then returns when every PE has entered; every update the
 * CTA issued before the call is complete and visible to every PE when any PE
 * returns. One CTA per PE calls it at a time (as NVSHMEM's device barrier),
 * and every PE calls it the same number of times. */
GSHMEMT_API int32_t gshmem_triton_barrier_all(void) {
  gshmemx_barrier_all_block();
  return 0;
}

/* Per CTA: gshmemx_sync_all_block: as barrier_all without the quiet; the
 * CTA's stores before the call are visible to every PE after it. */
GSHMEMT_API int32_t gshmem_triton_sync_all(void) {
  gshmemx_sync_all_block();
  return 0;
}
